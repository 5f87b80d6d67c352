/**
 * The OpenAI Agents SDK for Python's `SQLiteSession` tables (src/agents/memory/sqlite_session.py), read-only:
 * `agent_sessions(session_id TEXT PRIMARY KEY, created_at, updated_at)` and `agent_messages(id INTEGER PRIMARY KEY
 * AUTOINCREMENT, session_id, message_data TEXT, created_at)`, one `json.dumps(item)` of a Responses API input item per
 * row. The table names are the session's constructor parameters (`sessions_table`, `messages_table`): the URI's
 * `?sessions_table=&messages_table=` name them (bare SQL identifiers, as Python interpolates them into its SQL).
 *
 * A session's items are its rows in `id` order, as `SQLiteSession.get_items` reads them (with a `limit` too: the
 * newest rows by id, returned oldest first). Python reads the messages table alone, so a session is any session id
 * either table holds. Python skips a row whose `message_data` is not JSON; here it is kept as its text and named
 * (`validate` reports it with its row id), and `show` leaves it out as the SDK does.
 *
 * The Saver view gives one document per session (the `openai-agents-session` format, formats/openai-agents/): the
 * session row and the message rows. It never writes, not even SQLite side files (the file is opened read-only).
 */
import type BetterSqlite3 from "better-sqlite3";
import { CkptError, inputError, storeError } from "../../base/errors.js";
import { loadBetterSqlite3 } from "../better-sqlite3.js";
import { openSqliteReadOnly, sqliteOpenError } from "../sqlite-open.js";
import { DEFAULT_NAMESPACE, type Saver, type ThreadInfo } from "../types.js";
import { SESSION_TABLES, sessionTables } from "./tables.js";

/** One stored row of a session: the parsed item, or the stored text when it is not JSON. */
export type SessionRow = { createdAt: string | null } & ({ item: unknown } | { text: string; reason: string });

/** The `openai-agents-session` format's document: one session of the store. */
export interface SessionDocument {
  /** the sessions table's row; null when only the messages table holds the session (Python still reads it) */
  session: { id: string; createdAt: string | null; updatedAt: string | null } | null;
  /** the messages table's rows of the session by row id (`/rows/<id>` names a row), in id order */
  rows: Record<string, SessionRow>;
  /** the tables it was read from, when they are not the default names */
  tables?: { sessions: string; messages: string };
  /** the session id (when `session` is null) */
  sessionId?: string;
}

/** `ls` row of a session. */
export interface SessionSummary {
  sessionId: string;
  items: number;
  bytes: number;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface OpenAISessionStore {
  readonly layout: "openai-agents-session";
  readonly uri: string;
  readonly tables: { sessions: string; messages: string };
  sessions(o?: { after?: string; limit?: number }): AsyncIterable<SessionSummary>;
  document(sessionId: string): SessionDocument | undefined;
  counts(): { sessions: number; items: number; orphanSessions: number };
  /**
   * `ckpt delete`: the session's rows of each table (its sessions row and its items), counted, and deleted in one
   * write transaction unless `dryRun` (a store opened to write); null when neither table holds the session.
   */
  erase(sessionId: string, dryRun: boolean): TableRows[] | null;
  /**
   * `ckpt prune --keep-last/--older-than`: the session's items written before `startedAt` beyond its newest `keep`
   * and older than `before` (ms), counted, and deleted in one write transaction unless `dryRun`; null: none go.
   */
  trim(sessionId: string, o: { keep: number; before: number; startedAt: number; dryRun: boolean }): TableRows[] | null;
  /** `ckpt prune --vacuum`: VACUUM of the file, its WAL checkpointed before and after (`dryRun`: measured only) */
  vacuum(o: { dryRun: boolean }): Promise<import("../langgraph/shared.js").VacuumReport>;
  close(): Promise<void>;
}

/** A table and how many of its rows an erasure removes (or would). */
export interface TableRows {
  table: string;
  rows: number;
}

/** Python's CURRENT_TIMESTAMP text ("YYYY-MM-DD HH:MM:SS", UTC) as ISO 8601; anything else as stored. */
export function isoOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = String(v);
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(s) ? `${s.replace(" ", "T")}Z` : s;
}

/** The tables' columns as the file has them (the sessions table may be missing: Python reads the messages alone). */
interface Have {
  sessions?: Set<string>;
  messages: Set<string>;
}

function sql(t: { sessions: string; messages: string }, h: Have) {
  const S = h.sessions !== undefined;
  const sCol = (c: string) => (h.sessions?.has(c) ? `s.${c}` : "NULL");
  const mCreated = h.messages.has("created_at") ? "created_at" : "NULL";
  const ids = S
    ? `SELECT session_id FROM "${t.sessions}" UNION SELECT session_id FROM "${t.messages}"`
    : `SELECT DISTINCT session_id FROM "${t.messages}"`;
  return {
    page: `SELECT i.session_id AS id, ${S ? sCol("created_at") : "NULL"} AS createdAt, ${S ? sCol("updated_at") : "NULL"} AS updatedAt,
        (SELECT COUNT(*) FROM "${t.messages}" m WHERE m.session_id = i.session_id) AS items,
        (SELECT COALESCE(SUM(LENGTH(CAST(m.message_data AS BLOB))), 0) FROM "${t.messages}" m WHERE m.session_id = i.session_id) AS bytes
      FROM (${ids}) i ${S ? `LEFT JOIN "${t.sessions}" s ON s.session_id = i.session_id` : ""}
      WHERE @after IS NULL OR i.session_id > @after ORDER BY i.session_id LIMIT @limit`,
    session: S
      ? `SELECT session_id AS id, ${sCol("created_at")} AS createdAt, ${sCol("updated_at")} AS updatedAt FROM "${t.sessions}" s WHERE session_id = ?`
      : "SELECT NULL AS id, NULL AS createdAt, NULL AS updatedAt WHERE ? IS NULL AND 0",
    rows: `SELECT id, ${mCreated} AS createdAt, message_data AS data FROM "${t.messages}" WHERE session_id = ? ORDER BY id ASC`,
    counts: `SELECT (SELECT COUNT(*) FROM (${ids})) AS sessions, (SELECT COUNT(*) FROM "${t.messages}") AS items,
        (SELECT COUNT(DISTINCT session_id) FROM "${t.messages}" WHERE ${S ? `session_id NOT IN (SELECT session_id FROM "${t.sessions}")` : "1"}) AS orphanSessions`,
  };
}

/** The columns of the session tables; one SQLiteSession has always written missing is an input error naming it. */
function haveOf(db: BetterSqlite3.Database, t: { sessions: string; messages: string }, uri: string): Have {
  const cols = (name: string) =>
    new Set(db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(name) as string[]);
  const h: Have = { messages: cols(t.messages) };
  const s = cols(t.sessions);
  if (s.size > 0) h.sessions = s;
  const need: Array<[string, Set<string>, string[]]> = [[t.messages, h.messages, ["id", "session_id", "message_data"]]];
  if (h.sessions) need.push([t.sessions, h.sessions, ["session_id"]]);
  for (const [name, have, required] of need) {
    const missing = required.filter((c) => !have.has(c));
    if (missing.length)
      throw inputError(
        "openai-session-missing-column",
        `table ${name} has no ${missing.map((c) => `'${c}'`).join(", ")} column: SQLiteSession (the Agents SDK for Python) has always written ${required.join(", ")} — not a session table ckpt can read`,
        { file: uri },
      );
  }
  return h;
}

/** A stored message_data value as a row: parsed as Python's json.loads would, else kept as text. */
function rowOf(r: { id: number; createdAt: unknown; data: unknown }): SessionRow {
  const base = { createdAt: isoOf(r.createdAt) };
  const text = typeof r.data === "string" ? r.data : Buffer.isBuffer(r.data) ? r.data.toString("utf8") : String(r.data);
  if (typeof r.data !== "string")
    return { ...base, text, reason: `a ${r.data === null ? "NULL" : typeof r.data} value, not JSON text` };
  try {
    return { ...base, item: JSON.parse(text) };
  } catch (e) {
    return { ...base, text, reason: `not JSON: ${(e as Error).message}` };
  }
}

/**
 * Open an SQLite file holding SQLiteSession's tables, read-only; `write` (ckpt delete --yes): read-write, waiting on
 * a live writer's lock as SQLiteSession's own connection does (its journal mode left as it is).
 */
export async function openSessionSqlite(
  path: string,
  uri: string,
  params: URLSearchParams,
  write = false,
): Promise<OpenAISessionStore> {
  const tables = sessionTables(params);
  const db: BetterSqlite3.Database = write
    ? await openSqliteWritable(path, uri)
    : await openSqliteReadOnly(path, { uri });
  let q: ReturnType<typeof sql>;
  let have: Have;
  let stmts: Record<string, BetterSqlite3.Statement>;
  try {
    have = haveOf(db, tables, uri);
    q = sql(tables, have);
    stmts = Object.fromEntries(Object.entries(q).map(([k, s]) => [k, db.prepare(s)]));
  } catch (e) {
    db.close();
    if (e instanceof CkptError) throw e;
    throw storeError(
      "openai-session-tables",
      `the tables '${tables.sessions}' and '${tables.messages}' are not SQLiteSession's (${(e as Error).message})`,
      { file: uri },
      e,
    );
  }
  const custom = tables.sessions !== SESSION_TABLES.sessions || tables.messages !== SESSION_TABLES.messages;
  return {
    layout: "openai-agents-session",
    uri,
    tables,
    async *sessions(o = {}) {
      let after = o.after ?? null;
      let left = o.limit ?? Number.POSITIVE_INFINITY;
      while (left > 0) {
        const page = stmts.page!.all({ after, limit: Math.min(500, left) }) as Array<Record<string, unknown>>;
        if (page.length === 0) return;
        for (const r of page) {
          left--;
          yield {
            sessionId: String(r.id),
            items: Number(r.items),
            bytes: Number(r.bytes),
            createdAt: isoOf(r.createdAt),
            updatedAt: isoOf(r.updatedAt),
          };
        }
        after = String(page[page.length - 1]!.id);
      }
    },
    document(sessionId) {
      const s = stmts.session!.get(sessionId) as Record<string, unknown> | undefined;
      const stored = stmts.rows!.all(sessionId) as Array<{ id: number; createdAt: unknown; data: unknown }>;
      if (!s && stored.length === 0) return undefined;
      const rows: Record<string, SessionRow> = {};
      for (const r of stored) rows[String(r.id)] = rowOf(r);
      return {
        session: s ? { id: String(s.id), createdAt: isoOf(s.createdAt), updatedAt: isoOf(s.updatedAt) } : null,
        ...(s ? {} : { sessionId }),
        rows,
        ...(custom ? { tables } : {}),
      };
    },
    counts() {
      const r = stmts.counts!.get() as Record<string, number>;
      return { sessions: r.sessions!, items: r.items!, orphanSessions: r.orphanSessions! };
    },
    erase: (sessionId, dryRun) => eraseSession(db, tables, have, sessionId, dryRun),
    trim: (sessionId, o) => trimSession(db, tables, have, sessionId, o),
    async vacuum(o) {
      const { sqliteVacuum, wrapVacuum } = await import("../vacuum.js");
      return wrapVacuum(db.name, () => sqliteVacuum(db, db.name, o.dryRun));
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** `OpenAISessionStore.erase`: the session's rows counted (dry run) or deleted in one IMMEDIATE transaction. */
function eraseSession(
  db: BetterSqlite3.Database,
  tables: OpenAISessionStore["tables"],
  have: Have,
  sessionId: string,
  dryRun: boolean,
): ReturnType<OpenAISessionStore["erase"]> {
  const per = [
    ...(have.sessions ? [{ table: tables.sessions, col: "session_id" }] : []),
    { table: tables.messages, col: "session_id" },
  ];
  const count = () =>
    per.map((t) => ({
      table: t.table,
      rows: Number(db.prepare(`SELECT COUNT(*) FROM "${t.table}" WHERE ${t.col} = ?`).pluck().get(sessionId)),
    }));
  // counted and deleted in one IMMEDIATE transaction: what a live writer commits after it is its own
  const run = db.transaction(() => {
    const rows = count();
    if (rows.every((r) => r.rows === 0)) return null;
    if (!dryRun)
      for (const t of [...per].reverse()) db.prepare(`DELETE FROM "${t.table}" WHERE ${t.col} = ?`).run(sessionId);
    return rows;
  });
  return dryRun ? run() : run.immediate();
}

/** `OpenAISessionStore.trim`: a session's older items beyond its newest `keep`, counted or deleted in one transaction. */
function trimSession(
  db: BetterSqlite3.Database,
  tables: OpenAISessionStore["tables"],
  have: Have,
  sessionId: string,
  o: Parameters<OpenAISessionStore["trim"]>[1],
): ReturnType<OpenAISessionStore["trim"]> {
  // the session's items by id, newest first: those written before the prune started beyond the newest `keep` of
  // them and older than `before` go (an item without a time counts as old)
  const m = `"${tables.messages}"`;
  const created = have.messages.has("created_at") ? "created_at" : "NULL";
  const run = db.transaction(() => {
    const rows = db
      .prepare(`SELECT id, ${created} AS createdAt FROM ${m} WHERE session_id = ? ORDER BY id DESC`)
      .all(sessionId) as Array<{ id: number; createdAt: unknown }>;
    const at = (r: { createdAt: unknown }) => {
      const iso = isoOf(r.createdAt);
      const t = iso === null ? Number.NaN : Date.parse(iso);
      return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
    };
    const old = rows.filter((r) => at(r) < o.startedAt);
    const gone = old.slice(o.keep).filter((r) => at(r) < o.before);
    if (gone.length === 0) return null;
    if (!o.dryRun) {
      const del = db.prepare(`DELETE FROM ${m} WHERE id = ?`);
      for (const r of gone) del.run(r.id);
    }
    return [{ table: tables.messages, rows: gone.length }];
  });
  return o.dryRun ? run() : run.immediate();
}

/** The file opened to write (never created: `ckpt delete` names a store that exists). */
async function openSqliteWritable(path: string, uri: string): Promise<BetterSqlite3.Database> {
  const Database = await loadBetterSqlite3(uri);
  try {
    const db = new Database(path, { fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    return db;
  } catch (e) {
    throw sqliteOpenError(e, uri, "cannot open the SQLiteSession store");
  }
}

export interface OpenAISessionSaver extends Saver {
  readonly openaiSession: OpenAISessionStore;
}

/** The Saver view: one document per session, read-only. */
export function openaiSessionSaver(store: OpenAISessionStore): OpenAISessionSaver {
  const readOnly = () => {
    throw storeError(
      "openai-session-read-only",
      `${store.uri}: an Agents SDK SQLiteSession store is read-only here (ckpt migrate reads it into another store)`,
    );
  };
  const load = async (sessionId: string) => {
    const d = store.document(sessionId);
    return d && JSON.stringify(d, null, 2);
  };
  return {
    uri: store.uri,
    openaiSession: store,
    load,
    loadMany: (keys) => Promise.all(keys.map((k) => load(k.threadId))),
    save: async () => readOnly(),
    saveMany: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (id) => store.document(id) !== undefined,
    async *list(options = {}): AsyncIterable<ThreadInfo> {
      for await (const s of store.sessions({ after: options.after, limit: options.limit }))
        yield {
          namespace: options.namespace ?? DEFAULT_NAMESPACE,
          threadId: s.sessionId,
          bytes: s.bytes,
          ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}),
        };
    },
    async *scan(options = {}) {
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: Array<{ namespace: string; threadId: string; text: string }> = [];
      for await (const s of store.sessions()) {
        const text = await load(s.sessionId);
        if (text !== undefined)
          batch.push({ namespace: options.namespace ?? DEFAULT_NAMESPACE, threadId: s.sessionId, text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    count: async () => store.counts().sessions,
    namespaces: async () => [DEFAULT_NAMESPACE],
    close: () => store.close(),
  };
}
