/**
 * An SQLite database a writer left mid-transaction when it was killed has a hot rollback journal beside it: only a
 * writing connection may roll it back. Reading commands must say so and leave both files alone; a command that writes
 * into the store (migrate --to) settles it as any SQLite writer does on open, and then works.
 * (Found by migrate.test.ts's kill loop: a kill during the target's switch to WAL made --resume fail with
 * "not a readable SQLite database: attempt to write a readonly database".)
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const dir = mkdtempSync(join(tmpdir(), "ckpt-hot-journal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

/**
 * A writer (a child process, rollback-journal mode, a 10-page cache so the transaction spills into the file) inserts
 * into `table` inside one transaction and is SIGKILLed before it commits.
 */
async function killWriterMidTransaction(file: string, table: string, columns: string): Promise<void> {
  const code = `
    const Database = require(${JSON.stringify(require.resolve("better-sqlite3"))});
    const db = new Database(${JSON.stringify(file)});
    db.pragma("journal_mode = DELETE");
    db.pragma("cache_size = 10");
    db.exec("CREATE TABLE IF NOT EXISTS ${table} (${columns})");
    db.exec("BEGIN");
    const ins = db.prepare("INSERT INTO ${table} VALUES (${columns
      .split(",")
      .map(() => "?")
      .join(",")})");
    for (let i = 0; i < 5000; i++) ins.run(${columns
      .split(",")
      .map((_, j) => `"v${j}-" + i + "-" + "x".repeat(400)`)
      .join(",")});
    process.stdout.write("ready\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.on("exit", (c) => reject(new Error(`writer exited ${c} before it was killed`)));
  });
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGKILL");
  await exited;
  expect(existsSync(file + "-journal"), "the killed writer left a hot journal").toBe(true);
}

describe("an SQLite store a crashed writer left with a hot journal", () => {
  it("ckpt's own store: ls and show exit 4 saying what happened; neither file changes", async () => {
    const file = join(dir, "own.db");
    const m = await runCli([
      "migrate",
      "--from",
      "file:fixtures/savers/deepagent-filesaver",
      "--to",
      `sqlite:${file}`,
      "--journal",
      join(dir, "j1"),
      "-q",
    ]);
    expect(m.code, m.err).toBe(0);
    new Database(file).pragma("journal_mode = DELETE"); // a hot journal needs rollback-journal mode
    await killWriterMidTransaction(file, "scratch", "a, b");
    const before = [sha(file), sha(file + "-journal")];
    for (const argv of [
      ["ls", `sqlite:${file}`],
      ["show", `sqlite:${file}#user:42/session#1`],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(4);
      expect(r.err).toContain(`sqlite:${file}`);
      expect(r.err).toMatch(/crashed .*hot journal.*read-only open cannot/);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
      expect([sha(file), sha(file + "-journal")]).toEqual(before);
    }
  });

  it("a LangGraph store: ls and log exit 4 the same way; nothing changes", async () => {
    const file = join(dir, "lg.sqlite");
    copyFileSync("fixtures/langgraph/python-a.sqlite", file);
    new Database(file).pragma("journal_mode = DELETE");
    await killWriterMidTransaction(file, "writes_scratch", "a, b, c");
    const before = [sha(file), sha(file + "-journal")];
    for (const argv of [
      ["ls", `sqlite:${file}`],
      ["log", `sqlite:${file}#a-chat-1`],
      ["stats", `sqlite:${file}`],
    ]) {
      const r = await runCli(argv);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(4);
      expect(r.err).toMatch(/crashed .*hot journal/);
      expect([sha(file), sha(file + "-journal")]).toEqual(before);
    }
  });

  it("migrate --to it rolls the dead transaction back and writes: every sample thread is there, the killed rows are not", async () => {
    const file = join(dir, "target.db");
    await killWriterMidTransaction(file, "scratch", "a");
    const m = await runCli([
      "migrate",
      "--from",
      "file:fixtures/savers/deepagent-filesaver",
      "--to",
      `sqlite:${file}`,
      "--journal",
      join(dir, "j2"),
      "-q",
    ]);
    expect(m.code, m.err).toBe(0);
    expect(existsSync(file + "-journal")).toBe(false);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM scratch").pluck().get()).toBe(0); // the killed transaction never committed
      const stored = db.prepare("SELECT thread_id FROM ckpt_checkpoints ORDER BY thread_id").pluck().all();
      const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
      expect(ls.code, ls.err).toBe(0);
      const threads = (out: string) => (JSON.parse(out) as Array<{ threadId: string }>).map((t) => t.threadId).sort();
      const source = await runCli(["ls", "file:fixtures/savers/deepagent-filesaver", "--json"]);
      expect(threads(ls.out)).toEqual(threads(source.out));
      expect(stored).toEqual(threads(source.out));
    } finally {
      db.close();
    }
  });
});
