/**
 * Opening a saver from its URI. Heavy clients (better-sqlite3, ioredis, pg) are imported only when a URI needs them.
 * Credentials come from the URI or REDIS_URL / DATABASE_URL and are never printed (`uri` on a Saver is redacted).
 */
import { parseSaverUri } from "./uri.js";
import type { Saver } from "./types.js";

export interface OpenOptions {
  /** default namespace (else the URI's ?namespace=, else "default") */
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  /** open only to read: a missing folder store is an input error (exit 3), never created */
  readOnly?: boolean;
}

export async function openSaver(uri: string, opts: OpenOptions = {}): Promise<Saver> {
  const u = parseSaverUri(uri, opts.env);
  const namespace = opts.namespace ?? u.params.get("namespace") ?? undefined;
  // a LangGraph store (detected from its tables, or ?layout=langgraph) opens read-only as a LangGraph saver
  const lg = u.kind === "sqlite" || u.kind === "postgres" ? await (await import("./langgraph/index.js")).openLangGraphSaver(u) : undefined;
  if (lg) return lg;
  switch (u.kind) {
    case "memory":
      return (await import("./memory.js")).createMemorySaver(u.location, u.redacted, namespace);
    case "file":
      return (await import("./file.js")).createFileSaver(u.location, u.redacted, namespace, u.params, opts.readOnly);
    case "sqlite":
      return (await import("./sqlite.js")).createSqliteSaver(u.location, u.redacted, namespace);
    case "redis":
      return (await import("./redis.js")).createRedisSaver({ location: u.location, uri: u.redacted, namespace, params: u.params });
    case "postgres":
      return (await import("./postgres.js")).createPostgresSaver(u.location, u.redacted, {
        namespace,
        schema: u.params.get("schema") ?? undefined,
        table: u.params.get("table") ?? undefined,
      });
  }
}

export { parseSaverUri, redact } from "./uri.js";
export { isLangGraphSaver, type LangGraphSaver } from "./langgraph/index.js";
export { contentHash } from "./common.js";
export * from "./types.js";
