// A live Mastra writer: an Agent with memory (LibSQL) answering turns in one thread until the file `stop` exists (or
// `ms` milliseconds have passed), as an app does while ckpt works on the same file. Input {file, thread, resource,
// stop, ms}; output the messages it saved (Mastra's
// recall of the thread at the end: ids and createdAt) and when each turn started and ended (ms).
import { existsSync } from "node:fs";
import { Agent } from "@mastra/core/agent";
import { LibSQLStore } from "@mastra/libsql";
import { Memory } from "@mastra/memory";
import { MockLanguageModelV2 } from "ai-v5/test";

const input = JSON.parse(
  await new Promise((r) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d));
    process.stdin.on("end", () => r(s));
  }),
);
const storage = new LibSQLStore({ id: "live", url: `file:${input.file}` });
await storage.init();
const memory = new Memory({ storage });
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const model = new MockLanguageModelV2({
  doGenerate: async () => ({ finishReason: "stop", usage, warnings: [], content: [{ type: "text", text: "ok" }] }),
});
const agent = new Agent({ id: "live", name: "live", instructions: "x", model, memory });
const end = Date.now() + input.ms;
const turns = [];
while (Date.now() < end && !existsSync(input.stop)) {
  const start = Date.now();
  await agent.generate(`turn ${turns.length}`, { memory: { thread: input.thread, resource: input.resource } });
  turns.push({ start, end: Date.now() });
}
const { messages } = await memory.recall({ threadId: input.thread, resourceId: input.resource, perPage: false });
await storage.close?.();
process.stdout.write(
  JSON.stringify({
    turns,
    messages: messages.map((m) => ({ id: m.id, createdAt: new Date(m.createdAt).toISOString() })),
  }),
);
