import { LibSQLVector } from "@mastra/libsql";
const f = process.argv[2];
const vector = new LibSQLVector({ id: "v", url: `file:${f}` });
await vector.upsert({
  indexName: "memory_messages_8",
  vectors: [[1, 1, 1, 1, 1, 1, 1, 1]],
  metadata: [{ thread_id: "t9" }],
});
const r3 = await vector.query({ indexName: "memory_messages_8", queryVector: [1, 1, 1, 1, 1, 1, 1, 1], topK: 10 });
console.log(JSON.stringify({ after: r3.map((x) => x.metadata.thread_id) }));
