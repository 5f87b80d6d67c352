/**
 * A store named where one checkpoint is read (show, diff, convert, replay) used to be reported as "no such file or
 * directory" (a URI) or "binary data (a NUL byte at offset 15)" (a bare *.sqlite path): the message now says it is a
 * store and how to name one of its threads, exit 3, without the URI's password.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-store-no-thread-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync(join(ROOT, "fixtures", "langgraph", "python-a.sqlite"), join(dir, "lg.sqlite"));
const doc = join(ROOT, "fixtures", "deepagent", "valid", "user_42_session_1.json");

describe("a store where one checkpoint is expected", () => {
  const cases: Array<[string[], string, string]> = [
    [["show", "sqlite:lg.sqlite"], "sqlite:lg.sqlite", "ckpt ls sqlite:lg.sqlite"],
    [["show", "lg.sqlite"], "lg.sqlite", "ckpt ls sqlite:lg.sqlite"],
    [
      ["diff", "redis://me:hunter2@127.0.0.1:6379", doc],
      "redis://me:***@127.0.0.1:6379",
      "ckpt ls redis://me:***@127.0.0.1:6379",
    ],
    [
      ["convert", "postgres://postgres@127.0.0.1:5432/test", "-t", "yoagent"],
      "postgres://postgres@127.0.0.1:5432/test",
      "ckpt ls postgres://postgres@127.0.0.1:5432/test",
    ],
    [
      ["replay", `file:${join(ROOT, "fixtures", "deepagent", "valid")}`],
      `file:${join(ROOT, "fixtures", "deepagent", "valid")}`,
      `ckpt ls file:${join(ROOT, "fixtures", "deepagent", "valid")}`,
    ],
  ];
  for (const [argv, shown, ls] of cases) {
    it(`${argv.join(" ")}: says it is a store and how to name a thread (exit 3)`, async () => {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, r.err).toBe(3);
      expect(r.err).toBe(
        `ckpt: ${shown}: a store, not one checkpoint: name a thread as '${shown}#<thread>' ('${ls}' lists them)\n`,
      );
      expect(r.err).not.toContain("hunter2");
    });
  }
  it("a file: URI of one document and a store's thread still read", async () => {
    expect((await runCli(["show", `file:${doc}`])).code).toBe(0);
    expect((await runCli(["show", `${join(dir, "lg.sqlite")}#a-chat-1`])).code).toBe(0);
  });
});

/**
 * The other way round: a thread named where a store is expected. A URL dropped the fragment (ls listed the whole
 * store; migrate --to wrote into it) and a path became a new database file called 'y.db#t1'.
 */
describe("a thread where a store is expected", () => {
  const folder = join(ROOT, "fixtures", "deepagent", "valid");
  const cases: Array<[string[], string, string]> = [
    // a relative path is taken from the io's folder (main() is given `dir`, not the process's folder): named in full
    // (`ls <langgraph-store>#<thread>` lists the thread's namespaces: see below and langgraph-namespaces.test.ts)
    [["ls", "sqlite:new.db#t1"], `sqlite:${dir}/new.db#t1`, `sqlite:${dir}/new.db`],
    [
      ["stats", "sqlite:lg.sqlite?namespace=x#a-chat-1"],
      `sqlite:${dir}/lg.sqlite?namespace=x#a-chat-1`,
      `sqlite:${dir}/lg.sqlite?namespace=x`,
    ],
    [["ls", `file:${folder}#user_42_session_1`], `file:${folder}#user_42_session_1`, `file:${folder}`],
    [
      ["ls", "redis://me:hunter2@127.0.0.1:6379?prefix=p:#t1"],
      "redis://me:***@127.0.0.1:6379?prefix=p:#t1",
      "redis://me:***@127.0.0.1:6379?prefix=p:",
    ],
    [
      ["migrate", "--from", `file:${folder}`, "--to", `sqlite:${join(dir, "new.db")}#t1`],
      `sqlite:${join(dir, "new.db")}#t1`,
      `sqlite:${join(dir, "new.db")}`,
    ],
    [
      ["migrate", "--from", `file:${folder}`, "--to", "postgres://postgres@127.0.0.1:5432/test#t1"],
      "postgres://postgres@127.0.0.1:5432/test#t1",
      "postgres://postgres@127.0.0.1:5432/test",
    ],
  ];
  for (const [argv, shown, store] of cases) {
    it(`${argv.join(" ")}: a usage error naming the store (exit 2), nothing created`, async () => {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toBe(
        `ckpt: '${shown}' names a thread ('#${shown.slice(shown.lastIndexOf("#") + 1)}'): this command takes the store itself, '${store}'\n`,
      );
      expect(r.err).not.toContain("hunter2");
      expect(existsSync(join(dir, "new.db#t1"))).toBe(false);
      expect(existsSync(join(dir, "new.db"))).toBe(false);
    });
  }
  it("ls <langgraph-store>#<thread> lists that thread's checkpoint namespaces, never the whole store", async () => {
    for (const spec of ["sqlite:lg.sqlite#a-chat-1", "lg.sqlite#a-chat-1"]) {
      const r = await runCli(["ls", spec, "--json"], { cwd: dir });
      expect(r.code, r.err).toBe(0);
      const rows = JSON.parse(r.out) as Array<{ namespace: string; checkpoints: number }>;
      expect(rows.map((x) => x.namespace)).toEqual([""]);
      expect(rows[0]!.checkpoints).toBeGreaterThan(0);
    }
  });
  it("a folder whose own name holds '#' is still a store", async () => {
    const odd = join(dir, "runs#1");
    mkdirSync(odd);
    copyFileSync(join(folder, "user_42_session_1.json"), join(odd, "user_42_session_1.json"));
    const r = await runCli(["ls", `file:${odd}`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("user:42/session#1"); // the thread id the document holds
  });
});
