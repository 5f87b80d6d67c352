/** Test cleanup: delete every key under `prefix` on the Redis at `url` (SCAN + DEL, glob characters in the prefix escaped). */
export async function deleteRedisKeys(prefix: string, url = "redis://127.0.0.1:6379"): Promise<void> {
  const { Redis } = await import("ioredis");
  const c = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await c.scan(cursor, "MATCH", prefix.replace(/[*?[\]\\]/g, "\\$&") + "*", "COUNT", 1000);
      cursor = next;
      if (keys.length) await c.del(...keys);
    } while (cursor !== "0");
  } finally {
    c.disconnect();
  }
}
