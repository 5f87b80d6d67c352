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
import { CkptError, inputError, storeError, usageError } from "../base/errors.js";
import { namesAThread, parseSaverUri, type SaverKind, type SaverUri } from "./uri.js";
import { editDistance } from "../base/nearest.js";
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

/** A LangGraph store behind the URI, if it is one. A missing database is an input error only for a store opened to read. */
async function detectLangGraph(u: SaverUri, readOnly: boolean): Promise<Saver | undefined> {
  try {
    return await (await import("./langgraph/index.js")).openLangGraphSaver(u, { recover: !readOnly });
  } catch (e) {
    if (!readOnly && e instanceof CkptError && e.reason === "missing-store")
      throw storeError("postgres-connect", e.message, e.place, e);
    throw e;
  }
}

export async function openSaver(uri: string, opts: OpenOptions = {}): Promise<Saver> {
  const u = parseSaverUri(uri, opts.env);
  const readOnly = Boolean(opts.readOnly);
  if (u.kind === "sqlite" && u.location === ":memory:") {
    if (readOnly) throw usageError("sqlite::memory: is always empty: there is nothing to read");
  } else checkPath(u, readOnly);
  // a LangGraph store (detected from its tables, or ?layout=langgraph) opens read-only as a LangGraph saver
  const lg = u.kind === "sqlite" || u.kind === "postgres" ? await detectLangGraph(u, readOnly) : undefined;
  if (lg) return lg;
  const create = await FACTORIES[u.kind]();
  return create({
    location: u.location,
    uri: u.redacted,
    // one rule for every command: the URI's ?namespace=, else the caller's, else "default"
    namespace: u.params.get("namespace") ?? opts.namespace ?? undefined,
    readOnly,
    params: u.params,
  });
}

export { parseSaverUri, SAVER_SCHEMES } from "./uri.js";
export { redactUri, redactText } from "../base/redact.js";
export { isLangGraphSaver, type LangGraphSaver } from "./langgraph/index.js";
export { contentHash } from "./common.js";
export * from "./types.js";
