/**
 * The rows `ckpt stats` measures in a LangGraph store (SQLite: `checkpoints`, `writes`; PostgreSQL: `checkpoints`,
 * `checkpoint_blobs`, `checkpoint_writes`), read-only, streamed a page of threads at a time: for each page every
 * checkpoint (in id order), then every blob, then every write of those threads, each table in bounded batches, then
 * an end-of-page marker. Memory holds one batch and the page's thread ids, however large the store. Also the tables'
 * physical sizes: SQLite `dbstat` when the build has it (else the sum of the stored lengths), PostgreSQL
 * `pg_total_relation_size` (table + indexes + TOAST).
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { inputError, storeError, usageError } from "../base/errors.js";
import type { SaverUri } from "./uri.js";

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

export interface StatBlobRow {
  threadId: string;
  ns: string;
  channel: string;
  version: string;
  type: string;
  blob: Uint8Array | null;
}

export type StatBatch =
  | { table: "checkpoints"; rows: StatCheckpointRow[] }
  | { table: "blobs"; rows: StatBlobRow[] }
  | { table: "writes"; rows: StatWriteRow[] }
  /** every row of these threads has been handed over */
  | { table: "page"; threads: string[] };

export interface StatTable {
  table: string;
  rows: number;
  /** physical bytes (pages / relation size incl. indexes and TOAST); null when the store cannot tell */
  storedBytes: number | null;
}

export interface LgStatsSource {
  store: "sqlite" | "postgres";
  uri: string;
  /** how `storedBytes` was measured */
  storedMethod: "dbstat" | "sum-of-lengths" | "pg_total_relation_size";
  tables(): Promise<StatTable[]>;
  /** every row of the threads `accept` takes (all when omitted), a page of threads at a time */
  rows(o: {
    accept?: (threadId: string) => boolean;
    only?: string[];
    pageThreads?: number;
    batchSize?: number;
  }): AsyncIterable<StatBatch>;
  close(): Promise<void>;
}

const buf = (v: Buffer | string | null): Uint8Array =>
  v === null ? new Uint8Array(0) : typeof v === "string" ? Buffer.from(v) : v;

/** Thread pages: the store's threads in order (keyset), or the named ones; `accept` filters each page. */
async function* threadPages(
  next: (after: string | undefined, n: number) => Promise<string[]>,
  o: { accept?: (t: string) => boolean; only?: string[]; pageThreads?: number },
) {
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

type Page = string[] | { kept: string[]; range?: readonly [string, string] };
const threadsOf = (p: Page) => (Array.isArray(p) ? p : p.kept);
const rangeOf = (p: Page) => (Array.isArray(p) ? undefined : p.range);

// ---- SQLite -------------------------------------------------------------------------------------------------

export async function openSqliteStats(u: SaverUri): Promise<LgStatsSource> {
  const { openSqliteReadOnly } = await import("./langgraph/sqlite.js");
  const db = await openSqliteReadOnly(u.location);
  const wrap = <R>(what: string, f: () => R): R => {
    try {
      return f();
    } catch (e) {
      throw storeError("sqlite-io", `${what} (${u.redacted}): ${(e as Error).message}`);
    }
  };
  let dbstat: boolean | undefined;
  const hasDbstat = () => {
    if (dbstat === undefined) {
      try {
        db.prepare("SELECT 1 FROM dbstat LIMIT 1").get();
        dbstat = true;
      } catch {
        dbstat = false;
      }
    }
    return dbstat;
  };
  const source: LgStatsSource = {
    store: "sqlite",
    uri: u.redacted,
    get storedMethod() {
      return hasDbstat() ? "dbstat" : "sum-of-lengths";
    },
    tables: async () => wrap("measuring the tables", () => sqliteTables(db, hasDbstat())),
    rows: (o) => sqliteRows(db, o, wrap),
    close: async () => void db.close(),
  };
  return source;
}

function sqliteTables(db: BetterSqlite3.Database, dbstat: boolean): StatTable[] {
  const out: StatTable[] = [];
  const sizes = new Map<string, number>();
  if (dbstat) {
    // pages of the table and of its indexes (the primary-key autoindex), by the table they belong to
    const rows = db
      .prepare(
        "SELECT m.tbl_name AS t, sum(s.pgsize) AS b FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name",
      )
      .all() as Array<{ t: string; b: number }>;
    for (const r of rows) sizes.set(r.t, r.b);
  }
  for (const [table, cols] of [
    ["checkpoints", "length(CAST(checkpoint AS BLOB)) + length(CAST(metadata AS BLOB))"],
    ["writes", "length(CAST(value AS BLOB))"],
  ] as const) {
    const r = db.prepare(`SELECT count(*) AS n, coalesce(sum(${cols}), 0) AS b FROM ${table}`).get() as {
      n: number;
      b: number;
    };
    out.push({ table, rows: r.n, storedBytes: dbstat ? (sizes.get(table) ?? 0) : r.b });
  }
  return out;
}

interface SqCp {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  type: string | null;
  checkpoint: Buffer | string | null;
  mb: number;
}
interface SqW {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  channel: string;
  type: string | null;
  value: Buffer | string | null;
}

async function* sqliteRows(
  db: BetterSqlite3.Database,
  o: Parameters<LgStatsSource["rows"]>[0],
  wrap: <R>(w: string, f: () => R) => R,
): AsyncIterable<StatBatch> {
  const batch = Math.max(1, o.batchSize ?? 500);
  const next = async (after: string | undefined, n: number) =>
    wrap(
      "listing threads",
      () =>
        (after === undefined
          ? db.prepare("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id LIMIT ?").pluck().all(n)
          : db
              .prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id > ? ORDER BY thread_id LIMIT ?")
              .pluck()
              .all(after, n)) as string[],
    );
  for await (const page of threadPages(next, o)) {
    const threads = threadsOf(page);
    const range = rangeOf(page);
    // the page's threads: a key range when the page is whole (primary-key index), else the list
    const where = range ? "thread_id >= ? AND thread_id <= ?" : "thread_id IN (SELECT value FROM json_each(?))";
    const args = range ? [range[0], range[1]] : [JSON.stringify(threads)];
    const cp =
      db.prepare(`SELECT thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, length(CAST(metadata AS BLOB)) AS mb FROM checkpoints
      WHERE ${where} AND (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`);
    let after = ["", "", ""];
    for (;;) {
      const rows = wrap("reading checkpoints", () => cp.all(...args, ...after, batch) as SqCp[]);
      if (rows.length === 0) break;
      const l = rows[rows.length - 1]!;
      after = [l.thread_id, l.checkpoint_ns, l.checkpoint_id];
      yield {
        table: "checkpoints",
        rows: rows.map((r) => {
          const c = buf(r.checkpoint);
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
    const w = db.prepare(`SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes
      WHERE ${where} AND (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) > (?, ?, ?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx LIMIT ?`);
    let wAfter: unknown[] = ["", "", "", "", -1e15];
    for (;;) {
      const rows = wrap("reading writes", () => w.all(...args, ...wAfter, batch) as SqW[]);
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
          value: buf(r.value),
        })),
      };
      if (rows.length < batch) break;
    }
    yield { table: "page", threads };
  }
}

// ---- PostgreSQL -----------------------------------------------------------------------------------------------

const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';

export async function openPostgresStats(u: SaverUri): Promise<LgStatsSource> {
  const { connectReadOnly } = await import("./langgraph/postgres.js");
  const c = await connectReadOnly(u.location, u.redacted);
  const schema = u.params.get("schema") ?? "public";
  const S = `${ident(schema)}.`;
  const wrap = async <R>(what: string, f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      throw storeError("postgres-io", `${what} (${u.redacted}): ${(e as Error).message}`);
    }
  };
  // one snapshot for the whole report, read-only
  await wrap("starting a read-only transaction", () => c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  return {
    store: "postgres",
    uri: u.redacted,
    storedMethod: "pg_total_relation_size",
    tables: () => wrap("measuring the tables", () => pgTables(c, S)),
    rows: (o) => pgRows(c, S, o, wrap),
    close: async () => {
      await c.query("COMMIT").catch(() => undefined);
      await c.end();
    },
  };
}

async function pgTables(c: pg.Client, S: string): Promise<StatTable[]> {
  const out: StatTable[] = [];
  for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
    const exists = (await c.query("SELECT to_regclass($1) AS r", [`${S}${ident(t)}`])).rows[0].r;
    if (!exists) continue;
    const r = (
      await c.query(`SELECT count(*)::bigint AS n, pg_total_relation_size($1::regclass)::bigint AS b FROM ${S}${t}`, [
        `${S}${ident(t)}`,
      ])
    ).rows[0];
    out.push({ table: t, rows: Number(r.n), storedBytes: Number(r.b) });
  }
  return out;
}

async function* pgRows(
  c: pg.Client,
  S: string,
  o: Parameters<LgStatsSource["rows"]>[0],
  wrap: <R>(w: string, f: () => Promise<R>) => Promise<R>,
): AsyncIterable<StatBatch> {
  const batch = Math.max(1, o.batchSize ?? 500);
  const hasBlobs = (await c.query("SELECT to_regclass($1) AS r", [`${S}checkpoint_blobs`])).rows[0].r !== null;
  const next = (after: string | undefined, n: number) =>
    wrap("listing threads", async () =>
      (after === undefined
        ? await c.query(`SELECT DISTINCT thread_id FROM ${S}checkpoints ORDER BY thread_id LIMIT $1`, [n])
        : await c.query(
            `SELECT DISTINCT thread_id FROM ${S}checkpoints WHERE thread_id > $2 ORDER BY thread_id LIMIT $1`,
            [n, after],
          )
      ).rows.map((r) => r.thread_id as string),
    );
  for await (const page of threadPages(next, o)) {
    const threads = threadsOf(page);
    const cols = `thread_id, checkpoint_ns, checkpoint_id, NULL AS type, octet_length(checkpoint::text) AS cb, octet_length(metadata::text) AS mb, checkpoint->>'ts' AS ts,
      CASE WHEN jsonb_typeof(checkpoint->'channel_versions') = 'object' THEN checkpoint->'channel_versions' END AS versions,
      CASE WHEN jsonb_typeof(checkpoint->'channel_values') = 'object' THEN (checkpoint->'channel_values')::text END AS inline`;
    for await (const rows of pgPaged(
      c,
      wrap,
      "reading checkpoints",
      `SELECT ${cols} FROM ${S}checkpoints WHERE thread_id = ANY($1::text[])`,
      ["thread_id", "checkpoint_ns", "checkpoint_id"],
      threads,
      batch,
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
      for await (const rows of pgPaged(
        c,
        wrap,
        "reading blobs",
        `SELECT thread_id, checkpoint_ns, channel, version, type, blob FROM ${S}checkpoint_blobs WHERE thread_id = ANY($1::text[])`,
        ["thread_id", "checkpoint_ns", "channel", "version"],
        threads,
        batch,
      )) {
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
    for await (const rows of pgPaged(
      c,
      wrap,
      "reading writes",
      `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${S}checkpoint_writes WHERE thread_id = ANY($1::text[])`,
      ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"],
      threads,
      batch,
    )) {
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
  c: pg.Client,
  wrap: <R>(w: string, f: () => Promise<R>) => Promise<R>,
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

/** The stats source of a LangGraph store URI (sqlite:<path> or postgres://…?schema=), opened read-only. */
export async function openLgStats(uri: string, env?: NodeJS.ProcessEnv): Promise<LgStatsSource> {
  const { parseSaverUri } = await import("./uri.js");
  const u = parseSaverUri(uri, env);
  if (u.kind === "postgres") return openPostgresStats(u);
  if (u.kind !== "sqlite")
    throw usageError(`'${u.redacted}' is not a LangGraph store: expected sqlite:<path> or postgres://…?schema=`);
  const { existsSync } = await import("node:fs");
  if (!existsSync(u.location))
    throw inputError("missing-store", "no such SQLite database (reading never creates a store)", { file: u.redacted });
  return openSqliteStats(u);
}
