/**
 * `redis://…` — deep-agent's KeyValueStoreSaver layout over plain Redis 7 (no modules), on one server or a Redis
 * Cluster: key `<namespace>:checkpoints:<threadId>` (optionally behind `?prefix=`), value = the checkpoint as compact
 * JSON text (what `JSON.stringify` gives, as in deep-agent's documented Redis store). The keys carry no hash tag, so a
 * cluster spreads them over every slot exactly as deep-agent's own keys are; data written either way reads the same.
 * Listing uses SCAN (never KEYS; on every master of a cluster), writes are pipelined. Unlike deep-agent's `list()`,
 * thread ids containing ':' are listed too.
 * Cluster: `?cluster=1` opens a Redis Cluster from the given node; without it the server is asked (`INFO cluster`)
 * and a cluster node is opened as a cluster; `?cluster=0` never does (see redis-kv.ts for what runs on a cluster).
 * Timeouts: connecting and every command give up after `?timeout=<seconds>` (default 10): a server that accepts the
 * connection but never answers (hung, `CLIENT PAUSE`d, a wrong port that swallows bytes) is a store error (exit 4)
 * naming the store, not a hang. Every message from the client passes the one redactor (base/redact.ts).
 */
import type { ClusterOptions, RedisOptions } from "ioredis";
import { hexDigest } from "../base/digest.js";
import { ExitCode, RecordError, storeError, usageError } from "../base/errors.js";
import { redactText } from "../base/redact.js";
import { checkThreadId, compareIds, reformat } from "./common.js";
import { clusterKv, singleKv, type Kv } from "./redis-kv.js";
import {
  DEFAULT_NAMESPACE,
  type ListOptions,
  type RecordKey,
  type Saver,
  type SaverOptions,
  type SaverRecord,
  type ScanOptions,
  type ThreadInfo,
} from "./types.js";

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

/** The default of `?timeout=`: seconds to connect, and for any one command to be answered. */
export const REDIS_TIMEOUT_S = 10;

/** `?timeout=<seconds>` (a positive number), in milliseconds. */
function timeoutMs(params: URLSearchParams | undefined, uri: string): number {
  const v = params?.get("timeout");
  if (v === null || v === undefined) return REDIS_TIMEOUT_S * 1000;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw usageError(`saver URI '${uri}': timeout=${v}: expected seconds, a number above 0 (e.g. timeout=30)`);
  return Math.round(n * 1000);
}

/** What a failed command or connection says, redacted, a time-out in words (ioredis says "Command timed out"). */
function describe(e: Error, ms: number): string {
  if (
    /command timed out|ETIMEDOUT|connection timed out/i.test(`${(e as NodeJS.ErrnoException).code ?? ""} ${e.message}`)
  ) {
    return `no answer within ${ms / 1000} s (${redactText(e.message)}): the server is hung, paused or not Redis (?timeout=<seconds> sets the limit)`;
  }
  return redactText(e.message);
}

function connectError(uri: string, cause: Error, ms: number): Error {
  const timedOut = /command timed out|ETIMEDOUT|connection timed out/i.test(
    `${(cause as NodeJS.ErrnoException).code ?? ""} ${cause.message}`,
  );
  const refused =
    !timedOut &&
    /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|connect|startup nodes/i.test(
      `${(cause as NodeJS.ErrnoException).code ?? ""} ${cause.message}`,
    ) &&
    !/WRONGPASS|NOAUTH|NOPERM/.test(cause.message);
  return storeError(
    "redis-connect",
    `cannot connect to Redis at ${uri}: ${describe(cause, ms)}${refused ? " (start it with: redis-server --daemonize yes)" : ""}`,
  );
}

/**
 * `p`, or a rejection after `ms`: ioredis's own timers cover the TCP connect and each command, but not a connection
 * whose server never answers the ready check (INFO) — `connect()` would wait for it forever.
 */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("connection timed out"), { code: "ETIMEDOUT" })), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The credentials of a Redis URL. A lone user-info is the password, as the one redactor (base/redact.ts) treats it:
 * `redis://TOKEN@host` authenticates with TOKEN (Redis 6 ACL: `AUTH <password>` logs in as `default`); the client
 * would take it for a user name and send no password at all.
 */
export function redisCredentials(u: URL): { username?: string; password?: string } {
  const user = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  if (user !== undefined && password === undefined) return { username: "", password: user };
  return { username: user, password };
}

/** One server; undefined when it turns out to be a cluster node and `mode` is "detect". */
async function openSingle(url: string, uri: string, mode: ClusterMode, ms: number): Promise<Kv | undefined> {
  const { Redis } = await import("ioredis");
  // the credentials as options, the URL without them (the client takes the URL's over any option)
  const bare = new URL(url);
  const credentials = redisCredentials(bare);
  bare.username = "";
  bare.password = "";
  const client = new Redis(bare.toString(), {
    ...credentials,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: ms,
    commandTimeout: ms,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Errors are reported through the failing command; the last one is kept because a refused AUTH surfaces from
  // connect() only as "Connection is closed".
  let lastError: Error | undefined;
  client.on("error", (e: Error) => void (lastError = e));
  try {
    await within(client.connect(), ms);
    await client.ping();
    if (mode === "detect" && /^cluster_enabled:1/m.test(await client.info("cluster"))) {
      client.disconnect();
      return undefined;
    }
  } catch (e) {
    client.disconnect();
    throw connectError(uri, lastError ?? (e as Error), ms);
  }
  return singleKv(client);
}

/** A Redis Cluster, from the one node in the URL (the client discovers the others and the slot map). */
async function openCluster(url: string, uri: string, ms: number): Promise<Kv> {
  const { Cluster } = await import("ioredis");
  const u = new URL(url);
  const redisOptions: RedisOptions = {
    ...redisCredentials(u),
    tls: u.protocol === "rediss:" ? {} : undefined,
    connectTimeout: ms,
    commandTimeout: ms,
    maxRetriesPerRequest: 1,
  };
  if (!["", "0"].includes(u.pathname.replace(/^\//, "")))
    throw usageError(`saver URI '${uri}': a Redis Cluster has only database 0`);
  const options: ClusterOptions = {
    lazyConnect: true,
    enableAutoPipelining: true,
    // the whole cluster unreachable: give up after a few tries (a failed-over master is found by refreshing the slots)
    clusterRetryStrategy: (times) => (times > 3 ? null : 100 * times),
    slotsRefreshTimeout: ms,
    redisOptions,
  };
  const cluster = new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], options);
  let lastError: Error | undefined;
  cluster.on("error", (e: Error) => void (lastError = e));
  try {
    await within(cluster.connect(), ms);
    await cluster.ping();
  } catch (e) {
    cluster.disconnect();
    const cause = lastError ?? (e as Error);
    // ioredis reports a server without cluster support only as "Failed to refresh slots cache": ask it
    const single = await openSingle(url, uri, "detect", ms).catch(() => undefined);
    if (single) {
      single.close();
      throw storeError(
        "redis-connect",
        `${uri} is not a Redis Cluster (cluster=1 given; drop it to use the one server)`,
      );
    }
    throw connectError(uri, cause, ms);
  }
  return clusterKv(cluster);
}

/** Open the connection the URI asks for (`cluster` is ckpt's parameter, not the client's). */
export async function openRedisKv(location: string, uri: string, params?: URLSearchParams): Promise<Kv> {
  const given = params ?? new URL(location).searchParams;
  const mode = clusterMode(given, uri);
  const ms = timeoutMs(given, uri);
  const u = new URL(location);
  u.searchParams.delete("cluster");
  u.searchParams.delete("timeout");
  const url = u.toString();
  if (mode !== "on") {
    const single = await openSingle(url, uri, mode, ms);
    if (single) return single;
  }
  return openCluster(url, uri, ms);
}

/** What separates a namespace from a thread id in a key: `<namespace>:checkpoints:<threadId>`. */
const SEPARATOR = ":checkpoints:";

/**
 * Why a namespace cannot be one in Redis, or undefined: one holding the key separator would write keys that read
 * back as another namespace (`x:checkpoints:y` + thread `t` reads as namespace `x`, thread `y:checkpoints:t`), which
 * migrating or pruning `x` would then touch.
 */
function badNamespace(ns: string): string | undefined {
  return ns.includes(SEPARATOR)
    ? `namespace ${JSON.stringify(ns)} holds Redis's key separator '${SEPARATOR}': its keys would read back as namespace ${JSON.stringify(ns.slice(0, ns.indexOf(SEPARATOR)))}`
    : undefined;
}

export async function createRedisSaver(options: SaverOptions): Promise<Saver> {
  const { uri } = options;
  const bad = options.namespace !== undefined ? badNamespace(options.namespace) : undefined;
  if (bad !== undefined) throw usageError(`saver URI '${uri}': ${bad}`);
  const kv = await openRedisKv(options.location, uri, options.params);
  return new RedisStore(
    kv,
    uri,
    options.namespace ?? DEFAULT_NAMESPACE,
    options.params?.get("prefix") ?? "",
    timeoutMs(options.params, uri),
  );
}

class RedisStore implements Saver {
  readonly storesCompact = true;
  /** one server: a batch of new records in one MSETNX (a cluster cannot set keys of many slots at once) */
  readonly insertNew?: (records: SaverRecord[]) => Promise<boolean>;
  /** false once the server refused MSETNX (an ACL, a proxy): new records are then looked up and set */
  private setNew = true;

  constructor(
    private readonly kv: Kv,
    readonly uri: string,
    private readonly defaultNamespace: string,
    private readonly prefix: string,
    private readonly ms: number,
  ) {
    if (kv.setNewMany) this.insertNew = (records) => this.setNewMany(records);
  }

  private keyOf(threadId: string, ns?: string): string {
    return `${this.prefix}${ns ?? this.defaultNamespace}:checkpoints:${threadId}`;
  }

  private headOf(ns: string): string {
    const bad = badNamespace(ns);
    if (bad !== undefined) throw usageError(`${this.uri}: ${bad}`);
    return `${this.prefix}${ns}:checkpoints:`;
  }

  private async wrap<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("redis-io", `${what} (${this.uri}): ${describe(e as Error, this.ms)}`);
    }
  }

  /** every key of a namespace once (SCAN may return a key twice while the keyspace is rehashed) */
  private async *keysOf(ns: string, count: number): AsyncIterable<string[]> {
    const seen = new Set<string>();
    for await (const keys of this.kv.scanKeys(globEscape(this.headOf(ns)) + "*", count)) {
      const fresh = keys.filter((k) => !seen.has(k) && (seen.add(k), true));
      if (fresh.length) yield fresh;
    }
  }

  private async allIds(ns: string): Promise<string[]> {
    const head = this.headOf(ns);
    const ids: string[] = [];
    for await (const keys of this.keysOf(ns, 1000)) for (const k of keys) ids.push(k.slice(head.length));
    return ids.sort(compareIds);
  }

  load(threadId: string, ns?: string): Promise<string | undefined> {
    return this.wrap("cannot read", async () => (await this.kv.get(this.keyOf(threadId, ns))) ?? undefined);
  }

  loadMany(keys: RecordKey[]): Promise<Array<string | undefined>> {
    // a namespace no Redis key can stand for holds nothing (a migration's lookup before it rejects the record)
    const asked = keys.filter((k) => badNamespace(k.namespace) === undefined);
    return this.wrap("cannot read", async () => {
      const got = asked.length ? await this.kv.getMany(asked.map((k) => this.keyOf(k.threadId, k.namespace))) : [];
      let i = 0;
      return keys.map((k) => (badNamespace(k.namespace) === undefined ? (got[i++] ?? undefined) : undefined));
    });
  }

  async save(threadId: string, text: string, ns?: string): Promise<void> {
    checkThreadId(threadId);
    const v = reformat(text, undefined, `${this.uri}#${threadId}`);
    await this.wrap("cannot write", () => this.kv.setMany([[this.keyOf(threadId, ns), v]]));
  }

  delete(threadId: string, ns?: string): Promise<boolean> {
    return this.wrap("cannot delete", async () => (await this.kv.del(this.keyOf(threadId, ns))) > 0);
  }

  exists(threadId: string, ns?: string): Promise<boolean> {
    return this.wrap("cannot read", async () => (await this.kv.exists(this.keyOf(threadId, ns))) > 0);
  }

  async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
    const namespace = options.namespace ?? this.defaultNamespace;
    const ids = (await this.wrap("cannot list", () => this.allIds(namespace))).filter(
      (id) => options.after === undefined || compareIds(id, options.after) > 0,
    );
    const chosen = options.limit !== undefined ? ids.slice(0, options.limit) : ids;
    for (let i = 0; i < chosen.length; i += 500) {
      const batch = chosen.slice(i, i + 500);
      const lens = await this.wrap("cannot list", () =>
        this.kv.strlenMany(batch.map((id) => this.keyOf(id, namespace))),
      );
      for (let k = 0; k < batch.length; k++)
        if (lens[k]! > 0) yield { namespace, threadId: batch[k]!, bytes: lens[k]! };
    }
  }

  /** The records under `keys` (of namespace `namespace`), keys that vanished meanwhile left out. */
  private async take(namespace: string, keys: string[]): Promise<SaverRecord[]> {
    const head = this.headOf(namespace);
    const texts = await this.wrap("cannot read", () => this.kv.getMany(keys));
    const out: SaverRecord[] = [];
    keys.forEach((k, i) => {
      const text = texts[i];
      if (text !== null && text !== undefined) out.push({ namespace, threadId: k.slice(head.length), text });
    });
    return out;
  }

  async *scan(options: ScanOptions = {}): AsyncIterable<SaverRecord[]> {
    const namespace = options.namespace ?? this.defaultNamespace;
    const size = Math.max(1, options.batchSize ?? 200);
    const keys: string[] = [];
    const it = this.keysOf(namespace, Math.max(size, 100))[Symbol.asyncIterator]();
    for (;;) {
      const r = await this.wrap("cannot list", () => it.next());
      if (r.done) break;
      keys.push(...r.value);
      while (keys.length >= size) {
        const batch = await this.take(namespace, keys.splice(0, size));
        if (batch.length) yield batch;
      }
    }
    if (keys.length) {
      const batch = await this.take(namespace, keys.splice(0));
      if (batch.length) yield batch;
    }
  }

  count(ns?: string): Promise<number> {
    return this.wrap("cannot count", async () => {
      let n = 0;
      // SCAN's rare repeats are not removed here: a count is for progress, and a set of every key would cost memory
      for await (const keys of this.kv.scanKeys(globEscape(this.headOf(ns ?? this.defaultNamespace)) + "*", 1000))
        n += keys.length;
      return n;
    });
  }

  namespaces(): Promise<string[]> {
    const prefix = this.prefix;
    return this.wrap("cannot list", async () => {
      const out = new Set<string>();
      for await (const keys of this.kv.scanKeys(globEscape(prefix) + "*:checkpoints:*", 1000)) {
        for (const k of keys) out.add(k.slice(prefix.length, k.indexOf(":checkpoints:", prefix.length)));
      }
      return [...out].sort(compareIds);
    });
  }

  /** The value this saver writes for a record: its compact JSON. */
  private valueOf(r: SaverRecord): string {
    return r.compact ?? reformat(r.text, undefined, `${this.uri}#${r.threadId}`);
  }

  /** The keys and values of `records` (each thread id checked first: a RecordError names one no store can hold). */
  private entriesOf(records: SaverRecord[]): Array<[string, string]> {
    for (const r of records) {
      checkThreadId(r.threadId, r.namespace);
      const bad = badNamespace(r.namespace);
      if (bad !== undefined)
        throw new RecordError(ExitCode.STORE, "namespace-separator", bad, {
          threadId: r.threadId,
          namespace: r.namespace,
        });
    }
    return records.map((r): [string, string] => [this.keyOf(r.threadId, r.namespace), this.valueOf(r)]);
  }

  /**
   * `records` set if none of their keys exists (MSETNX: atomic, all or none). Where the server refuses MSETNX (an ACL
   * without it, a proxy), from then on: looked up (MGET), and set only if none exists (SET NX each).
   */
  private async setNewMany(records: SaverRecord[]): Promise<boolean> {
    const entries = this.entriesOf(records);
    if (this.setNew) {
      try {
        return await this.kv.setNewMany!(entries);
      } catch (e) {
        if (!/NOPERM|unknown command|not allowed|disabled/i.test((e as Error).message))
          throw storeError("redis-io", `cannot write (${this.uri}): ${describe(e as Error, this.ms)}`);
        this.setNew = false;
      }
    }
    return this.wrap("cannot write", async () => {
      const held = await this.kv.getMany(entries.map((e) => e[0]));
      if (held.some((v) => v !== null && v !== undefined)) return false;
      // SET NX each: a key another writer set since the lookup is never overwritten; what this call set is undone then
      const set = await this.kv.setEachNew(entries);
      if (set.every(Boolean)) return true;
      for (let i = 0; i < entries.length; i++) if (set[i]) await this.kv.del(entries[i]![0]);
      return false;
    });
  }

  async saveMany(records: SaverRecord[]): Promise<void> {
    const entries = this.entriesOf(records);
    await this.wrap("cannot write", () => this.kv.setMany(entries));
  }

  async addMany(records: SaverRecord[]): Promise<boolean[]> {
    const entries = this.entriesOf(records);
    return this.wrap("cannot write", () => this.kv.setEachNew(entries));
  }

  async existsMany(keys: RecordKey[]): Promise<boolean[]> {
    const asked = keys.filter((k) => badNamespace(k.namespace) === undefined);
    const got = asked.length
      ? await this.wrap("cannot read", () => this.kv.existsMany(asked.map((k) => this.keyOf(k.threadId, k.namespace))))
      : [];
    let i = 0;
    return keys.map((k) => (badNamespace(k.namespace) === undefined ? got[i++]! : false));
  }

  /**
   * Compared in Redis: the SHA-1 of each stored value against that of the value written (one script call per 1,000
   * keys), so a batch's read-back costs no transfer of its documents. On a cluster, or where scripts are refused, every
   * record is "not known" and the caller reads them back.
   */
  async verifyMany(records: SaverRecord[]): Promise<boolean[]> {
    if (this.kv.cluster || records.length === 0 || records.some((r) => badNamespace(r.namespace) !== undefined))
      return records.map(() => false);
    const keys = records.map((r) => this.keyOf(r.threadId, r.namespace));
    const sums = records.map((r) => hexDigest("sha1", this.valueOf(r)));
    return (await this.wrap("cannot read", () => this.kv.sameMany(keys, sums))) ?? records.map(() => false);
  }

  async close(): Promise<void> {
    this.kv.close();
  }
}
