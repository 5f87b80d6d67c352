/**
 * DeltaChannel and plain-dict threads written here by the REAL LangGraph JS library (@langchain/langgraph's
 * DeltaChannel + messagesDeltaReducer, snapshot every 3 updates; SqliteSaver), with what a delta channel's reducer
 * does beyond appending: a message replaced by id, a RemoveMessage, a remove-all, and a fork from an older
 * checkpoint. ckpt's reading of every checkpoint must equal the library's own getState() at that checkpoint.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { openLangGraph } from "./helpers/lg-open.js";
import { decodeJson } from "../src/formats/langgraph/serde.js";
import { runCli } from "./helpers/cli-io.js";

/** A message as [class, id, content], from a LangChain record (ckpt's) or a BaseMessage (the library's). */
const brief = (m: unknown) => {
  const r = decodeJson(JSON.stringify(m)) as { id?: string[]; kwargs?: { id?: string; content?: unknown } };
  return [r.id?.[r.id.length - 1], r.kwargs?.id, r.kwargs?.content];
};

describe("real LangGraph JS DeltaChannel threads", () => {
  it("every checkpoint's messages equal getState() at it (replace by id, RemoveMessage, remove-all, a fork)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "lg-delta-js-")), "delta.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 3 }) });
    let turn = 0;
    const graph = new StateGraph(State)
      .addNode("agent", (s: { messages: Array<{ id?: string; content: unknown }> }) => {
        turn++;
        const last = s.messages[s.messages.length - 1]!;
        const text = String(last.content);
        if (text === "edit") return { messages: [new AIMessage({ id: "a-1", content: "answer one, edited" })] };
        if (text === "forget")
          return {
            messages: [new RemoveMessage({ id: "h-2" }), new AIMessage({ id: `a-${turn}`, content: "forgot" })],
          };
        if (text === "reset")
          return {
            messages: [
              new RemoveMessage({ id: "__remove_all__" }),
              new AIMessage({ id: `a-${turn}`, content: "fresh start" }),
            ],
          };
        return { messages: [new AIMessage({ id: `a-${turn}`, content: `answer ${turn}` })] };
      })
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: saver });
    const cfg = { configurable: { thread_id: "d-1" } };
    const inputs = ["one", "two", "three", "edit", "four", "forget", "five", "reset", "six", "seven"];
    let n = 0;
    for (const x of inputs) await graph.invoke({ messages: [new HumanMessage({ id: `h-${++n}`, content: x })] }, cfg);
    // a fork: one more turn from the checkpoint that ended the 4th turn
    const history = [];
    for await (const s of graph.getStateHistory(cfg)) history.push(s);
    const afterFour = history.filter((s) => s.metadata?.source === "loop" && s.next.length === 0).reverse()[3]!;
    await graph.invoke({ messages: [new HumanMessage({ id: "h-fork", content: "fork" })] }, afterFour.config);

    const reader = (await openLangGraph(`sqlite:${file}`))!;
    let compared = 0;
    let rebuilt = 0;
    for await (const s of graph.getStateHistory(cfg)) {
      const id = s.config.configurable!.checkpoint_id as string;
      const t = (await reader.getTuple("d-1", "", id))!;
      expect(t.issues).toEqual([]);
      const ours = (t.checkpoint.channel_values.messages as unknown[] | undefined) ?? [];
      const theirs = ((s.values as { messages?: unknown[] }).messages ?? []) as unknown[];
      expect(ours.map(brief), id).toEqual(theirs.map(brief));
      if (t.delta?.messages?.from === "writes") rebuilt++;
      compared++;
    }
    // the same through a whole-store scan (each checkpoint rebuilt from its parent's value)
    const byScan = new Map<string, unknown[]>();
    for await (const batch of reader.scan())
      for (const t of batch) byScan.set(t.checkpointId, (t.checkpoint.channel_values.messages as unknown[]) ?? []);
    for await (const s of graph.getStateHistory(cfg))
      expect(byScan.get(s.config.configurable!.checkpoint_id as string)!.map(brief)).toEqual(
        (((s.values as { messages?: unknown[] }).messages ?? []) as unknown[]).map(brief),
      );
    await reader.close();
    expect(compared).toBeGreaterThan(30);
    expect(rebuilt).toBeGreaterThan(15);
    const head = (await graph.getState(cfg)).values as { messages: Array<{ content: unknown }> };
    const show = await runCli(["show", `sqlite:${file}#d-1`]);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`${head.messages.length} messages`);
    expect(show.out).toContain(String(head.messages[head.messages.length - 1]!.content));
    const v = await runCli(["validate", `sqlite:${file}`]);
    expect(v.code, v.out).toBe(0);
  });

  it("a plain-dict thread (concat reducer) reads as the messages the dicts are", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "lg-dict-js-")), "dict.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const State = Annotation.Root({
      messages: Annotation<Array<Record<string, unknown>>>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("agent", (s) => {
        const last = s.messages[s.messages.length - 1]!;
        if (last.role === "user")
          return {
            messages: [
              {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "call_1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }],
              },
              { role: "tool", tool_call_id: "call_1", content: "3 hits" },
            ],
          };
        return { messages: [{ role: "assistant", content: `Answer: ${String(last.content)}` }] };
      })
      .addNode("final", (s) => ({
        messages: [{ role: "assistant", content: `Answer: ${String(s.messages.at(-1)!.content)}` }],
      }))
      .addEdge(START, "agent")
      .addEdge("agent", "final")
      .addEdge("final", END)
      .compile({ checkpointer: saver });
    const cfg = { configurable: { thread_id: "p-1" } };
    await graph.invoke({ messages: [{ role: "user", content: "find x" }] }, cfg);
    const state = (await graph.getState(cfg)).values.messages;
    const json = await runCli(["show", `sqlite:${file}#p-1`, "--json"]);
    expect(json.code).toBe(0);
    const cp = JSON.parse(json.out) as {
      messages: Array<{ role: string; content: Array<{ type: string; text?: string; id?: string }> }>;
    };
    expect(cp.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(cp.messages.length).toBe(state.length);
    expect(cp.messages[1]!.content).toEqual([
      { type: "toolCall", id: "call_1", name: "search", arguments: { q: "x" }, ext: expect.anything() },
    ]);
    expect(cp.messages[3]!.content[0]!.text).toBe(state.at(-1)!.content);
  });
});

describe("the messages delta reducer", () => {
  it("equals @langchain/langgraph's messagesDeltaReducer (JS) on replace, remove, unknown remove, remove-all, id-less", async () => {
    const { messagesDeltaReducer: ours } = await import("../src/formats/langgraph/delta.js");
    const h = (id: string | undefined, c: string) => new HumanMessage({ ...(id ? { id } : {}), content: c });
    const a = (id: string, c: string) => new AIMessage({ id, content: c });
    const cases: Array<[unknown[], unknown[]]> = [
      [
        [h("1", "a"), a("2", "b")],
        [[a("2", "b2")], [h("3", "c")]],
      ],
      [[h("1", "a"), a("2", "b")], [[new RemoveMessage({ id: "1" }), new RemoveMessage({ id: "nope" })]]],
      [
        [h("1", "a"), a("2", "b")],
        [[h("3", "c"), new RemoveMessage({ id: "__remove_all__" }), a("4", "d")], h("5", "e")],
      ],
      [[h("1", "a")], [h(undefined, "no id"), [h(undefined, "no id either")]]],
    ];
    const rec = (m: unknown) => decodeJson(JSON.stringify(m));
    for (const [state, writes] of cases) {
      const theirs = messagesDeltaReducer(state as never, writes as never).map(brief);
      const mine = ours(
        state.map(rec),
        writes.map((w) => (Array.isArray(w) ? w.map(rec) : rec(w))),
        "js",
      ).map(brief);
      expect(mine).toEqual(theirs);
    }
  });
  it("Python's (langgraph 1.2.12 _messages_delta_reducer) leaves RemoveMessage('__remove_all__') unapplied, JS clears", async () => {
    const { messagesDeltaReducer: ours } = await import("../src/formats/langgraph/delta.js");
    const rec = (m: unknown) => decodeJson(JSON.stringify(m));
    const state = [rec(new HumanMessage({ id: "1", content: "a" }))];
    const writes = [[rec(new RemoveMessage({ id: "__remove_all__" })), rec(new AIMessage({ id: "2", content: "b" }))]];
    expect(ours(state, writes, "js").map(brief)).toEqual([["AIMessage", "2", "b"]]);
    // the Python source skips a RemoveMessage whose id is not in the list ("not full add_messages parity —
    // REMOVE_ALL_MESSAGES … not handled"): the list keeps the old message
    expect(ours(state, writes, "python").map((m) => brief(m)[1])).toEqual(["1", "2"]);
  });
});

describe("a Python DeltaChannel store converted for JS", () => {
  it("migrate --to-library js: LangGraph JS's getState rebuilds every delta thread as Python did", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-delta-tojs-"));
    const fix = join(import.meta.dirname, "..", "fixtures", "langgraph");
    const m = await runCli([
      "migrate",
      "--from",
      `sqlite:${join(fix, "python-c.sqlite")}`,
      "--to",
      `sqlite:${join(dir, "js.sqlite")}`,
      "--to-library",
      "js",
      "--journal",
      join(dir, "j"),
    ]);
    expect(m.code, m.out + m.err).toBe(0);
    const saver = SqliteSaver.fromConnString(join(dir, "js.sqlite"));
    const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 3 }) });
    const g = new StateGraph(State)
      .addNode("agent", () => ({}))
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: saver });
    const counts = (await import(join(fix, "counts", "python-c.sqlite.json"), { with: { type: "json" } })).default as {
      per_thread: Record<string, { messages: number; last_message: string }>;
    };
    for (const thread of ["c-delta-1", "c-delta-2"]) {
      const s = (await g.getState({ configurable: { thread_id: thread } })).values as {
        messages: Array<{ content: unknown }>;
      };
      expect(s.messages.length, thread).toBe(counts.per_thread[thread]!.messages);
      expect(s.messages.at(-1)!.content).toBe(counts.per_thread[thread]!.last_message);
    }
  });
});
