/**
 * Opening a saver from its URI. Heavy clients (better-sqlite3, ioredis, pg) are imported only when a URI needs them.
 * Credentials come from the URI or REDIS_URL / DATABASE_URL and are never printed (`uri` on a Saver is redacted).
 *
 * Every store module has the same shape: `SAVER_NAME` and a `SaverFactory` (`(options) → Saver`). A saver opened
 * with `readOnly` (what every reading command asks for) must exist and is never changed: a missing path is an input
 * error (exit 3) naming it, never an empty store created on the spot.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { readdirSync } from "node:fs";
import { inputError, storeError, usageError } from "../base/errors.js";
import { type AesKeyOption, aesKeyOf } from "../formats/langgraph/aes-key.js";
import { namesAThread, parseSaverUri, type SaverKind, type SaverUri } from "./uri.js";
import { editDistance } from "../base/nearest.js";
import { type LangGraphSaver, type LangGraphStore, langGraphSaver } from "./langgraph/shared.js";
import {
  FOREIGN_LAYOUT_NAMES,
  type ForeignLayoutName,
  isForeignLayout,
  type OpenedForeign,
  openForeign,
} from "./sql-layouts.js";
import type { Saver, SaverFactory } from "./types.js";

export interface OpenOptions {
  /** the namespace when the URI has no `?namespace=` (else "default") */
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * open only to read: the store must exist and nothing in it is created or changed (see SaverOptions). Default
   * false: a saver is for saving, as LangGraph's are (a missing store is created); every reading command of the CLI
   * passes true, and a LangGraph store is always opened read-only.
   */
  readOnly?: boolean;
  /** an empty sqlite:/postgres:// store opened to write is set up in this layout (default ckpt's own) */
  want?: "langgraph" | "ckpt" | ForeignLayoutName;
  /** opened for a dry run: a LangGraph SQLite store that does not exist yet is planned against an empty one in memory */
  dryRun?: boolean;
  /**
   * opened to change what a store already holds (prune, delete): the store must exist and hold a layout's tables, as
   * for reading — a missing store, or an SQLite file without tables, is an input error (exit 3), never a store created
   * or set up on the spot — and is then opened to write.
   */
  existing?: boolean;
  /**
   * the key of a LangGraph store's encrypted rows (`msgpack+aes`, Python `EncryptedSerializer`): its bytes (what
   * `LANGGRAPH_AES_KEY` holds, as UTF-8), or `{ key, from }` with `from` naming where it came from in messages. It
   * stays with this store: two stores opened with different keys each read their own rows.
   */
  aesKey?: AesKeyOption;
}

const FACTORIES: Record<SaverKind, () => Promise<SaverFactory>> = {
  memory: async () => (await import("./memory.js")).createMemorySaver,
  file: async () => (await import("./file.js")).createFileSaver,
  sqlite: async () => (await import("./sqlite.js")).createSqliteSaver,
  redis: async () => (await import("./redis.js")).createRedisSaver,
  postgres: async () => (await import("./postgres.js")).createPostgresSaver,
};

/** "did you mean" for a missing path: the nearest name in its folder, if one is close. */
function nearestName(path: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return undefined;
  }
  const want = basename(path);
  const best = names.map((n) => ({ n, d: editDistance(want, n) })).sort((a, b) => a.d - b.d)[0];
  return best && best.d <= Math.max(2, Math.floor(want.length / 4)) ? best.n : undefined;
}

/** A path-based store opened to read must exist; one opened to write must not be a file where a folder belongs. */
function checkPath(u: SaverUri, readOnly: boolean): void {
  if (u.kind !== "file" && u.kind !== "sqlite") return;
  const path = resolve(u.location);
  // `file:./store#t1`: a folder that exists with a thread after it (a folder name may hold '#' itself)
  const hash = u.location.lastIndexOf("#");
  if (hash > 0 && !existsSync(path) && existsSync(resolve(u.location.slice(0, hash)))) {
    throw namesAThread(u.redacted, u.redacted.slice(0, u.redacted.lastIndexOf("#")), u.location.slice(hash + 1));
  }
  if (readOnly) {
    if (existsSync(path)) return;
    const near = nearestName(path);
    const what = u.kind === "sqlite" ? "no such SQLite database" : "no such file or folder";
    throw inputError(
      "missing-store",
      `${what}${near ? `; did you mean '${near}'?` : " (reading never creates a store)"}`,
      { file: u.redacted },
    );
  }
  if (u.kind === "file" && existsSync(path) && !statSync(path).isDirectory()) {
    throw usageError(
      `'${u.redacted}' is a file: a file: store to write into is a folder (deep-agent's FileSaver layout)`,
    );
  }
  if (u.kind === "sqlite" && existsSync(path) && statSync(path).isDirectory()) {
    throw usageError(`'${u.redacted}' is a folder: sqlite: needs a database file path, e.g. sqlite:./checkpoints.db`);
  }
}

/** What `?layout=` forces on a sqlite:/postgres:// store, if anything (a foreign layout: sql-layouts.ts). */
export function forcedLayout(u: SaverUri): "langgraph" | "ckpt" | ForeignLayoutName | undefined {
  const l = u.params.get("layout");
  if (l === null || (u.kind !== "sqlite" && u.kind !== "postgres")) {
    if (l === "langgraph" || isForeignLayout(l))
      throw usageError(`saver URI '${u.redacted}': layout=${l} needs a sqlite: or postgres:// store`);
    return undefined;
  }
  if (l !== "langgraph" && l !== "ckpt" && !isForeignLayout(l))
    throw usageError(
      `saver URI '${u.redacted}': layout=${l}: expected layout=${["langgraph", "ckpt", ...FOREIGN_LAYOUT_NAMES].join(", layout=")}`,
    );
  return l;
}

/**
 * The layout a sqlite:/postgres:// store holds, read from its tables: `langgraph` (LangGraph's tables and not ckpt's),
 * `ckpt` (ckpt's table), `empty` (neither). With ckpt's and LangGraph's both, ckpt's wins unless `?layout=` says.
 */
type Found = "langgraph" | "ckpt" | "empty";
const foundOf = (lg: boolean, ckpt: boolean): Found => (ckpt ? "ckpt" : lg ? "langgraph" : "empty");

/** Whether the store is opened as a LangGraph store: what `?layout=` forces, else what it holds, else what is wanted. */
function decide(u: SaverUri, found: Found, hasLg: boolean, forced: string | undefined, o: OpenOptions): boolean {
  if (forced === "langgraph") {
    if (!hasLg && o.readOnly)
      throw storeError(
        "langgraph-layout",
        u.kind === "sqlite"
          ? "layout=langgraph but the database has no LangGraph tables (checkpoints, writes)"
          : `${u.redacted}: layout=langgraph but schema '${u.params.get("schema") ?? "public"}' has no LangGraph tables (checkpoints, checkpoint_writes)`,
        u.kind === "sqlite" ? { file: u.redacted } : {},
      );
    return true;
  }
  if (found === "langgraph") return true;
  return found === "empty" && !o.readOnly && o.want === "langgraph";
}

/** An SQLite file as a LangGraph store, or undefined (ckpt's own saver opens it). */
async function openSqliteLangGraph(u: SaverUri, forced: string | undefined, o: OpenOptions) {
  const m = await import("./langgraph/sqlite.js");
  const exists = existsSync(u.location);
  if (!exists || u.location === ":memory:") {
    if (forced === "langgraph" && o.readOnly)
      throw inputError("missing-store", "no such SQLite database (reading never creates a store)", {
        file: u.redacted,
      });
    if (o.readOnly || !(forced === "langgraph" || o.want === "langgraph")) return undefined;
    // a dry run plans against an empty database and creates nothing
    const planOnly = o.dryRun && u.location !== ":memory:";
    return m.openLangGraphSqlite(planOnly ? ":memory:" : u.location, u.redacted, {
      mode: "create",
      aesKey: aesKeyOf(o.aesKey),
    });
  }
  if (statSync(u.location).isDirectory()) return undefined;
  const db = await m.openSqliteDb(u.location, u.redacted, o.readOnly ? { mode: "read" } : { mode: "write" });
  let tables: Set<string>;
  try {
    tables = m.sqliteTables(db);
  } catch (e) {
    db.close();
    throw storeError("sqlite-open", `not a readable SQLite database: ${(e as Error).message}`, { file: u.redacted }, e);
  }
  let layout: Awaited<ReturnType<typeof m.isLangGraphSqlite>>;
  try {
    layout = forced === "ckpt" ? undefined : m.isLangGraphSqlite(db, tables, u.redacted);
  } catch (e) {
    db.close();
    throw e;
  }
  const hasLg = layout !== undefined;
  const found = foundOf(hasLg, tables.has("ckpt_checkpoints"));
  if (!decide(u, found, hasLg, forced, o)) {
    db.close();
    return undefined;
  }
  try {
    return m.langGraphSqlite(db, u.location, u.redacted, aesKeyOf(o.aesKey), layout);
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * A PostgreSQL schema as a LangGraph store, or undefined (ckpt's own saver opens it). `tables`: the schema's tables as
 * the foreign probe just read them — without one of LangGraph's, and no LangGraph layout forced or wanted, the answer
 * is undefined without a connection of its own to ask again.
 */
async function openPostgresLangGraph(u: SaverUri, forced: string | undefined, o: OpenOptions, tables?: Set<string>) {
  if (tables && forced === undefined && o.want !== "langgraph") {
    const { PG_LG_TABLES } = await import("./langgraph/sql.js");
    if (!PG_LG_TABLES.some((t) => tables.has(t))) return undefined;
  }
  const m = await import("./langgraph/postgres/index.js");
  const place = { url: u.location, uri: u.redacted, schema: u.params.get("schema") ?? "public" };
  const conn = o.readOnly
    ? { ro: await m.connectReadOnly(place.url, place.uri) }
    : { rw: await m.connectPool(place.url, place.uri) };
  const c = (conn.ro ?? conn.rw)!;
  try {
    const found = await m.inspectPgSchema(c, place.schema, u.params.get("table") ?? undefined, u.redacted);
    const hasLg = found.langgraph !== undefined;
    if (decide(u, foundOf(hasLg, found.ckpt), hasLg, forced, o))
      return m.langGraphPostgres(
        place,
        found.langgraph ?? { store: "postgres", schema: place.schema },
        conn,
        aesKeyOf(o.aesKey),
      );
  } catch (e) {
    await c.end().catch(() => undefined);
    throw e;
  }
  await c.end();
  return undefined;
}

/**
 * The one layout decision: open a parsed store URI and say which layout it holds. A sqlite: or postgres:// store
 * holds LangGraph's tables (`langgraph`: a LangGraph store, see savers/langgraph/) or ckpt's own (`ckpt`), as its
 * tables say or `?layout=langgraph|ckpt` forces; an empty one opened to write takes what `want` asks for (default
 * ckpt's). Another library's tables (Mastra's memory: `mastra`) are a foreign layout, decided in sql-layouts.ts
 * `openForeign` (its tables, or `?layout=mastra`). A file: store is a `folder` (each seed system's own file layout, or `?layout=`: savers/file.ts); every
 * other store holds ckpt's own layout.
 * A LangGraph store that is opened to read is opened read-only: never created, never altered.
 */
export async function openStore(u: SaverUri, opts: OpenOptions = {}): Promise<OpenedStore> {
  const readOnly = Boolean(opts.readOnly);
  if (opts.existing && !readOnly) {
    // opened to read first: what it holds is decided without creating or setting up anything
    const probe = await openStore(u, { ...opts, readOnly: true, existing: false });
    await ("store" in probe ? probe.store : probe.saver).close();
  }
  const forced = forcedLayout(u);
  if (u.kind === "sqlite" && u.location === ":memory:") {
    if (readOnly) throw usageError("sqlite::memory: is always empty: there is nothing to read");
  } else checkPath(u, readOnly);
  const seen: { tables?: Set<string> } = {};
  if ((u.kind === "sqlite" || u.kind === "postgres") && forced !== "ckpt" && forced !== "langgraph") {
    // a foreign layout (Mastra's tables, …): forced by ?layout=, or found in the store's tables
    const foreign = await openForeign(u, { readOnly, want: opts.want, dryRun: opts.dryRun, seen });
    if (foreign) return foreign;
  }
  if ((u.kind === "sqlite" || u.kind === "postgres") && forced !== "ckpt") {
    const lg =
      u.kind === "sqlite"
        ? await openSqliteLangGraph(u, forced, opts)
        : await openPostgresLangGraph(u, forced, opts, seen.tables);
    if (lg) return { layout: "langgraph", uri: u, store: lg, saver: langGraphSaver(lg) };
  }
  const create = await FACTORIES[u.kind]();
  const saver = await create({
    location: u.location,
    uri: u.redacted,
    // one rule for every command: the URI's ?namespace=, else the caller's, else "default"
    namespace: u.params.get("namespace") ?? opts.namespace ?? undefined,
    readOnly,
    params: u.params,
  });
  return { layout: u.kind === "file" ? "folder" : "ckpt", uri: u, saver };
}

/**
 * A store opened by `openStore`: its layout, and the store as a Saver (LangGraph and foreign stores: read-only
 * documents, one per thread), with the typed store object where the layout has one.
 */
export type OpenedStore =
  | { layout: "langgraph"; uri: SaverUri; store: LangGraphStore; saver: LangGraphSaver }
  /** another library's tables (sql-layouts.ts): `mastra`, `ai-chatbot` */
  | OpenedForeign
  /** ckpt's own layout (a database's tables, Redis keys, memory), or a folder of files in one system's own layout */
  | { layout: "ckpt" | "folder"; uri: SaverUri; saver: Saver };

/** `openStore(…).saver` for a URI given as text. */
export async function openSaver(uri: string, opts: OpenOptions = {}): Promise<Saver> {
  return (await openStore(parseSaverUri(uri, opts.env), opts)).saver;
}

export { parseSaverUri, SAVER_SCHEMES } from "./uri.js";
export { redactUri, redactText } from "../base/redact.js";
export { isLangGraphSaver, type LangGraphSaver, type LangGraphStore } from "./langgraph/shared.js";
export { contentHash } from "./common.js";
export { FOREIGN_LAYOUT_NAMES, type ForeignLayoutName, isForeignLayout, type OpenedForeign } from "./sql-layouts.js";
export { isMastraSaver, type MastraSaver, type MastraThreadDocument } from "./mastra/saver.js";
export type { MastraStore } from "./mastra/types.js";
export { isAiChatbotSaver, type AiChatbotSaver } from "./ai-chatbot/saver.js";
export type { AiChatbotStore } from "./ai-chatbot/types.js";
export * from "./types.js";
