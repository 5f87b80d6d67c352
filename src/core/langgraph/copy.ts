/**
 * Copying one LangGraph thread into a new thread id (`ckpt copy`; LangGraph's own `copy_thread` is a stub in the
 * open-source savers): the thread's rows as the row-level store reads them (`scanRows`: checkpoints of every
 * namespace with their pending writes, values as stored), the thread id replaced, written by the migrate engine
 * (`migrateLangGraph`: the target set up as the library's own `setup()`, channel values split into PostgreSQL blobs
 * as the library's `put` does, every write verified). A fork keeps the history up to and including one checkpoint:
 * in the root namespace that checkpoint and its ancestors (its branch, not the branches that forked later), in
 * subgraph namespaces the checkpoints no newer than it. Pure but for the stores passed in.
 */
import type { LgCheckpoint } from "../../formats/langgraph/rows.js";
import type { LgStore } from "../../savers/langgraph/shared.js";

/** Every row of one thread, in (namespace, checkpoint id) order. */
export async function threadRows(src: Pick<LgStore, "scanRows">, threadId: string): Promise<LgCheckpoint[]> {
  const out: LgCheckpoint[] = [];
  // from the thread's first key to its last: a store's other threads are not read
  for await (const batch of src.scanRows(200, (t) => t === threadId, threadId))
    for (const cp of batch) if (cp.threadId === threadId) out.push(cp);
  return out;
}

/** The history up to and including root checkpoint `upTo`: its ancestors by parent id, subgraphs no newer than it. */
export function forkRows(rows: readonly LgCheckpoint[], upTo: string): LgCheckpoint[] {
  const root = new Map(rows.filter((r) => r.ns === "").map((r) => [r.id, r]));
  const keep = new Set<string>();
  let id: string | null = upTo;
  while (id !== null && root.has(id) && !keep.has(id)) {
    keep.add(id);
    id = root.get(id)!.parentId;
  }
  return rows.filter((r) => (r.ns === "" ? keep.has(r.id) : r.id <= upTo));
}

/** The rows under thread id `to`, as a source for `migrateLangGraph`. */
export function copySource(
  rows: readonly LgCheckpoint[],
  to: string,
  library: LgStore["library"],
): Pick<LgStore, "library" | "count" | "scanRows"> {
  const moved = rows.map((r) => ({ ...r, threadId: to }));
  return {
    library,
    count: async () => moved.length,
    async *scanRows(batchSize: number) {
      for (let i = 0; i < moved.length; i += batchSize) yield moved.slice(i, i + batchSize);
    },
  };
}
