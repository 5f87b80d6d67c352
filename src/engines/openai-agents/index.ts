/**
 * The Agents SDK's (Python) `SQLiteSession` tables (savers/openai-agents/): one session per row of its sessions table,
 * its items in the messages table. Read, and written only by `ckpt delete`: ckpt migrates from it, never into it.
 */
import { plural } from "../../base/plural.js";
import { tableTime } from "../../base/time.js";
import type { OpenedStore } from "../../savers/index.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../../savers/types.js";
import type { OpenAISessionStore, SessionSummary } from "../../savers/openai-agents/sqlite.js";
import { saverStats } from "../saver-stats.js";
import type { Engine, Listing } from "../types.js";

/** One row per session (items, stored bytes, created, updated), streamed. */
function listing(store: OpenAISessionStore, limit: number | undefined): Listing<SessionSummary> {
  return {
    head: ["SESSION", "ITEMS", "SIZE", "CREATED", "UPDATED"],
    right: new Set([1, 2]),
    rows: store.sessions({ limit }),
    json: (s) => ({ layout: "openai-agents-session", ...s }),
    cells: (s) => [
      s.sessionId,
      String(s.items),
      `${s.bytes} B`,
      s.createdAt ? tableTime(s.createdAt) : "-",
      s.updatedAt ? tableTime(s.updatedAt) : "-",
    ],
    async footer(n) {
      if (!n) return `${store.uri}: no sessions`;
      const c = store.counts();
      return `${plural(n, "session")} (Agents SDK SQLiteSession: ${plural(c.items, "item")} in ${store.tables.messages})${c.orphanSessions ? `; ${plural(c.orphanSessions, "session")} only in ${store.tables.messages} (no ${store.tables.sessions} row)` : ""}`;
    },
  };
}

const READ_ONLY = "an Agents SDK SQLiteSession store is read here, never written: migrate from it";

export function openAISessionEngine(opened: Extract<OpenedStore, { layout: "openai-agents-session" }>): Engine {
  const { saver, store, uri } = opened;
  return {
    layout: "openai-agents-session",
    title: "an Agents SDK SQLiteSession store",
    holds: "the Agents SDK's SQLiteSession tables",
    caps: {
      history: false,
      namespaces: false,
      subgraphs: false,
      write: false,
      shared: true,
      parallelWriters: false,
      prune: true,
      delete: true,
      copy: false,
      encrypted: false,
      msgpack: false,
    },
    instead: { write: READ_ONLY, copy: READ_ONLY },
    uri,
    saver,
    opened,
    // read as documents; as a target it is refused (caps.write)
    migration: async () => (await import("../ckpt/migrate.js")).route,
    close: () => store.close(),
    // no namespaces: the one a command names finds nothing but in 'default' (ckpt's namespace rule)
    namespaceFor: (flag) => namespaceOf(uri, flag) ?? DEFAULT_NAMESPACE,
    copiesAs: "ckpt",
    listing: async (o) => listing(store, o.limit),
    hasThread: async (threadId) => store.document(threadId) !== undefined,
    stats: (o) => saverStats(saver, { ...o, namespaces: undefined }),
    // the session's sessions row and items, in one write transaction
    deleteThread: async (threadId, dryRun) => {
      const tables = store.erase(threadId, dryRun);
      return tables && { tables };
    },
    // whole sessions (--idle-for, --thread/--match) or their oldest items (--keep-last, --older-than)
    prune: async (c, o) =>
      (await import("../../core/prune-rows.js")).pruneRows(
        {
          kind: "sqlite",
          thread: "session",
          items: "items of a session",
          async threadPage(after, n) {
            const out: Array<{ id: string; updatedAt?: number }> = [];
            for await (const s of store.sessions({ after, limit: n })) {
              const t = Date.parse(s.updatedAt ?? s.createdAt ?? "");
              out.push({ id: s.sessionId, ...(Number.isNaN(t) ? {} : { updatedAt: t }) });
            }
            return out;
          },
          eraseThread: async (id, dryRun) => {
            const tables = store.erase(id, dryRun);
            return tables && { tables };
          },
          trim: async (id, t) => {
            const tables = store.trim(id, t);
            return tables && { tables };
          },
          vacuum: (v) => store.vacuum(v),
        },
        c,
        o,
      ),
    statsLabel: "an Agents SDK SQLiteSession store, one session per thread, read as its items",
  };
}
