/**
 * A store named where one checkpoint is read (show, diff, convert, replay) used to be reported as "no such file or
 * directory" (a URI) or "binary data (a NUL byte at offset 15)" (a bare *.sqlite path): the message now says it is a
 * store and how to name one of its threads, exit 3, without the URI's password.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
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
    [["diff", "redis://me:hunter2@127.0.0.1:6379", doc], "redis://me:***@127.0.0.1:6379", "ckpt ls redis://me:***@127.0.0.1:6379"],
    [["convert", "postgres://postgres@127.0.0.1:5432/test", "-t", "yoagent"], "postgres://postgres@127.0.0.1:5432/test", "ckpt ls postgres://postgres@127.0.0.1:5432/test"],
    [["replay", `file:${join(ROOT, "fixtures", "deepagent", "valid")}`], `file:${join(ROOT, "fixtures", "deepagent", "valid")}`, `ckpt ls file:${join(ROOT, "fixtures", "deepagent", "valid")}`],
  ];
  for (const [argv, shown, ls] of cases) {
    it(`${argv.join(" ")}: says it is a store and how to name a thread (exit 3)`, async () => {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, r.err).toBe(3);
      expect(r.err).toBe(`ckpt: ${shown}: a store, not one checkpoint: name a thread as '${shown}#<thread>' ('${ls}' lists them)\n`);
      expect(r.err).not.toContain("hunter2");
    });
  }
  it("a file: URI of one document and a store's thread still read", async () => {
    expect((await runCli(["show", `file:${doc}`])).code).toBe(0);
    expect((await runCli(["show", `${join(dir, "lg.sqlite")}#a-chat-1`])).code).toBe(0);
  });
});
