/**
 * Issue #42 item 7: one deeply nested document (100 000 nested arrays) in a folder store is that file's problem: a
 * migration rejects it (exit 5), naming the file and where the nesting goes past the limit, and migrates the rest —
 * into a folder and into SQLite — instead of stopping the whole run with "Maximum call stack size exceeded" (exit 4).
 * `ls` lists the store without a stack overflow in any row.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const good = join(import.meta.dirname, "..", "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json");

/** A folder of one good deep-agent checkpoint and one like it holding 100 000 nested arrays under "x". */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-deep-"));
  const src = join(dir, "src");
  mkdirSync(src);
  copyFileSync(good, join(src, "user_42_session_1.json"));
  const doc = JSON.parse(readFileSync(good, "utf8")) as Record<string, unknown>;
  const text = JSON.stringify({ ...doc, threadId: "deep" });
  writeFileSync(join(src, "deep.json"), `${text.slice(0, -1)},"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
  return dir;
}

const REASON = /deep\.json: \/x\/0\/0\/0\/0\/0\/0\/0\/…: nesting deeper than 1000 levels of arrays and objects/;

describe("a folder migration with one deeply nested document", () => {
  it("file → file: exit 5, the deep file rejected and named with where, the other written byte for byte", async () => {
    const dir = folder();
    const r = await runCli(["migrate", "--from", `file:${join(dir, "src")}`, "--to", `file:${join(dir, "out")}`], {
      cwd: dir,
    });
    expect(r.code, r.err + r.out).toBe(5);
    expect(r.out).toMatch(/read 2, written 1, skipped 0, rejected 1, verified 1/);
    expect(r.out + r.err).toMatch(REASON);
    expect(r.err).not.toMatch(/call stack/);
    expect(readdirSync(join(dir, "out"))).toEqual(["user_42_session_1.json"]);
    expect(readFileSync(join(dir, "out", "user_42_session_1.json")).equals(readFileSync(good))).toBe(true);
  });

  it("file → SQLite: exit 5, the other thread is in the database", async () => {
    const dir = folder();
    const db = join(dir, "out.db");
    const r = await runCli(["migrate", "--from", `file:${join(dir, "src")}`, "--to", `sqlite:${db}`], { cwd: dir });
    expect(r.code, r.err + r.out).toBe(5);
    expect(r.out + r.err).toMatch(REASON);
    const d = new Database(db, { readonly: true });
    const tables = d.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const t = tables.find((n) => !n.endsWith("_meta") && !n.startsWith("sqlite_"))!;
    const ids = d.prepare(`SELECT thread_id FROM "${t}"`).pluck().all();
    d.close();
    expect(ids).toEqual(["user:42/session#1"]);
  });

  it("ls lists both threads, no row says the stack overflowed", async () => {
    const dir = folder();
    const r = await runCli(["ls", `file:${join(dir, "src")}`], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/call stack/);
    expect(r.out).toMatch(/user:42\/session#1/);
  });
});
