/**
 * The Chat SDK template's tables (savers/ai-chatbot/: Chat, Message, Message_v2, User), SQLite or PostgreSQL: one chat
 * per thread. Read, and written by `ckpt migrate` (chats into Message_v2) only.
 */
import { plural } from "../../base/plural.js";
import { tableTime } from "../../base/time.js";
import type { AiChatbotStore } from "../../savers/ai-chatbot/types.js";
import type { ChatSummary } from "../../savers/ai-chatbot/types.js";
import type { OpenedStore } from "../../savers/index.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../../savers/types.js";
import { saverStats } from "../saver-stats.js";
import type { Engine, Listing } from "../types.js";

/** One row per chat (title, user, visibility, its rows in Message and Message_v2), streamed. */
function listing(store: AiChatbotStore, limit: number | undefined): Listing<ChatSummary> {
  return {
    head: ["CHAT", "TITLE", "USER", "VISIBILITY", "MESSAGE", "MESSAGE_V2", "CREATED"],
    right: new Set([4, 5]),
    rows: store.chats({ limit }),
    json: (c) => ({ layout: "ai-chatbot", ...c }),
    cells: (c) => [
      c.id,
      c.title || "-",
      c.email ?? c.userId,
      c.visibility,
      String(c.messages),
      String(c.messagesV2),
      tableTime(c.createdAt),
    ],
    async footer(count) {
      if (!count) return `${store.uri}: no chats`;
      const n = await store.counts();
      return `${plural(count, "chat")} (Chat SDK template, ${store.kind === "sqlite" ? "SQLite" : "PostgreSQL"}: ${plural(n.messagesV2, "row")} in Message_v2, ${plural(n.messages, "row")} in Message, ${plural(n.users, "user")})`;
    },
  };
}

const MIGRATE = "ckpt writes Chat SDK tables with ckpt migrate only (chats from Message into Message_v2)";

export function aiChatbotEngine(opened: Extract<OpenedStore, { layout: "ai-chatbot" }>): Engine {
  const { saver, store, uri } = opened;
  return {
    layout: "ai-chatbot",
    title: "a Chat SDK store",
    holds: "the Chat SDK template's tables",
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
      copy: MIGRATE,
      parallelWriters: "a Chat SDK target is written by one process",
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
    deleteThread: (threadId, dryRun) => store.erase(threadId, dryRun),
    // whole chats: idle ones (--idle-for: the newest of the chat's and its messages' times) or those named
    prune: async (c, o) =>
      (await import("../../core/prune-rows.js")).pruneRows(
        {
          kind: store.kind,
          thread: "chat",
          async threadPage(after, n) {
            const ids: string[] = [];
            for await (const ch of store.chats({ after, limit: n })) ids.push(ch.id);
            const at = await store.activity(ids);
            return ids.map((id) => (at.has(id) ? { id, updatedAt: at.get(id)! } : { id }));
          },
          eraseThread: (id, dryRun) => store.erase(id, dryRun),
          vacuum: (v) => store.vacuum(v),
        },
        c,
        o,
      ),
    // a user: their chats with every row of them, their documents and suggestions, the User row
    erasesBy: ["user"],
    eraseOwner: (o, dryRun) => store.eraseUser(o.user!, dryRun),
    hasThread: async (threadId) => (await store.chat(threadId)) !== undefined,
    validateThread: async (threadId, o) => (await import("./validate.js")).validateChat(saver, threadId, o),
    stats: (o) => saverStats(saver, { ...o, namespaces: undefined }),
    statsLabel: "a Chat SDK store (the template's tables), one chat per thread, read as its UI messages",
  };
}
