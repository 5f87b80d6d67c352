/**
 * Opening an SQLite file to read, shared by ckpt's own SQLite saver and the LangGraph stores (a light module: the
 * plain saver must not load LangGraph's code).
 */
import { copyFileSync, existsSync, linkSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { CkptError, storeError } from "../base/errors.js";
import { loadBetterSqlite3 } from "./better-sqlite3.js";

type DatabaseClass = typeof BetterSqlite3;
/** Read-only connections not yet closed: closed, and their side files settled, if the process exits without close(). */
const stillOpen = new Set<BetterSqlite3.Database>();
let exitHooked = false;

/**
 * The files of an SQLite store with their sizes on disk: the database and its `-wal` when that holds anything (the
 * WAL's committed transactions are part of the store until a checkpoint moves them into the file). An empty `-wal`
 * holds none of it — most often it is the one a read-only connection made beside a WAL database, gone again when that
 * closes — and is not listed.
 */
export function sqliteFiles(path: string): Array<{ file: string; bytes: number }> {
  const size = (f: string) => (existsSync(f) ? statSync(f).size : -1);
  const [db, wal] = [size(path), size(`${path}-wal`)];
  return [
    ...(db >= 0 ? [{ file: basename(path), bytes: db }] : []),
    ...(wal > 0 ? [{ file: basename(`${path}-wal`), bytes: wal }] : []),
  ];
}

/**
 * The one read-only open of an SQLite file. Reading a WAL database makes SQLite create `-wal` and `-shm` files beside
 * it, which a read-only connection cannot remove when it closes. Reading never changes a store, and that includes its
 * folder: when this connection made them (none were there), closing it lets SQLite settle them the way it does for
 * any last connection: a writing connection that only reads the schema is opened and closed, and SQLite removes the
 * files only if it can lock the database exclusively (no other connection, in any process) and the WAL is empty. So
 * files another process is using are never touched, and the database file's bytes are never written (an empty WAL
 * has nothing to checkpoint). A database left with a hot journal is not opened for writing here (that would roll it
 * back). A caller that forgets close() gets the same at process exit.
 */
export function openReadOnlyDb(Database: DatabaseClass, path: string): BetterSqlite3.Database {
  const hadWal = existsSync(path + "-wal");
  let had = hadWal || existsSync(path + "-shm");
  if (hadWal && !existsSync(path + "-shm")) {
    try {
      return openAside(Database, path);
    } catch (e) {
      // the WAL went while it was being copied: its last connection (another process) closed and checkpointed it
      // into the file; the database is now a plain one, read in place below
      if ((e as { code?: string }).code !== "ENOENT" || existsSync(path + "-wal") || !existsSync(path)) throw e;
      had = existsSync(path + "-shm");
    }
  }
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const close = db.close.bind(db);
  db.close = () => {
    stillOpen.delete(db);
    close();
    if (!had) settleSideFiles(Database, path);
    return db;
  };
  if (!exitHooked) process.once("exit", closeForgotten);
  exitHooked = true;
  stillOpen.add(db);
  return db;
}

/**
 * A `-wal` but no `-shm` beside it (a database committed or copied with its WAL, no connection open: a connection in
 * WAL mode keeps the `-shm`): the committed transactions in the WAL are part of the database, but a read-only
 * connection would make a `-shm` it cannot remove, and removing it afterwards is unsafe (another process may have
 * opened the database meanwhile and be using it). An empty `-wal` is the same case (committed beside a database, or
 * left by a tool): the connection would still make the `-shm`. So the pair is read aside: the database hard-linked
 * (copied when the link fails, e.g. another file system) and the WAL copied into a temporary folder, read there
 * read-only, and the folder removed on close. The database's own folder is left exactly as it was.
 */
function openAside(Database: DatabaseClass, path: string): BetterSqlite3.Database {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-wal-"));
  try {
    const aside = join(dir, basename(path));
    try {
      linkSync(path, aside);
    } catch {
      copyFileSync(path, aside);
    }
    copyFileSync(path + "-wal", aside + "-wal");
    const db = new Database(aside, { readonly: true, fileMustExist: true });
    const close = db.close.bind(db);
    db.close = () => {
      stillOpen.delete(db);
      try {
        close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return db;
    };
    if (!exitHooked) process.once("exit", closeForgotten);
    exitHooked = true;
    stillOpen.add(db);
    return db;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

function closeForgotten(): void {
  for (const db of [...stillOpen]) db.close();
}

function settleSideFiles(Database: DatabaseClass, path: string): void {
  try {
    if (!existsSync(path + "-wal") || statSync(path + "-wal").size !== 0 || existsSync(path + "-journal")) return;
    const rw = new Database(path, { fileMustExist: true });
    try {
      rw.prepare("SELECT count(*) FROM sqlite_master").get();
    } finally {
      rw.close();
    }
  } catch {
    /* not writable, or busy: the files stay for SQLite's next connection to settle */
  }
}

/**
 * Open an SQLite file read-only, and read its schema once so that a database a read-only connection cannot read fails
 * here. A writer that crashed mid-transaction leaves a hot rollback journal (or a WAL index to rebuild) that only a
 * writing connection may settle (SQLITE_READONLY_ROLLBACK / _RECOVERY). `recover` (a store opened to be written
 * anyway) lets one writing connection settle it first, as any SQLite writer does on open; without it the error says
 * what happened and how to settle it, and the file is not touched.
 */
export async function openSqliteReadOnly(
  path: string,
  opts: { recover?: boolean; uri?: string } = {},
): Promise<BetterSqlite3.Database> {
  const Database = await loadBetterSqlite3(opts.uri ?? path);
  const open = (readonly: boolean) => {
    const db = readonly ? openReadOnlyDb(Database, path) : new Database(path, { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      db.prepare("SELECT count(*) FROM sqlite_master").get();
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  };
  try {
    try {
      return open(true);
    } catch (e) {
      if (!opts.recover || !needsWriter(e)) throw e;
      open(false).close();
      return open(true);
    }
  } catch (e) {
    throw sqliteOpenError(e, opts.uri ?? path, "cannot open the SQLite database read-only");
  }
}

/** Whether an SQLite error says a crashed writer left the database for a writing connection to settle. */
export function needsWriter(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "SQLITE_READONLY_ROLLBACK" || code === "SQLITE_READONLY_RECOVERY";
}

/** The store error for an SQLite file that could not be opened: a clear one for a database a crashed writer left behind. */
export function sqliteOpenError(e: unknown, file: string, what: string): CkptError {
  if (e instanceof CkptError) return e;
  if (needsWriter(e)) {
    return storeError(
      "sqlite-needs-writer",
      "a writer that crashed left this database to be rolled back (a hot journal) or its WAL index to be rebuilt, which a read-only open cannot do " +
        "and reading never changes a store: open it once with a writing command (e.g. ckpt migrate --to it, or sqlite3 <file> 'PRAGMA quick_check'), then read it",
      { file },
    );
  }
  return storeError("sqlite-open", `${what}: ${(e as Error).message}`, { file }, e);
}

/**
 * Put a database opened for writing in WAL mode, waiting for the write lock as long as the busy timeout would. SQLite
 * answers `PRAGMA journal_mode=WAL` on a database still in rollback-journal mode (a new file, or one another program
 * created) with SQLITE_BUSY at once, without calling the busy handler, while any other connection holds a write
 * transaction: a store created beside a live writer would fail with "database is locked" at once. Retried every 10 ms
 * until `timeoutMs`; then the last SQLITE_BUSY is thrown as it was.
 */
export function useWal(db: BetterSqlite3.Database, timeoutMs = 5000): void {
  const end = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || Date.now() >= end) throw e;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}
