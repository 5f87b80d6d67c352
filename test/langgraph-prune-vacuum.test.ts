/**
 * `ckpt prune --vacuum` (issue #29): SQLite files (WAL and rollback-journal mode) shrink by what the summary says it
 * gave back, measured with stat, and by at least the row data the prune freed; PostgreSQL reports each table's
 * pg_total_relation_size before and after and says that only VACUUM FULL shrinks the files; `--dry-run --vacuum`
 * says what it would do and changes nothing.
 */
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgvac");
const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgvac-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};
const size = (p: string) => statSync(p).size + (existsSync(`${p}-wal`) ? statSync(`${p}-wal`).size : 0);
const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

describe("prune --vacuum on SQLite", () => {
  for (const [sample, mode] of [
    ["js-c.sqlite", "wal"],
    ["python-a.sqlite", "delete"],
  ] as const)
    it(`${sample} (${mode} journal): the file shrinks by what the summary says, at least the row data freed`, async () => {
      const f = copyOf(sample);
      const db = new Database(f);
      db.pragma(`journal_mode = ${mode}`);
      db.close();
      const page = 4096;
      const h0 = hash(f);
      const dry = await ckpt("prune", `sqlite:${f}`, "--keep-last", "1", "--vacuum", "--dry-run");
      expect(dry.code, dry.err).toBe(0);
      expect(dry.out).toMatch(
        /would vacuum after the prune \(.*\.sqlite 0\.\d\d MB\): it would give back about 0\.\d\d MB/,
      );
      expect(hash(f)).toBe(h0);
      const before = size(f);
      const r = await ckpt("prune", `sqlite:${f}`, "--keep-last", "1", "--vacuum", "--json");
      expect(r.code, r.err).toBe(0);
      const s = JSON.parse(r.out);
      const after = size(f);
      expect(s.vacuum.parts).toEqual([{ name: sample, before, after }]);
      expect(s.vacuum.given).toBe(before - after);
      expect(before - after).toBeGreaterThanOrEqual(s.bytes);
      // what VACUUM leaves: no free page
      const d = new Database(f, { readonly: true });
      expect(d.pragma("freelist_count", { simple: true })).toBe(0);
      expect(d.pragma("page_size", { simple: true })).toBe(page);
      d.close();
      const text = await ckpt("prune", `sqlite:${f}`, "--keep-last", "1", "--vacuum");
      expect(text.out).toMatch(/vacuum: gave back 0\.00 MB \(/); // nothing more to give
    });
});

describe("prune --vacuum on PostgreSQL", () => {
  it("js-c.pg.sql: each table's size before and after; VACUUM FULL named as the one that shrinks files", async () => {
    const s = pgdb.schema("jsc");
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
      input: readFileSync(join(fx, "js-c.pg.sql"), "utf8").replaceAll("__SCHEMA__", s),
      stdio: ["pipe", "ignore", "inherit"],
    });
    const sizes = async () =>
      Object.fromEntries(
        (
          await pgdb.query(
            `SELECT relname, pg_total_relation_size(c.oid)::int AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relkind = 'r' AND relname LIKE 'checkpoint%' AND relname <> 'checkpoint_migrations'`,
            [s],
          )
        ).rows.map((r) => [r.relname, r.b]),
      );
    const uri = `${PG}?schema=${s}`;
    const s0 = await sizes();
    const n0 = (await pgdb.query(`SELECT count(*)::int AS n FROM ${s}.checkpoints`)).rows[0].n;
    const dry = await ckpt("prune", uri, "--keep-last", "1", "--vacuum", "--dry-run");
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain("would vacuum after the prune (checkpoint_blobs ");
    expect((await pgdb.query(`SELECT count(*)::int AS n FROM ${s}.checkpoints`)).rows[0].n).toBe(n0);
    const r = await ckpt("prune", uri, "--keep-last", "1", "--vacuum", "--json");
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const s1 = await sizes();
    expect(j.vacuum.parts.map((p: { name: string }) => p.name)).toEqual([
      "checkpoint_blobs",
      "checkpoint_writes",
      "checkpoints",
    ]);
    for (const p of j.vacuum.parts) {
      expect(p.before).toBe(s0[p.name]);
      expect(p.after).toBe(s1[p.name]);
    }
    expect(j.vacuum.fullNeeded).toBe(true);
    // VACUUM ran: the dead rows are gone from the statistics
    const dead = await pgdb.query(
      `SELECT relname, n_dead_tup::int AS d, last_vacuum FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'checkpoints'`,
      [s],
    );
    expect(dead.rows[0].last_vacuum).not.toBeNull();
    const text = await ckpt("prune", uri, "--keep-last", "1", "--vacuum");
    expect(text.out).toMatch(/vacuum: gave back \d+\.\d\d MB \(checkpoint_blobs \d+\.\d\d MB → \d+\.\d\d MB, /);
  });
});

it("--vacuum on ckpt's own saver is a usage error", async () => {
  const d = mkdtempSync(join(tmpdir(), "lgvac-"));
  const r = await ckpt("prune", `file:${d}`, "--idle-for", "1d", "--vacuum");
  expect(r.code).toBe(2);
  expect(r.err).toContain("--vacuum applies to LangGraph stores");
});
