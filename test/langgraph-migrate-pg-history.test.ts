/**
 * SQLite histories the PostgreSQL layout cannot take as they are, and what a migration into it does:
 * - an app that changed a list in place (written here by the real LangGraph JS library: a node pushes onto the state's
 *   list without writing it, so two checkpoints hold different values under one channel version, no fork anywhere):
 *   those checkpoints are refused, named for what happened (never "a forked branch"), and so are their descendants —
 *   the target holds whole histories up to there, no checkpoint without its parent, each as the library reads it;
 * - a Python v3 store (2025-04: checkpoint v3, msgpack, `pending_sends` holding Send objects, built here as Python's
 *   SqliteSaver wrote it): written as Python's PostgresSaver wrote v<4 checkpoints (JSONB `pending_sends: []`, the sends
 *   kept as the parent's `__pregel_tasks` writes; checkpoint-postgres `_dump_checkpoint`), read back with the sends as
 *   `__pregel_tasks` (its `_migrate_pending_sends`); one whose parent lost those writes is refused with its descendants.
 */
import Database from "better-sqlite3";
import { encode, ExtData } from "@msgpack/msgpack";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { runCli } from "./helpers/cli-io.js";
import { openLangGraph } from "./helpers/lg-open.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const pgs = pgTestSchemas("lg_pghist");
const dir = mkdtempSync(join(tmpdir(), "lg-pghist-"));

async function migrate(from: string, to: string): Promise<{ code: number; out: string; err: string }> {
  return runCli(["migrate", "--from", from, "--to", to, "--journal", join(mkdtempSync(join(dir, "j-")), "j")]);
}
const rejected = (out: string) =>
  [...out.matchAll(/^\s+rejected: #([^@\s]+)@(\S+): (.*)$/gm)].map((m) => ({ thread: m[1]!, id: m[2]!, why: m[3]! }));

describe("an app that changed a list in place (LangGraph JS), into PostgreSQL", () => {
  const file = join(dir, "in-place.sqlite");
  /** per checkpoint id: parent, the items version and value, as the library lists them */
  const lib = new Map<string, { parent: string | null; version: unknown; items: unknown }>();
  beforeAll(async () => {
    const saver = SqliteSaver.fromConnString(file);
    const State = Annotation.Root({
      items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      note: Annotation<string>({ reducer: (_a, b) => b, default: () => "" }),
    });
    const g = new StateGraph(State)
      .addNode("add", (s) => ({ items: [`item-${s.items.length}`] }))
      .addNode("sneak", (s, config) => {
        // no write: the channel's version stays (m-0 is the same app without it)
        if (config.configurable?.thread_id === "m-1") s.items.push("mutated-in-place");
        return { note: `saw ${s.items.length}` };
      })
      .addEdge(START, "add")
      .addEdge("add", "sneak")
      .addEdge("sneak", END)
      .compile({ checkpointer: saver });
    for (const x of ["start", "again"]) await g.invoke({ items: [x] }, { configurable: { thread_id: "m-1" } });
    await g.invoke({ items: ["clean"] }, { configurable: { thread_id: "m-0" } });
    for await (const t of saver.list({})) {
      if (t.config.configurable!.thread_id !== "m-1") continue;
      lib.set(t.config.configurable!.checkpoint_id as string, {
        parent: (t.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
        version: t.checkpoint.channel_versions.items,
        items: t.checkpoint.channel_values.items,
      });
    }
    saver.db.close();
  });

  it("the checkpoints that hold a changed value under the same version are refused as such, their descendants too; no holes", async () => {
    // from the library's own listing: a checkpoint whose items version is the one some earlier checkpoint of its line
    // stored another value under (the values the library read, not ckpt's)
    const firstAt = new Map<string, string>();
    const inPlace = new Set<string>();
    for (const id of [...lib.keys()].sort()) {
      const c = lib.get(id)!;
      if (c.version === undefined) continue;
      const k = String(c.version);
      const first = firstAt.get(k);
      if (first === undefined) firstAt.set(k, JSON.stringify(c.items));
      else if (first !== JSON.stringify(c.items)) inPlace.add(id);
    }
    expect(inPlace.size).toBeGreaterThan(0);
    const schema = pgs.schema("inplace");
    const m = await migrate(`sqlite:${file}`, `${PG}?schema=${schema}`);
    expect(m.code, m.out + m.err).toBe(5);
    expect(m.out + m.err).not.toMatch(/forked branch/);
    const rej = rejected(m.out);
    // every refused checkpoint is of m-1: changed in place, or a descendant of one refused
    const refused = new Set(rej.map((r) => r.id));
    for (const r of rej) {
      expect(r.thread).toBe("m-1");
      if (inPlace.has(r.id) && !refused.has(lib.get(r.id)!.parent!))
        expect(r.why).toMatch(
          /^its 'items' value differs from the one checkpoint \S+ stored under the same version .*changed the value in place/,
        );
      else expect(r.why).toMatch(/^its (parent checkpoint (\S+) was not written|'items' value differs)/);
    }
    for (const id of inPlace) expect(refused.has(id), id).toBe(true);
    const isDescendant = (id: string): boolean => {
      const p = lib.get(id)?.parent;
      return p ? inPlace.has(p) || isDescendant(p) : false;
    };
    for (const id of lib.keys()) expect(refused.has(id), id).toBe(inPlace.has(id) || isDescendant(id));
    // the target: no checkpoint without its parent; what was written reads as the library read it in the source
    const v = await runCli(["validate", `${PG}?schema=${schema}`, "--json"]);
    expect(v.code, v.out).toBe(0);
    const target = PostgresSaver.fromConnString(PG, { schema });
    const written = new Map<string, unknown>();
    for await (const t of target.list({ configurable: { thread_id: "m-1" } }))
      written.set(t.config.configurable!.checkpoint_id as string, t.checkpoint.channel_values.items);
    await target.end();
    expect([...written.keys()].sort()).toEqual([...lib.keys()].filter((id) => !refused.has(id)).sort());
    // (a channel without a version — the input checkpoint's default [] — is no blob: JS's PostgresSaver reads none)
    for (const [id, items] of written)
      if (lib.get(id)!.version !== undefined) expect(items, id).toEqual(lib.get(id)!.items);
    // a SQLite target holds them whole
    const m2 = await migrate(`sqlite:${file}`, `sqlite:${join(dir, "copy.sqlite")}`);
    expect(m2.code, m2.out + m2.err).toBe(0);
  });
});

// ---- a Python v3 store (checkpoint v3, msgpack, pending_sends) ------------------------------------------------

/** Python msgpack's Send (EXT 1: [module, name, [node, arg]]), as ormsgpack packs it. */
const send = (node: string, arg: unknown) => new ExtData(1, encode(["langgraph.types", "Send", [node, arg]]));
const ver = (n: number) =>
  `${String(n).padStart(32, "0")}.0.${String(0.5 + n / 100)
    .slice(2)
    .padEnd(16, "7")}`;
/** A uuid6 checkpoint id as Python makes one: time-ordered, the clock sequence 0x8000 | step (bfff for step −1). */
const id = (t: number, step: number) =>
  `1f01e5a${t}-000${step + 2}-6000-${step < 0 ? "bfff" : (0x8000 | step).toString(16)}-00000000000${t}`;

/**
 * One thread as Python's SqliteSaver wrote a fan-out graph in 2025-04 (checkpoint v3): __start__ → plan, which sends
 * two packets to worker (its __pregel_tasks writes, and the next checkpoint's pending_sends) → the workers' results.
 */
function v3Thread(db: Database.Database, thread: string, t: number): string[] {
  const ids = [-1, 0, 1, 2].map((s) => id(t, s));
  const sends = [send("worker", { item: "a" }), send("worker", { item: "b" })];
  const cps = [
    { vals: { __start__: { topic: "x" } }, vers: { __start__: ver(1) }, ps: [] as unknown[], step: -1, src: "input" },
    {
      vals: { topic: "x", "branch:to:plan": null },
      vers: { __start__: ver(2), topic: ver(2), "branch:to:plan": ver(2) },
      ps: [],
      step: 0,
      src: "loop",
    },
    {
      vals: { topic: "x" },
      vers: { __start__: ver(2), topic: ver(2), "branch:to:plan": ver(3) },
      ps: sends,
      step: 1,
      src: "loop",
    },
    {
      vals: { topic: "x", results: ["a done", "b done"] },
      vers: { __start__: ver(2), topic: ver(2), "branch:to:plan": ver(3), results: ver(4) },
      ps: [],
      step: 2,
      src: "loop",
    },
  ];
  cps.forEach((c, i) => {
    const cp = {
      v: 3,
      ts: `2025-04-20T10:00:0${i}.000000+00:00`,
      id: ids[i],
      channel_values: c.vals,
      channel_versions: c.vers,
      versions_seen: { __input__: {}, ...(i > 0 ? { __start__: { __start__: ver(1) } } : {}) },
      pending_sends: c.ps,
    };
    db.prepare("INSERT INTO checkpoints VALUES (?, '', ?, ?, 'msgpack', ?, ?)").run(
      thread,
      ids[i],
      i ? ids[i - 1] : null,
      encode(cp),
      JSON.stringify({ source: c.src, step: c.step, writes: null, parents: {} }),
    );
  });
  const w = db.prepare("INSERT INTO writes VALUES (?, '', ?, ?, ?, ?, 'msgpack', ?)");
  sends.forEach((s, i) => w.run(thread, ids[1], "3f1c0a52-plan-task", i, "__pregel_tasks", encode(s)));
  w.run(thread, ids[2], "91aa0000-worker-a", 0, "results", encode(["a done"]));
  w.run(thread, ids[2], "91aa0001-worker-b", 0, "results", encode(["b done"]));
  return ids;
}

describe("a Python v3 store (pending_sends of Send objects) into PostgreSQL", () => {
  const file = join(dir, "python-v3.sqlite");
  let ok: string[] = [];
  let lost: string[] = [];
  beforeAll(() => {
    const db = new Database(file);
    // langgraph-checkpoint-sqlite 2.x's DDL (unchanged since 1.0)
    db.exec(`CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
        checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
      CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));`);
    ok = v3Thread(db, "v3-fanout", 1);
    lost = v3Thread(db, "v3-lost-writes", 2);
    // this thread's plan checkpoint lost its __pregel_tasks writes (pruned by hand): its child's sends are nowhere else
    db.prepare("DELETE FROM writes WHERE thread_id = 'v3-lost-writes' AND channel = '__pregel_tasks'").run();
    db.close();
  });

  it("written as Python's PostgresSaver wrote v<4 checkpoints: pending_sends [] in the JSONB, the sends as the parent's writes, read back as __pregel_tasks", async () => {
    const schema = pgs.schema("v3");
    const m = await migrate(`sqlite:${file}`, `${PG}?schema=${schema}`);
    expect(m.out).not.toMatch(/JSONB cannot store/);
    const rej = rejected(m.out);
    // the thread whose sends are in its plan checkpoint's writes: whole; the other: from the child on, refused
    expect(rej.map((r) => r.id)).toEqual([lost[2], lost[3]]);
    expect(rej[0]!.why).toMatch(
      /pending_sends \(2 Sends, checkpoint v3\) are not the __pregel_tasks writes of its parent/,
    );
    expect(rej[1]!.why).toMatch(new RegExp(`^its parent checkpoint ${lost[2]} was not written`));
    expect(m.code).toBe(5);
    const rows = await pgs.query(
      `SELECT thread_id, checkpoint_id, checkpoint->'pending_sends' AS ps FROM ${schema}.checkpoints ORDER BY 1, 2`,
    );
    expect(rows.rows.map((r) => [r.thread_id, r.checkpoint_id])).toEqual([
      ...ok.map((i) => ["v3-fanout", i]),
      ...lost.slice(0, 2).map((i) => ["v3-lost-writes", i]),
    ]);
    for (const r of rows.rows) expect(r.ps).toEqual([]);
    const tasks = await pgs.query(
      `SELECT count(*)::int AS n FROM ${schema}.checkpoint_writes WHERE thread_id = 'v3-fanout' AND checkpoint_id = $1 AND channel = '__pregel_tasks'`,
      [ok[1]],
    );
    expect(tasks.rows[0].n).toBe(2);
    // read back: the child of the plan checkpoint has the two sends as __pregel_tasks (the v<4 migration on read)
    const r = (await openLangGraph(`${PG}?schema=${schema}`))!;
    const t = (await r.getTuple("v3-fanout", "", ok[2]))!;
    await r.close();
    const packets = (t.checkpoint.channel_values.__pregel_tasks as Array<{ args: unknown[] }>).map((s) => s.args);
    expect(packets).toEqual([
      ["worker", { item: "a" }],
      ["worker", { item: "b" }],
    ]);
    // no holes: every written checkpoint's parent is there
    const v = await runCli(["validate", `${PG}?schema=${schema}`]);
    expect(v.out).not.toMatch(/missing-parent/);
    expect(v.code, v.out).toBe(0);
  });
});
