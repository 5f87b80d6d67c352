/**
 * Mastra memory (LibSQL and PostgreSQL: savers/mastra/): threads of resources, their messages, resources with working
 * memory. Read, and written by `ckpt migrate` only; one document per thread (no history, no namespaces).
 */
import { plural } from "../../base/plural.js";
import { tableTime } from "../../base/time.js";
import type { OpenedStore } from "../../savers/index.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../../savers/types.js";
import type { MastraThreadSummary, MastraStore } from "../../savers/mastra/types.js";
import type { Engine, Listing } from "../types.js";

/**
 * One row per thread (its resource, title, message rows, stored bytes of their contents, last update), streamed. The
 * count is of Mastra's message rows, as Mastra's own recall/listMessages count them (and as `--json`'s `messages`
 * gives it): one row holds an assistant turn with its tool calls and their results, which `show` splits into
 * messages of their own (a thread with tool calls: 4 rows, 7 messages), so the column says ROWS, not MESSAGES.
 */
function listing(store: MastraStore, limit: number | undefined): Listing<MastraThreadSummary> {
  return {
    head: ["THREAD", "RESOURCE", "TITLE", "ROWS", "SIZE", "UPDATED"],
    right: new Set([3, 4]),
    rows: store.threads({ limit }),
    json: (t) => ({ layout: "mastra", ...t }),
    cells: (t) => [
      t.threadId,
      t.resourceId,
      t.title || "-",
      String(t.messages),
      `${t.bytes} B`,
      tableTime(t.updatedAt),
    ],
    async footer(n) {
      if (!n) return `${store.uri}: no threads`;
      const c = await store.counts();
      return `${plural(n, "thread")} (Mastra ${store.kind === "sqlite" ? "LibSQL" : "PostgreSQL"} store: ${plural(c.messages, "message row")}, ${plural(c.resources, "resource")}; ROWS: Mastra's message rows, show splits a row's tool calls and results into messages)${c.orphanMessages ? `; ${plural(c.orphanMessages, "message")} of no thread (Mastra never lists them)` : ""}`;
    },
  };
}

/** What a Mastra store cannot do is written with `ckpt migrate` instead. */
const MIGRATE = "ckpt writes Mastra memory with ckpt migrate only (--to '<store>?layout=mastra')";

export function mastraEngine(opened: Extract<OpenedStore, { layout: "mastra" }>): Engine {
  const { saver, store, uri } = opened;
  return {
    layout: "mastra",
    title: "a Mastra store",
    holds: "Mastra's memory tables",
    caps: {
      history: false,
      namespaces: false,
      subgraphs: false,
      write: true,
      shared: true,
      parallelWriters: false,
      prune: false,
      delete: true,
      copy: false,
      encrypted: false,
      msgpack: false,
    },
    instead: {
      namespaces: "its threads belong to resources",
      prune: MIGRATE,
      copy: MIGRATE,
      msgpack: "a Mastra store holds JSON",
      parallelWriters: "a Mastra target is written by one process",
    },
    uri,
    saver,
    opened,
    migration: async () => (await import("./migrate.js")).route,
    close: () => store.close(),
    // no namespaces: the one a command names finds nothing but in 'default' (ckpt's namespace rule)
    namespaceFor: (flag) => namespaceOf(uri, flag) ?? DEFAULT_NAMESPACE,
    copiesAs: "ckpt",
    listing: async (o) => listing(store, o.limit),
    hasThread: async (threadId) => (await store.thread(threadId)) !== undefined,
    // the thread, its messages, its rows in the other per-thread tables and its vector rows, in one transaction
    deleteThread: (threadId, dryRun) => store.erase({ thread: threadId }, dryRun),
    // a resource: its row (working memory), its threads with every row of theirs, every row naming it
    erasesBy: ["resource"],
    eraseOwner: (o, dryRun) => store.erase({ resource: o.resource! }, dryRun),
    stats: async (o) =>
      (await import("../../core/mastra/stats.js")).mastraStats(store, {
        top: o.top,
        accept: o.accept,
        filter: { threads: o.thread, match: o.match },
      }),
  };
}
