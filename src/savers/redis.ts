/**
 * `redis://…` — deep-agent's KeyValueStoreSaver layout over plain Redis 7 (no modules), on one server or a Redis
 * Cluster: key `<namespace>:checkpoints:<threadId>` (optionally behind `?prefix=`), value = the checkpoint as compact
 * JSON text (what `JSON.stringify` gives, as in deep-agent's documented Redis store). The keys carry no hash tag, so a
 * cluster spreads them over every slot exactly as deep-agent's own keys are; data written either way reads the same.
 * Listing uses SCAN (never KEYS; on every master of a cluster), writes are pipelined. Unlike deep-agent's `list()`,
 * thread ids containing ':' are listed too.
 * Cluster: `?cluster=1` opens a Redis Cluster from the given node; without it the server is asked (`INFO cluster`)
 * and a cluster node is opened as a cluster; `?cluster=0` never does (see redis-kv.ts for what runs on a cluster).
 */
import type { ClusterOptions, RedisOptions } from "ioredis";
import { storeError, usageError } from "../base/errors.js";
import { checkThreadId, compareIds, reformat } from "./common.js";
import { clusterKv, singleKv, type Kv } from "./redis-kv.js";
import { DEFAULT_NAMESPACE, type ListOptions, type Saver, type SaverOptions, type SaverRecord, type ThreadInfo } from "./types.js";

export const SAVER_NAME = "redis";

/** Escape glob characters for SCAN MATCH. */
const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, (c) => "\\" + c);

type ClusterMode = "on" | "off" | "detect";

function clusterMode(params: URLSearchParams | undefined, uri: string): ClusterMode {
  const v = params?.get("cluster");
  if (v === null || v === undefined) return "detect";
  if (/^(1|true|yes|on)$/i.test(v)) return "on";
  if (/^(0|false|no|off)$/i.test(v)) return "off";
  throw usageError(`saver URI '${uri}': cluster=${v}: expected cluster=1 (a Redis Cluster) or cluster=0 (one server)`);
}

function connectError(uri: string, cause: Error): Error {
  const refused = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|connect|startup nodes/i.test(`${(cause as NodeJS.ErrnoException).code ?? ""} ${cause.message}`) && !/WRONGPASS|NOAUTH|NOPERM/.test(cause.message);
  return storeError("redis-connect", `cannot connect to Redis at ${uri}: ${cause.message}${refused ? " (start it with: redis-server --daemonize yes)" : ""}`);
}

/** One server; undefined when it turns out to be a cluster node and `mode` is "detect". */
async function openSingle(url: string, uri: string, mode: ClusterMode): Promise<Kv | undefined> {
  const { Redis } = await import("ioredis");
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, enableOfflineQueue: false, retryStrategy: () => null });
  // Errors are reported through the failing command; the last one is kept because a refused AUTH surfaces from
  // connect() only as "Connection is closed".
  let lastError: Error | undefined;
  client.on("error", (e: Error) => void (lastError = e));
  try {
    await client.connect();
    await client.ping();
    if (mode === "detect" && /^cluster_enabled:1/m.test(await client.info("cluster"))) {
      client.disconnect();
      return undefined;
    }
  } catch (e) {
    client.disconnect();
    throw connectError(uri, lastError ?? (e as Error));
  }
  return singleKv(client);
}

/** A Redis Cluster, from the one node in the URL (the client discovers the others and the slot map). */
async function openCluster(url: string, uri: string): Promise<Kv> {
  const { Cluster } = await import("ioredis");
  const u = new URL(url);
  const redisOptions: RedisOptions = {
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    tls: u.protocol === "rediss:" ? {} : undefined,
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
  };
  if (!["", "0"].includes(u.pathname.replace(/^\//, ""))) throw usageError(`saver URI '${uri}': a Redis Cluster has only database 0`);
  const options: ClusterOptions = {
    lazyConnect: true,
    enableAutoPipelining: true,
    // the whole cluster unreachable: give up after a few tries (a failed-over master is found by refreshing the slots)
    clusterRetryStrategy: (times) => (times > 3 ? null : 100 * times),
    slotsRefreshTimeout: 5000,
    redisOptions,
  };
  const cluster = new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], options);
  let lastError: Error | undefined;
  cluster.on("error", (e: Error) => void (lastError = e));
  try {
    await cluster.connect();
    await cluster.ping();
  } catch (e) {
    cluster.disconnect();
    const cause = lastError ?? (e as Error);
    // ioredis reports a server without cluster support only as "Failed to refresh slots cache": ask it
    const single = await openSingle(url, uri, "detect").catch(() => undefined);
    if (single) {
      single.close();
      throw storeError("redis-connect", `${uri} is not a Redis Cluster (cluster=1 given; drop it to use the one server)`);
    }
    throw connectError(uri, cause);
  }
  return clusterKv(cluster);
}

/** Open the connection the URI asks for (`cluster` is ckpt's parameter, not the client's). */
export async function openRedisKv(location: string, uri: string, params?: URLSearchParams): Promise<Kv> {
  const mode = clusterMode(params ?? new URL(location).searchParams, uri);
  const u = new URL(location);
  u.searchParams.delete("cluster");
  const url = u.toString();
  if (mode !== "on") {
    const single = await openSingle(url, uri, mode);
    if (single) return single;
  }
  return openCluster(url, uri);
}

export async function createRedisSaver(options: SaverOptions): Promise<Saver> {
  const { uri } = options;
  const kv = await openRedisKv(options.location, uri, options.params);
  return redisSaver(kv, uri, options.namespace ?? DEFAULT_NAMESPACE, options.params?.get("prefix") ?? "");
}

function redisSaver(kv: Kv, uri: string, defaultNamespace: string, prefix: string): Saver {
  const keyOf = (threadId: string, ns?: string) => `${prefix}${ns ?? defaultNamespace}:checkpoints:${threadId}`;
  const headOf = (ns: string) => `${prefix}${ns}:checkpoints:`;
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("redis-io", `${what} (${uri}): ${(e as Error).message}`);
    }
  };
  /** every key of a namespace once (SCAN may return a key twice while the keyspace is rehashed) */
  async function* keysOf(ns: string, count: number): AsyncIterable<string[]> {
    const seen = new Set<string>();
    for await (const keys of kv.scanKeys(globEscape(headOf(ns)) + "*", count)) {
      const fresh = keys.filter((k) => !seen.has(k) && (seen.add(k), true));
      if (fresh.length) yield fresh;
    }
  }
  async function allIds(ns: string): Promise<string[]> {
    const head = headOf(ns);
    const ids: string[] = [];
    for await (const keys of keysOf(ns, 1000)) for (const k of keys) ids.push(k.slice(head.length));
    return ids.sort(compareIds);
  }
  return {
    uri,
    storesCompact: true,
    load: (threadId, ns) => wrap("cannot read", async () => (await kv.get(keyOf(threadId, ns))) ?? undefined),
    loadMany: (keys) => wrap("cannot read", async () => (keys.length ? (await kv.getMany(keys.map((k) => keyOf(k.threadId, k.namespace)))).map((v) => v ?? undefined) : [])),
    async save(threadId, text, ns) {
      checkThreadId(threadId);
      const v = reformat(text, undefined, `${uri}#${threadId}`);
      await wrap("cannot write", () => kv.setMany([[keyOf(threadId, ns), v]]));
    },
    delete: (threadId, ns) => wrap("cannot delete", async () => (await kv.del(keyOf(threadId, ns))) > 0),
    exists: (threadId, ns) => wrap("cannot read", async () => (await kv.exists(keyOf(threadId, ns))) > 0),
    async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
      const namespace = options.namespace ?? defaultNamespace;
      const ids = (await wrap("cannot list", () => allIds(namespace))).filter((id) => options.after === undefined || compareIds(id, options.after) > 0);
      const chosen = options.limit !== undefined ? ids.slice(0, options.limit) : ids;
      for (let i = 0; i < chosen.length; i += 500) {
        const batch = chosen.slice(i, i + 500);
        const lens = await wrap("cannot list", () => kv.strlenMany(batch.map((id) => keyOf(id, namespace))));
        for (let k = 0; k < batch.length; k++) if (lens[k]! > 0) yield { namespace, threadId: batch[k]!, bytes: lens[k]! };
      }
    },
    async *scan(options = {}) {
      const namespace = options.namespace ?? defaultNamespace;
      const size = Math.max(1, options.batchSize ?? 200);
      const head = headOf(namespace);
      const take = async (ks: string[]): Promise<SaverRecord[]> => {
        const texts = await wrap("cannot read", () => kv.getMany(ks));
        const out: SaverRecord[] = [];
        ks.forEach((k, i) => {
          const text = texts[i];
          if (text !== null && text !== undefined) out.push({ namespace, threadId: k.slice(head.length), text });
        });
        return out;
      };
      let keys: string[] = [];
      const it = keysOf(namespace, Math.max(size, 100))[Symbol.asyncIterator]();
      for (;;) {
        const r = await wrap("cannot list", () => it.next());
        if (r.done) break;
        keys.push(...r.value);
        while (keys.length >= size) {
          const batch = await take(keys.splice(0, size));
          if (batch.length) yield batch;
        }
      }
      if (keys.length) {
        const batch = await take(keys);
        keys = [];
        if (batch.length) yield batch;
      }
    },
    count: (ns) =>
      wrap("cannot count", async () => {
        let n = 0;
        // SCAN's rare repeats are not removed here: a count is for progress, and a set of every key would cost memory
        for await (const keys of kv.scanKeys(globEscape(headOf(ns ?? defaultNamespace)) + "*", 1000)) n += keys.length;
        return n;
      }),
    namespaces: () =>
      wrap("cannot list", async () => {
        const out = new Set<string>();
        for await (const keys of kv.scanKeys(globEscape(prefix) + "*:checkpoints:*", 1000)) {
          for (const k of keys) out.add(k.slice(prefix.length, k.indexOf(":checkpoints:", prefix.length)));
        }
        return [...out].sort(compareIds);
      }),
    async saveMany(records: SaverRecord[]) {
      for (const r of records) checkThreadId(r.threadId, r.namespace);
      const entries = records.map((r): [string, string] => [keyOf(r.threadId, r.namespace), r.compact ?? reformat(r.text, undefined, `${uri}#${r.threadId}`)]);
      await wrap("cannot write", () => kv.setMany(entries));
    },
    async close() {
      kv.close();
    },
  };
}
