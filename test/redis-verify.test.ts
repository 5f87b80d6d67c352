/**
 * The Redis read-back of a migration compares in Redis (SHA-1 of each stored value in a Lua script against that of the
 * value written), so the documents are not sent back; a changed value is caught, and where scripts are refused (an
 * ACL user without @scripting, on the real server) the read-back falls back to MGET and still verifies everything.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { migrate } from "../src/engines/ckpt/migrate.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";

const root = join(import.meta.dirname, "..");
const run = randomBytes(4).toString("hex");
const prefix = `ckpt-verify-${run}:`;
const user = `ckpt-noscript-${run}`;
const dir = mkdtempSync(join(tmpdir(), "ckpt-rverify-"));

afterAll(async () => {
  await deleteRedisKeys(prefix);
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  await c.call("ACL", "DELUSER", user);
  c.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const base = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);
const doc = (i: number) => JSON.stringify({ ...base, threadId: `t-${i}`, step: i }, null, 2);

describe("redis read-back", () => {
  it("verifyMany: true where the stored value is what the saver writes, false where it was changed or is missing", async () => {
    const s = await openSaver(`redis://127.0.0.1:6379?prefix=${prefix}a:`);
    try {
      const recs = [0, 1, 2].map((i) => ({ namespace: "default", threadId: `t-${i}`, text: doc(i) }));
      await s.saveMany(recs.slice(0, 2));
      const { Redis } = await import("ioredis");
      const c = new Redis("redis://127.0.0.1:6379");
      await c.set(`${prefix}a:default:checkpoints:t-1`, JSON.stringify({ ...base, threadId: "t-1", step: 99 }));
      c.disconnect();
      expect(await s.verifyMany!(recs)).toEqual([true, false, false]);
    } finally {
      await s.close();
    }
  });

  it("scripts refused (ACL user without @scripting): the migration reads back with MGET and verifies every record", async () => {
    const { Redis } = await import("ioredis");
    const c = new Redis("redis://127.0.0.1:6379");
    await c.call("ACL", "SETUSER", user, "on", ">noscript-pw", "~*", "+@all", "-@scripting");
    c.disconnect();
    const src = join(dir, "src");
    mkdirSync(src);
    for (let i = 0; i < 40; i++) writeFileSync(join(src, `t-${i}.json`), doc(i));
    const s = await openSaver(`file:${src}`);
    const t = await openSaver(`redis://${user}:noscript-pw@127.0.0.1:6379?prefix=${prefix}b:`);
    try {
      await expect(t.verifyMany!([{ namespace: "default", threadId: "t-0", text: doc(0) }])).resolves.toEqual([false]);
      const r = await migrate(s, t, { batchSize: 16 });
      expect(r.written).toBe(40);
      expect(r.verified).toBe(40);
      expect(r.mismatches).toEqual([]);
    } finally {
      await s.close();
      await t.close();
    }
  });
});
