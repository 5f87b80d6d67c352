/**
 * #37 honest partial reads: a checkpoint one part of which ckpt cannot rebuild is shown without that part, the part
 * named as unreadable (text, page, --json) and said on stderr, exit 0; convert reports it lost unless --allow-lossy;
 * validate calls ckpt's own inability a `ckpt/cannot-rebuild` warning, never the store's error. The store is written
 * here by the REAL LangGraph JS library (SqliteSaver): `messages` a DeltaChannel with messagesDeltaReducer, `total` a
 * DeltaChannel with the graph's own reducer (a running sum, which ckpt cannot know). Expected values: the graph's
 * getState. A second copy has one pending write whose stored value does not decode (the store's damage, not ckpt's).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { runCli } from "./helpers/cli-io.js";

type J = Record<string, unknown>;
let dir: string;
let store: string;
let truth: { total: number; texts: string[]; head: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-partial-"));
  store = join(dir, "store.db");
  const saver = SqliteSaver.fromConnString(store);
  const State = Annotation.Root({
    messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 50 }),
    total: new DeltaChannel((s: number, ws: number[]) => ws.reduce((a, b) => a + b, s), {
      snapshotFrequency: 3,
      initialValueFactory: () => 0,
    }),
  });
  let n = 0;
  const graph = new StateGraph(State)
    .addNode("agent", () => {
      n++;
      return { messages: [new AIMessage({ id: `a-${n}`, content: `answer ${n}` })], total: n * 10 };
    })
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  const cfg = { configurable: { thread_id: "t-1" } };
  for (let i = 1; i <= 5; i++)
    await graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: `question ${i}` })] }, cfg);
  const s = await graph.getState(cfg);
  const values = s.values as { total: number; messages: Array<{ content: unknown }> };
  truth = {
    total: values.total,
    texts: values.messages.map((m) => String(m.content)),
    head: String(s.config.configurable?.checkpoint_id),
  };
  (saver as unknown as { db: { close(): void } }).db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UNKNOWN = /channel 'total' cannot be read \(ckpt cannot rebuild it; the library can\)/;

describe("a DeltaChannel with a reducer ckpt does not know (real LangGraph JS)", () => {
  it("the library rebuilds it (the expected values)", () => {
    expect(truth.total).toBe(150);
    expect(truth.texts).toHaveLength(10);
  });

  it("validate: exit 0, one ckpt/cannot-rebuild warning, no error", async () => {
    const v = await runCli(["validate", `sqlite:${store}`, "--reporter", "json"]);
    expect(v.code).toBe(0);
    const issues = (JSON.parse(v.out) as { files: Array<{ issues: Array<{ rule: string; severity: string }> }> })
      .files[0]!.issues;
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(issues.map((i) => i.rule)).toContain("ckpt/cannot-rebuild");
    expect(issues.map((i) => i.rule)).not.toContain("langgraph/delta-replay");
    expect((await runCli(["validate", `sqlite:${store}`, "--strict"])).code).toBe(1);
  });

  it("show: every message the graph has, the channel marked unreadable (text, --json), said on stderr, exit 0", async () => {
    const r = await runCli(["show", `sqlite:${store}#t-1`]);
    expect(r.code).toBe(0);
    for (const t of truth.texts) expect(r.out).toContain(t);
    expect(r.out).toMatch(new RegExp(`\\nunreadable\\n  ${UNKNOWN.source}`));
    expect(r.err).toMatch(
      new RegExp(`ckpt: warning: sqlite:.*#t-1@${truth.head}: ${UNKNOWN.source}.*shown without it`),
    );
    const j = await runCli(["show", `sqlite:${store}#t-1`, "--json"]);
    expect(j.code).toBe(0);
    const cp = JSON.parse(j.out) as { messages: Array<{ content: Array<{ text?: string }> }>; ext: J };
    expect(cp.messages.map((m) => m.content.map((c) => c.text ?? "").join(""))).toEqual(truth.texts);
    const lg = cp.ext.langgraph as { unreadable: Array<J>; tuple: { checkpoint: { channel_values: J } } };
    expect(lg.unreadable).toEqual([
      expect.objectContaining({ pointer: "/checkpoint/channel_values/total", part: "channel 'total'", cause: "ckpt" }),
    ]);
    expect(lg.tuple.checkpoint.channel_values).not.toHaveProperty("total");
  });

  it("view: the page (history and --diff) says the checkpoint is not read whole; stderr says so; exit 0", async () => {
    const page = join(dir, "t.html");
    const r = await runCli(["view", `sqlite:${store}#t-1`, "-o", page]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/checkpoints of the page cannot be read whole .*channel 'total' cannot be read/);
    const html = readFileSync(page, "utf8");
    expect(html).toContain("Not read whole");
    expect(html).toMatch(/channel 'total' cannot be read \(ckpt cannot rebuild it; the library can\)/);
    const d = await runCli([
      "view",
      "--diff",
      `sqlite:${store}#t-1@~1`,
      `sqlite:${store}#t-1`,
      "-o",
      join(dir, "d.html"),
    ]);
    expect(d.code).toBe(0);
    expect(d.err).toMatch(UNKNOWN);
  });

  it("diff: compared without the part, each side's part named (text notes, --json), stderr, exit 0", async () => {
    const r = await runCli(["diff", `sqlite:${store}#t-1@~1`, `sqlite:${store}#t-1`]);
    expect(r.code).toBe(1); // the newer checkpoint has more messages
    expect(r.out).toMatch(new RegExp(`note: a: ${UNKNOWN.source}.*compared without it`));
    expect(r.err).toMatch(UNKNOWN);
    const same = await runCli(["diff", `sqlite:${store}#t-1`, `sqlite:${store}#t-1`, "--json"]);
    expect(same.code).toBe(0);
    const doc = JSON.parse(same.out) as { a: J; b: J; identical: boolean };
    expect(doc.identical).toBe(true);
    expect(doc.b.unreadable).toEqual([expect.objectContaining({ part: "channel 'total'" })]);
  });

  it("convert: the part reported lost (exit 1, nothing written) unless --allow-lossy (exit 0)", async () => {
    const out = join(dir, "o.json");
    const r = await runCli(["convert", `sqlite:${store}#t-1`, "-t", "ckpt", "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/would drop 1 field.*\n.*channel 'total' of the source could not be read/);
    expect(existsSync(out)).toBe(false);
    const ok = await runCli(["convert", `sqlite:${store}#t-1`, "-t", "ckpt", "-o", out, "--allow-lossy"]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(readFileSync(out, "utf8")) as { messages: unknown[] }).messages).toHaveLength(10);
  });
});

describe("a pending write whose stored value does not decode", () => {
  let bad: string;
  let at: string;
  beforeAll(() => {
    bad = join(dir, "bad.db");
    copyFileSync(store, bad);
    const db = new Database(bad);
    // the write that routes the first turn's input to the agent (a plain channel: nothing else depends on it)
    const w = db
      .prepare(
        "SELECT checkpoint_id, task_id, idx FROM writes WHERE channel = 'branch:to:agent' ORDER BY checkpoint_id",
      )
      .get() as { checkpoint_id: string; task_id: string; idx: number };
    db.prepare("UPDATE writes SET value = X'7B7B' WHERE checkpoint_id = ? AND task_id = ? AND idx = ?").run(
      w.checkpoint_id,
      w.task_id,
      w.idx,
    );
    db.close();
    at = w.checkpoint_id;
  });

  it("show of its checkpoint: the rest shown, the write marked unreadable as the stored value's damage, exit 0", async () => {
    const r = await runCli(["show", `sqlite:${bad}#t-1@${at}`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /unreadable\n {2}pending write of task .* to channel 'branch:to:agent' cannot be read \(the stored data it needs is damaged or missing\)/,
    );
    expect(r.err).toMatch(/ckpt: warning: .*pending write of task .* cannot be read/);
  });

  it("validate calls it the store's error (langgraph/undecodable), not ckpt's inability", async () => {
    const v = await runCli(["validate", `sqlite:${bad}`]);
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/langgraph\/undecodable/);
  });
});
