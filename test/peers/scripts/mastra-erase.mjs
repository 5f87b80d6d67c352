// A Mastra store written with semantic recall on (a deterministic mock embedder): LibSQL (LibSQLVector beside the
// memory tables) or, with `pg`, PostgreSQL (PostgresStore and PgVector in one schema), then read back through Mastra's
// own APIs. Input: {op: "write" | "read", file | pg: {url, schema, max?}, threads: [{id, resource, turns: [text]}],
// workingMemory?: {resource: text} (written with updateWorkingMemory), resources?: [id]} (`max`: the size of each of
// the two pools). Output: per thread getThreadById and recall (every message), per resource asked getResourceById's
// working memory (null: no resource), and every vector row's thread_id a vector query returns (the whole index, and
// filtered by each thread).
import { Agent } from "@mastra/core/agent";
import { LibSQLStore, LibSQLVector } from "@mastra/libsql";
import { Memory } from "@mastra/memory";
import { PgVector, PostgresStore } from "@mastra/pg";
import { MockEmbeddingModelV2, MockLanguageModelV2 } from "ai-v5/test";

const input = JSON.parse(
  await new Promise((r) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d));
    process.stdin.on("end", () => r(s));
  }),
);
const { pg } = input;
const storage = pg
  ? new PostgresStore({ id: "erase", connectionString: pg.url, schemaName: pg.schema, max: pg.max })
  : new LibSQLStore({ id: "erase", url: `file:${input.file}` });
await storage.init();
const vector = pg
  ? new PgVector({ id: "erase-v", connectionString: pg.url, schemaName: pg.schema, max: pg.max })
  : new LibSQLVector({ id: "erase-v", url: `file:${input.file}` });
const embed = (t) => {
  const v = new Array(8).fill(0.01);
  for (let i = 0; i < t.length; i++) v[i % 8] += t.charCodeAt(i) / 1000;
  return v;
};
const embedder = new MockEmbeddingModelV2({
  maxEmbeddingsPerCall: 100,
  doEmbed: async ({ values }) => ({ embeddings: values.map(embed) }),
});
const memory = new Memory({
  storage,
  vector,
  embedder,
  options: { semanticRecall: { topK: 3, messageRange: 1, scope: "resource" }, workingMemory: { enabled: true } },
});
if (input.op === "write") {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const model = new MockLanguageModelV2({
    doGenerate: async () => ({ finishReason: "stop", usage, warnings: [], content: [{ type: "text", text: "noted" }] }),
  });
  const agent = new Agent({ id: "erase", name: "erase", instructions: "x", model, memory });
  for (const t of input.threads)
    for (const turn of t.turns) await agent.generate(turn, { memory: { thread: t.id, resource: t.resource } });
  for (const [resourceId, workingMemory] of Object.entries(input.workingMemory ?? {})) {
    const threadId = input.threads.find((t) => t.resource === resourceId).id;
    await memory.updateWorkingMemory({ threadId, resourceId, workingMemory });
  }
  await memory.settled?.();
}
const out = { threads: {}, vectors: {} };
for (const t of input.threads) {
  const thread = await memory.getThreadById({ threadId: t.id });
  const { messages } = thread
    ? await memory.recall({ threadId: t.id, resourceId: t.resource, perPage: false })
    : { messages: [] };
  out.threads[t.id] = thread && {
    resourceId: thread.resourceId,
    messages: messages.map((m) => ({ id: m.id, role: m.role, content: m.content })),
  };
}
if (input.resources) {
  const store = await storage.getStore("memory");
  out.resources = {};
  for (const id of input.resources) {
    const r = await store.getResourceById({ resourceId: id });
    out.resources[id] = r ? { workingMemory: r.workingMemory ?? null } : null;
  }
}
const indexes = await vector.listIndexes();
for (const indexName of indexes) {
  const q = { indexName, queryVector: embed("anything"), topK: 100 };
  out.vectors[indexName] = {
    all: (await vector.query(q)).map((r) => r.metadata.thread_id).sort(),
    byThread: Object.fromEntries(
      await Promise.all(
        input.threads.map(async (t) => [t.id, (await vector.query({ ...q, filter: { thread_id: t.id } })).length]),
      ),
    ),
  };
}
await storage.close?.();
await vector.disconnect?.();
process.stdout.write(JSON.stringify(out));
