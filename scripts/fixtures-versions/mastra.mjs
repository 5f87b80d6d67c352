// Writes a Mastra memory store (LibSQL) with the installed @mastra/core + @mastra/memory (+ @mastra/libsql) through
// an Agent with a mock model (AI SDK 4's MockLanguageModelV1 for Mastra 0.x, AI SDK 5's MockLanguageModelV2 for 1.x)
// that calls a tool then answers, and reads it back through Memory's own API. Run by scripts/fixtures-versions.mjs in
// the target's folder: stdin {version, out, versions}; writes <out>/store.db; prints the read-back.
import { readFileSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const core = input.versions["@mastra/core"];
const major1 = core.startsWith("1.");
const file = path.join(input.out, "store.db");
const url = `file:${file}`;

// ---- storage ---------------------------------------------------------------------------------------------------
let storage;
if (input.versions["@mastra/libsql"]) {
  const { LibSQLStore } = await import("@mastra/libsql");
  storage = major1 ? new LibSQLStore({ id: "versions", url }) : new LibSQLStore({ url });
} else {
  // Mastra 0.4: the LibSQL store lives in @mastra/core
  const { LibSQLStore } = await import("@mastra/core/storage/libsql");
  storage = new LibSQLStore({ config: { url } });
}
await storage.init?.();

const { Memory } = await import("@mastra/memory");
const { Agent } = await import("@mastra/core/agent");
const { createTool } = await import("@mastra/core/tools");
const { z } = await import("zod");
const memory = new Memory({
  storage,
  options: {
    lastMessages: 50,
    semanticRecall: false,
    workingMemory: { enabled: major1, scope: "resource" },
  },
});

// ---- a scripted model ------------------------------------------------------------------------------------------
let plan = [];
let model;
if (major1) {
  // a LanguageModelV2 by hand (ai/test's MockLanguageModelV2 needs msw, a test-only dependency)
  const usage = { inputTokens: 3, outputTokens: 5, totalTokens: 8 };
  model = {
    specificationVersion: "v2",
    provider: "mock",
    modelId: "mock-model",
    supportedUrls: {},
    doGenerate: async () => {
      const s = plan.shift() ?? { text: "ok" };
      if (s.call)
        return {
          finishReason: "tool-calls",
          usage,
          warnings: [],
          content: [
            { type: "tool-call", toolCallId: s.call.id, toolName: "weather", input: JSON.stringify(s.call.args) },
          ],
        };
      return { finishReason: "stop", usage, warnings: [], content: [{ type: "text", text: s.text }] };
    },
    doStream: async () => {
      const s = plan.shift() ?? { text: "ok" };
      const chunks = [{ type: "stream-start", warnings: [] }];
      if (s.call)
        chunks.push({
          type: "tool-call",
          toolCallId: s.call.id,
          toolName: "weather",
          input: JSON.stringify(s.call.args),
        });
      else
        chunks.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: s.text },
          { type: "text-end", id: "t" },
        );
      chunks.push({ type: "finish", finishReason: s.call ? "tool-calls" : "stop", usage });
      return {
        stream: new ReadableStream({
          start(c) {
            for (const x of chunks) c.enqueue(x);
            c.close();
          },
        }),
      };
    },
  };
} else {
  const { MockLanguageModelV1 } = await import("ai/test");
  model = new MockLanguageModelV1({
    doGenerate: async () => {
      const s = plan.shift() ?? { text: "ok" };
      return {
        rawCall: { rawPrompt: null, rawSettings: {} },
        finishReason: s.call ? "tool-calls" : "stop",
        usage: { promptTokens: 3, completionTokens: 5 },
        text: s.text,
        toolCalls: s.call
          ? [
              {
                toolCallType: "function",
                toolCallId: s.call.id,
                toolName: "weather",
                args: JSON.stringify(s.call.args),
              },
            ]
          : undefined,
      };
    },
  });
}

const weather = createTool({
  id: "weather",
  description: "weather in a city",
  inputSchema: z.object({ city: z.string() }),
  // Mastra 0.x passes {context}, 1.x the input itself
  execute: async (a) => {
    const city = a?.context?.city ?? a?.city;
    return { city, forecast: `sunny in ${city}` };
  },
});
const agent = new Agent({
  id: "helper",
  name: "helper",
  instructions: "help",
  model,
  tools: { weather },
  memory,
});

// ---- the conversation ------------------------------------------------------------------------------------------
const THREADS = [
  {
    id: "trip-1",
    resource: "alice",
    title: "Trip planning",
    turns: [
      { user: "Weather in Paris?", call: { id: "call-1", args: { city: "Paris" } }, answer: "It is sunny in Paris." },
      { user: "Thanks! Any advice?", answer: "Pack sunglasses." },
    ],
  },
  { id: "bob-1", resource: "bob", title: "Bob's thread", turns: [{ user: "hello", answer: "Hello, Bob." }] },
];
const opts = (t) =>
  major1
    ? { memory: { thread: t.id, resource: t.resource }, maxSteps: 4 }
    : { threadId: t.id, resourceId: t.resource, maxSteps: 4 };

for (const t of THREADS) {
  if (t.title) {
    if (typeof memory.createThread === "function")
      await memory.createThread({ threadId: t.id, resourceId: t.resource, title: t.title });
  }
  for (const turn of t.turns) {
    plan = turn.call ? [{ call: turn.call }, { text: turn.answer }] : [{ text: turn.answer }];
    await agent.generate(turn.user, opts(t));
  }
}
if (major1 && typeof memory.updateWorkingMemory === "function")
  await memory.updateWorkingMemory({
    threadId: "trip-1",
    resourceId: "alice",
    workingMemory: "# Alice\n- Likes: Paris",
  });

// Mastra 1.51+: a user turn sent as a signal (an agent-controller session persists chat messages this way)
if (major1 && typeof agent.sendSignal === "function") {
  const { createSignal } = await import("@mastra/core/agent").catch(() => ({}));
  plan = [{ text: "Signal received." }];
  const signal = (createSignal ?? ((s) => s))({ type: "user-message", contents: "Is it still sunny?" });
  const r = agent.sendSignal(signal, { resourceId: "alice", threadId: "signal-1" });
  await (r?.persisted ?? r?.accepted ?? r);
  await new Promise((res) => setTimeout(res, 500));
}
await memory.settled?.();

// ---- read back through Memory ----------------------------------------------------------------------------------
async function threadsOf(resourceId) {
  if (typeof memory.listThreads === "function") {
    const { threads } = await memory.listThreads({ filter: { resourceId }, perPage: false });
    return threads;
  }
  if (typeof memory.listThreadsByResourceId === "function")
    return (await memory.listThreadsByResourceId({ resourceId, perPage: false })).threads;
  return memory.getThreadsByResourceId({ resourceId });
}
async function messagesOf(t) {
  if (typeof memory.recall === "function")
    return (await memory.recall({ threadId: t.id, resourceId: t.resourceId, perPage: false })).messages;
  // Mastra 0.x: the last `lastMessages` (50: all of them); the stored format 2 messages where the version has them
  // (0.10+: messagesV2), else the UI messages it builds of the stored core messages
  const r = await memory.query({ threadId: t.id, resourceId: t.resourceId });
  return r.messagesV2 ?? r.uiMessages ?? r.messages;
}
const iso = (v) => {
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? (v ?? null) : d.toISOString();
};
const out = { threads: [] };
for (const resourceId of ["alice", "bob"]) {
  const threads = (await threadsOf(resourceId)).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const t of threads) {
    let workingMemory = null;
    try {
      workingMemory =
        (await memory.getWorkingMemory?.({
          threadId: t.id,
          resourceId: t.resourceId,
          memoryConfig: { workingMemory: { enabled: true, scope: "resource" } },
        })) ?? null;
    } catch {}
    out.threads.push({
      id: t.id,
      resourceId: t.resourceId,
      title: t.title ?? null,
      createdAt: iso(t.createdAt),
      updatedAt: iso(t.updatedAt),
      workingMemory: typeof workingMemory === "string" ? workingMemory : null,
      messages: JSON.parse(JSON.stringify(await messagesOf(t))),
    });
  }
}
await storage.close?.();
process.stdout.write(JSON.stringify(out));
process.exit(0);
