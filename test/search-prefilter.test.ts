/**
 * `ckpt search`'s shortcuts never change what it finds. A LangGraph SQLite thread may be ruled out by its rows' JSON
 * text before they are decoded, and only the messages are converted, leanly (core/search.ts prefilterOf,
 * savers/langgraph/sqlite-tuples.ts, the langgraph adapter's searchView); each search here is compared with the
 * same search the full way: `--regex` with the pattern escaped (no prefilter) and `--format langgraph` (every tuple
 * converted whole, as `show` converts it). The store holds what could fool a text test — `\u` escapes (also of a
 * case-insensitive match's non-ASCII counterpart), a number written `1E2`, a DeltaChannel thread (the messages in
 * other rows' writes), a msgpack row, rows that do not decode — written by the real LangGraph JS SqliteSaver (a chat
 * graph, a DeltaChannel graph) and, for the rows a writer would not make, put in its tables by hand. A PostgreSQL
 * store's newest checkpoints are read a page at a time (one query for the rows, one for their blobs, one for their
 * writes): each thread read so is what `show` reads of it, one thread at a time.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { encode } from "@msgpack/msgpack";
import type Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { prefilterOf } from "../src/core/search.js";
import { cliIO, runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const ROOT = resolve(import.meta.dirname, "..");
const lc = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", cls],
  kwargs: { additional_kwargs: {}, response_metadata: {}, ...kwargs },
});

/** One checkpoint row (JSON text as given, so escapes stay as written) and its writes, put in the tables by hand. */
function put(
  db: Database.Database,
  thread: string,
  checkpoint: string | Buffer,
  o: { type?: string; metadata?: string; writes?: Array<{ channel: string; value: string }> } = {},
) {
  const id = `1f0${thread.length}0000-0000-6000-8000-${thread
    .padStart(12, "0")
    .slice(-12)
    .replace(/[^0-9a-f]/g, "a")}`;
  db.prepare(
    "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, NULL, ?, ?, ?)",
  ).run(
    thread,
    id,
    o.type ?? "json",
    typeof checkpoint === "string" ? Buffer.from(checkpoint) : checkpoint,
    Buffer.from(o.metadata ?? '{"source":"loop","step":1,"parents":{}}'),
  );
  for (const [i, w] of (o.writes ?? []).entries())
    db.prepare(
      "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, '', ?, 'task-1', ?, ?, 'json', ?)",
    ).run(thread, id, i, w.channel, Buffer.from(w.value));
}

const cp = (messages: unknown[] | string) =>
  `{"v":4,"id":"x","ts":"2026-11-01T00:00:00.000Z","channel_values":{"messages":${typeof messages === "string" ? messages : JSON.stringify(messages)}},"channel_versions":{"messages":2},"versions_seen":{}}`;

async function makeStore(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "search-prefilter-")), "store.sqlite");
  const saver = SqliteSaver.fromConnString(file);
  // a DeltaChannel thread (snapshot every 3 updates): its head stores no list, the messages are rebuilt from writes
  const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 3 }) });
  let turn = 0;
  const graph = new StateGraph(State)
    .addNode("agent", () => ({ messages: [new AIMessage({ id: `a-${++turn}`, content: `reply number ${turn}` })] }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  const cfg = { configurable: { thread_id: "delta" } };
  await graph.invoke({ messages: [new HumanMessage({ id: "h-1", content: "the zebra crossing" })] }, cfg);
  for (const x of ["two", "three", "four", "five"])
    await graph.invoke({ messages: [new HumanMessage({ id: `h-${x}`, content: x })] }, cfg);
  const db = (saver as unknown as { db: Database.Database }).db;
  // a plain thread; the same words with the pattern's letters as \u escapes; a Kelvin sign (K, case-insensitively)
  // escaped; a tool call's argument written 1E2 (100 when parsed); a message's text with a slash and a quote
  put(db, "plain", cp([lc("HumanMessage", { content: "Where is the zebra?" })]));
  put(
    db,
    "escaped",
    cp(
      `[{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"a z\\u0065bra and a \\u212aelvin","additional_kwargs":{},"response_metadata":{}}}]`,
    ),
  );
  put(
    db,
    "number",
    cp(
      `[{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"","tool_calls":[{"id":"c1","name":"count","args":{"n":1E2},"type":"tool_call"}],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{}}}]`,
    ),
  );
  put(db, "slash", cp([lc("HumanMessage", { content: 'and/or "zebra"' })]));
  // a tool call's argument with a line break: its field is the arguments' JSON, where the break is written \n
  put(
    db,
    "newline",
    cp([
      lc("AIMessage", {
        content: "",
        tool_calls: [{ id: "c1", name: "run", args: { code: "x = 1\nprint(x)" }, type: "tool_call" }],
        invalid_tool_calls: [],
      }),
    ]),
  );
  // a tool call's argument with a control character: written \u0001 in the arguments' JSON
  put(
    db,
    "control",
    cp([
      lc("AIMessage", {
        content: "",
        tool_calls: [{ id: "c2", name: "run", args: { code: "\u0001mb" }, type: "tool_call" }],
        invalid_tool_calls: [],
      }),
    ]),
  );
  // an interrupt: the canonical one is JSON with keys of its own (toolName), searched with --in state
  put(db, "interrupt", cp([lc("HumanMessage", { content: "refund it" })]), {
    writes: [{ channel: "__interrupt__", value: '[{"id":"int-1","value":"approve the refund?"}]' }],
  });
  // a msgpack row (Python's serde) holding the word, as a plain-dict message
  put(
    db,
    "msgpack",
    Buffer.from(
      encode({
        v: 4,
        id: "x",
        ts: "2026-11-01T00:00:00+00:00",
        channel_values: { messages: [{ type: "human", content: "a msgpack zebra" }] },
        channel_versions: { messages: "2" },
        versions_seen: {},
      }),
    ),
    { type: "msgpack" },
  );
  // rows that do not decode, without the word: reported whatever the pattern
  put(db, "broken", '{"v":4,"channel_values":{"messages":[');
  put(db, "shape", '{"v":4,"id":"x","channel_values":[],"channel_versions":{},"versions_seen":{}}');
  db.close();
  return file;
}

/** The search as given, and the same search the full way (no prefilter, every tuple converted whole). */
async function both(pattern: string, store: string, flags: string[] = []) {
  const fast = await runCli(["search", pattern, `sqlite:${store}`, "--json", ...flags]);
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const full = await runCli([
    "search",
    "--regex",
    escaped,
    `sqlite:${store}`,
    "--json",
    "--format",
    "langgraph",
    ...flags,
  ]);
  return { fast, full };
}

const threads = (out: string) =>
  [
    ...new Set(
      out
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).thread),
    ),
  ].sort();

describe("search's prefilter and message view never change what it finds", () => {
  test("escapes, -i, numbers, a DeltaChannel thread, msgpack, rows that do not decode: the same as the full way", async () => {
    const store = await makeStore();
    const cases: Array<[string, string[], string[]]> = [
      // pattern, flags, the threads it must find (independently: what the rows above hold)
      ["zebra", [], ["delta", "escaped", "msgpack", "plain", "slash"]],
      ["ZEBRA", ["-i"], ["delta", "escaped", "msgpack", "plain", "slash"]],
      ["kelvin", ["-i"], ["escaped"]],
      ["100", ["--in", "tools"], ["number"]],
      ["reply number 2", [], ["delta"]],
      ["and/or", [], ["slash"]],
      // found in the arguments' JSON text, "x = 1\\nprint(x)" (the raw string holds a line break, no "n" there)
      ["nprint", ["--in", "tools"], ["newline"]],
      ["NPRINT", ["--in", "tools", "-i"], ["newline"]],
      // in the arguments' JSON text, "\u0001mb": a pattern that begins at the escape's u
      ["u0001mb", ["--in", "tools"], ["control"]],
      ["U0001MB", ["--in", "tools", "-i"], ["control"]],
      ["umbx", ["--in", "tools"], []],
      ["toolName", ["--in", "state"], ["interrupt"]],
      ["approve the refund", ["--in", "state"], ["interrupt"]],
      ["no such words anywhere", [], []],
    ];
    for (const [pattern, flags, want] of cases) {
      const { fast, full } = await both(pattern, store, flags);
      expect(fast.out, `${pattern} ${flags}`).toBe(full.out);
      expect(fast.err, `${pattern} ${flags}`).toBe(full.err);
      expect(fast.code, `${pattern} ${flags}`).toBe(full.code);
      expect(threads(fast.out), `${pattern} ${flags}`).toEqual(want);
      // the two rows that do not decode are named, whatever the pattern: never a plain "not found"
      expect([3, 4]).toContain(fast.code);
      expect(fast.err).toMatch(/#broken/);
      expect(fast.err).toMatch(/#shape/);
    }
  });

  test("a common word in most messages, tool calls and results, and a tab in each text: the same as the full way", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "search-prefilter-common-")), "store.sqlite");
    // the real saver creates its tables; the rows are put in them by hand
    const saver = SqliteSaver.fromConnString(file);
    await saver.getTuple({ configurable: { thread_id: "none" } });
    const db = (saver as unknown as { db: Database.Database }).db;
    // 80 threads × 16 messages: 12 hold the word in their text, a tool call holds it in its arguments only, its
    // result holds it, and two hold it nowhere — 1,280 messages, three quarters let through
    let want = 0;
    for (let t = 0; t < 80; t++) {
      const ms: unknown[] = [];
      for (let i = 0; i < 12; i++) {
        ms.push(lc(i % 2 ? "AIMessage" : "HumanMessage", { content: `turn ${i} of ${t}: an umbrella\tor two` }));
        want++;
      }
      ms.push(
        lc("AIMessage", {
          content: "",
          tool_calls: [{ id: `c${t}`, name: "shop", args: { item: "umbrella" }, type: "tool_call" }],
          invalid_tool_calls: [],
        }),
      );
      ms.push(lc("ToolMessage", { content: "one umbrella bought", tool_call_id: `c${t}`, name: "shop" }));
      ms.push(lc("HumanMessage", { content: "thanks" }), lc("AIMessage", { content: "you are welcome" }));
      put(db, `t${String(t).padStart(3, "0")}`, cp(ms));
    }
    db.close();
    for (const flags of [[], ["--in", "tools"], ["-i"]]) {
      const { fast, full } = await both("umbrella", file, flags);
      expect(fast.code, fast.err).toBe(0);
      expect(fast.out, `${flags}`).toBe(full.out);
      // every text that holds it (and with --in tools each call's arguments and each result too)
      expect(fast.out.trim().split("\n").length, `${flags}`).toBe(flags[0] === "--in" ? want + 160 : want);
    }
  });

  test("the fixture and version-matrix stores (Python msgpack, JS, interrupts): the same as the full way", async () => {
    const stores = [
      "fixtures/langgraph/python-a.sqlite",
      "fixtures/langgraph/python-c.sqlite",
      "fixtures/langgraph/python-v4-chat.sqlite",
      "fixtures/langgraph/python-v4-human-in-the-loop.sqlite",
      "fixtures/langgraph/js-a.sqlite",
      "fixtures/langgraph/js-c.sqlite",
      "fixtures/versions/langgraph/0.2/store.db",
      "fixtures/versions/langgraph/1.7/store.db",
    ].map((s) => resolve(ROOT, s));
    let hits = 0;
    for (const store of stores)
      for (const [pattern, flags] of [
        ["the", []],
        ["LangGraph", ["-i"]],
        ["e", ["--in", "tools"]],
        ["search", ["--in", "tools", "--role", "assistant"]],
        ["a", ["--in", "all"]],
      ] as Array<[string, string[]]>) {
        const { fast, full } = await both(pattern, store, flags);
        expect(fast.out, `${store} ${pattern} ${flags}`).toBe(full.out);
        expect(fast.code, `${store} ${pattern} ${flags}`).toBe(full.code);
        hits += fast.out.split("\n").filter(Boolean).length;
      }
    expect(hits).toBeGreaterThan(100);
  });

  test("prefilterOf: given only where it is sound", () => {
    expect(prefilterOf({ pattern: "zebra", regex: true })).toBeUndefined();
    expect(prefilterOf({ pattern: "zebra", in: ["state"] })).toBeUndefined();
    for (const p of ['a"b', "a\\b", "a:b", "a,b", "{", "]", "a\nb"])
      expect(prefilterOf({ pattern: p }), p).toBeUndefined();
    // the text test: printable ASCII, no slash, nothing a number could hold
    expect(prefilterOf({ pattern: "zébra" })?.text).toBeUndefined();
    expect(prefilterOf({ pattern: "and/or" })?.text).toBeUndefined();
    for (const p of ["100", "1e2", "-1.5E+3"]) expect(prefilterOf({ pattern: p })?.text, p).toBeUndefined();
    const f = prefilterOf({ pattern: "zebra" })!;
    expect(f.text!('{"a":"a zebra"}')).toBe(true);
    expect(f.text!('{"a":"a horse"}')).toBe(false);
    // a text with a \u escape may hide anything: it passes
    expect(f.text!('{"a":"a z\\u0065bra"}')).toBe(true);
    expect(f.text!('{"a":"\\u00e9"}')).toBe(true);
    expect(prefilterOf({ pattern: "KELVIN", ignoreCase: true })!.string("\u212aelvin")).toBe(true);
    // a field written as JSON (tool arguments, state, an extension's data) shows a string's line break as \n
    expect(prefilterOf({ pattern: "nprint" })!.string("x\nprint")).toBe(true);
    expect(prefilterOf({ pattern: "u0001a" })!.string("\u0001a")).toBe(true);
    expect(prefilterOf({ pattern: "zebra" })!.string("x\nzebr")).toBe(false);
    // "u" then a hex digit begins inside "\u0001"; "u" then anything else cannot ("\u0001mb" holds no "umb")
    for (const p of ["u", "u0", "u000", "U0001", "u0001mb", "1mb"])
      expect(prefilterOf({ pattern: p, ignoreCase: true })!.string("\u0001mb"), p).toBe(true);
    for (const p of ["umb", "u0z", "u001z"]) expect(prefilterOf({ pattern: p })!.string("\u0001mb"), p).toBe(false);
  });
});

describe("a PostgreSQL store's newest checkpoints, a page at a time", () => {
  const pgdb = pgTestSchemas("search_pf");
  test("each thread as show reads it (js-a, python-a dumps), and search finds the same", async () => {
    const { readConversations } = await import("../src/cli/conversations.js");
    let n = 0;
    for (const dump of ["js-a", "python-a"]) {
      const s = pgdb.schema(dump.replace("-", ""));
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
        input: readFileSync(resolve(ROOT, "fixtures/langgraph", `${dump}.pg.sql`), "utf8").replaceAll("__SCHEMA__", s),
        stdio: ["pipe", "ignore", "inherit"],
      });
      const uri = `${PG}?schema=${s}`;
      const read: Array<{ threadId: string; checkpointId?: string; checkpoint: unknown }> = [];
      for await (const r of readConversations([uri], cliIO(), {})) {
        expect(r.ok, r.ok ? "" : r.error.format()).toBe(true);
        if (r.ok) read.push(r.value);
      }
      expect(read.length).toBeGreaterThanOrEqual(2);
      for (const c of read) {
        const shown = await runCli(["show", `${uri}#${c.threadId}`, "--json"]);
        expect(shown.code, shown.err).toBe(0);
        expect(JSON.parse(JSON.stringify(c.checkpoint)), `${dump}#${c.threadId}`).toEqual(JSON.parse(shown.out));
        const hit = await runCli(["search", "-l", "--json", "a", `${uri}#${c.threadId}`]);
        const all = await runCli(["search", "-l", "--json", "a", uri]);
        expect(all.out).toContain(hit.out.trim());
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(4);
  });
});
