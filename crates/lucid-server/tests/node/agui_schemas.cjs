// Checks AG-UI events and run inputs with the schemas @ag-ui/core publishes (its zod
// `EventSchemas` and `RunAgentInputSchema`), used by crates/lucid-server/tests/agui.rs.
//
//   node agui_schemas.cjs NODE_CLIENTS_DIR < {"inputs": [...], "events": [...]}
//
// Prints {"inputs": n, "events": n, "problems": [...]}: a problem is an input or event the
// schema refuses, or an event field the event's schema does not name (the schemas are
// loose objects, so a misspelt optional field would otherwise pass unseen).
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const load = createRequire(path.join(process.argv[2], "package.json"));
const { EventSchemas, RunAgentInputSchema } = load("@ag-ui/core/schemas");
const { inputs, events } = JSON.parse(fs.readFileSync(0, "utf8"));

const byType = new Map(EventSchemas.options.map((s) => [s.shape.type.value, s]));
const problems = [];
inputs.forEach((input, i) => {
  const r = RunAgentInputSchema.safeParse(input);
  if (!r.success) problems.push(`inputs[${i}]: ${JSON.stringify(r.error.issues)}`);
});
events.forEach((event, i) => {
  const r = EventSchemas.safeParse(event);
  if (!r.success) {
    problems.push(`events[${i}] ${JSON.stringify(event)}: ${JSON.stringify(r.error.issues)}`);
    return;
  }
  const shape = byType.get(event.type).shape;
  for (const key of Object.keys(event)) {
    if (!(key in shape)) problems.push(`events[${i}] ${event.type}: field \`${key}\` is not in the schema`);
  }
});
console.log(JSON.stringify({ inputs: inputs.length, events: events.length, problems }));
