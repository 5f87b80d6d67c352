/**
 * Connection and schema of a LangGraph PostgreSQL store: the read-only connection and the pool (see index.ts), what
 * the schema holds (`inspectPgSchema`), the library that wrote it, and the library's own migrations (`pgSetup`).
 */
import type pg from "pg";
import { inputError, storeError } from "../../../base/errors.js";
import type { Library } from "../../../formats/langgraph/encode.js";
import { libraryOfVersions } from "../../../formats/langgraph/rows.js";
import type { LgStoreInfo } from "../../../formats/langgraph/types.js";
import { describePgError, guardPool } from "../../postgres.js";
import { importPg } from "../../pg-module.js";
import { ident, migrations, PG_LG_TABLES, PG_ROWS, PG_SCHEMA_COLUMNS, pgMaxMigration } from "../sql.js";

export type Client = pg.Client;
type Queryable = Pick<pg.Pool, "query">;

/** Where a PostgreSQL LangGraph store is: the connection URL (without ckpt's parameters), the redacted URI, the schema. */
export interface PgPlace {
  url: string;
  uri: string;
  schema: string;
}

/** Connect read-only. */
export async function connectReadOnly(url: string, uri: string): Promise<Client> {
  const pgm = await importPg();
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
  const pgm = await importPg();
  const options = [process.env.PGOPTIONS, "-c jit=off"].filter(Boolean).join(" ");
  const pool = guardPool(new pgm.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000, options }));
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
  uri?: string,
): Promise<{ langgraph?: LgStoreInfo; ckpt: boolean }> {
  const cols = await c.query(PG_SCHEMA_COLUMNS, [schema, [...PG_LG_TABLES, table]]);
  const has = new Map<string, Set<string>>();
  for (const r of cols.rows)
    (has.get(r.table_name) ?? has.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
  const ckpt = has.has(table);
  if (!has.has("checkpoints") || !has.has("checkpoint_writes")) {
    await refusePartialLayout(c, has, schema, ckpt, uri);
    return { ckpt };
  }
  const shallow = checkPgLayout(has, schema, uri);
  let migration: number | undefined;
  if (has.get("checkpoint_migrations")?.has("v")) {
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
      shallow,
    },
  };
}

/**
 * A schema that holds LangGraph's tables but not both of `checkpoints` and `checkpoint_writes` (two of its tables, or
 * a `checkpoints` table with LangGraph's columns) is no release's store: an input error naming the missing table — but
 * for a setup that was cut short (`checkpoint_migrations` says the missing table's migration has not run yet), which
 * reads as no LangGraph store, as before.
 */
async function refusePartialLayout(
  c: Queryable,
  has: Map<string, Set<string>>,
  schema: string,
  ckpt: boolean,
  uri: string | undefined,
): Promise<void> {
  if (ckpt) return;
  const present = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"].filter((t) => has.has(t));
  const cp = has.get("checkpoints");
  if (present.length < 2 && !(cp?.has("thread_id") && cp.has("checkpoint_ns"))) return;
  if (has.get("checkpoint_migrations")?.has("v")) {
    const v = (await c.query(pgMaxMigration(`${ident(schema)}.`))).rows[0]?.v;
    if (typeof v === "number" && v < 3) return;
  }
  const missing = ["checkpoints", "checkpoint_writes"].filter((t) => !has.has(t));
  throw inputError(
    "langgraph-layout",
    `a LangGraph store without its ${missing.join(" and ")} table${missing.length > 1 ? "s" : ""}, which ${PG_BY} (schema '${schema}'): no release wrote this schema as it is (a table was dropped, or another tool made it)`,
    uri ? { file: uri } : {},
  );
}

/**
 * The columns every PostgresSaver release creates (Python langgraph-checkpoint-postgres and JS
 * @langchain/langgraph-checkpoint-postgres, migrations 1–3: the tables have not changed since, but for
 * `checkpoint_writes.task_path`, Python's migration 9, and `checkpoint_migrations`, whose absence only hides which
 * migrations ran). The ShallowPostgresSaver layout (Python, deprecated) has no checkpoint ids at all.
 */
const PG_REQUIRED: Record<string, string[]> = {
  checkpoints: [
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
  ],
  checkpoint_blobs: ["thread_id", "checkpoint_ns", "channel", "version", "type", "blob"],
  checkpoint_writes: ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "blob"],
};
const PG_BY =
  "every PostgresSaver (Python langgraph-checkpoint-postgres since 1.0, 2024-08, and JS @langchain/langgraph-checkpoint-postgres) creates in its first migrations";

/**
 * A LangGraph schema that lacks a table or column no release left out is an input error naming it (exit 3), never a
 * query failing on it later; returns whether the layout is ShallowPostgresSaver's (no checkpoint_id, no parent).
 */
function checkPgLayout(has: Map<string, Set<string>>, schema: string, uri: string | undefined): boolean {
  const cp = has.get("checkpoints")!;
  if (!cp.has("checkpoint_id") && !cp.has("parent_checkpoint_id")) return true;
  for (const [table, cols] of Object.entries(PG_REQUIRED)) {
    const got = has.get(table);
    if (!got)
      throw inputError(
        "langgraph-layout",
        `a LangGraph store without its ${table} table, which ${PG_BY} (schema '${schema}'): no release wrote this schema as it is (the table was dropped, or another tool made it)`,
        uri ? { file: uri } : {},
      );
    const lacks = cols.filter((c) => !got.has(c));
    if (lacks.length)
      throw inputError(
        "langgraph-layout",
        `the LangGraph table ${schema}.${table} has no column ${lacks.map((c) => `'${c}'`).join(", ")}, which ${PG_BY}: no release wrote this table as it is (a column was dropped, or another tool made it)`,
        uri ? { file: uri } : {},
      );
  }
  return false;
}

/** The connections a store holds: each opened when first asked for (see the module comment). */
export interface Connections {
  /** the read-only connection */
  ro(): Promise<Client>;
  /** the pool of the row-level store */
  rw(): Promise<pg.Pool>;
  /** another read-only connection (the scan's prefetch of orphan listings) */
  another(): Promise<Client>;
  close(): Promise<void>;
}

export function connections(place: PgPlace, opened: { ro?: Client; rw?: pg.Pool }): Connections {
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

/** The library that wrote the store: a checkpoint's version types, else the migrations level; undefined when empty. */
export async function pgLibrary(pool: pg.Pool, S: string): Promise<Library | undefined> {
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
export async function pgSetup(pool: pg.Pool, schema: string, S: string, lib: Library): Promise<void> {
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

/**
 * One connection, inside a transaction the caller opened, as the pool the row-level store runs on (LgStore.atomically):
 * every query goes to that connection, and a transaction a step opens on a client it checks out (BEGIN … COMMIT or
 * ROLLBACK: a batch's write, a prune page) becomes a savepoint inside the caller's, so that nothing is committed
 * before the caller commits.
 */
export function pinnedPool(c: pg.PoolClient): pg.Pool {
  let depth = 0;
  // one query at a time, in the order asked (a pool runs a step's queries at once on several connections); a COPY
  // stream (a submittable, not a promise) goes straight to the connection, which queues it
  let last: Promise<unknown> = Promise.resolve();
  const query = (...a: unknown[]): Promise<unknown> => {
    const q = a[0] as { submit?: unknown };
    if (typeof q === "object" && q !== null && typeof q.submit === "function")
      return (c.query as (...x: unknown[]) => Promise<unknown>)(...a);
    const p = last.then(() => (c.query as (...x: unknown[]) => Promise<unknown>)(...a));
    last = p.catch(() => undefined);
    return p;
  };
  const nested = {
    query(...a: unknown[]) {
      switch (a[0]) {
        case "BEGIN":
          return query(`SAVEPOINT ckpt_nested_${++depth}`);
        case "COMMIT":
          return depth > 0 ? query(`RELEASE SAVEPOINT ckpt_nested_${depth--}`) : Promise.resolve();
        case "ROLLBACK":
          return depth > 0
            ? query(`ROLLBACK TO SAVEPOINT ckpt_nested_${depth}`).then(() =>
                query(`RELEASE SAVEPOINT ckpt_nested_${depth--}`),
              )
            : Promise.resolve();
        default:
          return query(...a);
      }
    },
    release: () => undefined,
    on: () => nested,
  };
  return { query, connect: async () => nested, on: () => undefined, end: async () => undefined } as unknown as pg.Pool;
}
