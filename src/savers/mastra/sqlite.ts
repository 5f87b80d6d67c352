/**
 * A Mastra LibSQL store (an SQLite file `@mastra/libsql` writes) through better-sqlite3. Read-only unless opened to
 * write (a migration's target). LibSQL keeps thread and resource metadata as SQLite's binary JSONB, which SQLite reads
 * from 3.45 on; the bundled SQLite is checked once.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { inputError, storeError } from "../../base/errors.js";
import { openSqliteReadOnly, sqliteOpenError, useWal } from "../sqlite-open.js";
import { type MastraHave, SQ, SQLITE_SETUP } from "./sql.js";
import {
  MASTRA_TABLES,
  type MastraBatch,
  type MastraMessageRow,
  type MastraResourceRow,
  type MastraStore,
  type MastraThreadRow,
  type Unreadable,
} from "./types.js";
import { loadBetterSqlite3 } from "../better-sqlite3.js";
import { eraseSqlite } from "./erase-sqlite.js";

type DB = BetterSqlite3.Database;
type Raw = Record<string, unknown> & { metadata: string | null; bad: number; mtype: string };

/** The tables of an SQLite file. */
const tableNames = (db: DB): Set<string> => new Set(db.prepare(SQ.tables).pluck().all() as string[]);

/**
 * The columns every release of Mastra's memory tables has had (`@mastra/core` 0.4 on); the others (`resourceId` of a
 * message, `metadata`, `title`, `type`, `workingMemory`) and the resources table (0.10 on) are read as NULL, or none,
 * where a store lacks them.
 */
const REQUIRED: Record<string, string[]> = {
  mastra_threads: ["id", "resourceId", "createdAt", "updatedAt"],
  mastra_messages: ["id", "thread_id", "content", "role", "createdAt"],
  mastra_resources: ["id", "createdAt", "updatedAt"],
};

/** What of the memory tables the file holds; a required column missing is an input error naming it. */
export function sqliteHave(db: DB, uri: string): MastraHave {
  const tables = tableNames(db);
  const columns: Record<string, Set<string>> = {};
  for (const t of Object.values(MASTRA_TABLES)) {
    if (!tables.has(t)) continue;
    columns[t] = new Set(db.prepare(SQ.columns).pluck().all(t) as string[]);
    const missing = REQUIRED[t]!.filter((c) => !columns[t]!.has(c));
    if (missing.length)
      throw inputError(
        "mastra-missing-column",
        `${t} has no ${missing.map((c) => `'${c}'`).join(", ")} column${missing.length > 1 ? "s" : ""}: every @mastra release since 0.4 writes ${REQUIRED[t]!.join(", ")} — not a Mastra memory table ckpt can read`,
        { file: uri },
      );
  }
  return { resources: tables.has(MASTRA_TABLES.resources), columns };
}

/** Open the file: read-only, or to write (created with its folder when missing). */
export async function openMastraSqliteDb(path: string, uri: string, write: boolean): Promise<DB> {
  if (!write) return openSqliteReadOnly(path, { uri });
  const Database = await loadBetterSqlite3(uri);
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma("busy_timeout = 5000");
    return db;
  } catch (e) {
    throw sqliteOpenError(e, uri, "cannot open the Mastra SQLite store");
  }
}

/** The metadata column of a row, decoded, and what did not decode. */
function metadataOf(r: Raw, what: string): { metadata: unknown; unreadable?: Unreadable[] } {
  if (r.bad)
    return { metadata: null, unreadable: [{ column: "metadata", reason: `${what}: a blob that is not JSONB` }] };
  if (r.metadata === null) return { metadata: null };
  try {
    return { metadata: JSON.parse(r.metadata) };
  } catch (e) {
    return {
      metadata: null,
      unreadable: [{ column: "metadata", reason: `${what}: ${r.mtype} that is not JSON (${(e as Error).message})` }],
    };
  }
}

/**
 * A stored time as text: Mastra before 0.10 wrote a thread's Date through JSON.stringify, so its times are JSON
 * string literals (`"2026-…Z"` with the quotes), which mean the time inside.
 */
const timeText = (v: unknown): string => {
  const t = String(v);
  if (t.startsWith('"') && t.endsWith('"'))
    try {
      const inner = JSON.parse(t);
      if (typeof inner === "string") return inner;
    } catch {}
  return t;
};

const threadOf = (r: Raw): MastraThreadRow => ({
  id: r.id as string,
  resourceId: r.resourceId as string,
  title: (r.title as string | null) ?? "",
  ...metadataOf(r, `thread '${r.id as string}'`),
  createdAt: timeText(r.createdAt),
  updatedAt: timeText(r.updatedAt),
});

const resourceOf = (r: Raw): MastraResourceRow => ({
  id: r.id as string,
  workingMemory: (r.workingMemory as string | null) ?? null,
  ...metadataOf(r, `resource '${r.id as string}'`),
  createdAt: timeText(r.createdAt),
  updatedAt: timeText(r.updatedAt),
});

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** A Mastra store over an open SQLite database (`path` for messages: the redacted URI). */
export function mastraSqlite(db: DB, uri: string): MastraStore {
  const version = db.prepare(SQ.version).get() as { v: string };
  const [maj, min] = version.v.split(".").map(Number);
  if (maj! < 3 || (maj === 3 && min! < 45))
    throw storeError("sqlite-jsonb", `SQLite ${version.v} cannot read LibSQL's JSONB metadata (needs 3.45 or later)`, {
      file: uri,
    });
  const q = <T>(sql: string) => db.prepare(sql) as BetterSqlite3.Statement<unknown[], T>;
  const has = () => {
    const t = tableNames(db);
    return Object.values(MASTRA_TABLES).every((n) => t.has(n));
  };
  // what the file holds, read once (again after setup made the tables)
  let have: MastraHave | undefined;
  const h = () => (have ??= sqliteHave(db, uri));
  const messages = (threadId: string) => q<MastraMessageRow>(SQ.messages(h())).all(threadId);
  return {
    layout: "mastra",
    kind: "sqlite",
    uri,
    hasLayout: async () => has(),
    async setup() {
      useWal(db);
      db.exec(SQLITE_SETUP);
      // a store of Mastra < 0.10 gets the column its later releases add on init (LibSQLStore's alterTable)
      if (!(db.prepare(SQ.columns).pluck().all("mastra_messages") as string[]).includes("resourceId"))
        db.exec(`ALTER TABLE mastra_messages ADD COLUMN "resourceId" TEXT`);
      have = undefined;
    },
    async *threads(o = {}) {
      let after = o.after ?? null;
      let left = o.limit ?? Number.POSITIVE_INFINITY;
      while (left > 0) {
        const page = q<Record<string, unknown>>(SQ.threadPage(h())).all({ after, limit: Math.min(500, left) });
        if (page.length === 0) return;
        for (const r of page) {
          left--;
          yield {
            threadId: r.id as string,
            resourceId: r.resourceId as string,
            title: r.title as string,
            messages: Number(r.messages),
            createdAt: timeText(r.createdAt),
            updatedAt: timeText(r.updatedAt),
            bytes: Number(r.bytes),
          };
        }
        after = page[page.length - 1]!.id as string;
      }
    },
    async thread(id) {
      const r = q<Raw>(SQ.thread(h())).get(id);
      return r && threadOf(r);
    },
    messages: async (threadId) => messages(threadId),
    async resource(id) {
      if (!h().resources) return undefined; // Mastra < 0.10: no resources table
      const r = q<Raw>(SQ.resource(h())).get(id);
      return r && resourceOf(r);
    },
    async counts() {
      const r = q<Record<string, number>>(SQ.counts(h())).get()!;
      return {
        threads: r.threads!,
        messages: r.messages!,
        resources: r.resources!,
        orphanMessages: r.orphanMessages!,
      };
    },
    scan: (batchSize) => scanSqlite(db, batchSize, h()),
    tables: async () => tableSizes(db, h()),
    async existing(table, ids) {
      const found = new Set<string>();
      if (table === "resources" && !h().resources) return found;
      const stmt = db.prepare(`SELECT id FROM ${MASTRA_TABLES[table]} WHERE id = ?`).pluck();
      for (const id of ids) if (stmt.get(id) !== undefined) found.add(id);
      return found;
    },
    write: async (batch, o) => void writeBatch(db, batch, o.overwrite),
    add: async (batch) => writeBatch(db, batch, "add"),
    erase: async (target, dryRun) => eraseSqlite(db, target, dryRun),
    vacuum: async (o) => {
      const { sqliteVacuum, wrapVacuum } = await import("../vacuum.js");
      return wrapVacuum(db.name, () => sqliteVacuum(db, db.name, o.dryRun));
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** Threads with their messages (`batchSize` threads a batch), then resources, each by id. */
async function* scanSqlite(db: DB, batchSize: number, h: MastraHave): AsyncIterable<MastraBatch> {
  const n = Math.max(1, batchSize);
  const messages = db.prepare(SQ.messages(h));
  for (let after: string | null = null; ; ) {
    const rows = db.prepare(SQ.threadRows(h)).all({ after, limit: n }) as Raw[];
    if (rows.length === 0) break;
    const threads = rows.map(threadOf);
    yield { table: "threads", threads, messages: threads.flatMap((t) => messages.all(t.id) as MastraMessageRow[]) };
    after = rows[rows.length - 1]!.id as string;
  }
  for (let after: string | null = null; h.resources; ) {
    const rows = db.prepare(SQ.resourceRows(h)).all({ after, limit: n }) as Raw[];
    if (rows.length === 0) break;
    yield { table: "resources", resources: rows.map(resourceOf) };
    after = rows[rows.length - 1]!.id as string;
  }
}

/**
 * One batch in one transaction, metadata as LibSQL writes it (JSONB); `add`: only the threads (with their messages)
 * and resources whose id the file does not hold then (INSERT OR IGNORE). The ids written.
 */
function writeBatch(db: DB, batch: MastraBatch, overwrite: boolean | "add"): Set<string> {
  const add = overwrite === "add";
  const verb = add ? "INSERT OR IGNORE" : overwrite ? "INSERT OR REPLACE" : "INSERT";
  const added = new Set<string>();
  db.transaction(() => {
    if (batch.table === "threads") {
      // a thread written over is the source's whole: its messages the source does not hold go
      if (overwrite === true) {
        const del = db.prepare("DELETE FROM mastra_messages WHERE thread_id = ?");
        for (const r of batch.threads) del.run(r.id);
      }
      const t = db.prepare(SQ.insertThread(verb));
      for (const r of batch.threads)
        if (
          t.run({
            id: r.id,
            resourceId: r.resourceId,
            title: r.title,
            metadata: json(r.metadata),
            createdAt: r.createdAt,
            updatedAt: r.updatedAt,
          }).changes
        )
          added.add(r.id);
      // a thread another writer holds keeps its messages (add): only those of the threads written go in
      const m = db.prepare(SQ.insertMessage(add ? "INSERT" : verb));
      for (const r of add ? batch.messages.filter((x) => added.has(x.threadId)) : batch.messages)
        m.run({
          id: r.id,
          threadId: r.threadId,
          content: r.content,
          role: r.role,
          type: r.type,
          createdAt: r.createdAt,
          resourceId: r.resourceId,
        });
    } else {
      const s = db.prepare(SQ.insertResource(verb));
      for (const r of batch.resources)
        if (
          s.run({
            id: r.id,
            workingMemory: r.workingMemory,
            metadata: json(r.metadata),
            createdAt: r.createdAt,
            updatedAt: r.updatedAt,
          }).changes
        )
          added.add(r.id);
    }
  })();
  return added;
}

const COLUMNS: Record<string, string[]> = {
  mastra_threads: ["id", "resourceId", "title", "metadata", "createdAt", "updatedAt"],
  mastra_messages: ["id", "thread_id", "content", "role", "type", "createdAt", "resourceId"],
  mastra_resources: ["id", "workingMemory", "metadata", "createdAt", "updatedAt"],
};

/** Pages of each memory table and its indexes (`dbstat`, when the build has it), else the bytes of its values. */
function tableSizes(db: DB, h: MastraHave): ReturnType<MastraStore["tables"]> {
  const names = Object.values(MASTRA_TABLES).filter((t) => h.columns[t] !== undefined);
  const rows = (t: string) => Number(db.prepare(`SELECT count(*) FROM ${t}`).pluck().get());
  try {
    const pages = db.prepare(
      "SELECT ifnull(sum(pgsize), 0) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)",
    );
    const tables = names.map((t) => ({ table: t, rows: rows(t), storedBytes: Number(pages.pluck().get(t)) }));
    return Promise.resolve({ method: "dbstat", tables });
  } catch {
    const tables = names.map((t) => ({
      table: t,
      rows: rows(t),
      storedBytes: Number(
        db
          .prepare(
            `SELECT ifnull(sum(${COLUMNS[t]!.filter((c) => h.columns[t]!.has(c))
              .map((c) => `ifnull(length("${c}"), 0)`)
              .join(" + ")}), 0) FROM ${t}`,
          )
          .pluck()
          .get(),
      ),
    }));
    return Promise.resolve({ method: "sum-of-lengths", tables });
  }
}
