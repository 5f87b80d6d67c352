/**
 * Creating a store in an SQLite file that another connection is writing: SQLite answers `PRAGMA journal_mode=WAL`
 * on a database in rollback-journal mode with SQLITE_BUSY at once, without waiting as its busy timeout says, while
 * another connection holds a write transaction. ckpt's writers (its own store, LangGraph's and Mastra's tables) must
 * wait for the lock like every other statement, not fail with "database is locked" (exit 4) at once. The other
 * connection is another process holding `BEGIN IMMEDIATE` for 400 ms; the stores written are then read back by the
 * real LangGraph library and by SQL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const FOLDER = join(ROOT, "fixtures/savers/deepagent-filesaver");
const JS_A = join(ROOT, "fixtures/langgraph/js-a.sqlite");
const HOLD_MS = 400;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-wal-lock-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another process creates `file` and holds its write lock for HOLD_MS: resolves once it holds it. */
function holdWriteLock(file: string): Promise<ChildProcess> {
  const sqlite = createRequire(import.meta.url).resolve("better-sqlite3");
  const script = `const D = require(${JSON.stringify(sqlite)}); const db = new D(${JSON.stringify(file)}, { timeout: 0 });
    db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n");
    setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, ${HOLD_MS});`;
  const p = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    p.on("error", reject);
    p.on("exit", (code) => reject(new Error(`the lock holder exited (${code}) before holding the lock`)));
    p.stdout!.once("data", () => resolve(p));
  });
}

const tables = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  } finally {
    db.close();
  }
};

describe("a store created in a file another connection is writing waits for the lock", () => {
  it("ckpt's own SQLite store (migrate into it)", async () => {
    const file = join(dir, "ckpt.db");
    await holdWriteLock(file);
    const r = await runCli(["migrate", "--from", `file:${FOLDER}`, "--to", `sqlite:${file}`, "-q"], {
      env: { XDG_STATE_HOME: join(dir, "state") },
    });
    expect(r.code, r.err).toBe(0);
    expect(tables(file)).toContain("ckpt_checkpoints");
    const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
    expect((JSON.parse(ls.out) as unknown[]).length).toBeGreaterThan(0);
  });

  it("LangGraph's tables (copy a thread into a new file): the real SqliteSaver reads the copy", async () => {
    const file = join(dir, "lg.sqlite");
    await holdWriteLock(file);
    const r = await runCli(["copy", `sqlite:${JS_A}#a-chat-1`, `sqlite:${file}#t`]);
    expect(r.code, r.err).toBe(0);
    const saver = SqliteSaver.fromConnString(file);
    try {
      const original = SqliteSaver.fromConnString(JS_A);
      const want = await original.getTuple({ configurable: { thread_id: "a-chat-1" } });
      original.db.close();
      const got = await saver.getTuple({ configurable: { thread_id: "t" } });
      expect(got?.checkpoint.id).toBe(want?.checkpoint.id);
    } finally {
      saver.db.close();
    }
  });

  it("Mastra's tables (migrate into a new LibSQL file)", async () => {
    const file = join(dir, "mastra.db");
    await holdWriteLock(file);
    const r = await runCli(
      ["migrate", "--from", `file:${FOLDER}`, "--to", `sqlite:${file}?layout=mastra`, "--to-format", "mastra"],
      { env: { XDG_STATE_HOME: join(dir, "state") } },
    );
    expect(r.code, r.err).not.toBe(4);
    expect(r.err).not.toMatch(/locked/);
    expect(tables(file)).toEqual(expect.arrayContaining(["mastra_messages", "mastra_threads"]));
  });
});
