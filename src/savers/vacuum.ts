/**
 * Giving a store's space back after a prune (`ckpt prune --vacuum`), every layout alike: SQLite `VACUUM` with the WAL
 * checkpointed before and after (sizes: the file with its WAL), PostgreSQL `VACUUM` of the layout's tables (sizes:
 * `pg_total_relation_size`, indexes and TOAST included).
 */
import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { storeError } from "../base/errors.js";
import type { VacuumReport } from "./langgraph/shared.js";

type DB = BetterSqlite3.Database;

const fileSize = (p: string) => (existsSync(p) ? statSync(p).size : 0);

/**
 * `VACUUM` of the file: the WAL (WAL mode) checkpointed and truncated first, so the copy starts from every committed
 * page, and again after, so the rewritten pages reach the file and the WAL is empty. Sizes are the file's plus its WAL's.
 */
export function sqliteVacuum(db: DB, path: string, dryRun: boolean): VacuumReport {
  const size = () => fileSize(path) + fileSize(`${path}-wal`);
  const before = size();
  const page = db.pragma("page_size", { simple: true }) as number;
  const freeNow = (db.pragma("freelist_count", { simple: true }) as number) * page;
  if (!dryRun) {
    const wal = db.pragma("journal_mode", { simple: true }) === "wal";
    if (wal) db.pragma("wal_checkpoint(TRUNCATE)");
    db.exec("VACUUM");
    if (wal) db.pragma("wal_checkpoint(TRUNCATE)");
  }
  return { parts: [{ name: basename(path), before, after: dryRun ? before : size() }], freeNow };
}

export function wrapVacuum<T>(path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw storeError("sqlite-io", `vacuuming ${path}: ${(e as Error).message}`, {}, e);
  }
}

/** A PostgreSQL query function (a pool: VACUUM must run outside a transaction). */
type Query = (sql: string, args?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/** `VACUUM` of `tables` of `schema` that exist, with their sizes before and after. */
export async function pgVacuumTables(
  query: Query,
  schema: string,
  tables: string[],
  dryRun: boolean,
): Promise<VacuumReport> {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const sizes = async () =>
    new Map(
      (
        await query(
          "SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname = ANY($2::text[]) ORDER BY 1",
          [schema, tables],
        )
      ).rows.map((r) => [r.name as string, Number(r.size)] as const),
    );
  const before = await sizes();
  if (!dryRun) for (const t of before.keys()) await query(`VACUUM ${q(schema)}.${q(t)}`);
  const after = dryRun ? before : await sizes();
  return { parts: [...before].map(([name, b]) => ({ name, before: b, after: after.get(name) ?? b })) };
}
