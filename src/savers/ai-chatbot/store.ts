/**
 * The Chat SDK template's tables through better-sqlite3 (an SQLite file) or pg (a PostgreSQL schema), one store
 * type (types.ts). The template itself ships PostgreSQL only (Drizzle `pg-core`); an SQLite store holds the same
 * tables with SQLite's types (JSON as text, timestamps as ISO 8601 text or epoch milliseconds).
 *
 * Opened to read: SQLite read-only, PostgreSQL one read-only session. Opened to write (a migration's target): a
 * transaction per batch. Queries are written once, with `$n` parameters (SQLite's become `?`, in order).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { inputError, storeError } from "../../base/errors.js";
import { openSqliteReadOnly, sqliteOpenError } from "../sqlite-open.js";
import {
  type AiChatbotBatch,
  type AiChatbotStore,
  type ChatRow,
  type ChatSummary,
  type MessageV1Row,
  type MessageV2Row,
  type Unreadable,
  type UserRow,
  AI_CHATBOT_TABLES as T,
} from "./types.js";
import { loadBetterSqlite3 } from "../better-sqlite3.js";
import type { VacuumReport } from "../langgraph/shared.js";
import { pgErrorText } from "../pg-errors.js";

type Raw = Record<string, unknown>;

/** The little of SQL the store needs, on either backend. */
interface Sql {
  kind: "sqlite" | "postgres";
  /** a table's name, qualified and quoted */
  t(name: string): string;
  all(sql: string, args?: unknown[]): Promise<Raw[]>;
  /** statements in one transaction: the rows each changed */
  tx(statements: Array<[string, unknown[]]>): Promise<number[]>;
  tables(): Promise<Set<string>>;
  /** a table's columns */
  columns(table: string): Promise<Set<string>>;
  /** the DDL of the four tables */
  ddl(): string;
  /** `ckpt prune --vacuum`: VACUUM (SQLite: the file, WAL checkpointed; PostgreSQL: these tables) */
  vacuum(tables: string[], dryRun: boolean): Promise<VacuumReport>;
  close(): Promise<void>;
}

const q = (s: string) => `"${s.replaceAll('"', '""')}"`;

// ------------------------------------------------------------------------------------------------------ backends

/** An SQLite file: read-only, or to write (created with its folder when missing). */
export async function sqliteSql(path: string, uri: string, write: boolean): Promise<Sql> {
  let db: BetterSqlite3.Database;
  if (!write) db = await openSqliteReadOnly(path, { uri });
  else {
    const Database = await loadBetterSqlite3(uri);
    try {
      if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
      db = new Database(path);
      db.pragma("busy_timeout = 5000");
    } catch (e) {
      throw sqliteOpenError(e, uri, "cannot open the Chat SDK SQLite store");
    }
  }
  const lite = (sql: string) => sql.replace(/\$\d+/g, "?");
  const fail = (e: unknown): never => {
    throw storeError("sqlite-io", `${uri}: ${(e as Error).message}`, { file: uri }, e);
  };
  return {
    kind: "sqlite",
    t: q,
    async all(sql, args = []) {
      try {
        return db.prepare(lite(sql)).all(...(args as unknown[])) as Raw[];
      } catch (e) {
        return fail(e);
      }
    },
    async tx(statements) {
      try {
        return db
          .transaction(() => statements.map(([sql, args]) => db.prepare(lite(sql)).run(...(args as unknown[])).changes))
          .immediate();
      } catch (e) {
        return fail(e);
      }
    },
    async tables() {
      return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    },
    async columns(table) {
      return new Set(db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table) as string[]);
    },
    ddl: () => SQLITE_DDL,
    async vacuum(_tables, dryRun) {
      const { sqliteVacuum, wrapVacuum } = await import("../vacuum.js");
      return wrapVacuum(path, () => sqliteVacuum(db, path, dryRun));
    },
    async close() {
      db.close();
    },
  };
}

/** A PostgreSQL schema: one read-only session, or a pool of 2 to write. */
export async function postgresSql(url: string, uri: string, schema: string, write: boolean): Promise<Sql> {
  const { connectPg } = await import("../mastra/postgres.js");
  const c = await connectPg(url, uri, write);
  const S = `${q(schema)}.`;
  const fail = (e: unknown): never => {
    throw storeError("postgres-query", `${uri}: ${pgErrorText(e)}`, {}, e);
  };
  return {
    kind: "postgres",
    t: (name) => `${S}${q(name)}`,
    async all(sql, args = []) {
      try {
        return (await c.query(sql, args)).rows as Raw[];
      } catch (e) {
        return fail(e);
      }
    },
    async tx(statements) {
      // its 'error' listener: guardPool (mastra/postgres.ts connectPg)
      const client = await (c as unknown as pg.Pool).connect().catch(fail);
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const changed: number[] = [];
        for (const [sql, args] of statements) changed.push((await client.query(sql, args)).rowCount ?? 0);
        await client.query("COMMIT");
        return changed;
      } catch (e) {
        broken = e as Error;
        await client.query("ROLLBACK").catch(() => undefined);
        return fail(e);
      } finally {
        client.release(broken); // a client that failed is discarded, not handed to the next statement
      }
    },
    async tables() {
      const r = await c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]);
      return new Set(r.rows.map((x: { table_name: string }) => x.table_name));
    },
    async columns(table) {
      const r = await c.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
        [schema, table],
      );
      return new Set(r.rows.map((x: { column_name: string }) => x.column_name));
    },
    ddl: () => pgDdl(schema),
    async vacuum(tables, dryRun) {
      const { pgVacuumTables } = await import("../vacuum.js");
      try {
        return await pgVacuumTables((sql, args) => c.query(sql, args), schema, tables, dryRun);
      } catch (e) {
        return fail(e);
      }
    },
    close: () => c.end(),
  };
}

/** The template's tables as its migrations leave them (lib/db/migrations 0000-0008), in a schema. */
function pgDdl(schema: string): string {
  const s = `${q(schema)}.`;
  return `CREATE SCHEMA IF NOT EXISTS ${q(schema)};
CREATE TABLE IF NOT EXISTS ${s}"User" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "email" varchar(64) NOT NULL, "password" varchar(64));
CREATE TABLE IF NOT EXISTS ${s}"Chat" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "createdAt" timestamp NOT NULL, "userId" uuid NOT NULL REFERENCES ${s}"User"("id"), "title" text NOT NULL,
  "visibility" varchar DEFAULT 'private' NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}"Message" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "chatId" uuid NOT NULL REFERENCES ${s}"Chat"("id"), "role" varchar NOT NULL, "content" json NOT NULL,
  "createdAt" timestamp NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}"Message_v2" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "chatId" uuid NOT NULL REFERENCES ${s}"Chat"("id"), "role" varchar NOT NULL, "parts" json NOT NULL,
  "attachments" json NOT NULL, "createdAt" timestamp NOT NULL);`;
}

/** The same tables with SQLite's types. */
const SQLITE_DDL = `CREATE TABLE IF NOT EXISTS "User" ("id" TEXT PRIMARY KEY NOT NULL, "email" TEXT NOT NULL, "password" TEXT);
CREATE TABLE IF NOT EXISTS "Chat" ("id" TEXT PRIMARY KEY NOT NULL, "createdAt" TEXT NOT NULL,
  "userId" TEXT NOT NULL REFERENCES "User"("id"), "title" TEXT NOT NULL, "visibility" TEXT DEFAULT 'private' NOT NULL);
CREATE TABLE IF NOT EXISTS "Message" ("id" TEXT PRIMARY KEY NOT NULL, "chatId" TEXT NOT NULL REFERENCES "Chat"("id"),
  "role" TEXT NOT NULL, "content" TEXT NOT NULL, "createdAt" TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS "Message_v2" ("id" TEXT PRIMARY KEY NOT NULL, "chatId" TEXT NOT NULL REFERENCES "Chat"("id"),
  "role" TEXT NOT NULL, "parts" TEXT NOT NULL, "attachments" TEXT NOT NULL, "createdAt" TEXT NOT NULL);`;

// ------------------------------------------------------------------------------------------------------ decoding

/** A timestamp column as ISO 8601 UTC text: PostgreSQL's (read as text, UTC), SQLite's text or epoch ms. */
function isoOf(v: unknown): string {
  if (typeof v === "number") return new Date(v).toISOString();
  if (v instanceof Date) return v.toISOString();
  const s = String(v);
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(" ", "T")}Z`);
  return Number.isFinite(t) ? new Date(t).toISOString() : s;
}

/** A JSON column's text decoded; a text that is not JSON stays as it is and is named. */
function jsonOf(v: unknown, column: string, bad: Unreadable[]): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch (e) {
    bad.push({ column, reason: `not JSON: ${(e as Error).message}` });
    return v;
  }
}

const chatOf = (r: Raw): ChatRow => ({
  id: String(r.id),
  createdAt: isoOf(r.createdAt),
  title: String(r.title),
  userId: String(r.userId),
  visibility: String(r.visibility),
});

function v1Of(r: Raw): MessageV1Row {
  const bad: Unreadable[] = [];
  const m: MessageV1Row = {
    id: String(r.id),
    chatId: String(r.chatId),
    role: String(r.role),
    content: jsonOf(r.content, "content", bad),
    createdAt: isoOf(r.createdAt),
  };
  if (bad.length) m.unreadable = bad;
  return m;
}

function v2Of(r: Raw): MessageV2Row {
  const bad: Unreadable[] = [];
  const m: MessageV2Row = {
    id: String(r.id),
    chatId: String(r.chatId),
    role: String(r.role),
    parts: jsonOf(r.parts, "parts", bad),
    attachments: jsonOf(r.attachments, "attachments", bad),
    createdAt: isoOf(r.createdAt),
  };
  if (bad.length) m.unreadable = bad;
  return m;
}

/**
 * The columns the template's tables have had since its first migrations; `Chat.visibility` (a later migration's, read
 * as its default 'private'), `Message_v2.attachments` (read as none) and `User.password` may be missing.
 */
const REQUIRED: Record<string, string[]> = {
  [T.chats]: ["id", "createdAt", "userId", "title"],
  [T.messagesV1]: ["id", "chatId", "role", "content", "createdAt"],
  [T.messagesV2]: ["id", "chatId", "role", "parts", "createdAt"],
  [T.users]: ["id", "email"],
};

/** The columns of the tables the store has; a required one missing is an input error naming it. */
async function columnsOf(sql: Sql, tables: Set<string>, uri: string): Promise<Record<string, Set<string>>> {
  const out: Record<string, Set<string>> = {};
  for (const [t, need] of Object.entries(REQUIRED)) {
    if (!tables.has(t)) continue;
    out[t] = await sql.columns(t);
    const missing = need.filter((c) => !out[t]!.has(c));
    if (missing.length)
      throw inputError(
        "ai-chatbot-missing-column",
        `${uri}: table ${t} has no ${missing.map((c) => `'${c}'`).join(", ")} column${missing.length > 1 ? "s" : ""}: the Chat SDK template's ${t} has had ${need.join(", ")} since its first migrations (lib/db/migrations) — not a Chat SDK table ckpt can read`,
        { file: uri },
      );
  }
  return out;
}

/**
 * The tables the store holds (read once, again after a setup) and their columns: `col` is a column, or `missing` under
 * its name where the table lacks it.
 */
function shapeOf(sql: Sql, uri: string) {
  let tableSet: Set<string> | undefined;
  let cols: Record<string, Set<string>> = {};
  const tables = async () => {
    if (!tableSet) {
      const t = await sql.tables();
      cols = await columnsOf(sql, t, uri);
      tableSet = t;
    }
    return tableSet;
  };
  const col = (table: string, c: string, missing: string, prefix = "", present = `${prefix}${q(c)}`) =>
    cols[table] && !cols[table]!.has(c) ? `${missing} AS ${q(c)}` : present;
  return { tables, col, reset: () => void (tableSet = undefined) };
}

/** Chats by id with their message counts, a page at a time. */
async function* listChats(
  sql: Sql,
  tables: () => Promise<Set<string>>,
  o: { after?: string; limit?: number },
  visibility: () => string,
): AsyncIterable<ChatSummary> {
  const pg = sql.kind === "postgres";
  const has = await tables();
  const v1 = has.has(T.messagesV1) ? `(SELECT count(*) FROM ${sql.t(T.messagesV1)} m WHERE m."chatId" = c."id")` : "0";
  const users = has.has(T.users);
  const limit = o.limit ?? Number.MAX_SAFE_INTEGER;
  let after = o.after ?? "";
  let n = 0;
  while (n < limit) {
    const page = await sql.all(
      `SELECT c."id", c."title", c."userId", ${visibility()}, ${pg ? `to_char(c."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : `c."createdAt"`} AS "createdAt",
         ${users ? `(SELECT u."email" FROM ${sql.t(T.users)} u WHERE u."id" = c."userId")` : "NULL"} AS "email",
         ${v1} AS "v1", (SELECT count(*) FROM ${sql.t(T.messagesV2)} m WHERE m."chatId" = c."id") AS "v2"
       FROM ${sql.t(T.chats)} c WHERE c."id"${pg ? "::text" : ""} > $1 ORDER BY c."id"${pg ? "::text" : ""} LIMIT $2`,
      [after, Math.min(500, limit - n)],
    );
    if (!page.length) return;
    for (const r of page) {
      n++;
      yield {
        ...chatOf(r),
        email: r.email === null || r.email === undefined ? null : String(r.email),
        messages: Number(r.v1),
        messagesV2: Number(r.v2),
      };
    }
    after = String(page[page.length - 1]!.id);
  }
}

/** A batch in one transaction: users and chats kept when present, Message_v2 rows that must not exist. */
async function writeBatch(sql: Sql, batch: AiChatbotBatch): Promise<void> {
  const pg = sql.kind === "postgres";
  const keep = pg ? ' ON CONFLICT ("id") DO NOTHING' : "";
  const or = pg ? "" : " OR IGNORE";
  const json = (n: number) => (pg ? `$${n}::json` : `$${n}`);
  const st: Array<[string, unknown[]]> = [];
  for (const u of batch.users)
    st.push([
      `INSERT${or} INTO ${sql.t(T.users)} ("id", "email", "password") VALUES ($1, $2, $3)${keep}`,
      [u.id, u.email, u.password],
    ]);
  for (const c of batch.chats)
    st.push([
      `INSERT${or} INTO ${sql.t(T.chats)} ("id", "createdAt", "userId", "title", "visibility") VALUES ($1, $2, $3, $4, $5)${keep}`,
      [c.id, c.createdAt, c.userId, c.title, c.visibility],
    ]);
  for (const m of batch.messages)
    st.push([
      `INSERT INTO ${sql.t(T.messagesV2)} ("id", "chatId", "role", "parts", "attachments", "createdAt")
       VALUES ($1, $2, $3, ${json(4)}, ${json(5)}, $6)`,
      [m.id, m.chatId, m.role, JSON.stringify(m.parts), JSON.stringify(m.attachments), m.createdAt],
    ]);
  await sql.tx(st);
}

// ------------------------------------------------------------------------------------------------------ the store

/** What the store's methods share: the backend, its table shape and the SQL spellings that differ by backend. */
function contextOf(sql: Sql, uri: string) {
  const pg = sql.kind === "postgres";
  // JSON columns and timestamps read as text on both backends; ties in createdAt in the order rows are stored
  const ts = (c: string) => (pg ? `to_char(${q(c)}, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${q(c)}` : q(c));
  const js = (c: string) => (pg ? `${q(c)}::text AS ${q(c)}` : q(c));
  const stored = pg ? "ctid" : "rowid";
  const { tables, col, reset } = shapeOf(sql, uri);
  const visibility = (prefix = "") => col(T.chats, "visibility", "'private'", prefix);
  const count = async (table: string, where = "", args: unknown[] = []) =>
    (await tables()).has(table)
      ? Number((await sql.all(`SELECT count(*) AS n FROM ${sql.t(table)}${where}`, args))[0]!.n)
      : 0;
  const idsIn = (n: number) => (pg ? `= ANY($${n}::text[]::uuid[])` : `IN (SELECT value FROM json_each($${n}))`);
  const idsArg = (ids: string[]) => (pg ? ids : JSON.stringify(ids));
  return { sql, pg, ts, js, stored, tables, col, reset, visibility, count, idsIn, idsArg };
}
type Ctx = ReturnType<typeof contextOf>;

/** The store over either backend. */
export function aiChatbotStore(sql: Sql, uri: string): AiChatbotStore {
  const c = contextOf(sql, uri);
  const { tables, reset, count } = c;
  return {
    layout: "ai-chatbot",
    kind: sql.kind,
    uri,
    tables,
    async setup() {
      const ddl = sql.ddl();
      await sql.tx(ddl.split(";\n").map((s): [string, unknown[]] => [s, []]));
      reset();
    },
    ...readsOf(c),
    write: (batch) => writeBatch(sql, batch),
    erase: (chatId, dryRun) => eraseChat(sql, tables, count, chatId, dryRun),
    eraseUser: (userId, dryRun) => eraseUser(sql, tables, count, userId, dryRun),
    ...maintenanceOf(c),
    close: () => sql.close(),
  };
}

/** The store's reads: chats, users, messages, counts. */
function readsOf(
  c: Ctx,
): Pick<
  AiChatbotStore,
  "chats" | "chat" | "user" | "messagesV1" | "messagesV2" | "counts" | "existing" | "chatsWithV2"
> {
  const { sql, pg, ts, js, stored, tables, col, visibility, count, idsIn, idsArg } = c;
  return {
    chats: (o = {}) => listChats(sql, tables, o, () => visibility("c.")),
    async chat(id) {
      await tables();
      const r = await sql.all(
        `SELECT "id", "title", "userId", ${visibility()}, ${ts("createdAt")} FROM ${sql.t(T.chats)} WHERE "id"${pg ? "::text" : ""} = $1`,
        [id],
      );
      return r[0] && chatOf(r[0]);
    },
    async user(id) {
      if (!(await tables()).has(T.users)) return undefined;
      const r = await sql.all(
        `SELECT "id", "email", ${col(T.users, "password", "NULL")} FROM ${sql.t(T.users)} WHERE "id"${pg ? "::text" : ""} = $1`,
        [id],
      );
      return (
        r[0] &&
        ({
          id: String(r[0].id),
          email: String(r[0].email),
          password: (r[0].password as string | null) ?? null,
        } satisfies UserRow)
      );
    },
    async messagesV1(chatId) {
      if (!(await tables()).has(T.messagesV1)) return [];
      const rows = await sql.all(
        `SELECT "id", "chatId", "role", ${js("content")}, ${ts("createdAt")} FROM ${sql.t(T.messagesV1)}
         WHERE "chatId"${pg ? "::text" : ""} = $1 ORDER BY "createdAt" ASC, ${stored}`,
        [chatId],
      );
      return rows.map(v1Of);
    },
    async messagesV2(chatId) {
      await tables();
      const attachments = col(T.messagesV2, "attachments", "'[]'", "", js("attachments"));
      const rows = await sql.all(
        `SELECT "id", "chatId", "role", ${js("parts")}, ${attachments}, ${ts("createdAt")} FROM ${sql.t(T.messagesV2)}
         WHERE "chatId"${pg ? "::text" : ""} = $1 ORDER BY "createdAt" ASC, ${stored}`,
        [chatId],
      );
      return rows.map(v2Of);
    },
    async counts() {
      return {
        chats: await count(T.chats),
        users: await count(T.users),
        messages: await count(T.messagesV1),
        messagesV2: await count(T.messagesV2),
      };
    },
    async existing(table, ids) {
      if (!ids.length || !(await tables()).has(table)) return new Set();
      const r = await sql.all(`SELECT "id" FROM ${sql.t(table)} WHERE "id" ${idsIn(1)}`, [idsArg(ids)]);
      return new Set(r.map((x) => String(x.id)));
    },
    async chatsWithV2(chatIds) {
      if (!chatIds.length || !(await tables()).has(T.messagesV2)) return new Set();
      const r = await sql.all(`SELECT DISTINCT "chatId" FROM ${sql.t(T.messagesV2)} WHERE "chatId" ${idsIn(1)}`, [
        idsArg(chatIds),
      ]);
      return new Set(r.map((x) => String(x.chatId)));
    },
  };
}

/** The store's upkeep: each chat's last activity (prune) and VACUUM. */
function maintenanceOf(c: Ctx): Pick<AiChatbotStore, "activity" | "vacuum"> {
  const { sql, pg, tables, idsIn, idsArg } = c;
  return {
    async activity(chatIds) {
      // the newest of the chat's own time and its messages' (Message_v2, Message), as ms
      const out = new Map<string, number>();
      if (!chatIds.length) return out;
      const have = await tables();
      const bump = (id: unknown, at: unknown) => {
        if (at === null || at === undefined) return;
        const t = Date.parse(isoOf(at));
        if (Number.isFinite(t) && t > (out.get(String(id)) ?? Number.NEGATIVE_INFINITY)) out.set(String(id), t);
      };
      const time = (c: string) => (pg ? `to_char(max(${q(c)}), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : `max(${q(c)})`);
      for (const r of await sql.all(
        `SELECT "id", ${pg ? `to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : '"createdAt"'} AS "at" FROM ${sql.t(T.chats)} WHERE "id" ${idsIn(1)}`,
        [idsArg(chatIds)],
      ))
        bump(r.id, r.at);
      for (const t of [T.messagesV2, T.messagesV1].filter((x) => have.has(x)))
        for (const r of await sql.all(
          `SELECT "chatId" AS "id", ${time("createdAt")} AS "at" FROM ${sql.t(t)} WHERE "chatId" ${idsIn(1)} GROUP BY "chatId"`,
          [idsArg(chatIds)],
        ))
          bump(r.id, r.at);
      return out;
    },
    vacuum: async (o) =>
      sql.vacuum(
        [...(await tables())].filter((t) =>
          [
            T.chats,
            T.users,
            T.messagesV1,
            T.messagesV2,
            "Vote",
            "Vote_v2",
            "Stream",
            "Document",
            "Suggestion",
          ].includes(t),
        ),
        o.dryRun,
      ),
  };
}

/** `AiChatbotStore.erase`: the chat's rows in the tables that name it, counted or deleted in one transaction. */
async function eraseChat(
  sql: Sql,
  tables: () => Promise<Set<string>>,
  count: (table: string, where?: string, args?: unknown[]) => Promise<number>,
  chatId: string,
  dryRun: boolean,
): ReturnType<AiChatbotStore["erase"]> {
  const pg = sql.kind === "postgres";
  const have: Set<string> = await tables();
  const id = `${pg ? "::text" : ""} = $1`;
  // the template's deleteChatById: votes, messages, streams, then the chat (children first: foreign keys)
  const plan: Array<[string, string]> = [
    ...ERASE_CHILDREN.filter((t) => have.has(t)).map((t): [string, string] => [t, `"chatId"${id}`]),
    [T.chats, `"id"${id}`],
  ];
  const rows = dryRun
    ? await Promise.all(plan.map(([t, w]) => count(t, ` WHERE ${w}`, [chatId])))
    : await sql.tx(plan.map(([t, w]): [string, unknown[]] => [`DELETE FROM ${sql.t(t)} WHERE ${w}`, [chatId]]));
  if (rows.every((n) => n === 0)) return null;
  const erased = plan.map(([t], i) => ({ table: t, rows: rows[i]! }));
  const kept = ["Document", "Suggestion"].filter((t) => have.has(t));
  const notes = kept.length
    ? [
        `${kept.join(" and ")} rows are the user's, not the chat's (the template's ${kept.join("/")} tables have no chatId): left as they are, as the template's own deleteChatById leaves them`,
      ]
    : undefined;
  return notes ? { tables: erased, notes } : { tables: erased };
}

/** The tables whose rows name a chat by `chatId`, where the store has them. */
const ERASE_CHILDREN = ["Vote", "Vote_v2", "Message", "Message_v2", "Stream"];

/**
 * `AiChatbotStore.eraseUser`: everything of one user, counted or deleted in one transaction — the rows of each of
 * their chats (as `eraseChat`), the chats, their documents with every suggestion on them (a suggestion names its
 * document: another user's on this user's document goes too), their own suggestions, and the `User` row (the email
 * and password hash are the user's data: an erasure that left them would not be one). null: nothing names the user.
 */
async function eraseUser(
  sql: Sql,
  tables: () => Promise<Set<string>>,
  count: (table: string, where?: string, args?: unknown[]) => Promise<number>,
  userId: string,
  dryRun: boolean,
): ReturnType<AiChatbotStore["eraseUser"]> {
  const pg = sql.kind === "postgres";
  const have: Set<string> = await tables();
  const text = pg ? "::text" : "";
  const has = async (t: string, c: string) => have.has(t) && (await sql.columns(t)).has(c);
  const chatsOf = `(SELECT "id"${text} FROM ${sql.t(T.chats)} WHERE "userId"${text} = $1)`;
  const plan: Array<[string, string]> = [];
  if (have.has(T.chats))
    for (const t of ERASE_CHILDREN) if (have.has(t)) plan.push([t, `"chatId"${text} IN ${chatsOf}`]);
  if (await has(T.chats, "userId")) plan.push([T.chats, `"userId"${text} = $1`]);
  const docs = (await has("Document", "userId"))
    ? `(SELECT "id"${text} FROM ${sql.t("Document")} WHERE "userId"${text} = $1)`
    : undefined;
  if (await has("Suggestion", "userId"))
    plan.push([
      "Suggestion",
      `"userId"${text} = $1${docs && (await has("Suggestion", "documentId")) ? ` OR "documentId"${text} IN ${docs}` : ""}`,
    ]);
  if (docs) plan.push(["Document", `"userId"${text} = $1`]);
  if (have.has(T.users)) plan.push([T.users, `"id"${text} = $1`]);
  const chats =
    have.has(T.chats) && (await has(T.chats, "userId"))
      ? (
          await sql.all(`SELECT "id"${text} AS id FROM ${sql.t(T.chats)} WHERE "userId"${text} = $1 ORDER BY 1`, [
            userId,
          ])
        ).map((r) => String(r.id))
      : [];
  const rows = dryRun
    ? await Promise.all(plan.map(([t, w]) => count(t, ` WHERE ${w}`, [userId])))
    : await sql.tx(plan.map(([t, w]): [string, unknown[]] => [`DELETE FROM ${sql.t(t)} WHERE ${w}`, [userId]]));
  if (rows.every((n) => n === 0)) return null;
  return { threads: chats, tables: plan.map(([t], i) => ({ table: t, rows: rows[i]! })) };
}
