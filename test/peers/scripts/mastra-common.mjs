// Shared by the Mastra peer scripts: open a store, and read it back through Mastra's own APIs.
import { LibSQLStore } from "@mastra/libsql";
import { PostgresStore } from "@mastra/pg";

export async function openStore(s) {
  const store =
    s.kind === "libsql"
      ? new LibSQLStore({ id: "ckpt-test", url: `file:${s.file}` })
      : new PostgresStore({ id: "ckpt-test", connectionString: s.url, schemaName: s.schema });
  await store.init();
  return store;
}

/** Every thread (listThreads), its messages (recall, all of them, in order) and its resource's working memory. */
export async function readBack(memory) {
  const { threads } = await memory.listThreads({ perPage: false, orderBy: { field: "createdAt", direction: "ASC" } });
  const out = [];
  for (const t of threads) {
    const { messages } = await memory.recall({ threadId: t.id, resourceId: t.resourceId, perPage: false });
    const wm = await memory.getWorkingMemory({
      threadId: t.id,
      resourceId: t.resourceId,
      memoryConfig: { workingMemory: { enabled: true, scope: "resource" } },
    });
    out.push({
      id: t.id,
      resourceId: t.resourceId,
      title: t.title ?? null,
      metadata: t.metadata ?? null,
      createdAt: new Date(t.createdAt).toISOString(),
      updatedAt: new Date(t.updatedAt).toISOString(),
      workingMemory: wm ?? null,
      messages: messages.map((m) => ({
        id: m.id,
        role: m.role,
        type: m.type ?? null,
        createdAt: new Date(m.createdAt).toISOString(),
        content: m.content,
      })),
    });
  }
  return out;
}
