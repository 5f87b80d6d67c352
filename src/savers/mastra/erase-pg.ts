/**
 * `ckpt delete` in a Mastra PostgreSQL store (a schema `@mastra/pg` writes): every row that names a thread, or a
 * resource and every thread of it (`--resource`). As in LibSQL (erase-sqlite.ts), the tables are found by their
 * columns: every `mastra_*` table of the schema with a thread column (`thread_id`, `threadId`; threads by `id`) or a
 * resource column (`resourceId`, `resource_id`; resources by `id`), whatever the store's release has; and the vector
 * tables `@mastra/pg`'s PgVector keeps for semantic recall (`memory_messages_<dims>`: `id`, `vector_id`, `embedding`,
 * `metadata` jsonb, `namespace`) by the `thread_id` or `resource_id` their metadata names. PgVector's indexes (HNSW,
 * IVFFlat) are PostgreSQL indexes: a row deleted leaves nothing of it in them once VACUUM has run.
 *
 * One transaction: the resource's threads are read `FOR UPDATE` (a thread a writer adds to the resource meanwhile
 * either commits first and goes, or waits and is kept), then each table's rows are deleted, vector rows first.
 */
import type pg from "pg";
import { storeError } from "../../base/errors.js";
import { mastraColumns, whereNaming } from "./erase-sqlite.js";
import { ident } from "./sql.js";
import type { Erased, MastraEraseTarget } from "./types.js";

type Queryable = Pick<pg.Client, "query">;

interface Plan {
  byColumn: Array<{ table: string; thread?: string; resource?: string }>;
  vectors: string[];
}

async function plan(c: Queryable, schema: string): Promise<Plan> {
  const r = await c.query<{ t: string; cols: string[] }>(
    "SELECT table_name AS t, array_agg(column_name::text) AS cols FROM information_schema.columns WHERE table_schema = $1 GROUP BY table_name ORDER BY table_name",
    [schema],
  );
  const out: Plan = { byColumn: [], vectors: [] };
  for (const { t, cols } of r.rows) {
    const have = new Set(cols);
    const by = mastraColumns(t, have);
    if (by) out.byColumn.push(by);
    else if (have.has("vector_id") && have.has("embedding") && have.has("metadata")) out.vectors.push(t);
  }
  // the threads table last: every other row is found while it is still there
  out.byColumn.sort((a, b) => Number(a.table === "mastra_threads") - Number(b.table === "mastra_threads"));
  return out;
}

/**
 * The target's rows per table (0 included), deleted in one transaction unless `dryRun` (then counted in one
 * read-only snapshot); null: nothing names it. `c` is the store's connection (a pool when opened to write).
 */
export async function erasePg(
  conn: Queryable & { end(): Promise<void> },
  place: { uri: string; schema: string },
  target: MastraEraseTarget,
  dryRun: boolean,
): Promise<Erased | null> {
  const S = `${ident(place.schema)}.`;
  const isResource = "resource" in target;
  // a prune's messages: their rows in mastra_messages and their vector rows (by message_id), the ids as $1
  const isMessages = "messages" in target;
  const pool = "totalCount" in conn ? (conn as unknown as pg.Pool) : undefined;
  const tx = pool ? await pool.connect() : undefined;
  const c: Queryable = tx ?? conn;
  try {
    await c.query(dryRun ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
    const p = await plan(c, place.schema);
    const threads = isMessages
      ? target.messages
      : !isResource
        ? [(target as { thread: string }).thread]
        : p.byColumn.some((b) => b.table === "mastra_threads" && b.resource === "resourceId")
          ? (
              await c.query<{ id: string }>(
                `SELECT id FROM ${S}mastra_threads WHERE "resourceId" = $1 ORDER BY id${dryRun ? "" : " FOR UPDATE"}`,
                [target.resource],
              )
            ).rows.map((r) => r.id)
          : [];
    const args = isResource ? [threads, target.resource] : [threads];
    const col = (x: string) => `${ident(x)}::text`;
    const steps = [
      ...p.vectors.map((t) => ({
        table: t,
        where: `metadata->>'${isMessages ? "message_id" : "thread_id"}' = ANY($1::text[])${isResource ? " OR metadata->>'resource_id' = $2" : ""}`,
      })),
      ...p.byColumn.flatMap((b) => {
        if (isMessages)
          return b.table === "mastra_messages" ? [{ table: b.table, where: `id::text = ANY($1::text[])` }] : [];
        const where = whereNaming(b, isResource, col, "(SELECT unnest($1::text[]))", "$2");
        return where ? [{ table: b.table, where }] : [];
      }),
    ];
    const tables: Erased["tables"] = [];
    for (const { table, where } of steps) {
      const sql = dryRun
        ? `SELECT count(*)::int AS n FROM ${S}${ident(table)} WHERE ${where}`
        : `DELETE FROM ${S}${ident(table)} WHERE ${where}`;
      // the parameters the statement uses (PostgreSQL wants each one it is given, and typed): a table that names
      // only threads takes the thread ids, one that names only resources the resource as its $1
      const r = !where.includes("$1")
        ? await c.query<{ n: number }>(sql.replaceAll("$2", "$1"), args.slice(1))
        : await c.query<{ n: number }>(sql, where.includes("$2") ? args : args.slice(0, 1));
      tables.push({ table, rows: dryRun ? r.rows[0]!.n : (r.rowCount ?? 0) });
    }
    // the report lists the memory tables first, as the LibSQL one does
    tables.sort((a, b) => Number(p.vectors.includes(a.table)) - Number(p.vectors.includes(b.table)));
    if (tables.every((t) => t.rows === 0)) {
      await c.query("ROLLBACK");
      return null;
    }
    await c.query(dryRun ? "ROLLBACK" : "COMMIT");
    const notes =
      p.vectors.length || isMessages
        ? []
        : [
            `no vector table (PgVector's memory_messages_<dims>) in schema ${place.schema}: if semantic recall keeps its embeddings in another schema or database (PgVector's own connection and schemaName), their rows there are not ${dryRun ? "counted" : "deleted"} here`,
          ];
    return { ...(isResource ? { threads } : {}), tables, ...(notes.length ? { notes } : {}) };
  } catch (e) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw storeError(
      "mastra-delete",
      `${place.uri}: ${dryRun ? "counting" : "deleting"} the rows of ${isResource ? `resource '${target.resource}'` : isMessages ? `${target.messages.length} messages` : `thread '${target.thread}'`} failed: ${(e as Error).message}`,
      {},
      e,
    );
  } finally {
    tx?.release();
  }
}
