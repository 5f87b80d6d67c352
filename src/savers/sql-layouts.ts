/**
 * Foreign SQL layouts: the tables another library keeps in an SQLite file or a PostgreSQL schema, which ckpt reads
 * (and migrates) in that library's own layout — Mastra's memory tables, and the Chat SDK template's chat tables. Each layout is one entry of
 * `FOREIGN_LAYOUTS`: the tables that say a store holds it, and how to open it on each backend, giving a typed store
 * object (its rows) and its read-only Saver view (one document per thread, in a format of formats/).
 *
 * `openForeign` is the one place that says "this store is layout X": `?layout=<name>` forces it; otherwise a store
 * whose tables include a layout's (and none of ckpt's or LangGraph's) holds it. savers/index.ts `openStore` asks here
 * first and falls through to LangGraph's and ckpt's layouts when the answer is undefined. Adding a layout: an entry in
 * `FOREIGN_LAYOUTS` and its store type in `ForeignStores`; nothing else changes.
 */
import { existsSync, statSync } from "node:fs";
import { inputError, storeError, usageError } from "../base/errors.js";
import type { AiChatbotSaver } from "./ai-chatbot/saver.js";
import type { AiChatbotStore } from "./ai-chatbot/types.js";
import type { MastraSaver } from "./mastra/saver.js";
import type { MastraStore } from "./mastra/types.js";
import type { OpenAISessionSaver, OpenAISessionStore } from "./openai-agents/sqlite.js";
import { sessionTables } from "./openai-agents/tables.js";
import type { SaverUri } from "./uri.js";

/** The store object and Saver view each foreign layout opens to. */
export interface ForeignStores {
  mastra: { store: MastraStore; saver: MastraSaver };
  "openai-agents-session": { store: OpenAISessionStore; saver: OpenAISessionSaver };
  "ai-chatbot": { store: AiChatbotStore; saver: AiChatbotSaver };
}
export type ForeignLayoutName = keyof ForeignStores;

/** A store opened in a foreign layout. */
export type OpenedForeign = {
  [K in ForeignLayoutName]: { layout: K; uri: SaverUri } & ForeignStores[K];
}[ForeignLayoutName];

interface ForeignLayout<K extends ForeignLayoutName> {
  /** what the layout is, for messages */
  title: string;
  /** tables whose presence says a store holds this layout */
  tables: readonly string[];
  /** other tables of the layout: a store holding one of them without `tables` is this layout's, damaged or partial */
  others?: readonly string[];
  /** the tables a store opened with these URI parameters must hold, when the parameters can rename them */
  tablesFor?(params: URLSearchParams): readonly string[];
  /** open an SQLite file (`write`: created when missing, opened read-write) */
  sqlite(path: string, uri: string, write: boolean, params: URLSearchParams): Promise<ForeignStores[K]>;
  /** open a PostgreSQL schema */
  postgres(url: string, uri: string, schema: string, write: boolean): Promise<ForeignStores[K]>;
}

export const FOREIGN_LAYOUTS: { [K in ForeignLayoutName]: ForeignLayout<K> } = {
  mastra: {
    title: "Mastra memory (mastra_threads, mastra_messages, mastra_resources)",
    tables: ["mastra_threads", "mastra_messages"],
    async sqlite(path, uri, write) {
      const { openMastraSqliteDb, mastraSqlite } = await import("./mastra/sqlite.js");
      const { mastraSaver } = await import("./mastra/saver.js");
      const db = await openMastraSqliteDb(path, uri, write);
      try {
        const store = mastraSqlite(db, uri);
        return { store, saver: mastraSaver(store) };
      } catch (e) {
        db.close();
        throw e;
      }
    },
    async postgres(url, uri, schema, write) {
      const { connectPg, mastraPostgres } = await import("./mastra/postgres.js");
      const { mastraSaver } = await import("./mastra/saver.js");
      const store = mastraPostgres(await connectPg(url, uri, write), { uri, schema });
      return { store, saver: mastraSaver(store) };
    },
  },
  "openai-agents-session": {
    title: "OpenAI Agents SDK SQLiteSession (agent_sessions, agent_messages)",
    // Python reads a session from its messages table alone: the sessions table may be missing
    tables: ["agent_messages"],
    others: ["agent_sessions"],
    tablesFor(params) {
      return [sessionTables(params).messages];
    },
    // opened to write only to delete from it (ckpt delete --yes): every other write is refused by the engine's caps
    async sqlite(path, uri, write, params) {
      const { openSessionSqlite, openaiSessionSaver } = await import("./openai-agents/sqlite.js");
      const store = await openSessionSqlite(path, uri, params, write);
      return { store, saver: openaiSessionSaver(store) };
    },
    async postgres(_url, uri) {
      throw usageError(`${uri}: SQLiteSession is an SQLite layout (the Python SDK keeps it in an SQLite file)`);
    },
  },
  "ai-chatbot": {
    title: "Chat SDK template (Chat, Message_v2, Message, User)",
    tables: ["Chat", "Message_v2"],
    async sqlite(path, uri, write) {
      const { sqliteSql, aiChatbotStore } = await import("./ai-chatbot/store.js");
      const { aiChatbotSaver } = await import("./ai-chatbot/saver.js");
      const store = aiChatbotStore(await sqliteSql(path, uri, write), uri);
      return { store, saver: aiChatbotSaver(store) };
    },
    async postgres(url, uri, schema, write) {
      const { postgresSql, aiChatbotStore } = await import("./ai-chatbot/store.js");
      const { aiChatbotSaver } = await import("./ai-chatbot/saver.js");
      const store = aiChatbotStore(await postgresSql(url, uri, schema, write), uri);
      return { store, saver: aiChatbotSaver(store) };
    },
  },
};

export const FOREIGN_LAYOUT_NAMES = Object.keys(FOREIGN_LAYOUTS) as ForeignLayoutName[];
export const isForeignLayout = (s: string | null | undefined): s is ForeignLayoutName =>
  s !== null && s !== undefined && Object.hasOwn(FOREIGN_LAYOUTS, s);

/** Tables that say a store holds ckpt's or LangGraph's layout: a store holding them is not taken as foreign unless forced. */
const NATIVE_TABLES = ["ckpt_checkpoints", "checkpoints"];

/** The foreign layout a store's tables say it holds, if any. */
export function layoutOfTables(tables: Set<string>): ForeignLayoutName | undefined {
  if (NATIVE_TABLES.some((t) => tables.has(t))) return undefined;
  return FOREIGN_LAYOUT_NAMES.find((n) => FOREIGN_LAYOUTS[n].tables.every((t) => tables.has(t)));
}

export interface ForeignOpenOptions {
  readOnly: boolean;
  /** an empty store opened to write is set up in this layout */
  want?: string;
  /** opened for a dry run: an SQLite file that does not exist yet is planned against an empty database in memory */
  dryRun?: boolean;
  /** filled with the tables the probe read (when it read them): the next opener need not ask for them again */
  seen?: { tables?: Set<string> };
}

/** The tables of an SQLite file (read-only, closed again), or of a PostgreSQL schema. */
async function tablesOf(u: SaverUri, schema: string): Promise<Set<string>> {
  if (u.kind === "sqlite") {
    const { openSqliteReadOnly } = await import("./sqlite-open.js");
    const db = await openSqliteReadOnly(u.location, { uri: u.redacted });
    try {
      return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    } catch (e) {
      throw storeError(
        "sqlite-open",
        `not a readable SQLite database: ${(e as Error).message}`,
        { file: u.redacted },
        e,
      );
    } finally {
      db.close();
    }
  }
  const { connectPg, pgTables } = await import("./mastra/postgres.js");
  const c = await connectPg(u.location, u.redacted, false);
  try {
    return await pgTables(c, schema);
  } finally {
    await c.end();
  }
}

/** A store that lacks tables every release of a layout's library writes: an input error naming them (exit 3). */
function missingTables(name: ForeignLayoutName, missing: string[], u: SaverUri, schema: string) {
  const layout = FOREIGN_LAYOUTS[name];
  const where = u.kind === "sqlite" ? "the database" : `schema '${schema}'`;
  return inputError(
    `${name}-layout`,
    `${u.kind === "sqlite" ? "" : `${u.redacted}: `}${where} has ${missing.length === layout.tables.length && !layout.others?.length ? "none" : "some"} of the ${layout.title} tables but no ${missing.join(", ")}: every release of it writes ${layout.tables.join(" and ")} — not a store ckpt can read as ${name}`,
    u.kind === "sqlite" ? { file: u.redacted } : {},
  );
}

/**
 * Open a sqlite:/postgres:// store in a foreign layout when `?layout=` names one or its tables say so; undefined
 * when it holds none (ckpt's and LangGraph's layouts are decided by the caller). A store opened to read must exist
 * and hold the layout's tables; one opened to write in a forced (or wanted) layout may be empty or missing.
 */
export async function openForeign(u: SaverUri, o: ForeignOpenOptions): Promise<OpenedForeign | undefined> {
  const forced = u.params.get("layout");
  if (forced !== null && !isForeignLayout(forced)) return undefined;
  const schema = u.params.get("schema") ?? "public";
  const missingFile = u.kind === "sqlite" && (u.location === ":memory:" || !existsSync(u.location));
  if (u.kind === "sqlite" && !missingFile && statSync(u.location).isDirectory()) return undefined;
  // a store opened to write without a foreign layout forced or wanted is still asked for its tables when it exists
  // (a writing command must never take a Mastra store for an empty ckpt store and add ckpt's tables to it); a store
  // that cannot be asked is left to the opener below, which reports it as it reports any store
  const probeOnly = !o.readOnly && forced === null && !isForeignLayout(o.want);
  if (probeOnly && missingFile) return undefined;
  let tables: Set<string>;
  try {
    tables = missingFile ? new Set<string>() : await tablesOf(u, schema);
    if (o.seen) o.seen.tables = tables;
  } catch (e) {
    if (probeOnly) return undefined;
    throw e;
  }
  if (probeOnly && layoutOfTables(tables) === undefined) return undefined;
  const found = layoutOfTables(tables);
  // some of a layout's tables but not all (a store of a version that wrote fewer, or damaged): say which is missing
  if (found === undefined && forced === null && o.readOnly && !NATIVE_TABLES.some((t) => tables.has(t)))
    for (const n of FOREIGN_LAYOUT_NAMES) {
      const l = FOREIGN_LAYOUTS[n];
      const missing = l.tables.filter((t) => !tables.has(t));
      if (missing.length < l.tables.length || (l.others ?? []).some((t) => tables.has(t)))
        throw missingTables(n, missing, u, schema);
    }
  const wanted = isForeignLayout(o.want) && tables.size === 0 ? o.want : undefined;
  const name = forced ?? found ?? wanted;
  if (name === undefined) return undefined;
  const layout = FOREIGN_LAYOUTS[name];
  const needed = layout.tablesFor?.(u.params) ?? layout.tables;
  if (o.readOnly && !needed.every((t) => tables.has(t))) {
    if (missingFile)
      throw inputError("missing-store", "no such SQLite database (reading never creates a store)", {
        file: u.redacted,
      });
    throw missingTables(
      name,
      needed.filter((t) => !tables.has(t)),
      u,
      schema,
    );
  }
  const opened =
    u.kind === "sqlite"
      ? await layout.sqlite(missingFile && o.dryRun ? ":memory:" : u.location, u.redacted, !o.readOnly, u.params)
      : await layout.postgres(u.location, u.redacted, schema, !o.readOnly);
  return { layout: name, uri: u, ...opened } as OpenedForeign;
}
