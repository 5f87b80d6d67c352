/**
 * The v<4 pending-sends migration the savers apply on read (LANGGRAPH.md §1.3): a checkpoint older than v4 with a
 * parent gets the parent's `__pregel_tasks` writes as `channel_values.__pregel_tasks`, and that channel the highest
 * version. Checked against the real LangGraph JS savers reading the same rows (SqliteSaver: always, also with no
 * sends; PostgresSaver: when the parent has sends). Rows are written by hand in the JS serde, as a JS app before
 * v4 (2025-07) left them.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLangGraph } from "./helpers/lg-open.js";
import { closeSaver, pgSaver, sqliteSaver } from "./helpers/lg-js.js";

const PG_BASE = "postgres://postgres@127.0.0.1:5432/test";
const run = `${process.pid}_${Date.now().toString(36)}`;

// a v1 thread: input checkpoint (no parent), a loop checkpoint whose task sent two Sends, and the next checkpoint
const ids = [
  "1f000000-0000-6000-ffff-000000000001",
  "1f000000-0000-6001-8000-000000000002",
  "1f000000-0000-6002-8001-000000000003",
];
const SENDS = [
  { node: "worker", args: { item: "a", n: 1 } },
  { node: "worker", args: { item: "b", n: 2 } },
];
const cp = (k: number, versions: Record<string, number>, values: Record<string, unknown>) => ({
  v: 1,
  id: ids[k],
  ts: `2025-06-01T00:00:0${k}.000Z`,
  channel_values: values,
  channel_versions: versions,
  versions_seen: { __input__: {} },
  pending_sends: [],
});
const rows = [
  {
    id: ids[0],
    parent: null,
    cp: cp(0, { __start__: 1 }, { __start__: { topic: "x" } }),
    md: { source: "input", step: -1, parents: {} },
  },
  {
    id: ids[1],
    parent: ids[0],
    cp: cp(1, { __start__: 2, topic: 2 }, { topic: "x" }),
    md: { source: "loop", step: 0, parents: {} },
  },
  {
    id: ids[2],
    parent: ids[1],
    cp: cp(2, { __start__: 2, topic: 2, results: 3 }, { topic: "x", results: ["a", "b"] }),
    md: { source: "loop", step: 1, parents: {} },
  },
];
// the sends are writes of checkpoint 1 (task t1, idx 0 and 1, in reverse insert order: the savers order them)
const writes = [
  { id: ids[1], task: "t1", idx: 1, channel: "__pregel_tasks", value: SENDS[1] },
  { id: ids[1], task: "t1", idx: 0, channel: "__pregel_tasks", value: SENDS[0] },
  { id: ids[1], task: "t1", idx: 2, channel: "topic", value: "x" },
];

async function ours(uri: string, thread: string, id: string) {
  const r = (await openLangGraph(uri))!;
  try {
    const t = (await r.getTuple(thread, "", id))!;
    const scanned: (typeof t)[] = [];
    for await (const b of r.scan({ threadId: thread })) scanned.push(...b.filter((x) => x.checkpointId === id));
    return { t, scanned: scanned[0]! };
  } finally {
    await r.close();
  }
}

describe("v<4 pending sends, as the JS SqliteSaver reads them", () => {
  it("the child of the checkpoint that sent gets its sends (in task, idx order) and the highest version; the one after gets [] as JS gives", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "lg-sends-")), "js-v1.sqlite");
    const saver = sqliteSaver(file);
    try {
      await saver.getTuple({ configurable: { thread_id: "none" } }); // the library creates its tables
      const db = (saver as unknown as { db: import("better-sqlite3").Database }).db;
      for (const r of rows) {
        db.prepare(
          "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES ('t', '', ?, ?, 'json', ?, ?)",
        ).run(r.id, r.parent, Buffer.from(JSON.stringify(r.cp)), Buffer.from(JSON.stringify(r.md)));
      }
      for (const w of writes) {
        db.prepare(
          "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES ('t', '', ?, ?, ?, ?, 'json', ?)",
        ).run(w.id, w.task, w.idx, w.channel, Buffer.from(JSON.stringify(w.value)));
      }
      for (const k of [1, 2]) {
        const lib = (await saver.getTuple({
          configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: ids[k] },
        }))!;
        const { t, scanned } = await ours(`sqlite:${file}`, "t", ids[k]!);
        for (const x of [t, scanned]) {
          expect(x.checkpoint.channel_values.__pregel_tasks).toEqual(lib.checkpoint.channel_values.__pregel_tasks);
          expect(x.checkpoint.channel_versions.__pregel_tasks).toEqual(lib.checkpoint.channel_versions.__pregel_tasks);
          expect(x.issues).toEqual([]);
        }
      }
      // worked out by hand: checkpoint 2's parent (1) sent both, in idx order; checkpoint 1's parent (0) sent nothing
      expect((await ours(`sqlite:${file}`, "t", ids[2]!)).t.checkpoint.channel_values.__pregel_tasks).toEqual(SENDS);
      expect((await ours(`sqlite:${file}`, "t", ids[2]!)).t.checkpoint.channel_versions.__pregel_tasks).toBe(3);
      expect((await ours(`sqlite:${file}`, "t", ids[1]!)).t.checkpoint.channel_values.__pregel_tasks).toEqual([]);
      // the input checkpoint has no parent: untouched
      expect("__pregel_tasks" in (await ours(`sqlite:${file}`, "t", ids[0]!)).t.checkpoint.channel_values).toBe(false);
    } finally {
      await closeSaver(saver);
    }
  });
});

describe("v<4 pending sends, as the JS PostgresSaver reads them", () => {
  let c: pg.Client;
  const schema = `lgsends_${run}`;
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
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  });

  it("the child of the checkpoint that sent gets its sends and the highest version; a parent without sends changes nothing", async () => {
    const saver = pgSaver(PG_BASE, schema);
    try {
      await saver.setup();
      const S = `"${schema}"`;
      for (const r of rows) {
        const { channel_values, ...rest } = r.cp; // the JS PostgresSaver layout: values in blobs
        await c.query(
          `INSERT INTO ${S}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) VALUES ('t', '', $1, $2, $3, $4)`,
          [r.id, r.parent, rest, r.md],
        );
        for (const [ch, v] of Object.entries(r.cp.channel_versions)) {
          const has = ch in channel_values;
          await c.query(
            `INSERT INTO ${S}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ('t', '', $1, $2, $3, $4) ON CONFLICT DO NOTHING`,
            [
              ch,
              String(v),
              has ? "json" : "empty",
              has ? Buffer.from(JSON.stringify((channel_values as Record<string, unknown>)[ch])) : null,
            ],
          );
        }
      }
      for (const w of writes) {
        await c.query(
          `INSERT INTO ${S}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES ('t', '', $1, $2, $3, $4, 'json', $5)`,
          [w.id, w.task, w.idx, w.channel, Buffer.from(JSON.stringify(w.value))],
        );
      }
      const uri = `${PG_BASE}?schema=${schema}`;
      for (const k of [1, 2]) {
        const lib = (await saver.getTuple({
          configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: ids[k] },
        }))!;
        const { t, scanned } = await ours(uri, "t", ids[k]!);
        for (const x of [t, scanned]) {
          expect(x.checkpoint.channel_values.__pregel_tasks).toEqual(lib.checkpoint.channel_values.__pregel_tasks);
          expect(x.checkpoint.channel_versions.__pregel_tasks).toEqual(lib.checkpoint.channel_versions.__pregel_tasks);
        }
      }
      const child = (await ours(uri, "t", ids[2]!)).t;
      expect(child.checkpoint.channel_values.__pregel_tasks).toEqual(SENDS);
      expect(child.checkpoint.channel_versions.__pregel_tasks).toBe(3);
      const mid = (await ours(uri, "t", ids[1]!)).t;
      expect("__pregel_tasks" in mid.checkpoint.channel_values).toBe(false);
      expect("__pregel_tasks" in mid.checkpoint.channel_versions).toBe(false);
    } finally {
      await closeSaver(saver);
    }
  });
});
