/**
 * A Mastra PostgreSQL store (a schema `@mastra/pg` writes) through pg. Opened to read, it is one read-only session
 * (`default_transaction_read_only`); opened to write (a migration's target), a small pool. Metadata is `jsonb`; Mastra
 * itself parses a metadata value that is a JSON string once more (`typeof metadata === "string" ? JSON.parse(…)`),
 * and so does this reader.
 */
import type pg from "pg";
import { inputError, storeError } from "../../base/errors.js";
import { describePgError, guardPool } from "../postgres.js";
import { importPg } from "../pg-module.js";
import { ident, PG, pgSetup } from "./sql.js";
import {
  MASTRA_TABLES,
  type MastraBatch,
  type MastraMessageRow,
  type MastraResourceRow,
  type MastraStore,
  type MastraThreadRow,
  type Unreadable,
} from "./types.js";
import { pgErrorText } from "../pg-errors.js";

type Queryable = Pick<pg.Client, "query"> & { end(): Promise<void> };
type Raw = Record<string, unknown>;

/** Connect to read (one read-only session) or to write (a pool of 2); a server that does not answer is a store error. */
export async function connectPg(url: string, uri: string, write: boolean): Promise<Queryable> {
  const pgm = await importPg();
  const c = write
    ? guardPool(new pgm.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 }))
    : new pgm.Client({
        connectionString: url,
        connectionTimeoutMillis: 5000,
        options: "-c default_transaction_read_only=on",
      });
  (c as pg.Client).on("error", () => undefined);
  try {
    if (c instanceof pgm.Client) await c.connect();
    else await c.query("SELECT 1");
  } catch (e) {
    await c.end().catch(() => undefined);
    const d = describePgError(e, uri);
    if (d.missing && !write) throw inputError("missing-store", d.message, {}, e);
    throw storeError("postgres-connect", d.message, {}, e);
  }
  return c;
}

/** The tables of a schema. */
export async function pgTables(c: Queryable, schema: string): Promise<Set<string>> {
  const r = await c.query(PG.tables, [schema]);
  return new Set(r.rows.map((x: { table_name: string }) => x.table_name));
}

function metadataOf(v: unknown, what: string): { metadata: unknown; unreadable?: Unreadable[] } {
  if (typeof v !== "string") return { metadata: v ?? null };
  try {
    return { metadata: JSON.parse(v) };
  } catch (e) {
    return {
      metadata: null,
      unreadable: [{ column: "metadata", reason: `${what}: a JSON string that is not JSON (${(e as Error).message})` }],
    };
  }
}

const threadOf = (r: Raw): MastraThreadRow => ({
  id: r.id as string,
  resourceId: r.resourceId as string,
  title: r.title as string,
  ...metadataOf(r.metadata, `thread '${r.id as string}'`),
  createdAt: r.createdAt as string,
  updatedAt: r.updatedAt as string,
});

const resourceOf = (r: Raw): MastraResourceRow => ({
  id: r.id as string,
  workingMemory: (r.workingMemory as string | null) ?? null,
  ...metadataOf(r.metadata, `resource '${r.id as string}'`),
  createdAt: r.createdAt as string,
  updatedAt: r.updatedAt as string,
});

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * The memory tables' columns in a schema. Stores of older `@mastra/pg` releases lack some: no `mastra_resources`,
 * no `mastra_messages.resourceId`, no `…Z` (timestamptz) copies of the times. A statement is adapted to what the
 * table holds: a missing column read as NULL, a missing `…Z` copy as the `timestamp` column alone.
 */
async function pgColumns(c: Queryable, schema: string): Promise<Record<string, Set<string>>> {
  const r = await c.query(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[])",
    [schema, Object.values(MASTRA_TABLES)],
  );
  const out: Record<string, Set<string>> = {};
  for (const x of r.rows as Array<{ table_name: string; column_name: string }>)
    (out[x.table_name] ??= new Set()).add(x.column_name);
  return out;
}

/** `sql` (reading `table`) as the table's columns allow. */
function adapt(sql: string, table: string, cols: Record<string, Set<string>>): string {
  const have = cols[table];
  if (!have) return sql;
  let out = sql;
  for (const c of ["createdAt", "updatedAt"])
    if (!have.has(`${c}Z`))
      out = out.replace(new RegExp(`coalesce\\(((?:t\\.)?)"${c}Z" AT TIME ZONE 'UTC', \\1"${c}"\\)`, "g"), `$1"${c}"`);
  if (table === MASTRA_TABLES.messages && !have.has("resourceId"))
    out = out.replace(/"resourceId" FROM/, `NULL AS "resourceId" FROM`);
  for (const c of ["metadata", "title", "workingMemory"])
    if (!have.has(c)) out = out.replace(new RegExp(`, (?:"${c}"|${c}),`), `, NULL AS "${c}",`);
  return out;
}

/** Queries adapted to the schema's columns (read once, again after a setup); a failing one is a store error. */
function pgReader(c: Queryable, place: { uri: string; schema: string }) {
  let cols: Record<string, Set<string>> | undefined;
  const shape = async () => (cols ??= await pgColumns(c, place.schema));
  const rows = async <T = Raw>(sql: string, args: unknown[] = [], table?: string) => {
    const text = table ? adapt(sql, table, await shape()) : sql;
    try {
      return (await c.query(text, args)).rows as T[];
    } catch (e) {
      // a schema none of Mastra's releases wrote (a column dropped, a type changed): the store's error, never a crash
      throw storeError("postgres-query", `${place.uri}: ${pgErrorText(e)}`, {}, e);
    }
  };
  return { rows, shape, reset: () => void (cols = undefined) };
}

/** A Mastra store over a schema of an open connection. */
export function mastraPostgres(c: Queryable, place: { uri: string; schema: string }): MastraStore {
  const S = `${ident(place.schema)}.`;
  const { rows, shape, reset } = pgReader(c, place);
  const hasResources = async () => (await shape())[MASTRA_TABLES.resources] !== undefined;
  const messagesOf = (ids: string[]) => rows<MastraMessageRow>(PG.messages(S), [ids], MASTRA_TABLES.messages);
  return {
    layout: "mastra",
    kind: "postgres",
    uri: place.uri,
    async hasLayout() {
      const t = await pgTables(c, place.schema);
      return Object.values(MASTRA_TABLES).every((n) => t.has(n));
    },
    async setup() {
      await c.query(pgSetup(place.schema));
      reset();
    },
    threads: (o = {}) => threadPages(rows, S, o),
    async thread(id) {
      const [r] = await rows(PG.thread(S), [id], MASTRA_TABLES.threads);
      return r && threadOf(r);
    },
    messages: (threadId) => messagesOf([threadId]),
    async resource(id) {
      if (!(await hasResources())) return undefined; // an older @mastra/pg: no resources table
      const [r] = await rows(PG.resource(S), [id], MASTRA_TABLES.resources);
      return r && resourceOf(r);
    },
    async counts() {
      const sql = PG.counts(S);
      const [r] = await rows<Record<string, number>>(
        (await hasResources()) ? sql : sql.replace(`(SELECT count(*)::int FROM ${S}mastra_resources)`, "0"),
      );
      return {
        threads: r!.threads!,
        messages: r!.messages!,
        resources: r!.resources!,
        orphanMessages: r!.orphanMessages!,
      };
    },
    scan: (batchSize) => scanRows(rows, S, batchSize, hasResources, messagesOf),
    tables: () => tableSizes(rows, shape, S),
    async existing(table, ids) {
      if ((await shape())[MASTRA_TABLES[table]] === undefined) return new Set<string>();
      const r = await rows<{ id: string }>(PG.existing(S, MASTRA_TABLES[table]), [ids]);
      return new Set(r.map((x) => x.id));
    },
    write: async (batch, o) => void (await writeBatch(c, S, place.uri, batch, o.overwrite)),
    add: (batch) => writeBatch(c, S, place.uri, batch, "add"),
    erase: async (target, dryRun) => (await import("./erase-pg.js")).erasePg(c, place, target, dryRun),
    vacuum: (o) => vacuumPg(c, place, o.dryRun),
    close: () => c.end(),
  };
}

type Rows = ReturnType<typeof pgReader>["rows"];
type Shape = ReturnType<typeof pgReader>["shape"];

/** `MastraStore.threads`: pages of 500 threads by id, with their message counts and sizes. */
async function* threadPages(rows: Rows, S: string, o: { after?: string; limit?: number }) {
  let after = o.after ?? null;
  let left = o.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const page = await rows(PG.threadPage(S), [after, Math.min(500, left)], MASTRA_TABLES.threads);
    if (page.length === 0) return;
    for (const r of page) {
      left--;
      yield {
        threadId: r.id as string,
        resourceId: r.resourceId as string,
        title: r.title as string,
        messages: Number(r.messages),
        createdAt: r.createdAt as string,
        updatedAt: r.updatedAt as string,
        bytes: Number(r.bytes),
      };
    }
    after = page[page.length - 1]!.id as string;
  }
}

/** `MastraStore.scan`: the threads with their messages, then the resources, `batchSize` at a time. */
async function* scanRows(
  rows: Rows,
  S: string,
  batchSize: number,
  hasResources: () => Promise<boolean>,
  messagesOf: (ids: string[]) => Promise<MastraMessageRow[]>,
): AsyncIterable<MastraBatch> {
  const n = Math.max(1, batchSize);
  for (let after: string | null = null; ; ) {
    const page = await rows(PG.threadRows(S), [after, n], MASTRA_TABLES.threads);
    if (page.length === 0) break;
    const threads = page.map(threadOf);
    yield { table: "threads", threads, messages: await messagesOf(threads.map((t) => t.id)) };
    after = page[page.length - 1]!.id as string;
  }
  for (let after: string | null = null; await hasResources(); ) {
    const page = await rows(PG.resourceRows(S), [after, n], MASTRA_TABLES.resources);
    if (page.length === 0) break;
    yield { table: "resources", resources: page.map(resourceOf) };
    after = page[page.length - 1]!.id as string;
  }
}

/** `MastraStore.tables`: each memory table the schema holds, its rows and `pg_total_relation_size`. */
async function tableSizes(rows: Rows, shape: Shape, S: string) {
  const tables = [];
  for (const t of Object.values(MASTRA_TABLES)) {
    if ((await shape())[t] === undefined) continue;
    const [r] = await rows<{ n: number; b: string }>(
      `SELECT (SELECT count(*)::int FROM ${S}${t}) AS n, pg_total_relation_size($1::regclass)::text AS b`,
      [`${S}${t}`],
    );
    tables.push({ table: t, rows: r!.n, storedBytes: Number(r!.b) });
  }
  return { method: "pg_total_relation_size" as const, tables };
}

/** `MastraStore.vacuum`: VACUUM of the memory tables and PgVector's tables beside them (what a prune deletes from). */
async function vacuumPg(c: Queryable, place: { uri: string; schema: string }, dryRun: boolean) {
  const { pgVacuumTables } = await import("../vacuum.js");
  // the memory tables and PgVector's tables beside them (what a prune deletes from)
  const tables = (await pgTables(c, place.schema)).values();
  const names = [...tables].filter((t) => t.startsWith("mastra_") || /^memory_messages_\d+$/.test(t));
  try {
    return await pgVacuumTables((sql, args) => c.query(sql, args), place.schema, names, dryRun);
  } catch (e) {
    throw storeError("postgres-vacuum", `${place.uri}: vacuuming: ${(e as Error).message}`, {}, e);
  }
}

/**
 * One batch in one transaction (a pool's own client when the connection is a pool), as `@mastra/pg` writes rows;
 * `add`: only the threads and resources whose id is not there when the insert gets to it (ON CONFLICT DO NOTHING, so
 * a concurrent writer's row is waited for and left), a thread's messages only with its thread. The ids written.
 */
async function writeBatch(
  c: Queryable,
  S: string,
  uri: string,
  batch: MastraBatch,
  overwrite: boolean | "add",
): Promise<Set<string>> {
  const added = new Set<string>();
  const tx = "totalCount" in c ? await (c as unknown as pg.Pool).connect() : undefined;
  const q = tx ?? c;
  try {
    await q.query("BEGIN");
    if (batch.table === "threads") {
      const t = batch.threads;
      // a thread written over is the source's whole: its messages the source does not hold go
      if (overwrite === true && t.length)
        await q.query(`DELETE FROM ${S}mastra_messages WHERE thread_id = ANY($1::text[])`, [t.map((r) => r.id)]);
      if (t.length) {
        const r = await q.query<{ id: string }>(PG.insertThreads(S, overwrite), [
          t.map((r) => r.id),
          t.map((r) => r.resourceId),
          t.map((r) => r.title),
          t.map((r) => json(r.metadata)),
          t.map((r) => r.createdAt),
          t.map((r) => r.updatedAt),
        ]);
        for (const { id } of r.rows ?? []) added.add(id);
      }
      const m = overwrite === "add" ? batch.messages.filter((r) => added.has(r.threadId)) : batch.messages;
      if (m.length)
        await q.query(PG.insertMessages(S, overwrite === true), [
          m.map((r) => r.id),
          m.map((r) => r.threadId),
          m.map((r) => r.content),
          m.map((r) => r.role),
          m.map((r) => r.type),
          m.map((r) => r.createdAt),
          m.map((r) => r.resourceId),
        ]);
    } else if (batch.resources.length) {
      const s = batch.resources;
      const r = await q.query<{ id: string }>(PG.insertResources(S, overwrite), [
        s.map((r) => r.id),
        s.map((r) => r.workingMemory),
        s.map((r) => json(r.metadata)),
        s.map((r) => r.createdAt),
        s.map((r) => r.updatedAt),
      ]);
      for (const { id } of r.rows ?? []) added.add(id);
    }
    await q.query("COMMIT");
    return added;
  } catch (e) {
    await q.query("ROLLBACK").catch(() => undefined);
    throw storeError("mastra-write", `${uri}: writing Mastra rows failed: ${pgErrorText(e)}`, {}, e);
  } finally {
    tx?.release();
  }
}
