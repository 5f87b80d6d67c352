/**
 * `ckpt delete` of a thread in a Mastra LibSQL store: every row that names it. The memory tables and every other
 * table a Mastra release keeps per thread are found by their column (`thread_id`, `threadId`: threads by `id`,
 * messages, observational memory, thread state, …, whatever the store's version has); the vector tables
 * `@mastra/libsql`'s LibSQLVector keeps beside them (`memory_messages_<dims>`: `vector_id`, `embedding`, `metadata`)
 * by the `thread_id` their metadata names.
 *
 * A vector table's index is libSQL's DiskANN (`libsql_vector_idx(embedding)`): its b-tree stays empty and the graph
 * lives in `<index>_shadow`, one node per row keyed by rowid. Plain SQLite cannot evaluate the index expression, so the
 * rows are deleted with a stand-in function and the missing-index-entry check off (this connection only), and each
 * row's graph node with it; edges of other nodes that pointed at it are left as libSQL's own delete leaves the ones
 * it misses ("zombie edges", skipped by its search) — with the neighbour's vector copy each edge carries, which the
 * report says (`notes`) with how to rebuild the index.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Erased } from "./types.js";

type DB = BetterSqlite3.Database;
const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

interface Plan {
  /** tables with a thread column: which column */
  byColumn: Array<{ table: string; column: string }>;
  /** vector tables and the DiskANN shadow tables of their indexes */
  vectors: Array<{ table: string; shadows: string[]; indexes: Array<{ name: string; sql: string }> }>;
}

function plan(db: DB): Plan {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const out: Plan = { byColumn: [], vectors: [] };
  for (const t of tables) {
    const cols = new Set(db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(t) as string[]);
    if (t === "mastra_threads") out.byColumn.push({ table: t, column: "id" });
    else if (t.startsWith("mastra_") && cols.has("thread_id")) out.byColumn.push({ table: t, column: "thread_id" });
    else if (t.startsWith("mastra_") && cols.has("threadId")) out.byColumn.push({ table: t, column: "threadId" });
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

/**
 * What the delete leaves of the embeddings: libSQL's DiskANN node keeps a copy of each neighbour's vector beside the
 * neighbour's rowid, so other rows' nodes in the shadow table can still hold the deleted embeddings. A VACUUM copies
 * those nodes as they are; rebuilding the index with libSQL (drop, create again) writes the graph anew from the rows.
 */
function neighbourNote(table: string, index: { name: string; sql: string }, dryRun: boolean): string {
  return `${table}: the thread's rows and their graph nodes in ${index.name}_shadow ${dryRun ? "would be" : "are"} deleted, but other rows' nodes of the vector index ${index.name} can still hold copies of its embeddings (libSQL's DiskANN index stores each neighbour's vector, compressed if the index was made with compress_neighbors, in the node); VACUUM does not remove them. To drop them, rebuild the index with libSQL (plain SQLite cannot build it): DROP INDEX ${q(index.name)}; ${index.sql};`;
}

/** The thread's rows per table (0 included), deleted in one IMMEDIATE transaction unless `dryRun`; null: no thread. */
export function eraseThreadSqlite(db: DB, threadId: string, dryRun: boolean): Erased | null {
  const p = plan(db);
  const vectorRows = (t: string) =>
    db
      .prepare(`SELECT rowid FROM ${q(t)} WHERE json_valid(metadata) AND json_extract(metadata, '$.thread_id') = ?`)
      .pluck()
      .all(threadId) as number[];
  const run = () => {
    const tables: Erased["tables"] = p.byColumn.map(({ table, column }) => ({
      table,
      rows: Number(
        db
          .prepare(`SELECT count(*) FROM ${q(table)} WHERE ${q(column)} = ?`)
          .pluck()
          .get(threadId),
      ),
    }));
    const hits = p.vectors.map((v) => ({ ...v, rowids: vectorRows(v.table) }));
    for (const v of hits) tables.push({ table: v.table, rows: v.rowids.length });
    if (tables.every((t) => t.rows === 0)) return null;
    const notes = hits.flatMap((v) => (v.rowids.length ? v.indexes.map((i) => neighbourNote(v.table, i, dryRun)) : []));
    if (dryRun) return notes.length ? { tables, notes } : { tables };
    for (const { table, column } of p.byColumn)
      db.prepare(`DELETE FROM ${q(table)} WHERE ${q(column)} = ?`).run(threadId);
    for (const v of hits) {
      for (const s of v.shadows) {
        const del = db.prepare(`DELETE FROM ${q(s)} WHERE index_key = ?`);
        for (const r of v.rowids) del.run(r);
      }
      const del = db.prepare(`DELETE FROM ${q(v.table)} WHERE rowid = ?`);
      for (const r of v.rowids) del.run(r);
    }
    return notes.length ? { tables, notes } : { tables };
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
