/**
 * #43: a writing command that changes what a store holds (prune, delete; copy's source) given an SQLite file that holds
 * no tables at all, or no file, is an input error (exit 3, "holds no checkpoint tables" / "no such SQLite database")
 * and creates nothing: no table, no -wal or -shm, no file. (It was a silent success: prune set ckpt's tables up in
 * the empty file and exited 0 with nothing printed.)
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const dir = mkdtempSync(join(tmpdir(), "ckpt-no-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

/** SQLite files without a table: a 0-byte file (what `touch` makes), and a database whose one table was dropped (WAL mode). */
function emptyDatabases(): Record<string, string> {
  const zero = join(dir, "zero.db");
  writeFileSync(zero, "");
  const dropped = join(dir, "dropped.db");
  const db = new Database(dropped);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (x); DROP TABLE t;");
  db.close();
  return { "a 0-byte file": zero, "a database whose tables were dropped": dropped };
}

const commands = (file: string): string[][] => [
  ["prune", `sqlite:${file}`, "--idle-for", "1s"],
  ["prune", `sqlite:${file}`, "--keep-last", "1"],
  ["delete", `sqlite:${file}#t1`, "--yes"],
  ["copy", `sqlite:${file}#t1`, `sqlite:${join(dir, "copy-target.db")}#t2`],
];

describe.each(Object.entries(emptyDatabases()))("%s", (_what, file) => {
  it.each(commands(file).map((argv) => [argv.slice(0, 2).join(" "), argv]))(
    "%s: exit 3, names the file and says it holds no checkpoint tables, creates nothing",
    async (_name, argv) => {
      const before = sha(file);
      const files = readdirSync(dir).sort();
      const r = await runCli(argv as string[]);
      expect(r.code, r.out + r.err).toBe(3);
      expect(r.err).toContain("holds no checkpoint tables");
      expect(r.err).toContain(file);
      expect(r.out).toBe("");
      expect(sha(file)).toBe(before);
      expect(readdirSync(dir).sort()).toEqual(files);
      const db = new Database(file, { readonly: true, fileMustExist: true });
      const tables = db.prepare("SELECT name FROM sqlite_master").pluck().all();
      db.close();
      expect(tables).toEqual([]);
    },
  );
});

describe("a store that is not there", () => {
  it.each([
    ["prune", "--idle-for", "1s"],
    ["prune", "--keep-last", "1"],
  ])("%s %s %s: exit 3 (no such SQLite database), no file created", async (cmd, flag, value) => {
    const missing = join(dir, "missing", "gone.db");
    const r = await runCli([cmd, `sqlite:${missing}`, flag, value]);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toContain("no such SQLite database");
    expect(readdirSync(dir)).not.toContain("missing");
  });
});
