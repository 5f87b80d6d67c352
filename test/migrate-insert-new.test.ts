/**
 * A migration writes a batch into SQLite, PostgreSQL and Redis (one server) as new records first (`insertNew`: plain
 * INSERTs in a transaction, a COPY, MSETNX), with no conflict lookup before it: the store's own key check is the
 * conflict check, and a batch holding one record the target has is written not at all. These tests put one record
 * in the target behind the migration's back, in the middle of a batch, and check it is never overwritten and is
 * reported exactly as the lookup reported it (a conflict; identical: skipped), whichever store.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { migrate } from "../src/engines/ckpt/migrate.js";
import type { Saver, SaverRecord } from "../src/savers/types.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const REDIS = "redis://127.0.0.1:6379";
const run = randomBytes(4).toString("hex");
const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-insnew-"));
let seq = 0;
const aclUser = `ckpt-nomsetnx-${run}`;

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const { rows } = await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`ckpt_insnew_${run}_%`]);
  for (const { nspname } of rows) await c.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await c.end();
  await deleteRedisKeys(`ckpt-insnew-${run}-`, REDIS);
  const { Redis } = await import("ioredis");
  const r = new Redis(REDIS);
  await r.call("ACL", "DELUSER", aclUser);
  r.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const base = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);
const doc = (i: number, step = i) => JSON.stringify({ ...base, threadId: `t-${i}`, step }, null, 2);
const N = 120;
const src = join(dir, "src");
mkdirSync(src);
for (let i = 0; i < N; i++) writeFileSync(join(src, `t-${i}.json`), doc(i));

const targets: Record<string, () => string> = {
  sqlite: () => `sqlite:${join(dir, `t${++seq}.db`)}`,
  postgres: () => `${PG}?schema=ckpt_insnew_${run}_${++seq}`,
  redis: () => `${REDIS}?prefix=ckpt-insnew-${run}-${++seq}:`,
};
const rec = (i: number, text = doc(i)): SaverRecord => ({ namespace: "default", threadId: `t-${i}`, text });
const keys = (ids: number[]) => ids.map((i) => ({ namespace: "default", threadId: `t-${i}` }));

describe.each(Object.keys(targets))("insert as new into %s", (kind) => {
  it("insertNew: all written when none exists; nothing written when one does (any size of batch)", async () => {
    const t = await openSaver(targets[kind]!());
    try {
      expect(t.insertNew).toBeTypeOf("function");
      // below COPY's threshold, a COPY, and more than one statement's rows (PostgreSQL's three ways)
      for (const [from, n] of [
        [0, 5],
        [100, 40],
        [1000, 600],
      ] as const) {
        const ids = Array.from({ length: n }, (_, k) => from + k);
        const held = ids[Math.floor(n / 2)]!;
        await t.saveMany([rec(held, doc(held, -1))]);
        expect(await t.insertNew!(ids.map((i) => rec(i)))).toBe(false);
        const after = await t.loadMany(keys(ids));
        expect(after.filter((x) => x !== undefined)).toHaveLength(1);
        expect(JSON.parse(after[ids.indexOf(held)]!).step).toBe(-1);
        const fresh = ids.filter((i) => i !== held);
        expect(await t.insertNew!(fresh.map((i) => rec(i)))).toBe(true);
        const back = await t.loadMany(keys(fresh));
        back.forEach((x, k) => expect(JSON.parse(x!)).toEqual(JSON.parse(doc(fresh[k]!))));
      }
    } finally {
      await t.close();
    }
  }, 60_000);

  it("a migration meets a different record mid-batch: a conflict, the record untouched, nothing of its batch written", async () => {
    const uri = targets[kind]!();
    const t = await openSaver(uri);
    const s = await openSaver(`file:${src}`);
    try {
      await t.saveMany([rec(77, doc(77, -1))]);
      const r = await migrate(s, t, { batchSize: 40 });
      expect(r.conflicts).toEqual([
        { namespace: "default", threadId: "t-77", reason: "exists with different content" },
      ]);
      expect(r.aborted).toMatch(/1 conflict/);
      expect(JSON.parse((await t.load("t-77"))!).step).toBe(-1);
      // the batch that holds t-77 (the scan's order is the folder's) is not in the target
      const held = (await t.loadMany(keys(Array.from({ length: N }, (_, i) => i)))).filter((x) => x !== undefined);
      expect(held.length).toBe(r.written + 1);
      expect(r.written).toBeLessThanOrEqual(N - 40);
    } finally {
      await s.close();
      await t.close();
    }
  }, 60_000);

  it("--on-conflict skip: the different record left as it is, an identical one counted identical, the rest written", async () => {
    const t = await openSaver(targets[kind]!());
    const s = await openSaver(`file:${src}`);
    try {
      await t.saveMany([rec(77, doc(77, -1)), rec(5)]);
      const r = await migrate(s, t, { batchSize: 40, onConflict: "skip" });
      expect(r.conflicts).toEqual([]);
      expect(r.written).toBe(N - 2);
      expect(r.verified).toBe(N - 2);
      expect(r.skipped).toBe(2);
      expect(r.identical).toBe(1);
      expect(JSON.parse((await t.load("t-77"))!).step).toBe(-1);
      const all = await t.loadMany(keys(Array.from({ length: N }, (_, i) => i)));
      all.forEach((x, i) => i !== 77 && expect(JSON.parse(x!)).toEqual(JSON.parse(doc(i))));
    } finally {
      await s.close();
      await t.close();
    }
  }, 60_000);
});

describe("insert as new into a Redis server that refuses MSETNX (an ACL user without it)", () => {
  it("looks up and sets instead: a different record is a conflict and stays, --on-conflict skip writes and verifies the rest", async () => {
    const { Redis } = await import("ioredis");
    const c = new Redis(REDIS);
    await c.call("ACL", "SETUSER", aclUser, "on", ">nomsetnx-pw", "~*", "+@all", "-msetnx");
    c.disconnect();
    const uri = () => `redis://${aclUser}:nomsetnx-pw@127.0.0.1:6379?prefix=ckpt-insnew-${run}-${++seq}:`;
    const s = await openSaver(`file:${src}`);
    const t = await openSaver(uri());
    const t2 = await openSaver(uri());
    try {
      await t.saveMany([rec(77, doc(77, -1))]);
      const r = await migrate(s, t, { batchSize: 40 });
      expect(r.conflicts).toEqual([
        { namespace: "default", threadId: "t-77", reason: "exists with different content" },
      ]);
      expect(JSON.parse((await t.load("t-77"))!).step).toBe(-1);
      await t2.saveMany([rec(77, doc(77, -1))]);
      const r2 = await migrate(s, t2, { batchSize: 40, onConflict: "skip" });
      expect([r2.written, r2.verified, r2.skipped, r2.conflicts.length]).toEqual([N - 1, N - 1, 1, 0]);
      expect(JSON.parse((await t2.load("t-77"))!).step).toBe(-1);
      expect(await t2.insertNew!([rec(1000)])).toBe(true);
      expect(await t2.insertNew!([rec(1001), rec(1000)])).toBe(false);
      expect(await t2.load("t-1001")).toBeUndefined();
    } finally {
      await s.close();
      await t.close();
      await t2.close();
    }
  }, 60_000);
});

describe("insert as new while the run is interrupted", () => {
  it("a batch written as the signal comes is journaled and counted: the summary's written is what the target holds", async () => {
    const t = await openSaver(targets.sqlite!());
    const s = await openSaver(`file:${src}`);
    const ac = new AbortController();
    let calls = 0;
    // the real SQLite store, with the run interrupted right after its second batch is written
    const hooked: Saver = Object.assign(Object.create(t), {
      insertNew: async (rs: SaverRecord[]) => {
        const ok = await t.insertNew!(rs);
        if (++calls === 2) ac.abort();
        return ok;
      },
    });
    const journaled = new Set<string>();
    try {
      const r = await migrate(s, hooked, {
        batchSize: 20,
        signal: ac.signal,
        journal: { done: new Set(), commit: async (es) => void es.forEach((e) => journaled.add(e.key)) },
      });
      expect(r.interrupted).toBe(true);
      const held = (await t.loadMany(keys(Array.from({ length: N }, (_, i) => i)))).filter(
        (x) => x !== undefined,
      ).length;
      expect(held).toBeGreaterThanOrEqual(40);
      expect(r.written).toBe(held);
      expect(journaled.size).toBe(held);
      expect(r.verified).toBe(held);
    } finally {
      await s.close();
      await t.close();
    }
  });
});

// PostgreSQL only: its batches into a ckpt store go in one round trip (deferFlush)
describe("insert as new into postgres, a migration's batch", () => {
  it("a migration's batch (deferFlush: BEGIN, COPY and COMMIT in one round trip): written, or nothing when one exists; a failing COPY throws and the connection goes on", async () => {
    const uri = targets.postgres!();
    const t = await openSaver(uri);
    try {
      const ids = Array.from({ length: 200 }, (_, k) => 5000 + k);
      await t.saveMany([rec(ids[77]!, doc(ids[77]!, -1))]);
      expect(
        await t.insertNew!(
          ids.map((i) => rec(i)),
          { deferFlush: true },
        ),
      ).toBe(false);
      expect((await t.loadMany(keys(ids))).filter((x) => x !== undefined)).toHaveLength(1);
      const fresh = ids.filter((i) => i !== ids[77]);
      expect(
        await t.insertNew!(
          fresh.map((i) => rec(i)),
          { deferFlush: true },
        ),
      ).toBe(true);
      expect(await t.loadMany(keys(fresh))).toEqual(fresh.map((i) => doc(i)));
      // a COPY the server refuses for another reason (a trigger raises): thrown, nothing kept, the store usable
      const schema = new URL(uri).searchParams.get("schema")!;
      const pg = (await import("pg")).default;
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          IF NEW.thread_id = 't-9010' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
      await c.query(
        `CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".ckpt_checkpoints FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`,
      );
      await c.end();
      const more = Array.from({ length: 30 }, (_, k) => 9000 + k);
      await expect(
        t.insertNew!(
          more.map((i) => rec(i)),
          { deferFlush: true },
        ),
      ).rejects.toThrow(/refused/);
      expect((await t.loadMany(keys(more))).every((x) => x === undefined)).toBe(true);
      const ok = more.filter((i) => i !== 9010);
      expect(
        await t.insertNew!(
          ok.map((i) => rec(i)),
          { deferFlush: true },
        ),
      ).toBe(true);
      expect(await t.loadMany(keys(ok))).toEqual(ok.map((i) => doc(i)));
    } finally {
      await t.close();
    }
  }, 60_000);
});
