/**
 * `postgres://…` (`postgresql://…`) — `pg`. Layout (schema version 1), created on first use in `?schema=` (default
 * `public`) with table name `?table=` (default `ckpt_checkpoints`)
 * by a writing command (a reading one checks the table is there and runs every query in a read-only transaction):
 *   <table>(namespace text, thread_id text, doc text NOT NULL,   -- the document's exact JSON text
 *           bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
 *           PRIMARY KEY (namespace, thread_id))
 *   <table>_meta(key text PRIMARY KEY, value text)             -- ('schema_version', '1')
 * The document is kept as text, not JSONB: JSONB reorders keys and would break byte-exact round trips; query it
 * with `doc::jsonb` when needed. Thread ids sort with COLLATE "C" (code-point order) for stable paging.
 */
import { hexDigest } from "../base/digest.js";
import { inputError, storeError } from "../base/errors.js";
import { redactText } from "../base/redact.js";
import { checkThreadId, compareIds } from "./common.js";
import { COPY_MIN_ROWS, copyNew, copyNewCommitted } from "./postgres-copy.js";
import { importPg } from "./pg-module.js";
import { textArray } from "./pg-array.js";
import {
  DEFAULT_NAMESPACE,
  type ListOptions,
  type RecordKey,
  type Saver,
  type SaverFactory,
  type SaverRecord,
  type ScanOptions,
  type ThreadInfo,
} from "./types.js";
import { pgErrorText } from "./pg-errors.js";

export const PG_SCHEMA_VERSION = 1;
const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';

export const SAVER_NAME = "postgres";

type Pool = import("pg").Pool;
type PoolClient = import("pg").PoolClient;

const ignoreError = () => undefined;

/**
 * Every PostgreSQL pool of ckpt goes through this: the pool and each of its connections, for the connection's whole
 * life, have an 'error' listener. A connection lost while a client is checked out (between two queries, or after its
 * query failed and it was released to be destroyed) emits 'error' with no query to fail: without a listener that is
 * an uncaught exception, a stack and exit 1. With it, the query on the lost connection fails and the command reports
 * that (a store error, exit 4).
 */
export function guardPool<P extends Pool>(pool: P): P {
  pool.on("error", ignoreError);
  pool.on("connect", (c) => void c.on("error", ignoreError));
  return pool;
}

/**
 * Why a connection failed, in words. The "start it with" hint is given only when no server answers at all
 * (connection refused, no socket); a wrong host, role, password or database is named instead.
 */
export function describePgError(e: unknown, uri: string): { message: string; missing: boolean } {
  const err = e as { code?: string; message: string; hostname?: string };
  const msg = redactText(err.message);
  switch (err.code) {
    case "ECONNREFUSED":
    case "ENOENT":
      return {
        message: `cannot connect to PostgreSQL at ${uri}: no server answers (${msg}); start it with: pg_ctlcluster <version> main start`,
        missing: false,
      };
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return {
        message: `cannot connect to PostgreSQL at ${uri}: unknown host${err.hostname ? ` '${err.hostname}'` : ""} (${msg})`,
        missing: false,
      };
    case "28P01":
    case "28000":
      return {
        message: `cannot connect to PostgreSQL at ${uri}: the server refused the login: ${msg} (check the user and password in the URI or PGUSER/PGPASSWORD)`,
        missing: false,
      };
    case "3D000":
      return {
        message: `cannot connect to PostgreSQL at ${uri}: ${msg} (create it with: createdb <name>, or name another database in the URI)`,
        missing: true,
      };
    default:
      // a server that answered with an SQL error (not a connection class 08 one) was reached: say what failed
      if (err.code && /^[0-9A-Z]{5}$/.test(err.code) && !err.code.startsWith("08"))
        return { message: `PostgreSQL at ${uri} refused: ${msg} (SQLSTATE ${err.code})`, missing: false };
      return { message: `cannot connect to PostgreSQL at ${uri}: ${msg}`, missing: false };
  }
}

/** Create the schema, tables and meta row (writing), or check they are there (reading); refuse a newer version. */
async function prepare(
  pool: Pool,
  names: { schema: string; T: string; M: string; label: string },
  uri: string,
  readOnly: boolean,
): Promise<void> {
  const c = await pool.connect();
  const ignore = () => undefined;
  c.on("error", ignore);
  try {
    if (readOnly) {
      const found = (await c.query("SELECT to_regclass($1) AS t, to_regclass($2) AS m", [names.T, names.M])).rows[0];
      if (!found.t)
        throw inputError(
          "missing-store",
          `no table ${names.label} in this database (reading never creates one; check ?schema= and ?table=)`,
          { file: uri },
        );
      if (!found.m) return;
    } else {
      // Two first writers at once (two migrations, --jobs writers) would race on the catalog: `IF NOT EXISTS` is no
      // lock, and the loser fails on pg_type's or pg_namespace's unique index. One transaction-scoped advisory lock
      // per table makes them take turns; the second finds everything there.
      await c.query("BEGIN");
      try {
        await c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`ckpt:prepare:${names.T}`]);
        // the rest in one round trip (a simple query of several statements: names quoted as identifiers, the
        // version a number, no parameters), not five: every migration into PostgreSQL opens the target twice
        await c.query(
          `CREATE SCHEMA IF NOT EXISTS ${ident(names.schema)};
          CREATE TABLE IF NOT EXISTS ${names.T} (namespace text NOT NULL, thread_id text COLLATE "C" NOT NULL, doc text NOT NULL,
            bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, thread_id));
          CREATE TABLE IF NOT EXISTS ${names.M} (key text PRIMARY KEY, value text);
          INSERT INTO ${names.M} (key, value) VALUES ('schema_version', '${Number(PG_SCHEMA_VERSION)}') ON CONFLICT (key) DO NOTHING;
          COMMIT`,
        );
      } catch (e) {
        await c.query("ROLLBACK").catch(() => undefined);
        throw e;
      }
    }
    const v = Number((await c.query(`SELECT value FROM ${names.M} WHERE key = 'schema_version'`)).rows[0]?.value);
    if (v > PG_SCHEMA_VERSION)
      throw storeError(
        "postgres-schema",
        `table schema version ${v} is newer than this ckpt supports (${PG_SCHEMA_VERSION})`,
      );
  } finally {
    c.off("error", ignore);
    c.release();
  }
}

export const createPostgresSaver: SaverFactory = async ({
  location: url,
  uri,
  namespace,
  readOnly = false,
  params,
}) => {
  const pg = await importPg();
  const schema = params?.get("schema") ?? "public";
  const table = params?.get("table") ?? "ckpt_checkpoints";
  const T = `${ident(schema)}.${ident(table)}`;
  const M = `${ident(schema)}.${ident(table + "_meta")}`;
  // reading: every transaction of the session is read-only too, so nothing can change the database by mistake
  const pool = guardPool(
    new pg.Pool({
      connectionString: url,
      max: 4,
      connectionTimeoutMillis: 5000,
      ...(readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
    }),
  );
  try {
    await prepare(pool, { schema, T, M, label: `${schema}.${table}` }, uri, readOnly);
  } catch (e) {
    await pool.end().catch(() => undefined);
    if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
    const d = describePgError(e, uri);
    if (d.missing && readOnly) throw inputError("missing-store", d.message, {}, e);
    throw storeError("postgres-connect", d.message, {}, e);
  }
  return new PostgresStore(pool, T, uri, namespace ?? DEFAULT_NAMESPACE);
};

/** Rows per multi-row upsert statement (4 parameters a row, well under PostgreSQL's 65,535). */
const UPSERT_ROWS = 500;

/** One multi-row upsert statement of up to UPSERT_ROWS records (`update` false: a plain INSERT, which fails on a row that exists). */
function upsertRows(c: PoolClient, T: string, chunk: SaverRecord[], update = true) {
  const values: unknown[] = [];
  const rows = chunk.map((r, k) => {
    values.push(r.namespace, r.threadId, r.text, r.bytes ?? Buffer.byteLength(r.text));
    return `($${4 * k + 1}, $${4 * k + 2}, $${4 * k + 3}, $${4 * k + 4}, now())`;
  });
  return c.query(
    `INSERT INTO ${T} (namespace, thread_id, doc, bytes, updated_at) VALUES ${rows.join(", ")}` +
      (update
        ? ` ON CONFLICT (namespace, thread_id) DO UPDATE SET doc = excluded.doc, bytes = excluded.bytes, updated_at = excluded.updated_at`
        : ""),
    values,
  );
}

/**
 * Insert `records` as new rows, all or nothing, on one client: a COPY (a plain INSERT below COPY_MIN_ROWS), in one
 * transaction when they are more than UPSERT_ROWS. False, with nothing written, when one of them exists.
 * `deferFlush` (a migration's batches): the batch is one transaction whose commit does not wait for the WAL flush
 * (SET LOCAL: that transaction only, the connection goes back to the pool as it came); PostgresStore.durable waits
 * for it once at the migration's end. 50 batches of 200 waited ~5 ms each for the disk.
 */
async function insertNew(pool: Pool, T: string, records: SaverRecord[], deferFlush: boolean): Promise<boolean> {
  if (records.length === 0) return true;
  const transaction = deferFlush || records.length > UPSERT_ROWS;
  const setup = deferFlush ? "SET LOCAL synchronous_commit = off" : undefined;
  return onBatchClient(pool, transaction, async (c) => {
    if (transaction && records.length >= COPY_MIN_ROWS) {
      // BEGIN, the COPY and COMMIT in one round trip; a record that exists leaves the transaction aborted
      const written = await copyNewCommitted(c, T, records, setup);
      if (!written) await c.query("ROLLBACK");
      return written;
    }
    if (transaction) await c.query(setup ? `BEGIN; ${setup}` : "BEGIN");
    let written = true;
    if (records.length < COPY_MIN_ROWS) {
      try {
        await upsertRows(c, T, records, false);
      } catch (e) {
        if ((e as { code?: string }).code !== "23505") throw e;
        written = false;
      }
    } else written = await copyNew(c, T, records, false);
    if (transaction) await c.query(written ? "COMMIT" : "ROLLBACK");
    return written;
  });
}

/**
 * Run one batch write on a client of its own: client errors are the query's to report, a multi-statement write
 * (`transaction`) is rolled back when it fails, and a client that failed is discarded, not returned to the pool.
 */
async function onBatchClient<R>(pool: Pool, transaction: boolean, write: (c: PoolClient) => Promise<R>): Promise<R> {
  const c = await pool.connect(); // its 'error' listener: guardPool
  let broken: Error | undefined;
  try {
    return await write(c);
  } catch (e) {
    broken = e as Error;
    if (transaction) await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}

/**
 * Upsert `records` all or nothing on one client. New rows (what a migration writes after its conflict lookup) are
 * COPYed; existing ones make it a multi-row upsert. Up to UPSERT_ROWS records (a migration batch) take one statement
 * each way, which is atomic by itself: no transaction around it, so a batch costs one COPY (two round trips), not
 * also BEGIN, SAVEPOINT, RELEASE and COMMIT. More records run in one transaction.
 */
async function upsert(pool: Pool, T: string, records: SaverRecord[]): Promise<void> {
  if (records.length === 0) return;
  const single = records.length <= UPSERT_ROWS;
  await onBatchClient(pool, !single, async (c) => {
    if (single) {
      if (!(records.length >= COPY_MIN_ROWS && (await copyNew(c, T, records, false)))) await upsertRows(c, T, records);
      return;
    }
    await c.query("BEGIN");
    const copied = await copyNew(c, T, records, true);
    for (let i = 0; !copied && i < records.length; i += UPSERT_ROWS)
      await upsertRows(c, T, records.slice(i, i + UPSERT_ROWS));
    await c.query("COMMIT");
  });
}

/**
 * verifyMany's query (namespace $1, thread ids $2, their sums $3): the 1-based places whose stored document's sum is not
 * the one given (or that have no row).
 */
const verifySql = (T: string, sum: "sha256" | "md5") =>
  `SELECT k.n FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS k(id, h, n)
   WHERE (SELECT ${sum === "sha256" ? "encode(sha256(convert_to(doc, 'UTF8')), 'hex')" : "md5(doc)"} FROM ${T}
          WHERE namespace = $1 AND thread_id = k.id LIMIT 1) IS DISTINCT FROM k.h`;

/** The batched lookup (namespace $1, thread ids $2): rows (n, doc), n the 1-based place in $2, doc null where missing. */
export const lookupSql = (T: string) =>
  `SELECT k.n, (SELECT doc FROM ${T} WHERE namespace = $1 AND thread_id = k.id) AS doc FROM unnest($2::text[]) WITH ORDINALITY AS k(id, n)`;

/** The positions of `keys` grouped by namespace (a batch usually has one). */
function byNamespace(keys: RecordKey[]): Map<string, number[]> {
  const byNs = new Map<string, number[]>();
  keys.forEach((k, i) => {
    const at = byNs.get(k.namespace);
    if (at) at.push(i);
    else byNs.set(k.namespace, [i]);
  });
  return byNs;
}

class PostgresStore implements Saver {
  constructor(
    private readonly pool: Pool,
    private readonly T: string,
    readonly uri: string,
    private readonly defaultNamespace: string,
  ) {}

  private ns = (n?: string) => n ?? this.defaultNamespace;

  private async wrap<R>(what: string, f: () => Promise<R>): Promise<R> {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("postgres-io", `${what} (${this.uri}): ${redactText(pgErrorText(e))}`, undefined, e);
    }
  }

  private query(text: string, values: unknown[]) {
    return this.pool.query(text, values);
  }

  load(threadId: string, ns?: string): Promise<string | undefined> {
    return this.wrap(
      "cannot read",
      async () =>
        (await this.query(`SELECT doc FROM ${this.T} WHERE namespace = $1 AND thread_id = $2`, [this.ns(ns), threadId]))
          .rows[0]?.doc,
    );
  }

  /**
   * One query per namespace in the batch (usually one): a point lookup per id (a subquery per row of the id list),
   * whatever the planner's statistics. (`thread_id = ANY($2)` is planned from them: on a table being loaded, which has
   * none yet, it was a scan of the whole namespace per lookup, 35 ms at 100,000 rows against 3 ms this way.)
   */
  loadMany(keys: RecordKey[]): Promise<Array<string | undefined>> {
    return this.wrap("cannot read", async () => {
      const out: Array<string | undefined> = keys.map(() => undefined);
      for (const [ns, at] of byNamespace(keys)) {
        const res = await this.query(lookupSql(this.T), [ns, textArray(at.map((i) => keys[i]!.threadId))]);
        for (const r of res.rows) if (r.doc !== null) out[at[Number(r.n) - 1]!] = r.doc;
      }
      return out;
    });
  }

  /**
   * Compared in PostgreSQL: the sha256 of each stored document's UTF-8 against the sha256 of the text written (what a
   * migration's journal records already, `SaverRecord.hash`: no hashing here then), one query per namespace in the
   * batch; only the places of the documents that differ (or are missing) come back, not the documents. A point lookup
   * per id (a subquery per row of the id list, LIMIT 1 so that it is a plain index scan, not a bitmap scan per id),
   * whatever the planner's statistics. A server before PostgreSQL 11 has no sha256(): md5 of the text in the server's
   * encoding then (where that is not UTF-8 the sums differ and the caller reads the rows back).
   */
  verifyMany(records: SaverRecord[]): Promise<boolean[]> {
    return this.wrap("cannot read", async () => {
      const out = records.map(() => true);
      for (const [ns, at] of byNamespace(records)) {
        const ids = textArray(at.map((i) => records[i]!.threadId));
        let rows: Array<{ n: string | number }> | undefined;
        if (!this.noSha256)
          try {
            const sums = at.map((i) => records[i]!.hash ?? hexDigest("sha256", records[i]!.text));
            rows = (await this.query(verifySql(this.T, "sha256"), [ns, ids, textArray(sums)])).rows;
          } catch (e) {
            // 42883: undefined_function (sha256() came with PostgreSQL 11)
            if ((e as { code?: string }).code !== "42883") throw e;
            this.noSha256 = true;
          }
        if (rows === undefined) {
          const sums = at.map((i) => hexDigest("md5", records[i]!.text));
          rows = (await this.query(verifySql(this.T, "md5"), [ns, ids, textArray(sums)])).rows;
        }
        for (const r of rows) out[at[Number(r.n) - 1]!] = false;
      }
      return out;
    });
  }

  /** the server has no sha256() (PostgreSQL 10): verifyMany compares md5 sums */
  private noSha256 = false;

  async save(threadId: string, text: string, ns?: string): Promise<void> {
    checkThreadId(threadId);
    await this.wrap("cannot write", () => upsert(this.pool, this.T, [{ namespace: this.ns(ns), threadId, text }]));
  }

  delete(threadId: string, ns?: string): Promise<boolean> {
    return this.wrap(
      "cannot delete",
      async () =>
        ((await this.query(`DELETE FROM ${this.T} WHERE namespace = $1 AND thread_id = $2`, [this.ns(ns), threadId]))
          .rowCount ?? 0) > 0,
    );
  }

  exists(threadId: string, ns?: string): Promise<boolean> {
    return this.wrap(
      "cannot read",
      async () =>
        (await this.query(`SELECT 1 FROM ${this.T} WHERE namespace = $1 AND thread_id = $2`, [this.ns(ns), threadId]))
          .rowCount! > 0,
    );
  }

  /** Rows of a namespace in thread id order after `after` (all when undefined), `limit` of them. */
  private page(columns: string, namespace: string, after: string | undefined, limit: number) {
    return after === undefined
      ? this.query(`SELECT ${columns} FROM ${this.T} WHERE namespace = $1 ORDER BY thread_id LIMIT $2`, [
          namespace,
          limit,
        ])
      : this.query(
          `SELECT ${columns} FROM ${this.T} WHERE namespace = $1 AND thread_id > $2 ORDER BY thread_id LIMIT $3`,
          [namespace, after, limit],
        );
  }

  async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
    const namespace = this.ns(options.namespace);
    let after = options.after;
    let left = options.limit ?? Infinity;
    while (left > 0) {
      const res = await this.wrap("cannot list", () =>
        this.page("thread_id, bytes, updated_at", namespace, after, Math.min(1000, left)),
      );
      if (res.rows.length === 0) return;
      for (const r of res.rows) {
        yield { namespace, threadId: r.thread_id, bytes: r.bytes, updatedAt: new Date(r.updated_at).toISOString() };
        left--;
      }
      after = res.rows[res.rows.length - 1].thread_id;
    }
  }

  async *scan(options: ScanOptions = {}): AsyncIterable<SaverRecord[]> {
    const namespace = this.ns(options.namespace);
    const size = Math.max(1, options.batchSize ?? 200);
    let after: string | undefined;
    for (;;) {
      const res = await this.wrap("cannot read", () => this.page("thread_id, doc", namespace, after, size));
      if (res.rows.length === 0) return;
      after = res.rows[res.rows.length - 1].thread_id;
      yield res.rows.map((r) => ({ namespace, threadId: r.thread_id as string, text: r.doc as string }));
      if (res.rows.length < size) return;
    }
  }

  count(ns?: string): Promise<number> {
    return this.wrap("cannot count", async () =>
      Number((await this.query(`SELECT count(*) AS n FROM ${this.T} WHERE namespace = $1`, [this.ns(ns)])).rows[0].n),
    );
  }

  namespaces(): Promise<string[]> {
    return this.wrap("cannot list", async () =>
      (await this.query(`SELECT DISTINCT namespace COLLATE "C" AS namespace FROM ${this.T} ORDER BY 1`, [])).rows.map(
        (r) => r.namespace,
      ),
    );
  }

  async saveMany(records: SaverRecord[]): Promise<void> {
    for (const r of records) checkThreadId(r.threadId, r.namespace);
    await this.wrap("cannot write", () => upsert(this.pool, this.T, records));
  }

  /** whether an insertNew with deferFlush wrote since the last durable() */
  private deferredWrites = false;

  async insertNew(records: SaverRecord[], opts?: { deferFlush?: boolean }): Promise<boolean> {
    for (const r of records) checkThreadId(r.threadId, r.namespace);
    const deferFlush = opts?.deferFlush === true;
    if (deferFlush) this.deferredWrites = true;
    return this.wrap("cannot write", () => insertNew(this.pool, this.T, records, deferFlush));
  }

  /**
   * insertNew's commits made durable: a transaction given an id (txid_current) commits with synchronous_commit on,
   * which flushes the WAL up to its commit record — every commit before it, of any session, included.
   */
  async durable(): Promise<void> {
    if (!this.deferredWrites) return;
    await this.wrap("cannot write", () =>
      this.pool.query("BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current(); COMMIT"),
    );
    this.deferredWrites = false;
  }

  /**
   * `ON CONFLICT DO NOTHING … RETURNING` per UPSERT_ROWS records: the rows that came back are the ones written. The
   * rows go in key order, so two runs adding the same keys take their row locks in one order: the second waits for
   * the first instead of a deadlock.
   */
  async addMany(records: SaverRecord[]): Promise<boolean[]> {
    for (const r of records) checkThreadId(r.threadId, r.namespace);
    const sorted = [...records].sort(
      (a, b) => compareIds(a.namespace, b.namespace) || compareIds(a.threadId, b.threadId),
    );
    return this.wrap("cannot write", async () => {
      const added = new Set<string>();
      for (let i = 0; i < sorted.length; i += UPSERT_ROWS) {
        const values: unknown[] = [];
        const rows = sorted.slice(i, i + UPSERT_ROWS).map((r, k) => {
          values.push(r.namespace, r.threadId, r.text, r.bytes ?? Buffer.byteLength(r.text));
          return `($${4 * k + 1}, $${4 * k + 2}, $${4 * k + 3}, $${4 * k + 4}, now())`;
        });
        const res = await this.query(
          `INSERT INTO ${this.T} (namespace, thread_id, doc, bytes, updated_at) VALUES ${rows.join(", ")}
           ON CONFLICT (namespace, thread_id) DO NOTHING RETURNING namespace, thread_id`,
          values,
        );
        for (const r of res.rows) added.add(`${r.namespace}\u0000${r.thread_id}`);
      }
      return records.map((r) => added.has(`${r.namespace}\u0000${r.threadId}`));
    });
  }

  existsMany(keys: RecordKey[]): Promise<boolean[]> {
    return this.wrap("cannot read", async () => {
      const out = keys.map(() => false);
      for (const [ns, at] of byNamespace(keys)) {
        const res = await this.query(
          `SELECT k.n FROM unnest($2::text[]) WITH ORDINALITY AS k(id, n)
           WHERE EXISTS (SELECT 1 FROM ${this.T} WHERE namespace = $1 AND thread_id = k.id)`,
          [ns, textArray(at.map((i) => keys[i]!.threadId))],
        );
        for (const r of res.rows) out[at[Number(r.n) - 1]!] = true;
      }
      return out;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
