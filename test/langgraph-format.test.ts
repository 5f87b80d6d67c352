/**
 * The `langgraph` format adapter on every checkpoint of the real sample stores (Python and JS, generated and
 * from-repo): exact round trips, schema acceptance, and canonical values worked out by hand from the samples'
 * generators (fixtures/langgraph/generated.README.md, sets.json: inputs, tool outputs "<n> hits for '<q>'", usage
 * 10·n/7 in Python) — not printed by ckpt.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { load } from "@langchain/core/load";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { langgraphAdapter as a } from "../src/formats/langgraph/adapter.js";
import { deepagentAdapter } from "../src/formats/deepagent.js";
import { getAdapter } from "../src/formats/index.js";
import type { LgTupleDocument } from "../src/formats/langgraph/types.js";
import type { LossyNote } from "../src/formats/types.js";
import { validators } from "../src/generated/validators.js";
import { copyFixture, sqliteTuples } from "./helpers/langgraph-tuples.js";

const FILES = [
  "js-a.sqlite",
  "python-a.sqlite",
  "python-v1-persistence.sqlite",
  "python-v4-chat.sqlite",
  "python-v4-human-in-the-loop.sqlite",
];
const tuples = new Map(FILES.map((f) => [f, sqliteTuples(copyFixture(f))]));
const docOf = (t: LgTupleDocument) => ({ name: `${t.store}#${t.threadId}@${t.checkpointId}`, text: JSON.stringify(t) });
const newest = (file: string, thread: string, ns = "") =>
  tuples
    .get(file)!
    .filter((t) => t.threadId === thread && t.namespace === ns)
    .sort((x, y) => (x.checkpointId < y.checkpointId ? 1 : -1))[0]!;
/** a value without `ext` records (format-specific extras), as the hand-derived expectations describe it */
const noExt = (v: unknown): any => JSON.parse(JSON.stringify(v, (k, x) => (k === "ext" ? undefined : x)));
const roles = (cp: { messages: Array<{ role: string }> }) => cp.messages.map((m) => m.role).join(",");

describe("langgraph adapter on the sample stores", () => {
  it.each(FILES)(
    "%s: every checkpoint round-trips exactly (key order too) and both forms pass their schemas",
    (file) => {
      const all = tuples.get(file)!;
      expect(all.length).toBeGreaterThan(0);
      for (const t of all) {
        const d = docOf(t);
        expect(a.detect(d).confidence).toBe(1);
        const native = a.parse(d);
        expect(
          validators["formats/langgraph/tuple"](native),
          JSON.stringify(validators["formats/langgraph/tuple"].errors),
        ).toBe(true);
        const cp = a.toCanonical(native, d);
        expect(validators.Checkpoint(cp), `${d.name}: ${JSON.stringify(validators.Checkpoint.errors)}`).toBe(true);
        const lossy: LossyNote[] = [];
        const back = a.fromCanonical(cp, { lossy });
        expect(JSON.stringify(back)).toBe(JSON.stringify(native));
        expect(lossy).toEqual([]);
      }
    },
  );

  it("python a-chat-1, newest checkpoint: the two turns, tool calls, results and usage", () => {
    const t = newest("python-a.sqlite", "a-chat-1");
    const cp = a.toCanonical(t, docOf(t));
    expect(cp.threadId).toBe("a-chat-1");
    expect(roles(cp)).toBe("user,assistant,toolResult,assistant,user,assistant,toolResult,toolResult,assistant");
    const m = noExt(cp.messages) as any[];
    expect(m[0].content).toEqual([{ type: "text", text: "What is a LangGraph checkpoint?" }]);
    expect(m[1].content).toEqual([
      { type: "toolCall", id: "call_001", name: "search", arguments: { query: "What is a LangGraph checkpoint?" } },
    ]);
    expect(m[1].usage).toEqual({ input: 10, output: 7, totalTokens: 17 });
    expect(m[1].model).toBe("fake-tool-caller");
    expect([m[2].toolCallId, m[2].toolName, m[2].isError]).toEqual(["call_001", "search", false]);
    expect(m[2].content[0].text).toMatch(/^\d+ hits for 'What is a LangGraph checkpoint\?'$/);
    expect(m[5].content.map((c: any) => [c.id, c.arguments.query])).toEqual([
      ["call_002", "weather in Paris"],
      ["call_003", "weather in Zürich"],
    ]);
    expect(m[8].content[0].text.startsWith("Answer: ")).toBe(true);
    for (const r of [m[6], m[7]]) expect(m[8].content[0].text).toContain(r.content[0].text);
    expect(cp.step).toBe(8); // 2 invokes: -1, 0..3, then 4 (input) .. 8
    expect(cp.interrupt).toBeUndefined();
  });

  it("JS and Python a-chat-1 give the same conversation (ids and usage aside)", () => {
    const strip = (cp: any) =>
      noExt(cp.messages).map((m: any) => ({
        role: m.role,
        content: m.content,
        toolCallId: m.toolCallId,
        toolName: m.toolName,
        isError: m.isError,
      }));
    const js = newest("js-a.sqlite", "a-chat-1");
    const py = newest("python-a.sqlite", "a-chat-1");
    expect(strip(a.toCanonical(js, docOf(js)))).toEqual(strip(a.toCanonical(py, docOf(py))));
  });

  it("a-hitl-1 (left at the interrupt): the pending interrupt is the canonical interrupt, in both libraries", () => {
    for (const file of ["js-a.sqlite", "python-a.sqlite"]) {
      const t = newest(file, "a-hitl-1");
      const cp = a.toCanonical(t, docOf(t));
      expect(cp.interrupt?.toolCall.toolName).toBe("interrupt");
      expect(cp.interrupt?.toolCall.args).toEqual({
        question: "Approve this action?",
        action: "Proposed: Refund order 1042",
      });
      expect(cp.interrupt?.toolCall.toolCallId).toMatch(/^[0-9a-f]{32}$/);
    }
    // a-hitl-2 was resumed: its newest checkpoint has no pending interrupt
    const t2 = newest("python-a.sqlite", "a-hitl-2");
    expect(a.toCanonical(t2, docOf(t2)).interrupt).toBeUndefined();
  });

  it("a-counter-1: the non-message channels are canonical state; plumbing channels are not", () => {
    const t = newest("js-a.sqlite", "a-counter-1");
    const cp = a.toCanonical(t, docOf(t));
    expect(cp.messages).toEqual([]);
    expect(cp.state).toEqual({ delta: 4, total: 7, history: ["+3", "total=3", "+4", "total=7"] });
  });

  it("python-v1-persistence (v1, pre-v3 channel names): node channels are plumbing, state keys are state", () => {
    const t = newest("python-v1-persistence.sqlite", "777");
    const cp = a.toCanonical(t, docOf(t));
    expect(Object.keys(cp.state).sort()).toEqual(expect.arrayContaining(["input"]));
    for (const k of Object.keys(cp.state))
      expect(k.startsWith("start:") || k.startsWith("__") || k in (t.checkpoint.versions_seen ?? {})).toBe(false);
  });

  it("lintView agrees with toCanonical on roles, tool ids, usage and interrupt", () => {
    for (const file of FILES) {
      for (const t of tuples.get(file)!) {
        const cp = a.toCanonical(t, docOf(t)) as any;
        const v = a.lintView!(t, docOf(t)) as any;
        expect(v.threadId).toBe(cp.threadId);
        expect(JSON.stringify(v.interrupt)).toBe(JSON.stringify(cp.interrupt));
        expect(v.messages.map((m: any) => m.role)).toEqual(cp.messages.map((m: any) => m.role));
        cp.messages.forEach((m: any, i: number) => {
          const lv = v.messages[i];
          if (m.role === "assistant") {
            expect(lv.content.map((c: any) => c.type)).toEqual(m.content.map((c: any) => c.type));
            expect(lv.usage).toEqual(m.usage);
          }
          if (m.role === "toolResult") expect(lv.toolCallId).toBe(m.toolCallId);
        });
      }
    }
  });
});

describe("other formats → langgraph", () => {
  it("a deep-agent checkpoint becomes a JS v4 tuple whose messages load in @langchain/core, and reads back the same", () => {
    const path = join(import.meta.dirname, "..", "fixtures", "deepagent", "valid", "user_42_session_1.json");
    const d = { name: path, text: readFileSync(path, "utf8") };
    const cp0 = deepagentAdapter.toCanonical(deepagentAdapter.parse(d), d);
    const lossy: LossyNote[] = [];
    const tuple = a.fromCanonical(cp0, { lossy });
    expect(validators["formats/langgraph/tuple"](tuple)).toBe(true);
    expect(tuple.checkpoint.v).toBe(4);
    expect(tuple.checkpoint.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Object.values(tuple.checkpoint.channel_versions).every((v) => typeof v === "number")).toBe(true);
    const list = tuple.checkpoint.channel_values.messages as unknown[];
    return Promise.all(list.map((r) => load(JSON.stringify(r)) as Promise<BaseMessage>)).then((msgs) => {
      const want = cp0.messages.map(
        (m) => (({ user: HumanMessage, assistant: AIMessage, toolResult: ToolMessage }) as any)[m.role],
      );
      msgs.forEach((m, i) => expect(m).toBeInstanceOf(want[i]));
      const again = a.toCanonical(tuple, { name: "x", text: "" });
      const plain = (cp: any) => JSON.parse(JSON.stringify(cp.messages, (k, v) => (k === "ext" ? undefined : v)));
      expect(plain(again)).toEqual(plain(cp0));
      expect(again.state.todos ?? []).toEqual(cp0.state.todos);
      expect(again.interrupt).toEqual(cp0.interrupt);
    });
  });

  it("is registered as a format", () => {
    expect(getAdapter("langgraph")).toBe(a);
  });
});
