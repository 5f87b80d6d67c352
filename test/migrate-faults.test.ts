/**
 * #27 "Nothing lost": migrations under faults and concurrency, with real servers and real `ckpt` processes.
 * Item 1: `--resume` checks what its journal claims against the target (a Redis without persistence killed with -9
 * and restarted empty; a journal naming records no store of any kind holds). Item 3: two runs into one target with
 * `--on-conflict skip` never overwrite each other, and each run's count says what it really wrote. Item 5: two runs of
 * one migration, one journal: the second says the first is running. Item 6: first writes into a new PostgreSQL schema
 * at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { journalKey } from "../src/core/migrate/types.js";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";
import { startRedis, type TestRedis } from "./helpers/redis-server.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "ckpt.js");
const run = randomBytes(4).toString("hex");
const redisPrefix = `ckpt-faults-${run}:`;
const pgs = pgTestSchemas("ckpt_faults");

let dir: string;
const base = JSON.parse(
  readFileSync(join(ROOT, "fixtures/savers/deepagent-filesaver/user_42_session_1.json"), "utf8"),
) as Record<string, unknown>;
const id = (i: number) => `t-${String(i).padStart(5, "0")}`;

/** A FileSaver folder of `n` threads, each document's `step` set to `step`. */
function folder(name: string, n: number, step: number): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  for (let i = 0; i < n; i++)
    writeFileSync(join(d, `${id(i)}.json`), JSON.stringify({ ...base, threadId: id(i), step }, null, 2));
  return d;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-faults-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteRedisKeys(redisPrefix);
});

/** `ckpt <args>` as its own process; `onOut` sees stdout as it comes and may kill the process. */
function ckpt(
  args: string[],
  onOut?: (out: string, kill: () => void) => void,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: join(dir, "state") },
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d;
      onOut?.(out, () => p.kill("SIGKILL"));
    });
    p.stderr.on("data", (d: Buffer) => (err += d));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, out, err }));
  });
}

const summaryOf = (out: string) =>
  JSON.parse(
    out
      .trim()
      .split("\n")
      .find((l) => l.startsWith('{"type":"summary"'))!,
  ) as Record<string, number>;

describe("#27 item 1: --resume checks what its journal claims", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it("Redis without persistence killed with -9 mid-run and restarted empty: --resume writes everything again", async () => {
    const N = 3000;
    const src = folder("kill9-src", N, 1);
    const journal = join(dir, "kill9.journal");
    const args = ["migrate", "--from", src, "--to", redis.url, "--journal", journal, "--batch-size", "50", "-j", "1"];
    let at = -1;
    const first = await ckpt([...args, "--json"], (out, kill) => {
      if (at >= 0) return;
      const last = out
        .split("\n")
        .filter((l) => l.startsWith('{"type":"progress"'))
        .map((l) => JSON.parse(l) as { written: number })
        .at(-1);
      if (last && last.written >= 500) {
        at = last.written;
        kill(); // ckpt killed with -9 …
        void redis.kill9(); // … and the server with it: what it held is gone
      }
    });
    expect(at, first.err).toBeGreaterThan(0);
    expect(first.code).toBeNull();
    const journaled = readFileSync(journal, "utf8")
      .split("\n")
      .filter((l) => l.startsWith('{"k":')).length;
    expect(journaled).toBeGreaterThanOrEqual(at);
    await redis.kill9();
    await redis.start(); // empty

    const resumed = await ckpt([...args, "--resume", "--json"]);
    expect(resumed.code, resumed.err).toBe(0);
    const s = summaryOf(resumed.out);
    expect(s).toMatchObject({ read: N, written: N, resumed: 0, journalMissing: journaled, verified: N });
    const t = await openSaver(redis.url);
    try {
      expect(await t.count()).toBe(N);
      const texts = await t.loadMany(Array.from({ length: N }, (_, i) => ({ namespace: "default", threadId: id(i) })));
      expect(texts.filter((x) => x !== undefined && JSON.parse(x).step === 1).length).toBe(N);
    } finally {
      await t.close();
    }
  }, 120_000);

  const N = 30;
  const targets: Record<string, () => string> = {
    file: () => `file:${join(dir, "resume-file")}`,
    sqlite: () => `sqlite:${join(dir, "resume.db")}`,
    redis: () => `redis://127.0.0.1:6379?prefix=${redisPrefix}resume:`,
    postgres: () => `${PG}?schema=${pgs.schema("resume")}`,
  };
  for (const [kind, uri] of Object.entries(targets)) {
    it(`${kind}: a journal naming records the target does not hold — they are written, and the summary says so`, async () => {
      const src = folder(`resume-src-${kind}`, N, 1);
      const journal = join(dir, `resume-${kind}.journal`);
      const lines = [JSON.stringify({ ckptMigrateJournal: 1 })];
      for (let i = 0; i < N; i += 2) lines.push(JSON.stringify({ k: journalKey("default", id(i)), h: "0".repeat(64) }));
      writeFileSync(journal, lines.join("\n") + "\n");
      // half of what the journal names is in the target: those are the ones skipped
      const target = uri();
      const t0 = await openSaver(target);
      await t0.saveMany(
        [0, 4, 8].map((i) => ({
          namespace: "default",
          threadId: id(i),
          text: JSON.stringify({ ...base, threadId: id(i), step: 1 }),
        })),
      );
      await t0.close();
      const r = await runCli(["migrate", "--from", src, "--to", target, "--journal", journal, "--resume"], {
        cwd: dir,
      });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`read 30, written 27, skipped 3 (3 done before the interruption)`);
      expect(r.out).toContain("the journal named 12 record(s) the target no longer held");
      const t = await openSaver(target, { readOnly: true });
      try {
        expect(await t.count()).toBe(N);
      } finally {
        await t.close();
      }
    }, 60_000);
  }
  it("LangGraph SQLite → SQLite: a journal naming checkpoints the target does not hold — they are written", async () => {
    const Database = (await import("better-sqlite3")).default;
    const src = join(dir, "lg-resume-src.sqlite");
    copyFileSync(join(ROOT, "fixtures", "langgraph", "python-a.sqlite"), src);
    const db = new Database(src, { readonly: true });
    const keys = db.prepare("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints").all() as Array<{
      thread_id: string;
      checkpoint_ns: string;
      checkpoint_id: string;
    }>;
    db.close();
    const journal = join(dir, "lg-resume.journal");
    const lines = [JSON.stringify({ ckptMigrateJournal: 1 })];
    for (const k of keys)
      lines.push(JSON.stringify({ k: `${k.thread_id}\u0000${k.checkpoint_ns}\u0000${k.checkpoint_id}`, h: "" }));
    writeFileSync(journal, lines.join("\n") + "\n");
    const target = join(dir, "lg-resume-target.sqlite");
    const r = await runCli(
      ["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${target}`, "--journal", journal, "--resume"],
      {
        cwd: dir,
      },
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`the journal named ${keys.length} record(s) the target no longer held`);
    const t = new Database(target, { readonly: true });
    expect((t.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n).toBe(keys.length);
    t.close();
  }, 60_000);
});

describe("#27 item 3: two runs into one target with --on-conflict skip never overwrite each other", () => {
  const N = 3000;
  const targets: Record<string, () => string> = {
    sqlite: () => `sqlite:${join(dir, "race.db")}`,
    redis: () => `redis://127.0.0.1:6379?prefix=${redisPrefix}race:`,
    postgres: () => `${PG}?schema=${pgs.schema("race")}`,
    file: () => `file:${join(dir, "race-folder")}`,
  };
  for (const [kind, uri] of Object.entries(targets)) {
    it(`${kind}: every record is written by exactly one run, and each run counts only its own`, async () => {
      const a = folder(`race-a-${kind}`, N, 1); // a folder, read in directory order …
      const b = `sqlite:${join(dir, `race-b-${kind}.db`)}`; // … and a database, read in id order: they cross
      const sb = await openSaver(b);
      await sb.saveMany(
        Array.from({ length: N }, (_, i) => ({
          namespace: "default",
          threadId: id(i),
          text: JSON.stringify({ ...base, threadId: id(i), step: 2 }),
        })),
      );
      await sb.close();
      const target = uri();
      // one record is there already, so both runs look up before they write (the path where the race was)
      const t0 = await openSaver(target);
      await t0.save(id(0), JSON.stringify({ ...base, threadId: id(0), step: 0 }));
      await t0.close();
      const common = ["--to", target, "--on-conflict", "skip", "--batch-size", "50", "--json", "-j", "1"];
      const [ra, rb] = await Promise.all([
        ckpt(["migrate", "--from", a, ...common, "--journal", join(dir, `race-a-${kind}.journal`)]),
        ckpt(["migrate", "--from", b, ...common, "--journal", join(dir, `race-b-${kind}.journal`)]),
      ]);
      expect(ra.code, ra.err).toBe(0);
      expect(rb.code, rb.err).toBe(0);
      const sa = summaryOf(ra.out);
      const sbs = summaryOf(rb.out);
      const t = await openSaver(target, { readOnly: true });
      const texts = await t.loadMany(Array.from({ length: N }, (_, i) => ({ namespace: "default", threadId: id(i) })));
      await t.close();
      const steps = texts.map((x) => (x === undefined ? undefined : (JSON.parse(x) as { step: number }).step));
      expect(steps[0]).toBe(0); // there before: left alone by both
      expect(steps.filter((s) => s === undefined).length).toBe(0);
      expect(sa.written + sbs.written).toBe(N - 1);
      expect(steps.filter((s) => s === 1).length).toBe(sa.written);
      expect(steps.filter((s) => s === 2).length).toBe(sbs.written);
      expect(sa.verified).toBe(sa.written);
      expect(sbs.verified).toBe(sbs.written);
    }, 120_000);
  }
});

describe("#27 item 5: two runs of one migration share one journal; the second says the first is running", () => {
  it("the second run is exit 4 naming the first's pid, and leaves the live journal alone; the first finishes", async () => {
    const src = folder("lock-src", 3000, 1);
    const args = ["migrate", "--from", src, "--to", `sqlite:${join(dir, "lock.db")}`, "--batch-size", "20"];
    const env = { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: join(dir, "lock-state") };
    const first = spawn(process.execPath, [BIN, ...args, "--json"], { cwd: dir, env });
    let out = "";
    let second: Promise<{ code: number | null; err: string }> | undefined;
    const done = new Promise<number | null>((resolve) => first.on("close", resolve));
    first.stdout.on("data", (d: Buffer) => {
      out += d;
      if (second || !out.includes('"type":"progress"')) return;
      // the first is paused while the second runs (SIGSTOP: alive, holding its journal), so they meet whatever the load
      first.kill("SIGSTOP");
      second = new Promise((resolve) => {
        const p = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
        let err = "";
        p.stderr.on("data", (e: Buffer) => (err += e));
        p.on("close", (code) => {
          first.kill("SIGCONT");
          resolve({ code, err });
        });
      });
    });
    const code = await done;
    expect(code).toBe(0);
    expect(second, "the second run started while the first was running").toBeDefined();
    const r = await second!;
    expect(r.code, r.err).toBe(4);
    expect(r.err).toContain(
      `another migration (pid ${first.pid}) is running with the journal at ${join(dir, "lock-state", "ckpt")}`,
    );
    expect(r.err).not.toContain("delete the file");
    expect(summaryOf(out)).toMatchObject({ read: 3000, written: 3000, verified: 3000 });
    expect(readdirSync(join(dir, "lock-state", "ckpt"))).toEqual([]); // journal and lock removed
  }, 120_000);

  it("a lock left by a process that is gone (kill -9) is taken over", async () => {
    const src = folder("stale-src", 5, 1);
    const journal = join(dir, "stale.journal");
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(`${journal}.lock`, `${gone.stdout}\n`);
    const r = await runCli(
      ["migrate", "--from", src, "--to", `sqlite:${join(dir, "stale.db")}`, "--journal", journal],
      {
        cwd: dir,
      },
    );
    expect(r.code, r.err).toBe(0);
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });
});

describe("#27 item 6: first writes into a new PostgreSQL schema at once create it once, without an error", () => {
  it("eight connections preparing one new schema together all succeed (in-process, three schemas)", async () => {
    for (const name of ["new1", "new2", "new3"]) {
      const uri = `${PG}?schema=${pgs.schema(name)}`;
      const savers = await Promise.all(Array.from({ length: 8 }, () => openSaver(uri)));
      await Promise.all(savers.map((s) => s.close()));
    }
  }, 60_000);

  it("LangGraph's setup: four stores setting up one new schema together all succeed (in-process, two schemas)", async () => {
    const { openStore, parseSaverUri } = await import("../src/savers/index.js");
    for (const [name, lib] of [
      ["lgnew1", "python"],
      ["lgnew2", "js"],
    ] as const) {
      const uri = parseSaverUri(`${PG}?schema=${pgs.schema(name)}&layout=langgraph`);
      const opened = await Promise.all(Array.from({ length: 4 }, () => openStore(uri, {})));
      try {
        await Promise.all(
          opened.map((o) => {
            if (o.layout !== "langgraph") throw new Error("expected a LangGraph store");
            return o.store.setup(lib);
          }),
        );
      } finally {
        await Promise.all(opened.map((o) => (o.layout === "langgraph" ? o.store.close() : o.saver.close())));
      }
    }
  }, 60_000);

  it("two ckpt processes migrating into one new schema: both exit 0, every record there once", async () => {
    const src = folder("pg-new-src", 50, 1);
    const target = `${PG}?schema=${pgs.schema("newproc")}`;
    const [a, b] = await Promise.all(
      ["a", "b"].map((k) =>
        ckpt(["migrate", "--from", src, "--to", target, "--journal", join(dir, `pg-new-${k}.journal`), "-q"]),
      ),
    );
    expect(a!.code, a!.err).toBe(0);
    expect(b!.code, b!.err).toBe(0);
    const t = await openSaver(target, { readOnly: true });
    expect(await t.count()).toBe(50);
    await t.close();
  }, 60_000);
});
