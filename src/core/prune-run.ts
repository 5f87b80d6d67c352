/**
 * Running a prune (the planning is prune.ts): over a LangGraph store, a page of threads at a time, each page planned
 * and carried out in one transaction by the store, deleting planned ids only, so an app writing meanwhile loses
 * nothing; over ckpt's own savers (one document per thread), idle or filtered threads deleted whole. The store is
 * passed in and stays open (its opener closes it); a dry run plans, reports and changes nothing.
 */
import { CkptError, usageError } from "../base/errors.js";
import { updatedAtOf } from "../savers/common.js";
import type { LangGraphStore, PruneCounts, VacuumReport } from "../savers/langgraph/shared.js";
import { blobsKeptNote, isLangGraphSaver, threadList } from "../savers/langgraph/shared.js";
import type { Saver, ThreadInfo } from "../savers/types.js";
import {
  planThread,
  uuid6Floor,
  type DeltaKept,
  type PruneCriteria,
  type PruneHead,
  type ThreadPlan,
} from "./prune.js";

export interface PruneOptions {
  /** plan and report only */
  dryRun?: boolean;
  /** threads per planned page (LangGraph stores; default 100) */
  batchSize?: number;
  /** only the threads this accepts */
  filter?: (threadId: string) => boolean;
  /** each thread's planned deletions, as it is planned (a dry run's listing) */
  onPlan?: (p: PrunePlanEntry) => void;
  /** LangGraph stores: give the space back after the prune (the store's `vacuum`); a dry run measures only */
  vacuum?: boolean;
}

/** What `vacuum` found and gave back: each part's size before the prune and after the vacuum (bytes). */
export interface VacuumSummary {
  parts: VacuumReport["parts"];
  /** bytes given back (before − after); a dry run: about what it would give back */
  given: number;
  /** PostgreSQL: the freed space stays inside the tables for new rows; only VACUUM FULL would shrink the files */
  fullNeeded?: boolean;
}

/** One thread's planned deletions. */
export interface PrunePlanEntry {
  threadId: string;
  whole: boolean;
  checkpoints: Array<{ ns: string; id: string }>;
  /** the layouts whose threads are rows (Mastra, Chat SDK, SQLiteSession): the thread's rows that go, per table */
  rows?: Array<{ table: string; rows: number }>;
}

export interface PruneSummary extends PruneCounts {
  dryRun: boolean;
  /** the prune's start (ISO): only checkpoints written before it are candidates; later ones are never touched */
  startedAt: string;
  threads: number;
  wholeThreads: number;
  kept: number;
  /** `idleForMs` on ckpt's own savers: threads kept because neither the store nor the document says when they changed */
  unknownTime?: number;
  elapsedMs: number;
  /**
   * the layouts whose threads are rows (Mastra, Chat SDK, SQLiteSession): the rows deleted per table (the checkpoint
   * counts are 0 there, and `kept` counts threads)
   */
  tables?: Array<{ table: string; rows: number }>;
  /**
   * what the deletions left and why (the row layouts: e.g. libSQL's vector index keeping neighbour copies; PostgreSQL
   * LangGraph stores: the orphan blobs `blobsKept` counts)
   */
  notes?: string[];
  /**
   * DeltaChannel: checkpoints kept beyond what the criteria asked, because a kept checkpoint's value is rebuilt from
   * them (its snapshot and the writes since); `chains` names the first threads' (each namespace's farthest chain)
   */
  deltaKept?: { checkpoints: number; threads: number; chains: Array<DeltaKept & { threadId: string }> };
  /** `vacuum`: the sizes before and after, and what was given back */
  vacuum?: VacuumSummary;
  /** `vacuum` failed after the prune committed (disk full, a lock): its error; the prune's figures stand */
  vacuumFailed?: string;
}

/**
 * The vacuum after a committed prune failed: the store's error (its exit code, reason and message), with the summary
 * of what the prune deleted — that part is done and stays done, so it is reported before the vacuum's error.
 */
export class VacuumError extends CkptError {
  constructor(
    readonly summary: PruneSummary,
    cause: CkptError,
  ) {
    super(cause.exitCode, cause.reason, cause.message, cause.place, { cause });
    this.name = "VacuumError";
  }
}

function emptySummary(dryRun: boolean, now: number): PruneSummary {
  return {
    dryRun,
    startedAt: new Date(now).toISOString(),
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
}

/**
 * Prune a store as `ckpt prune` does: a LangGraph saver (or its store) by `keepLast` / `olderThanMs` / `idleForMs`
 * per thread and namespace, ckpt's own savers by `idleForMs` or `wholeThreads` (with a filter).
 */
export async function prune(
  store: Saver | LangGraphStore,
  criteria: PruneCriteria,
  options: PruneOptions = {},
): Promise<PruneSummary> {
  if ("prunePage" in store) return pruneLangGraph(store, criteria, options);
  if (isLangGraphSaver(store)) return pruneLangGraph(store.langgraph, criteria, options);
  return pruneSaver(store, criteria, options);
}

/** How many threads of kept orphan blobs the summary names (`blobsKept` counts them all). */
const KEPT_THREADS_LISTED = 100;

/** How many threads' delta chains the summary names (the counts cover them all). */
const DELTA_CHAINS_LISTED = 100;

/** A LangGraph store: pages of threads planned (planThread) and carried out by the store, one transaction a page. */
export async function pruneLangGraph(
  store: LangGraphStore,
  c: PruneCriteria,
  o: PruneOptions = {},
): Promise<PruneSummary> {
  const t0 = performance.now();
  const dryRun = Boolean(o.dryRun);
  const sizes = o.vacuum ? await store.vacuum({ dryRun: true }) : undefined; // measures only
  const startId = uuid6Floor(c.now);
  // PostgreSQL's blobs carry no checkpoint id: they are dated by the transactions running when the prune starts
  // (#27 item 4: a writer that commits a blob before its checkpoint row never loses it to this prune)
  const mark = await store.pruneStart?.();
  const s = emptySummary(dryRun, c.now);
  const keptIn: string[] = [];
  if (mark) s.blobsKept = 0;
  const plan = (t: string, heads: PruneHead[]): ThreadPlan => {
    const p = planThread(t, heads, c);
    s.threads++;
    s.kept += p.keep;
    if (p.whole) s.wholeThreads++;
    if (p.delta) {
      const d = (s.deltaKept ??= { checkpoints: 0, threads: 0, chains: [] });
      d.threads++;
      for (const k of p.delta) {
        d.checkpoints += k.kept - k.asked;
        if (d.chains.length < DELTA_CHAINS_LISTED) d.chains.push({ threadId: p.threadId, ...k });
      }
    }
    if (o.onPlan && (p.remove.length || p.whole))
      o.onPlan({ threadId: p.threadId, whole: p.whole, checkpoints: p.remove.map((h) => ({ ns: h.ns, id: h.id })) });
    return p;
  };
  let after: string | undefined;
  for (;;) {
    const page = await store.threadPage(after, o.batchSize ?? 100);
    if (page.length === 0) break;
    after = page[page.length - 1];
    const threads = o.filter ? page.filter(o.filter) : page;
    if (threads.length === 0) continue;
    const counts = await store.prunePage(threads, plan, { startId, startMark: mark?.mark, dryRun });
    for (const k of ["checkpoints", "writes", "orphanWrites", "blobs", "bytes"] as const) s[k] += counts[k];
    if (counts.blobsKept) s.blobsKept = (s.blobsKept ?? 0) + counts.blobsKept;
    if (counts.blobsKeptThreads) keptIn.push(...counts.blobsKeptThreads);
  }
  // a prune looks for orphan blobs only in the threads it deletes checkpoints of: those kept here go with a later
  // prune's (started after the mark's transaction ended) next deletion in their thread, not with a rerun as such
  const kept = blobsKeptNote(
    s.blobsKept,
    mark,
    dryRun,
    `a prune looks for orphan blobs only in threads it deletes checkpoints of, so these go when a prune started after that deletes more checkpoints of their ${keptIn.length === 1 ? "thread" : `${keptIn.length} threads`} (${threadList(keptIn)})`,
  );
  if (kept) {
    s.notes = [...(s.notes ?? []), kept];
    s.blobsKeptThreads = keptIn.slice(0, KEPT_THREADS_LISTED);
  }
  // after every page's transaction (VACUUM cannot run inside one), compared with the sizes before the prune
  return finishPrune(s, t0, sizes && { sizes, vacuum: () => store.vacuum({ dryRun }), kind: store.kind });
}

/**
 * A prune's end: with `--vacuum`, VACUUM after every transaction (it cannot run inside one) and the sizes compared
 * with those before the prune; a vacuum that fails after the prune committed still gives the prune's summary
 * (`VacuumError` carries it). The summary's elapsed time.
 */
export async function finishPrune(
  s: PruneSummary,
  t0: number,
  v?: { sizes: VacuumReport; vacuum: () => Promise<VacuumReport>; kind: "sqlite" | "postgres" },
): Promise<PruneSummary> {
  if (v) {
    let end: VacuumReport;
    try {
      end = await v.vacuum();
    } catch (e) {
      if (!(e instanceof CkptError)) throw e;
      s.vacuumFailed = e.message;
      s.elapsedMs = performance.now() - t0;
      throw new VacuumError(s, e);
    }
    s.vacuum = vacuumSummary(v.sizes, end, v.kind, s);
  }
  s.elapsedMs = performance.now() - t0;
  return s;
}

/** The sizes before the prune (`start`) and after the vacuum (`end`), and what was given back. */
export function vacuumSummary(
  start: VacuumReport,
  end: VacuumReport,
  kind: "sqlite" | "postgres",
  s: PruneSummary,
): VacuumSummary {
  const parts = end.parts.map((p) => ({
    ...p,
    before: start.parts.find((q) => q.name === p.name)?.before ?? p.before,
  }));
  const before = parts.reduce((n, p) => n + p.before, 0);
  const after = parts.reduce((n, p) => n + p.after, 0);
  // a dry run: the free pages the file holds now and the row data the prune would free (about: the rows' keys and
  // index entries go too)
  const given = s.dryRun ? (start.freeNow ?? 0) + s.bytes : Math.max(0, before - after);
  const v: VacuumSummary = { parts, given };
  if (kind === "postgres" && !s.dryRun && s.bytes > 0 && before - after < s.bytes / 2) v.fullNeeded = true;
  return v;
}

/** Fill in the update time of `threads` the store's listing has none for, from each document's `updatedAt`. */
async function updateTimes(saver: Saver, namespace: string, threads: ThreadInfo[]): Promise<void> {
  const missing = threads.filter((t) => t.updatedAt === undefined);
  for (let i = 0; i < missing.length; i += 200) {
    const part = missing.slice(i, i + 200);
    const texts = await saver.loadMany(part.map((t) => ({ namespace, threadId: t.threadId })));
    part.forEach((t, k) => {
      const at = texts[k] === undefined ? undefined : updatedAtOf(texts[k]!);
      if (at !== undefined && Number.isFinite(Date.parse(at))) t.updatedAt = at;
    });
  }
}

/** ckpt's own savers: one document per thread; idle (by update time) or filtered threads are deleted whole. */
export async function pruneSaver(saver: Saver, c: PruneCriteria, o: PruneOptions = {}): Promise<PruneSummary> {
  if (o.vacuum)
    throw usageError(
      "--vacuum applies to LangGraph stores (SQLite files and PostgreSQL schemas with the LangGraph tables)",
    );
  if (c.keepLast !== undefined || c.olderThanMs !== undefined)
    throw usageError(
      "--keep-last and --older-than apply to LangGraph stores (many checkpoints per thread); ckpt's own savers keep one per thread: use --idle-for or --thread/--match",
    );
  const t0 = performance.now();
  const s = emptySummary(Boolean(o.dryRun), c.now);
  for (const ns of await saver.namespaces()) {
    const listed: ThreadInfo[] = [];
    for await (const t of saver.list({ namespace: ns })) if (!o.filter || o.filter(t.threadId)) listed.push(t);
    // a store that keeps no update time (Redis): the document's own updatedAt, read in batches
    if (c.idleForMs !== undefined) await updateTimes(saver, ns, listed);
    for (const d of doomedOf(listed, c, s)) {
      o.onPlan?.({ threadId: d.threadId, whole: true, checkpoints: [{ ns, id: d.threadId }] });
      if (!o.dryRun && !(await saver.delete(d.threadId, ns))) continue;
      s.wholeThreads++;
      s.checkpoints++;
      s.bytes += d.bytes;
    }
  }
  s.elapsedMs = performance.now() - t0;
  return s;
}

/** The listed threads to delete whole; the others are counted as kept (and those of unknown age, as such). */
function doomedOf(listed: ThreadInfo[], c: PruneCriteria, s: PruneSummary): ThreadInfo[] {
  const doomed: ThreadInfo[] = [];
  for (const t of listed) {
    s.threads++;
    const updated = t.updatedAt ? Date.parse(t.updatedAt) : Number.NaN;
    const idle = c.idleForMs !== undefined && Number.isFinite(updated) && c.now - updated > c.idleForMs;
    if ((c.wholeThreads || idle) && !(Number.isFinite(updated) && updated > c.now)) doomed.push(t);
    else {
      s.kept++;
      // never silently: a thread whose age is unknown is kept, and counted as such
      if (c.idleForMs !== undefined && !c.wholeThreads && !Number.isFinite(updated))
        s.unknownTime = (s.unknownTime ?? 0) + 1;
    }
  }
  return doomed;
}
