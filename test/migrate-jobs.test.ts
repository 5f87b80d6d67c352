/**
 * `ckpt migrate --jobs N`: parallel writers (connections) into Redis and PostgreSQL, sharded by thread id, one journal,
 * one progress stream; and a kill at random points during a parallel run that --resume finishes identically.
 */
import { describe, expect, it, afterAll } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { shardOf } from "../src/core/migrate/pipeline.js";
import { storeHashes } from "./helpers/store-hashes.js";

const root = join(import.meta.dirname, "..");
const run = randomBytes(4).toString("hex");
const REDIS = `redis://127.0.0.1:6379?prefix=${encodeURIComponent(`ckpt-jobs-${run}-`)}`;
const PG = `postgres://postgres@127.0.0.1:5432/test?schema=ckpt_jobs_${run}`;
const sample = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);

function io(cwd: string): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}

function makeSource(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-jobs-src-"));
  for (let i = 0; i < n; i++)
    writeFileSync(join(dir, `t-${i}.json`), JSON.stringify({ ...sample, threadId: `t-${i}`, step: i }, null, 2));
  return dir;
}

afterAll(async () => {
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  const keys = await c.keys(`ckpt-jobs-${run}-*`); // test cleanup only
  for (let i = 0; i < keys.length; i += 1000) await c.del(...keys.slice(i, i + 1000));
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect();
  const { rows } = await p.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE $1", [`ckpt_jobs_${run}%`]);
  for (const r of rows) await p.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  await p.end();
});

describe("migrate --jobs", () => {
  it("shards by thread id: the same id always to the same writer, every writer used", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `thread-${i}`);
    const counts = [0, 0, 0, 0];
    for (const id of ids) {
      const k = shardOf(id, 4);
      expect(shardOf(id, 4)).toBe(k);
      counts[k]!++;
    }
    expect(counts.every((c) => c > 150)).toBe(true); // roughly even (250 each)
    expect(shardOf("anything", 1)).toBe(0);
  });

  for (const [name, uri] of [
    ["redis", REDIS],
    ["postgres", PG],
  ] as const) {
    it(`file → ${name} with --jobs 3: every record written once and verified, one progress stream reaching the total`, async () => {
      const src = makeSource(700);
      const work = mkdtempSync(join(tmpdir(), "ckpt-jobs-"));
      const target = `${uri}${name === "redis" ? "a:" : "_a"}`;
      const t = io(work);
      expect(
        await main(
          ["migrate", "--from", `file:${src}`, "--to", target, "--jobs", "3", "--batch-size", "50", "--json"],
          t,
        ),
        t.err(),
      ).toBe(0);
      const lines = t
        .out()
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const progress = lines.filter((l) => l.type === "progress");
      const summary = lines.at(-1);
      expect(summary).toMatchObject({
        type: "summary",
        read: 700,
        written: 700,
        verified: 700,
        rejected: 0,
        writers: 3,
        mismatches: [],
      });
      expect(progress.length).toBe(14); // one event per batch of 50
      expect(progress.every((p) => p.total === 700)).toBe(true);
      expect(progress.map((p) => p.read)).toEqual([...progress.map((p) => p.read)].sort((a, b) => a - b));
      expect(progress.at(-1)).toMatchObject({ read: 700, written: 700 });
      const want = await storeHashes(`file:${src}`);
      const got = await storeHashes(target);
      expect(got).toEqual(want);
      // a second run finds every record identical (conflict lookups on every writer)
      const t2 = io(work);
      expect(await main(["migrate", "--from", `file:${src}`, "--to", target, "-j", "2", "-q"], t2)).toBe(0);
      expect(t2.out()).toMatch(/written 0, skipped 700 \(700 identical\)/);
      rmSync(src, { recursive: true, force: true });
    });
  }

  it("refuses --jobs for a store with one writer, and out-of-range values", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-jobs-"));
    const src = makeSource(2);
    const t = io(work);
    expect(
      await main(["migrate", "--from", `file:${src}`, "--to", `sqlite:${join(work, "x.db")}`, "--jobs", "2"], t),
    ).toBe(2);
    expect(t.err()).toMatch(/--jobs 2: only redis:\/\/ and postgres:\/\/ targets take parallel writers/);
    const u = io(work);
    expect(await main(["migrate", "--from", `file:${src}`, "--to", REDIS + "z:", "--jobs", "0"], u)).toBe(2);
    expect(u.err()).toMatch(/--jobs expects an integer from 1 to 64, got /);
  });

  it("--jobs 2 into a SQLite file or a folder that does not exist: refused before either is created", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-jobs-"));
    const src = makeSource(2);
    for (const to of [`sqlite:${join(work, "new.db")}`, `file:${join(work, "new-folder")}`]) {
      const t = io(work);
      const journal = join(work, "j");
      expect(await main(["migrate", "--from", `file:${src}`, "--to", to, "--jobs", "2", "--journal", journal], t)).toBe(
        2,
      );
      expect(t.err()).toMatch(/--jobs 2: only redis:\/\/ and postgres:\/\/ targets take parallel writers/);
    }
    expect(existsSync(join(work, "new.db"))).toBe(false);
    expect(existsSync(join(work, "new-folder"))).toBe(false);
    expect(existsSync(join(work, "j"))).toBe(false);
  });

  it("a parallel run killed at random points ends identical after --resume (postgres, 4 writers)", async () => {
    const src = makeSource(1200);
    const want = await storeHashes(`file:${src}`);
    let seed = 987;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let midRun = 0;
    for (let k = 0; k < 4; k++) {
      const work = mkdtempSync(join(tmpdir(), "ckpt-jobs-kill-"));
      const target = `${PG}_kill${k}`;
      const journal = join(work, "run.journal");
      const args = [
        "migrate",
        "--from",
        `file:${src}`,
        "--to",
        target,
        "--jobs",
        "4",
        "--batch-size",
        "20",
        "--journal",
        journal,
        "-q",
      ];
      const child = spawn(process.execPath, [join(root, "bin", "ckpt.js"), ...args], { cwd: work, stdio: "ignore" });
      const exitedP = new Promise((r) => child.on("exit", r));
      let exited = false;
      void exitedP.then(() => (exited = true));
      const t0 = Date.now();
      // wait for the first commit (the journal has more than its header line), then kill at a random later point
      while (
        !exited &&
        !(existsSync(journal) && readFileSync(journal, "utf8").split("\n").length > 2) &&
        Date.now() - t0 < 20_000
      )
        await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      child.kill("SIGKILL");
      await exitedP;
      const left = existsSync(journal);
      if (left) midRun++;
      const t = io(work);
      expect(await main([...args, ...(left ? ["--resume"] : [])], t), t.out() + t.err()).toBe(0);
      const got = await storeHashes(target);
      expect(got.size).toBe(want.size);
      for (const [key, h] of want) expect(got.get(key)).toBe(h);
      expect(existsSync(journal)).toBe(false);
    }
    expect(midRun).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
