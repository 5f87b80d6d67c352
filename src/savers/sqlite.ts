/**
 * `sqlite:<path>` — the embedded default (better-sqlite3, WAL). Layout (schema version 1):
 *   ckpt_meta(key TEXT PRIMARY KEY, value TEXT)                       -- ('schema_version', '1')
 *   ckpt_checkpoints(namespace TEXT, thread_id TEXT, doc TEXT NOT NULL, -- the document's JSON text, as given
 *                    bytes INTEGER NOT NULL, updated_at TEXT NOT NULL,  -- ISO 8601 of the write
 *                    PRIMARY KEY (namespace, thread_id)) WITHOUT ROWID
 * Created on first use. A database with a newer schema version is refused.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { storeError } from "../core/errors.js";
import { checkThreadId } from "./common.js";
import { DEFAULT_NAMESPACE, type ListOptions, type Saver, type SaverRecord, type ThreadInfo } from "./types.js";

export const SQLITE_SCHEMA_VERSION = 1;

export async function createSqliteSaver(path: string, uri: string, defaultNamespace = DEFAULT_NAMESPACE): Promise<Saver> {
  const { default: Database } = await import("better-sqlite3");
  let db: import("better-sqlite3").Database;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    db.exec(`CREATE TABLE IF NOT EXISTS ckpt_meta (key TEXT PRIMARY KEY, value TEXT);
      CREATE TABLE IF NOT EXISTS ckpt_checkpoints (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, doc TEXT NOT NULL,
        bytes INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (namespace, thread_id)) WITHOUT ROWID;
      INSERT OR IGNORE INTO ckpt_meta (key, value) VALUES ('schema_version', '${SQLITE_SCHEMA_VERSION}');`);
  } catch (e) {
    throw storeError("sqlite-open", `cannot open the SQLite database: ${(e as Error).message}`, { file: path });
  }
  const version = Number((db.prepare("SELECT value FROM ckpt_meta WHERE key = 'schema_version'").get() as { value: string }).value);
  if (version > SQLITE_SCHEMA_VERSION) {
    db.close();
    throw storeError("sqlite-schema", `database schema version ${version} is newer than this ckpt supports (${SQLITE_SCHEMA_VERSION}): upgrade ckpt`, { file: path });
  }
  const q = {
    load: db.prepare("SELECT doc FROM ckpt_checkpoints WHERE namespace = ? AND thread_id = ?").pluck(),
    upsert: db.prepare(
      "INSERT INTO ckpt_checkpoints (namespace, thread_id, doc, bytes, updated_at) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (namespace, thread_id) DO UPDATE SET doc = excluded.doc, bytes = excluded.bytes, updated_at = excluded.updated_at",
    ),
    del: db.prepare("DELETE FROM ckpt_checkpoints WHERE namespace = ? AND thread_id = ?"),
    page: db.prepare(
      "SELECT thread_id, bytes, updated_at FROM ckpt_checkpoints WHERE namespace = ? AND thread_id > ? ORDER BY thread_id LIMIT ?",
    ),
    namespaces: db.prepare("SELECT DISTINCT namespace FROM ckpt_checkpoints ORDER BY namespace").pluck(),
  };
  const wrap = <T>(what: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw storeError("sqlite-io", `${what}: ${(e as Error).message}`, { file: path });
    }
  };
  const saveTx = db.transaction((records: SaverRecord[]) => {
    const now = new Date().toISOString();
    for (const r of records) q.upsert.run(r.namespace, r.threadId, r.text, Buffer.byteLength(r.text), now);
  });
  // SQLite compares TEXT with memcmp on UTF-8; ckpt orders by UTF-16 code units. They agree except for
  // characters beyond U+FFFF vs U+E000–U+FFFF, which is acceptable for paging (documented).
  return {
    uri,
    load: async (threadId, ns) => wrap("cannot read", () => q.load.get(ns ?? defaultNamespace, threadId) as string | undefined),
    async save(threadId, text, ns) {
      checkThreadId(threadId);
      wrap("cannot write", () => saveTx([{ namespace: ns ?? defaultNamespace, threadId, text }]));
    },
    delete: async (threadId, ns) => wrap("cannot delete", () => q.del.run(ns ?? defaultNamespace, threadId).changes > 0),
    exists: async (threadId, ns) => wrap("cannot read", () => q.load.get(ns ?? defaultNamespace, threadId) !== undefined),
    async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
      const namespace = options.namespace ?? defaultNamespace;
      let after = options.after ?? "";
      let left = options.limit ?? Infinity;
      const first = options.after === undefined;
      let includeEmpty = first; // "" is not a valid thread id, so `> ''` never skips a real one
      void includeEmpty;
      while (left > 0) {
        const rows = wrap("cannot list", () => q.page.all(namespace, after, Math.min(500, left)) as Array<{ thread_id: string; bytes: number; updated_at: string }>);
        if (rows.length === 0) return;
        for (const r of rows) {
          yield { namespace, threadId: r.thread_id, bytes: r.bytes, updatedAt: r.updated_at };
          left--;
        }
        after = rows[rows.length - 1]!.thread_id;
        includeEmpty = false;
      }
    },
    namespaces: async () => wrap("cannot list", () => q.namespaces.all() as string[]),
    async saveMany(records) {
      for (const r of records) checkThreadId(r.threadId);
      wrap("cannot write", () => saveTx(records));
    },
    async close() {
      db.close();
    },
  };
}
