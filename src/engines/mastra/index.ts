/**
 * Mastra memory (LibSQL and PostgreSQL: savers/mastra/): threads of resources, their messages, resources with working
 * memory. Read, and written by `ckpt migrate` only; one document per thread (no history, no namespaces).
 */
import { plural } from "../../base/plural.js";
import { tableTime } from "../../base/time.js";
import type { OpenedStore } from "../../savers/index.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../../savers/types.js";
import type { MastraThreadSummary, MastraStore } from "../../savers/mastra/types.js";
import type { RowPruner } from "../../core/prune-rows.js";
import type { Engine, Listing } from "../types.js";

/** `ckpt prune` of a Mastra store: threads by their update time, messages by their creation time. */
function mastraPruner(store: MastraStore): RowPruner {
  const ms = (iso: string) => {
    const t = Date.parse(iso);
    return Number.isNaN(t) ? undefined : t;
  };
  return {
    kind: store.kind,
    thread: "thread",
    items: "messages of a thread",
    async threadPage(after, n) {
      const out: Array<{ id: string; updatedAt?: number }> = [];
      for await (const t of store.threads({ after, limit: n })) {
        const at = ms(t.updatedAt);
        out.push({ id: t.threadId, ...(at === undefined ? {} : { updatedAt: at }) });
      }
      return out;
    },
    eraseThread: (id, dryRun) => store.erase({ thread: id }, dryRun),
    async trim(id, o) {
      // newest first (Mastra's order reversed): those written before the prune started beyond the newest `keep` and
      // older than `before` go, by id (a message written meanwhile is never among them)
      const old = (await store.messages(id))
        .map((m) => ({ id: m.id, at: ms(m.createdAt) ?? Number.NEGATIVE_INFINITY }))
        .filter((m) => m.at < o.startedAt)
        .reverse();
      const gone = old.slice(o.keep).filter((m) => m.at < o.before);
      return gone.length ? store.erase({ messages: gone.map((m) => m.id) }, o.dryRun) : null;
    },
    vacuum: (o) => store.vacuum(o),
  };
}

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
      prune: true,
      delete: true,
      copy: false,
      encrypted: false,
      msgpack: false,
    },
    instead: {
      namespaces: "its threads belong to resources",
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
    // whole threads (--idle-for, --thread/--match) or their oldest messages (--keep-last, --older-than; the thread, its
    // metadata and the resource's working memory stay), with the vector rows of what goes
    prune: async (c, o) => (await import("../../core/prune-rows.js")).pruneRows(mastraPruner(store), c, o),
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
