/**
 * Which LangGraph SQLite layout a database holds, as each release created it (Python langgraph's own
 * `langgraph/checkpoint/sqlite.py` until 0.1.x, then langgraph-checkpoint-sqlite; JS @langchain/langgraph-checkpoint-sqlite
 * writes today's), read from the columns it has:
 *
 * | langgraph (Python)      | from    | tables and columns                                                                   |
 * |-------------------------|---------|--------------------------------------------------------------------------------------|
 * | 0.0.21 – 0.0.28         | 2024-02 | checkpoints(thread_id PRIMARY KEY, checkpoint) — one pickled checkpoint per thread   |
 * | 0.0.29 – 0.0.43         | 2024-03 | checkpoints(thread_id, thread_ts, parent_ts, checkpoint) — a history, pickle at first |
 * | 0.0.44 – 0.1.6          | 2024-05 | + checkpoints.metadata (JSON: JsonPlusSerializer, pickle still read)                |
 * | 0.1.7 – 0.1.x           | 2024-07 | + writes(thread_id, thread_ts, task_id, idx, channel, value)                        |
 * | ≥ 0.2 (checkpoint-sqlite 1.0+), JS | 2024-08 | checkpoints(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata), writes(… checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) |
 *
 * (thread_ts and parent_ts only became checkpoint_id and parent_checkpoint_id: the values are the same uuid6 ids
 * from 0.0.49 on, ISO times before.) A layout before 0.2 is read through TEMP views with today's column names (temp
 * objects live in the connection, not in the file, and are found before the file's tables): a missing parent_ts,
 * metadata or writes table is that older release, read as it wrote it (no parent, `{}` metadata, no pending writes).
 * A column today's layout always has but this database lacks is no release's layout: exit 3 naming it, never a query
 * failing on it later.
 */
import type BetterSqlite3 from "better-sqlite3";
import { inputError } from "../../base/errors.js";

type DB = BetterSqlite3.Database;

/** The layout of a LangGraph SQLite database (see the module comment). */
export type LgSqliteLayout =
  | { kind: "current" }
  | {
      kind: "legacy";
      /** the release range that wrote this layout, as the messages name it */
      writtenBy: string;
      parentTs: boolean;
      metadata: boolean;
      writes: boolean;
    };

const CURRENT = {
  checkpoints: [
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
  ],
  writes: ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"],
};
const LEGACY = {
  checkpoints: ["thread_id", "thread_ts", "checkpoint"],
  writes: ["thread_id", "thread_ts", "task_id", "idx", "channel", "value"],
};
const CURRENT_BY =
  "LangGraph's SQLite savers since langgraph 0.2 (langgraph-checkpoint-sqlite 1.0, 2024-08) and every @langchain/langgraph-checkpoint-sqlite";

const columnsOf = (db: DB, table: string) =>
  new Set(db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table) as string[]);

const missingIn = (have: Set<string>, want: string[]) => want.filter((c) => !have.has(c));

/**
 * The LangGraph layout of a database with these tables, or undefined when it holds none (no `checkpoints` table, or
 * one no LangGraph release made). A LangGraph table that lacks a column every release with that table wrote is an
 * input error (exit 3) naming the column and the releases.
 */
export function lgSqliteLayout(db: DB, tables: Set<string>, file: string): LgSqliteLayout | undefined {
  if (!tables.has("checkpoints")) return undefined;
  const cp = columnsOf(db, "checkpoints");
  const wc = tables.has("writes") ? columnsOf(db, "writes") : new Set<string>();
  const legacy = (cp.has("thread_ts") || wc.has("thread_ts")) && !cp.has("checkpoint_id") && !cp.has("checkpoint_ns");
  const current = cp.has("checkpoint_id") || cp.has("checkpoint_ns");
  if (!legacy && !current && !tables.has("writes")) {
    if (cp.has("thread_id") && cp.has("checkpoint") && cp.size === 2)
      throw inputError(
        "langgraph-layout-0.0",
        "a LangGraph SQLite store of langgraph 0.0.21–0.0.28 (2024-02: checkpoints(thread_id, checkpoint), one pickled checkpoint per thread, no history): ckpt does not read Python pickle",
        { file },
      );
    return undefined; // another application's `checkpoints` table
  }
  if (legacy) {
    const lacks = missingIn(cp, LEGACY.checkpoints);
    if (lacks.length)
      throw damaged(
        file,
        "checkpoints",
        lacks,
        "the savers of langgraph 0.0.29–0.1.x (checkpoints(thread_id, thread_ts, …))",
      );
    const writes = tables.has("writes");
    if (writes) {
      const w = missingIn(wc, LEGACY.writes);
      if (w.length)
        throw damaged(file, "writes", w, "the savers of langgraph 0.1.7–0.1.x (writes(thread_id, thread_ts, …))");
    }
    const parentTs = cp.has("parent_ts");
    const metadata = cp.has("metadata");
    const writtenBy = writes
      ? "langgraph 0.1.7–0.1.x (2024-07)"
      : metadata
        ? "langgraph 0.0.44–0.1.6 (2024-05 to 2024-07: no writes table yet)"
        : parentTs
          ? "langgraph 0.0.29–0.0.43 (2024-03 to 2024-05: no metadata column, no writes table yet)"
          : "langgraph 0.0.29 or a copy without parent_ts (2024-03)";
    return { kind: "legacy", writtenBy, parentTs, metadata, writes };
  }
  const lacks = missingIn(cp, CURRENT.checkpoints);
  if (lacks.length) throw damaged(file, "checkpoints", lacks, CURRENT_BY);
  if (!tables.has("writes"))
    throw inputError(
      "langgraph-layout",
      `a LangGraph SQLite store without its writes table, which ${CURRENT_BY} create beside checkpoints(… checkpoint_ns, checkpoint_id …): no release wrote this store as it is (the table was dropped, or the file is a partial copy)`,
      { file },
    );
  const w = missingIn(wc, CURRENT.writes);
  if (w.length) throw damaged(file, "writes", w, CURRENT_BY);
  return { kind: "current" };
}

function damaged(file: string, table: string, lacks: string[], by: string) {
  const cols = lacks.map((c) => `'${c}'`).join(", ");
  return inputError(
    "langgraph-layout",
    `the LangGraph table ${table} has no column ${cols}, which ${by} always create: no release wrote this table as it is (a column was dropped, or another tool made it)`,
    { file },
  );
}

/** The TEMP views that read a layout before 0.2 with today's column names (a pickled payload's type says so). */
export function legacyViewsSql(l: Extract<LgSqliteLayout, { kind: "legacy" }>): string {
  // a pickle payload starts with the PROTO opcode 0x80 (protocol 2+): JSON never does
  const type = (col: string) => `CASE WHEN substr(${col}, 1, 1) = X'80' THEN 'pickle' END`;
  const writes = l.writes
    ? `SELECT thread_id, '' AS checkpoint_ns, thread_ts AS checkpoint_id, task_id, idx, channel, ${type("value")} AS type,
         value FROM main.writes`
    : // langgraph before 0.1.7 kept no pending writes: an empty table of today's columns
      `SELECT '' AS thread_id, '' AS checkpoint_ns, '' AS checkpoint_id, '' AS task_id, 0 AS idx, '' AS channel,
         NULL AS type, NULL AS value WHERE 0`;
  return `CREATE TEMP VIEW IF NOT EXISTS checkpoints AS
      SELECT thread_id, '' AS checkpoint_ns, thread_ts AS checkpoint_id,
             ${l.parentTs ? "parent_ts" : "NULL"} AS parent_checkpoint_id, ${type("checkpoint")} AS type, checkpoint,
             ${l.metadata ? "metadata" : "NULL"} AS metadata FROM main.checkpoints;
    CREATE TEMP VIEW IF NOT EXISTS writes AS ${writes};`;
}

/**
 * A layout before 0.2 is read through TEMP views with today's names; it is only read: a writing connection is refused
 * (the views cannot take writes, and ckpt never rewrites an old store into a new layout in place).
 */
export function legacyViews(db: DB, layout: LgSqliteLayout | undefined, file: string): void {
  if (layout?.kind !== "legacy") return;
  if (!db.readonly)
    throw inputError(
      "langgraph-old-layout",
      `a LangGraph SQLite store of ${layout.writtenBy}: ckpt reads this layout but does not change it; copy it into a new store with \`ckpt migrate --from\` it`,
      { file },
    );
  db.exec(legacyViewsSql(layout));
}
