// Writes a Mastra memory store with the real packages: an Agent with a mock model (AI SDK 5's MockLanguageModelV2)
// that calls a tool then answers, working memory per resource, several resources and threads. Input:
// { store: {kind: "libsql", file} | {kind: "pg", url, schema}, threads: [{id, resource, title?, turns: [{user, tool?}]}],
//   workingMemory: {resource: text} }. Answers what Mastra's own APIs return for each thread.
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Memory } from "@mastra/memory";
import { MockLanguageModelV2 } from "ai-v5/test";
import { z } from "zod";
import { openStore, readBack } from "./mastra-common.mjs";

const input = JSON.parse(
  await new Promise((r) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d));
    process.stdin.on("end", () => r(s));
  }),
);
const storage = await openStore(input.store);
const memory = new Memory({ storage, options: { workingMemory: { enabled: true, scope: "resource" } } });

const usage = { inputTokens: 3, outputTokens: 5, totalTokens: 8 };
let plan = [];
const model = new MockLanguageModelV2({
  doGenerate: async () => {
    const step = plan.shift() ?? { text: "ok" };
    const thinking = step.reasoning ? [{ type: "reasoning", text: step.reasoning }] : [];
    if (step.tools)
      return {
        finishReason: "tool-calls",
        usage,
        warnings: [],
        content: [
          ...thinking,
          ...step.tools.map((city, k) => ({
            type: "tool-call",
            toolCallId: `${step.id}-${k}`,
            toolName: "weather",
            input: JSON.stringify({ city }),
          })),
        ],
      };
    return { finishReason: "stop", usage, warnings: [], content: [...thinking, { type: "text", text: step.text }] };
  },
});
const weather = createTool({
  id: "weather",
  description: "weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: `sunny in ${city}` }),
});
const agent = new Agent({ id: "helper", name: "helper", instructions: "help", model, tools: { weather }, memory });

let n = 0;
for (const t of input.threads) {
  if (t.title)
    await memory.createThread({ threadId: t.id, resourceId: t.resource, title: t.title, metadata: t.metadata });
  for (const turn of t.turns) {
    n++;
    // a turn: optionally tool calls (one step, one call per city) and reasoning, then an answer
    const tools = turn.tools ?? (turn.tool ? [turn.tool] : undefined);
    plan = tools
      ? [{ tools, id: `call-${n}`, reasoning: turn.reasoning }, { text: `It is sunny in ${tools.join(" and ")}.` }]
      : [{ text: turn.answer ?? `answer ${n}`, reasoning: turn.reasoning }];
    await agent.generate(turn.user, { memory: { thread: t.id, resource: t.resource }, maxSteps: 4 });
  }
}
for (const [resource, text] of Object.entries(input.workingMemory ?? {})) {
  const t = input.threads.find((x) => x.resource === resource);
  await memory.updateWorkingMemory({ threadId: t.id, resourceId: resource, workingMemory: text });
}
await memory.settled?.();
const out = await readBack(memory);
await storage.close?.();
process.stdout.write(JSON.stringify(out));
