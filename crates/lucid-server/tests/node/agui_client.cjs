// AG-UI's own HTTP client (`HttpAgent` of @ag-ui/client, which checks the order of the
// events it reads and builds the thread from them) as a front end of `lucid serve`, used
// by crates/lucid-server/tests/agui.rs.
//
//   node agui_client.cjs NODE_CLIENTS_DIR AGENT_URL API_KEY
//
// Runs the thread, runs the front end's tool the agent called (answering "sunny"), runs
// again, then a run that fails; prints what it saw as JSON.
const path = require("path");
const { createRequire } = require("module");

const load = createRequire(path.join(process.argv[2], "package.json"));
const { HttpAgent } = load("@ag-ui/client");
const [, , , url, key] = process.argv;
const headers = { Authorization: `Bearer ${key}` };

const weather = {
  name: "weather",
  description: "The weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const thread = (agent) =>
  agent.messages.map((m) => [m.role, m.content ?? null, (m.toolCalls ?? []).map((c) => c.function.name), m.toolCallId ?? null]);

(async () => {
  const agent = new HttpAgent({
    url,
    headers,
    threadId: "thread-1",
    initialMessages: [{ id: "m1", role: "user", content: "The weather in Paris, and 2 + 3?" }],
    initialState: { city: "Paris" },
  });
  const seen = [];
  const subscriber = { onEvent: ({ event }) => void seen.push(event.type) };
  await agent.runAgent({ runId: "run-1", tools: [weather] }, subscriber);
  const first = seen.splice(0);
  // The front end runs its own tool: each call no tool message answers yet.
  const answered = new Set(agent.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  const pending = agent.messages.flatMap((m) => m.toolCalls ?? []).filter((c) => !answered.has(c.id));
  for (const c of pending) agent.addMessage({ id: `result-${c.id}`, role: "tool", toolCallId: c.id, content: "sunny" });
  await agent.runAgent({ runId: "run-2", tools: [weather] }, subscriber);
  const second = seen.splice(0);

  const failing = new HttpAgent({ url, headers, initialMessages: [{ id: "f1", role: "user", content: "fail" }] });
  let failed = null;
  const errors = [];
  try {
    await failing.runAgent({ runId: "run-3" }, { onRunErrorEvent: ({ event }) => void errors.push([event.code, event.message]) });
  } catch (e) {
    failed = `${e?.message ?? e}`;
  }
  console.log(
    JSON.stringify({
      first,
      second,
      pending: pending.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      thread: thread(agent),
      state: agent.state,
      failed,
      errors,
    }),
  );
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
