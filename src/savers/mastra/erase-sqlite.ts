/**
 * `ckpt delete` in a Mastra LibSQL store: every row that names a thread, or a resource and every thread of it
 * (`--resource`). The memory tables and every other table a Mastra release keeps per thread or resource are found by
 * their column (`thread_id`, `threadId`: threads by `id`, messages, observational memory, thread state, spans, …;
 * `resourceId`, `resource_id`: resources by `id`, threads, messages, observational memory, workflow runs, …, whatever
 * the store's version has); the vector tables `@mastra/libsql`'s LibSQLVector keeps beside them
 * (`memory_messages_<dims>`: `vector_id`, `embedding`, `metadata`) by the `thread_id` or `resource_id` their metadata
 * names.
 *
 * A vector table's index is libSQL's DiskANN (`libsql_vector_idx(embedding)`): its b-tree stays empty and the graph
 * lives in `<index>_shadow`, one node per row keyed by rowid. Plain SQLite cannot evaluate the index expression, so the
 * rows are deleted with a stand-in function and the missing-index-entry check off (this connection only), and each
 * row's graph node with it; edges of other nodes that pointed at it are left as libSQL's own delete leaves the ones
 * it misses ("zombie edges", skipped by its search) — with the neighbour's vector copy each edge carries, which the
 * report says (`notes`) with how to rebuild the index.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Erased, MastraEraseTarget } from "./types.js";

type DB = BetterSqlite3.Database;
const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

interface Plan {
  /** tables with a thread or resource column: which columns */
  byColumn: Array<{ table: string; thread?: string; resource?: string }>;
  /** vector tables and the DiskANN shadow tables of their indexes */
  vectors: Array<{ table: string; shadows: string[]; indexes: Array<{ name: string; sql: string }> }>;
}

function plan(db: DB): Plan {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const out: Plan = { byColumn: [], vectors: [] };
  for (const t of tables) {
    const cols = new Set(db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(t) as string[]);
    const by = mastraColumns(t, cols);
    if (by) out.byColumn.push(by);
    else if (cols.has("vector_id") && cols.has("embedding") && cols.has("metadata")) {
      const indexes = db
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE '%libsql_vector_idx%'",
        )
        .all(t) as Array<{ name: string; sql: string }>;
      out.vectors.push({
        table: t,
        indexes: indexes.filter((i) => tables.includes(`${i.name}_shadow`)),
        shadows: indexes.map((i) => `${i.name}_shadow`).filter((s) => tables.includes(s)),
      });
    }
  }
  return out;
}

/** A Mastra table's columns that name a thread or a resource (undefined: none, or not one of Mastra's tables). */
export function mastraColumns(
  table: string,
  cols: Set<string>,
): { table: string; thread?: string; resource?: string } | undefined {
  if (!table.startsWith("mastra_")) return undefined;
  const thread = table === "mastra_threads" ? "id" : (["thread_id", "threadId"].find((c) => cols.has(c)) ?? undefined);
  const resource =
    table === "mastra_resources" ? "id" : (["resourceId", "resource_id"].find((c) => cols.has(c)) ?? undefined);
  if (!thread && !resource) return undefined;
  return { table, ...(thread ? { thread } : {}), ...(resource ? { resource } : {}) };
}

/** Where a table's rows name the target: one of the thread ids (`threads`: their list) or the resource (`res`). */
export function whereNaming(
  by: { thread?: string; resource?: string },
  resource: boolean,
  col: (c: string) => string,
  threads: string,
  res: string,
): string | undefined {
  const w = [
    ...(by.thread ? [`${col(by.thread)} IN ${threads}`] : []),
    ...(by.resource && resource ? [`${col(by.resource)} = ${res}`] : []),
  ];
  return w.length ? w.join(" OR ") : undefined;
}

/**
 * What the delete leaves of the embeddings: libSQL's DiskANN node keeps a copy of each neighbour's vector beside the
 * neighbour's rowid, so other rows' nodes in the shadow table can still hold the deleted embeddings. A VACUUM copies
 * those nodes as they are; rebuilding the index with libSQL (drop, create again) writes the graph anew from the rows.
 */
function neighbourNote(table: string, index: { name: string; sql: string }, dryRun: boolean): string {
  return `${table}: the thread's rows and their graph nodes in ${index.name}_shadow ${dryRun ? "would be" : "are"} deleted, but other rows' nodes of the vector index ${index.name} can still hold copies of its embeddings (libSQL's DiskANN index stores each neighbour's vector, compressed if the index was made with compress_neighbors, in the node); VACUUM does not remove them. To drop them, rebuild the index with libSQL (plain SQLite cannot build it): DROP INDEX ${q(index.name)}; ${index.sql};`;
}

/**
 * The target's rows per table (0 included), deleted in one IMMEDIATE transaction unless `dryRun`; null: nothing names
 * it. A resource: its row, every row naming it, and every row naming one of its threads.
 */
export function eraseSqlite(db: DB, target: MastraEraseTarget, dryRun: boolean): Erased | null {
  const p = plan(db);
  const isResource = "resource" in target;
  // a prune's messages: their rows in mastra_messages and their vector rows (by message_id), the ids in @threads
  const isMessages = "messages" in target;
  const threadsOf = () =>
    isMessages
      ? target.messages
      : isResource
        ? p.byColumn.some((b) => b.table === "mastra_threads" && b.resource === "resourceId")
          ? (db
              .prepare('SELECT id FROM mastra_threads WHERE "resourceId" = ? ORDER BY id')
              .pluck()
              .all(target.resource) as string[])
          : []
        : [(target as { thread: string }).thread];
  const res = isResource ? target.resource : null;
  const vectorRows = (t: string, threads: string) =>
    db
      .prepare(
        `SELECT rowid FROM ${q(t)} WHERE json_valid(metadata) AND (json_extract(metadata, '$.${isMessages ? "message_id" : "thread_id"}') IN (SELECT value FROM json_each(@threads))${isResource ? " OR json_extract(metadata, '$.resource_id') = @res" : ""})`,
      )
      .pluck()
      .all(isResource ? { threads, res } : { threads }) as number[];
  const run = () => {
    const ids = threadsOf();
    const threads = JSON.stringify(ids);
    const wheres = p.byColumn.flatMap((b) => {
      if (isMessages)
        return b.table === "mastra_messages"
          ? [{ table: b.table, where: '"id" IN (SELECT value FROM json_each(@threads))' }]
          : [];
      const w = whereNaming(b, isResource, q, "(SELECT value FROM json_each(@threads))", "@res");
      return w ? [{ table: b.table, where: w }] : [];
    });
    const args = isResource ? { threads, res } : { threads };
    const tables: Erased["tables"] = wheres.map(({ table, where }) => ({
      table,
      rows: Number(
        db
          .prepare(`SELECT count(*) FROM ${q(table)} WHERE ${where}`)
          .pluck()
          .get(args),
      ),
    }));
    const hits = p.vectors.map((v) => ({ ...v, rowids: vectorRows(v.table, threads) }));
    for (const v of hits) tables.push({ table: v.table, rows: v.rowids.length });
    if (tables.every((t) => t.rows === 0)) return null;
    const notes = hits.flatMap((v) => (v.rowids.length ? v.indexes.map((i) => neighbourNote(v.table, i, dryRun)) : []));
    const done = (): Erased => ({
      ...(isResource ? { threads: ids } : {}),
      tables,
      ...(notes.length ? { notes } : {}),
    });
    if (dryRun) return done();
    for (const { table, where } of wheres) db.prepare(`DELETE FROM ${q(table)} WHERE ${where}`).run(args);
    for (const v of hits) {
      for (const s of v.shadows) {
        const del = db.prepare(`DELETE FROM ${q(s)} WHERE index_key = ?`);
        for (const r of v.rowids) del.run(r);
      }
      const del = db.prepare(`DELETE FROM ${q(v.table)} WHERE rowid = ?`);
      for (const r of v.rowids) del.run(r);
    }
    return done();
  };
  if (dryRun) return db.transaction(run)();
  const libsqlIndex = p.vectors.some((v) => v.shadows.length > 0);
  if (libsqlIndex) {
    // libSQL's vector index entries are not in its b-tree: a stand-in for its index function, the check off
    db.function("libsql_vector_idx", { varargs: true, deterministic: true }, () => null);
    db.unsafeMode(true);
    db.pragma("writable_schema = ON");
  }
  try {
    return db.transaction(run).immediate();
  } finally {
    if (libsqlIndex) {
      db.pragma("writable_schema = OFF");
      db.unsafeMode(false);
    }
  }
}
