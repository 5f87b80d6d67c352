/**
 * `ckpt prune` on LangGraph stores: every sample (SQLite files and the library-written PostgreSQL dumps) pruned to
 * `--keep-last 2` keeps exactly the newest 2 checkpoints of every thread and namespace, decoded unchanged
 * (independent decoder; LangGraph JS for JS stores), with no orphan writes or blobs (PostgreSQL: but those a transaction open
 * elsewhere on the server keeps, each counted); `--dry-run` changes nothing;
 * a prune racing the real JS PostgresSaver loses none of the checkpoints written after it started.
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { runCli } from "./helpers/cli-io.js";
import { canon, readSqliteStore } from "./helpers/lg-independent.js";
import { chatApp, closeSaver, human, jsHistory, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const root = join(import.meta.dirname, "..");
const fx = join(root, "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgp");
const schema = pgdb.schema;

const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgp-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};
const restore = (file: string, s: string) =>
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
    input: readFileSync(join(fx, file), "utf8").replaceAll("__SCHEMA__", s),
    stdio: ["pipe", "ignore", "inherit"],
  });

/** The newest 2 ids of every (thread, ns), from a list of `thread|ns|id` keys. */
function newest2(keys: string[]): string[] {
  const by = new Map<string, string[]>();
  for (const k of keys) {
    const [t, ns, id] = k.split("|");
    (by.get(`${t}|${ns}`) ?? by.set(`${t}|${ns}`, []).get(`${t}|${ns}`)!).push(id!);
  }
  return [...by]
    .flatMap(([tn, ids]) =>
      ids
        .sort()
        .slice(-2)
        .map((id) => `${tn}|${id}`),
    )
    .sort();
}

describe("prune --keep-last 2 on every sample", () => {
  for (const sample of [
    "python-a.sqlite",
    "js-a.sqlite",
    "python-v1-persistence.sqlite",
    "python-v4-chat.sqlite",
    "python-v4-human-in-the-loop.sqlite",
  ]) {
    it(`${sample}: exactly the newest 2 per thread and namespace, unchanged; --dry-run changes nothing; no orphan writes`, async () => {
      const f = copyOf(sample);
      const before = readSqliteStore(f);
      const hash = () => createHash("sha256").update(readFileSync(f)).digest("hex");
      const h0 = hash();
      const dry = await ckpt("prune", `sqlite:${f}`, "--keep-last", "2", "--dry-run");
      expect(dry.code, dry.err).toBe(0);
      expect(hash()).toBe(h0);
      const expected = newest2([...before.keys()]);
      const n = before.size - expected.length;
      expect(dry.out).toContain(`would delete ${n} checkpoint${n === 1 ? "" : "s"}`);
      const jsBefore = sample.startsWith("js")
        ? await (async () => {
            const s = sqliteSaver(f);
            try {
              return await jsHistory(s);
            } finally {
              await closeSaver(s);
            }
          })()
        : undefined;
      const r = await ckpt("prune", `sqlite:${f}`, "--keep-last", "2");
      expect(r.code, r.err).toBe(0);
      const after = readSqliteStore(f); // throws on an orphan write
      expect([...after.keys()].sort()).toEqual(expected);
      for (const [k, v] of after) expect(canon(v), k).toBe(canon(before.get(k)));
      if (jsBefore) {
        const s = sqliteSaver(f);
        try {
          const jsAfter = await jsHistory(s);
          expect([...jsAfter.keys()].sort()).toEqual(expected);
          for (const [k, v] of jsAfter) expect(v, k).toBe(jsBefore.get(k));
        } finally {
          await closeSaver(s);
        }
      }
    });
  }

  for (const dump of ["python-a.pg.sql", "js-a.pg.sql"]) {
    it(`${dump}: newest 2 kept, rows unchanged, no orphan writes or blobs, every referenced blob still there`, async () => {
      const s = schema(dump.replace(/[^a-z0-9]/g, "_"));
      restore(dump, s);
      const rows = async () =>
        (
          await pgdb.query(
            `SELECT thread_id || '|' || checkpoint_ns || '|' || checkpoint_id AS k, checkpoint, metadata FROM ${s}.checkpoints`,
          )
        ).rows;
      const before = new Map((await rows()).map((r) => [r.k, r]));
      const counts = async () =>
        (
          await pgdb.query(
            `SELECT (SELECT count(*) FROM ${s}.checkpoints) a, (SELECT count(*) FROM ${s}.checkpoint_blobs) b, (SELECT count(*) FROM ${s}.checkpoint_writes) c`,
          )
        ).rows[0];
      const c0 = await counts();
      expect((await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "2", "--dry-run")).code).toBe(0);
      expect(await counts()).toEqual(c0);
      const jsBefore = dump.startsWith("js")
        ? await (async () => {
            const p = pgSaver(PG, s);
            try {
              return await jsHistory(p);
            } finally {
              await closeSaver(p);
            }
          })()
        : undefined;
      const pruned = await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "2", "--json");
      expect(pruned.code, pruned.err).toBe(0);
      const summary = JSON.parse(pruned.out) as { blobsKept: number; notes?: string[] };
      const after = await rows();
      const expected = newest2([...before.keys()]);
      expect(after.map((r) => r.k).sort()).toEqual(expected);
      for (const r of after) expect(r).toEqual(before.get(r.k));
      const orphanWrites = (
        await pgdb.query(
          `SELECT count(*)::int n FROM ${s}.checkpoint_writes w WHERE NOT EXISTS (SELECT 1 FROM ${s}.checkpoints c WHERE (c.thread_id, c.checkpoint_ns, c.checkpoint_id) = (w.thread_id, w.checkpoint_ns, w.checkpoint_id))`,
        )
      ).rows[0].n;
      const orphanBlobs = (
        await pgdb.query(
          `SELECT count(*)::int n FROM ${s}.checkpoint_blobs b WHERE NOT EXISTS (SELECT 1 FROM ${s}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND c.checkpoint->'channel_versions'->>b.channel = b.version)`,
        )
      ).rows[0].n;
      expect(orphanWrites).toBe(0);
      // none, unless a transaction older than the dump's rows was open on the server when the prune started (another
      // session: a test file running meanwhile, psql): then they are kept, every one of them counted and explained
      expect(orphanBlobs).toBe(summary.blobsKept);
      if (orphanBlobs) expect(summary.notes?.join("\n")).toContain(`kept ${orphanBlobs} orphan blob`);
      if (jsBefore) {
        const p = pgSaver(PG, s);
        try {
          const jsAfter = await jsHistory(p);
          expect([...jsAfter.keys()].sort()).toEqual(expected);
          for (const [k, v] of jsAfter) expect(v, k).toBe(jsBefore.get(k));
        } finally {
          await closeSaver(p);
        }
      }
    });
  }
});

describe("prune while LangGraph JS keeps writing", () => {
  it("no checkpoint written after the prune started is lost, and the thread goes on", async () => {
    const s = schema("race");
    restore("js-a.pg.sql", s);
    // 40 copies of every thread: a prune of many small transactions
    for (let i = 1; i < 40; i++) {
      await pgdb.query(
        `INSERT INTO ${s}.checkpoints SELECT thread_id || '#c${i}', checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM ${s}.checkpoints WHERE thread_id NOT LIKE '%#c%'`,
      );
      await pgdb.query(
        `INSERT INTO ${s}.checkpoint_blobs SELECT thread_id || '#c${i}', checkpoint_ns, channel, version, type, blob FROM ${s}.checkpoint_blobs WHERE thread_id NOT LIKE '%#c%'`,
      );
      await pgdb.query(
        `INSERT INTO ${s}.checkpoint_writes SELECT thread_id || '#c${i}', checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${s}.checkpoint_writes WHERE thread_id NOT LIKE '%#c%'`,
      );
    }
    const saver = pgSaver(PG, s);
    const app = chatApp(saver);
    const written: string[] = [];
    let stop = false;
    const started = Date.now();
    const writer = (async () => {
      for (let i = 0; !stop || i < 2; i++) {
        for (const thread of ["a-chat-2", "a-chat-2#c7", "fresh-thread"]) {
          const cfg = { configurable: { thread_id: thread } };
          await app.invoke(human(`question ${i}`), cfg);
          for await (const t of saver.list(cfg, { limit: 5 }))
            written.push(`${thread}|${t.config.configurable!.checkpoint_id}`);
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    const r = await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--batch-size", "5", "--json");
    const pruneEnded = Date.now();
    stop = true;
    await writer;
    expect(r.code, r.err).toBe(0);
    const present = new Set(
      (await pgdb.query(`SELECT thread_id || '|' || checkpoint_id AS k FROM ${s}.checkpoints`)).rows.map((x) => x.k),
    );
    // uuid6 time of a checkpoint id (LANGGRAPH.md §2.3): 60 bits of 100 ns since 1582-10-15
    const timeOf = (id: string) =>
      Number(BigInt(`0x${id.slice(0, 8)}${id.slice(9, 13)}${id.slice(15, 18)}`) / 10000n) - 12219292800000;
    // written after the prune started: the instant the command reports (its clock is read after its own start-up,
    // which on a loaded machine can be seconds after the call)
    const pruneStarted = Date.parse((JSON.parse(r.out) as { startedAt: string }).startedAt);
    expect(pruneStarted).toBeGreaterThan(started);
    const mine = [...new Set(written)].filter((k) => timeOf(k.split("|")[1]!) > pruneStarted);
    expect(mine.filter((k) => timeOf(k.split("|")[1]!) < pruneEnded).length).toBeGreaterThan(5);
    for (const k of mine) expect(present.has(k), k).toBe(true);
    // the threads still load and continue
    const st = await app.getState({ configurable: { thread_id: "a-chat-2" } });
    const n = st.values.messages.length;
    const done = await app.invoke(human("one more"), { configurable: { thread_id: "a-chat-2" } });
    expect(done.messages.length).toBe(n + 4);
    await closeSaver(saver);
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
