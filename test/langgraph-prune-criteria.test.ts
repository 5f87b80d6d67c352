/**
 * `ckpt prune` criteria on small hand-built LangGraph stores (SQLite and PostgreSQL) whose checkpoint times are
 * known: `--idle-for` deletes whole idle threads, `--older-than` keeps the newest of each namespace, a checkpoint
 * dated after the prune started is never deleted nor counted, DeltaChannel ancestors back to a snapshot stay, thread
 * filters, orphan writes (only those dated before the start), PostgreSQL blobs no remaining checkpoint names.
 * Expected sets are written out by hand from the store below, not computed by ckpt. Also: the uuid6 time reader
 * against a BigInt reference, and `--dry-run` listings streamed a thread at a time with small pages.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { uuid6Time } from "../src/core/prune.js";
import { openLangGraph } from "./helpers/lg-open.js";

const pgdb = pgTestSchemas("lgpc");
const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const DAY = 86400e3;
const EPOCH = 12219292800000n;

/** A uuid6 id for a time (LANGGRAPH.md §2.3): 60 bits of 100 ns since 1582-10-15, version 6. */
function uuid6(ms: number): string {
  const h = ((BigInt(Math.floor(ms)) + EPOCH) * 10000n + BigInt(randomBytes(2).readUInt16BE() % 10000))
    .toString(16)
    .padStart(15, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-6${h.slice(12, 15)}-8${randomBytes(2).toString("hex").slice(1)}-${randomBytes(6).toString("hex")}`;
}

interface Cp {
  thread: string;
  ns: string;
  name: string;
  ageDays: number;
  parent?: string;
  delta?: number;
  writes: number;
}

/** The store: names stand for ids; ages are days before now (negative: after the prune starts). */
const CPS: Cp[] = [
  // idle for 37+ days
  ...[40, 39, 38, 37].map(
    (a, i): Cp => ({
      thread: "t-old",
      ns: "",
      name: `old${i}`,
      ageDays: a,
      parent: i ? `old${i - 1}` : undefined,
      writes: 1,
    }),
  ),
  // live, with one checkpoint dated a day after the prune starts
  ...[20, 15, 5, 1, -1].map(
    (a, i): Cp => ({
      thread: "t-live",
      ns: "",
      name: `live${i}`,
      ageDays: a,
      parent: i ? `live${i - 1}` : undefined,
      writes: 2,
    }),
  ),
  // a subgraph namespace of t-live: 2 checkpoints
  { thread: "t-live", ns: "sub:1", name: "sub0", ageDays: 19, writes: 0 },
  { thread: "t-live", ns: "sub:1", name: "sub1", ageDays: 18, parent: "sub0", writes: 1 },
  // DeltaChannel: d1 is a snapshot (0 pending), d2 and d3 have updates since one
  { thread: "t-delta", ns: "", name: "d0", ageDays: 9, delta: 1, writes: 0 },
  { thread: "t-delta", ns: "", name: "d1", ageDays: 8, parent: "d0", delta: 0, writes: 0 },
  { thread: "t-delta", ns: "", name: "d2", ageDays: 7, parent: "d1", delta: 2, writes: 1 },
  { thread: "t-delta", ns: "", name: "d3", ageDays: 6, parent: "d2", delta: 3, writes: 0 },
];

function build() {
  const now = Date.now();
  const ids = new Map(CPS.map((c) => [c.name, uuid6(now - c.ageDays * DAY)]));
  const name = new Map([...ids].map(([n, id]) => [id, n]));
  const rows = CPS.map((c) => ({
    ...c,
    id: ids.get(c.name)!,
    parentId: c.parent ? ids.get(c.parent)! : null,
    meta: { step: 0, ...(c.delta === undefined ? {} : { counters_since_delta_snapshot: { messages: c.delta } }) },
  }));
  // orphan writes of t-live: one dated before the prune (goes), one after it started (stays)
  const orphans = [
    { id: uuid6(now - 30 * DAY), task: "orphan-old" },
    { id: uuid6(now + 2 * DAY), task: "orphan-new" },
  ];
  return { rows, name, orphans };
}

function sqliteStore(): { file: string; name: Map<string, string> } {
  const { rows, name, orphans } = build();
  const file = join(mkdtempSync(join(tmpdir(), "lgpc-")), "s.sqlite");
  const db = new Database(file);
  db.exec(`CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
    CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));`);
  const ic = db.prepare("INSERT INTO checkpoints VALUES (?, ?, ?, ?, 'json', ?, ?)");
  const iw = db.prepare("INSERT INTO writes VALUES (?, ?, ?, ?, ?, 'messages', 'json', ?)");
  for (const r of rows) {
    ic.run(r.thread, r.ns, r.id, r.parentId, Buffer.alloc(100), Buffer.from(JSON.stringify(r.meta)));
    for (let i = 0; i < r.writes; i++) iw.run(r.thread, r.ns, r.id, "task", i, Buffer.alloc(10));
  }
  for (const o of orphans) iw.run("t-live", "", o.id, o.task, 0, Buffer.alloc(10));
  db.close();
  return { file, name };
}

/** What is left: `thread/ns/name` of every checkpoint, and the task ids of writes with no checkpoint. */
function leftSqlite(file: string, name: Map<string, string>) {
  const db = new Database(file, { readonly: true });
  try {
    const cps = (
      db.prepare("SELECT thread_id t, checkpoint_ns ns, checkpoint_id id FROM checkpoints").all() as Array<{
        t: string;
        ns: string;
        id: string;
      }>
    )
      .map((r) => `${r.t}/${r.ns}/${name.get(r.id)}`)
      .sort();
    const orphans = (
      db
        .prepare(
          "SELECT task_id FROM writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE (c.thread_id, c.checkpoint_ns, c.checkpoint_id) = (w.thread_id, w.checkpoint_ns, w.checkpoint_id))",
        )
        .pluck()
        .all() as string[]
    ).sort();
    const writes = db.prepare("SELECT count(*) FROM writes").pluck().get() as number;
    return { cps, orphans, writes };
  } finally {
    db.close();
  }
}

const ALL = CPS.map((c) => `${c.thread}/${c.ns}/${c.name}`).sort();
const without = (...names: string[]) => ALL.filter((k) => !names.includes(k.split("/")[2]!));

describe("uuid6 times", () => {
  it("match a BigInt reading of the 60-bit timestamp, for ids across the whole range", () => {
    for (let i = 0; i < 2000; i++) {
      const h = randomBytes(8).toString("hex").slice(0, 15);
      const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-6${h.slice(12, 15)}-8000-000000000000`;
      expect(uuid6Time(id), id).toBe(Number(BigInt(`0x${h}`) / 10000n) - 12219292800000);
      expect(uuid6Time(id.toUpperCase())).toBe(uuid6Time(id));
    }
    expect(uuid6Time("1f1e719f-9f93-12e3-bfff-c32aec814047")).toBeUndefined(); // version 1
    expect(uuid6Time("cp-1")).toBeUndefined();
  });
});

describe("prune criteria on SQLite", () => {
  it("--keep-last 1: newest of each namespace, the future checkpoint not counted, delta ancestors back to a snapshot, old orphan writes", async () => {
    const { file, name } = sqliteStore();
    const r = await ckpt("prune", `sqlite:${file}`, "--keep-last", "1", "--json", "--batch-size", "2");
    expect(r.code, r.err).toBe(0);
    const left = leftSqlite(file, name);
    // t-old keeps old3; t-live keeps live3 (newest before the start) and live4 (after it); sub:1 keeps sub1;
    // t-delta keeps d3, which needs d2 (3 pending), which needs d1 (2 pending); d1 is a snapshot, so d0 goes
    expect(left.cps).toEqual(without("old0", "old1", "old2", "live0", "live1", "live2", "sub0", "d0"));
    expect(left.orphans).toEqual(["orphan-new"]);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ dryRun: false, threads: 3, checkpoints: 8, writes: 3 + 6, orphanWrites: 1, kept: 7 });
    expect(s.bytes).toBe(
      8 * 100 +
        CPS.filter((c) => ["old0", "old1", "old2", "live0", "live1", "live2", "sub0", "d0"].includes(c.name)).reduce(
          (n, c) => n + c.writes * 10,
          0,
        ) +
        10 +
        CPS.filter((c) => ["old0", "old1", "old2", "live0", "live1", "live2", "sub0", "d0"].includes(c.name)).reduce(
          (n, c) =>
            n +
            JSON.stringify({
              step: 0,
              ...(c.delta === undefined ? {} : { counters_since_delta_snapshot: { messages: c.delta } }),
            }).length,
          0,
        ),
    );
    expect(s.plans).toBeUndefined();
  });

  it("--idle-for 30d deletes only the idle thread, whole; --dry-run --json lists it and changes nothing", async () => {
    const { file, name } = sqliteStore();
    const hash = () => createHash("sha256").update(readFileSync(file)).digest("hex");
    const h0 = hash();
    const dry = await ckpt("prune", `sqlite:${file}`, "--idle-for", "30d", "--dry-run", "--json", "--batch-size", "1");
    expect(dry.code, dry.err).toBe(0);
    expect(hash()).toBe(h0);
    const d = JSON.parse(dry.out);
    expect(
      d.plans.map((p: { threadId: string; whole: boolean; checkpoints: Array<{ id: string }> }) => [
        p.threadId,
        p.whole,
        p.checkpoints.map((c) => name.get(c.id)),
      ]),
    ).toEqual([["t-old", true, ["old0", "old1", "old2", "old3"]]]);
    expect(d).toMatchObject({ dryRun: true, threads: 3, wholeThreads: 1, checkpoints: 4, writes: 4 });
    const r = await ckpt("prune", `sqlite:${file}`, "--idle-for", "30d");
    expect(r.code, r.err).toBe(0);
    // SQLite looks for orphan writes in every thread of a page (t-live has an old one), PostgreSQL in touched ones
    expect(r.out).toContain(
      "deleted 4 checkpoints (1 whole thread), 4 writes, 1 orphan write, 0 blobs; kept 11 checkpoints",
    );
    expect(leftSqlite(file, name).cps).toEqual(without("old0", "old1", "old2", "old3"));
  });

  it("--older-than 10d with --thread: the newest of each namespace stays, other threads untouched; text dry run lists each thread", async () => {
    const { file, name } = sqliteStore();
    const dry = await ckpt(
      "prune",
      `sqlite:${file}`,
      "--older-than",
      "10d",
      "--thread",
      "t-live",
      "--thread",
      "t-delta",
      "--dry-run",
      "--batch-size",
      "1",
    );
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out.split("\n").slice(0, 2)).toEqual([
      `dry run: prune sqlite:${file}`,
      "  would delete t-live: 2 checkpoints, 1 checkpoint in sub:1",
    ]);
    const r = await ckpt("prune", `sqlite:${file}`, "--older-than", "10d", "--thread", "t-live", "--thread", "t-delta");
    expect(r.code, r.err).toBe(0);
    // t-live: live0 (20d) and live1 (15d) go, live2 (5d) stays; sub:1: sub1 is its newest, sub0 (19d) goes
    expect(leftSqlite(file, name).cps).toEqual(without("live0", "live1", "sub0"));
  });

  it("--match alone deletes the matching threads whole, except a checkpoint dated after the start", async () => {
    const { file, name } = sqliteStore();
    const r = await ckpt("prune", `sqlite:${file}`, "--match", "t-l*", "--json");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ threads: 1, wholeThreads: 0, checkpoints: 6, kept: 1 });
    const left = leftSqlite(file, name);
    expect(left.cps).toEqual(ALL.filter((k) => !k.startsWith("t-live/") || k.endsWith("/live4")));
    expect(left.orphans).toEqual(["orphan-new"]);
  });
});

/** The store below in PostgreSQL schema `s`: every checkpoint names its own `messages` blob and a `shared` one. */
async function fillPg(s: string) {
  const store = (await openLangGraph(`${PG}?schema=${s}`, { write: true }))!;
  try {
    await store.setup("js");
  } finally {
    await store.close();
  }
  const { rows, name, orphans } = build();
  for (const r of rows) {
    await pgdb.query(
      `INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) VALUES ($1, $2, $3, $4, $5, $6)`,
      [r.thread, r.ns, r.id, r.parentId, { v: 1, channel_versions: { messages: `v-${r.name}`, shared: "1" } }, r.meta],
    );
    await pgdb.query(
      `INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ($1, $2, 'messages', $3, 'json', $4)`,
      [r.thread, r.ns, `v-${r.name}`, Buffer.alloc(10)],
    );
    for (let i = 0; i < r.writes; i++)
      await pgdb.query(
        `INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES ($1, $2, $3, 'task', $4, 'messages', 'json', $5)`,
        [r.thread, r.ns, r.id, i, Buffer.alloc(10)],
      );
  }
  for (const t of ["t-old", "t-live", "t-delta"])
    await pgdb.query(
      `INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ($1, '', 'shared', '1', 'json', $2)`,
      [t, Buffer.alloc(5)],
    );
  for (const o of orphans)
    await pgdb.query(
      `INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES ('t-live', '', $1, $2, 0, 'messages', 'json', $3)`,
      [o.id, o.task, Buffer.alloc(10)],
    );
  return name;
}

/** --keep-last 1 of the store above: these checkpoints go, and with them the `messages` blob each names */
const GONE = ["old0", "old1", "old2", "live0", "live1", "live2", "sub0", "d0"];
const blobOf = (k: string) => `${k.split("/")[0]}/v-${k.split("/")[2]}`;
const KEPT_BLOBS = [
  ...ALL.filter((k) => !GONE.includes(k.split("/")[2]!)).map(blobOf),
  "t-delta/1",
  "t-live/1",
  "t-old/1",
].sort();
const GONE_BLOBS = ALL.filter((k) => GONE.includes(k.split("/")[2]!)).map(blobOf);

const blobsIn = async (s: string) =>
  (await pgdb.query(`SELECT thread_id || '/' || version v FROM ${s}.checkpoint_blobs`)).rows.map((x) => x.v).sort();

describe("prune criteria on PostgreSQL", () => {
  // A blob no remaining checkpoint names goes only when its row is older than every transaction open on the server
  // when the prune started (a writer may be about to name a newer one); any session of the server holding one (another
  // test file, psql) keeps them, and the prune counts them as blobsKept. So: deleted + kept = the 8 blobs of the
  // deleted checkpoints, whatever else runs on the server.
  it("--keep-last 1: the same sets as in SQLite; blobs named by a kept checkpoint stay, the rest go (or are counted as kept)", async () => {
    const s = pgdb.schema("keep1");
    const name = await fillPg(s);
    const dry = await ckpt(
      "prune",
      `${PG}?schema=${s}`,
      "--keep-last",
      "1",
      "--dry-run",
      "--json",
      "--batch-size",
      "2",
    );
    expect(dry.code, dry.err).toBe(0);
    const d = JSON.parse(dry.out);
    expect(d).toMatchObject({ dryRun: true, checkpoints: 8, writes: 9, orphanWrites: 1 });
    expect(d.blobs + d.blobsKept).toBe(8);
    const r = await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--json", "--batch-size", "2");
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ threads: 3, checkpoints: 8, writes: 9, orphanWrites: 1, kept: 7 });
    expect(j.blobs + j.blobsKept).toBe(8);
    if (j.blobsKept) expect(j.notes.join("\n")).toContain(`kept ${j.blobsKept} orphan blob`);
    else expect(j.notes).toBeUndefined();
    const cps = (await pgdb.query(`SELECT thread_id t, checkpoint_ns ns, checkpoint_id id FROM ${s}.checkpoints`)).rows
      .map((x) => `${x.t}/${x.ns}/${name.get(x.id)}`)
      .sort();
    expect(cps).toEqual(without(...GONE));
    const blobs = await blobsIn(s);
    const left = blobs.filter((b) => !KEPT_BLOBS.includes(b));
    expect(blobs.filter((b) => KEPT_BLOBS.includes(b))).toEqual(KEPT_BLOBS);
    expect(left.length, "the blobs left beyond the expected set are the ones reported kept").toBe(j.blobsKept);
    expect(left.every((b) => GONE_BLOBS.includes(b))).toBe(true);
    const orphanTasks = (
      await pgdb.query(
        `SELECT task_id FROM ${s}.checkpoint_writes w WHERE NOT EXISTS (SELECT 1 FROM ${s}.checkpoints c WHERE (c.thread_id, c.checkpoint_ns, c.checkpoint_id) = (w.thread_id, w.checkpoint_ns, w.checkpoint_id))`,
      )
    ).rows.map((x) => x.task_id);
    expect(orphanTasks).toEqual(["orphan-new"]);
  });

  it("a transaction open on another connection since before the blobs were written: all 8 kept, counted and explained (dry run and real run alike); a prune after it ends removes them", async () => {
    const s = pgdb.schema("held");
    const held = new pg.Client({ connectionString: PG });
    await held.connect();
    let open = true;
    try {
      await held.query("BEGIN");
      const xid = (await held.query("SELECT txid_current()::text AS x")).rows[0].x as string;
      const pid = (await held.query("SELECT pg_backend_pid() AS p")).rows[0].p as number;
      await fillPg(s);
      // the held transaction is the oldest open one unless another session's is older (then the note names that one)
      const oldest = (await pgdb.query("SELECT txid_snapshot_xmin(txid_current_snapshot())::text AS x")).rows[0].x;
      const who = oldest === xid ? `pid ${pid} in database test, open since ` : "pid ";
      const runs = [
        await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--dry-run", "--json"),
        await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--json"),
      ];
      for (const [i, r] of runs.entries()) {
        expect(r.code, r.err).toBe(0);
        const j = JSON.parse(r.out);
        expect(j).toMatchObject({ checkpoints: 8, blobs: 0, blobsKept: 8 });
        expect(j.notes).toEqual([
          expect.stringContaining(
            `${i === 0 ? "would keep" : "kept"} 8 orphan blobs (no remaining checkpoint names them): a transaction older than this run was still open (${who}`,
          ),
        ]);
        expect(j.notes[0]).toContain(
          "a prune looks for orphan blobs only in threads it deletes checkpoints of, so these go when a prune started after that deletes more checkpoints of their 3 threads ('t-delta', 't-live', 't-old')",
        );
        expect(j.blobsKeptThreads).toEqual(["t-delta", "t-live", "t-old"]);
      }
      expect((await blobsIn(s)).length).toBe(KEPT_BLOBS.length + 8);
      const text = await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--dry-run");
      expect(text.out).toContain("would delete 0 checkpoints");
      await held.query("COMMIT");
      open = false;
      // as the note says: a rerun that deletes no checkpoint of those threads does not look at their blobs
      const again = JSON.parse((await ckpt("prune", `${PG}?schema=${s}`, "--keep-last", "1", "--json")).out);
      expect(again).toMatchObject({ checkpoints: 0, blobs: 0, blobsKept: 0 });
      expect((await blobsIn(s)).length).toBe(KEPT_BLOBS.length + 8);
    } finally {
      if (open) await held.query("ROLLBACK").catch(() => undefined);
      await held.end();
    }
  });
});
