/**
 * Saver URIs: `memory:[name]`, `file:<dir>` (or a bare path), `sqlite:<path>`, `redis://[user:pass@]host:port[/db]`,
 * `rediss://…`, `postgres://…` / `postgresql://…`. Query parameters: `namespace=` (all stores), `schema=` and
 * `table=` (postgres), `prefix=` (redis key prefix before the namespace, default none), `layout=langgraph|ckpt`
 * (sqlite, postgres: force the table layout; default: detected). A bare `*.sqlite` / `*.sqlite3` / `*.db` path is `sqlite:`.
 * `REDIS_URL` / `DATABASE_URL` fill in a bare `redis:` / `postgres:`.
 *
 * Every part is checked here, before anything connects: an empty URI, a scheme-like prefix that is not a known
 * scheme (`redis:/x`, `sqllite:x.db`), a Redis db index that is not a number, a port out of range, a path where none
 * belongs are usage errors (exit 2) with a "did you mean" where one fits — never a folder named `redis:/x`.
 */
import { usageError } from "../base/errors.js";
import { redactUri, userinfoEnd } from "../base/redact.js";
import { didYouMean, editDistance } from "../base/nearest.js";

export type SaverKind = "memory" | "file" | "sqlite" | "redis" | "postgres";

export interface SaverUri {
  kind: SaverKind;
  /** the URI as given, for messages (never print it: use `redacted`) */
  raw: string;
  redacted: string;
  /** file/sqlite path, memory name, or the connection URL (without ckpt's own query parameters) */
  location: string;
  params: URLSearchParams;
}

/** The schemes ckpt knows, as they are written. */
export const SAVER_SCHEMES = [
  "memory:",
  "file:",
  "sqlite:",
  "redis://",
  "rediss://",
  "postgres://",
  "postgresql://",
] as const;
const SCHEME_NAMES = SAVER_SCHEMES.map((s) => s.replace(/:.*$/, ""));
/** ckpt's own query parameters, removed from a connection URL before the client library sees it. */
const OWN_PARAMS: Record<"redis" | "postgres", string[]> = {
  redis: ["namespace", "prefix", "timeout"],
  postgres: ["namespace", "schema", "table", "layout"],
};

const EXPECTED =
  "expected memory:, file:<dir>, sqlite:<path>, redis://host:port[/db], postgres://host/db or a folder path";

/** A scheme-like prefix (two or more letters before ':', so that a Windows drive `C:\…` is a path). */
function schemeOf(uri: string): string | undefined {
  return /^([a-z][a-z0-9+.-]+):/i.exec(uri)?.[1];
}

/** The usage error for a prefix that looks like a scheme but is not one ckpt knows, or a known one misspelt. */
function badScheme(uri: string, scheme: string, redacted: string): Error {
  const lower = scheme.toLowerCase();
  const rest = uri.slice(scheme.length + 1).replace(/^\/*/, "");
  if (["redis", "rediss", "postgres", "postgresql"].includes(lower)) {
    return usageError(
      `saver URI '${redacted}': ${lower}: needs '//' and a host; did you mean '${redactUri(`${lower}://${rest}`)}'?`,
    );
  }
  const near = SCHEME_NAMES.map((n) => ({ n, d: editDistance(lower, n) })).sort((a, b) => a.d - b.d)[0]!;
  if (near.d <= 2) {
    const known = SAVER_SCHEMES.find((s) => s.startsWith(near.n + ":"))!;
    const body = known.endsWith("//") ? rest : uri.slice(scheme.length + 1);
    return usageError(
      `unknown saver URI scheme '${scheme}:' in '${redacted}'; did you mean '${redactUri(known + body)}'?`,
    );
  }
  return usageError(
    `unknown saver URI scheme '${scheme}:' in '${redacted}': ${EXPECTED} (for a path with a ':' in it, write './${redacted}' or 'file:${redacted}')`,
  );
}

function port(url: URL, redacted: string): void {
  if (url.port !== "" && (Number(url.port) < 1 || Number(url.port) > 65535))
    throw usageError(`saver URI '${redacted}': port ${url.port} is out of range (1-65535)`);
}

/** Redis: a host, a port in range, and a path that is empty or a database index (`/0`). */
function checkRedis(url: URL, redacted: string): void {
  if (url.hostname === "") throw usageError(`saver URI '${redacted}': no host, e.g. redis://127.0.0.1:6379`);
  port(url, redacted);
  const path = url.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d{1,9}$/.test(path)) {
    throw usageError(
      `saver URI '${redacted}': '/${decodeURIComponent(path)}' is not a Redis database index: expected a number, e.g. ${url.protocol}//${url.host}/0 (use ?namespace= or ?prefix= to separate data)`,
    );
  }
  // The client library takes any other query parameter as an option, as a string: `connectTimeout=500` crashed it,
  // and a misspelt `prefx=` was silently ignored (records written under no prefix). Only what is read is accepted.
  for (const key of new Set(url.searchParams.keys())) {
    if (REDIS_PARAMS.includes(key)) continue;
    const near = didYouMean(key, REDIS_PARAMS);
    const hint = near !== undefined ? `did you mean ${near}=? ` : "";
    throw usageError(
      `saver URI '${redacted}': '${key}=' is not a Redis URI parameter: ${hint}expected namespace=, prefix=, timeout=<seconds>, cluster=0|1 or family=4|6`,
    );
  }
}

/** The query parameters a Redis URI may hold: ckpt's own, and the client's address family. */
const REDIS_PARAMS = ["namespace", "prefix", "timeout", "cluster", "family"];

/** PostgreSQL's longest identifier in bytes (NAMEDATALEN - 1): a longer one would be cut silently, naming another. */
const PG_NAME_BYTES = 63;

/**
 * `?schema=` and `?table=` name PostgreSQL identifiers: not empty, no NUL (the server refuses it in any text), at
 * most 63 bytes; the schema not one of the system's (`pg_catalog`, `information_schema`, any `pg_*`, which
 * PostgreSQL reserves).
 */
function checkPgNames(url: URL, redacted: string): void {
  for (const key of ["schema", "table"] as const) {
    const v = url.searchParams.get(key);
    if (v === null) continue;
    const what = `saver URI '${redacted}': ${key}=${JSON.stringify(v)}`;
    if (v === "") throw usageError(`${what}: expected a ${key} name (leave out ${key}= for the default)`);
    if (v.includes("\u0000")) throw usageError(`${what}: a NUL character cannot be in a PostgreSQL name`);
    if (Buffer.byteLength(v) > PG_NAME_BYTES)
      throw usageError(`${what}: ${Buffer.byteLength(v)} bytes; PostgreSQL names hold at most ${PG_NAME_BYTES}`);
    if (key === "schema" && (/^pg_/i.test(v) || v.toLowerCase() === "information_schema"))
      throw usageError(`${what}: a PostgreSQL system schema; name a schema of your own (default public)`);
  }
}

/** PostgreSQL: a port in range, at most one path segment (the database name), schema and table names it can hold. */
function checkPostgres(url: URL, redacted: string): void {
  port(url, redacted);
  checkPgNames(url, redacted);
  const path = url.pathname.replace(/^\//, "");
  if (path.includes("/")) {
    throw usageError(
      `saver URI '${redacted}': '/${decodeURIComponent(path)}' is not a database name: expected postgres://host:5432/<database> (use ?schema= and ?table= for the rest)`,
    );
  }
}

function parseUrl(head: string, redacted: string): SaverUri {
  let url: URL;
  try {
    url = new URL(head);
  } catch {
    throw usageError(
      `saver URI '${redacted}' is not a valid URL (a port must be a number, special characters in a password must be percent-encoded)`,
    );
  }
  if (url.hash !== "") throw namesAThread(redacted, redacted.slice(0, redacted.lastIndexOf("#")), url.hash.slice(1));
  const kind: "redis" | "postgres" = url.protocol.startsWith("redis") ? "redis" : "postgres";
  if (kind === "redis") checkRedis(url, redacted);
  else checkPostgres(url, redacted);
  const params = new URLSearchParams(url.search);
  for (const k of OWN_PARAMS[kind]) url.searchParams.delete(k); // ours, not the client library's
  return { kind, raw: head, redacted, location: url.toString(), params };
}

/**
 * A store is expected, and the URI names one of its threads (`<uri>#<thread>`): a URL would drop the fragment (the
 * whole store listed, or written into) and a path would become a new file called `x.db#t1`.
 */
export function namesAThread(redacted: string, store: string, thread: string) {
  return usageError(`'${redacted}' names a thread ('#${thread}'): this command takes the store itself, '${store}'`);
}

/**
 * A user-info holding '#', '/', '?' or '@' unencoded would be cut by the URL parse, and its parts printed or used as
 * a host: refused before any parse, naming no part of it (the URI printed redacted, user-info and all).
 */
function checkUserinfo(u: string, redacted: string): void {
  const at = userinfoEnd(u);
  // an '@' is read right (the user-info ends at the last '@' before the host, as the URL parser reads it); '#', '/'
  // and '?' would end it early, so the URL would name another host or path
  if (at >= 0 && /[#/?]/.test(u.slice(u.indexOf("//") + 2, at)))
    throw usageError(
      `saver URI '${redacted}': its user name or password holds a character that must be percent-encoded ('#' → %23, '/' → %2F, '?' → %3F)`,
    );
}

export function parseSaverUri(uri: string, env: NodeJS.ProcessEnv = process.env): SaverUri {
  if (typeof uri !== "string" || uri.trim() === "") throw usageError(`an empty saver URI: ${EXPECTED}`);
  let u = uri;
  if (/^rediss?:$/i.test(u)) {
    if (!env.REDIS_URL) throw usageError(`'${uri}' needs a URL (redis://host:port) or REDIS_URL set`);
    u = env.REDIS_URL;
  }
  if (/^postgres(ql)?:$/i.test(u)) {
    if (!env.DATABASE_URL) throw usageError(`'${uri}' needs a URL (postgres://host/db) or DATABASE_URL set`);
    u = env.DATABASE_URL;
  }
  const redacted = redactUri(u);
  if (/^(rediss?|postgres(ql)?):\/\//i.test(u)) {
    checkUserinfo(u, redacted);
    return { ...parseUrl(u, redacted), raw: uri };
  }
  const q = u.indexOf("?");
  // a '#' after the query, or right after a database file's name, starts a thread (a '#' in a query value is %23)
  const hash =
    q >= 0
      ? u.indexOf("#", q)
      : u.search(/\.(sqlite3?|db)#/i) >= 0
        ? u.indexOf("#", u.search(/\.(sqlite3?|db)#/i))
        : -1;
  if (hash >= 0) throw namesAThread(redacted, redactUri(u.slice(0, hash)), u.slice(hash + 1));
  const params = new URLSearchParams(q >= 0 ? u.slice(q + 1) : "");
  const head = q >= 0 ? u.slice(0, q) : u;
  const scheme = schemeOf(head)?.toLowerCase();
  const base = { raw: uri, redacted, params };
  switch (scheme) {
    case "memory":
      return { kind: "memory", ...base, location: head.slice(7) || "default" };
    case "sqlite": {
      const path = head.slice(7).replace(/^\/\//, "");
      if (!path) throw usageError(`saver URI '${redacted}': sqlite: needs a path, e.g. sqlite:./checkpoints.db`);
      return { kind: "sqlite", ...base, location: path };
    }
    case "file": {
      const path = head.slice(5).replace(/^\/\/(?=\/)/, "");
      if (!path) throw usageError(`saver URI '${redacted}': file: needs a folder, e.g. file:./checkpoints`);
      return { kind: "file", ...base, location: path };
    }
    case undefined:
      if (head === "") throw usageError(`saver URI '${redacted}' names no path: ${EXPECTED}`);
      // a bare path to an SQLite database (LangGraph's checkpoints.sqlite, anything.db) is an sqlite: store
      if (/\.(sqlite3?|db)$/i.test(head)) return { kind: "sqlite", ...base, location: head };
      return { kind: "file", ...base, location: head };
    default:
      throw badScheme(head, schemeOf(head)!, redacted);
  }
}
