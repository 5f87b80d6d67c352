/**
 * #42 item 6: a PostgreSQL connection lost mid-command is a store error (exit 4) with its message — never a stack
 * ("Unhandled 'error' event … Connection terminated unexpectedly") and exit 1. Where the command has a journal
 * (migrate) and the run had committed records, the message says --resume finishes it. ckpt's own sessions are found by their application_name
 * (PGAPPNAME) and terminated with pg_terminate_backend while one of them waits for a table lock the test holds (so
 * the moment is certain: the statement is in flight, its client checked out of the pool): migrate into a LangGraph
 * store (its first write), delete (its DELETE), prune --vacuum (its VACUUM), migrate into ckpt's own store (after
 * 300 records were committed: the --resume hint), into a Mastra and a Chat SDK store (their writes). ckpt copy's own case is in copy-faults.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { fillSqliteRows, type Row } from "./helpers/ai-chatbot-db.js";
import { runCli } from "./helpers/cli-io.js";
import { writeLongThread } from "./helpers/lg-long-thread.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "ckpt.js");
const app = `ckpt-conn-loss-${randomBytes(4).toString("hex")}`;
const pgs = pgTestSchemas("conn_loss");
let dir: string;
let src: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-conn-loss-"));
  src = join(dir, "src.sqlite");
  await writeLongThread(src, "long", 3000);
  await writeLongThread(src, "short", 20);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Run `ckpt <args>` and take `lock` (`LOCK TABLE … IN <mode>`) in a transaction of the test's own: before ckpt starts,
 * or once `ready` says so (the lock then waits for ckpt's batch in flight). Once one of ckpt's
 * sessions waits for that lock running a statement `like` matches, every ckpt session is terminated and the lock let
 * go. What ckpt printed and exited with.
 */
async function cutWhileWaiting(
  args: string[],
  lock: string,
  like: string,
  ready?: () => Promise<boolean>,
): Promise<{ code: number | null; out: string; err: string }> {
  const holder = new pg.Client({ connectionString: PG });
  await holder.connect();
  await holder.query("BEGIN");
  const take = () => holder.query(`LOCK TABLE ${lock}`);
  if (!ready) await take();
  const p = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", PGAPPNAME: app, XDG_STATE_HOME: join(dir, "state") },
  });
  let out = "";
  let err = "";
  p.stdout.on("data", (d: Buffer) => (out += d));
  p.stderr.on("data", (d: Buffer) => (err += d));
  const done = new Promise<number | null>((r) => p.on("close", (code) => r(code)));
  let cut = false;
  try {
    let locked = !ready;
    for (const end = Date.now() + 60_000; Date.now() < end && p.exitCode === null; await sleep(5)) {
      if (!locked) {
        if (await ready!()) await take(), (locked = true);
        continue;
      }
      const w = await pgs.query(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND query ILIKE $2",
        [app, like],
      );
      if (w.rowCount) {
        await pgs.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [app]);
        cut = true;
        break;
      }
    }
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
  }
  const code = await done;
  expect(cut, `ckpt never waited on the lock running ${like} (exit ${code}): ${err}\n${out}`).toBe(true);
  return { code, out, err };
}

/** The target table holds at least `n` rows (committed by ckpt's batches so far). */
const holds = (table: string, n: number) => async () =>
  ((await pgs.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number) >= n;

/** A folder of `n` deep-agent documents (threads `<prefix>-<i>`). */
function docsFolder(name: string, n: number, prefix = "t"): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  const doc = JSON.parse(
    readFileSync(join(ROOT, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
  );
  for (let i = 0; i < n; i++)
    writeFileSync(join(folder, `${prefix}-${i}.json`), JSON.stringify({ ...doc, threadId: `${prefix}-${i}` }));
  return folder;
}

function expectStoreError(r: { code: number | null; err: string }): void {
  expect(r.code, r.err).toBe(4);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.err).not.toContain("Unhandled");
  expect(r.err).toMatch(/terminat|Connection/i);
}

describe("#42 item 6: connection loss on the PostgreSQL paths is exit 4 without a stack", () => {
  it("migrate into a LangGraph store, during its first write: exit 4; the rerun writes it all", async () => {
    const schema = pgs.schema("migrate");
    const to = `${PG}?schema=${schema}`;
    // the target exists (its tables set up by a first run) so that the test can lock its table
    const first = await runCli(["migrate", "--from", `sqlite:${src}`, "--to", to, "--thread", "short"], { cwd: dir });
    expect(first.code, first.err).toBe(0);
    const args = ["migrate", "--from", `sqlite:${src}`, "--to", to, "--thread", "long"];
    const r = await cutWhileWaiting(
      [...args, "--journal", join(dir, "m.journal")],
      `${schema}.checkpoints IN SHARE MODE`,
      "%",
    );
    expectStoreError(r);
    const again = await runCli([...args, "--journal", join(dir, "m.journal")], { cwd: dir });
    expect(again.code, again.err).toBe(0);
    const n = await pgs.query(`SELECT count(*)::int AS n FROM ${schema}.checkpoints WHERE thread_id = 'long'`);
    expect(n.rows[0].n).toBe(3000);
  }, 120_000);

  it("delete, during its DELETE: exit 4, the thread left whole", async () => {
    const schema = pgs.schema("delete");
    const to = `${PG}?schema=${schema}`;
    expect((await runCli(["copy", `sqlite:${src}#long`, `${to}#t`], { cwd: dir })).code).toBe(0);
    const r = await cutWhileWaiting(
      ["delete", `${to}#t`, "--yes"],
      `${schema}.checkpoints IN SHARE MODE`,
      "%DELETE FROM%checkpoints%",
    );
    expectStoreError(r);
    const n = await pgs.query(`SELECT count(*)::int AS n FROM ${schema}.checkpoints WHERE thread_id = 't'`);
    expect(n.rows[0].n).toBe(3000);
  }, 120_000);

  it("prune --vacuum, during its VACUUM: exit 4", async () => {
    const schema = pgs.schema("vacuum");
    const to = `${PG}?schema=${schema}`;
    expect((await runCli(["copy", `sqlite:${src}#long`, `${to}#t`], { cwd: dir })).code).toBe(0);
    const r = await cutWhileWaiting(
      ["prune", to, "--keep-last", "5", "--vacuum"],
      `${schema}.checkpoints IN SHARE UPDATE EXCLUSIVE MODE`,
      "VACUUM%",
    );
    expectStoreError(r);
  }, 120_000);

  it("migrate into ckpt's own PostgreSQL store, during its write: exit 4, the journal's --resume hint", async () => {
    const schema = pgs.schema("own");
    const to = `${PG}?schema=${schema}`;
    const folder = join(dir, "docs");
    mkdirSync(folder);
    const doc = JSON.parse(
      readFileSync(join(ROOT, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
    );
    for (let i = 0; i < 2000; i++)
      writeFileSync(join(folder, `t-${i}.json`), JSON.stringify({ ...doc, threadId: `t-${i}` }));
    // the table exists (a first run, of another folder) so that the test can lock it
    const one = join(dir, "one");
    mkdirSync(one);
    writeFileSync(join(one, "x.json"), JSON.stringify({ ...doc, threadId: "x" }));
    const first = await runCli(["migrate", "--from", one, "--to", `${to}&namespace=first`], { cwd: dir });
    expect(first.code, first.err).toBe(0);
    const r = await cutWhileWaiting(
      ["migrate", "--from", folder, "--to", to, "--journal", join(dir, "own.journal"), "--batch-size", "50"],
      `${schema}.ckpt_checkpoints IN SHARE MODE`,
      "%",
      holds(`${schema}.ckpt_checkpoints`, 300),
    );
    expectStoreError(r);
    expect(r.err).toContain("--resume");
  }, 120_000);

  it("migrate into a Mastra PostgreSQL store, during its write: exit 4", async () => {
    const schema = pgs.schema("mastra");
    const to = `${PG}?schema=${schema}&layout=mastra`;
    const docs = docsFolder("mastra-docs", 300);
    const one = docsFolder("mastra-one", 1, "first");
    // the tables exist (a first run, of another folder) so that the test can lock one
    const first = await runCli(["migrate", "--from", one, "--to", to, "--allow-lossy"], { cwd: dir });
    expect(first.code, first.err).toBe(0);
    const r = await cutWhileWaiting(
      ["migrate", "--from", docs, "--to", to, "--allow-lossy"],
      `${schema}.mastra_messages IN SHARE MODE`,
      "%",
    );
    expectStoreError(r);
  }, 120_000);

  it("migrate into a Chat SDK PostgreSQL store, during its write: exit 4", async () => {
    const schema = pgs.schema("chatsdk");
    const to = `${PG}?schema=${schema}&layout=ai-chatbot`;
    const chats = (n: number, file: string) => {
      const user = randomUUID();
      const rows: Row[] = [["User", { id: user, email: "a@example.com", password: null }]];
      for (let i = 0; i < n; i++) {
        const chat = randomUUID();
        rows.push([
          "Chat",
          { id: chat, createdAt: "2026-01-01T00:00:00.000Z", userId: user, title: `c${i}`, visibility: "private" },
        ]);
        rows.push([
          "Message_v2",
          {
            id: randomUUID(),
            chatId: chat,
            role: "user",
            parts: [{ type: "text", text: `hello ${i}` }],
            attachments: [],
            createdAt: "2026-01-01T00:00:01.000Z",
          },
        ]);
      }
      fillSqliteRows(join(dir, file), rows);
      return `sqlite:${join(dir, file)}?layout=ai-chatbot`;
    };
    const first = await runCli(["migrate", "--from", chats(1, "chat-one.db"), "--to", to], { cwd: dir });
    expect(first.code, first.err).toBe(0);
    const r = await cutWhileWaiting(
      ["migrate", "--from", chats(200, "chat-many.db"), "--to", to],
      `${schema}."Message_v2" IN SHARE MODE`,
      "%",
    );
    expectStoreError(r);
  }, 120_000);
});
