/**
 * Reading a LangGraph SQLite store (Python or JS `SqliteSaver`, LANGGRAPH.md §1.1): tables `checkpoints` and
 * `writes`. Opened read-only (`readonly` + `fileMustExist`): never created, never altered, no -wal/-shm files
 * written by us beyond what SQLite needs to read a WAL database. Every listing pages by the primary key.
 */
import { storeError } from "../../base/errors.js";
export { openSqliteReadOnly } from "../sqlite-open.js";
import type {
  LgCheckpointTuple,
  LgHistoryEntry,
  LgLibrary,
  LgListOptions,
  LgReader,
  LgRowRef,
  LgThreadSummary,
} from "../../formats/langgraph/types.js";
import {
  applyPendingSends,
  buildTuple,
  historyEntry,
  type RawCheckpointRow,
  type RawWriteRow,
} from "../../formats/langgraph/tuple.js";
import { messageCount } from "../../formats/langgraph/serde.js";

type DB = import("better-sqlite3").Database;
const TABLES = { checkpoints: "checkpoints", writes: "writes" };
const PAGE = 50;

// JSON payloads come back as text (SQLite's CAST: no Buffer copy plus decode; invalid UTF-8 shows as U+FFFD, which
// the decoder reports); everything else as bytes. Metadata is JSON text under `json`, `msgpack` or NULL (§1.1).
const JSON_TYPE = "(type IS NULL OR type = 'json')";
const CP_COLS = `thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
  CASE WHEN ${JSON_TYPE} THEN CAST(checkpoint AS TEXT) ELSE checkpoint END AS checkpoint,
  CASE WHEN ${JSON_TYPE} OR type = 'msgpack' THEN CAST(metadata AS TEXT) ELSE metadata END AS metadata,
  length(checkpoint) + ifnull(length(metadata), 0) AS bytes`;
/** the head row is JSON SQLite can read (a malformed one goes the JS way, which reports it instead of failing the page) */
const JSON_OK = "((c.type IS NULL OR c.type = 'json') AND json_valid(CAST(c.checkpoint AS TEXT)))";
/** the head's message count: a list, or a DeltaChannel snapshot's list (other values: NULL, decided by the reader) */
const MSGS = `CASE json_type(CAST(c.checkpoint AS TEXT), '$.channel_values.messages')
  WHEN 'array' THEN json_array_length(CAST(c.checkpoint AS TEXT), '$.channel_values.messages')
  WHEN 'object' THEN json_array_length(CAST(c.checkpoint AS TEXT), '$.channel_values.messages.value') END`;
const W_COLS = `thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, CASE WHEN type = 'json' THEN CAST(value AS TEXT) ELSE value END AS value`;

/** Open read-only; throws a store error (exit 4) naming the file. */
/** Table names of an SQLite file (read-only look). */
export function sqliteTables(db: DB): Set<string> {
  return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
}

export function isLangGraphSqlite(tables: Set<string>): boolean {
  return tables.has("checkpoints") && tables.has("writes");
}

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
function summaryOf(p: ThreadRow): LgThreadSummary {
  let messages = p.msgs;
  let ts = p.ts;
  let library = versionsLibrary(p.versions);
  let step: unknown;
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
    );
    messages = messageCount(t.checkpoint.channel_values);
    ts = t.checkpoint.ts || null;
    library = t.library;
    step = t.metadata.step;
  } else {
    try {
      step = p.metadata ? (JSON.parse(p.metadata) as { step?: unknown }).step : undefined;
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
  };
}

type WRow = RawWriteRow & { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
const key3 = (r: { thread_id: string; checkpoint_ns: string; checkpoint_id: string }) =>
  `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`;

/** The reader's prepared statements (keyset pages over the primary key everywhere). */
function statements(db: DB) {
  return {
    one: db.prepare(
      `SELECT ${CP_COLS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    newest: db.prepare(
      `SELECT ${CP_COLS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    writesOf: db.prepare(
      `SELECT ${W_COLS} FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx`,
    ),
    sendsOf: db.prepare(
      `SELECT ${W_COLS} FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = '__pregel_tasks' ORDER BY task_id, idx`,
    ),
    // keyset pages over the primary key
    scanFirst: db.prepare(
      `SELECT ${CP_COLS} FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
    ),
    scanNext: db.prepare(
      `SELECT ${CP_COLS} FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
    ),
    scanThread: db.prepare(
      `SELECT ${CP_COLS} FROM checkpoints WHERE thread_id = ? AND (checkpoint_ns, checkpoint_id) > (?, ?) ORDER BY checkpoint_ns, checkpoint_id LIMIT ?`,
    ),
    writesRange: db.prepare(
      `SELECT ${W_COLS} FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) >= (?, ?, ?) AND (thread_id, checkpoint_ns, checkpoint_id) <= (?, ?, ?)
       ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`,
    ),
    // One statement per page of threads: counts from the primary-key index alone (no table rows; the per-namespace
    // split only for threads that have subgraph namespaces), then the newest root checkpoint's row; for JSON rows
    // its step, ts, message count and channel versions come from SQLite's JSON functions (one cached parse per row,
    // no decode in JS); other serdes are decoded in JS from `raw`.
    threadPage: db.prepare(
      `WITH g AS (SELECT thread_id, count(*) AS total, max(checkpoint_id) AS top, max(checkpoint_ns) AS hi
                  FROM checkpoints WHERE thread_id > ? GROUP BY thread_id ORDER BY thread_id LIMIT ?),
       h AS (SELECT thread_id,
               CASE WHEN hi = '' THEN total ELSE (SELECT count(*) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns = '') END AS n,
               CASE WHEN hi = '' THEN 0 ELSE (SELECT count(*) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns <> '') END AS sub,
               CASE WHEN hi = '' THEN 0 ELSE (SELECT count(DISTINCT checkpoint_ns) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns <> '') END AS ns,
               CASE WHEN hi = '' THEN top ELSE (SELECT max(checkpoint_id) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns = '') END AS newest
             FROM g)
       SELECT h.*, c.type, length(c.checkpoint) + ifnull(length(c.metadata), 0) AS bytes,
              (SELECT ifnull(sum(length(w.value)), 0) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id) AS wbytes,
              CASE WHEN ${JSON_OK} THEN ${MSGS} END AS msgs,
              CASE WHEN ${JSON_OK} THEN json_extract(CAST(c.checkpoint AS TEXT), '$.ts') END AS ts,
              CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> '$.channel_versions' END AS versions,
              CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END AS raw,
              CAST(c.metadata AS TEXT) AS metadata
       FROM h LEFT JOIN checkpoints c ON c.thread_id = h.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = h.newest ORDER BY h.thread_id`,
    ),
    idsFirst: db.prepare(
      "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT ?",
    ),
    idsNext: db.prepare(
      "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ? ORDER BY checkpoint_id DESC LIMIT ?",
    ),
    writeBytes: db.prepare("SELECT sum(length(value)) FROM writes WHERE thread_id = ?").pluck(),
    // a DeltaChannel's parent chain (see LgReader.deltaChain): stops after a JSON row storing the channel's value or
    // a row that is not JSON (the reader decodes it)
    chain: db.prepare(
      `WITH RECURSIVE chain(id, parent, type, raw, value, depth) AS (
         SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END,
                CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> $path END, 0
         FROM checkpoints c WHERE c.thread_id = $thread AND c.checkpoint_ns = $ns AND c.checkpoint_id = $from
         UNION ALL
         SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END,
                CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> $path END, chain.depth + 1
         FROM chain JOIN checkpoints c ON c.thread_id = $thread AND c.checkpoint_ns = $ns AND c.checkpoint_id = chain.parent
         WHERE chain.value IS NULL AND chain.raw IS NULL AND chain.depth + 1 < $limit)
       SELECT id, parent, type, raw, value FROM chain ORDER BY depth`,
    ),
    chainWrites: db.prepare(
      `SELECT checkpoint_id, task_id, idx, channel, type, CASE WHEN type = 'json' THEN CAST(value AS TEXT) ELSE value END AS value
       FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND checkpoint_id IN (SELECT value FROM json_each(?))
       ORDER BY checkpoint_id, task_id, idx`,
    ),
    orphans: db.prepare(
      `SELECT w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel FROM writes w
       LEFT JOIN checkpoints c ON c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id
       WHERE c.checkpoint_id IS NULL ORDER BY w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx`,
    ),
  };
}

/** Checkpoints newest first (of a thread / namespace, before an id, up to a limit), in pages. */
async function* listTuples(
  db: DB,
  wrap: <T>(f: () => T) => T,
  tuple: (r: RawCheckpointRow) => LgCheckpointTuple,
  options: LgListOptions,
): AsyncIterable<LgCheckpointTuple> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (options.threadId !== undefined) where.push("thread_id = ?"), args.push(options.threadId);
  if (options.namespace !== undefined) where.push("checkpoint_ns = ?"), args.push(options.namespace);
  let before = options.before;
  let left = options.limit ?? Infinity;
  while (left > 0) {
    const w = [...where, ...(before !== undefined ? ["checkpoint_id < ?"] : [])];
    const sql = `SELECT ${CP_COLS} FROM checkpoints ${w.length ? "WHERE " + w.join(" AND ") : ""} ORDER BY checkpoint_id DESC LIMIT ?`;
    const rows = wrap(
      () =>
        db
          .prepare(sql)
          .all(...args, ...(before !== undefined ? [before] : []), Math.min(PAGE, left)) as RawCheckpointRow[],
    );
    if (rows.length === 0) return;
    for (const r of rows) {
      yield wrap(() => tuple(r));
      left--;
    }
    before = rows[rows.length - 1]!.checkpoint_id;
  }
}

/** `ls` rows, a page of 500 threads per statement. */
async function* threadSummaries(
  q: ReturnType<typeof statements>,
  wrap: <T>(f: () => T) => T,
  options: { after?: string; limit?: number },
): AsyncIterable<LgThreadSummary> {
  let after = options.after ?? "";
  let left = options.limit ?? Infinity;
  while (left > 0) {
    const page = wrap(() => q.threadPage.all(after, Math.min(500, left)) as ThreadRow[]);
    if (page.length === 0) return;
    for (const p of page) {
      yield summaryOf(p);
      left--;
    }
    after = page[page.length - 1]!.thread_id;
  }
}

export function createLangGraphSqliteReader(db: DB, path: string, uri: string): LgReader {
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw storeError("sqlite-io", `cannot read the LangGraph store: ${(e as Error).message}`, { file: path });
    }
  };
  const q = statements(db);
  /** JS SqliteSaver's v<4 migration (on every JSON row older than v4 with a parent; Python's SqliteSaver has none) */
  const withSends = (t: LgCheckpointTuple): LgCheckpointTuple => {
    if (
      t.parentId &&
      typeof t.checkpoint.v === "number" &&
      t.checkpoint.v < 4 &&
      (t.serde.checkpoint === "json" || t.serde.checkpoint === null)
    ) {
      applyPendingSends(t, q.sendsOf.all(t.threadId, t.namespace, t.parentId) as RawWriteRow[], TABLES.writes);
    }
    return t;
  };
  const tuple = (r: RawCheckpointRow) =>
    withSends(
      buildTuple("sqlite", TABLES, r, q.writesOf.all(r.thread_id, r.checkpoint_ns, r.checkpoint_id) as RawWriteRow[]),
    );
  /** A page of checkpoint rows with their writes, fetched in one range query. */
  const tuplesOf = (rows: RawCheckpointRow[], sorted: boolean): LgCheckpointTuple[] => {
    if (rows.length === 0) return [];
    if (!sorted) return rows.map(tuple);
    const a = rows[0]!;
    const b = rows[rows.length - 1]!;
    const ws = new Map<string, RawWriteRow[]>();
    for (const w of q.writesRange.all(
      a.thread_id,
      a.checkpoint_ns,
      a.checkpoint_id,
      b.thread_id,
      b.checkpoint_ns,
      b.checkpoint_id,
    ) as WRow[]) {
      const k = key3(w);
      const list = ws.get(k);
      if (list) list.push(w);
      else ws.set(k, [w]);
    }
    return rows.map((r) => withSends(buildTuple("sqlite", TABLES, r, ws.get(key3(r)) ?? [])));
  };

  const list = (options: LgListOptions = {}) => listTuples(db, wrap, tuple, options);

  const reader: LgReader = {
    uri,
    info: { store: "sqlite" },
    threads: (options = {}) => threadSummaries(q, wrap, options),
    list,
    countThreads: async () =>
      wrap(() => db.prepare("SELECT count(DISTINCT thread_id) FROM checkpoints").pluck().get() as number),
    async *checkpointIds(threadId, namespace = "") {
      let before: string | undefined;
      for (;;) {
        const rows = wrap(
          () =>
            (before === undefined
              ? q.idsFirst.all(threadId, namespace, 1000)
              : q.idsNext.all(threadId, namespace, before, 1000)) as Array<{
              checkpoint_id: string;
              parent_checkpoint_id: string | null;
            }>,
        );
        for (const r of rows) yield { checkpointId: r.checkpoint_id, parentId: r.parent_checkpoint_id };
        if (rows.length < 1000) return;
        before = rows[rows.length - 1]!.checkpoint_id;
      }
    },
    async *history(threadId, namespace = ""): AsyncIterable<LgHistoryEntry> {
      yield* historyFrom(list({ threadId, namespace }), (id) => reader.getTuple(threadId, namespace, id));
    },
    async getTuple(threadId, namespace = "", checkpointId) {
      const r = wrap(
        () =>
          (checkpointId === undefined
            ? q.newest.get(threadId, namespace)
            : q.one.get(threadId, namespace, checkpointId)) as RawCheckpointRow | undefined,
      );
      return r ? wrap(() => tuple(r)) : undefined;
    },
    async *scan(options = {}) {
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
        yield wrap(() => tuplesOf(rows, true));
        if (rows.length < size) return;
      }
    },
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
    async deltaChain(threadId, namespace, fromId, channel, limit) {
      return wrap(() => {
        const path = `$.channel_values."${channel.replace(/"/g, '\\"')}"`;
        const rows = q.chain.all({ thread: threadId, ns: namespace, from: fromId, path, limit }) as Array<{
          id: string;
          parent: string | null;
          type: string | null;
          raw: Uint8Array | null;
          value: string | null;
        }>;
        const ws = q.chainWrites.all(threadId, namespace, channel, JSON.stringify(rows.map((r) => r.id))) as WRow[];
        const byId = new Map<string, WRow[]>();
        for (const w of ws) (byId.get(w.checkpoint_id) ?? byId.set(w.checkpoint_id, []).get(w.checkpoint_id)!).push(w);
        return rows.map((r) => ({
          checkpointId: r.id,
          parentId: r.parent,
          value: r.value,
          ...(r.value === null && r.raw !== null ? { raw: { type: r.type, checkpoint: r.raw } } : {}),
          writes: byId.get(r.id) ?? [],
        }));
      });
    },
    async close() {
      db.close();
    },
  };
  return reader;
}

/**
 * History entries from a newest-first tuple stream of one (thread, namespace): each entry needs its parent (for the
 * nodes that ran), which is usually the next tuple; otherwise it is fetched. Holds two tuples at a time.
 */
export async function* historyFrom(
  tuples: AsyncIterable<LgCheckpointTuple>,
  fetch: (id: string) => Promise<LgCheckpointTuple | undefined>,
): AsyncIterable<LgHistoryEntry> {
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
