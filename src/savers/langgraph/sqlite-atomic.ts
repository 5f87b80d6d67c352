/** `LgStore.atomically` of a LangGraph SQLite store (sqlite.ts): one transaction under the database's write lock. */
import type BetterSqlite3 from "better-sqlite3";
import { storeError } from "../../base/errors.js";
import type { LgStore } from "./shared.js";

/**
 * LgStore.atomically over SQLite: the database's write lock (BEGIN IMMEDIATE, waited for while another writer holds
 * it, up to 2 minutes) is the lock, whatever its name; the writes inside nest as savepoints (better-sqlite3's
 * transactions do when one is open) and read back on this connection. A process killed before COMMIT leaves nothing:
 * SQLite rolls the transaction back when the database is next opened.
 */
export async function sqliteAtomically<T>(
  db: BetterSqlite3.Database,
  uri: string,
  rows: Omit<LgStore, "close" | "vacuum">,
  f: (tx: LgStore) => Promise<T>,
): Promise<T> {
  const inside: LgStore = {
    ...rows,
    atomically: () => Promise.reject(new Error("a transaction inside a transaction")),
    vacuum: () => Promise.reject(new Error("VACUUM cannot run inside a transaction")),
    close: async () => undefined,
  };
  for (const until = Date.now() + 120_000; ; ) {
    try {
      db.exec("BEGIN IMMEDIATE");
      break;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > until)
        throw storeError("sqlite-io", `starting a transaction (${uri}): ${(e as Error).message}`, {}, e);
    }
  }
  try {
    const r = await f(inside);
    db.exec("COMMIT");
    return r;
  } catch (e) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw e;
  }
}
