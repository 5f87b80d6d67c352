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
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

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

/**
 * #42 item 9: a PostgreSQL schema that is not there (a typo in `?schema=`), or one that holds no tables, is a missing
 * store for prune (with --vacuum), delete and copy's source: exit 3, and the database is left as it was (no schema,
 * no table). The schema is looked up in information_schema by a connection of the test's own.
 */
describe("a PostgreSQL schema that is not there, or holds no tables (#42 item 9)", () => {
  const pg = pgTestSchemas("nostore");
  const missing = pg.schema("typo");
  const empty = pg.schema("empty");
  const tablesOf = async (s: string) =>
    (await pg.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [s])).rows;
  const schemaThere = async (s: string) =>
    (await pg.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [s])).rowCount === 1;
  const pgCommands = (uri: string): string[][] => [
    ["prune", uri, "--keep-last", "5", "--vacuum"],
    ["prune", uri, "--idle-for", "1s"],
    ["delete", `${uri}#t1`, "--yes"],
    ["copy", `${uri}#t1`, `sqlite:${join(dir, "pg-copy-target.db")}#t2`],
  ];
  it.each(pgCommands(`${PG}?schema=${missing}`).map((a) => [a.slice(0, 2).join(" "), a]))(
    "%s: exit 3 naming the schema, no schema and no table created",
    async (_name, argv) => {
      const r = await runCli(argv as string[]);
      expect(r.code, r.out + r.err).toBe(3);
      expect(r.err).toContain(missing);
      expect(r.out).toBe("");
      expect(await schemaThere(missing)).toBe(false);
      expect(await tablesOf(missing)).toEqual([]);
      expect(readdirSync(dir)).not.toContain("pg-copy-target.db");
    },
  );
  it.each(pgCommands(`${PG}?schema=${empty}`).map((a) => [a.slice(0, 2).join(" "), a]))(
    "an empty schema, %s: exit 3, still no table in it",
    async (_name, argv) => {
      await pg.query(`CREATE SCHEMA IF NOT EXISTS ${empty}`);
      const r = await runCli(argv as string[]);
      expect(r.code, r.out + r.err).toBe(3);
      expect(r.err).toContain(empty);
      expect(await tablesOf(empty)).toEqual([]);
    },
  );
});
