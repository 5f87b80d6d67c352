/**
 * `ckpt prune` of the layouts whose threads are rows of their own (Mastra's threads and messages, the Chat SDK
 * template's chats, the Agents SDK's SQLiteSession sessions and items). Each layout's store gives a `RowPruner`: its
 * threads a page at a time with their last update, a whole thread's erasure (the one `ckpt delete` does), and where
 * the layout allows it a thread trimmed to its newest items. The criteria read as LangGraph's: `--idle-for` and
 * thread filters alone take whole threads; `--keep-last N` keeps the newest N items of a thread (at least 1), and
 * `--older-than` deletes items older than it beyond the newest one; only items written before the prune started are
 * candidates or counted among the newest. One transaction per thread. `--vacuum` after, as LangGraph's.
 */
import { usageError } from "../base/errors.js";
import type { Erased } from "../savers/types.js";
import type { VacuumReport } from "../savers/langgraph/shared.js";
import type { PruneCriteria } from "./prune.js";
import { finishPrune, type PruneOptions, type PruneSummary } from "./prune-run.js";

export interface RowPruner {
  readonly kind: "sqlite" | "postgres";
  /** what a thread is, for messages: "thread", "chat", "session" */
  readonly thread: string;
  /** what `--keep-last`/`--older-than` trim, where the layout can ("messages of a thread"); undefined: refused */
  readonly items?: string;
  /** threads after `after`, by id, at most `n`: their last update (ms; undefined when the store cannot say) */
  threadPage(after: string | undefined, n: number): Promise<Array<{ id: string; updatedAt?: number }>>;
  /** every row of the thread, counted (dry run) or deleted in one transaction; null: none */
  eraseThread(id: string, dryRun: boolean): Promise<Erased | null>;
  /**
   * The thread's items written before `startedAt` beyond its newest `keep` of them and older than `before` (ms),
   * counted or deleted in one transaction (with what names them only: their vector rows); null: none go.
   */
  trim?(id: string, o: { keep: number; before: number; startedAt: number; dryRun: boolean }): Promise<Erased | null>;
  /** VACUUM (SQLite: the WAL checkpointed before and after; PostgreSQL: the layout's tables); `dryRun` measures */
  vacuum(o: { dryRun: boolean }): Promise<VacuumReport>;
}

const add = (into: Map<string, number>, e: Erased) => {
  for (const t of e.tables) into.set(t.table, (into.get(t.table) ?? 0) + t.rows);
};

export async function pruneRows(p: RowPruner, c: PruneCriteria, o: PruneOptions = {}): Promise<PruneSummary> {
  const trims = c.keepLast !== undefined || c.olderThanMs !== undefined;
  if (trims && (!p.items || !p.trim))
    throw usageError(
      `--keep-last and --older-than do not apply here: a ${p.thread} is pruned whole (--idle-for, --thread/--match)`,
    );
  const t0 = performance.now();
  const dryRun = Boolean(o.dryRun);
  const sizes = o.vacuum ? await p.vacuum({ dryRun: true }) : undefined;
  const s: PruneSummary = {
    dryRun,
    startedAt: new Date(c.now).toISOString(),
    threads: 0,
    wholeThreads: 0,
    kept: 0,
    checkpoints: 0,
    writes: 0,
    orphanWrites: 0,
    blobs: 0,
    bytes: 0,
    elapsedMs: 0,
  };
  const tables = new Map<string, number>();
  const notes = new Set<string>();
  const keep = Math.max(1, c.keepLast ?? 1);
  const before = c.olderThanMs === undefined ? Number.POSITIVE_INFINITY : c.now - c.olderThanMs;
  for (let after: string | undefined; ; ) {
    const page = await p.threadPage(after, o.batchSize ?? 100);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    for (const t of page) {
      if (o.filter && !o.filter(t.id)) continue;
      s.threads++;
      let whole = Boolean(c.wholeThreads);
      if (!whole && c.idleForMs !== undefined) {
        if (t.updatedAt === undefined) s.unknownTime = (s.unknownTime ?? 0) + 1;
        else whole = c.now - t.updatedAt > c.idleForMs;
      }
      const e = whole
        ? await p.eraseThread(t.id, dryRun)
        : trims
          ? await p.trim!(t.id, { keep, before, startedAt: c.now, dryRun })
          : null;
      if (!e || e.tables.every((x) => x.rows === 0)) {
        s.kept++;
        continue;
      }
      if (whole) s.wholeThreads++;
      else s.kept++;
      add(tables, e);
      for (const n of e.notes ?? []) notes.add(n);
      o.onPlan?.({ threadId: t.id, whole, checkpoints: [], rows: e.tables.filter((x) => x.rows > 0) });
    }
  }
  s.tables = [...tables].map(([table, rows]) => ({ table, rows }));
  if (notes.size) s.notes = [...notes];
  return finishPrune(s, t0, sizes && { sizes, vacuum: () => p.vacuum({ dryRun }), kind: p.kind });
}
