/**
 * The key-value operations the Redis saver needs, over one Redis server or a Redis Cluster (ioredis `Redis` /
 * `Cluster`). On a cluster nothing is sent that spans slots: batched reads and writes are grouped by hash slot (one
 * MGET / MSET per slot, one command per key otherwise), auto-pipelined per node by the client, which also follows
 * MOVED / ASK redirections and refreshes the slot map after a failover; SCAN runs on every master.
 */
import type { Cluster, Redis } from "ioredis";

export interface Kv {
  readonly cluster: boolean;
  get(key: string): Promise<string | null>;
  /** values in the order of `keys` (null where missing) */
  getMany(keys: string[]): Promise<Array<string | null>>;
  /** writes every entry; throws the first error after all were tried */
  setMany(entries: Array<[string, string]>): Promise<void>;
  /** one server only: every entry set, or none when a key exists (MSETNX, atomic); whether they were set */
  setNewMany?(entries: Array<[string, string]>): Promise<boolean>;
  /** per entry: set only where its key does not exist (SET NX), and whether it was */
  setEachNew(entries: Array<[string, string]>): Promise<boolean[]>;
  /** per key: whether it exists */
  existsMany(keys: string[]): Promise<boolean[]>;
  strlenMany(keys: string[]): Promise<number[]>;
  del(key: string): Promise<number>;
  exists(key: string): Promise<number>;
  /**
   * Per key: whether it holds a string whose SHA-1 (hex) is the one given — compared in Redis (a Lua script), so the
   * values are not sent back. Undefined where the server cannot run it (a cluster: keys of many slots; scripts
   * refused by ACL or configuration): the caller reads the values back instead.
   */
  sameMany(keys: string[], sha1s: string[]): Promise<boolean[] | undefined>;
  /** every key matching the glob `match`, on every master, in batches of about `count` (a key may come twice) */
  scanKeys(match: string, count: number): AsyncIterable<string[]>;
  close(): void;
}

/** CRC16/XMODEM as the Redis Cluster specification defines it (poly 0x1021, init 0). */
const CRC16 = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
    t[i] = c & 0xffff;
  }
  return t;
})();

/** The hash slot of a key (0–16383): CRC16 of the key's UTF-8 bytes, or of its `{hash tag}` when it has a non-empty one. */
export function keySlot(key: string): number {
  let b = Buffer.from(key, "utf8");
  const open = b.indexOf(0x7b); // {
  if (open >= 0) {
    const close = b.indexOf(0x7d, open + 1); // }
    if (close > open + 1) b = b.subarray(open + 1, close);
  }
  let crc = 0;
  for (const byte of b) crc = ((crc << 8) & 0xffff) ^ CRC16[((crc >> 8) ^ byte) & 0xff]!;
  return crc & 0x3fff;
}

async function* scanNode(node: Redis, match: string, count: number): AsyncIterable<string[]> {
  let cursor = "0";
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", count);
    cursor = next;
    if (keys.length) yield keys;
  } while (cursor !== "0");
}

/** For each key: 1 when it holds a string with the SHA-1 in the same place of ARGV, else 0 (any type, any error). */
const SAME_SHA1 = `local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.pcall('GET', k)
  out[i] = (type(v) == 'string' and redis.sha1hex(v) == ARGV[i]) and 1 or 0
end
return out`;

export function singleKv(client: Redis): Kv {
  let scripts = true;
  return {
    cluster: false,
    get: (key) => client.get(key),
    async getMany(keys) {
      const out: Array<string | null> = [];
      for (let i = 0; i < keys.length; i += 1000) out.push(...(await client.mget(keys.slice(i, i + 1000))));
      return out;
    },
    async setMany(entries) {
      const p = client.pipeline();
      for (const [k, v] of entries) p.set(k, v);
      const failed = ((await p.exec()) ?? []).find(([err]) => err);
      if (failed) throw failed[0]!;
    },
    async setNewMany(entries) {
      return entries.length === 0 || Number(await client.msetnx(entries.flat())) === 1;
    },
    async setEachNew(entries) {
      const p = client.pipeline();
      for (const [k, v] of entries) p.set(k, v, "NX");
      return ((await p.exec()) ?? []).map(([err, r]) => {
        if (err) throw err;
        return r === "OK";
      });
    },
    async existsMany(keys) {
      const p = client.pipeline();
      for (const k of keys) p.exists(k);
      return ((await p.exec()) ?? []).map(([err, n]) => {
        if (err) throw err;
        return Number(n) > 0;
      });
    },
    async strlenMany(keys) {
      const p = client.pipeline();
      for (const k of keys) p.strlen(k);
      return ((await p.exec()) ?? []).map(([err, n]) => {
        if (err) throw err;
        return n as number;
      });
    },
    async sameMany(keys, sha1s) {
      if (!scripts) return undefined;
      const out: boolean[] = [];
      try {
        for (let i = 0; i < keys.length; i += 1000) {
          const ks = keys.slice(i, i + 1000);
          const r = (await client.eval(SAME_SHA1, ks.length, ...ks, ...sha1s.slice(i, i + 1000))) as number[];
          for (const x of r) out.push(x === 1);
        }
      } catch (e) {
        // scripting refused (ACL, a proxy, a server without Lua): read back instead, from now on
        if (!/NOPERM|NOSCRIPT|unknown command|not allowed|disabled|scripting/i.test((e as Error).message)) throw e;
        scripts = false;
        return undefined;
      }
      return out;
    },
    del: (key) => client.del(key),
    exists: (key) => client.exists(key),
    scanKeys: (match, count) => scanNode(client, match, count),
    close: () => client.disconnect(),
  };
}

/** Positions of `keys` grouped by hash slot. */
function bySlot(keys: string[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  keys.forEach((k, i) => {
    const s = keySlot(k);
    const g = groups.get(s);
    if (g) g.push(i);
    else groups.set(s, [i]);
  });
  return groups;
}

/** Run every command (auto-pipelined per node); throw the first failure once all have settled. */
async function settle<T>(commands: Array<Promise<T>>): Promise<T[]> {
  const res = await Promise.allSettled(commands);
  const bad = res.find((r) => r.status === "rejected");
  if (bad) throw (bad as PromiseRejectedResult).reason;
  return res.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export function clusterKv(cluster: Cluster): Kv {
  return {
    cluster: true,
    get: (key) => cluster.get(key),
    async getMany(keys) {
      const out = new Array<string | null>(keys.length).fill(null);
      await settle(
        [...bySlot(keys).values()].map(async (idx) => {
          const vals =
            idx.length === 1 ? [await cluster.get(keys[idx[0]!]!)] : await cluster.mget(idx.map((i) => keys[i]!));
          idx.forEach((i, k) => (out[i] = vals[k] ?? null));
        }),
      );
      return out;
    },
    async setMany(entries) {
      await settle(
        [...bySlot(entries.map((e) => e[0])).values()].map((idx) =>
          idx.length === 1
            ? cluster.set(entries[idx[0]!]![0], entries[idx[0]!]![1])
            : cluster.mset(idx.flatMap((i) => entries[i]!)),
        ),
      );
    },
    setEachNew: async (entries) =>
      (await settle(entries.map(([k, v]) => cluster.set(k, v, "NX")))).map((r) => r === "OK"),
    existsMany: async (keys) => (await settle(keys.map((k) => cluster.exists(k)))).map((n) => n > 0),
    strlenMany: (keys) => settle(keys.map((k) => cluster.strlen(k))),
    sameMany: async () => undefined,
    del: (key) => cluster.del(key),
    exists: (key) => cluster.exists(key),
    async *scanKeys(match, count) {
      for (const node of cluster.nodes("master")) yield* scanNode(node, match, count);
    },
    close: () => cluster.disconnect(),
  };
}
