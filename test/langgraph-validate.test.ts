/**
 * `ckpt validate` of LangGraph stores: the shared samples (SQLite, and the PostgreSQL dumps restored into fresh
 * schemas) are valid and unchanged afterwards; copies damaged by hand (truncated msgpack, a write whose checkpoint is
 * gone, a missing parent, a missing Postgres blob, mixed version types, a wrong write idx) give findings with their
 * rule ids, rows and pointers, exit 1, and no stack trace. Expected rows are the ones the test damaged.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { copyFixture, LG_FIXTURES } from "./helpers/langgraph-tuples.js";

const PG_BASE = "postgres://postgres@127.0.0.1:5432/test";
const run = `${process.pid}_${Date.now().toString(36)}`;
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const t: CliIO = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
  } as unknown as CliIO;
  const code = await main(argv, t);
  return { code, out, err };
}
interface Finding {
  severity: string;
  rule: string;
  pointer: string;
  file: string;
  row: {
    table: string;
    threadId: string;
    namespace: string;
    checkpointId?: string;
    taskId?: string;
    idx?: number;
    channel?: string;
    version?: string;
  };
}
async function findings(target: string, ...more: string[]): Promise<{ code: number; issues: Finding[]; err: string }> {
  const r = await cli("validate", target, "--json", ...more);
  expect(r.err).not.toMatch(/\n\s+at /); // never a stack trace
  const report = JSON.parse(r.out);
  return { code: r.code, issues: report.files.flatMap((f: { issues: Finding[] }) => f.issues), err: r.err };
}
const errorsOf = (xs: Finding[]) => xs.filter((i) => i.severity === "error");

function edit(path: string, f: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    f(db);
  } finally {
    db.close();
  }
}

describe("validate LangGraph SQLite stores", () => {
  it.each([
    "js-a.sqlite",
    "python-a.sqlite",
    "python-v1-persistence.sqlite",
    "python-v4-chat.sqlite",
    "python-v4-human-in-the-loop.sqlite",
  ])("%s: exit 0, no errors, the file byte-identical afterwards", async (file) => {
    const path = copyFixture(file);
    const before = sha(path);
    const r = await findings(path);
    expect(errorsOf(r.issues)).toEqual([]);
    expect(r.code).toBe(0);
    expect(sha(path)).toBe(before);
  });

  it("cross-library hazards (asked with --library): a Python store warns that JS cannot load it and about string versions; a JS store about integer versions", async () => {
    const py = await findings(copyFixture("python-a.sqlite"), "--library", "js");
    expect(py.issues.map((i) => i.rule).sort()).toEqual([
      "langgraph/cross-library/js-cannot-load",
      "langgraph/cross-library/string-versions",
    ]);
    expect(py.issues.find((i) => i.rule.endsWith("js-cannot-load"))!.severity).toBe("warning");
    const js = await findings(copyFixture("js-a.sqlite"), "--library", "python");
    expect(js.issues.map((i) => i.rule)).toEqual(["langgraph/cross-library/integer-versions"]);
    // --strict turns the warnings into a failure
    expect((await cli("validate", copyFixture("js-a.sqlite"), "--strict", "--library", "python")).code).toBe(1);
  });

  it("truncated msgpack: the checkpoint row is named with the pointer of the value that did not decode", async () => {
    const path = copyFixture("python-a.sqlite");
    let id = "";
    edit(path, (db) => {
      id = db
        .prepare(
          "SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-2' ORDER BY checkpoint_id DESC LIMIT 1",
        )
        .pluck()
        .get() as string;
      db.prepare(
        "UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, length(checkpoint) / 2) WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?",
      ).run(id);
    });
    const r = await findings(path);
    expect(r.code).toBe(1);
    const e = errorsOf(r.issues).find((i) => i.rule === "langgraph/undecodable")!;
    expect(e).toBeDefined();
    expect(e.row).toMatchObject({ table: "checkpoints", threadId: "a-chat-2", namespace: "", checkpointId: id });
    expect(e.pointer).toBe("/checkpoint");
    expect(e.file).toContain(`#a-chat-2@${id}`);
  });

  it("a write whose checkpoint is gone: an orphan-write warning at each write row, exit 0 (LangGraph JS loads the store as if it were not there)", async () => {
    const path = copyFixture("js-a.sqlite");
    let id = "";
    let n = 0;
    edit(path, (db) => {
      id = db
        .prepare(
          "SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-hitl-1' ORDER BY checkpoint_id DESC LIMIT 1",
        )
        .pluck()
        .get() as string;
      n = db
        .prepare("SELECT count(*) FROM writes WHERE thread_id = 'a-hitl-1' AND checkpoint_id = ?")
        .pluck()
        .get(id) as number;
      db.prepare("DELETE FROM checkpoints WHERE thread_id = 'a-hitl-1' AND checkpoint_id = ?").run(id);
    });
    expect(n).toBeGreaterThan(0);
    // the library's own reader: the thread loads, its newest checkpoint is the one before the deleted one
    const saver = SqliteSaver.fromConnString(path);
    const listed: string[] = [];
    for await (const t of saver.list({ configurable: { thread_id: "a-hitl-1" } }))
      listed.push(t.config.configurable!.checkpoint_id as string);
    const head = await saver.getTuple({ configurable: { thread_id: "a-hitl-1" } });
    saver.db.close();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).not.toContain(id);
    expect(head!.config.configurable!.checkpoint_id).toBe(listed[0]);
    const r = await findings(path);
    expect(errorsOf(r.issues)).toEqual([]);
    expect(r.code).toBe(0);
    const orphans = r.issues.filter((i) => i.rule === "langgraph/orphan-write");
    expect(orphans).toHaveLength(n);
    for (const o of orphans) {
      expect(o.severity).toBe("warning");
      expect(o.row).toMatchObject({ table: "writes", threadId: "a-hitl-1", checkpointId: id });
    }
    // --strict makes the warnings fail, as every warning
    expect((await cli("validate", path, "--strict")).code).toBe(1);
  });

  it("a missing parent: the child names it; one thread or one checkpoint can be validated alone", async () => {
    const path = copyFixture("js-a.sqlite");
    const ids = new Database(path, { readonly: true })
      .prepare(
        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-2' AND checkpoint_ns = '' ORDER BY checkpoint_id",
      )
      .pluck()
      .all() as string[];
    edit(path, (db) => {
      db.prepare("DELETE FROM writes WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?").run(ids[2]);
      db.prepare("DELETE FROM checkpoints WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?").run(ids[2]);
    });
    const whole = await findings(path);
    expect(whole.code).toBe(1);
    const e = errorsOf(whole.issues);
    expect(e.map((i) => [i.rule, i.row.checkpointId, i.pointer])).toEqual([
      ["langgraph/missing-parent", ids[3], "/parentId"],
    ]);
    // the thread alone: the same finding; another thread: clean
    expect(errorsOf((await findings(`sqlite:${path}#a-chat-2`)).issues)).toHaveLength(1);
    expect((await findings(`sqlite:${path}#a-chat-1`)).code).toBe(0);
    // one checkpoint, by an id prefix: the child fails, its own child passes
    expect((await findings(`sqlite:${path}#a-chat-2@${ids[3]!.slice(0, 13)}`)).code).toBe(1);
    expect((await findings(`sqlite:${path}#a-chat-2@${ids[4]}`)).code).toBe(0);
  });

  it("mixed version types and a special write at the wrong idx", async () => {
    const path = copyFixture("js-a.sqlite");
    let id = "";
    edit(path, (db) => {
      const row = db
        .prepare(
          "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'a-counter-1' ORDER BY checkpoint_id DESC LIMIT 1",
        )
        .get() as { checkpoint_id: string; checkpoint: Buffer };
      id = row.checkpoint_id;
      const cp = JSON.parse(row.checkpoint.toString());
      cp.channel_versions.total = "00000000000000000000000000000007.0.5";
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'a-counter-1' AND checkpoint_id = ?").run(
        Buffer.from(JSON.stringify(cp)),
        id,
      );
      db.prepare("UPDATE writes SET idx = 0 WHERE thread_id = 'a-hitl-1' AND channel = '__interrupt__'").run();
    });
    const r = await findings(path);
    expect(r.code).toBe(1);
    const mixed = errorsOf(r.issues).filter((i) => i.rule === "langgraph/mixed-version-types");
    expect(mixed.map((i) => [i.row.threadId, i.row.checkpointId, i.pointer])).toContainEqual([
      "a-counter-1",
      id,
      "/checkpoint/channel_versions/total",
    ]);
    const idx = errorsOf(r.issues).filter((i) => i.rule === "langgraph/write-idx");
    expect(idx).toHaveLength(1);
    expect(idx[0]!.row).toMatchObject({ table: "writes", threadId: "a-hitl-1", channel: "__interrupt__", idx: 0 });
  });

  it("a message record the schema rejects: the pointer inside the decoded checkpoint", async () => {
    const path = copyFixture("js-a.sqlite");
    let id = "";
    edit(path, (db) => {
      const row = db
        .prepare(
          "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'a-chat-1' ORDER BY checkpoint_id DESC LIMIT 1",
        )
        .get() as { checkpoint_id: string; checkpoint: Buffer };
      id = row.checkpoint_id;
      const cp = JSON.parse(row.checkpoint.toString());
      cp.channel_values.messages[1].kwargs.tool_calls[0].args = "not an object";
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?").run(
        Buffer.from(JSON.stringify(cp)),
        id,
      );
    });
    const r = await findings(path);
    const e = errorsOf(r.issues).filter((i) => i.rule.startsWith("schema/"));
    expect(e.map((i) => [i.row.checkpointId, i.pointer])).toContainEqual([
      id,
      "/checkpoint/channel_values/messages/1/kwargs/tool_calls/0/args",
    ]);
  });

  it("a bad message repeated in every checkpoint of a thread is reported at each of them; one changed only in the middle checkpoint, there alone", async () => {
    const path = copyFixture("js-a.sqlite");
    const ids: string[] = [];
    edit(path, (db) => {
      const rows = db
        .prepare(
          "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'a-chat-1' ORDER BY checkpoint_id",
        )
        .all() as Array<{ checkpoint_id: string; checkpoint: Buffer }>;
      for (const row of rows) {
        const cp = JSON.parse(row.checkpoint.toString());
        const msgs = cp.channel_values.messages;
        if (!Array.isArray(msgs) || msgs.length < 2) continue;
        ids.push(row.checkpoint_id);
        msgs[0].kwargs.content = 42; // every checkpoint: the same bad first message
        db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?").run(
          Buffer.from(JSON.stringify(cp)),
          row.checkpoint_id,
        );
      }
      expect(ids.length).toBeGreaterThanOrEqual(3);
      const mid = ids[Math.floor(ids.length / 2)]!;
      const row = db
        .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?")
        .get(mid) as { checkpoint: Buffer };
      const cp = JSON.parse(row.checkpoint.toString());
      cp.channel_values.messages[1].kwargs.response_metadata = "not an object"; // only here
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?").run(
        Buffer.from(JSON.stringify(cp)),
        mid,
      );
    });
    const r = await findings(path);
    const e = errorsOf(r.issues).filter((i) => i.rule.startsWith("schema/"));
    const at = (ptr: string) => e.filter((i) => i.pointer.startsWith(ptr)).map((i) => i.row.checkpointId);
    expect(new Set(at("/checkpoint/channel_values/messages/0/kwargs/content"))).toEqual(new Set(ids));
    expect(new Set(at("/checkpoint/channel_values/messages/1/"))).toEqual(new Set([ids[Math.floor(ids.length / 2)]]));
  });

  it.each([
    ["written bad and held bad", true],
    ["written fine, held bad", false],
  ])(
    "a step's new message %s: reported at the write when it is bad there, and at the checkpoint that holds it",
    async (_name, badWrite) => {
      const path = copyFixture("js-a.sqlite");
      const parent = "1f1e71a0-4249-6bb0-8005-e141cfdd3d39";
      const child = "1f1e71a0-4267-6070-8006-8c9d880be06f";
      let at = -1;
      let idx = -1;
      edit(path, (db) => {
        const writes = db
          .prepare(
            "SELECT task_id, idx, channel, value FROM writes WHERE thread_id = 'a-chat-1' AND checkpoint_id = ? ORDER BY task_id, idx",
          )
          .all(parent) as Array<{ task_id: string; idx: number; channel: string; value: Buffer }>;
        idx = writes.findIndex((w) => w.channel === "messages");
        const w = writes[idx]!;
        const written = JSON.parse(w.value.toString());
        const row = db
          .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?")
          .get(child) as { checkpoint: Buffer };
        const cp = JSON.parse(row.checkpoint.toString());
        at = cp.channel_values.messages.findIndex((m: unknown) => JSON.stringify(m) === JSON.stringify(written[0]));
        expect(at).toBeGreaterThan(0); // the child holds the message its parent's write wrote
        cp.channel_values.messages[at].kwargs.content = 42;
        db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?").run(
          Buffer.from(JSON.stringify(cp)),
          child,
        );
        if (badWrite) {
          written[0].kwargs.content = 42;
          db.prepare(
            "UPDATE writes SET value = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ? AND task_id = ? AND idx = ?",
          ).run(Buffer.from(JSON.stringify(written)), parent, w.task_id, w.idx);
        }
      });
      const e = errorsOf((await findings(path)).issues).filter((i) => i.rule.startsWith("schema/"));
      const held = e
        .filter((i) => i.pointer.startsWith(`/checkpoint/channel_values/messages/${at}/kwargs/content`))
        .map((i) => i.row.checkpointId);
      expect(held).toContain(child);
      const atWrite = e.filter((i) => i.pointer.startsWith(`/pendingWrites/${idx}/value/0/kwargs/content`));
      expect(atWrite.map((i) => [i.row.checkpointId, i.row.table])).toEqual(
        badWrite ? atWrite.map(() => [parent, "writes"]) : [],
      );
      if (badWrite) expect(atWrite.length).toBeGreaterThan(0);
    },
  );

  it("a missing store is an input error (exit 3), never created", async () => {
    const r = await cli("validate", "sqlite:/nonexistent-dir-ckpt/nope.sqlite?layout=langgraph");
    expect(r.code).toBe(3);
    expect(r.out + r.err).toMatch(/no such SQLite database/);
  });

  it("a store that fails (PostgreSQL refusing the connection, a file that is not a database) is a store error: exit 4", async () => {
    const refused = await cli("validate", "postgres://postgres@127.0.0.1:1/test?schema=lg_none");
    expect(refused.err).not.toMatch(/\n\s+at /);
    expect(refused.code).toBe(4);
    expect(refused.out + refused.err).toMatch(/127\.0\.0\.1:1/);
    const path = copyFixture("js-a.sqlite");
    const bytes = readFileSync(path);
    bytes.fill(0x5a, 0, 100); // the SQLite header
    writeFileSync(path, bytes);
    const garbage = await cli("validate", `sqlite:${path}?layout=langgraph`);
    expect(garbage.code).toBe(4);
    expect(garbage.out + garbage.err).toMatch(/not a (readable SQLite )?database/);
  });
});

describe("validate LangGraph PostgreSQL stores (dumps restored into fresh schemas)", () => {
  let c: pg.Client;
  const schemas: string[] = [];
  beforeAll(async () => {
    c = new pg.Client({ connectionString: PG_BASE });
    try {
      await c.connect();
    } catch (e) {
      throw new Error(
        `PostgreSQL is not reachable at ${PG_BASE} (${(e as Error).message}); start it with: pg_ctlcluster 15 main start`,
      );
    }
  });
  afterAll(async () => {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await c.end();
  });
  const restore = (file: string, schema: string) => {
    schemas.push(schema);
    const sql = readFileSync(join(LG_FIXTURES, file), "utf8").replace(/__SCHEMA__/g, schema);
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG_BASE], {
      input: sql,
      stdio: ["pipe", "ignore", "pipe"],
    });
  };

  it("the Python and JS dumps validate with exit 0; Python's inline values warn that JS would drop them", async () => {
    for (const name of ["js-a", "python-a"]) {
      const schema = `lgval_${name.replace("-", "_")}_${run}`;
      restore(`${name}.pg.sql`, schema);
      const r = await findings(`${PG_BASE}?schema=${schema}`);
      expect(errorsOf(r.issues)).toEqual([]);
      expect(r.code).toBe(0);
      // a healthy store of one library: no cross-library finding unless the other library is asked about
      expect(r.issues.filter((i) => i.rule.includes("cross-library"))).toEqual([]);
      if (name === "python-a")
        expect((await findings(`${PG_BASE}?schema=${schema}`, "--library", "js")).issues.map((i) => i.rule)).toContain(
          "langgraph/cross-library/js-drops-inline",
        );
    }
  });

  it("a missing blob row of a JS store: missing-blob at the (channel, version) row", async () => {
    const schema = `lgval_blob_${run}`;
    restore("js-a.pg.sql", schema);
    const row = (
      await c.query(
        `SELECT thread_id, channel, version FROM "${schema}".checkpoint_blobs WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND type = 'json' ORDER BY version::int DESC LIMIT 1`,
      )
    ).rows[0];
    await c.query(`DELETE FROM "${schema}".checkpoint_blobs WHERE thread_id = $1 AND channel = $2 AND version = $3`, [
      row.thread_id,
      row.channel,
      row.version,
    ]);
    const r = await findings(`${PG_BASE}?schema=${schema}`);
    expect(r.code).toBe(1);
    const e = errorsOf(r.issues).filter((i) => i.rule === "langgraph/missing-blob");
    expect(e.length).toBeGreaterThan(0);
    for (const i of e)
      expect(i.row).toMatchObject({
        table: "checkpoint_blobs",
        threadId: "a-chat-1",
        channel: "messages",
        version: row.version,
      });
    expect(e[0]!.pointer).toBe("/checkpoint/channel_versions/messages");
  });

  it("messages blobs decoded from where they extend the previous one: an earlier message changed in one blob and a truncated blob are reported there alone; the scan reads what getTuple reads", async () => {
    const schema = `lgval_inc_${run}`;
    restore("js-a.pg.sql", schema);
    const S = `"${schema}"`;
    const blobs = (
      await c.query(
        `SELECT version, blob FROM ${S}.checkpoint_blobs WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND type = 'json' ORDER BY version::int`,
      )
    ).rows as Array<{ version: string; blob: Buffer }>;
    expect(blobs.length).toBeGreaterThanOrEqual(5);
    // the real library's blobs mostly extend each other (what the fast path is for; a ToolMessage's undefined
    // artifact record is dropped once the message has been read back, so not always)
    const extending = blobs.filter(
      (b, k) => k > 0 && b.blob.subarray(0, blobs[k - 1]!.blob.length - 1).equals(blobs[k - 1]!.blob.subarray(0, -1)),
    );
    expect(extending.length).toBeGreaterThanOrEqual(blobs.length / 2);
    const mid = extending[Math.floor(extending.length / 2)]!;
    const last = blobs[blobs.length - 2]!;
    expect(last).not.toBe(mid);
    // an earlier message changed in this blob only, its length kept (the blob still looks like the previous one + more)
    const at0 = mid.blob.indexOf('"langchain_core"');
    const edited = Buffer.concat([
      mid.blob.subarray(0, at0),
      Buffer.from('"langchain_xore"'),
      mid.blob.subarray(at0 + 16),
    ]);
    await c.query(
      `UPDATE ${S}.checkpoint_blobs SET blob = $1 WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND version = $2`,
      [edited, mid.version],
    );
    await c.query(
      `UPDATE ${S}.checkpoint_blobs SET blob = substring(blob from 1 for octet_length(blob) - 7) WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND version = $1`,
      [last.version],
    );
    // bytes that are not UTF-8 in another thread's blob: the server refuses that page's text, which is read as bytes
    const other = (
      await c.query(
        `SELECT thread_id, version, blob FROM ${S}.checkpoint_blobs WHERE thread_id <> 'a-chat-1' AND channel = 'messages' AND type = 'json' ORDER BY thread_id, version::int LIMIT 1`,
      )
    ).rows[0] as { thread_id: string; version: string; blob: Buffer };
    const q1 = other.blob.indexOf('"', 20);
    await c.query(
      `UPDATE ${S}.checkpoint_blobs SET blob = $1 WHERE thread_id = $2 AND channel = 'messages' AND version = $3`,
      [
        Buffer.concat([other.blob.subarray(0, q1 + 1), Buffer.from([0xff]), other.blob.subarray(q1 + 1)]),
        other.thread_id,
        other.version,
      ],
    );
    const at = async (version: string) =>
      new Set(
        (
          await c.query(
            `SELECT checkpoint_id FROM ${S}.checkpoints WHERE thread_id = 'a-chat-1' AND checkpoint->'channel_versions'->>'messages' = $1`,
            [version],
          )
        ).rows.map((r) => r.checkpoint_id as string),
      );
    const r = await findings(`${PG_BASE}?schema=${schema}`);
    expect(r.code).toBe(1);
    const e = errorsOf(r.issues);
    expect(
      new Set(
        e
          .filter((i) => i.pointer.startsWith("/checkpoint/channel_values/messages/0/id"))
          .map((i) => i.row.checkpointId),
      ),
    ).toEqual(await at(mid.version));
    const undecodable = e.filter((i) => i.rule === "langgraph/undecodable");
    expect(new Set(undecodable.filter((x) => x.row.threadId === "a-chat-1").map((i) => i.row.checkpointId))).toEqual(
      await at(last.version),
    );
    for (const i of undecodable.filter((x) => x.row.threadId === "a-chat-1"))
      expect(i.row).toMatchObject({ table: "checkpoint_blobs", channel: "messages", version: last.version });
    const notUtf8 = undecodable.filter((x) => x.row.threadId === other.thread_id);
    expect(notUtf8.length).toBeGreaterThan(0);
    for (const i of notUtf8)
      expect(i.row).toMatchObject({ table: "checkpoint_blobs", channel: "messages", version: other.version });
    // every scanned tuple is the one getTuple (decoded on its own) gives; unchanged messages are shared along the scan
    const { openLangGraph } = await import("./helpers/lg-open.js");
    const reader = (await openLangGraph(`${PG_BASE}?schema=${schema}`))!;
    try {
      let n = 0;
      let shared = 0;
      let prev: unknown[] = [];
      for await (const batch of reader.scan({ batchSize: 3 })) {
        for (const t of batch) {
          const alone = await reader.getTuple(t.threadId, t.namespace, t.checkpointId);
          expect(t).toEqual(alone);
          const m = t.checkpoint.channel_values.messages;
          if (Array.isArray(m)) {
            shared += m.filter((x, k) => x === prev[k]).length;
            prev = m;
          }
          n++;
        }
      }
      expect(n).toBe(Number((await c.query(`SELECT count(*) FROM ${S}.checkpoints`)).rows[0].count));
      expect(shared).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });

  it("orphan writes and orphan blobs are reported completely, past 10,000 rows (streamed in pages)", async () => {
    const schema = `lgval_orph_${run}`;
    restore("js-a.pg.sql", schema);
    const S = `"${schema}"`;
    // 10,050 writes of a checkpoint that does not exist, over two threads; 10,020 blobs no checkpoint references
    await c.query(`INSERT INTO ${S}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
                   SELECT 'zz-orphan-' || (i % 2), '', 'no-such-checkpoint', 'task-' || lpad(i::text, 6, '0'), 0, 'messages', 'json', '[]'::bytea FROM generate_series(1, 10050) i`);
    await c.query(`INSERT INTO ${S}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
                   SELECT 'a-chat-1', '', 'orphan-channel', i::text, 'json', '1'::bytea FROM generate_series(1, 10020) i`);
    const { openLangGraph } = await import("./helpers/lg-open.js");
    // read plainly, then with their first pages fetched on the second connection while a scan runs (as validate does)
    for (const scanFirst of [false, true]) {
      const reader = (await openLangGraph(`${PG_BASE}?schema=${schema}`))!;
      try {
        if (scanFirst) for await (const batch of reader.scan({})) expect(batch.length).toBeGreaterThan(0);
        const writes: string[] = [];
        for await (const w of reader.orphanWrites()) writes.push(`${w.threadId}/${w.taskId}`);
        expect(writes).toHaveLength(10050);
        expect(new Set(writes).size).toBe(10050);
        const blobs: string[] = [];
        for await (const b of reader.orphanBlobs()) blobs.push(`${b.channel}/${b.version}`);
        expect(blobs).toHaveLength(10020);
        expect(new Set(blobs).size).toBe(10020);
        expect(blobs.every((b) => b.startsWith("orphan-channel/"))).toBe(true);
        // listed again: complete again (the early pages are used once)
        let again = 0;
        for await (const _w of reader.orphanWrites()) again++;
        expect(again).toBe(10050);
      } finally {
        await reader.close();
      }
    }
  });
});
