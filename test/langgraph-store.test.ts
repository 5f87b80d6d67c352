/**
 * Reading LangGraph stores: the shared samples (Python and JS, SQLite and PostgreSQL dumps restored into a fresh
 * schema) against their README/counts, and stores written here by the REAL LangGraph JS savers against the library's
 * own list()/getTuple(). Store files must be byte-identical after ckpt read them.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { JsonPlusSerializer, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { openLangGraph } from "./helpers/lg-open.js";
import type { LgCheckpointTuple, LgReader } from "../src/formats/langgraph/types.js";
import { writeGraphs } from "./helpers/langgraph-graphs.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");
const PG_BASE = "postgres://postgres@127.0.0.1:5432/test";
const run = `${process.pid}_${Date.now().toString(36)}`;

function io(): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
const copy = (file: string) => {
  const dir = mkdtempSync(join(tmpdir(), "lg-store-"));
  copyFileSync(join(FIX, file), join(dir, file));
  return join(dir, file);
};
async function reader(uri: string): Promise<LgReader> {
  const r = await openLangGraph(uri);
  if (!r) throw new Error(`${uri} was not detected as a LangGraph store`);
  return r;
}
async function cli(...argv: string[]) {
  const t = io();
  const code = await main(argv, t);
  return { code, out: t.out(), err: t.err() };
}

async function pgClient() {
  const c = new pg.Client({ connectionString: PG_BASE });
  try {
    await c.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_BASE} (${(e as Error).message}); start it with: pg_ctlcluster 15 main start`,
    );
  }
  return c;
}

interface Counts {
  threads: number;
  checkpoints: number;
  writes: number;
  namespaces: number;
  pending_interrupts: string[];
  per_thread: Record<string, { checkpoints: number; writes: number; namespaces: number; interrupt_pending: boolean }>;
}

/** ls lists every thread, log every checkpoint (root + subgraph namespaces), scan every write: as the counts say. */
async function checkAgainstCounts(uri: string, counts: Counts) {
  const ls = await cli("ls", uri, "--json");
  expect(ls.err).toBe("");
  expect(ls.code).toBe(0);
  const rows = JSON.parse(ls.out) as Array<{
    threadId: string;
    checkpoints: number;
    subgraphCheckpoints: number;
    namespaces: number;
  }>;
  expect(rows.map((r) => r.threadId).sort()).toEqual(Object.keys(counts.per_thread).sort());
  const r = await reader(uri);
  try {
    let logged = 0;
    for (const row of rows as Array<
      (typeof rows)[number] & { newestId: string; newestStep: number | null; messages: number | null; library: string }
    >) {
      const want = counts.per_thread[row.threadId]!;
      // the summary (SQL fast path for JSON rows, JS decode for msgpack) agrees with the fully decoded newest checkpoint
      const newest = await r.getTuple(row.threadId);
      expect(row.newestId).toBe(newest!.checkpointId);
      expect(row.newestStep).toBe(newest!.metadata.step);
      expect(row.messages).toBe((newest!.checkpoint.channel_values.messages as unknown[] | undefined)?.length ?? null);
      expect(row.library).toBe(uri.includes("python") ? "python" : "js");
      expect(row.checkpoints + row.subgraphCheckpoints, row.threadId).toBe(want.checkpoints);
      expect(row.namespaces, row.threadId).toBe(want.namespaces);
      const log = await cli("log", `${uri}#${row.threadId}`, "--json");
      expect(log.code, log.err).toBe(0);
      const entries = JSON.parse(log.out) as Array<{ checkpointId: string }>;
      expect(entries.length).toBe(row.checkpoints);
      logged += entries.length;
      // subgraph namespaces: log each of them too
      const nss = new Set<string>();
      for await (const t of r.list({ threadId: row.threadId })) if (t.namespace) nss.add(t.namespace);
      for (const ns of nss) {
        const l = await cli("log", `${uri}#${row.threadId}`, "--namespace", ns, "--json");
        logged += (JSON.parse(l.out) as unknown[]).length;
      }
      const head = await r.getTuple(row.threadId);
      expect(
        head!.pendingWrites.some((w) => w.channel === "__interrupt__"),
        row.threadId,
      ).toBe(want.interrupt_pending);
    }
    expect(logged).toBe(counts.checkpoints);
    let writes = 0;
    let checkpoints = 0;
    for await (const batch of r.scan({ batchSize: 7 })) {
      checkpoints += batch.length;
      for (const t of batch) {
        writes += t.pendingWrites.length;
        expect(t.issues, `${t.threadId} ${t.checkpointId}`).toEqual([]);
        expect(t.checkpoint.id).toBe(t.checkpointId);
      }
    }
    expect(checkpoints).toBe(counts.checkpoints);
    expect(writes).toBe(counts.writes);
  } finally {
    await r.close();
  }
}

describe("LangGraph SQLite samples", () => {
  for (const name of ["python-a", "js-a"]) {
    it(`${name}.sqlite: ls, log and scan match counts/${name}.sqlite.json; the file is unchanged`, async () => {
      const file = copy(`${name}.sqlite`);
      const before = sha(file);
      await checkAgainstCounts(
        `sqlite:${file}`,
        JSON.parse(readFileSync(join(FIX, "counts", `${name}.sqlite.json`), "utf8")),
      );
      expect(sha(file)).toBe(before);
      expect(readdirSync(join(file, ".."))).toEqual([`${name}.sqlite`]); // no -wal/-shm left behind
    });
  }

  // the sample is a WAL database: a read-only open makes -wal/-shm files beside it, which the reader must remove again
  it("every command that only reads python-a.sqlite leaves the file and its folder as they were (prune --dry-run and migrate --from too)", async () => {
    const file = copy("python-a.sqlite");
    const before = sha(file);
    const out = mkdtempSync(join(tmpdir(), "lg-store-out-"));
    const uri = `sqlite:${file}`;
    const runs: string[][] = [
      ["ls", uri],
      ["log", `${uri}#a-chat-1`],
      ["show", `${uri}#a-chat-1@~1`],
      ["validate", uri],
      ["stats", uri],
      ["diff", `${uri}#a-chat-1@~2`, `${uri}#a-chat-1`],
      ["convert", `${uri}#a-chat-1`, "-t", "deepagent", "--allow-lossy", "-o", join(out, "a.json")],
      ["prune", uri, "--keep-last", "1", "--dry-run"],
      ["migrate", "--from", uri, "--to", `sqlite:${join(out, "copy.sqlite")}`, "--journal", join(out, "j"), "-q"],
    ];
    for (const argv of runs) {
      const r = await cli(...argv);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBeLessThanOrEqual(1); // diff: 1 = different
      expect(readdirSync(join(file, "..")), argv.join(" ")).toEqual(["python-a.sqlite"]);
      expect(sha(file), argv.join(" ")).toBe(before);
    }
    rmSync(out, { recursive: true, force: true });
    rmSync(join(file, ".."), { recursive: true, force: true });
  });

  // from-repo/README.md: threads / checkpoints / writes
  const fromRepo: Array<[string, number, number, number]> = [
    ["python-v1-persistence.sqlite", 1, 5, 6],
    ["python-v4-human-in-the-loop.sqlite", 1, 20, 24],
    ["python-v4-chat.sqlite", 2, 21, 21],
  ];
  for (const [file, threads, checkpoints, writes] of fromRepo) {
    it(`${file} (bare path): ${threads} thread(s), ${checkpoints} checkpoints in log, ${writes} writes`, async () => {
      const path = copy(file);
      const before = sha(path);
      const ls = await cli("ls", path, "--json");
      expect(ls.code, ls.err).toBe(0);
      const rows = JSON.parse(ls.out) as Array<{ threadId: string; checkpoints: number }>;
      expect(rows.length).toBe(threads);
      let n = 0;
      for (const row of rows)
        n += (JSON.parse((await cli("log", `${path}#${row.threadId}`, "--json")).out) as unknown[]).length;
      expect(n).toBe(checkpoints);
      const r = await reader(path);
      let w = 0;
      for await (const b of r.scan()) for (const t of b) (w += t.pendingWrites.length), expect(t.issues).toEqual([]);
      await r.close();
      expect(w).toBe(writes);
      expect(sha(path)).toBe(before);
    });
  }

  it("python-v4-chat: thread ids and per-thread checkpoints from LANGGRAPH.md §8.1 (chatbot_conversation 12, test_conversation 9)", async () => {
    const ls = await cli("ls", `sqlite:${copy("python-v4-chat.sqlite")}`, "--json");
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; checkpoints: number; library: string }>;
    expect(rows.map((r) => [r.threadId, r.checkpoints, r.library])).toEqual([
      ["chatbot_conversation", 12, "python"],
      ["test_conversation", 9, "python"],
    ]);
  });

  it("addresses: @latest, @~N along the parent chain, unique id prefixes, errors for ambiguous/missing", async () => {
    const path = copy("js-a.sqlite");
    const r = await reader(`sqlite:${path}`);
    const ids: Array<{ checkpointId: string; parentId: string | null }> = [];
    for await (const x of r.checkpointIds("a-forked-1")) ids.push(x);
    await r.close();
    const { parseAddress, loadAddress } = await import("../src/savers/address.js");
    const { openSaver } = await import("../src/savers/index.js");
    const saver = await openSaver(`sqlite:${path}`);
    const at = async (sel: string) =>
      JSON.parse((await loadAddress(saver, parseAddress(`sqlite:${path}#a-forked-1${sel}`), "x")).text)
        .checkpointId as string;
    expect(await at("")).toBe(ids[0]!.checkpointId);
    expect(await at("@latest")).toBe(ids[0]!.checkpointId);
    expect(await at("@~1")).toBe(ids[0]!.parentId);
    const byId = new Map(ids.map((x) => [x.checkpointId, x.parentId]));
    expect(await at("@~2")).toBe(byId.get(ids[0]!.parentId!));
    const target = ids[5]!.checkpointId;
    // the shortest prefix unique among this thread's ids, worked out here
    let len = 1;
    while (ids.filter((x) => x.checkpointId.startsWith(target.slice(0, len))).length > 1) len++;
    expect(await at(`@${target.slice(0, len)}`)).toBe(target);
    await expect(at(`@${target.slice(0, len - 1)}`)).rejects.toThrow(/matches \d+ checkpoints/);
    await expect(at("@~99")).rejects.toThrow(/before the first/);
    await expect(at("@abcdef")).rejects.toThrow(/no checkpoint whose id starts with 'abcdef'/);
    await saver.close();
  });

  it("damaged rows (truncated JSON and msgpack, a garbage write, a deleted parent) become issues, never exceptions", async () => {
    const Database = (await import("better-sqlite3")).default;
    const js = copy("js-a.sqlite");
    const py = copy("python-a.sqlite");
    const r0 = await reader(`sqlite:${js}`);
    const victim = (await r0.getTuple("a-chat-1"))!;
    await r0.close();
    const db = new Database(js);
    db.prepare("UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 40) WHERE checkpoint_id = ?").run(
      victim.checkpointId,
    );
    db.prepare("DELETE FROM checkpoints WHERE checkpoint_id = ?").run(victim.parentId);
    db.close();
    const pdb = new Database(py);
    const pyHead = pdb
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-2' ORDER BY checkpoint_id DESC LIMIT 1")
      .pluck()
      .get() as string;
    pdb.prepare("UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 30) WHERE checkpoint_id = ?").run(pyHead);
    pdb
      .prepare(
        "UPDATE writes SET value = X'C1C1C1' WHERE rowid = (SELECT min(rowid) FROM writes WHERE type = 'msgpack')",
      )
      .run();
    pdb.close();
    for (const f of [js, py]) {
      const ls = await cli("ls", f, "--json");
      expect(ls.code, ls.err).toBe(0);
      for (const row of JSON.parse(ls.out) as Array<{ threadId: string }>) {
        const log = await cli("log", `${f}#${row.threadId}`, "--json");
        expect(log.code, log.err).toBe(0);
      }
    }
    const r = await reader(`sqlite:${js}`);
    const t = (await r.getTuple("a-chat-1", "", victim.checkpointId))!;
    expect(t.issues.map((i) => [i.reason, i.pointer, i.fatal])).toEqual([["json", "/checkpoint", true]]);
    expect(t.parentId).toBe(victim.parentId); // the row still names its (now missing) parent
    expect(await r.getTuple("a-chat-1", "", victim.parentId!)).toBeUndefined();
    await r.close();
    const rp = await reader(`sqlite:${py}`);
    const reasons: string[] = [];
    for await (const b of rp.scan())
      for (const x of b)
        for (const i of x.issues)
          reasons.push(`${x.checkpointId === pyHead ? "head" : "other"}:${i.pointer.split("/")[1]}:${i.reason}`);
    await rp.close();
    expect(reasons.sort()).toEqual(["head:checkpoint:msgpack", "other:pendingWrites:msgpack"].sort());
  });

  it("a missing path is an input error and nothing is created; ?layout=langgraph on ckpt's own empty path too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-missing-"));
    const a = await cli("log", `sqlite:${join(dir, "nope.sqlite")}?layout=langgraph#t`);
    expect(a.code).toBe(3);
    expect(a.err).toMatch(/no such SQLite database/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

async function restoreDump(c: pg.Client, file: string, schema: string) {
  const sql = readFileSync(join(FIX, file), "utf8").replace(/__SCHEMA__/g, schema);
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG_BASE], {
    input: sql,
    stdio: ["pipe", "ignore", "pipe"],
  });
  void c;
}

async function tableDigest(c: pg.Client, schema: string): Promise<string> {
  const h = createHash("sha256");
  for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"]) {
    const rows = await c.query(`SELECT t::text AS r FROM "${schema}".${t} t ORDER BY 1`);
    for (const r of rows.rows) h.update(r.r + "\n");
  }
  return h.digest("hex");
}

describe("LangGraph PostgreSQL samples (dumps restored into fresh schemas)", () => {
  let c: pg.Client;
  const schemas: string[] = [];
  beforeAll(async () => {
    c = await pgClient();
  });
  afterAll(async () => {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await c.end();
  });
  for (const name of ["python-a", "js-a"]) {
    it(`${name}.pg.sql: ls, log and scan match counts/${name}.pg.json; tables unchanged`, async () => {
      const schema = `lgread_${name.replace("-", "_")}_${run}`;
      schemas.push(schema);
      await restoreDump(c, `${name}.pg.sql`, schema);
      const before = await tableDigest(c, schema);
      const counts = JSON.parse(readFileSync(join(FIX, "counts", `${name}.pg.json`), "utf8"));
      await checkAgainstCounts(`${PG_BASE}?schema=${schema}`, counts);
      const r = await reader(`${PG_BASE}?schema=${schema}`);
      expect(r.info.migration).toBe(name === "js-a" ? 4 : 9);
      expect(r.info.taskPath).toBe(name !== "js-a");
      // Python keeps primitives inline, JS never: a-counter-1's total comes from the JSONB vs a blob
      const counter = await r.getTuple("a-counter-1");
      const total = counter!.channelSources!.find((s) => s.channel === "total")!;
      expect(total.from).toBe(name === "js-a" ? "blob" : "inline");
      expect(typeof counter!.checkpoint.channel_values.total).toBe("number");
      await r.close();
      expect(await tableDigest(c, schema)).toBe(before);
    });
  }
  it("damaged Postgres rows (a missing blob, non-object channel_versions, a garbage write) are read without exceptions", async () => {
    const schema = `lgread_damaged_${run}`;
    schemas.push(schema);
    await restoreDump(c, "js-a.pg.sql", schema);
    const uri = `${PG_BASE}?schema=${schema}`;
    const r0 = await reader(uri);
    const head = (await r0.getTuple("a-chat-1"))!;
    await r0.close();
    const mv = String(head.checkpoint.channel_versions.messages);
    await c.query(
      `DELETE FROM "${schema}".checkpoint_blobs WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND version = $1`,
      [mv],
    );
    await c.query(
      `UPDATE "${schema}".checkpoints SET checkpoint = jsonb_set(checkpoint, '{channel_versions}', '"oops"') WHERE thread_id = 'a-chat-2' AND checkpoint_id = (SELECT max(checkpoint_id) FROM "${schema}".checkpoints WHERE thread_id = 'a-chat-2')`,
    );
    await c.query(
      `UPDATE "${schema}".checkpoint_writes SET blob = '\\x7b7b' WHERE thread_id = 'a-hitl-1' AND channel = '__interrupt__'`,
    );
    const ls = await cli("ls", uri, "--json");
    expect(ls.code, ls.err).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; messages: number | null }>;
    expect(rows.find((x) => x.threadId === "a-chat-1")!.messages).toBeNull(); // its messages blob is gone
    for (const row of rows) expect((await cli("log", `${uri}#${row.threadId}`, "--json")).code).toBe(0);
    const r = await reader(uri);
    const t = (await r.getTuple("a-chat-1"))!;
    expect(t.channelSources!.find((x) => x.channel === "messages")).toEqual({
      channel: "messages",
      version: head.checkpoint.channel_versions.messages,
      from: "none",
    });
    expect("messages" in t.checkpoint.channel_values).toBe(false);
    const h = (await r.getTuple("a-hitl-1"))!;
    expect(h.issues.map((i) => [i.reason, i.row.table, i.row.channel])).toEqual([
      ["json", "checkpoint_writes", "__interrupt__"],
    ]);
    const c2 = (await r.getTuple("a-chat-2"))!;
    expect(c2.checkpoint.channel_versions).toEqual({});
    expect(c2.issues.map((i) => [i.reason, i.pointer])).toEqual([["shape", "/checkpoint/channel_versions"]]);
    await r.close();
  });

  it("ls counts messages the way the full decode does, and a messages blob PostgreSQL cannot parse as JSON still lists (no count)", async () => {
    const schema = `lgread_lsjson_${run}`;
    schemas.push(schema);
    await restoreDump(c, "js-a.pg.sql", schema);
    const uri = `${PG_BASE}?schema=${schema}`;
    const r0 = await reader(uri);
    const want = new Map<string, number | null>();
    for await (const t of r0.threads()) {
      const head = (await r0.getTuple(t.threadId))!;
      const m = head.checkpoint.channel_values.messages;
      want.set(t.threadId, Array.isArray(m) ? m.length : null);
    }
    const head = (await r0.getTuple("a-chat-1"))!;
    await r0.close();
    expect([...want.values()].filter((n) => typeof n === "number" && n > 0).length).toBeGreaterThan(0);
    const ls1 = await cli("ls", uri, "--json");
    expect(ls1.code, ls1.err).toBe(0);
    expect(
      new Map(
        (JSON.parse(ls1.out) as Array<{ threadId: string; messages: number | null }>).map((x) => [
          x.threadId,
          x.messages,
        ]),
      ),
    ).toEqual(want);
    // the newest messages blob of a-chat-1 becomes text that is not JSON: the page is read again, decoded by ckpt
    await c.query(
      `UPDATE "${schema}".checkpoint_blobs SET blob = convert_to('[{"broken', 'UTF8') WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND version = $1`,
      [String(head.checkpoint.channel_versions.messages)],
    );
    const ls2 = await cli("ls", uri, "--json");
    expect(ls2.code, ls2.err).toBe(0);
    want.set("a-chat-1", null);
    expect(
      new Map(
        (JSON.parse(ls2.out) as Array<{ threadId: string; messages: number | null }>).map((x) => [
          x.threadId,
          x.messages,
        ]),
      ),
    ).toEqual(want);
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** The library's tuple as stored JSON (its own serde), to compare with ckpt's decoded normal form. */
async function asStored(serde: JsonPlusSerializer, v: unknown): Promise<unknown> {
  const [type, bytes] = await serde.dumpsTyped(v);
  expect(type).toBe("json");
  return JSON.parse(new TextDecoder().decode(bytes));
}

async function compareWithLibrary(lib: BaseCheckpointSaver, r: LgReader, expectedThreads: string[]) {
  const serde = new JsonPlusSerializer();
  // ls's per-thread summary (computed in SQL for JSON rows) agrees with the library's newest root checkpoint
  for await (const s of r.threads()) {
    const head = await lib.getTuple({ configurable: { thread_id: s.threadId, checkpoint_ns: "" } });
    expect(s.newestId, s.threadId).toBe(head!.config.configurable!.checkpoint_id);
    expect(s.newestStep, s.threadId).toBe(head!.metadata!.step);
    expect(s.messages, s.threadId).toBe(
      (head!.checkpoint.channel_values.messages as unknown[] | undefined)?.length ?? null,
    );
    expect(s.updatedAt, s.threadId).toBe(head!.checkpoint.ts);
    expect(s.library, s.threadId).toBe("js");
  }
  let n = 0;
  const threads = new Set<string>();
  for await (const lt of lib.list({})) {
    const cfg = lt.config.configurable!;
    const t = (await r.getTuple(cfg.thread_id, cfg.checkpoint_ns ?? "", cfg.checkpoint_id)) as LgCheckpointTuple;
    const where = `${cfg.thread_id} ${cfg.checkpoint_ns} ${cfg.checkpoint_id}`;
    expect(t, where).toBeDefined();
    threads.add(t.threadId);
    expect(t.issues, where).toEqual([]);
    expect(t.parentId ?? undefined, where).toBe(lt.parentConfig?.configurable?.checkpoint_id);
    expect(t.checkpoint.channel_values, where).toEqual(await asStored(serde, lt.checkpoint.channel_values));
    expect(t.checkpoint.channel_versions, where).toEqual(lt.checkpoint.channel_versions);
    expect(t.checkpoint.versions_seen, where).toEqual(lt.checkpoint.versions_seen);
    expect(t.checkpoint.ts, where).toBe(lt.checkpoint.ts);
    expect(t.metadata, where).toEqual(await asStored(serde, lt.metadata));
    const mine = t.pendingWrites.map((w) => [w.taskId, w.channel, w.value]);
    const theirs = await Promise.all(
      (lt.pendingWrites ?? []).map(async ([task, ch, v]) => [task, ch, await asStored(serde, v)]),
    );
    const key = (x: unknown[]) => JSON.stringify(x);
    expect(mine.map(key).sort(), where).toEqual(theirs.map(key).sort());
    expect(t.library, where).toBe("js");
    n++;
  }
  expect([...threads].sort()).toEqual(expectedThreads);
  return n;
}

describe("stores written by the real LangGraph JS savers read the same as the library reads them", () => {
  const threads = ["t-chat", "t-hitl", "t-hitl-done", "t-sub"];
  it("SqliteSaver: every checkpoint (messages, channel values, metadata, pending writes) equals SqliteSaver.list()", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-real-"));
    const file = join(dir, "graph.sqlite");
    const lib = SqliteSaver.fromConnString(file);
    await writeGraphs(lib);
    const r = await reader(`sqlite:${file}`);
    const n = await compareWithLibrary(lib, r, threads);
    expect(n).toBeGreaterThan(15);
    // ls/log agree with the library's own per-thread lists
    for (const th of threads) {
      let lib0 = 0;
      for await (const t of lib.list({ configurable: { thread_id: th, checkpoint_ns: "" } }))
        lib0 += t.config.configurable!.checkpoint_ns === "" ? 1 : 0;
      const log = await cli("log", `sqlite:${file}#${th}`, "--json");
      expect((JSON.parse(log.out) as unknown[]).length, th).toBe(lib0);
    }
    await r.close();
    lib.db.close();
  });

  it("PostgresSaver: every checkpoint equals PostgresSaver.list(); the schema is dropped after", async () => {
    const c = await pgClient();
    const schema = `lgread_real_${run}`;
    const lib = PostgresSaver.fromConnString(PG_BASE, { schema });
    try {
      await lib.setup();
      await writeGraphs(lib);
      const r = await reader(`${PG_BASE}?schema=${schema}`);
      const n = await compareWithLibrary(lib, r, threads);
      expect(n).toBeGreaterThan(15);
      // the interrupted thread's head carries the __interrupt__ write; the library agrees
      const head = await r.getTuple("t-hitl");
      const libHead = await lib.getTuple({ configurable: { thread_id: "t-hitl" } });
      expect(head!.checkpointId).toBe(libHead!.config.configurable!.checkpoint_id);
      expect(head!.pendingWrites.filter((w) => w.channel === "__interrupt__").length).toBe(
        libHead!.pendingWrites!.filter(([, ch]) => ch === "__interrupt__").length,
      );
      await r.close();
    } finally {
      await lib.end();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    }
  });
});
