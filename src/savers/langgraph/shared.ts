/**
 * What both LangGraph savers (sqlite.ts, postgres.ts) share: the one store type they return (reader, row-level store
 * for migrate and prune, stats source), the key and paging helpers written once (newest-first pages, id pages, thread
 * pages), the writes-onto-checkpoints join, history from a tuple stream, and the read-only `Saver` view of a store.
 * Decoding values is the read side's business (src/formats/langgraph/); the row-level methods hand over bytes.
 */
import { inputError, storeError } from "../../base/errors.js";
import type { Library } from "../../formats/langgraph/encode.js";
import type { LgCheckpoint, LgWrite, PgBlobRow } from "../../formats/langgraph/rows.js";
import {
  type LgCheckpointTuple,
  type LgHistoryEntry,
  type LgListOptions,
  type LgReader,
  tupleDocument,
} from "../../formats/langgraph/types.js";
import { partialIssues, unreadableReport } from "../../formats/langgraph/unreadable.js";
import { DEFAULT_NAMESPACE, type Saver, type ThreadInfo } from "../types.js";

export interface CheckpointKey {
  threadId: string;
  ns: string;
  id: string;
}

export const keyOf = (k: CheckpointKey) => `${k.threadId}\u0000${k.ns}\u0000${k.id}`;

export interface WriteOptions {
  /** the library whose layout the rows follow in this store */
  library: Library;
  /** replace existing rows (else existing checkpoints are left alone) */
  overwrite: boolean;
}

/**
 * A LangGraph store at the row level (LANGGRAPH.md §1): what `migrate`, `convert` and `prune` need to move, delete
 * and compare rows exactly as the libraries store them.
 */
export interface LgStore {
  readonly kind: "sqlite" | "postgres";
  readonly uri: string;
  /** whether the LangGraph tables exist */
  hasLayout(): Promise<boolean>;
  /** the library that wrote the store (PG: migrations max v; SQLite: first checkpoint), undefined when empty */
  library(): Promise<Library | undefined>;
  /** create the tables (and PG indexes, migration rows) exactly as the library's own setup() */
  setup(lib: Library): Promise<void>;
  /** checkpoints held */
  count(): Promise<number>;
  /** every checkpoint with its writes, in (thread_id, checkpoint_ns, checkpoint_id) order, in batches (SQLite: whole threads, each page read in one snapshot) */
  /** `only`: one thread's rows, read from its first key on and stopped after its last (not the whole store) */
  scanRows(batchSize: number, threads?: (id: string) => boolean, only?: string): AsyncIterable<LgCheckpoint[]>;
  /** the stored checkpoints among `keys` (what the store holds, in the SQLite layout), for conflicts */
  load(keys: CheckpointKey[], lib: Library): Promise<Map<string, LgCheckpoint>>;
  /** write checkpoints and their writes in one transaction */
  write(cps: LgCheckpoint[], opts: WriteOptions): Promise<void>;
  /** prepare `cp` for `write` in this store; throws when the store cannot hold it (the migration rejects it then) */
  stage(cp: LgCheckpoint, lib: Library): void;
  /**
   * Check written checkpoints where they are stored, without reading them back (PostgreSQL: hashes of the stored rows
   * compared in one query): true when the stored rows are exactly the ones written; false leaves the checkpoint to
   * `readBack` and `sameForm`, which decide. Stores without it are read back.
   */
  verifyWritten?(written: Array<{ cp: LgCheckpoint; lib: Library }>): Promise<boolean[]>;
  /** the stored form of `keys` (decoded values), comparable with `stagedForm` of what was written (read-back verification) */
  readBack(keys: CheckpointKey[]): Promise<Map<string, unknown>>;
  /** the form `readBack` will give for a checkpoint after `write` */
  stagedForm(cp: LgCheckpoint, lib: Library): unknown;
  /** whether two forms (of `readBack` / `stagedForm`) hold the same values */
  sameForm(a: unknown, b: unknown): boolean;
  /** thread ids after `after`, ascending, at most `limit` */
  threadPage(after: string | undefined, limit: number): Promise<string[]>;
  /** every checkpoint of these threads, without payloads */
  heads(threads: string[]): Promise<Map<string, PruneHead[]>>;
  /**
   * Prune a page of threads in one transaction: each thread's checkpoints (without payloads) go to `plan`; the
   * checkpoints its plan names are deleted with their writes, then orphan writes (no checkpoint, written before
   * `startId`) and, in PostgreSQL, blobs no remaining checkpoint of the thread names (written before `startMark`;
   * those written at or after it are counted as `blobsKept`). Only planned ids are deleted. `dryRun` counts the same without changing anything. `doing` names the work in a
   * store error (default "pruning"; `ckpt delete` says what it deletes).
   */
  prunePage(
    threads: string[],
    plan: PlanFn,
    o: { startId: string; startMark?: string; dryRun: boolean; doing?: string },
  ): Promise<PruneCounts>;
  /**
   * Optional: a mark of the moment a prune starts, for rows the store cannot date by a checkpoint id (PostgreSQL's
   * blobs: a writer may commit a blob before the checkpoint that names it, as Python's autocommit put does). Rows
   * written after the mark are never pruned as orphans; `prunePage` takes its `mark` as `startMark`.
   */
  pruneStart?(): Promise<PruneMark>;
  /**
   * Give the space of deleted rows back (after a prune, outside its transactions): SQLite `VACUUM` (the WAL
   * checkpointed and truncated before and after), PostgreSQL `VACUUM` of the three tables. `dryRun` measures only.
   */
  vacuum(o: { dryRun: boolean }): Promise<VacuumReport>;
  /**
   * Run `f` in one transaction that holds `lock`: `f` is given the store whose every read and write goes through that
   * transaction (its own writes read back), committed when `f` resolves and rolled back when it throws, or when the
   * process or the connection dies: all or nothing (`ckpt copy`). Two callers naming one `lock` take turns, the second
   * seeing what the first committed (PostgreSQL: a transaction-level advisory lock; SQLite: the database's write lock,
   * BEGIN IMMEDIATE, waited for). The tables must exist (PostgreSQL's setup cannot run inside a transaction).
   */
  atomically<T>(lock: string, f: (tx: LgStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The sizes a vacuum found and left (bytes). */
export interface VacuumReport {
  /** SQLite: the file (its WAL counted in); PostgreSQL: each table's pg_total_relation_size */
  parts: Array<{ name: string; before: number; after: number }>;
  /** SQLite: the free pages held now (what a VACUUM gives back besides what the prune frees) */
  freeNow?: number;
}

export interface PruneHead {
  ns: string;
  id: string;
  parentId: string | null;
  /** stored bytes of the checkpoint row */
  bytes: number;
  /** metadata.counters_since_delta_snapshot, when the checkpoint has one */
  deltaCounters?: Record<string, unknown> | null;
}

export interface ThreadPlan {
  threadId: string;
  /** every checkpoint of the thread goes */
  whole: boolean;
  remove: PruneHead[];
  keep: number;
  /** namespaces where DeltaChannel kept more than asked (src/core/prune.ts keepDeltaAncestors) */
  delta?: DeltaKept[];
}

/** A namespace whose kept checkpoints' DeltaChannel values need older checkpoints kept too (their snapshot, the writes since). */
export interface DeltaKept {
  ns: string;
  /** checkpoints the criteria kept */
  asked: number;
  /** checkpoints kept: those and their delta chains */
  kept: number;
  /** the kept checkpoint whose chain reaches back farthest */
  from: string;
  /** the oldest checkpoint that chain reaches back to */
  reach: string;
  /** true: `reach` holds the snapshot; false: the chain reaches the thread's first checkpoint (no snapshot since) */
  snapshot: boolean;
  /** the delta channels with updates since their snapshot at `from` */
  channels: string[];
}

/** What goes of one thread, given its checkpoints (prune planning, src/core/prune.ts). */
export type PlanFn = (threadId: string, heads: PruneHead[]) => ThreadPlan;

export interface PruneCounts {
  checkpoints: number;
  writes: number;
  orphanWrites: number;
  blobs: number;
  bytes: number;
  /**
   * PostgreSQL (a prune with a start mark): orphan blobs of the page's threads that were not deleted because their row
   * is not older than the mark (a writer may be about to name them); a later prune removes them once it is
   */
  blobsKept?: number;
  /** the threads of those blobs */
  blobsKeptThreads?: string[];
}

/**
 * A prune's start mark (`pruneStart`): `mark` is what `prunePage` compares (PostgreSQL: the oldest transaction open
 * when the prune started, as a 32-bit xid; with none open, the next one). `heldBy`: a transaction other than the
 * prune's own was open then and set the mark (its pid or prepared name, database and start): every blob written
 * after it began — not only those of writers racing this prune — is kept until a prune starts after it has ended.
 */
export interface PruneMark {
  mark: string;
  heldBy?: string;
}

/** Thread ids for a sentence: the first ten quoted, then how many more. */
export function threadList(ids: string[]): string {
  const shown = ids.slice(0, 10).map((t) => `'${t}'`);
  return ids.length > 10 ? `${shown.join(", ")} and ${ids.length - 10} more` : shown.join(", ");
}

/**
 * The sentence for orphan blobs a prune or delete kept because of its start mark (none: undefined); `remedy` says how
 * they can go later (the caller knows what will find them again).
 */
export function blobsKeptNote(
  kept: number | undefined,
  mark: PruneMark | undefined,
  dryRun: boolean,
  remedy: string,
): string | undefined {
  if (!kept) return undefined;
  const n = `${dryRun ? "would keep" : "kept"} ${kept} orphan ${kept === 1 ? "blob" : "blobs"} (no remaining checkpoint names ${kept === 1 ? "it" : "them"})`;
  const why = mark?.heldBy
    ? `a transaction older than this run was still open (${mark.heldBy}), and a blob written after it began may belong to a checkpoint a writer has not committed yet`
    : "written by a transaction running when this run started or a later one, so a writer may be about to name them in a checkpoint";
  return `${n}: ${why}; ${remedy}`;
}

/** metadata.counters_since_delta_snapshot as stored (JSON text in SQLite, a JSONB value in PostgreSQL). */
export const counters = (v: unknown): Record<string, unknown> | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return JSON.parse(v) as Record<string, unknown>;
  return v as Record<string, unknown>;
};

// ------------------------------------------------------------------------------------------------ stats rows

/** One checkpoint row. SQLite: the whole serialized checkpoint; PostgreSQL: the JSONB's parts stats needs. */
export interface StatCheckpointRow {
  threadId: string;
  ns: string;
  id: string;
  /** serde tag (SQLite `type`; PostgreSQL: NULL) */
  type: string | null;
  /** SQLite: the checkpoint payload (channel values included); PostgreSQL: null */
  checkpoint: Uint8Array | null;
  /** stored bytes of the checkpoint column (PostgreSQL: its JSONB text) */
  checkpointBytes: number;
  /** stored bytes of the metadata column (PostgreSQL: its JSONB text) */
  metadataBytes: number;
  /** PostgreSQL: `checkpoint->>'ts'` */
  ts?: string | null;
  /** PostgreSQL: `checkpoint->'channel_versions'` */
  versions?: Record<string, unknown> | null;
  /** PostgreSQL: the inline `checkpoint->'channel_values'` (Python keeps primitives there), as JSON text */
  inline?: string | null;
}

export interface StatWriteRow {
  threadId: string;
  ns: string;
  checkpointId: string;
  channel: string;
  type: string | null;
  value: Uint8Array;
}

export type StatBatch =
  | { table: "checkpoints"; rows: StatCheckpointRow[] }
  | { table: "blobs"; rows: PgBlobRow[] }
  | { table: "writes"; rows: StatWriteRow[] }
  /** every row of these threads has been handed over */
  | { table: "page"; threads: string[] };

export interface StatTable {
  table: string;
  rows: number;
  /** physical bytes (pages / relation size incl. indexes and TOAST); null when the store cannot tell */
  storedBytes: number | null;
}

export interface StatRowsOptions {
  accept?: (threadId: string) => boolean;
  only?: string[];
  pageThreads?: number;
  batchSize?: number;
}

/**
 * The rows `ckpt stats` measures (SQLite: `checkpoints`, `writes`; PostgreSQL: `checkpoints`, `checkpoint_blobs`,
 * `checkpoint_writes`), streamed a page of threads at a time: for each page every checkpoint (in id order), then
 * every blob, then every write of those threads, each table in bounded batches, then an end-of-page marker. Memory
 * holds one batch and the page's thread ids, however large the store. Also the tables' physical sizes.
 */
export interface LgStats {
  /** how `storedBytes` was measured */
  readonly storedMethod: "dbstat" | "sum-of-lengths" | "pg_total_relation_size";
  tables(): Promise<StatTable[]>;
  /** SQLite: the database file and its `-wal` when that holds anything, with their sizes on disk */
  files?(): Array<{ file: string; bytes: number }>;
  /** every row of the threads `accept` takes (all when omitted), a page of threads at a time */
  rows(o: StatRowsOptions): AsyncIterable<StatBatch>;
}

/** One LangGraph store: the reader, the row-level store and the stats source in one object (one per backend). */
export interface LangGraphStore extends LgReader, LgStore, LgStats {
  readonly uri: string;
  close(): Promise<void>;
}

export const bytesOf = (v: Buffer | string | null): Uint8Array =>
  v === null ? new Uint8Array(0) : typeof v === "string" ? Buffer.from(v) : v;

export type StatPage = string[] | { kept: string[]; range?: readonly [string, string] };
export const threadsOf = (p: StatPage) => (Array.isArray(p) ? p : p.kept);
export const rangeOf = (p: StatPage) => (Array.isArray(p) ? undefined : p.range);

/** Thread pages: the store's threads in order (keyset), or the named ones; `accept` filters each page. */
export async function* statThreadPages(
  next: (after: string | undefined, n: number) => Promise<string[]>,
  o: { accept?: (t: string) => boolean; only?: string[]; pageThreads?: number },
): AsyncIterable<StatPage> {
  const n = Math.max(1, o.pageThreads ?? 200);
  if (o.only) {
    const ids = [...new Set(o.only)].sort();
    for (let i = 0; i < ids.length; i += n) yield ids.slice(i, i + n);
    return;
  }
  let after: string | undefined;
  for (;;) {
    const page = await next(after, n);
    if (page.length === 0) return;
    after = page[page.length - 1];
    const kept = o.accept ? page.filter(o.accept) : page;
    if (kept.length)
      yield { kept, range: page.length === kept.length ? ([page[0]!, page[page.length - 1]!] as const) : undefined };
    if (page.length < n) return;
  }
}

// ------------------------------------------------------------------------------------------------ paging

/** The rows of a newest-first page (`checkpoint_id < before` when given), at most `n` of them. */
export type NewestFirstPage<R> = (before: string | undefined, n: number) => Promise<R[]>;

/**
 * Checkpoints newest first (of a thread / namespace, before an id, up to a limit), in pages of `page` rows: each
 * page's rows become tuples with `tuplesOf` (both backends' `list`; an iterable is decoded as it is consumed).
 */
export async function* newestFirst<R extends { checkpoint_id: string }>(
  fetch: NewestFirstPage<R>,
  tuplesOf: (rows: R[]) => Promise<Iterable<LgCheckpointTuple>> | Iterable<LgCheckpointTuple>,
  options: Pick<LgListOptions, "before" | "limit">,
  page: number,
): AsyncIterable<LgCheckpointTuple> {
  let before = options.before;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const rows = await fetch(before, Math.min(page, left));
    if (rows.length === 0) return;
    for (const t of await tuplesOf(rows)) {
      yield t;
      left--;
    }
    before = rows[rows.length - 1]!.checkpoint_id;
  }
}

/** Checkpoint ids of a (thread, namespace), newest first, in pages of 1000 (both backends' `checkpointIds`). */
export async function* idPages(
  fetch: (
    before: string | undefined,
    n: number,
  ) => Promise<Array<{ checkpoint_id: string; parent_checkpoint_id: string | null }>>,
): AsyncIterable<{ checkpointId: string; parentId: string | null }> {
  let before: string | undefined;
  for (;;) {
    const rows = await fetch(before, 1000);
    for (const r of rows) yield { checkpointId: r.checkpoint_id, parentId: r.parent_checkpoint_id };
    if (rows.length < 1000) return;
    before = rows[rows.length - 1]!.checkpoint_id;
  }
}

/** `ls` rows: pages of at most 500 threads after the last one seen, each row summarized (both backends' `threads`). */
export async function* threadPages<R extends { thread_id: string }, S>(
  fetch: (after: string | undefined, n: number) => Promise<R[]>,
  summary: (row: R) => S,
  options: { after?: string; limit?: number },
): AsyncIterable<S> {
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  const ask = (after: string | undefined, n: number) => {
    const p = fetch(after, n);
    p.catch(() => undefined); // awaited in turn; a listing stopped early must not leave it unhandled
    return { p, n };
  };
  // the next page is asked for as soon as a page arrives (a full one: a short page is the last), before its rows are
  // handed on: the store reads it while the caller works on these
  let next: { p: Promise<R[]>; n: number } | undefined = left > 0 ? ask(options.after, Math.min(500, left)) : undefined;
  while (next) {
    const page = await next.p;
    const rest = left - page.length;
    next = page.length === next.n && rest > 0 ? ask(page[page.length - 1]!.thread_id, Math.min(500, rest)) : undefined;
    for (const p of page) {
      yield summary(p);
      left--;
    }
  }
}

/**
 * History entries from a newest-first tuple stream of one (thread, namespace): each entry needs its parent (for the
 * nodes that ran), which is usually the next tuple; otherwise it is fetched. Holds two tuples at a time.
 */
export async function* historyFrom(
  tuples: AsyncIterable<LgCheckpointTuple>,
  fetch: (id: string) => Promise<LgCheckpointTuple | undefined>,
): AsyncIterable<LgHistoryEntry> {
  const { historyEntry } = await import("../../formats/langgraph/tuple.js"); // loaded with the backends already
  let pending: LgCheckpointTuple | undefined;
  for await (const t of tuples) {
    if (pending)
      yield historyEntry(
        pending,
        pending.parentId === t.checkpointId ? t : pending.parentId ? await fetch(pending.parentId) : undefined,
      );
    pending = t;
  }
  if (pending) yield historyEntry(pending, pending.parentId ? await fetch(pending.parentId) : undefined);
}

/** Hang each write on its checkpoint (writes of checkpoints outside the batch — orphans — are dropped). */
export function attachWrites(cps: LgCheckpoint[], writes: ReadonlyArray<readonly [string, LgWrite]>): LgCheckpoint[] {
  const by = new Map<string, LgCheckpoint>();
  for (const c of cps) by.set(keyOf(c), c);
  for (const [k, w] of writes) by.get(k)?.writes.push(w);
  return cps;
}

// ------------------------------------------------------------------------------------------------ as a Saver

export interface LangGraphSaver extends Saver {
  readonly langgraph: LangGraphStore;
  /** checkpoints of a thread (root namespace unless `namespace` names a checkpoint_ns), newest first */
  history(threadId: string, namespace?: string): AsyncIterable<LgHistoryEntry>;
  /** one checkpoint as a tuple document; undefined when missing */
  loadAt(threadId: string, checkpointId: string, namespace?: string): Promise<string | undefined>;
}

export function isLangGraphSaver(s: Saver): s is LangGraphSaver {
  return (s as Partial<LangGraphSaver>).langgraph !== undefined;
}

const rootNs = (ns: string | undefined) => (ns === undefined || ns === DEFAULT_NAMESPACE ? "" : ns);

/**
 * A LangGraph store as a read-only Saver: one document per thread, the newest root-namespace checkpoint as an
 * `LgTupleDocument` (the `langgraph` format); `history` / `loadAt` reach every checkpoint.
 */
export function langGraphSaver(store: LangGraphStore): LangGraphSaver {
  const readOnly = () => {
    throw storeError(
      "langgraph-read-only",
      `${store.uri}: a LangGraph store is read-only here; write LangGraph stores with ckpt migrate`,
    );
  };
  // a checkpoint that did not decode whole is an input error naming its rows, never a shorter conversation
  // `partial`: one checkpoint read to be shown (loadAt: show, view, diff, convert) keeps what did decode when only
  // channel values or pending writes did not: the document names them (issues), the reader marks them unreadable
  const docOf = (t: LgCheckpointTuple | undefined, partial = false) => {
    const bad = t && unreadableReport(t);
    if (bad && !(partial && partialIssues(t)))
      throw inputError("langgraph-undecodable", bad, { file: `${store.uri}#${t.threadId}` });
    return t && JSON.stringify(tupleDocument(t, store.uri));
  };
  const load = async (threadId: string, ns?: string) => docOf(await store.getTuple(threadId, rootNs(ns)));
  return {
    uri: store.uri,
    langgraph: store,
    load,
    loadMany: async (keys) => Promise.all(keys.map((k) => load(k.threadId, k.namespace))),
    save: async () => readOnly(),
    saveMany: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (threadId, ns) => (await store.getTuple(threadId, rootNs(ns))) !== undefined,
    async *list(options = {}): AsyncIterable<ThreadInfo> {
      for await (const t of store.threads({ after: options.after, limit: options.limit })) {
        yield {
          namespace: options.namespace ?? DEFAULT_NAMESPACE,
          threadId: t.threadId,
          bytes: t.bytes,
          ...(t.updatedAt ? { updatedAt: t.updatedAt } : {}),
        };
      }
    },
    async *scan(options = {}) {
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: Array<{ namespace: string; threadId: string; text: string }> = [];
      for await (const t of store.threads()) {
        const text = await load(t.threadId);
        if (text !== undefined)
          batch.push({ namespace: options.namespace ?? DEFAULT_NAMESPACE, threadId: t.threadId, text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    count: () => store.countThreads(),
    namespaces: async () => [DEFAULT_NAMESPACE],
    history: (threadId, ns) => store.history(threadId, rootNs(ns)),
    async loadAt(threadId, checkpointId, ns) {
      return docOf(await store.getTuple(threadId, rootNs(ns), checkpointId), true);
    },
    close: () => store.close(),
  };
}
