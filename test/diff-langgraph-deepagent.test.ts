/**
 * #10 "Done when": a LangGraph thread against a deep-agent checkpoint of the same conversation reports only the real
 * differences. The LangGraph side is the Python SqliteSaver's store (a temp copy, byte-identical afterwards); the
 * deep-agent side is fixtures/diff/langgraph/a-chat-1.deepagent.json (how it was made: README there). Expected
 * values are worked out from the generator's rules (gen_py.py: the fake model's usage is 10·n input / 7 output
 * tokens for n messages sent; "<words> hits for '<query>'"; "Answer: " + the results joined by "; "), not printed by
 * ckpt.
 */
import { describe, expect, test } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelMessageSchema } from "ai";
import { runCli } from "./helpers/cli-io.js";

const DEEP = "fixtures/diff/langgraph/a-chat-1.deepagent.json";
const STORE = "fixtures/langgraph/python-a.sqlite";

/** main() in-process with an empty environment (no colour: not a TTY). */
const run = (argv: string[]) => runCli(argv, { env: {} });

/** The conversation by the generator's rules (sets.json A / a-chat-1 inputs). */
function expectedConversation() {
  const hits = (q: string) => `${q.split(/\s+/).length} hits for '${q}'`;
  const inputs = ["What is a LangGraph checkpoint?", "weather in Paris; weather in Zürich"];
  const messages: unknown[] = [];
  let call = 0;
  for (const text of inputs) {
    messages.push({ role: "user", content: text });
    const qs = text.split(";").map((q) => q.trim());
    const ids = qs.map(() => `call_${String(++call).padStart(3, "0")}`);
    messages.push({
      role: "assistant",
      content: qs.map((q, k) => ({ type: "tool-call", toolCallId: ids[k], toolName: "search", input: { query: q } })),
    });
    messages.push({
      role: "tool",
      content: qs.map((q, k) => ({
        type: "tool-result",
        toolCallId: ids[k],
        toolName: "search",
        output: { type: "text", value: hits(q) },
      })),
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: "Answer: " + qs.map(hits).join("; ") }] });
  }
  return messages;
}

describe("a LangGraph thread against a deep-agent checkpoint of the same conversation (#10)", () => {
  const text = readFileSync(DEEP, "utf8");
  const deep = JSON.parse(text) as {
    messages: unknown[];
    step: number;
    state: unknown;
    createdAt: string;
    updatedAt: string;
  };

  test("the deep-agent fixture has deep-agent's real shapes and is the same conversation", async () => {
    expect(Object.keys(deep)).toEqual(["threadId", "step", "messages", "state", "createdAt", "updatedAt"]);
    expect(text.endsWith("}")).toBe(true); // FileSaver: no final newline
    for (const m of deep.messages) expect(modelMessageSchema.safeParse(m).success, JSON.stringify(m)).toBe(true);
    expect(deep.messages).toEqual(expectedConversation());
    expect(deep.step).toBe(4);
    expect(deep.state).toEqual({ todos: [], files: {} });
    expect(new Date(deep.updatedAt).toISOString()).toBe(deep.updatedAt);
    const v = await run(["validate", DEEP, "--format", "deepagent", "--strict"]);
    expect(v.code, v.out + v.err).toBe(0);
  });

  test("ckpt diff reports only what one side cannot hold, and reads the store without changing it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-lg-deep-"));
    const db = join(dir, "python-a.sqlite");
    copyFileSync(STORE, db);
    const sha = () => createHash("sha256").update(readFileSync(db)).digest("hex");
    const before = sha();
    const r = await run(["diff", `sqlite:${db}#a-chat-1`, DEEP, "--json"]);
    expect(r.code, r.err).toBe(1);
    expect(sha()).toBe(before);
    const d = JSON.parse(r.out);
    // the four assistant messages (canonical 1, 3, 5, 8; n = 1, 3, 5, 8 messages were sent to the model): their
    // model and usage, which an AI SDK message has no place for
    const assistant = [1, 3, 5, 8];
    const messages = d.changes.filter((c: { kind: string }) => c.kind === "message");
    expect(messages.map((c: { op: string; a: number; b: number }) => [c.op, c.a, c.b])).toEqual(
      assistant.map((i) => ["edited", i, i]),
    );
    for (const c of messages) {
      const n = c.a as number;
      expect(c.blocks).toBeUndefined();
      expect(
        [...c.fields].sort((x: { pointer: string }, y: { pointer: string }) => x.pointer.localeCompare(y.pointer)),
      ).toEqual([
        { pointer: `/messages/${n}/model`, before: "fake-tool-caller" },
        { pointer: `/messages/${n}/usage`, before: { input: 10 * n, output: 7, totalTokens: 10 * n + 7 } },
      ]);
    }
    const usage = d.changes.find((c: { kind: string }) => c.kind === "usage");
    expect(usage.delta).toMatchObject({ input: -(10 + 30 + 50 + 80), output: -28 });
    expect(d.changes.filter((c: { kind: string }) => c.kind === "model")).toEqual([
      { kind: "model", field: "model", before: "fake-tool-caller" },
    ]);
    // LangGraph's step is its super-step count, deep-agent's the model steps; deep-agent's Date has no microseconds
    expect(d.changes.filter((c: { kind: string }) => c.kind === "field")).toEqual([
      { kind: "field", pointer: "/step", before: 8, after: 4 },
      {
        kind: "field",
        pointer: "/updatedAt",
        before: "2026-11-23T08:43:37.955824+00:00",
        after: "2026-11-23T08:43:37.955Z",
      },
    ]);
    expect(d.changes).toHaveLength(assistant.length + 4);
    // deep-agent's createdAt (the same instant as LangGraph's ts) and its empty todos/files are defaults, said once
    expect(d.notes.filter((n: string) => n.startsWith("conversion defaults"))).toEqual([
      "conversion defaults not compared — values a format writes where it has none, absent on the other side: b (deepagent): 3 values (createdAt, state.todos, state.files)",
    ]);
  });

  test("a change made to the deep-agent side is reported", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-lg-deep-"));
    const db = join(dir, "python-a.sqlite");
    copyFileSync(STORE, db);
    const changed = join(dir, "a-chat-1.json");
    writeFileSync(
      changed,
      text.replace("Answer: 3 hits for 'weather in Paris'", "Answer: 4 hits for 'weather in Paris'"),
    );
    const r = await run(["diff", `sqlite:${db}#a-chat-1`, changed, "--json"]);
    const d = JSON.parse(r.out);
    const last = d.changes.find((c: { kind: string; a?: number }) => c.kind === "message" && c.a === 8);
    expect(last.blocks?.[0]).toMatchObject({ op: "changed", type: "text" });
    const words = last.blocks[0].text.parts;
    expect(
      words
        .filter((p: { removed?: boolean }) => p.removed)
        .map((p: { value: string }) => p.value)
        .join(""),
    ).toBe("3");
    expect(
      words
        .filter((p: { added?: boolean }) => p.added)
        .map((p: { value: string }) => p.value)
        .join(""),
    ).toBe("4");
  });
});
