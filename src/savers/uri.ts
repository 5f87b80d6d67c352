/**
 * Saver URIs: `memory:[name]`, `file:<dir>` (or a bare path), `sqlite:<path>`, `redis://[user:pass@]host:port[/db]`,
 * `rediss://…`, `postgres://…` / `postgresql://…`. Query parameters: `namespace=` (all stores), `schema=` and
 * `table=` (postgres), `prefix=` (redis key prefix before the namespace, default none), `layout=langgraph|ckpt`
 * (sqlite, postgres: force the table layout; default: detected). A bare `*.sqlite` / `*.sqlite3` / `*.db` path is `sqlite:`.
 * `REDIS_URL` / `DATABASE_URL` fill in a bare `redis:` / `postgres:`.
 */
import { usageError } from "../base/errors.js";

export type SaverKind = "memory" | "file" | "sqlite" | "redis" | "postgres";

export interface SaverUri {
  kind: SaverKind;
  /** the URI as given, for messages (never print it: use `redacted`) */
  raw: string;
  redacted: string;
  /** file/sqlite path, memory name, or the connection URL */
  location: string;
  params: URLSearchParams;
}

export function redact(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i, (_m, s: string, auth: string) => `${s}${auth.includes(":") ? auth.split(":")[0] + ":***" : auth}@`);
}

export function parseSaverUri(uri: string, env: NodeJS.ProcessEnv = process.env): SaverUri {
  let u = uri;
  if (/^redis:?$/i.test(u) && env.REDIS_URL) u = env.REDIS_URL;
  if (/^postgres(ql)?:?$/i.test(u) && env.DATABASE_URL) u = env.DATABASE_URL;
  const q = u.indexOf("?");
  const params = new URLSearchParams(q >= 0 && !/^(rediss?|postgres(ql)?):\/\//i.test(u) ? u.slice(q + 1) : "");
  const head = q >= 0 && !/^(rediss?|postgres(ql)?):\/\//i.test(u) ? u.slice(0, q) : u;
  const redacted = redact(uri);
  if (/^memory:/i.test(head)) return { kind: "memory", raw: uri, redacted, location: head.slice(7) || "default", params };
  if (/^sqlite:/i.test(head)) {
    const path = head.slice(7).replace(/^\/\//, "");
    if (!path) throw usageError(`saver URI '${redacted}': sqlite: needs a path, e.g. sqlite:./checkpoints.db`);
    return { kind: "sqlite", raw: uri, redacted, location: path, params };
  }
  if (/^rediss?:\/\//i.test(head) || /^postgres(ql)?:\/\//i.test(head)) {
    let url: URL;
    try {
      url = new URL(head);
    } catch {
      throw usageError(`saver URI '${redacted}' is not a valid URL`);
    }
    const p = new URLSearchParams(url.search);
    const kind: SaverKind = url.protocol.startsWith("redis") ? "redis" : "postgres";
    for (const k of kind === "redis" ? ["namespace", "prefix"] : ["namespace", "schema", "table", "layout"]) {
      // our own parameters are not for the client library
      url.searchParams.delete(k);
    }
    return { kind, raw: uri, redacted, location: url.toString(), params: p };
  }
  // a bare path to an SQLite database (LangGraph's checkpoints.sqlite, anything.db) is an sqlite: store
  if (!/^[a-z][a-z0-9+.-]*:/i.test(head) && /\.(sqlite3?|db)$/i.test(head)) return { kind: "sqlite", raw: uri, redacted, location: head, params };
  if (/^file:/i.test(head)) return { kind: "file", raw: uri, redacted, location: head.slice(5).replace(/^\/\/(?=\/)/, ""), params };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(head)) throw usageError(`unknown saver URI scheme in '${redacted}': expected memory:, file:, sqlite:, redis://, postgres://`);
  return { kind: "file", raw: uri, redacted, location: head, params };
}
