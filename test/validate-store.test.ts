/**
 * `ckpt validate <saver-uri>` with no `#thread`: every checkpoint of a ckpt store (it used to report the URI as
 * "no such file or directory", exit 3). Each result is named by the address `ckpt show` takes, so a finding leads
 * straight to its thread; namespaces, --max-errors, an empty store and a store that cannot be reached behave as for
 * folders and files. Stores: SQLite (a temp file) and a real Redis (a unique key prefix, removed after).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSaver } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";

const ROOT = join(import.meta.dirname, "..");
const fx = (p: string) => readFileSync(join(ROOT, "fixtures", "deepagent", p), "utf8");
const REDIS = process.env.CKPT_TEST_REDIS ?? "redis://127.0.0.1:6379";
const prefix = `ckpt-test-validate-store-${process.pid}-${Date.now().toString(36)}:`;
const dir = mkdtempSync(join(tmpdir(), "ckpt-validate-store-"));
const db = join(dir, "store.db");
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
type Report = {
  files: Array<{
    file: string;
    valid: boolean;
    issues: Array<{ severity: string; rule: string; pointer: string }>;
    fatal?: { reason: string };
  }>;
  stoppedEarly?: string;
};

/** The same four records in a store: two valid and one invalid in 'default', one valid in 'team b'. */
async function fill(uri: string): Promise<void> {
  const s = await openSaver(uri);
  try {
    await s.save("good", fx("valid/explicit-messages-thread.json"));
    await s.save("also good", fx("valid/user_42_session_1.json"));
    await s.save("bad", fx("invalid/bad-todo-status.json"));
    await s.save("other", fx("valid/explicit-messages-thread.json"), "team b");
  } finally {
    await s.close();
  }
}

beforeAll(async () => {
  await fill(`sqlite:${db}`);
  try {
    await fill(`${REDIS}?prefix=${encodeURIComponent(prefix)}`);
  } catch (e) {
    throw new Error(
      `Redis at ${REDIS} is not reachable (${(e as Error).message}): start it with 'redis-server --daemonize yes' or set CKPT_TEST_REDIS`,
    );
  }
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteRedisKeys(prefix, REDIS);
});

async function validate(...argv: string[]): Promise<{ code: number; report: Report; err: string }> {
  const r = await runCli(["validate", "--json", ...argv]);
  return { code: r.code, report: JSON.parse(r.out) as Report, err: r.err };
}

describe("ckpt validate of a whole ckpt store", () => {
  for (const kind of ["sqlite", "redis"]) {
    const uri = () => (kind === "sqlite" ? `sqlite:${db}` : `${REDIS}?prefix=${encodeURIComponent(prefix)}`);
    it(`${kind}: every checkpoint of every namespace, each named by its address; the invalid one fails the run (exit 1)`, async () => {
      const { code, report } = await validate(uri());
      expect(code).toBe(1);
      const byName = new Map(report.files.map((f) => [f.file, f]));
      const sep = uri().includes("?") ? "&" : "?";
      expect([...byName.keys()].sort()).toEqual(
        [`${uri()}#also good`, `${uri()}#bad`, `${uri()}#good`, `${uri()}${sep}namespace=team%20b#other`].sort(),
      );
      expect(byName.get(`${uri()}#bad`)!.valid).toBe(false);
      // the fixture's own expectation (fixtures/deepagent/invalid/bad-todo-status.json.expect.json)
      expect(
        byName
          .get(`${uri()}#bad`)!
          .issues.filter((i) => i.severity === "error")
          .map((i) => [i.rule, i.pointer]),
      ).toEqual([["schema/enum", "/state/todos/0/status"]]);
      for (const f of report.files) if (!f.file.endsWith("#bad")) expect(f.valid, f.file).toBe(true);
      // each name is an address show reads
      for (const name of byName.keys()) expect((await runCli(["show", name])).code, name).toBe(0);
    });

    it(`${kind}: ?namespace= or --namespace picks one namespace`, async () => {
      const sep = uri().includes("?") ? "&" : "?";
      const a = await validate(`${uri()}${sep}namespace=team%20b`);
      expect(a.code).toBe(0);
      expect(a.report.files.map((f) => f.file)).toEqual([`${uri()}${sep}namespace=team%20b#other`]);
      const b = await validate(uri(), "--namespace", "default");
      expect(b.report.files.map((f) => f.file).sort()).toEqual(
        [`${uri()}#also good`, `${uri()}#bad`, `${uri()}#good`].sort(),
      );
    });
  }

  it("--max-errors 1 stops inside the store and says so", async () => {
    const { code, report } = await validate(`sqlite:${db}`, "--namespace", "default", "--max-errors", "1");
    expect(code).toBe(1);
    expect(report.stoppedEarly).toMatch(/^stopped after 1 error \(--max-errors\)/);
    // scan order is by thread id: 'also good', 'bad' — and nothing after the error
    expect(report.files.map((f) => f.file)).toEqual([`sqlite:${db}#also good`, `sqlite:${db}#bad`]);
  });

  it("an empty store is an input error (exit 3), as an empty folder is; a relative path is the command's folder; nothing is changed", async () => {
    const empty = join(dir, "empty.db");
    (await openSaver(`sqlite:${empty}`)).close();
    const before = [sha(db), sha(empty)];
    const r = await runCli(["validate", "sqlite:empty.db"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.out).toContain("sqlite:empty.db: error: the store holds no checkpoints");
    expect(r.out).not.toMatch(/no such file/);
    expect((await runCli(["validate", "sqlite:store.db", "-q"], { cwd: dir })).code).toBe(1);
    expect([sha(db), sha(empty)]).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(["empty.db", "store.db"]);
  });

  it("a store that cannot be reached is a store error (exit 4) naming it, not a missing file", async () => {
    const r = await runCli(["validate", "redis://127.0.0.1:1?timeout=2"]);
    expect(r.code).toBe(4);
    expect(r.out + r.err).toContain("redis://127.0.0.1:1");
    expect(r.out + r.err).not.toMatch(/no such file/);
  });
});
