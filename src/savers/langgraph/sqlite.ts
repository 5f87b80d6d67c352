/**
 * A LangGraph SQLite store (Python or JS `SqliteSaver`, LANGGRAPH.md §1.1): tables `checkpoints` and `writes`. One
 * factory, `openLangGraphSqlite`, returns one object that is the reader (decoded tuples, history, `ls` rows, orphan
 * writes), the row-level store (migrate, convert, prune: bytes as stored) and the stats source. Both libraries create
 * the same two tables and set WAL. A store opened to read is opened read-only (`readonly` + `fileMustExist`): never
 * created, never altered, no -wal/-shm files left by us. Every listing pages by the primary key.
 */
import type { AesKey } from "../../formats/langgraph/aes-key.js";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { storeError } from "../../base/errors.js";
import type { Library } from "../../formats/langgraph/encode.js";
import { sqliteVacuum, wrapVacuum } from "../vacuum.js";
import { type LgCheckpoint, type LgWrite, libraryOf, textOf } from "../../formats/langgraph/rows.js";
import { messageCount } from "../../formats/langgraph/serde.js";
import { DELTA_COUNTERS } from "../../formats/langgraph/delta.js";
import { buildTuple, type RawCheckpointRow } from "../../formats/langgraph/tuple.js";
import type {
  DeltaChainRow,
  LgLibrary,
  LgListOptions,
  LgReader,
  LgRowRef,
  LgThreadSummary,
} from "../../formats/langgraph/types.js";
import { openSqliteReadOnly, sqliteFiles, sqliteOpenError, useWal } from "../sqlite-open.js";
import { withDeltaChannels } from "./delta.js";
import { sqliteAtomically } from "./sqlite-atomic.js";
import {
  attachWrites,
  bytesOf,
  counters,
  historyFrom,
  idPages,
  type LangGraphStore,
  type LgStats,
  type LgStore,
  keyOf,
  newestFirst,
  type PlanFn,
  type PruneCounts,
  type PruneHead,
  rangeOf,
  type StatBatch,
  type StatRowsOptions,
  type StatTable,
  statThreadPages,
  type ThreadPlan,
  threadPages,
  threadsOf,
  type WriteOptions,
} from "./shared.js";
import { legacyViews, lgSqliteLayout, type LgSqliteLayout } from "./sqlite-layout.js";
import { SQ_PRUNE, SQ_READ, SQ_ROWS, SQ_STATS, SQLITE_SETUP, SQLITE_TABLES } from "./sql.js";
import { loadBetterSqlite3 } from "../better-sqlite3.js";
import { TABLES, tupleMaker, type Wrap, type WRow } from "./sqlite-tuples.js";

type DB = BetterSqlite3.Database;
const PAGE = 50;

export interface LangGraphSqliteOptions {
  /**
   * "read": read-only, the file must exist; "write": the file must exist; "create": created (with its folder) when
   * missing. Default "read".
   */
  mode?: "read" | "write" | "create";
  /** read mode: a store opened to be written anyway may first settle what a crashed writer left (sqlite-open.ts) */
  recover?: boolean;
  /** the key of the store's encrypted rows (OpenOptions.aesKey) */
  aesKey?: AesKey;
}

/** Table names of an SQLite file (a read-only look). */
export function sqliteTables(db: DB): Set<string> {
  return new Set(db.prepare(SQLITE_TABLES).pluck().all() as string[]);
}

/**
 * The LangGraph layout the tables hold (./sqlite-layout.ts: today's, or an older release's), or undefined when they
 * hold none; a LangGraph table missing a column no release left out is an input error naming it.
 */
export function isLangGraphSqlite(db: DB, tables: Set<string>, file: string): LgSqliteLayout | undefined {
  return lgSqliteLayout(db, tables, file);
}

/** Open the database file as `mode` says; a file that cannot be opened is a store error naming it. */
export async function openSqliteDb(path: string, uri: string, o: LangGraphSqliteOptions = {}): Promise<DB> {
  const mode = o.mode ?? "read";
  if (mode === "read") return openSqliteReadOnly(path, { recover: o.recover, uri });
  const Database = await loadBetterSqlite3(uri);
  try {
    let db: DB;
    if (mode === "write") {
      if (!existsSync(path)) throw new Error("no such file");
      db = new Database(path, { fileMustExist: true });
    } else {
      mkdirSync(dirname(path), { recursive: true });
      db = new Database(path);
    }
    db.pragma("busy_timeout = 5000");
    return db;
  } catch (e) {
    throw sqliteOpenError(e, path, "cannot open the LangGraph SQLite store");
  }
}

/** The LangGraph store in an open database (see the module comment); `aesKey` opens its encrypted rows. */
export function langGraphSqlite(
  db: DB,
  path: string,
  uri: string,
  aesKey?: AesKey,
  layout?: LgSqliteLayout,
): LangGraphStore {
  legacyViews(db, layout ?? lgSqliteLayout(db, sqliteTables(db), uri), uri);
  const reader = withDeltaChannels(readerOf(db, path, uri, aesKey));
  const rows = rowStoreOf(db, uri);
  const stats = statsOf(db, uri, path);
  return {
    ...reader,
    ...rows,
    get storedMethod() {
      return stats.storedMethod;
    },
    tables: stats.tables,
    files: stats.files,
    rows: stats.rows,
    uri,
    vacuum: async (o) => wrapVacuum(path, () => sqliteVacuum(db, path, o.dryRun)),
    close: async () => void db.close(),
  };
}

/** Open an SQLite LangGraph store (the file's layout is the caller's business: see savers/index.ts). */
export async function openLangGraphSqlite(
  path: string,
  uri: string,
  o: LangGraphSqliteOptions = {},
): Promise<LangGraphStore> {
  return langGraphSqlite(await openSqliteDb(path, uri, o), path, uri, o.aesKey);
}

// ------------------------------------------------------------------------------------------------ reader

interface ThreadRow {
  thread_id: string;
  n: number;
  sub: number;
  ns: number;
  newest: string | null;
  type: string | null;
  bytes: number | null;
  wbytes: number | null;
  msgs: number | null;
  ts: string | null;
  /** the JSON text of the head's channel_versions (JSON heads only) */
  versions: string | null;
  raw: Uint8Array | null;
  metadata: string | null;
}

/** Which library the head's channel versions say (the first version's type: Python strings, JS integers). */
function versionsLibrary(text: string | null): LgLibrary {
  if (text === null) return "unknown";
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return "unknown";
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "unknown";
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    return typeof x === "string" ? "python" : typeof x === "number" && Number.isInteger(x) ? "js" : "unknown";
  }
  return "unknown";
}

/** A thread row of `ls`: JSON heads summarized by SQLite, other serdes decoded here (no writes needed). */
function summaryOf(p: ThreadRow, aesKey: AesKey | undefined): LgThreadSummary {
  let messages = p.msgs;
  let ts = p.ts;
  let library = versionsLibrary(p.versions);
  let step: unknown;
  let counters: unknown;
  if (p.raw !== null && p.newest !== null) {
    const t = buildTuple(
      "sqlite",
      TABLES,
      {
        thread_id: p.thread_id,
        checkpoint_ns: "",
        checkpoint_id: p.newest,
        parent_checkpoint_id: null,
        type: p.type,
        checkpoint: p.raw,
        metadata: p.metadata,
        bytes: 0,
      },
      [],
      undefined,
      { aesKey },
    );
    messages = messageCount(t.checkpoint.channel_values);
    ts = t.checkpoint.ts || null;
    library = t.library;
    step = t.metadata.step;
    counters = t.metadata[DELTA_COUNTERS];
  } else {
    try {
      const md = p.metadata ? (JSON.parse(p.metadata) as Record<string, unknown>) : undefined;
      step = md?.step;
      counters = md?.[DELTA_COUNTERS];
    } catch {
      step = undefined;
    }
    if (library === "unknown" && ts) library = ts.endsWith("Z") ? "js" : "python";
  }
  return {
    threadId: p.thread_id,
    checkpoints: p.n,
    subgraphCheckpoints: p.sub,
    namespaces: p.ns,
    newestId: p.newest,
    newestStep: typeof step === "number" ? step : null,
    messages: messages ?? null,
    bytes: (p.bytes ?? 0) + (p.wbytes ?? 0),
    updatedAt: ts || null,
    library,
    ...(counters && typeof counters === "object" ? { deltaChannels: Object.keys(counters) } : {}),
  };
}

type ReadStatement =
  | Exclude<keyof typeof SQ_READ, "ids" | "list" | "countThreads" | "namespaces">
  | "idsFirst"
  | "idsNext";

/**
 * The reader's statements, each prepared when first used (a store opened to be written may have no tables yet, and
 * most commands use a few of them).
 */
function statements(db: DB): Record<ReadStatement, BetterSqlite3.Statement> {
  const sqls: Record<string, string> = { idsFirst: SQ_READ.ids(false), idsNext: SQ_READ.ids(true) };
  for (const [k, sql] of Object.entries(SQ_READ)) if (typeof sql === "string" && k !== "countThreads") sqls[k] = sql;
  const q = {} as Record<ReadStatement, BetterSqlite3.Statement>;
  for (const [k, sql] of Object.entries(sqls)) {
    let prepared: BetterSqlite3.Statement | undefined;
    Object.defineProperty(q, k, { get: () => (prepared ??= db.prepare(sql)) });
  }
  return q;
}

/** Each row converted as it is consumed (a reader that stops early decodes no more). */
function* lazily<R, T>(rows: R[], f: (r: R) => T): Iterable<T> {
  for (const r of rows) yield f(r);
}

/** LgReader.deltaChain over SQLite: the parent chain and the channel's writes along it, in one recursive query. */
function deltaChainOf(
  q: Record<ReadStatement, BetterSqlite3.Statement>,
  wrap: Wrap,
): NonNullable<LgReader["deltaChain"]> {
  return async (threadId, namespace, fromId, channel, limit) =>
    wrap(() => {
      const path = `$.channel_values."${channel.replace(/"/g, '\\"')}"`;
      const rows = q.chain.all({ thread: threadId, ns: namespace, from: fromId, path, limit, channel }) as Array<{
        id: string;
        parent: string | null;
        type: string | null;
        raw: Uint8Array | null;
        value: string | null;
        task_id: string | null;
        idx: number;
        wtype: string | null;
        wvalue: Uint8Array | string | null;
      }>;
      // one row per (checkpoint, write): grouped back into checkpoints, in chain order
      const out: DeltaChainRow[] = [];
      for (const r of rows) {
        let last = out[out.length - 1];
        if (last?.checkpointId !== r.id) {
          last = {
            checkpointId: r.id,
            parentId: r.parent,
            value: r.value,
            ...(r.value === null && r.raw !== null ? { raw: { type: r.type, checkpoint: r.raw } } : {}),
            writes: [],
          };
          out.push(last);
        }
        if (r.task_id !== null)
          last.writes.push({ task_id: r.task_id, idx: r.idx, channel, type: r.wtype, value: r.wvalue });
      }
      return out;
    });
}

/** `LgReader.scan`: every checkpoint in key order (or one thread's: its keys' range), `batchSize` at a time. */
async function* scanPages(
  q: ReturnType<typeof statements>,
  tuplesOf: ReturnType<typeof tupleMaker>["tuplesOf"],
  wrap: Wrap,
  options: Parameters<LgReader["scan"]>[0] & object,
) {
  const size = Math.max(1, options.batchSize ?? PAGE);
  let last: RawCheckpointRow | undefined;
  for (;;) {
    const rows = wrap(
      () =>
        (options.threadId !== undefined
          ? q.scanThread.all(options.threadId, last?.checkpoint_ns ?? "", last?.checkpoint_id ?? "", size)
          : last
            ? q.scanNext.all(last.thread_id, last.checkpoint_ns, last.checkpoint_id, size)
            : q.scanFirst.all(size)) as RawCheckpointRow[],
    );
    if (rows.length === 0) return;
    last = rows[rows.length - 1];
    yield wrap(() => tuplesOf(rows));
    if (rows.length < size) return;
  }
}

function readerOf(db: DB, path: string, uri: string, aesKey: AesKey | undefined): LgReader {
  const wrap: Wrap = (f) => {
    try {
      return f();
    } catch (e) {
      throw storeError("sqlite-io", `cannot read the LangGraph store: ${(e as Error).message}`, { file: path }, e);
    }
  };
  const q = statements(db);
  const { tuple, tuplesOf, newestOf } = tupleMaker(q, aesKey);
  const list = (options: LgListOptions = {}) => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (options.threadId !== undefined) where.push("thread_id = ?"), args.push(options.threadId);
    if (options.namespace !== undefined) where.push("checkpoint_ns = ?"), args.push(options.namespace);
    const page = async (before: string | undefined, n: number) =>
      wrap(
        () =>
          db
            .prepare(SQ_READ.list(before !== undefined ? [...where, "checkpoint_id < ?"] : where))
            .all(...args, ...(before !== undefined ? [before] : []), n) as RawCheckpointRow[],
      );
    return newestFirst(page, (rows) => lazily(rows, (r) => wrap(() => tuple(r))), options, PAGE);
  };
  const reader: LgReader = {
    uri,
    info: { store: "sqlite" },
    aesKey,
    threads: (options = {}) =>
      threadPages(
        async (after, n) => wrap(() => q.threadPage.all(after ?? "", n) as ThreadRow[]),
        (p) => summaryOf(p, aesKey),
        options,
      ),
    list,
    countThreads: async () => wrap(() => db.prepare(SQ_READ.countThreads).pluck().get() as number),
    namespacesOf: async (threadId) => wrap(() => db.prepare(SQ_READ.namespaces).pluck().all(threadId) as string[]),
    checkpointIds: (threadId, namespace = "") =>
      idPages(async (before, n) =>
        wrap(
          () =>
            (before === undefined
              ? q.idsFirst.all(threadId, namespace, n)
              : q.idsNext.all(threadId, namespace, before, n)) as Array<{
              checkpoint_id: string;
              parent_checkpoint_id: string | null;
            }>,
        ),
      ),
    history: (threadId, namespace = "") =>
      historyFrom(list({ threadId, namespace }), (id) => reader.getTuple(threadId, namespace, id)),
    async getTuple(threadId, namespace = "", checkpointId) {
      const r = wrap(
        () =>
          (checkpointId === undefined
            ? q.newest.get(threadId, namespace)
            : q.one.get(threadId, namespace, checkpointId)) as RawCheckpointRow | undefined,
      );
      return r ? wrap(() => tuple(r)) : undefined;
    },
    newestTuples: async (threadIds, namespace, o) => wrap(() => newestOf(threadIds, namespace, wrap, o?.text)),
    scan: (options = {}) => scanPages(q, tuplesOf, wrap, options),
    async *orphanWrites(): AsyncIterable<LgRowRef> {
      for (const w of wrap(() => q.orphans.iterate()) as Iterable<WRow>) {
        yield {
          store: "sqlite",
          table: "writes",
          threadId: w.thread_id,
          namespace: w.checkpoint_ns,
          checkpointId: w.checkpoint_id,
          taskId: w.task_id,
          idx: w.idx,
          channel: w.channel,
        };
      }
    },
    async *orphanBlobs() {},
    deltaChain: deltaChainOf(q, wrap),
    async close() {
      db.close();
    },
  };
  return reader;
}

// ------------------------------------------------------------------------------------------------ row-level store

interface CpRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Buffer | string | null;
  metadata: Buffer | string | null;
}
interface SqWriteRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  channel: string;
  type: string | null;
  value: Buffer | string | null;
}

export function toCheckpoint(r: CpRow): LgCheckpoint {
  return {
    threadId: r.thread_id,
    ns: r.checkpoint_ns,
    id: r.checkpoint_id,
    parentId: r.parent_checkpoint_id,
    type: r.type,
    checkpoint: bytesOf(r.checkpoint),
    metadata: bytesOf(r.metadata),
    writes: [],
  };
}
const toWrite = (r: SqWriteRow): LgWrite => ({
  taskId: r.task_id,
  idx: r.idx,
  channel: r.channel,
  type: r.type,
  value: bytesOf(r.value),
  taskPath: "",
});

type RowWrap = <R>(what: string, f: () => R) => R;

/**
 * Every checkpoint with its writes, in key order, of the threads `threads` accepts, in pages of whole threads (`batchSize`
 * checkpoints and the rest of the last thread), each page read in one read transaction (a snapshot): a writer (prune)
 * committing between pages never leaves a hole in a thread's history.
 */
async function* scanRows(
  db: DB,
  wrap: RowWrap,
  batchSize: number,
  threads?: (id: string) => boolean,
  only?: string,
): AsyncIterable<LgCheckpoint[]> {
  const first = db.prepare(SQ_ROWS.scanFirst);
  const from = db.prepare(SQ_ROWS.scanFrom);
  const page = db.prepare(SQ_ROWS.scanNext);
  const rest = db.prepare(SQ_ROWS.threadRest);
  const range = db.prepare(SQ_ROWS.writesRange);
  let after: [string, string, string] | undefined;
  for (;;) {
    const read = db.transaction(() => {
      const rows = (
        after ? page.all(...after, batchSize) : only !== undefined ? from.all(only, batchSize) : first.all(batchSize)
      ) as CpRow[];
      if (rows.length === batchSize) {
        const last = rows[rows.length - 1]!;
        for (const r of rest.iterate(last.thread_id, last.checkpoint_ns, last.checkpoint_id) as Iterable<CpRow>)
          rows.push(r);
      }
      const kept = threads ? rows.filter((r) => threads(r.thread_id)) : rows;
      if (!kept.length) return { rows, kept, ws: [] as SqWriteRow[] };
      const a = kept[0]!;
      const b = kept[kept.length - 1]!;
      const ws = range.all(
        a.thread_id,
        a.checkpoint_ns,
        a.checkpoint_id,
        b.thread_id,
        b.checkpoint_ns,
        b.checkpoint_id,
      ) as SqWriteRow[];
      return { rows, kept, ws };
    });
    const { rows, kept, ws } = wrap("reading checkpoints", () => read());
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
    if (kept.length)
      yield attachWrites(
        kept.map(toCheckpoint),
        ws.map(
          (w) => [keyOf({ threadId: w.thread_id, ns: w.checkpoint_ns, id: w.checkpoint_id }), toWrite(w)] as const,
        ),
      );
    if (rows.length < batchSize || (only !== undefined && last.thread_id !== only)) return;
  }
}

/** Write checkpoints and their writes in one transaction (existing rows replaced with `overwrite`, else kept). */
function writeRows(db: DB, wrap: RowWrap, cps: LgCheckpoint[], o: WriteOptions): void {
  const verb = o.overwrite ? "INSERT OR REPLACE" : "INSERT OR IGNORE";
  const insCp = db.prepare(SQ_ROWS.insertCheckpoint(verb));
  const delW = db.prepare(SQ_ROWS.deleteWrites);
  const insW = db.prepare(SQ_ROWS.insertWrite(verb));
  wrap("writing checkpoints", () =>
    db
      .transaction(() => {
        for (const c of cps) {
          insCp.run(c.threadId, c.ns, c.id, c.parentId, c.type, Buffer.from(c.checkpoint), Buffer.from(c.metadata));
          if (o.overwrite) delW.run(c.threadId, c.ns, c.id);
          for (const w of c.writes)
            insW.run(c.threadId, c.ns, c.id, w.taskId, w.idx, w.channel, w.type, Buffer.from(w.value));
        }
      })
      .immediate(),
  );
}

/** A checkpoint's SQLite rows as one comparable string (bytes as hex). */
function sqliteForm(cp: LgCheckpoint): string {
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  const ws = [...cp.writes].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx));
  return JSON.stringify([
    cp.parentId,
    cp.type,
    hex(cp.checkpoint),
    textOf(cp.metadata),
    ws.map((w) => [w.taskId, w.idx, w.channel, w.type, hex(w.value)]),
  ]);
}

function rowStoreOf(db: DB, uri: string): Omit<LgStore, "close" | "vacuum"> {
  const wrap: RowWrap = (what, f) => {
    try {
      return f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("sqlite-io", `${what} (${uri}): ${(e as Error).message}`, {}, e);
    }
  };
  const hasLayout = () => (db.prepare(SQ_ROWS.hasLayout).get() as { n: number }).n === 2;
  const load = async (keys: Array<{ threadId: string; ns: string; id: string }>) => {
    const out = new Map<string, LgCheckpoint>();
    if (!hasLayout()) return out;
    const get = db.prepare(SQ_ROWS.get);
    const ws = db.prepare(SQ_ROWS.writesOf);
    wrap("reading checkpoints", () => {
      for (const k of keys) {
        const r = get.get(k.threadId, k.ns, k.id) as CpRow | undefined;
        if (!r) continue;
        const cp = toCheckpoint(r);
        cp.writes = (ws.all(k.threadId, k.ns, k.id) as SqWriteRow[]).map(toWrite);
        out.set(keyOf(k), cp);
      }
    });
    return out;
  };
  const rows: Omit<LgStore, "close" | "vacuum"> = {
    kind: "sqlite",
    uri,
    hasLayout: async () => hasLayout(),
    async library() {
      if (!hasLayout()) return undefined;
      const r = db.prepare(SQ_ROWS.first).get() as CpRow | undefined;
      return r ? libraryOf(toCheckpoint(r), "js") : undefined;
    },
    async setup(_lib: Library) {
      wrap("creating the LangGraph tables", () => {
        useWal(db);
        db.exec(SQLITE_SETUP);
      });
    },
    count: async () => (hasLayout() ? (db.prepare(SQ_ROWS.count).get() as { n: number }).n : 0),
    scanRows: (batchSize, threads, only) => scanRows(db, wrap, batchSize, threads, only),
    load,
    write: async (cps, o: WriteOptions) => writeRows(db, wrap, cps, o),
    async readBack(keys) {
      const out = new Map<string, string>();
      for (const [k, cp] of await load(keys)) out.set(k, sqliteForm(cp));
      return out;
    },
    stage: () => undefined,
    stagedForm: (cp) => sqliteForm(cp),
    sameForm: (a, b) => a === b,
    threadPage: async (after, limit) =>
      hasLayout() ? wrap("listing threads", () => threadPage(db, after, limit)) : [],
    heads: async (threads) => wrap("reading checkpoints", () => heads(db, threads)),
    prunePage: async (threads, plan, o) => wrap(o.doing ?? "pruning", () => prunePage(db, threads, plan, o)),
    atomically: (_lock, f) => sqliteAtomically(db, uri, rows, f),
  };
  return rows;
}

// ------------------------------------------------------------------------------------------------ prune

/**
 * The planning and prune statements of one connection, prepared once (a statement per thread or checkpoint is
 * native memory held until the garbage collector finalizes it, and compile time). Rows come back as arrays. Every
 * delete runs inside the page's transaction and deletes planned checkpoints by id (never "the thread"), so a
 * checkpoint written after the prune started is never touched; orphan writes count only below the start id.
 */
interface PruneStmts {
  firstThreads: BetterSqlite3.Statement;
  nextThreads: BetterSqlite3.Statement;
  heads: BetterSqlite3.Statement;
  writesOf: BetterSqlite3.Statement;
  orphans: BetterSqlite3.Statement;
  del?: { writes: BetterSqlite3.Statement; checkpoints: BetterSqlite3.Statement; orphans: BetterSqlite3.Statement };
}
const pruneStmts = new WeakMap<DB, PruneStmts>();

function stmtsOf(db: DB, write: boolean): PruneStmts {
  let s = pruneStmts.get(db);
  if (!s) {
    s = {
      firstThreads: db.prepare(SQ_PRUNE.firstThreads).pluck(),
      nextThreads: db.prepare(SQ_PRUNE.nextThreads).pluck(),
      heads: db.prepare(SQ_PRUNE.heads).raw(),
      writesOf: db.prepare(SQ_PRUNE.writesOf).raw(),
      orphans: db.prepare(SQ_PRUNE.orphans).raw(),
    };
    pruneStmts.set(db, s);
  }
  if (write)
    s.del ??= {
      writes: db.prepare(SQ_PRUNE.deleteWrites),
      checkpoints: db.prepare(SQ_PRUNE.deleteCheckpoints),
      orphans: db.prepare(SQ_PRUNE.deleteOrphans),
    };
  return s;
}

function threadPage(db: DB, after: string | undefined, limit: number): string[] {
  const s = stmtsOf(db, false);
  return (after === undefined ? s.firstThreads.all(limit) : s.nextThreads.all(after, limit)) as string[];
}

type HeadRow = [string, string, string | null, number | null, string | null];
const toHead = (r: HeadRow): PruneHead => ({
  ns: r[0],
  id: r[1],
  parentId: r[2],
  bytes: r[3] ?? 0,
  deltaCounters: counters(r[4]),
});

function threadHeads(s: PruneStmts, threadId: string): PruneHead[] {
  const list: PruneHead[] = [];
  for (const r of s.heads.all(threadId) as HeadRow[]) list.push(toHead(r));
  return list;
}

function heads(db: DB, threads: string[]): Map<string, PruneHead[]> {
  const s = stmtsOf(db, false);
  return new Map(threads.map((t) => [t, threadHeads(s, t)]));
}

/** A plan's checkpoint ids by namespace, each list as the JSON array the statements take. */
function idsByNs(p: ThreadPlan): Map<string, string> {
  const by = new Map<string, string[]>();
  for (const h of p.remove) (by.get(h.ns) ?? by.set(h.ns, []).get(h.ns)!).push(h.id);
  return new Map([...by].map(([ns, ids]) => [ns, JSON.stringify(ids)]));
}

/**
 * One page in one transaction, a thread at a time: its checkpoints are read, planned and deleted before the next
 * thread's are read, so what is held is one thread's heads, whatever the page size.
 */
function prunePage(db: DB, threads: string[], plan: PlanFn, o: { startId: string; dryRun: boolean }): PruneCounts {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const s = stmtsOf(db, !o.dryRun);
  const run = () => {
    for (const t of threads) {
      const p = plan(t, threadHeads(s, t));
      for (const h of p.remove) c.bytes += h.bytes;
      c.checkpoints += p.remove.length;
      for (const [ns, ids] of idsByNs(p)) {
        const [n, b] = s.writesOf.get(t, ns, ids) as [number, number];
        c.writes += n;
        c.bytes += b;
        s.del?.writes.run(t, ns, ids);
        s.del?.checkpoints.run(t, ns, ids);
      }
      // orphan writes: after the deletes above (a dry run counts the ones already orphaned, plus those it would make)
      const [n, b] = s.orphans.get(t, o.startId) as [number, number];
      c.orphanWrites += n;
      c.bytes += b;
      if (n) s.del?.orphans.run(t, o.startId);
    }
  };
  if (o.dryRun) run();
  else db.transaction(run).immediate();
  return c;
}

// ------------------------------------------------------------------------------------------------ stats

/**
 * The stats source: rows a page of threads at a time; table sizes from SQLite `dbstat` when the build has it (else
 * the sum of the stored lengths).
 */
function statsOf(db: DB, uri: string, path: string): LgStats {
  const wrap = <R>(what: string, f: () => R): R => {
    try {
      return f();
    } catch (e) {
      throw storeError("sqlite-io", `${what} (${uri}): ${(e as Error).message}`, {}, e);
    }
  };
  let dbstat: boolean | undefined;
  const hasDbstat = () => {
    if (dbstat === undefined) {
      try {
        db.prepare(SQ_STATS.dbstatProbe).get();
        dbstat = true;
      } catch {
        dbstat = false;
      }
    }
    return dbstat;
  };
  return {
    get storedMethod() {
      return hasDbstat() ? "dbstat" : "sum-of-lengths";
    },
    tables: async () => wrap("measuring the tables", () => statTables(db, hasDbstat())),
    files: () => sqliteFiles(path),
    rows: (o) => statRows(db, o, wrap),
  };
}

function statTables(db: DB, dbstat: boolean): StatTable[] {
  const out: StatTable[] = [];
  const sizes = new Map<string, number>();
  if (dbstat) {
    for (const r of db.prepare(SQ_STATS.dbstat).all() as Array<{ t: string; b: number }>) sizes.set(r.t, r.b);
  }
  for (const [table, cols] of SQ_STATS.sizes) {
    const r = db.prepare(SQ_STATS.size(table, cols)).get() as { n: number; b: number };
    out.push({ table, rows: r.n, storedBytes: dbstat ? (sizes.get(table) ?? 0) : r.b });
  }
  return out;
}

interface SqStatCp {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  type: string | null;
  checkpoint: Buffer | string | null;
  mb: number;
}

async function* statRows(db: DB, o: StatRowsOptions, wrap: <R>(w: string, f: () => R) => R): AsyncIterable<StatBatch> {
  const batch = Math.max(1, o.batchSize ?? 500);
  const next = async (after: string | undefined, n: number) => wrap("listing threads", () => threadPage(db, after, n));
  for await (const page of statThreadPages(next, o)) {
    const threads = threadsOf(page);
    const range = rangeOf(page);
    // the page's threads: a key range when the page is whole (primary-key index), else the list
    const where = range ? "thread_id >= ? AND thread_id <= ?" : "thread_id IN (SELECT value FROM json_each(?))";
    const args = range ? [range[0], range[1]] : [JSON.stringify(threads)];
    const cp = db.prepare(SQ_STATS.checkpoints(where));
    let after = ["", "", ""];
    for (;;) {
      const rows = wrap("reading checkpoints", () => cp.all(...args, ...after, batch) as SqStatCp[]);
      if (rows.length === 0) break;
      const l = rows[rows.length - 1]!;
      after = [l.thread_id, l.checkpoint_ns, l.checkpoint_id];
      yield {
        table: "checkpoints",
        rows: rows.map((r) => {
          const c = bytesOf(r.checkpoint);
          return {
            threadId: r.thread_id,
            ns: r.checkpoint_ns,
            id: r.checkpoint_id,
            type: r.type,
            checkpoint: c,
            checkpointBytes: c.length,
            metadataBytes: r.mb ?? 0,
          };
        }),
      };
      if (rows.length < batch) break;
    }
    const w = db.prepare(SQ_STATS.writes(where));
    let wAfter: unknown[] = ["", "", "", "", -1e15];
    for (;;) {
      const rows = wrap("reading writes", () => w.all(...args, ...wAfter, batch) as SqWriteRow[]);
      if (rows.length === 0) break;
      const l = rows[rows.length - 1]!;
      wAfter = [l.thread_id, l.checkpoint_ns, l.checkpoint_id, l.task_id, l.idx];
      yield {
        table: "writes",
        rows: rows.map((r) => ({
          threadId: r.thread_id,
          ns: r.checkpoint_ns,
          checkpointId: r.checkpoint_id,
          channel: r.channel,
          type: r.type,
          value: bytesOf(r.value),
        })),
      };
      if (rows.length < batch) break;
    }
    yield { table: "page", threads };
  }
}
