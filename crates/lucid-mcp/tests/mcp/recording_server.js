// A minimal stdio MCP server for tests: one tool, `wait`, that never answers; every
// notification it receives is appended (one JSON line) to the file named by argv[2].
const fs = require("fs");
const readline = require("readline");
const log = process.argv[2];
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) {
    fs.appendFileSync(log, line + "\n");
    return;
  }
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "recording", version: "1" },
    } });
  } else if (msg.method === "tools/list") {
    send({ jsonrpc: "2.0", id: msg.id, result: { tools: [
      { name: "wait", description: "Never answers.", inputSchema: { type: "object", properties: {} } },
    ] } });
  } else if (msg.method === "tools/call") {
    fs.appendFileSync(log, JSON.stringify({ call: msg.id }) + "\n");
  } else {
    send({ jsonrpc: "2.0", id: msg.id, result: {} });
  }
});
