// Asks Mastra's own APIs about given threads and resources of a store (LibSQL or PostgreSQL), written or not:
// input {store, threads: [id], resources: [id]}; answers per thread getThreadById (null when Mastra finds none) and
// recall of its messages (every one, as ids), per resource getResourceById's working memory (null when none).
import { Memory } from "@mastra/memory";
import { openStore } from "./mastra-common.mjs";

const input = JSON.parse(
  await new Promise((r) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d));
    process.stdin.on("end", () => r(s));
  }),
);
const storage = await openStore(input.store);
const memory = new Memory({ storage, options: { workingMemory: { enabled: true, scope: "resource" } } });
const out = { threads: {}, resources: {} };
for (const id of input.threads ?? []) {
  const thread = await memory.getThreadById({ threadId: id });
  const { messages } = await memory.recall({ threadId: id, perPage: false });
  out.threads[id] = {
    thread: thread ? { id: thread.id, resourceId: thread.resourceId } : null,
    messages: messages.map((m) => m.id),
  };
}
const store = await storage.getStore("memory");
for (const id of input.resources ?? []) {
  const r = await store.getResourceById({ resourceId: id });
  out.resources[id] = r ? { workingMemory: r.workingMemory ?? null } : null;
}
await storage.close?.();
process.stdout.write(JSON.stringify(out));
