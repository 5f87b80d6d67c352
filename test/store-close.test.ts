/**
 * #15 item 10: every exit path closes every store promptly — a test per saver, against the real Redis and
 * PostgreSQL. Each command runs as a real process (`node bin/ckpt.js`): an open connection would keep Node alive,
 * so "exits within a few seconds with the documented code" is the check. In-process, no store is left open.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../src/cli/main.js";
import { openStoreCount } from "../src/cli/stores.js";
import { openSaver } from "../src/savers/index.js";
import { cliIO } from "./helpers/cli-io.js";

const root = join(import.meta.dirname, "..");
const samples = join(root, "fixtures", "savers", "deepagent-filesaver");
const run = randomBytes(4).toString("hex");
const REDIS = `redis://127.0.0.1:6379?prefix=${encodeURIComponent(`ckpt-close-${run}:`)}`;
const PG = `postgres://postgres@127.0.0.1:5432/test?schema=ckpt_close_${run}`;
const doc = readFileSync(join(samples, "explicit-messages-thread.json"), "utf8");

function stores(work: string): Record<string, string> {
  return { file: `file:${join(work, "files")}`, sqlite: `sqlite:${join(work, "c.db")}`, redis: REDIS, postgres: PG };
}

/** Run ckpt as a process; resolves with its exit code and how long it took (killed after 15 s). */
function ckpt(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; ms: number; err: string }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [join(root, "bin", "ckpt.js"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  return new Promise((r) => child.on("exit", (code) => (clearTimeout(timer), r({ code, ms: Date.now() - t0, err }))));
}

beforeAll(async () => {
  if (!existsSync(join(root, "dist", "cli", "main.js")))
    execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
  for (const uri of [REDIS, PG]) {
    let s;
    try {
      s = await openSaver(uri);
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\nRedis 7 must run at 127.0.0.1:6379 (redis-server --daemonize yes) and PostgreSQL 15 at 127.0.0.1:5432 (pg_ctlcluster 15 main start)`,
      );
    }
    await s.save("seed", doc.replace('"explicit-messages-thread"', '"seed"'));
    await s.close();
  }
}, 120_000);

afterAll(async () => {
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  const keys = await c.keys(`ckpt-close-${run}:*`); // test cleanup only
  if (keys.length) await c.del(...keys);
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect();
  await p.query(`DROP SCHEMA IF EXISTS ckpt_close_${run} CASCADE`);
  await p.end();
});

describe("#15 item 10: every exit path closes every store", () => {
  for (const kind of ["file", "sqlite", "redis", "postgres"] as const) {
    it(`${kind}: a left journal, a missing thread, an unwritable journal, a finished run — each process ends at once`, async () => {
      const work = mkdtempSync(join(tmpdir(), "ckpt-close-"));
      const target = stores(work)[kind];
      const env = { XDG_STATE_HOME: join(work, "state") };
      // the issue's case: an interrupted run left its journal; the same command without --resume must say so and end
      const journal = join(work, "left.journal");
      writeFileSync(journal, JSON.stringify({ ckptMigrateJournal: 1 }) + "\n");
      const left = await ckpt(["migrate", "--from", samples, "--to", target, "--journal", journal, "-q"], env);
      expect(left.code, left.err).toBe(2);
      expect(left.err).toMatch(/pass --resume to finish it/);
      // an error after the stores are open: the journal folder cannot be created (a file stands where it goes)
      writeFileSync(join(work, "blocker"), "");
      const unwritable = await ckpt(["migrate", "--from", samples, "--to", target, "-q"], {
        XDG_STATE_HOME: join(work, "blocker"),
      });
      expect(unwritable.code, unwritable.err).toBe(4);
      // a finished run, then a read that fails after opening (no such thread)
      const ok = await ckpt(["migrate", "--from", samples, "--to", target, "-q"], env);
      expect(ok.code, ok.err).toBe(0);
      const missing = await ckpt(["show", `${target}#no-such-thread`], env);
      expect(missing.code, missing.err).toBe(3);
      for (const r of [left, unwritable, ok, missing]) expect(r.ms, r.err).toBeLessThan(5_000);
    }, 60_000);

    it(`${kind}: in-process, no store stays open after any of these`, async () => {
      const work = mkdtempSync(join(tmpdir(), "ckpt-close-"));
      const target = stores(work)[kind];
      const env = { XDG_STATE_HOME: join(work, "state") };
      writeFileSync(join(work, "blocker"), "");
      const runs: Array<[string[], NodeJS.ProcessEnv, number]> = [
        [["migrate", "--from", samples, "--to", target, "-q"], { XDG_STATE_HOME: join(work, "blocker") }, 4],
        [["migrate", "--from", samples, "--to", target, "-q"], env, 0],
        [["show", `${target}#no-such-thread`], env, 3],
        [["ls", target, "--namespace", "nothing-here"], env, 0],
      ];
      for (const [argv, e, want] of runs) {
        const t = cliIO({ cwd: work, env: e });
        expect(await main(argv, t), argv.join(" ") + t.err()).toBe(want);
        expect(openStoreCount(), argv.join(" ")).toBe(0);
      }
    }, 60_000);
  }
});
