/**
 * Issue #42 item 8: two Mastra migrations into one PostgreSQL target with `--on-conflict skip` — the README says
 * skip tolerates concurrent writers. Made deterministic with a lock: a session of the test holds SHARE on the
 * target's `mastra_threads` (reads go on, inserts wait) until both runs have looked the target up, found it empty
 * and are waiting to insert; then it lets go. Both must exit 0; what one wrote the other counts as skipped
 * (identical); the target is the source, as the real `@mastra/pg` reads it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { type MastraThreadBack, readMastra, writeMastra } from "./helpers/mastra.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const BIN = join(import.meta.dirname, "..", "bin", "ckpt.js");
const schemas = pgTestSchemas("mcs");
let dir: string;
let src: string;
let source: MastraThreadBack[];
let target: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mastra-skip-"));
  src = join(dir, "source.db");
  target = schemas.schema("t");
  // the source, and the target's tables as @mastra/pg's own init creates them (one thread of its own)
  [source] = await Promise.all([
    writeMastra({ kind: "libsql", file: src }),
    writeMastra(
      { kind: "pg", url: PG, schema: target },
      { threads: [{ id: "x", resource: "r", turns: [{ user: "hi" }] }] },
    ),
  ]);
}, 120_000);

const byId = (ts: MastraThreadBack[]) => [...ts].sort((a, b) => a.id.localeCompare(b.id));

describe("two migrations into one Mastra PostgreSQL target with --on-conflict skip", () => {
  it("both exit 0; the other run's rows count as skipped; the target holds the source's threads once", async () => {
    const lock = new pg.Client({ connectionString: PG });
    await lock.connect();
    try {
      await lock.query("BEGIN");
      await lock.query(`LOCK TABLE ${target}.mastra_threads IN SHARE MODE`);
      // two processes (each with its journal: one pair's journal is locked to one run)
      const run = (k: number) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
          const args = ["migrate", "--from", `sqlite:${src}`, "--to", `${PG}?schema=${target}`];
          args.push("--on-conflict", "skip", "--json", "--journal", join(dir, `journal-${k}`));
          const p = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
          let out = "";
          let err = "";
          p.stdout.on("data", (d) => (out += d));
          p.stderr.on("data", (d) => (err += d));
          p.on("error", reject);
          p.on("close", (code) => resolve({ code, out, err }));
        });
      const runs = [run(1), run(2)];
      // both are waiting for the lock to insert (each has looked the target up and found the threads missing)
      for (let waited = 0; ; waited += 50) {
        const r = await lock.query(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
           WHERE NOT l.granted AND c.relname = 'mastra_threads' AND c.relnamespace = $1::regnamespace`,
          [target],
        );
        if (r.rows[0].n >= 2) break;
        if (waited > 30_000) throw new Error("the two runs never both waited to insert");
        await new Promise((res) => setTimeout(res, 50));
      }
      await lock.query("COMMIT");
      const [a, b] = await Promise.all(runs);
      for (const r of [a!, b!]) expect(r.code, r.out + r.err).toBe(0);
      const [sa, sb] = [a!, b!].map((r) => JSON.parse(r.out.trim().split("\n").pop()!));
      // every record read by each; written once in all; what the other wrote skipped as identical
      expect(sa.read).toBe(sb.read);
      expect(sa.written + sb.written).toBe(sa.read);
      expect(sa.skipped + sb.skipped).toBe(sa.read);
      expect(sa.identical + sb.identical).toBe(sa.read);
      expect([sa.mismatches, sb.mismatches]).toEqual([[], []]);
    } finally {
      await lock.query("ROLLBACK").catch(() => undefined);
      await lock.end();
    }
    const got = (await readMastra({ kind: "pg", url: PG, schema: target })).filter((t) => t.id !== "x");
    expect(byId(got)).toEqual(byId(source));
  }, 120_000);
});
