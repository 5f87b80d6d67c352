/**
 * A Mastra store as a read-only Saver: one document per thread (the `mastra` format, formats/mastra.ts): the thread
 * row, its resource row (working memory), and its messages in Mastra's order with each content parsed from the JSON
 * text Mastra stored. A value that does not decode stays as stored and is named in `unreadable` (its table, row,
 * column and why): `validate` reports it, `show` refuses the thread rather than show less than is there.
 */
import { usageError } from "../../base/errors.js";
import { DEFAULT_NAMESPACE, type Saver, type ThreadInfo } from "../types.js";
import type { MastraStore, MastraThreadRow } from "./types.js";

/** A value that did not decode, where it is stored. */
export interface UnreadableRow {
  table: string;
  row: string;
  column: string;
  reason: string;
}

/** The `mastra` format's document: one thread of a Mastra store. */
export interface MastraThreadDocument {
  thread: Omit<MastraThreadRow, "unreadable">;
  /** the thread's resource with its working memory, null when the store has no row for it */
  resource: {
    id: string;
    workingMemory: string | null;
    metadata: unknown;
    createdAt: string;
    updatedAt: string;
  } | null;
  messages: Array<{
    id: string;
    role: string;
    type: string;
    createdAt: string;
    resourceId: string | null;
    /** the stored content parsed (format 2), or the stored text when it is not JSON (see `unreadable`) */
    content: unknown;
  }>;
  unreadable?: UnreadableRow[];
}

export interface MastraSaver extends Saver {
  readonly mastra: MastraStore;
}

export const isMastraSaver = (s: Saver): s is MastraSaver => (s as Partial<MastraSaver>).mastra !== undefined;

/** One thread of the store as its document, undefined when the store has no such thread. */
export async function threadDocument(store: MastraStore, threadId: string): Promise<MastraThreadDocument | undefined> {
  const thread = await store.thread(threadId);
  if (!thread) return undefined;
  const unreadable: UnreadableRow[] = [];
  for (const u of thread.unreadable ?? []) unreadable.push({ table: "mastra_threads", row: thread.id, ...u });
  const res = await store.resource(thread.resourceId);
  for (const u of res?.unreadable ?? []) unreadable.push({ table: "mastra_resources", row: res!.id, ...u });
  const messages = (await store.messages(threadId)).map((m) => {
    let content: unknown = m.content;
    try {
      content = JSON.parse(m.content);
    } catch (e) {
      // format 1 (Mastra < 0.10: type "text", "tool-call", "tool-result") stored a string content as it is
      if (m.type !== "v2")
        return { id: m.id, role: m.role, type: m.type, createdAt: m.createdAt, resourceId: m.resourceId, content };
      unreadable.push({
        table: "mastra_messages",
        row: m.id,
        column: "content",
        reason: `not JSON: ${(e as Error).message}`,
      });
    }
    // a store without the type column (none Mastra wrote; damaged): the format the content has
    const type = m.type ?? (content !== null && typeof content === "object" && !Array.isArray(content) ? "v2" : "text");
    return { id: m.id, role: m.role, type, createdAt: m.createdAt, resourceId: m.resourceId, content };
  });
  const { unreadable: _t, ...t } = thread;
  const resource = res
    ? {
        id: res.id,
        workingMemory: res.workingMemory,
        metadata: res.metadata,
        createdAt: res.createdAt,
        updatedAt: res.updatedAt,
      }
    : null;
  return { thread: t, resource, messages, ...(unreadable.length ? { unreadable } : {}) };
}

/** The Saver view of a Mastra store: read-only; writing Mastra stores is `ckpt migrate`'s. */
export function mastraSaver(store: MastraStore): MastraSaver {
  const readOnly = () => {
    throw usageError(
      `${store.uri} is a Mastra store: ckpt writes Mastra memory with ckpt migrate only (--to '<store>?layout=mastra'); delete, prune, copy and replay do not write it`,
    );
  };
  const load = async (threadId: string) => {
    const d = await threadDocument(store, threadId);
    return d && JSON.stringify(d, null, 2);
  };
  return {
    uri: store.uri,
    mastra: store,
    load,
    loadMany: (keys) => Promise.all(keys.map((k) => load(k.threadId))),
    save: async () => readOnly(),
    saveMany: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (threadId) => (await store.thread(threadId)) !== undefined,
    async *list(options = {}): AsyncIterable<ThreadInfo> {
      for await (const t of store.threads({ after: options.after, limit: options.limit }))
        yield {
          namespace: options.namespace ?? DEFAULT_NAMESPACE,
          threadId: t.threadId,
          bytes: t.bytes,
          updatedAt: t.updatedAt,
        };
    },
    async *scan(options = {}) {
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: Array<{ namespace: string; threadId: string; text: string }> = [];
      for await (const t of store.threads()) {
        const text = await load(t.threadId);
        if (text !== undefined)
          batch.push({ namespace: options.namespace ?? DEFAULT_NAMESPACE, threadId: t.threadId, text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    count: async () => (await store.counts()).threads,
    namespaces: async () => [DEFAULT_NAMESPACE],
    close: () => store.close(),
  };
}
