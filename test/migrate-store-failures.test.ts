/**
 * Store failures during `ckpt migrate`, against the real Redis and PostgreSQL on this machine: authentication and a
 * missing database are exit 4 before anything is written; a server that disappears mid-run (a real TCP proxy in front
 * of the real server cuts every connection after some traffic) is exit 4 with a one-line message naming the journal,
 * never a stack trace or a password — and `--resume` against the server then finishes the job, verified by hashes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { storeHashes } from "./helpers/store-hashes.js";
import { startProxy } from "./helpers/tcp-proxy.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";

const root = join(import.meta.dirname, "..");
const run = randomBytes(4).toString("hex");
const prefix = `ckpt-fail-${run}:`;
const schema = `ckpt_fail_${run}`;

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
  const dir = mkdtempSync(join(tmpdir(), "ckpt-fail-src-"));
  const base = JSON.parse(
    readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
  );
  for (let i = 0; i < n; i++)
    writeFileSync(join(dir, `t-${i}.json`), JSON.stringify({ ...base, threadId: `t-${i}`, step: i }, null, 2));
  return dir;
}

afterAll(async () => {
  await deleteRedisKeys(prefix);
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect();
  await p.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await p.end();
});

/** One line, no stack frames. */
const oneLine = (s: string) => {
  expect(s.trim().split("\n")).toHaveLength(1);
  expect(s).not.toMatch(/\n\s+at /);
};

describe("migrate: store failures are exit 4, clear, and resumable", () => {
  it("Redis authentication failure: exit 4, the password never shown, nothing written", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-fail-"));
    const t = io(work);
    const code = await main(
      [
        "migrate",
        "--from",
        join(root, "fixtures", "savers", "deepagent-filesaver"),
        "--to",
        `redis://nobody:not-the-password-77@127.0.0.1:6379?prefix=${prefix}auth:`,
        "-q",
      ],
      t,
    );
    expect(code).toBe(4);
    expect(t.err()).toMatch(/cannot connect to Redis/);
    expect(t.err()).toMatch(/WRONGPASS|invalid username-password/);
    expect(t.err() + t.out()).not.toContain("not-the-password-77");
    oneLine(t.err());
  });

  it("PostgreSQL database that does not exist: exit 4, the password never shown", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-fail-"));
    const t = io(work);
    const code = await main(
      [
        "migrate",
        "--from",
        join(root, "fixtures", "savers", "deepagent-filesaver"),
        "--to",
        `postgres://postgres:pg-secret-88@127.0.0.1:5432/ckpt_no_such_db_${run}`,
        "-q",
      ],
      t,
    );
    expect(code).toBe(4);
    expect(t.err()).toMatch(/cannot connect to PostgreSQL.*does not exist/);
    expect(t.err() + t.out()).not.toContain("pg-secret-88");
    oneLine(t.err());
  });

  for (const kind of ["redis", "postgres"] as const) {
    it(`${kind} gone mid-run: exit 4 naming the journal; --resume against the server finishes, verified by hashes`, async () => {
      const src = makeSource(300);
      const want = await storeHashes(`file:${src}`);
      const work = mkdtempSync(join(tmpdir(), "ckpt-fail-"));
      const journal = join(work, "mig.journal");
      // cut after ~60 KB client → server: a few batches of 10 (~10 KB each with reads) have landed, the rest not
      const proxy = await startProxy(kind === "redis" ? 6379 : 5432, 60_000);
      const via =
        kind === "redis"
          ? `redis://127.0.0.1:${proxy.port}?prefix=${prefix}${kind}:`
          : `postgres://postgres:pg-secret-99@127.0.0.1:${proxy.port}/test?schema=${schema}`;
      const direct =
        kind === "redis"
          ? `redis://127.0.0.1:6379?prefix=${prefix}${kind}:`
          : `postgres://postgres@127.0.0.1:5432/test?schema=${schema}`;
      try {
        const t = io(work);
        const code = await main(
          ["migrate", "--from", `file:${src}`, "--to", via, "--batch-size", "10", "--journal", journal, "-q"],
          t,
        );
        expect(proxy.cut()).toBe(true);
        expect(code, t.err()).toBe(4);
        expect(t.err()).toMatch(/cannot (write|read)|migration stopped|Connection/i);
        expect(t.err()).toContain(journal); // says where the journal is, for --resume
        expect(t.err()).not.toContain("pg-secret-99");
        oneLine(t.err());
        expect(existsSync(journal)).toBe(true);
      } finally {
        await proxy.close();
      }
      const partial = await storeHashes(direct);
      expect(partial.size).toBeGreaterThan(0);
      expect(partial.size).toBeLessThan(want.size);

      const t2 = io(work);
      const code2 = await main(
        [
          "migrate",
          "--from",
          `file:${src}`,
          "--to",
          direct,
          "--batch-size",
          "10",
          "--journal",
          journal,
          "--resume",
          "-q",
        ],
        t2,
      );
      expect(code2, t2.err() + t2.out()).toBe(0);
      expect(t2.out()).toMatch(/done before the interruption/);
      const got = await storeHashes(direct);
      expect(got.size).toBe(want.size);
      for (const [id, h] of want) expect(got.get(id)).toBe(h);
      expect(existsSync(journal)).toBe(false);
    }, 60_000);
  }
});
