// The Vercel AI SDK (`ai` 6 with `@ai-sdk/openai`'s `createOpenAI`) as a client of
// `lucid serve`, used by crates/lucid-server/tests/ai_sdk.rs.
//
//   node ai_sdk.cjs NODE_CLIENTS_DIR BASE_URL API_KEY
//
// Runs each case against the Responses API (the provider's default) and Chat Completions
// (`.chat(...)`) and prints {"responses": {case: result}, "chat": {...}}; a case that
// throws has {"error": message} as its result. LUCID_AI_SDK_DEBUG=1 logs each request
// body to stderr.
const path = require("path");
const { createRequire } = require("module");

const load = createRequire(path.join(process.argv[2], "package.json"));
const { generateText, streamText, generateObject, streamObject, tool, stepCountIs, Output } = load("ai");
const { createOpenAI } = load("@ai-sdk/openai");
const { z } = load("zod");
const [, , , baseURL, apiKey] = process.argv;
// The SDK's warnings (a setting a model does not take) go to stdout, where the result is.
globalThis.AI_SDK_LOG_WARNINGS = false;

const debugFetch = async (url, init) => {
  if (process.env.LUCID_AI_SDK_DEBUG) console.error(`${init?.method ?? "GET"} ${url} ${init?.body ?? ""}`);
  return fetch(url, init);
};
const openai = createOpenAI({ baseURL: `${baseURL}/v1`, apiKey, fetch: debugFetch });

// The client's own tool: the SDK runs it, between the steps of a call.
const called = [];
const weather = tool({
  description: "The weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    called.push(city);
    return "sunny";
  },
});
const Sum = z.object({ sum: z.number() });

const usage = (u) => [u.inputTokens, u.outputTokens, u.totalTokens];

async function cases(model) {
  const out = {};
  const run = async (name, f) => {
    try {
      out[name] = await f();
    } catch (e) {
      out[name] = { error: `${e?.name}: ${e?.message} ${e?.responseBody ?? ""}`.trim() };
    }
  };
  await run("generate", async () => {
    const r = await generateText({ model, system: "Be brief.", prompt: "Hello", temperature: 0.5, maxOutputTokens: 100 });
    return { text: r.text, finish: r.finishReason, usage: usage(r.usage) };
  });
  await run("stream", async () => {
    const r = streamText({ model, prompt: "Hello" });
    let text = "";
    let pieces = 0;
    for await (const t of r.textStream) {
      text += t;
      pieces += 1;
    }
    return { text, pieces, finish: await r.finishReason, usage: usage(await r.usage) };
  });
  await run("tool", async () => {
    called.length = 0;
    const r = await generateText({
      model,
      tools: { weather },
      stopWhen: stepCountIs(5),
      prompt: "The weather in Paris, and 2 + 3?",
    });
    const calls = r.steps.flatMap((s) => s.toolCalls.map((c) => [c.toolName, c.input]));
    return { text: r.text, steps: r.steps.length, calls, called: [...called] };
  });
  await run("stream_tool", async () => {
    called.length = 0;
    const r = streamText({ model, tools: { weather }, stopWhen: stepCountIs(5), prompt: "The weather in Paris, and 2 + 3?" });
    let text = "";
    for await (const t of r.textStream) text += t;
    return { text, steps: (await r.steps).length, called: [...called] };
  });
  await run("object", async () => {
    const r = await generateObject({ model, schema: Sum, schemaName: "Sum", prompt: "What is 2 + 3?" });
    return r.object;
  });
  await run("output", async () => {
    const r = await generateText({ model, output: Output.object({ schema: Sum }), prompt: "What is 2 + 3?" });
    return r.output;
  });
  await run("stream_object", async () => {
    const r = streamObject({ model, schema: Sum, prompt: "What is 2 + 3?" });
    let partials = 0;
    for await (const _ of r.partialObjectStream) partials += 1;
    return { object: await r.object, streamed: partials > 0 };
  });
  await run("history", async () => {
    const r = await generateText({
      model,
      messages: [
        { role: "user", content: "Hello" },
        { role: "assistant", content: "You said 1 things." },
        { role: "user", content: [{ type: "text", text: "Again" }] },
      ],
    });
    return r.text;
  });
  // A conversation as the SDK's docs keep one: each answer's `response.messages` appended.
  // Against the Responses API it sends an earlier answer back as an `item_reference` to
  // it, unless told `store: false`; Lucid keeps a response's items only with `store: true`.
  // (Chat Completions refuses `store: true`: it keeps nothing.)
  const chat = model.provider === "openai.chat";
  for (const store of chat ? [undefined, false] : [undefined, true, false]) {
    await run(`turns_store_${store}`, async () => {
      const providerOptions = store === undefined ? undefined : { openai: { store } };
      const messages = [{ role: "user", content: "Hello" }];
      const first = await generateText({ model, messages, providerOptions, maxRetries: 0 });
      messages.push(...first.response.messages, { role: "user", content: "Again" });
      const next = await generateText({ model, messages, providerOptions, maxRetries: 0 });
      return [first.text, next.text];
    });
    // The same after a step with its own tool: the calls and results go back too.
    await run(`tool_turns_store_${store}`, async () => {
      const providerOptions = store === undefined ? undefined : { openai: { store } };
      const messages = [{ role: "user", content: "The weather in Paris, and 2 + 3?" }];
      const first = await generateText({ model, messages, tools: { weather }, stopWhen: stepCountIs(5), providerOptions, maxRetries: 0 });
      messages.push(...first.response.messages, { role: "user", content: "Thanks" });
      const next = await generateText({ model, messages, providerOptions, maxRetries: 0 });
      return [first.text, next.text];
    });
  }
  await run("options", async () => {
    const r = await generateText({
      model,
      prompt: "Hello",
      topP: 0.5,
      seed: 7,
      maxRetries: 0,
      providerOptions: { openai: { user: "u-1", parallelToolCalls: false, metadata: { k: "v" } } },
    });
    return r.text;
  });
  await run("tool_choice", async () => {
    called.length = 0;
    const r = await generateText({
      model,
      tools: { weather },
      toolChoice: { type: "tool", toolName: "weather" },
      stopWhen: stepCountIs(1),
      prompt: "The weather in Paris?",
    });
    return { finish: r.finishReason, called: [...called] };
  });
  await run("fail", async () => {
    const r = await generateText({ model, prompt: "fail", maxRetries: 0 });
    return { text: r.text };
  });
  await run("stream_fail", async () => {
    const r = streamText({ model, prompt: "fail", maxRetries: 0, onError: () => {} });
    const errors = [];
    let text = "";
    for await (const part of r.fullStream) {
      if (part.type === "error") errors.push(`${part.error?.message ?? part.error}`);
      if (part.type === "text-delta") text += part.text;
    }
    return { text, errors };
  });
  await run("unknown_agent", async () => {
    const r = await generateText({ model: model.provider === "openai.chat" ? openai.chat("nobody") : openai("nobody"), prompt: "Hello", maxRetries: 0 });
    return { text: r.text };
  });
  return out;
}

(async () => {
  const responses = await cases(openai("default"));
  // A response the server keeps, and the next one going on from it.
  try {
    const model = openai("default");
    const first = await generateText({ model, prompt: "Hello", providerOptions: { openai: { store: true } } });
    const previousResponseId = first.providerMetadata.openai.responseId;
    const next = await generateText({ model, prompt: "Again", providerOptions: { openai: { store: true, previousResponseId } } });
    responses.stored = [first.text, next.text];
  } catch (e) {
    responses.stored = { error: `${e?.name}: ${e?.message} ${e?.responseBody ?? ""}`.trim() };
  }
  const chat = await cases(openai.chat("default"));
  console.log(JSON.stringify({ responses, chat }));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
