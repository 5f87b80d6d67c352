/**
 * A LangGraph PostgreSQL store (Python or JS `PostgresSaver`, LANGGRAPH.md §1.2-1.3) in `?schema=` (default
 * `public`): `checkpoints` (JSONB), `checkpoint_blobs`, `checkpoint_writes` (+ `task_path` after Python migration 9),
 * `checkpoint_migrations`. One factory, `langGraphPostgres`, returns one object that is the reader, the row-level
 * store (migrate, convert, prune) and the stats source.
 *
 * Connections: reading (the reader, stats) goes through one connection with `default_transaction_read_only=on`;
 * the row-level store through a pool of 4 (batches read on two connections at once, writes in transactions). Each is
 * opened when first needed; a store opened to read opens the read-only one at once, one opened to write the pool.
 * Every listing pages by key (no server-side state), so memory is bounded by the page. `setup` runs the library's own
 * migrations (Python 0-9, JS 0-4) the way its setup() does. Writes split channel values into `checkpoint_blobs` as
 * the target library's put does (rows.ts); reads reassemble them.
 */
import type pg from "pg";
import { hexDigest } from "../../base/digest.js";
import { inputError, storeError } from "../../base/errors.js";
import type { Library } from "../../formats/langgraph/encode.js";
import { ListDecoder } from "../../formats/langgraph/list-decode.js";
import {
  assembleFromPostgres,
  type BlobValue,
  type LgCheckpoint,
  type LgWrite,
  libraryOfVersions,
  type PgBlobRow,
  type PgCheckpointRow,
  splitForPostgres,
} from "../../formats/langgraph/rows.js";
import { decodeTyped, messageCount } from "../../formats/langgraph/serde.js";
import {
  applyPendingSends,
  buildTuple,
  type RawBlobRow,
  type RawCheckpointRow,
  type RawWriteRow,
} from "../../formats/langgraph/tuple.js";
import type {
  DeltaChainRow,
  LgCheckpointTuple,
  LgLibrary,
  LgListOptions,
  LgReader,
  LgRowRef,
  LgStoreInfo,
  LgThreadSummary,
} from "../../formats/langgraph/types.js";
import { textArray } from "../pg-array.js";
import { describePgError } from "../postgres.js";
import { withDeltaChannels } from "./delta.js";
import {
  attachWrites,
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
  type VacuumReport,
  type PruneHead,
  type StatBatch,
  type StatRowsOptions,
  type StatTable,
  statThreadPages,
  threadPages,
  threadsOf,
  type WriteOptions,
} from "./shared.js";
import {
  ident,
  migrations,
  PG_BLOB_COLS,
  PG_LG_TABLES,
  PG_PRUNE,
  PG_READ,
  PG_ROWS,
  PG_SCHEMA_COLUMNS,
  PG_STATS,
  PG_TEXT_COLS,
  pgMaxMigration,
  pgThreadPageSql,
} from "./sql.js";

type Client = pg.Client;
type Queryable = Pick<pg.Pool, "query">;
const PAGE = 200;
/** scan: tuples decoded and yielded at a time (see scan) */
const DECODE_CHUNK = 20;
const TABLES = { checkpoints: "checkpoints", writes: "checkpoint_writes", blobs: "checkpoint_blobs" };

/** Where a PostgreSQL LangGraph store is: the connection URL (without ckpt's parameters), the redacted URI, the schema. */
export interface PgPlace {
  url: string;
  uri: string;
  schema: string;
}

/** Connect read-only. */
export async function connectReadOnly(url: string, uri: string): Promise<Client> {
  const pgm = (await import("pg")).default;
  const c = new pgm.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    options: "-c default_transaction_read_only=on",
  });
  c.on("error", () => undefined);
  try {
    await c.connect();
  } catch (e) {
    await c.end().catch(() => undefined);
    // one wording for every PostgreSQL connection (the start-it hint only when no server answers); a missing
    // database is a missing store: this connection only reads
    const d = describePgError(e, uri);
    if (d.missing) throw inputError("missing-store", d.message, {}, e);
    throw storeError("postgres-connect", d.message, {}, e);
  }
  return c;
}

/**
 * Connect (one pool of 4); a server that does not answer is a store error naming the URI. The sessions run without
 * JIT compilation (`-c jit=off`, after what PGOPTIONS sets): every statement here reaches rows
 * by key or thread, and on tables with no statistics yet (a store a migration just filled) the planner costs them in
 * the millions and compiles each one, ~0.4 s a statement, more than the work.
 */
export async function connectPool(url: string, uri: string): Promise<pg.Pool> {
  const { default: pgm } = await import("pg");
  const options = [process.env.PGOPTIONS, "-c jit=off"].filter(Boolean).join(" ");
  const pool = new pgm.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000, options });
  pool.on("error", () => undefined);
  try {
    await pool.query("SELECT 1");
  } catch (e) {
    await pool.end().catch(() => undefined);
    // one wording for every PostgreSQL connection; a store opened to write that cannot be reached is a store error
    throw storeError("postgres-connect", describePgError(e, uri).message, {}, e);
  }
  return pool;
}

/** What the schema holds: LangGraph tables (with migration level and task_path), ckpt's own table, or nothing. */
export async function inspectPgSchema(
  c: Queryable,
  schema: string,
  table = "ckpt_checkpoints",
): Promise<{ langgraph?: LgStoreInfo; ckpt: boolean }> {
  const cols = await c.query(PG_SCHEMA_COLUMNS, [schema, [...PG_LG_TABLES, table]]);
  const has = new Map<string, Set<string>>();
  for (const r of cols.rows)
    (has.get(r.table_name) ?? has.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
  const ckpt = has.has(table);
  if (!has.has("checkpoints") || !has.has("checkpoint_writes")) return { ckpt };
  let migration: number | undefined;
  if (has.has("checkpoint_migrations")) {
    const m = await c.query(pgMaxMigration(`${ident(schema)}.`));
    migration = m.rows[0]?.v ?? undefined;
  }
  return {
    ckpt,
    langgraph: {
      store: "postgres",
      schema,
      migration,
      taskPath: has.get("checkpoint_writes")!.has("task_path"),
      shallow: !has.get("checkpoints")!.has("checkpoint_id"),
    },
  };
}

/** The connections a store holds: each opened when first asked for (see the module comment). */
interface Connections {
  /** the read-only connection */
  ro(): Promise<Client>;
  /** the pool of the row-level store */
  rw(): Promise<pg.Pool>;
  /** another read-only connection (the scan's prefetch of orphan listings) */
  another(): Promise<Client>;
  close(): Promise<void>;
}

function connections(place: PgPlace, opened: { ro?: Client; rw?: pg.Pool }): Connections {
  let ro: Promise<Client> | undefined = opened.ro && Promise.resolve(opened.ro);
  let rw: Promise<pg.Pool> | undefined = opened.rw && Promise.resolve(opened.rw);
  return {
    ro: () => (ro ??= connectReadOnly(place.url, place.uri)),
    rw: () => (rw ??= connectPool(place.url, place.uri)),
    another: () => connectReadOnly(place.url, place.uri),
    async close() {
      const [c, p] = await Promise.all([ro?.catch(() => undefined), rw?.catch(() => undefined)]);
      await Promise.all([c?.end(), p?.end()]);
    },
  };
}

/** A PostgreSQL LangGraph store, with the pool of its row-level store (to look at its sessions' settings). */
export interface PgLangGraphStore extends LangGraphStore {
  rowPool(): Promise<pg.Pool>;
}

/** The LangGraph store over connections already opened (`opened`) or opened when needed. */
export function langGraphPostgres(
  place: PgPlace,
  info: LgStoreInfo,
  opened: { ro?: Client; rw?: pg.Pool } = {},
): PgLangGraphStore {
  if (info.shallow)
    throw storeError(
      "langgraph-shallow",
      `${place.uri}: a ShallowPostgresSaver layout (no checkpoint_id column): ckpt reads the PostgresSaver layout only`,
    );
  const conns = connections(place, opened);
  const S = `${ident(place.schema)}.`;
  const reader = withDeltaChannels(readerOf(conns, S, info, place.uri));
  const rows = rowStoreOf(conns, S, place);
  const stats = statsOf(conns, S, place.uri);
  return {
    ...reader,
    ...rows,
    storedMethod: stats.storedMethod,
    tables: stats.tables,
    rows: stats.rows,
    uri: place.uri,
    rowPool: conns.rw,
    async close() {
      await stats.end();
      await reader.close();
      await conns.close();
    },
  };
}

// ------------------------------------------------------------------------------------------------ reader

interface PgThreadRow {
  thread_id: string;
  n: string;
  sub: string;
  ns: string;
  newest: string | null;
  ts: string | null;
  step: unknown;
  bytes: number | null;
  vtype: string | null;
  wbytes: string | null;
  bbytes: string | null;
  mtype: string | null;
  /** the message count the server took from a json blob (null: not json, or not an array) */
  mcount: number | null;
  mblob: Buffer | null;
  /** the head's DeltaChannel counters (metadata) */
  counters: unknown;
}

function summaryOf(p: PgThreadRow): LgThreadSummary {
  let messages: number | null = p.mcount;
  if (p.mtype !== null && p.mtype !== "empty" && p.mblob !== null) {
    const v = decodeTyped(p.mtype, p.mblob, {
      row: { store: "postgres", table: "checkpoint_blobs", threadId: p.thread_id, namespace: "", channel: "messages" },
      pointer: "",
      issues: [],
    });
    messages = messageCount({ messages: v }); // a list, or a DeltaChannel snapshot's
  }
  const library: LgLibrary = p.vtype === "string" ? "python" : p.vtype === "number" ? "js" : "unknown";
  return {
    threadId: p.thread_id,
    checkpoints: Number(p.n),
    subgraphCheckpoints: Number(p.sub),
    namespaces: Number(p.ns),
    newestId: p.newest,
    newestStep: typeof p.step === "number" ? p.step : null,
    messages,
    bytes: (p.bytes ?? 0) + Number(p.wbytes ?? 0) + Number(p.bbytes ?? 0),
    updatedAt: p.ts || null,
    library,
    ...(p.counters && typeof p.counters === "object" ? { deltaChannels: Object.keys(p.counters) } : {}),
  };
}

const versionsOf = (r: RawCheckpointRow): Record<string, unknown> => {
  const v = (r.checkpoint as { channel_versions?: unknown } | null)?.channel_versions;
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
};

type Key = { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
const key3 = (r: Key) => `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`;
const key2 = (t: string, n: string) => `${t}\u0000${n}`;

const ORPHAN_PAGE = 1000;

type Query = <R>(sql: string, args?: unknown[]) => Promise<R[]>;
/** a query on the second connection: undefined when it (or the connection) failed */
type SideQuery = <R>(sql: string) => Promise<R[] | undefined>;
/** A query whose text conversion the server may refuse (invalid UTF-8, NUL): undefined then. */
type TextQuery = <R>(sql: string, args: unknown[]) => Promise<R[] | undefined>;

/**
 * Every row of an orphan query, in keyset pages over `cols` (its primary key, the query's ORDER BY): complete however
 * many there are, with memory bounded by the page. `sql(where)` builds the query; `where(alias)` is the keyset
 * condition (with its AND) or "" on the first page.
 */
async function* orphanPages<R extends Record<string, unknown>>(
  q: Query,
  cols: string[],
  sql: (where: (alias: string) => string) => string,
  first?: Promise<R[] | undefined>,
): AsyncIterable<R> {
  let last: R | undefined;
  let early = first && (await first); // the first page, when it was fetched ahead (see orphanQueries)
  for (;;) {
    const args = last ? cols.map((k) => last![k]) : [];
    const where = (a: string) =>
      last ? `(${cols.map((k) => `${a}.${k}`).join(", ")}) > (${cols.map((_, i) => `$${i + 1}`).join(", ")}) AND` : "";
    const rows = early ?? (await q<R>(`${sql(where)} LIMIT ${ORPHAN_PAGE}`, args));
    early = undefined;
    yield* rows;
    if (rows.length < ORPHAN_PAGE) return;
    last = rows[rows.length - 1];
  }
}

/** The blob rows and writes of a page of checkpoint rows, fetched before the page is decoded. */
interface PageParts {
  /** (thread, ns) → "channel\0version" → row */
  blobs: Map<string, Map<string, RawBlobRow>>;
  /** thread\0ns\0id → writes */
  writes: Map<string, RawWriteRow[]>;
}

interface TupleBuilder {
  tuplesOf: (rows: RawCheckpointRow[], withWrites?: boolean) => Promise<LgCheckpointTuple[]>;
  partsOf: (rows: RawCheckpointRow[], withWrites?: boolean, asText?: boolean) => Promise<PageParts>;
  decode: (rows: RawCheckpointRow[], parts: PageParts, lists?: ListDecoder) => Promise<LgCheckpointTuple[]>;
}

/** The decoded tuples of pages of checkpoint rows (their blob rows and writes in two queries), for a reader. */
function tupleBuilder(q: Query, S: string, info: LgStoreInfo, qText?: TextQuery): TupleBuilder {
  const keyArgs = (rows: Key[]) => [
    rows.map((r) => r.thread_id),
    rows.map((r) => r.checkpoint_ns),
    rows.map((r) => r.checkpoint_id),
  ];

  /** The decoded tuples of a page of checkpoint rows: their blob rows and writes in two queries. */
  async function tuplesOf(rows: RawCheckpointRow[], withWrites = true): Promise<LgCheckpointTuple[]> {
    if (rows.length === 0) return [];
    return decode(rows, await partsOf(rows, withWrites));
  }

  /** `asText` (and `qText`): json blobs come as their text (RawBlobRow.text); a page whose text the server refuses comes as bytes */
  async function partsOf(rows: RawCheckpointRow[], withWrites = true, asText = false): Promise<PageParts> {
    const want: string[][] = [[], [], [], []];
    for (const r of rows) {
      const versions = versionsOf(r);
      for (const [ch, v] of Object.entries(versions))
        want[0]!.push(r.thread_id), want[1]!.push(r.checkpoint_ns), want[2]!.push(ch), want[3]!.push(String(v));
    }
    const blobs = new Map<string, Map<string, RawBlobRow>>(); // (thread, ns) → "channel\0version" → row
    if (want[0]!.length) {
      type Row = RawBlobRow & { thread_id: string; checkpoint_ns: string };
      const got =
        (asText && qText && (await qText<Row>(PG_READ.blobs(S, PG_TEXT_COLS), want))) ||
        (await q<Row>(PG_READ.blobs(S, PG_BLOB_COLS), want));
      for (const b of got) {
        if (b.text === null) delete b.text;
        const k = key2(b.thread_id, b.checkpoint_ns);
        (blobs.get(k) ?? blobs.set(k, new Map()).get(k)!).set(`${b.channel}\u0000${b.version}`, b);
      }
    }
    const writes = new Map<string, RawWriteRow[]>();
    if (withWrites) {
      for (const w of await q<RawWriteRow & Key>(PG_READ.writes(S, Boolean(info.taskPath)), keyArgs(rows))) {
        const k = key3(w);
        (writes.get(k) ?? writes.set(k, []).get(k)!).push(w);
      }
    }
    return { blobs, writes };
  }

  async function decode(
    rows: RawCheckpointRow[],
    { blobs, writes }: PageParts,
    lists?: ListDecoder,
  ): Promise<LgCheckpointTuple[]> {
    const out = rows.map((r) => {
      const versions = versionsOf(r);
      const mine = blobs.get(key2(r.thread_id, r.checkpoint_ns));
      const own: RawBlobRow[] = [];
      for (const [ch, v] of Object.entries(versions)) {
        const b = mine?.get(`${ch}\u0000${String(v)}`);
        if (b) own.push(b);
      }
      return buildTuple("postgres", TABLES, r, writes.get(key3(r)) ?? [], own, lists);
    });
    for (const t of out) await withSends(t);
    return out;
  }

  /** The PostgreSQL savers' v<4 migration: when the parent has `__pregel_tasks` writes (Python orders them by task_path first). */
  async function withSends(t: LgCheckpointTuple): Promise<void> {
    if (!(t.parentId && typeof t.checkpoint.v === "number" && t.checkpoint.v < 4)) return;
    const sends = await q<RawWriteRow>(PG_READ.sends(S, Boolean(info.taskPath)), [t.threadId, t.namespace, t.parentId]);
    if (sends.length) applyPendingSends(t, sends, TABLES.writes);
  }
  return { tuplesOf, partsOf, decode };
}

const firstPage = (sql: (where: (alias: string) => string) => string) => `${sql(() => "")} LIMIT ${ORPHAN_PAGE}`;

/**
 * Rules 8 and 15's rows: writes without their checkpoint, blobs no checkpoint names (complete, streamed). These
 * anti-joins are the server's longest statements (seconds on a store of 200,000 checkpoints): `prefetch` runs their
 * first pages on a second connection while the scan reads on the first, and the listings start from those pages
 * (a prefetch that failed is asked again on the first connection, so its error comes where it always did).
 */
function orphanQueries(
  q: Query,
  S: string,
): Pick<LgReader, "orphanWrites" | "orphanBlobs"> & { prefetch(side: SideQuery): void } {
  type W = Key & { task_id: string; idx: number; channel: string };
  type B = { thread_id: string; checkpoint_ns: string; channel: string; version: string };
  const writesSql = (where: (alias: string) => string) => PG_READ.orphanWrites(S, where);
  const blobsSql = (where: (alias: string) => string) => PG_READ.orphanBlobs(S, where);
  const early: { writes?: Promise<W[] | undefined>; blobs?: Promise<B[] | undefined> } = {};
  return {
    prefetch(side) {
      if (early.writes || early.blobs) return;
      early.writes = side<W>(firstPage(writesSql));
      early.blobs = side<B>(firstPage(blobsSql));
    },
    async *orphanWrites(): AsyncIterable<LgRowRef> {
      const first = early.writes;
      early.writes = undefined;
      for await (const w of orphanPages<W>(
        q,
        ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"],
        writesSql,
        first,
      )) {
        yield {
          store: "postgres",
          table: "checkpoint_writes",
          threadId: w.thread_id,
          namespace: w.checkpoint_ns,
          checkpointId: w.checkpoint_id,
          taskId: w.task_id,
          idx: w.idx,
          channel: w.channel,
        };
      }
    },
    async *orphanBlobs(): AsyncIterable<LgRowRef> {
      const first = early.blobs;
      early.blobs = undefined;
      for await (const b of orphanPages<B>(q, ["thread_id", "checkpoint_ns", "channel", "version"], blobsSql, first)) {
        yield {
          store: "postgres",
          table: "checkpoint_blobs",
          threadId: b.thread_id,
          namespace: b.checkpoint_ns,
          channel: b.channel,
          version: b.version,
        };
      }
    },
  };
}

/**
 * Every checkpoint in (thread, namespace, id) order (of one thread with `threadId`), in keyset pages of `batchSize`
 * rows: a page's rows, blobs and writes are fetched while the page before it is decoded and consumed.
 */
async function* scanTuples(
  q: Query,
  S: string,
  build: Pick<TupleBuilder, "partsOf" | "decode">,
  options: { batchSize?: number; threadId?: string },
): AsyncIterable<LgCheckpointTuple[]> {
  const size = Math.max(1, options.batchSize ?? PAGE);
  const lists = new ListDecoder(); // a list blob that extends the previous checkpoint's is parsed from where it differs
  const fetchPage = async (last: RawCheckpointRow | undefined) => {
    const a: unknown[] = [];
    const w: string[] = [];
    if (options.threadId !== undefined) a.push(options.threadId), w.push(`thread_id = $${a.length}`);
    if (last)
      a.push(last.thread_id, last.checkpoint_ns, last.checkpoint_id),
        w.push(`(thread_id, checkpoint_ns, checkpoint_id) > ($${a.length - 2}, $${a.length - 1}, $${a.length})`);
    a.push(size);
    const rows = await q<RawCheckpointRow>(PG_READ.scan(S, w, a.length), a);
    return rows.length ? { rows, parts: await build.partsOf(rows, true, true) } : undefined;
  };
  let next = fetchPage(undefined);
  for (;;) {
    const page = await next;
    if (!page) return;
    const { rows, parts } = page;
    next = rows.length < size ? Promise.resolve(undefined) : fetchPage(rows[rows.length - 1]);
    next.catch(() => undefined); // awaited on the next round; a consumer that stops early closes the reader
    // decoded and handed on a few rows at a time, each row let go of as it is decoded: a tuple's checkpoint is its
    // row's object (the channel values are set on it), so rows held to the page's end kept the page's values alive
    // through young-generation GCs (promoted, then mark-compacted: 3.5× the bytes promoted on the bench store)
    // between chunks the event loop runs (setImmediate): the next page's replies are read and its next query sent
    // while this page is consumed (a consumer that never waits on I/O would otherwise hold them to the page's end,
    // leaving the page's three queries to run one after the other while nothing else does)
    while (rows.length) {
      yield await build.decode(rows.splice(0, DECODE_CHUNK), parts, lists);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** json blobs as text (PG_TEXT_COLS) when the server and the connection speak UTF-8; undefined when the server refuses a page's text */
function textQuery(c: () => Promise<Client>, q: Query, uri: string): TextQuery {
  let utf8: Promise<boolean> | undefined;
  return async <R>(sql: string, args: unknown[]) => {
    utf8 ??= q<{ ok: boolean }>(PG_READ.utf8).then((r) => r[0]?.ok === true);
    if (!(await utf8)) return undefined;
    try {
      return (await (await c()).query(sql, args)).rows as R[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      // 22021 invalid UTF-8 (or a NUL), 22P05 untranslatable character: the page is read as bytes
      if (code === "22021" || code === "22P05") return undefined;
      throw storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${(e as Error).message}`, {}, e);
    }
  };
}

/**
 * A DeltaChannel's parent chain (LgReader.deltaChain) in one round trip: to the first checkpoint that stores the
 * channel, its blob row at the checkpoint's version (not `empty`), or an inline JSONB value (Python keeps a
 * snapshot's sentinel `true` inline, the blob beside it), with the channel's writes of each checkpoint.
 */
interface PgChainRow {
  thread?: string;
  id: string;
  parent: string | null;
  btype: string | null;
  blob: Uint8Array | null;
  inline: unknown;
  has_inline: boolean;
  task_id: string | null;
  idx: number;
  wtype: string | null;
  wvalue: Uint8Array | null;
  task_path: string;
}

/** Chain rows (one per checkpoint and write, in chain order) grouped back into checkpoints. */
function chainRowsOf(rows: PgChainRow[], channel: string): DeltaChainRow[] {
  const out: DeltaChainRow[] = [];
  for (const r of rows) {
    let last = out[out.length - 1];
    if (last?.checkpointId !== r.id) {
      last = {
        checkpointId: r.id,
        parentId: r.parent,
        // the sentinel `true` with no blob row is a snapshot that is missing (the caller says so)
        value: r.btype === null && r.has_inline ? JSON.stringify(r.inline) : null,
        ...(r.btype !== null ? { stored: { type: r.btype, data: r.blob } } : {}),
        writes: [],
      };
      out.push(last);
    }
    if (r.task_id !== null)
      last.writes.push({
        task_id: r.task_id,
        idx: r.idx,
        channel,
        type: r.wtype,
        value: r.wvalue,
        task_path: r.task_path,
      });
  }
  return out;
}

function deltaChainOf(q: Query, S: string, info: LgStoreInfo): NonNullable<LgReader["deltaChain"]> {
  return async (threadId, namespace, fromId, channel, limit) =>
    chainRowsOf(
      await q<PgChainRow>(PG_READ.deltaChain(S, Boolean(info.taskPath)), [threadId, namespace, fromId, channel, limit]),
      channel,
    );
}

/** Many threads' chains in one round trip (`ls` of a DeltaChannel store: one query a page of threads). */
function deltaChainsOf(q: Query, S: string, info: LgStoreInfo): NonNullable<LgReader["deltaChains"]> {
  return async (starts, namespace, channel, limit) => {
    const rows = await q<PgChainRow & { thread: string; depth: number }>(
      PG_READ.deltaChains(S, Boolean(info.taskPath)),
      [starts.map((s) => s.threadId), starts.map((s) => s.fromId), namespace, channel, limit],
    );
    const byThread = new Map<string, Array<PgChainRow & { depth: number }>>();
    for (const r of rows) (byThread.get(r.thread) ?? byThread.set(r.thread, []).get(r.thread)!).push(r);
    const cmp = (a: string | null, b: string | null) =>
      a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
    return new Map(
      [...byThread].map(([t, rs]) => [
        t,
        chainRowsOf(
          rs.sort((a, b) => a.depth - b.depth || cmp(a.task_id, b.task_id) || a.idx - b.idx),
          channel,
        ),
      ]),
    );
  };
}

/** The reader's queries on the read-only connection: reading errors name the store. */
function readQueries(conns: Connections, S: string, uri: string) {
  const fail = (e: unknown) =>
    storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${(e as Error).message}`, {}, e);
  const q: Query = async <R>(sql: string, args: unknown[] = []): Promise<R[]> => {
    const c = await conns.ro();
    try {
      return (await c.query(sql, args)).rows as R[];
    } catch (e) {
      throw fail(e);
    }
  };
  /** a page of `ls` rows: message counts by the server, or (a JSON blob it cannot parse) by JS */
  const threadPage = async (after: string | undefined, n: number): Promise<PgThreadRow[]> => {
    const args: unknown[] = after === undefined ? [n] : [n, after];
    const c = await conns.ro();
    try {
      return (await c.query(pgThreadPageSql(S, after !== undefined, true), args)).rows as PgThreadRow[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      // 22P02 invalid JSON text, 22021 invalid UTF-8, 22P05 untranslatable character: JS decodes this page
      if (code !== "22P02" && code !== "22021" && code !== "22P05") throw fail(e);
      return q<PgThreadRow>(pgThreadPageSql(S, after !== undefined, false), args);
    }
  };
  return { q, threadPage };
}

function readerOf(conns: Connections, S: string, info: LgStoreInfo, uri: string): LgReader {
  const { q, threadPage } = readQueries(conns, S, uri);
  const build = tupleBuilder(q, S, info, textQuery(conns.ro, q, uri));
  const orphans = orphanQueries(q, S);
  let second: Promise<Client | undefined> | undefined;
  const side: SideQuery = async (sql) => {
    const c2 = await second;
    return c2?.query(sql).then(
      (r) => r.rows,
      () => undefined,
    );
  };
  const list = (options: LgListOptions = {}) => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (options.threadId !== undefined) args.push(options.threadId), where.push(`thread_id = $${args.length}`);
    if (options.namespace !== undefined) args.push(options.namespace), where.push(`checkpoint_ns = $${args.length}`);
    const page = (before: string | undefined, n: number) => {
      const a = [...args];
      const w = [...where];
      if (before !== undefined) a.push(before), w.push(`checkpoint_id < $${a.length}`);
      a.push(n);
      return q<RawCheckpointRow>(PG_READ.list(S, w, a.length), a);
    };
    return newestFirst(page, (rows) => build.tuplesOf(rows), options, PAGE);
  };
  const reader: LgReader = {
    uri,
    info,
    threads: (options = {}) => threadPages(threadPage, summaryOf, options),
    list,
    countThreads: async () => Number((await q<{ n: string }>(PG_READ.countThreads(S)))[0]!.n),
    namespacesOf: async (threadId) =>
      (await q<{ checkpoint_ns: string }>(PG_READ.namespaces(S), [threadId])).map((r) => r.checkpoint_ns),
    checkpointIds: (threadId, namespace = "") =>
      idPages((before, n) =>
        q(
          PG_READ.ids(S, before !== undefined),
          before !== undefined ? [threadId, namespace, n, before] : [threadId, namespace, n],
        ),
      ),
    history: (threadId, namespace = "") =>
      historyFrom(list({ threadId, namespace }), (id) => reader.getTuple(threadId, namespace, id)),
    async getTuple(threadId, namespace = "", checkpointId) {
      const rows =
        checkpointId === undefined
          ? await q<RawCheckpointRow>(PG_READ.newest(S), [threadId, namespace])
          : await q<RawCheckpointRow>(PG_READ.one(S), [threadId, namespace, checkpointId]);
      return (await build.tuplesOf(rows))[0];
    },
    scan(options = {}) {
      if (!second) {
        second = conns.another().catch(() => undefined);
        orphans.prefetch(side);
      }
      return scanTuples(q, S, build, options);
    },
    deltaChain: deltaChainOf(q, S, info),
    deltaChains: deltaChainsOf(q, S, info),
    orphanWrites: () => orphans.orphanWrites(),
    orphanBlobs: () => orphans.orphanBlobs(),
    async close() {
      const c2 = await second;
      await c2?.end().catch(() => undefined);
    },
  };
  return reader;
}

// ------------------------------------------------------------------------------------------------ row-level store

type CpKey = { threadId: string; ns: string; id: string };
type Wrap = <R>(what: string, f: () => Promise<R>) => Promise<R>;

/** What `write` and the read-back need of a checkpoint, computed once; its comparable form only when asked for. */
interface Staged {
  row: PgCheckpointRow;
  blobs: PgBlobRow[];
  versions: Record<string, unknown>;
  form?: PgForm;
}

/**
 * Stage checkpoints (in key order) for PostgreSQL: the rows `write` inserts. Two checkpoints of one (thread,
 * namespace) putting different values under one blob key are refused: the layout keys blobs by (thread, namespace,
 * channel, version) and cannot hold both.
 */
function makeStager(): {
  stage: (cp: LgCheckpoint, lib: Library) => Staged;
  form: (cp: LgCheckpoint, lib: Library) => PgForm;
} {
  const staged = new WeakMap<LgCheckpoint, Staged>();
  /** what each blob key of the (thread, ns) being staged holds, to catch two values under one key */
  let stagedFor = "";
  let stagedBlobs = new Map<string, PgBlobRow>();
  const stage = (cp: LgCheckpoint, lib: Library): Staged => {
    let s = staged.get(cp);
    if (s) return s;
    const { row, blobs, versions } = splitForPostgres(cp, lib, new Set());
    const tn = `${cp.threadId}\u0000${cp.ns}`;
    if (tn !== stagedFor) [stagedFor, stagedBlobs] = [tn, new Map()];
    for (let i = 0; i < blobs.length; i++) {
      const b = blobs[i]!;
      const k = `${b.channel}\u0000${b.version}`;
      const had = stagedBlobs.get(k);
      if (had === undefined) stagedBlobs.set(k, b);
      else if (b.type === "empty" && had.type !== "empty")
        blobs[i] = had; // a DeltaChannel version the snapshot row holds: the library writes no row, reads the snapshot
      else if (!sameBlob(had, b)) {
        throw storeError(
          "langgraph-blob-collision",
          `its '${b.channel}' value at version ${b.version} differs from the one another checkpoint of this thread has at the same version (a forked branch reached the same version): the PostgreSQL layout keys blobs by (thread, namespace, channel, version) and cannot hold both`,
        );
      } else blobs[i] = had; // the same value (maybe in other bytes: JS key order): the key keeps the first row, which the read-back finds
    }
    // a DeltaChannel left at a version an earlier checkpoint stored a snapshot under: the read-back has that row
    for (const [ch, v] of Object.entries(versions)) {
      const had = stagedBlobs.get(`${ch}\u0000${String(v)}`);
      if (had && had.type !== "empty" && !blobs.some((b) => b.channel === ch)) blobs.push(had);
    }
    s = { row, blobs, versions };
    staged.set(cp, s);
    return s;
  };
  const form = (cp: LgCheckpoint, lib: Library): PgForm => {
    const s = stage(cp, lib);
    return (s.form ??= pgForm(
      s.row.parentId,
      JSON.parse(s.row.checkpoint),
      JSON.parse(s.row.metadata),
      s.blobs,
      cp.writes,
    ));
  };
  return { stage, form };
}

/** Whether two blob rows hold the same value: the same type and bytes, else equal decoded values. */
const sameBlob = (a: PgBlobRow, b: PgBlobRow): boolean =>
  (a.type === b.type &&
    (a.blob === null ? b.blob === null : b.blob !== null && Buffer.compare(a.blob, b.blob) === 0)) ||
  sameValue(blobValueForm(a), blobValueForm(b));

interface PgRows {
  /** checkpoint rows with their JSONB as text */
  cps: Array<{
    thread_id: string;
    checkpoint_ns: string;
    checkpoint_id: string;
    parent_checkpoint_id: string | null;
    checkpoint: string;
    metadata: string;
  }>;
  /** `thread\0ns\0channel\0version` → blob */
  blobMap: Map<string, BlobValue>;
  writes: Array<readonly [string, LgWrite]>;
}

/**
 * The rows of `keys`: checkpoints and writes (two queries on two connections at once, by primary key), then the blobs
 * the checkpoints' channel_versions name, by primary key.
 */
async function readPgRows(pool: pg.Pool, S: string, taskPath: boolean, keys: CpKey[]): Promise<PgRows> {
  const args = [keys.map((k) => k.threadId), keys.map((k) => k.ns), keys.map((k) => k.id)];
  const [cpRes, wRes] = await Promise.all([
    pool.query(PG_ROWS.checkpoints(S), args),
    pool.query(PG_ROWS.writes(S, taskPath), args),
  ]);
  const cps = cpRes.rows as PgRows["cps"];
  const want: string[][] = [[], [], [], []];
  const seen = new Set<string>();
  for (const r of cps) {
    const cv = (JSON.parse(r.checkpoint) as { channel_versions?: unknown }).channel_versions;
    if (typeof cv !== "object" || cv === null || Array.isArray(cv)) continue;
    for (const [ch, v] of Object.entries(cv)) {
      const k = `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${ch}\u0000${String(v)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      want[0]!.push(r.thread_id), want[1]!.push(r.checkpoint_ns), want[2]!.push(ch), want[3]!.push(String(v));
    }
  }
  const blobMap = new Map<string, BlobValue>();
  if (want[0]!.length) {
    const blobs = await pool.query(PG_ROWS.blobs(S), want);
    for (const b of blobs.rows)
      blobMap.set(`${b.thread_id}\u0000${b.checkpoint_ns}\u0000${b.channel}\u0000${b.version}`, {
        type: b.type,
        blob: b.blob,
      });
  }
  const writes = wRes.rows.map(
    (w) =>
      [
        keyOf({ threadId: w.thread_id, ns: w.checkpoint_ns, id: w.checkpoint_id }),
        {
          taskId: w.task_id,
          idx: w.idx,
          channel: w.channel,
          type: w.type,
          value: w.blob,
          taskPath: w.task_path,
        } as LgWrite,
      ] as const,
  );
  return { cps, blobMap, writes };
}

/** The blobs (by channel) a checkpoint's channel_versions name. */
function blobsOf(
  cp: Record<string, unknown>,
  threadId: string,
  ns: string,
  blobMap: Map<string, BlobValue>,
): Map<string, BlobValue> {
  const out = new Map<string, BlobValue>();
  for (const [ch, v] of Object.entries((cp.channel_versions ?? {}) as Record<string, unknown>)) {
    const b = blobMap.get(`${threadId}\u0000${ns}\u0000${ch}\u0000${String(v)}`);
    if (b) out.set(ch, b);
  }
  return out;
}

/** A PostgreSQL checkpoint row (+ its blobs) in the SQLite layout. */
function assemble(r: PgRows["cps"][number], blobMap: Map<string, BlobValue>, fallback: Library): LgCheckpoint {
  const checkpoint = JSON.parse(r.checkpoint) as Record<string, unknown>;
  const lib = libraryOfVersions(checkpoint) ?? fallback;
  const a = assembleFromPostgres(
    { checkpoint, metadata: JSON.parse(r.metadata) },
    blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, blobMap),
    lib,
  );
  return {
    threadId: r.thread_id,
    ns: r.checkpoint_ns,
    id: r.checkpoint_id,
    parentId: r.parent_checkpoint_id,
    ...a,
    writes: [],
  };
}

/** The comparable forms (see pgForm) of what the store holds for `keys`. */
function readBackForms(rows: PgRows): Map<string, PgForm> {
  const out = new Map<string, PgForm>();
  const ws = new Map<string, LgWrite[]>();
  for (const [k, w] of rows.writes) (ws.get(k) ?? ws.set(k, []).get(k)!).push(w);
  for (const r of rows.cps) {
    const checkpoint = JSON.parse(r.checkpoint);
    const bl = [...blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, rows.blobMap)].map(([channel, b]) => ({
      channel,
      version: String(checkpoint.channel_versions[channel]),
      type: b.type,
      blob: b.blob,
    }));
    const k = keyOf({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id });
    out.set(k, pgForm(r.parent_checkpoint_id, checkpoint, JSON.parse(r.metadata), bl, ws.get(k) ?? []));
  }
  return out;
}

/** Every checkpoint (assembled, with writes) in key order, in pages of `batchSize`, of the threads `threads` accepts. */
async function* scanPgRows(
  pool: pg.Pool,
  S: string,
  wrap: Wrap,
  read: (keys: CpKey[]) => Promise<PgRows>,
  fallback: Library,
  batchSize: number,
  threads?: (id: string) => boolean,
): AsyncIterable<LgCheckpoint[]> {
  let after: string[] | undefined;
  for (;;) {
    const page = await wrap(
      "reading checkpoints",
      async () =>
        (after
          ? await pool.query(PG_ROWS.keysNext(S), [...after, batchSize])
          : await pool.query(PG_ROWS.keysFirst(S), [batchSize])
        ).rows,
    );
    if (page.length === 0) return;
    const last = page[page.length - 1]!;
    after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
    const keys = page
      .filter((r) => !threads || threads(r.thread_id))
      .map((r) => ({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id }));
    if (keys.length) {
      const { cps, blobMap, writes } = await wrap("reading checkpoints", () => read(keys));
      yield attachWrites(
        cps.map((r) => assemble(r, blobMap, fallback)),
        writes,
      );
    }
    if (page.length < batchSize) return;
  }
}

/** The library that wrote the store: a checkpoint's version types, else the migrations level; undefined when empty. */
async function pgLibrary(pool: pg.Pool, S: string): Promise<Library | undefined> {
  const r = (await pool.query(PG_ROWS.versionsOfOne(S))).rows[0];
  const byRow = r ? libraryOfVersions({ channel_versions: r.cv }) : undefined;
  if (byRow) return byRow;
  const v = (await pool.query(pgMaxMigration(S))).rows[0]?.v;
  return v === null || v === undefined ? undefined : v >= 9 ? "python" : "js";
}

/**
 * The library's setup(): its migrations after the recorded max(v), each recorded. Two first writers at once (two
 * migrations into one new schema) would race on the catalog (`IF NOT EXISTS` takes no lock; the loser fails on
 * pg_type's unique index): one session-level advisory lock per schema makes them take turns (not a transaction: some
 * migrations create indexes CONCURRENTLY), and the second finds the migrations recorded.
 */
async function pgSetup(pool: pg.Pool, schema: string, S: string, lib: Library): Promise<void> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    // tried, not waited for in a statement: a session waiting inside a query holds a snapshot, which the other's
    // CREATE INDEX CONCURRENTLY would wait for in turn (a deadlock)
    const key = `ckpt:langgraph-setup:${schema}`;
    for (
      let waited = 0;
      !(await c.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [key])).rows[0].ok;
    ) {
      if (waited > 120_000) throw new Error(`another session has been setting up schema ${schema} for 2 minutes`);
      await new Promise((r) => setTimeout(r, 50));
      waited += 50;
    }
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
      const list = migrations(lib, S);
      await c.query(list[0]!);
      const max = (await c.query(pgMaxMigration(S))).rows[0]?.v;
      for (let v = max === null || max === undefined ? 0 : max + 1; v < list.length; v++) {
        await c.query(list[v]!);
        await c.query(PG_ROWS.recordMigration(S), [v]);
      }
    } finally {
      await c.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
    }
  } catch (e) {
    broken = e as Error;
    throw e;
  } finally {
    c.release(broken);
  }
}

/** The blob rows a batch writes: one per blob key (checkpoints of a thread share blobs), new keys only unless `overwrite`. */
function blobWriter() {
  /** blob keys already inserted for the (thread, ns) being written (reset when it changes) */
  let seenFor = "";
  let seen = new Set<string>();
  return (batch: Array<{ cp: LgCheckpoint; blobs: PgBlobRow[] }>, overwrite: boolean): PgBlobRow[] => {
    const out: PgBlobRow[] = [];
    // one row per blob key in a batch (the stager made sure the values agree): an upsert cannot touch a row twice
    const inBatch = new Set<string>();
    for (const { cp, blobs } of batch) {
      const tn = `${cp.threadId}\u0000${cp.ns}`;
      if (tn !== seenFor) [seenFor, seen] = [tn, new Set()];
      for (const b of blobs) {
        const k = `${b.channel}\u0000${b.version}`;
        const kb = `${tn}\u0000${k}`;
        if ((overwrite || !seen.has(k)) && !inBatch.has(kb)) out.push(b);
        inBatch.add(kb);
        seen.add(k);
      }
    }
    return out;
  };
}

function rowStoreOf(conns: Connections, S: string, place: PgPlace): Omit<LgStore, "close"> {
  const { schema, uri } = place;
  const wrap: Wrap = async (what, f) => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("postgres-io", `${what} (${uri}): ${(e as Error).message}`, {}, e);
    }
  };
  const hasLayout = async () => {
    const pool = await conns.rw();
    const t = new Set((await pool.query(PG_ROWS.tables, [schema])).rows.map((r) => r.table_name as string));
    return t.has("checkpoints") && t.has("checkpoint_blobs") && t.has("checkpoint_writes");
  };
  let taskPath: boolean | undefined;
  const hasTaskPath = async () =>
    (taskPath ??= (await (await conns.rw()).query(PG_ROWS.taskPath, [schema])).rowCount! > 0);
  /** whether the tables take binary COPY rows (their column types are the libraries'), found on the first write */
  let copyOk: boolean | undefined;
  const read = async (keys: CpKey[]) => readPgRows(await conns.rw(), S, await hasTaskPath(), keys);
  const stager = makeStager();
  const blobsToWrite = blobWriter();
  const library = () =>
    wrap("reading the schema", async () => ((await hasLayout()) ? pgLibrary(await conns.rw(), S) : undefined));
  return {
    kind: "postgres",
    uri,
    hasLayout: () => wrap("reading the schema", hasLayout),
    library,
    setup: (lib) =>
      wrap("setting up the LangGraph tables", async () => {
        await pgSetup(await conns.rw(), schema, S, lib);
        taskPath = undefined;
        copyOk = undefined;
      }),
    count: () =>
      wrap("counting checkpoints", async () =>
        (await hasLayout()) ? Number((await (await conns.rw()).query(PG_ROWS.count(S))).rows[0].n) : 0,
      ),
    async *scanRows(batchSize, threads) {
      yield* scanPgRows(await conns.rw(), S, wrap, read, (await library()) ?? "js", batchSize, threads);
    },
    load: (keys, lib) =>
      wrap("reading checkpoints", async () => {
        const out = new Map<string, LgCheckpoint>();
        if (!keys.length || !(await hasLayout())) return out;
        const { cps, blobMap, writes } = await read(keys);
        for (const cp of attachWrites(
          cps.map((r) => assemble(r, blobMap, lib)),
          writes,
        ))
          out.set(keyOf(cp), cp);
        return out;
      }),
    stage: (cp, lib) => void stager.stage(cp, lib),
    stagedForm: (cp, lib) => stager.form(cp, lib),
    sameForm: sameValue,
    verifyWritten: (written) =>
      wrap("reading checkpoints back", async () =>
        verifyWritten(
          await conns.rw(),
          S,
          written.map(({ cp, lib }) => ({ cp, ...stager.stage(cp, lib) })),
        ),
      ),
    write: (cps, o: WriteOptions) =>
      wrap("writing checkpoints", async () => {
        const staged = cps.map((cp) => ({ cp, ...stager.stage(cp, o.library) }));
        const blobs = blobsToWrite(staged, o.overwrite);
        const pool = await conns.rw();
        copyOk ??= await copyTypesOk(pool, schema);
        await insertAll(
          pool,
          S,
          staged.map((s) => s.row),
          blobs,
          cps,
          {
            overwrite: o.overwrite,
            taskPath: await hasTaskPath(),
            copyOk,
          },
        );
      }),
    readBack: (keys) =>
      wrap("reading checkpoints back", async () =>
        keys.length ? readBackForms(await read(keys)) : new Map<string, PgForm>(),
      ),
    threadPage: (after, limit) =>
      wrap("listing threads", async () => ((await hasLayout()) ? pgThreadPage(await conns.rw(), S, after, limit) : [])),
    heads: (threads) => wrap("reading checkpoints", async () => pgHeads(await conns.rw(), S, threads)),
    prunePage: (threads, plan, o) => wrap("pruning", async () => pgPrunePage(await conns.rw(), S, threads, plan, o)),
    pruneStart: () =>
      wrap("pruning", async () => String((await (await conns.rw()).query(PG_PRUNE.pruneStartMark)).rows[0].x)),
    vacuum: (o) => wrap("vacuuming", async () => pgVacuum(await conns.rw(), S, schema, o.dryRun)),
  };
}

/** `VACUUM` of the three tables (each outside a transaction, as VACUUM must run), with their sizes before and after. */
async function pgVacuum(pool: pg.Pool, S: string, schema: string, dryRun: boolean): Promise<VacuumReport> {
  const sizes = async () =>
    new Map(
      (await pool.query(PG_PRUNE.tableSizes, [schema])).rows.map((r) => [r.name as string, Number(r.size)] as const),
    );
  const before = await sizes();
  if (!dryRun) for (const t of before.keys()) await pool.query(PG_PRUNE.vacuum(S, t));
  const after = dryRun ? before : await sizes();
  return { parts: [...before].map(([name, b]) => ({ name, before: b, after: after.get(name) ?? b })) };
}

/** A blob's value for comparison: JSON decoded (JS's `{lc:2,type:"undefined"}` = an absent key), other types as bytes. */
interface BlobForm {
  type: string;
  value: unknown;
}

/**
 * One checkpoint's PostgreSQL rows (checkpoint, referenced blobs, writes) as decoded values: the JSONB documents
 * parsed, json blobs decoded, other payloads as bytes. Compared with `sameForm` (JSONB's own key order does not
 * matter, bytes compare byte for byte).
 */
interface PgForm {
  parentId: string | null;
  checkpoint: unknown;
  metadata: unknown;
  /** [channel, version, value], by channel */
  blobs: Array<[string, string, BlobForm]>;
  /** [task, idx, channel, type, bytes], by task and idx */
  writes: Array<[string, number, string, string | null, Uint8Array]>;
}

function blobValueForm(b: { type: string; blob: Uint8Array | null }): BlobForm {
  if (b.type === "json" && b.blob)
    return {
      type: b.type,
      value: dropUndefined(
        JSON.parse(Buffer.from(b.blob.buffer, b.blob.byteOffset, b.blob.byteLength).toString("utf8")),
      ),
    };
  return { type: b.type, value: b.blob === null ? null : b.blob };
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = dropUndefined(v[i]);
    return v;
  }
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (
      x &&
      typeof x === "object" &&
      (x as { lc?: unknown }).lc === 2 &&
      (x as { type?: unknown }).type === "undefined"
    )
      delete o[k];
    else o[k] = dropUndefined(x);
  }
  return o;
}

/** Equality of decoded values: JSON-like values with object key order ignored; byte arrays byte for byte. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(y, k) || !sameValue(x[k], y[k])) return false;
    n++;
  }
  for (const _k in y) n--;
  return n === 0;
}

const byFirst = <T extends [string, ...unknown[]]>(a: T, b: T) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function pgForm(
  parentId: string | null,
  checkpoint: unknown,
  metadata: unknown,
  blobs: Array<{ channel: string; version: string; type: string; blob: Uint8Array | null }>,
  writes: LgWrite[],
): PgForm {
  const bl = blobs.map((b): [string, string, BlobForm] => [b.channel, b.version, blobValueForm(b)]).sort(byFirst);
  const ws = [...writes]
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx))
    .map((w): PgForm["writes"][number] => [w.taskId, w.idx, w.channel, w.type, w.value]);
  return { parentId, checkpoint, metadata, blobs: bl, writes: ws };
}

/**
 * Insert one batch of rows in one transaction. New rows go in with binary COPY (one stream per table, no SQL or
 * parameters per row, bytea as bytes) when the tables have the library's column types (`copyOk`), inside a savepoint;
 * when one of them already exists (unique violation: a resumed run, or another writer) the savepoint is rolled back
 * and the batch is upserted instead (three multi-row inserts over unnest arrays, ON CONFLICT as the libraries write).
 * `overwrite`, and tables of other column types, go straight to the upsert.
 */
async function insertAll(
  pool: pg.Pool,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  o: { overwrite: boolean; taskPath: boolean; copyOk: boolean },
): Promise<void> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query("BEGIN");
    if (o.overwrite || !o.copyOk || !(await copyAll(c, S, rows, blobs, cps, o.taskPath)))
      await upsertAll(c, S, rows, blobs, cps, o.overwrite, o.taskPath);
    await c.query("COMMIT");
  } catch (e) {
    broken = e as Error;
    await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}

/** The column types `copyAll`'s binary rows are made for (the libraries' DDL, `migrations`); other columns take their defaults. */
const COPY_TYPES: Record<string, Record<string, string>> = {
  checkpoints: {
    thread_id: "text",
    checkpoint_ns: "text",
    checkpoint_id: "text",
    parent_checkpoint_id: "text",
    checkpoint: "jsonb",
    metadata: "jsonb",
  },
  checkpoint_blobs: {
    thread_id: "text",
    checkpoint_ns: "text",
    channel: "text",
    version: "text",
    type: "text",
    blob: "bytea",
  },
  checkpoint_writes: {
    thread_id: "text",
    checkpoint_ns: "text",
    checkpoint_id: "text",
    task_id: "text",
    idx: "integer",
    channel: "text",
    type: "text",
    blob: "bytea",
    task_path: "text",
  },
};

/** Whether the three tables of `schema` have the column types binary COPY rows are made for. */
async function copyTypesOk(pool: pg.Pool, schema: string): Promise<boolean> {
  const r = await pool.query(PG_ROWS.columnTypes, [schema, Object.keys(COPY_TYPES)]);
  const have = new Map(r.rows.map((x) => [`${x.table_name}.${x.column_name}`, x.data_type as string]));
  return Object.entries(COPY_TYPES).every(([t, cols]) =>
    Object.entries(cols).every(
      ([col, type]) => (col === "task_path" && !have.has(`${t}.${col}`)) || have.get(`${t}.${col}`) === type,
    ),
  );
}

/** COPY the batch's rows into the three tables inside a savepoint; false (nothing kept) when a row already exists. */
async function copyAll(
  c: pg.PoolClient,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  taskPath: boolean,
): Promise<boolean> {
  const { CopyBinary, copyBinary } = await import("../postgres-copy.js");
  await c.query("SAVEPOINT ckpt_lg_copy");
  try {
    const cpRows = new CopyBinary();
    for (const r of rows)
      cpRows.row(6).text(r.threadId).text(r.ns).text(r.id).text(r.parentId).jsonb(r.checkpoint).jsonb(r.metadata);
    await copyBinary(c, PG_ROWS.copyCheckpoints(S), cpRows.done());
    if (blobs.length) {
      const bl = new CopyBinary();
      for (const b of blobs)
        bl.row(6).text(b.threadId).text(b.ns).text(b.channel).text(b.version).text(b.type).bytea(b.blob);
      await copyBinary(c, PG_ROWS.copyBlobs(S), bl.done());
    }
    const ws = new CopyBinary();
    for (const cp of cps) {
      for (const w of cp.writes) {
        ws.row(taskPath ? 9 : 8)
          .text(cp.threadId)
          .text(cp.ns)
          .text(cp.id)
          .text(w.taskId)
          .int4(w.idx)
          .text(w.channel)
          .text(w.type)
          .bytea(w.value);
        if (taskPath) ws.text(w.taskPath);
      }
    }
    if (ws.rows) await copyBinary(c, PG_ROWS.copyWrites(S, taskPath), ws.done());
    await c.query("RELEASE SAVEPOINT ckpt_lg_copy");
    return true;
  } catch (e) {
    if ((e as { code?: string }).code !== "23505") throw e;
    await c.query("ROLLBACK TO SAVEPOINT ckpt_lg_copy");
    return false;
  }
}

/** Upsert the batch: three multi-row inserts over unnest arrays (checkpoints updated with `overwrite`, else kept). */
async function upsertAll(
  c: pg.PoolClient,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  overwrite: boolean,
  taskPath: boolean,
): Promise<void> {
  await c.query(PG_ROWS.upsertCheckpoints(S, overwrite), [
    rows.map((r) => r.threadId),
    rows.map((r) => r.ns),
    rows.map((r) => r.id),
    rows.map((r) => r.parentId),
    rows.map((r) => r.checkpoint),
    rows.map((r) => r.metadata),
  ]);
  if (blobs.length) {
    await c.query(PG_ROWS.upsertBlobs(S, overwrite), [
      blobs.map((b) => b.threadId),
      blobs.map((b) => b.ns),
      blobs.map((b) => b.channel),
      blobs.map((b) => b.version),
      blobs.map((b) => b.type),
      blobs.map((b) => (b.blob ? Buffer.from(b.blob) : null)),
    ]);
  }
  const ws = cps.flatMap((cp) => cp.writes.map((w) => ({ cp, w })));
  if (overwrite)
    await c.query(PG_ROWS.deleteWrites(S), [cps.map((x) => x.threadId), cps.map((x) => x.ns), cps.map((x) => x.id)]);
  if (ws.length) {
    const params: unknown[] = [
      ws.map((x) => x.cp.threadId),
      ws.map((x) => x.cp.ns),
      ws.map((x) => x.cp.id),
      ws.map((x) => x.w.taskId),
      ws.map((x) => x.w.idx),
      ws.map((x) => x.w.channel),
      ws.map((x) => x.w.type),
      ws.map((x) => Buffer.from(x.w.value)),
    ];
    if (taskPath) params.push(ws.map((x) => x.w.taskPath));
    await c.query(PG_ROWS.insertWrites(S, taskPath), params);
  }
}

// ------------------------------------------------------------------------------------------------ verification

/**
 * Read-back verification of LangGraph checkpoints written to PostgreSQL, compared where the rows are (as ckpt's own
 * PostgreSQL saver's verifyMany does): for every checkpoint the server hashes its row — parent id, the checkpoint
 * and metadata JSONB as PostgreSQL prints them back, and its pending writes with the md5 of each write's bytes — and
 * every blob key the checkpoint's `channel_versions` name is looked up (type and md5 of the bytes, or no row). The
 * same hashes are computed here from the rows written (the JSONB went in as `jsonbText`, which prints back byte for
 * byte the same), and only the indices that differ come back: a batch's read-back moves no payload. A checkpoint whose
 * hash differs is not yet a mismatch — the caller reads it back and compares decoded values (`readBack`, `sameForm`),
 * which decide; the hashes only spare that work when the rows are exactly the ones written.
 */
interface WrittenRows {
  cp: LgCheckpoint;
  row: PgCheckpointRow;
  /** the blobs the checkpoint's own values make (channel → its row) */
  blobs: PgBlobRow[];
  /** the checkpoint's channel_versions */
  versions: Record<string, unknown>;
}

const md5 = (b: Uint8Array | string) => hexDigest("md5", b);
/** what a blob key must hold, per blob row (a thread's checkpoints share their blob rows, across batches too) */
const wanted = new WeakMap<PgBlobRow, string>();
/** md5 of the bytes (or "-" for NULL) then the type */
const blobWant = (b: PgBlobRow): string => {
  let w = wanted.get(b);
  if (w === undefined) wanted.set(b, (w = `${b.blob === null ? "-" : md5(b.blob)}${b.type}`));
  return w;
};
const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
const byTaskIdx = (a: LgWrite, b: LgWrite) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx);

/** The text the server builds for a checkpoint row and its writes (json_build_array / json_agg print it this way). */
function rowText(row: PgCheckpointRow, writes: LgWrite[]): string {
  let ws = "null";
  if (writes.length) {
    const sorted = writes.length > 1 ? [...writes].sort(byTaskIdx) : writes;
    ws = `[${sorted.map((w) => `[${str(w.taskId)}, ${w.idx}, ${str(w.channel)}, ${str(w.type)}, "${md5(w.value)}"]`).join(", ")}]`;
  }
  return `[${str(row.parentId)}, ${row.checkpoint}, ${row.metadata}, ${ws}]`;
}

type Check = { b: PgBlobRow | undefined; n: number };

/** The checkpoint's own blob row for (channel, version), if it made one. */
function ownBlob(own: PgBlobRow[], ch: string, v: string): PgBlobRow | undefined {
  for (const x of own) if (x.channel === ch && x.version === v) return x;
  return undefined;
}

/** The hashes to compare: one per checkpoint, one per distinct blob key (with the checkpoints that rely on it). */
function verifyParams(written: WrittenRows[]) {
  const cps: string[][] = [[], [], [], []];
  const blobs: Array<Array<string | null>> = [[], [], [], [], []];
  /** (blob check, checkpoint that relies on it) pairs, flat */
  const users: number[] = [];
  let nChecks = 0;
  /** channel → version → the checks so far of the (thread, namespace) at hand, by the row expected there
   * (checkpoints of a thread share their blob rows) */
  let scope: { t: string; ns: string } | undefined;
  let at = new Map<string, Map<string, Check[]>>();
  for (let i = 0; i < written.length; i++) {
    const { cp, row, blobs: own, versions } = written[i]!;
    cps[0]!.push(cp.threadId), cps[1]!.push(cp.ns), cps[2]!.push(cp.id), cps[3]!.push(md5(rowText(row, cp.writes)));
    if (scope?.t !== cp.threadId || scope.ns !== cp.ns) [scope, at] = [{ t: cp.threadId, ns: cp.ns }, new Map()];
    for (const ch in versions) {
      const v = String(versions[ch]);
      const b = ownBlob(own, ch, v);
      let byVersion = at.get(ch);
      if (!byVersion) at.set(ch, (byVersion = new Map()));
      let checks = byVersion.get(v);
      if (!checks) byVersion.set(v, (checks = []));
      let check: Check | undefined;
      for (const c of checks) if (c.b === b) check = c;
      if (!check) {
        checks.push((check = { b, n: nChecks++ }));
        // what the key must hold: md5 of the bytes (or "-" for NULL) then the type; null when no row may exist
        blobs[0]!.push(cp.threadId),
          blobs[1]!.push(cp.ns),
          blobs[2]!.push(ch),
          blobs[3]!.push(v),
          blobs[4]!.push(b ? blobWant(b) : null);
      }
      users.push(check.n, i);
    }
  }
  return { cps, blobs, users };
}

/** For each of `written`, whether its stored rows are exactly the ones written (false: look closer). */
async function verifyWritten(pool: pg.Pool, S: string, written: WrittenRows[]): Promise<boolean[]> {
  const ok = written.map(() => true);
  const { cps, blobs, users } = verifyParams(written);
  const res = await pool.query(PG_ROWS.verify(S), [...cps, ...blobs].map(textArray));
  for (const r of res.rows as Array<{ kind: string; n: string }>) {
    if (r.kind === "c") ok[Number(r.n) - 1] = false;
    else {
      const n = Number(r.n) - 1;
      for (let k = 0; k < users.length; k += 2) if (users[k] === n) ok[users[k + 1]!] = false;
    }
  }
  return ok;
}

// ------------------------------------------------------------------------------------------------ prune

async function pgThreadPage(pool: pg.Pool, S: string, after: string | undefined, limit: number): Promise<string[]> {
  const r = await pool.query(
    PG_PRUNE.threadPage(S, after !== undefined),
    after === undefined ? [limit] : [limit, after],
  );
  return r.rows.map((x) => x.id as string);
}

type PgHeadRow = [string, string, string, string | null, number | null, unknown];
const pgHead = (x: PgHeadRow): PruneHead => ({
  ns: x[1],
  id: x[2],
  parentId: x[3],
  bytes: x[4] ?? 0,
  deltaCounters: counters(x[5]),
});

async function pgHeads(pool: pg.Pool, S: string, threads: string[]): Promise<Map<string, PruneHead[]>> {
  const out = new Map<string, PruneHead[]>(threads.map((t) => [t, []]));
  const r = await pool.query<PgHeadRow>({
    text: PG_PRUNE.heads(S),
    values: [JSON.stringify(threads)],
    rowMode: "array",
  });
  for (const x of r.rows) out.get(x[0])!.push(pgHead(x));
  return out;
}

/**
 * One page: the threads' checkpoints in one query (no payloads), each thread planned and let go, then the planned keys
 * deleted in one transaction, with the touched threads' orphan writes and blobs. A dry run does the same and rolls back.
 * Every delete deletes planned checkpoints by id (never "the thread"), so a checkpoint written after the prune started
 * is never touched; orphan writes count only below the start id.
 */
async function pgPrunePage(
  pool: pg.Pool,
  S: string,
  threads: string[],
  plan: PlanFn,
  o: { startId: string; startMark?: string; dryRun: boolean },
): Promise<PruneCounts> {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const heads = await pgHeads(pool, S, threads);
  const kt: string[] = [];
  const kn: string[] = [];
  const ki: string[] = [];
  const touched: string[] = [];
  for (const t of threads) {
    const p = plan(t, heads.get(t)!);
    heads.delete(t);
    if (p.remove.length || p.whole) touched.push(t);
    for (const h of p.remove) kt.push(t), kn.push(h.ns), ki.push(h.id);
  }
  if (touched.length === 0) return c; // nothing planned: the statements below would match no row
  const client = await pool.connect();
  let broken: Error | undefined;
  const counted = async (sql: string, params: unknown[]) => {
    const r = (await client.query(PG_PRUNE.counted(sql), params)).rows[0];
    c.bytes += Number(r.b);
    return r.n as number;
  };
  try {
    await client.query("BEGIN");
    // every statement below reaches a page's rows by key or thread: without statistics (a store a migration just
    // filled) the planner reads whole tables for them instead, each page again. (OFFSET 0 keeps the blob check a lookup
    // per blob row: as an anti-join it walked the checkpoints' index from the first thread to the page's.)
    await client.query("SET LOCAL enable_seqscan = off");
    const param = [kt, kn, ki];
    c.writes += await counted(PG_PRUNE.deleteWrites(S), param);
    c.checkpoints += await counted(PG_PRUNE.deleteCheckpoints(S), param);
    c.orphanWrites += await counted(PG_PRUNE.deleteOrphanWrites(S), [touched, o.startId]);
    c.blobs += await counted(PG_PRUNE.deleteOrphanBlobs(S), [touched, o.startMark ?? null]);
    await client.query(o.dryRun ? "ROLLBACK" : "COMMIT");
  } catch (e) {
    broken = e as Error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    client.release(broken);
  }
  return c;
}

// ------------------------------------------------------------------------------------------------ stats

/**
 * The stats source: one snapshot for the whole report (a read-only REPEATABLE READ transaction on the read-only
 * connection, begun when first asked for), table sizes from `pg_total_relation_size` (table + indexes + TOAST).
 */
function statsOf(conns: Connections, S: string, uri: string): LgStats & { end(): Promise<void> } {
  const wrap = async <R>(what: string, f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      throw storeError("postgres-io", `${what} (${uri}): ${(e as Error).message}`, {}, e);
    }
  };
  let snapshot: Promise<Client> | undefined;
  const client = () =>
    (snapshot ??= wrap("starting a read-only transaction", async () => {
      const c = await conns.ro();
      await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return c;
    }));
  return {
    storedMethod: "pg_total_relation_size",
    tables: async () => {
      const c = await client();
      return wrap("measuring the tables", () => pgTables(c, S));
    },
    async *rows(o) {
      yield* pgRows(await client(), S, o, wrap);
    },
    async end() {
      const c = await snapshot?.catch(() => undefined);
      await c?.query("COMMIT").catch(() => undefined);
    },
  };
}

async function pgTables(c: Client, S: string): Promise<StatTable[]> {
  const out: StatTable[] = [];
  for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
    const exists = (await c.query(PG_STATS.exists, [`${S}${ident(t)}`])).rows[0].r;
    if (!exists) continue;
    const r = (await c.query(PG_STATS.size(S, t), [`${S}${ident(t)}`])).rows[0];
    out.push({ table: t, rows: Number(r.n), storedBytes: Number(r.b) });
  }
  return out;
}

type StatWrap = <R>(w: string, f: () => Promise<R>) => Promise<R>;

async function* pgRows(c: Client, S: string, o: StatRowsOptions, wrap: StatWrap): AsyncIterable<StatBatch> {
  const batch = Math.max(1, o.batchSize ?? 500);
  const hasBlobs = (await c.query(PG_STATS.exists, [`${S}checkpoint_blobs`])).rows[0].r !== null;
  const next = (after: string | undefined, n: number) =>
    wrap("listing threads", async () =>
      (after === undefined
        ? await c.query(PG_STATS.firstThreads(S), [n])
        : await c.query(PG_STATS.nextThreads(S), [n, after])
      ).rows.map((r) => r.thread_id as string),
    );
  const paged = (what: string, select: string, key: string[], threads: string[]) =>
    pgPaged(c, wrap, what, select, key, threads, batch);
  for await (const page of statThreadPages(next, o)) {
    const threads = threadsOf(page);
    for await (const rows of paged(
      "reading checkpoints",
      PG_STATS.checkpoints(S),
      ["thread_id", "checkpoint_ns", "checkpoint_id"],
      threads,
    )) {
      yield {
        table: "checkpoints",
        rows: rows.map((r) => ({
          threadId: r.thread_id,
          ns: r.checkpoint_ns,
          id: r.checkpoint_id,
          type: null,
          checkpoint: null,
          checkpointBytes: Number(r.cb),
          metadataBytes: Number(r.mb),
          ts: r.ts,
          versions: r.versions,
          inline: r.inline,
        })),
      };
    }
    if (hasBlobs) {
      const key = ["thread_id", "checkpoint_ns", "channel", "version"];
      for await (const rows of paged("reading blobs", PG_STATS.blobs(S), key, threads)) {
        yield {
          table: "blobs",
          rows: rows.map((r) => ({
            threadId: r.thread_id,
            ns: r.checkpoint_ns,
            channel: r.channel,
            version: r.version,
            type: r.type,
            blob: r.blob,
          })),
        };
      }
    }
    const wKey = ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"];
    for await (const rows of paged("reading writes", PG_STATS.writes(S), wKey, threads)) {
      yield {
        table: "writes",
        rows: rows.map((r) => ({
          threadId: r.thread_id,
          ns: r.checkpoint_ns,
          checkpointId: r.checkpoint_id,
          channel: r.channel,
          type: r.type,
          value: r.blob ?? new Uint8Array(0),
        })),
      };
    }
    yield { table: "page", threads };
  }
}

/** `select` (with `$1` = the page's threads) in key order, `batch` rows at a time (keyset on `key`). */
async function* pgPaged(
  c: Client,
  wrap: StatWrap,
  what: string,
  select: string,
  key: string[],
  threads: string[],
  batch: number,
) {
  let after: unknown[] | undefined;
  const order = key.join(", ");
  for (;;) {
    const params: unknown[] = [threads, batch];
    let sql = `${select} ORDER BY ${order} LIMIT $2`;
    if (after) {
      const ph = after.map((_, i) => `$${i + 3}`).join(", ");
      sql = `${select} AND (${order}) > (${ph}) ORDER BY ${order} LIMIT $2`;
      params.push(...after);
    }
    const rows = (await wrap(what, () => c.query(sql, params))).rows;
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    const l = rows[rows.length - 1]!;
    after = key.map((k) => l[k]);
  }
}
