/**
 * `redis://…` — deep-agent's KeyValueStoreSaver layout over plain Redis 7 (no modules): key
 * `<namespace>:checkpoints:<threadId>` (optionally behind `?prefix=`), value = the checkpoint as compact JSON text
 * (what `JSON.stringify` gives, as in deep-agent's documented Redis store). Listing uses SCAN (never KEYS), writes
 * use pipelines. Unlike deep-agent's `list()`, thread ids containing ':' are listed too.
 */
import { storeError } from "../base/errors.js";
import { checkThreadId, compareIds, reformat } from "./common.js";
import { DEFAULT_NAMESPACE, type ListOptions, type Saver, type SaverRecord, type ThreadInfo } from "./types.js";

/** Escape glob characters for SCAN MATCH. */
const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, (c) => "\\" + c);

export async function createRedisSaver(url: string, uri: string, opts: { namespace?: string; prefix?: string } = {}): Promise<Saver> {
  const { Redis } = await import("ioredis");
  const defaultNamespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const prefix = opts.prefix ?? "";
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, enableOfflineQueue: false, retryStrategy: () => null });
  // Errors are reported through the failing command; the last one is kept because a refused AUTH surfaces from
  // connect() only as "Connection is closed".
  let lastError: Error | undefined;
  client.on("error", (e: Error) => void (lastError = e));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    const cause = lastError ?? (e as Error);
    const refused = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|connect/i.test(`${(cause as NodeJS.ErrnoException).code ?? ""} ${cause.message}`) && !/WRONGPASS|NOAUTH|NOPERM/.test(cause.message);
    throw storeError("redis-connect", `cannot connect to Redis at ${uri}: ${cause.message}${refused ? " (start it with: redis-server --daemonize yes)" : ""}`);
  }
  const keyOf = (threadId: string, ns?: string) => `${prefix}${ns ?? defaultNamespace}:checkpoints:${threadId}`;
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("redis-io", `${what} (${uri}): ${(e as Error).message}`);
    }
  };
  async function allIds(ns: string): Promise<string[]> {
    const head = `${prefix}${ns}:checkpoints:`;
    const ids: string[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", globEscape(head) + "*", "COUNT", 1000);
      cursor = next;
      for (const k of keys) ids.push(k.slice(head.length));
    } while (cursor !== "0");
    return ids.sort(compareIds);
  }
  return {
    uri,
    storesCompact: true,
    load: (threadId, ns) => wrap("cannot read", async () => (await client.get(keyOf(threadId, ns))) ?? undefined),
    loadMany: (keys) =>
      wrap("cannot read", async () => {
        if (keys.length === 0) return [];
        const got = await client.mget(keys.map((k) => keyOf(k.threadId, k.namespace)));
        return got.map((v) => v ?? undefined);
      }),
    async save(threadId, text, ns) {
      checkThreadId(threadId);
      const v = reformat(text, undefined, `${uri}#${threadId}`);
      await wrap("cannot write", () => client.set(keyOf(threadId, ns), v));
    },
    delete: (threadId, ns) => wrap("cannot delete", async () => (await client.del(keyOf(threadId, ns))) > 0),
    exists: (threadId, ns) => wrap("cannot read", async () => (await client.exists(keyOf(threadId, ns))) > 0),
    async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
      const namespace = options.namespace ?? defaultNamespace;
      const ids = (await wrap("cannot list", () => allIds(namespace))).filter((id) => options.after === undefined || compareIds(id, options.after) > 0);
      const chosen = options.limit !== undefined ? ids.slice(0, options.limit) : ids;
      for (let i = 0; i < chosen.length; i += 500) {
        const batch = chosen.slice(i, i + 500);
        const p = client.pipeline();
        for (const id of batch) p.strlen(keyOf(id, namespace));
        const res = (await wrap("cannot list", () => p.exec())) ?? [];
        for (let k = 0; k < batch.length; k++) {
          const len = res[k]?.[1] as number;
          if (len > 0) yield { namespace, threadId: batch[k]!, bytes: len };
        }
      }
    },
    async *scan(options = {}) {
      const namespace = options.namespace ?? defaultNamespace;
      const size = Math.max(1, options.batchSize ?? 200);
      const head = `${prefix}${namespace}:checkpoints:`;
      let cursor = "0";
      let keys: string[] = [];
      // SCAN may return a key twice (when the keyspace is rehashed meanwhile): each record is yielded once.
      const seen = new Set<string>();
      const take = async (ks: string[]): Promise<SaverRecord[]> => {
        const texts = await wrap("cannot read", () => client.mget(ks));
        const out: SaverRecord[] = [];
        ks.forEach((k, i) => {
          const text = texts[i];
          if (text !== null && text !== undefined) out.push({ namespace, threadId: k.slice(head.length), text });
        });
        return out;
      };
      do {
        const [next, found] = await wrap("cannot list", () => client.scan(cursor, "MATCH", globEscape(head) + "*", "COUNT", Math.max(size, 100)));
        cursor = next;
        for (const k of found) {
          if (seen.has(k)) continue;
          seen.add(k);
          keys.push(k);
        }
        while (keys.length >= size) {
          const batch = await take(keys.splice(0, size));
          if (batch.length) yield batch;
        }
      } while (cursor !== "0");
      if (keys.length) {
        const batch = await take(keys);
        if (batch.length) yield batch;
      }
    },
    count: (ns) =>
      wrap("cannot count", async () => {
        const head = `${prefix}${ns ?? defaultNamespace}:checkpoints:`;
        let n = 0;
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", globEscape(head) + "*", "COUNT", 1000);
          cursor = next;
          n += keys.length;
        } while (cursor !== "0");
        return n;
      }),
    namespaces: () =>
      wrap("cannot list", async () => {
        const out = new Set<string>();
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", globEscape(prefix) + "*:checkpoints:*", "COUNT", 1000);
          cursor = next;
          for (const k of keys) out.add(k.slice(prefix.length, k.indexOf(":checkpoints:", prefix.length)));
        } while (cursor !== "0");
        return [...out].sort(compareIds);
      }),
    async saveMany(records: SaverRecord[]) {
      for (const r of records) checkThreadId(r.threadId);
      const p = client.pipeline();
      for (const r of records) p.set(keyOf(r.threadId, r.namespace), r.compact ?? reformat(r.text, undefined, `${uri}#${r.threadId}`));
      const res = await wrap("cannot write", () => p.exec());
      const failed = (res ?? []).find(([err]) => err);
      if (failed) throw storeError("redis-io", `cannot write (${uri}): ${failed[0]!.message}`);
    },
    async close() {
      client.disconnect();
    },
  };
}
