// Reads a Mastra memory store with the real packages: input {store: {kind: "libsql", file} | {kind: "pg", url, schema}};
// answers every thread (listThreads), its messages (recall) and its resource's working memory (getWorkingMemory).
import { Memory } from "@mastra/memory";
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
const out = await readBack(memory);
await storage.close?.();
process.stdout.write(JSON.stringify(out));
