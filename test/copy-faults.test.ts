/**
 * #42 items 1–3: `ckpt copy` has the guarantees of `migrate`, with real `ckpt` processes and the real server.
 * - Two copies into one new thread id at once: exactly one writes (exit 0), the other is refused (exit 2, "exists")
 *   having written nothing; the thread holds the winner's history only (its checkpoint count, read by SQL).
 * - A copy of a 15,000-checkpoint thread (written by the JS library's SqliteSaver) killed with -9 mid-write (its
 *   transaction open: SQLite's write lock held, or its PostgreSQL session holding the lock its INSERT/COPY takes), or
 *   its PostgreSQL connection terminated (pg_terminate_backend of ckpt's own session, found by application_name):
 *   the target holds no row of the new thread, and a rerun copies all 15,000 (newest step 14,998, as the library
 *   reads it back).
 * - A thread with one damaged checkpoint in the middle: the copy names that checkpoint, writes nothing (no hole), and
 *   once the source is repaired the rerun copies the whole thread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { writeLongThread } from "./helpers/lg-long-thread.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "ckpt.js");
const N = 15_000;
const app = `ckpt-copy-faults-${randomBytes(4).toString("hex")}`;
const pgs = pgTestSchemas("copy_faults");
let dir: string;
/** the source: thread `long` (N checkpoints) and `other` (N / 3), both written by the JS library */
let src: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-copy-faults-"));
  src = join(dir, "src.sqlite");
  await writeLongThread(src, "long", N);
  await writeLongThread(src, "other", N / 3);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `ckpt <args>` as its own process (its PostgreSQL sessions named `app`): the process and its outcome. */
function ckpt(args: string[]): { p: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const p = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", PGAPPNAME: app, XDG_STATE_HOME: join(dir, "state") },
  });
  let out = "";
  let err = "";
  p.stdout!.on("data", (d: Buffer) => (out += d));
  p.stderr!.on("data", (d: Buffer) => (err += d));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, out, err }));
  });
  return { p, done };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond` holds (polled), or the process ended: whether it held. */
async function until(cond: () => Promise<boolean> | boolean, p: ChildProcess, ms = 60_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end && p.exitCode === null && p.signalCode === null; ) {
    if (await cond()) return true;
    await sleep(5);
  }
  return false;
}

/** SQLite: checkpoints of `thread`, and the newest one's step as the JS library reads it. */
function sqliteCount(file: string, thread: string): number {
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'checkpoints'").pluck().get() as number;
    return has ? (db.prepare("SELECT count(*) FROM checkpoints WHERE thread_id = ?").pluck().get(thread) as number) : 0;
  } finally {
    db.close();
  }
}
async function libraryStep(file: string, thread: string): Promise<unknown> {
  const saver = SqliteSaver.fromConnString(file);
  try {
    return (await saver.getTuple({ configurable: { thread_id: thread } }))?.metadata?.step;
  } finally {
    saver.db.close();
  }
}

/** Whether another connection would wait for SQLite's write lock (a writer's transaction is open). */
function writeLocked(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new Database(file, { timeout: 0 });
  try {
    db.exec("BEGIN IMMEDIATE");
    db.exec("ROLLBACK");
    return false;
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_BUSY") return true;
    throw e;
  } finally {
    db.close();
  }
}

/** PostgreSQL: checkpoints of `thread` in `schema`, and the newest one's step (metadata, by SQL). */
async function pgCount(schema: string, thread: string): Promise<{ n: number; step: number | null }> {
  const t = await pgs.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2", [
    schema,
    "checkpoints",
  ]);
  if (!t.rowCount) return { n: 0, step: null };
  const r = await pgs.query(
    `SELECT count(*)::int AS n, (SELECT (metadata->>'step')::int FROM ${schema}.checkpoints WHERE thread_id = $1 ORDER BY checkpoint_id DESC LIMIT 1) AS step FROM ${schema}.checkpoints WHERE thread_id = $1`,
    [thread],
  );
  return r.rows[0] as { n: number; step: number | null };
}

/**
 * ckpt's own session (by application_name) writing rows of `schema`.checkpoints: it holds the RowExclusiveLock an
 * INSERT or COPY takes (kept until its transaction ends): its pid.
 */
async function writingBackend(schema: string): Promise<number | undefined> {
  const r = await pgs.query(
    `SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
      WHERE a.application_name = $1 AND l.mode = 'RowExclusiveLock' AND l.granted
        AND l.relation = (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                           WHERE n.nspname = $2 AND c.relname = 'checkpoints')`,
    [app, schema],
  );
  return r.rows[0]?.pid as number | undefined;
}

describe("#42 item 1: two copies into one new thread id", () => {
  it.each(["sqlite", "postgres"])(
    "into %s: one writes its whole history, the other is refused (exit 2) having written nothing",
    async (kind) => {
      const schema = kind === "postgres" ? pgs.schema("race") : "";
      const target = kind === "postgres" ? `${PG}?schema=${schema}` : `sqlite:${join(dir, "race.sqlite")}`;
      const a = ckpt(["copy", `sqlite:${src}#long`, `${target}#t`]);
      const b = ckpt(["copy", `sqlite:${src}#other`, `${target}#t`]);
      const [ra, rb] = await Promise.all([a.done, b.done]);
      const codes = [ra.code, rb.code].sort();
      expect(codes, `${ra.err}\n${rb.err}`).toEqual([0, 2]);
      const loser = ra.code === 2 ? ra : rb;
      expect(loser.err).toMatch(/#t exists: name another thread, or --overwrite/);
      expect(loser.err).not.toMatch(/\n\s+at /);
      const winner = ra.code === 0 ? N : N / 3;
      const held = kind === "postgres" ? (await pgCount(schema, "t")).n : sqliteCount(join(dir, "race.sqlite"), "t");
      expect(held).toBe(winner);
    },
    120_000,
  );
});

describe("#42 item 1: two copies into one new thread id of ckpt's own store", () => {
  it("three rounds: each time one writes, the other is refused (exit 2) and the thread holds the winner's document", async () => {
    const from = `file:${join(ROOT, "fixtures", "savers", "deepagent-filesaver")}`;
    for (let round = 0; round < 3; round++) {
      const file = join(dir, `own-${round}.db`);
      const a = ckpt(["copy", `${from}#explicit-messages-thread`, `sqlite:${file}#t`]);
      const b = ckpt(["copy", `${from}#user:42%2Fsession%231`, `sqlite:${file}#t`]);
      const [ra, rb] = await Promise.all([a.done, b.done]);
      expect([ra.code, rb.code].sort(), `${ra.err}\n${rb.err}`).toEqual([0, 2]);
      const db = new Database(file, { readonly: true });
      const doc = JSON.parse(
        db.prepare("SELECT doc FROM ckpt_checkpoints WHERE thread_id = 't'").pluck().get() as string,
      );
      db.close();
      expect(doc.step).toBe(ra.code === 0 ? 1 : 3);
    }
  }, 60_000);
});

describe("#42 item 2: a copy of 15,000 checkpoints interrupted mid-write leaves nothing; a rerun copies it all", () => {
  it("SQLite target, ckpt killed with -9 while its transaction is open", async () => {
    // mid-write: ckpt holds the write lock (its rows stay in its page cache until COMMIT, so the WAL tells nothing).
    // The probe polls; on a loaded machine a whole copy can slip between two polls. Such a run is no kill: it must
    // then have copied everything (never a part), and the kill is tried again on a fresh target.
    let file = "";
    let args: string[] = [];
    let killed = false;
    for (let attempt = 0; attempt < 3 && !killed; attempt++) {
      file = join(dir, `kill-${attempt}.sqlite`);
      args = ["copy", `sqlite:${src}#long`, `sqlite:${file}#t`];
      const { p, done } = ckpt(args);
      if (!(await until(() => writeLocked(file), p))) {
        const r = await done;
        expect(r.code, `the copy ended before the probe saw it writing, and not whole: ${r.err}`).toBe(0);
        expect(sqliteCount(file, "t")).toBe(N);
        continue;
      }
      await sleep(300); // well into the rows (the lock is held ~2 s of a ~3 s copy here)
      p.kill("SIGKILL");
      const r = await done;
      // the kill may come after COMMIT on a slow machine: then everything is there, never a part
      if (r.code !== null) {
        expect(r.code, r.err).toBe(0);
        expect(sqliteCount(file, "t")).toBe(N);
        continue;
      }
      killed = true;
    }
    expect(killed, "three copies ended before the kill could land mid-write").toBe(true);
    expect(sqliteCount(file, "t")).toBe(0);
    const again = await ckpt(args).done;
    expect(again.code, again.err).toBe(0);
    expect(sqliteCount(file, "t")).toBe(N);
    expect(await libraryStep(file, "t")).toBe(N - 2);
  }, 120_000);

  it("PostgreSQL target, ckpt killed with -9 while its transaction has written", async () => {
    const schema = pgs.schema("kill");
    const args = ["copy", `sqlite:${src}#long`, `${PG}?schema=${schema}#t`];
    const { p, done } = ckpt(args);
    expect(await until(async () => (await writingBackend(schema)) !== undefined, p), "never saw it writing").toBe(true);
    await sleep(300); // well into the rows
    p.kill("SIGKILL");
    expect((await done).code).toBeNull();
    expect((await pgCount(schema, "t")).n).toBe(0);
    const again = await ckpt(args).done;
    expect(again.code, again.err).toBe(0);
    expect(await pgCount(schema, "t")).toEqual({ n: N, step: N - 2 });
  }, 120_000);

  it("PostgreSQL target, ckpt's connection terminated mid-write: exit 4, no stack, nothing left", async () => {
    const schema = pgs.schema("term");
    const args = ["copy", `sqlite:${src}#long`, `${PG}?schema=${schema}#t`];
    const { p, done } = ckpt(args);
    let pid: number | undefined;
    expect(await until(async () => (pid = await writingBackend(schema)) !== undefined, p), "never saw it writing").toBe(
      true,
    );
    await sleep(300); // well into the rows
    await pgs.query("SELECT pg_terminate_backend($1)", [pid]);
    const r = await done;
    expect(r.code, r.err).toBe(4);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.err).not.toContain("Unhandled");
    expect((await pgCount(schema, "t")).n).toBe(0);
    const again = await ckpt(args).done;
    expect(again.code, again.err).toBe(0);
    expect(await pgCount(schema, "t")).toEqual({ n: N, step: N - 2 });
  }, 120_000);
});

describe("#42 item 3: one damaged checkpoint in the middle", () => {
  it("into PostgreSQL: named, nothing written (no hole); repaired, the rerun copies the whole thread", async () => {
    const file = join(dir, "damaged.sqlite");
    await writeLongThread(file, "d", 15);
    const db = new Database(file);
    const [victim] = db
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'd' ORDER BY checkpoint_id LIMIT 1 OFFSET 7")
      .pluck()
      .all() as string[];
    const good = db.prepare("SELECT checkpoint FROM checkpoints WHERE checkpoint_id = ?").pluck().get(victim) as Buffer;
    db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?").run(Buffer.from("{not json"), victim);
    const schema = pgs.schema("damaged");
    const args = ["copy", `sqlite:${file}#d`, `${PG}?schema=${schema}#t`];
    const r = await ckpt(args).done;
    expect(r.code, r.err).toBe(3);
    expect(r.err).toContain(victim);
    expect(r.err).toContain("nothing was written");
    expect((await pgCount(schema, "t")).n).toBe(0);
    db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?").run(good, victim);
    db.close();
    const again = await ckpt(args).done;
    expect(again.code, again.err).toBe(0);
    expect(await pgCount(schema, "t")).toEqual({ n: 15, step: 13 });
  }, 60_000);
});
