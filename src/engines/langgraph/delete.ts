/** `ckpt delete` of a LangGraph thread: every row of it, in the prune's page transaction with the thread planned whole. */
import { uuid6Floor } from "../../core/prune.js";
import type { LgStore, PruneCounts } from "../../savers/langgraph/shared.js";

/** The whole thread planned and deleted (or counted) in one transaction (the prune's page with the thread whole). */
export async function deleteThreadRows(store: LgStore, threadId: string, dryRun: boolean): Promise<PruneCounts | null> {
  const heads = (await store.heads([threadId])).get(threadId) ?? [];
  if (heads.length === 0) return null;
  const startMark = await store.pruneStart?.();
  return store.prunePage([threadId], (t, hs) => ({ threadId: t, whole: true, remove: hs, keep: 0 }), {
    startId: uuid6Floor(Date.now()),
    startMark,
    dryRun,
    doing: `deleting thread '${threadId}'`,
  });
}
