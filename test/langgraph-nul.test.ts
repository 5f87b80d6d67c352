/**
 * #27 item 13: what PostgreSQL cannot store, in a LangGraph migration from SQLite. A thread id holding NUL is that
 * thread's problem: it is rejected, named, and the rest written (it failed the whole batch, and every --resume).
 * Metadata strings holding U+0000 lose it in PostgreSQL's JSONB (LangGraph's own savers strip it too): the run says
 * so instead of reporting the checkpoint verified as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const ROOT = join(import.meta.dirname, "..");
const pgs = pgTestSchemas("ckpt_lgnul");
let dir: string;
let src: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-lgnul-"));
  src = join(dir, "nul.sqlite");
  copyFileSync(join(ROOT, "fixtures", "langgraph", "js-a.sqlite"), src);
  const db = new Database(src);
  for (const t of ["checkpoints", "writes"])
    db.prepare(`UPDATE ${t} SET thread_id = 'bad' || char(0) || 'id' WHERE thread_id = 'a-hitl-1'`).run();
  // one checkpoint's metadata gains a string holding U+0000 (JSON's \u0000 escape, as LangGraph JS writes it)
  const row = db
    .prepare(
      "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = 'a-chat-2' ORDER BY checkpoint_id LIMIT 1",
    )
    .get() as { checkpoint_id: string; metadata: Buffer };
  const meta = JSON.parse(row.metadata.toString("utf8")) as Record<string, unknown>;
  meta.note = "a\u0000b";
  db.prepare("UPDATE checkpoints SET metadata = ? WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?").run(
    Buffer.from(JSON.stringify(meta)),
    row.checkpoint_id,
  );
  db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("#27 item 13: LangGraph SQLite → PostgreSQL with what PostgreSQL cannot hold", () => {
  it("a thread id holding NUL is rejected and named (exit 5); every other thread is written; the altered metadata is named", async () => {
    const schema = pgs.schema("nul");
    const target = `${PG}?schema=${schema}`;
    const rejects = join(dir, "rejects.ndjson");
    const r = await runCli(
      ["migrate", "--from", `sqlite:${src}`, "--to", target, "--reject-file", rejects, "--journal", join(dir, "j")],
      { cwd: dir },
    );
    expect(r.code, r.err).toBe(5);
    // a-hitl-1 had 3 checkpoints: each rejected, named by its thread (escaped) and id
    expect(r.out).toMatch(/rejected: #?bad\\x00id@[0-9a-f-]+: .*NUL/);
    const rejected = readFileSync(rejects, "utf8").trim().split("\n");
    expect(rejected).toHaveLength(3);
    expect(r.out).toMatch(/altered: a-chat-2@[0-9a-f-]+: metadata: U\+0000 removed from 1 string/);
    const { query } = pgs;
    const n = (await query(`SELECT count(*)::int AS n FROM ${schema}.checkpoints`)).rows[0].n as number;
    expect(n).toBe(60 - 3);
    const threads = (await query(`SELECT DISTINCT thread_id FROM ${schema}.checkpoints ORDER BY 1`)).rows.map(
      (x) => x.thread_id as string,
    );
    expect(threads).not.toContain("a-hitl-1");
    expect(threads).toHaveLength(7);
  }, 60_000);
});
