/**
 * Reading a LangGraph PostgreSQL store (Python or JS `PostgresSaver`, LANGGRAPH.md §1.2-1.3) in `?schema=`:
 * `checkpoints` (JSONB), `checkpoint_blobs`, `checkpoint_writes` (+ `task_path` after Python migration 9),
 * `checkpoint_migrations`. One connection with `default_transaction_read_only=on`: nothing is created or altered.
 * Every listing pages by key (no server-side state), so memory is bounded by the page.
 */
import { inputError, storeError } from "../../base/errors.js";
import { describePgError } from "../postgres.js";
import type {
  LgCheckpointTuple,
  LgHistoryEntry,
  LgLibrary,
  LgListOptions,
  LgReader,
  LgRowRef,
  LgStoreInfo,
  LgThreadSummary,
} from "../../formats/langgraph/types.js";
import {
  applyPendingSends,
  buildTuple,
  type RawBlobRow,
  type RawCheckpointRow,
  type RawWriteRow,
} from "../../formats/langgraph/tuple.js";
import { decodeTyped } from "../../formats/langgraph/serde.js";
import { ListDecoder } from "../../formats/langgraph/list-decode.js";
import { historyFrom } from "./sqlite.js";

type Client = import("pg").Client;
const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';
const PAGE = 200;
/** scan: tuples decoded and yielded at a time (see scan) */
const DECODE_CHUNK = 20;
const TABLES = { checkpoints: "checkpoints", writes: "checkpoint_writes", blobs: "checkpoint_blobs" };

/** Connect read-only. */
export async function connectReadOnly(url: string, uri: string): Promise<Client> {
  const pg = (await import("pg")).default;
  const c = new pg.Client({
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

/** What the schema holds: LangGraph tables (with migration level and task_path), ckpt's own table, or nothing. */
export async function inspectPgSchema(
  c: Client,
  schema: string,
  table = "ckpt_checkpoints",
): Promise<{ langgraph?: LgStoreInfo; ckpt: boolean }> {
  const cols = await c.query(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[])",
    [schema, ["checkpoints", "checkpoint_writes", "checkpoint_blobs", "checkpoint_migrations", table]],
  );
  const has = new Map<string, Set<string>>();
  for (const r of cols.rows)
    (has.get(r.table_name) ?? has.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
  const ckpt = has.has(table);
  if (!has.has("checkpoints") || !has.has("checkpoint_writes")) return { ckpt };
  let migration: number | undefined;
  if (has.has("checkpoint_migrations")) {
    const m = await c.query(`SELECT max(v) AS v FROM ${ident(schema)}.checkpoint_migrations`);
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

/**
 * One statement per page of threads: counts per thread (primary-key index), the newest root checkpoint, its sizes
 * (row + referenced blobs + writes) and its message count. A `json` messages blob is counted by the server
 * (`inSql`: nothing but the number crosses the wire, so memory stays flat however many threads there are); other
 * serdes (msgpack) come back as bytes and are decoded here. A page whose JSON the server cannot parse is re-read
 * with `inSql` off (JS decodes and reports it).
 */
const VERSIONS =
  "CASE WHEN jsonb_typeof(c.checkpoint->'channel_versions') = 'object' THEN c.checkpoint->'channel_versions' ELSE '{}'::jsonb END";

function threadPageSql(S: string, paged: boolean, inSql: boolean): string {
  const count = inSql
    ? `CASE WHEN m.type = 'json' THEN (SELECT CASE WHEN json_typeof(j) = 'array' THEN json_array_length(j) END FROM (SELECT convert_from(m.blob, 'UTF8')::json AS j) x) END`
    : "NULL";
  return `WITH g AS (SELECT thread_id, count(*) FILTER (WHERE checkpoint_ns = '') AS n, count(*) FILTER (WHERE checkpoint_ns <> '') AS sub,
                        count(DISTINCT checkpoint_ns) FILTER (WHERE checkpoint_ns <> '') AS ns, max(checkpoint_id) FILTER (WHERE checkpoint_ns = '') AS newest
                 FROM ${S}.checkpoints ${paged ? "WHERE thread_id > $2" : ""} GROUP BY thread_id ORDER BY thread_id LIMIT $1)
  SELECT g.thread_id, g.n, g.sub, g.ns, g.newest, c.checkpoint->>'ts' AS ts, c.metadata->'step' AS step,
         pg_column_size(c.checkpoint) + pg_column_size(c.metadata) AS bytes,
         (SELECT jsonb_typeof(value) FROM jsonb_each(${VERSIONS}) LIMIT 1) AS vtype,
         (SELECT coalesce(sum(octet_length(w.blob)), 0) FROM ${S}.checkpoint_writes w
            WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id) AS wbytes,
         (SELECT coalesce(sum(octet_length(b.blob)), 0) FROM jsonb_each_text(${VERSIONS}) v
            JOIN ${S}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = '' AND b.channel = v.key AND b.version = v.value) AS bbytes,
         m.type AS mtype,
         ${count} AS mcount,
         CASE WHEN ${inSql ? "m.type = 'json'" : "false"} THEN NULL ELSE m.blob END AS mblob
  FROM g LEFT JOIN ${S}.checkpoints c ON c.thread_id = g.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = g.newest
  LEFT JOIN ${S}.checkpoint_blobs m ON m.thread_id = g.thread_id AND m.checkpoint_ns = '' AND m.channel = 'messages'
       AND m.version = c.checkpoint->'channel_versions'->>'messages'
  ORDER BY g.thread_id`;
}

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
}

function pgSummaryOf(p: PgThreadRow): LgThreadSummary {
  let messages: number | null = p.mcount;
  if (p.mtype !== null && p.mtype !== "empty" && p.mblob !== null) {
    const v = decodeTyped(p.mtype, p.mblob, {
      row: { store: "postgres", table: "checkpoint_blobs", threadId: p.thread_id, namespace: "", channel: "messages" },
      pointer: "",
      issues: [],
    });
    messages = Array.isArray(v) ? v.length : null;
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

/**
 * Every row of an orphan query, in keyset pages over `cols` (its primary key, the query's ORDER BY): complete however
 * many there are, with memory bounded by the page. `sql(where)` builds the query; `where(alias)` is the keyset
 * condition (with its AND) or "" on the first page.
 */
async function* orphanPages<R extends Record<string, unknown>>(
  q: <T>(sql: string, args?: unknown[]) => Promise<T[]>,
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

type Query = <R>(sql: string, args?: unknown[]) => Promise<R[]>;
/** a query on the second connection: undefined when it (or the connection) failed */
type SideQuery = <R>(sql: string) => Promise<R[] | undefined>;
const KEYS = "SELECT * FROM unnest($1::text[], $2::text[], $3::text[])";
const CP_COLS = `thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, pg_column_size(checkpoint) + pg_column_size(metadata) AS bytes`;

/** The decoded tuples of pages of checkpoint rows (their blob rows and writes in two queries), for a reader. */
/** The blob rows and writes of a page of checkpoint rows, fetched before the page is decoded. */
interface PageParts {
  /** (thread, ns) → "channel\0version" → row */
  blobs: Map<string, Map<string, RawBlobRow>>;
  /** thread\0ns\0id → writes */
  writes: Map<string, RawWriteRow[]>;
}

/** A query whose text conversion the server may refuse (invalid UTF-8, NUL): undefined then. */
type TextQuery = <R>(sql: string, args: unknown[]) => Promise<R[] | undefined>;

const BLOB_COLS = "thread_id, checkpoint_ns, channel, version, type, blob";
/**
 * json blobs as text: the server checks the bytes are UTF-8 (and hold no NUL) and sends them as they are, so a scan
 * reads no hex and compares a messages blob with the previous one as text; the text's UTF-8 bytes are the blob
 */
const TEXT_COLS =
  "thread_id, checkpoint_ns, channel, version, type, CASE WHEN type = 'json' THEN NULL ELSE blob END AS blob, CASE WHEN type = 'json' THEN convert_from(blob, 'UTF8') END AS text";

function tupleBuilder(
  q: Query,
  S: string,
  info: LgStoreInfo,
  qText?: TextQuery,
): {
  tuplesOf: (rows: RawCheckpointRow[], withWrites?: boolean) => Promise<LgCheckpointTuple[]>;
  partsOf: (rows: RawCheckpointRow[], withWrites?: boolean, asText?: boolean) => Promise<PageParts>;
  decode: (rows: RawCheckpointRow[], parts: PageParts, lists?: ListDecoder) => Promise<LgCheckpointTuple[]>;
} {
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
      const sql = (cols: string) =>
        `SELECT ${cols} FROM ${S}.checkpoint_blobs WHERE (thread_id, checkpoint_ns, channel, version) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]))`;
      const got = (asText && qText && (await qText<Row>(sql(TEXT_COLS), want))) || (await q<Row>(sql(BLOB_COLS), want));
      for (const b of got) {
        if (b.text === null) delete b.text;
        const k = key2(b.thread_id, b.checkpoint_ns);
        (blobs.get(k) ?? blobs.set(k, new Map()).get(k)!).set(`${b.channel}\u0000${b.version}`, b);
      }
    }
    const writes = new Map<string, RawWriteRow[]>();
    if (withWrites) {
      for (const w of await q<RawWriteRow & Key>(
        `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob AS value${info.taskPath ? ", task_path" : ""}
         FROM ${S}.checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${KEYS}) ORDER BY task_id, idx`,
        keyArgs(rows),
      )) {
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
    const sends = await q<RawWriteRow>(
      `SELECT task_id, idx, channel, type, blob AS value FROM ${S}.checkpoint_writes
       WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3 AND channel = '__pregel_tasks' ORDER BY ${info.taskPath ? "task_path, " : ""}task_id, idx`,
      [t.threadId, t.namespace, t.parentId],
    );
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
  const writesSql = (where: (alias: string) => string) =>
    `SELECT w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel FROM ${S}.checkpoint_writes w
     WHERE ${where("w")} NOT EXISTS (SELECT 1 FROM ${S}.checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
     ORDER BY 1, 2, 3, 4, 5`;
  const blobsSql = (where: (alias: string) => string) =>
    `SELECT b.thread_id, b.checkpoint_ns, b.channel, b.version FROM ${S}.checkpoint_blobs b
     WHERE ${where("b")} NOT EXISTS (SELECT 1 FROM ${S}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
                       AND c.checkpoint->'channel_versions'->>b.channel = b.version)
     ORDER BY 1, 2, 3, 4`;
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

/** Checkpoints newest first (of a thread / namespace, before an id, up to a limit), in pages. */
async function* listTuples(
  q: Query,
  S: string,
  tuplesOf: (rows: RawCheckpointRow[]) => Promise<LgCheckpointTuple[]>,
  options: LgListOptions,
): AsyncIterable<LgCheckpointTuple> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (options.threadId !== undefined) args.push(options.threadId), where.push(`thread_id = $${args.length}`);
  if (options.namespace !== undefined) args.push(options.namespace), where.push(`checkpoint_ns = $${args.length}`);
  let before = options.before;
  let left = options.limit ?? Infinity;
  while (left > 0) {
    const a = [...args];
    const w = [...where];
    if (before !== undefined) a.push(before), w.push(`checkpoint_id < $${a.length}`);
    a.push(Math.min(PAGE, left));
    const rows = await q<RawCheckpointRow>(
      `SELECT ${CP_COLS} FROM ${S}.checkpoints ${w.length ? "WHERE " + w.join(" AND ") : ""} ORDER BY checkpoint_id DESC LIMIT $${a.length}`,
      a,
    );
    if (rows.length === 0) return;
    for (const t of await tuplesOf(rows)) {
      yield t;
      left--;
    }
    before = rows[rows.length - 1]!.checkpoint_id;
  }
}

/**
 * Every checkpoint in (thread, namespace, id) order (of one thread with `threadId`), in keyset pages of `batchSize`
 * rows: a page's rows, blobs and writes are fetched while the page before it is decoded and consumed.
 */
async function* scanTuples(
  q: Query,
  S: string,
  partsOf: (rows: RawCheckpointRow[]) => Promise<PageParts>,
  decode: (rows: RawCheckpointRow[], parts: PageParts, lists?: ListDecoder) => Promise<LgCheckpointTuple[]>,
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
    const rows = await q<RawCheckpointRow>(
      `SELECT ${CP_COLS} FROM ${S}.checkpoints ${w.length ? "WHERE " + w.join(" AND ") : ""} ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $${a.length}`,
      a,
    );
    return rows.length ? { rows, parts: await partsOf(rows) } : undefined;
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
      yield await decode(rows.splice(0, DECODE_CHUNK), parts, lists);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** json blobs as text (TEXT_COLS) when the server and the connection speak UTF-8; undefined when the server refuses a page's text */
function textQuery(c: Client, q: Query, uri: string): TextQuery {
  let utf8: Promise<boolean> | undefined;
  return async <R>(sql: string, args: unknown[]) => {
    utf8 ??= q<{ ok: boolean }>(
      "SELECT current_setting('server_encoding') = 'UTF8' AND current_setting('client_encoding') = 'UTF8' AS ok",
    ).then((r) => r[0]?.ok === true);
    if (!(await utf8)) return undefined;
    try {
      return (await c.query(sql, args)).rows as R[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      // 22021 invalid UTF-8 (or a NUL), 22P05 untranslatable character: the page is read as bytes
      if (code === "22021" || code === "22P05") return undefined;
      throw storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${(e as Error).message}`);
    }
  };
}

/**
 * `connect` opens another read-only connection to the store: the whole-store scan then fetches the first pages of the
 * orphan listings on it meanwhile (see orphanQueries); without it everything runs on `c`.
 */
export function createLangGraphPgReader(
  c: Client,
  info: LgStoreInfo,
  uri: string,
  connect?: () => Promise<Client>,
): LgReader {
  if (info.shallow)
    throw storeError(
      "langgraph-shallow",
      `${uri}: a ShallowPostgresSaver layout (no checkpoint_id column): ckpt reads the PostgresSaver layout only`,
    );
  const S = ident(info.schema ?? "public");
  const CP = CP_COLS;
  const q = async <R>(sql: string, args: unknown[] = []): Promise<R[]> => {
    try {
      return (await c.query(sql, args)).rows as R[];
    } catch (e) {
      throw storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${(e as Error).message}`);
    }
  };
  /** a page of `ls` rows: message counts by the server, or (a JSON blob it cannot parse) by JS */
  const threadPage = async (args: unknown[], paged: boolean): Promise<PgThreadRow[]> => {
    try {
      return (await c.query(threadPageSql(S, paged, true), args)).rows as PgThreadRow[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      // 22P02 invalid JSON text, 22021 invalid UTF-8, 22P05 untranslatable character: JS decodes this page
      if (code !== "22P02" && code !== "22021" && code !== "22P05")
        throw storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${(e as Error).message}`);
      return q<PgThreadRow>(threadPageSql(S, paged, false), args);
    }
  };
  const { tuplesOf, partsOf, decode } = tupleBuilder(q, S, info, textQuery(c, q, uri));
  const orphans = orphanQueries(q, S);
  let second: Promise<Client | undefined> | undefined;
  const side: SideQuery = async (sql) => {
    const c2 = await second;
    return c2?.query(sql).then(
      (r) => r.rows,
      () => undefined,
    );
  };

  const list = (options: LgListOptions = {}) => listTuples(q, S, tuplesOf, options);

  const reader: LgReader = {
    uri,
    info,
    async *threads(options = {}): AsyncIterable<LgThreadSummary> {
      let after = options.after;
      let left = options.limit ?? Infinity;
      while (left > 0) {
        const args: unknown[] = [Math.min(500, left)];
        if (after !== undefined) args.push(after);
        const page = await threadPage(args, after !== undefined);
        if (page.length === 0) return;
        for (const p of page) {
          yield pgSummaryOf(p);
          left--;
        }
        after = page[page.length - 1]!.thread_id;
      }
    },
    list,
    countThreads: async () =>
      Number((await q<{ n: string }>(`SELECT count(DISTINCT thread_id) AS n FROM ${S}.checkpoints`))[0]!.n),
    async *checkpointIds(threadId, namespace = "") {
      let before: string | undefined;
      for (;;) {
        const rows = await q<{ checkpoint_id: string; parent_checkpoint_id: string | null }>(
          `SELECT checkpoint_id, parent_checkpoint_id FROM ${S}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ${before !== undefined ? "AND checkpoint_id < $4" : ""}
           ORDER BY checkpoint_id DESC LIMIT $3`,
          before !== undefined ? [threadId, namespace, 1000, before] : [threadId, namespace, 1000],
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
      const rows =
        checkpointId === undefined
          ? await q<RawCheckpointRow>(
              `SELECT ${CP} FROM ${S}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1`,
              [threadId, namespace],
            )
          : await q<RawCheckpointRow>(
              `SELECT ${CP} FROM ${S}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
              [threadId, namespace, checkpointId],
            );
      return (await tuplesOf(rows))[0];
    },
    scan(options = {}) {
      if (connect && !second) {
        second = connect().catch(() => undefined);
        orphans.prefetch(side);
      }
      return scanTuples(q, S, (rows) => partsOf(rows, true, true), decode, options);
    },
    async deltaChain(threadId, namespace, fromId, channel, limit) {
      // the parent chain to the first checkpoint that stores the channel: its blob row at the checkpoint's version
      // (not `empty`), or an inline JSONB value (Python keeps a snapshot's sentinel `true` inline, the blob beside it)
      const rows = await q<{
        id: string;
        parent: string | null;
        btype: string | null;
        blob: Uint8Array | null;
        inline: unknown;
        has_inline: boolean;
      }>(
        `WITH RECURSIVE chain(id, parent, btype, blob, inline, has_inline, depth) AS (
           SELECT c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), 0
           FROM ${S}.checkpoints c LEFT JOIN ${S}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = $3
           UNION ALL
           SELECT c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), chain.depth + 1
           FROM chain JOIN ${S}.checkpoints c ON c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = chain.parent
                LEFT JOIN ${S}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           WHERE chain.btype IS NULL AND NOT chain.has_inline AND chain.depth + 1 < $5)
         SELECT id, parent, btype, blob, inline, has_inline FROM chain ORDER BY depth`,
        [threadId, namespace, fromId, channel, limit],
      );
      const tp = info.taskPath ? "task_path" : "''";
      const ws = await q<RawWriteRow & { checkpoint_id: string }>(
        `SELECT checkpoint_id, task_id, idx, channel, type, blob AS value, ${tp} AS task_path FROM ${S}.checkpoint_writes
         WHERE thread_id = $1 AND checkpoint_ns = $2 AND channel = $3 AND checkpoint_id = ANY($4) ORDER BY checkpoint_id, task_id, idx`,
        [threadId, namespace, channel, rows.map((r) => r.id)],
      );
      const byId = new Map<string, Array<RawWriteRow & { checkpoint_id: string }>>();
      for (const w of ws) (byId.get(w.checkpoint_id) ?? byId.set(w.checkpoint_id, []).get(w.checkpoint_id)!).push(w);
      return rows.map((r) => ({
        checkpointId: r.id,
        parentId: r.parent,
        value: r.btype === null && r.has_inline && r.inline !== true ? JSON.stringify(r.inline) : null,
        ...(r.btype !== null ? { stored: { type: r.btype, data: r.blob } } : {}),
        // the sentinel `true` with no blob row: a snapshot that is missing (the caller says so)
        ...(r.btype === null && r.inline === true ? { value: "true" } : {}),
        writes: byId.get(r.id) ?? [],
      }));
    },
    orphanWrites: () => orphans.orphanWrites(),
    orphanBlobs: () => orphans.orphanBlobs(),
    async close() {
      await c.end();
      const c2 = await second;
      await c2?.end().catch(() => undefined);
    },
  };
  return reader;
}
