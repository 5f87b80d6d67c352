import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import jsonpatch from "fast-json-patch";
import { align, diffCheckpoints, lis, type MessageChange } from "../src/core/diff/index.js";
import { parseJson } from "../src/base/json.js";
import type { AgentMessage, Checkpoint } from "../src/generated/types.js";

const load = (p: string) => parseJson(readFileSync(p, "utf8"), { file: p }) as Checkpoint;
const user = (text: string, timestamp?: number): AgentMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  ...(timestamp ? { timestamp } : {}),
});
const asst = (text: string, extra: Record<string, unknown> = {}): AgentMessage =>
  ({ role: "assistant", content: [{ type: "text", text }], ...extra }) as AgentMessage;
const cp = (
  messages: AgentMessage[],
  state: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Checkpoint => ({ schemaVersion: 1, threadId: "t", step: 1, messages, state, ...extra }) as Checkpoint;
const msgOps = (r: { changes: Array<{ kind: string }> }) =>
  (r.changes.filter((c) => c.kind === "message") as MessageChange[]).map((c) => [c.op, c.a ?? null, c.b ?? null]);

describe("align", () => {
  const ids = (s: string) => s.split("");
  const run = (a: string, b: string) => {
    const A = ids(a);
    const B = ids(b);
    return align(
      A.length,
      B.length,
      (i, j) => A[i] === B[j],
      (i) => A[i]!,
      (j) => B[j]!,
    );
  };
  test("trims the common prefix and suffix", () => {
    const al = run("abcdef", "abXcdef");
    expect(al.pre).toBe(2);
    expect(al.suf).toBe(4);
    expect(al.inserted).toEqual([2]);
    expect(al.removed).toEqual([]);
  });
  test("a moved item is the only one reported moved (LIS)", () => {
    const al = run("abcdefgh", "abdefgch");
    expect(al.moved).toEqual([[2, 6]]);
    expect(al.removed).toEqual([]);
    expect(al.inserted).toEqual([]);
  });
  test("lis marks a longest increasing subsequence", () => {
    const m = lis([3, 1, 2, 5, 4, 6]);
    const picked = [3, 1, 2, 5, 4, 6].filter((_x, i) => m[i]);
    expect(picked.length).toBe(4);
    for (let i = 1; i < picked.length; i++) expect(picked[i]!).toBeGreaterThan(picked[i - 1]!);
  });
  test("lis picks, among the longest, the one ending at the last tail and following its links (which is moved depends on it)", () => {
    // reference: patience sorting as written out here, backtracking from the final last tail (O(n log n) by bisection)
    const reference = (xs: number[]) => {
      const tails: number[] = [];
      const prev = xs.map(() => -1);
      xs.forEach((x, i) => {
        let lo = 0;
        while (lo < tails.length && xs[tails[lo]!]! < x) lo++;
        if (lo > 0) prev[i] = tails[lo - 1]!;
        tails[lo] = i;
      });
      const out = xs.map(() => 0);
      for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = prev[i]!) out[i] = 1;
      return out;
    };
    let seed = 9;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
    for (let round = 0; round < 2000; round++) {
      const xs = Array.from({ length: rnd(30) }, () => rnd(round % 2 ? 8 : 500));
      expect([...lis(xs)], xs.join(",")).toEqual(reference(xs));
    }
    expect([...lis([1, 5, 2])]).toEqual([1, 0, 1]); // the last tail was replaced (5 by 2): the subsequence ends at 2
  });
  test("repeated keys are matched inside their gap", () => {
    const al = run("xaxbx", "xaxbxx");
    expect(al.inserted.length + al.removed.length).toBe(1);
    expect(al.moved).toEqual([]);
  });
});

describe("message change kinds (canonical)", () => {
  const base = [
    user("one", 1),
    asst("two", { timestamp: 2 }),
    user("three", 3),
    asst("four", { timestamp: 4 }),
    user("five", 5),
  ];
  test("identical", () => {
    const r = diffCheckpoints(cp(base), cp(structuredClone(base)));
    expect(r.identical).toBe(true);
    expect(r.summary.text).toBe("Identical");
    expect(r.changes).toEqual([]);
  });
  test("appended", () => {
    const r = diffCheckpoints(cp(base), cp([...base, asst("six", { timestamp: 6 })]));
    expect(msgOps(r)).toEqual([["appended", null, 5]]);
    expect(r.summary.text).toBe("1 message appended");
  });
  test("inserted", () => {
    const b = [...base];
    b.splice(1, 0, user("inserted", 9));
    const r = diffCheckpoints(cp(base), cp(b));
    expect(msgOps(r)).toEqual([["inserted", null, 1]]);
  });
  test("removed", () => {
    const b = base.filter((_m, i) => i !== 2);
    const r = diffCheckpoints(cp(base), cp(b));
    expect(msgOps(r)).toEqual([["removed", 2, null]]);
    expect(r.summary.text).toBe("1 message removed");
  });
  test("edited: the block and a word diff", () => {
    const b = structuredClone(base);
    (b[2] as { content: Array<{ text: string }> }).content[0]!.text = "three and a half";
    const r = diffCheckpoints(cp(base), cp(b));
    expect(msgOps(r)).toEqual([["edited", 2, 2]]);
    const c = r.changes[0] as MessageChange;
    expect(c.blocks).toEqual([
      {
        op: "changed",
        a: 0,
        b: 0,
        type: "text",
        text: { mode: "words", parts: [{ value: "three" }, { value: " and a half", added: true }] },
      },
    ]);
  });
  test("edited long text gets a unified line diff", () => {
    const long = Array.from({ length: 20 }, (_x, i) => `line ${i}`).join("\n");
    const a = [user(long)];
    const b = [user(long.replace("line 10", "line ten"))];
    const c = diffCheckpoints(cp(a), cp(b)).changes[0] as MessageChange;
    const t = c.blocks![0]!.text!;
    expect(t.mode).toBe("lines");
    expect(t.mode === "lines" && t.patch).toContain("-line 10\n+line ten\n");
    expect(t.mode === "lines" && t.patch).toContain("@@ -8,7 +8,7 @@");
  });
  test("moved", () => {
    const b = [base[0]!, base[2]!, base[3]!, base[1]!, base[4]!];
    const r = diffCheckpoints(cp(base), cp(b));
    expect(msgOps(r)).toEqual([["moved", 1, 3]]);
    expect(r.summary.text).toBe("1 message moved");
  });
  test("a tool result matched by toolCallId is a changed tool result", () => {
    const tr = (text: string): AgentMessage => ({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text }],
      isError: false,
    });
    const call: AgentMessage = {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { cmd: "ls" } }],
    };
    const r = diffCheckpoints(
      cp([user("go"), call, tr("a.txt")]),
      cp([user("go"), call, { ...tr("a.txt b.txt"), isError: true } as AgentMessage]),
    );
    expect(r.summary.text).toBe("1 tool result changed");
    const c = r.changes[0] as MessageChange;
    expect(c.fields).toEqual([{ pointer: "/messages/2/isError", before: false, after: true }]);
  });
  test("phi-core nodeIds identify messages even when edited and moved", () => {
    const n = (id: number, text: string): AgentMessage =>
      ({ ...user(text), ext: { "phi-core": { nodeId: id } } }) as AgentMessage;
    const r = diffCheckpoints(cp([n(1, "a"), n(2, "b"), n(3, "c")]), cp([n(2, "b"), n(3, "c"), n(1, "A!")]));
    expect(msgOps(r)).toEqual([["moved", 0, 2]]);
    expect((r.changes[0] as MessageChange).blocks?.[0]?.op).toBe("changed");
  });
  test("key order inside a message is not a change", () => {
    const a = cp([{ role: "user", content: [{ type: "text", text: "x" }], timestamp: 1 }]);
    const b = cp([{ timestamp: 1, content: [{ text: "x", type: "text" }], role: "user" } as AgentMessage]);
    expect(diffCheckpoints(a, b).identical).toBe(true);
  });
});

describe("state, usage, model, fields (hand-made fixture)", () => {
  const a = load("fixtures/diff/ckpt/base.json");
  const b = load("fixtures/diff/ckpt/after.json");
  const expected = JSON.parse(readFileSync("fixtures/diff/ckpt/after.expect.json", "utf8"));
  const r = diffCheckpoints(a, b);
  test("summary paragraph", () => expect(r.summary.text).toBe(expected.summary));
  test("message records", () => {
    const got = (r.changes.filter((c) => c.kind === "message") as MessageChange[]).map((c) => ({
      op: c.op,
      role: c.role,
      ...(c.a !== undefined ? { a: c.a } : {}),
      ...(c.b !== undefined ? { b: c.b } : {}),
    }));
    expect(got).toEqual(expected.messages);
  });
  test("todo status change is called out", () => {
    expect(r.changes.find((c) => c.kind === "todo")).toEqual({
      kind: "todo",
      op: "status",
      id: "2",
      content: "fix parser",
      before: "pending",
      after: "completed",
    });
  });
  test("file unified diff", () => {
    const f = r.changes.find((c) => c.kind === "file" && c.path === "/parser.ts");
    expect(f).toMatchObject({ op: "edited", added: 3, removed: 1 });
    expect(f && "patch" in f && f.patch).toBe(
      "--- a/parser.ts\n+++ b/parser.ts\n@@ -1,1 +1,3 @@\n-export function parse() {}\n+export function parse() {\n+  return 1;\n+}\n",
    );
  });
  test("usage totals as deltas", () => {
    const u = r.changes.find((c) => c.kind === "usage");
    expect(u && u.kind === "usage" && u.delta).toEqual({
      input: 1234,
      output: 10,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      reasoning: 0,
    });
  });
  test("--ignore-volatile drops timestamps, usage and file times", () => {
    expect(diffCheckpoints(a, b, { ignoreVolatile: true }).summary.text).toBe(expected.volatileSummary);
  });
  test("--ignore globs", () => {
    const r2 = diffCheckpoints(a, b, { ignore: ["/state/files/**", "/state/todos", "/step", "/updatedAt"] });
    expect(r2.changes.some((c) => c.kind === "file" || c.kind === "todo")).toBe(false);
    expect(r2.summary.text).toBe(
      "2 messages appended, 1 tool result changed, +1,234 input tokens, +10 output tokens, model m1 → m2",
    );
  });
  test("a timestamp-only change disappears under an ignore glob", () => {
    const x = cp([user("a", 1)]);
    const y = cp([user("a", 2)]);
    expect(diffCheckpoints(x, y).identical).toBe(false);
    expect(diffCheckpoints(x, y, { ignore: ["/messages/*/timestamp"] }).identical).toBe(true);
  });
  test("a glob not starting with / is a usage error", () => {
    expect(() => diffCheckpoints(a, b, { ignore: ["messages/*"] })).toThrow(/pointer glob/);
  });
});

describe("other state kinds", () => {
  test("scratchpad notes by heading", () => {
    const a = cp([], {
      scratchpad: [
        { heading: "Plan", content: "step one" },
        { heading: "Notes", content: "x" },
      ],
    });
    const b = cp([], {
      scratchpad: [
        { heading: "Plan", content: "step one, step two" },
        { heading: "Ideas", content: "y" },
      ],
    });
    const r = diffCheckpoints(a, b);
    expect(r.changes.map((c) => (c.kind === "scratchpad" ? [c.op, c.heading] : c.kind))).toEqual([
      ["edited", "Plan"],
      ["removed", "Notes"],
      ["added", "Ideas"],
    ]);
    expect(r.summary.text).toBe(
      'Scratchpad note "Plan" edited, scratchpad note "Notes" removed, scratchpad note "Ideas" added',
    );
  });
  test("contexts by name", () => {
    const a = cp([], { contexts: { Memory: { id: "1", items: [1] }, Gone: {} } });
    const b = cp([], { contexts: { Memory: { id: "1", items: [1, 2] } } });
    const r = diffCheckpoints(a, b);
    expect(r.changes).toEqual([
      {
        kind: "context",
        op: "edited",
        name: "Memory",
        fields: [{ pointer: "/state/contexts/Memory/items", before: [1], after: [1, 2] }],
      },
      { kind: "context", op: "removed", name: "Gone" },
    ]);
  });
  test("todos added, removed and edited", () => {
    const a = cp([], {
      todos: [
        { id: "1", content: "a", status: "pending" },
        { id: "2", content: "b", status: "pending" },
      ],
    });
    const b = cp([], {
      todos: [
        { id: "1", content: "a!", status: "pending" },
        { id: "3", content: "c", status: "pending" },
      ],
    });
    expect(diffCheckpoints(a, b).summary.text).toBe("Todo 1 edited, todo 2 removed, todo 3 added");
  });
  test("bigints beyond 2^53 are compared exactly", () => {
    const a = cp([], {}, { ext: { x: 9007199254740993n } });
    const b = cp([], {}, { ext: { x: 9007199254740993n } });
    const c = cp([], {}, { ext: { x: 9007199254740995n } });
    expect(diffCheckpoints(a, b).identical).toBe(true);
    expect(diffCheckpoints(a, c).changes).toEqual([
      { kind: "field", pointer: "/ext/x", before: 9007199254740993n, after: 9007199254740995n },
    ]);
  });
});

describe("json-patch round trip (property test, fast-json-patch applies it)", () => {
  // a small deterministic PRNG so failures reproduce
  function rng(seed: number) {
    let s = seed >>> 0;
    return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  }
  function randomMessage(r: () => number, k: number): AgentMessage {
    const roles = ["user", "assistant", "toolResult"] as const;
    const role = roles[Math.floor(r() * 3)]!;
    const text = `m${k} ${r() < 0.3 ? "same words" : Math.floor(r() * 1000)}`;
    if (role === "toolResult")
      return {
        role,
        toolCallId: `c${Math.floor(r() * 5)}`,
        toolName: "t",
        content: [{ type: "text", text }],
        isError: r() < 0.2,
      };
    if (role === "assistant")
      return {
        role,
        content: [
          { type: "text", text },
          ...(r() < 0.4
            ? [{ type: "toolCall" as const, id: `c${Math.floor(r() * 5)}`, name: "t", arguments: { n: k } }]
            : []),
        ],
        usage: { input: k, output: 1 },
      };
    return { role, content: [{ type: "text", text }], ...(r() < 0.5 ? { timestamp: k } : {}) };
  }
  function randomEdit(r: () => number, c: Checkpoint, k: number) {
    const ms = c.messages;
    const at = () => Math.floor(r() * (ms.length + 1));
    const pick = () => Math.floor(r() * ms.length);
    const op = Math.floor(r() * 9);
    if (op === 0 || ms.length === 0) ms.push(randomMessage(r, k));
    else if (op === 1) ms.splice(at(), 0, randomMessage(r, k));
    else if (op === 2) ms.splice(pick(), 1);
    else if (op === 3) {
      const m = ms[pick()]!;
      if ("content" in m && Array.isArray(m.content) && m.content[0]?.type === "text") m.content[0].text += " edited";
    } else if (op === 4) {
      const [m] = ms.splice(pick(), 1);
      ms.splice(at(), 0, m!);
    } else if (op === 5) ms[pick()] = randomMessage(r, k);
    else if (op === 6)
      c.state.todos = [
        ...(c.state.todos ?? []),
        { id: String(k), content: "t", status: r() < 0.5 ? "pending" : "completed" },
      ];
    else if (op === 7)
      c.state.files = {
        ...(c.state.files ?? {}),
        [`/f${Math.floor(r() * 3)}`]: { content: [String(k)], created_at: "x", modified_at: String(k) },
      };
    else c.step = k;
  }
  test("for random edit scripts, applying our patch to A gives B", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const a = cp(Array.from({ length: Math.floor(r() * 12) }, (_x, k) => randomMessage(r, k)));
      const b = structuredClone(a);
      const edits = 1 + Math.floor(r() * 6);
      for (let e = 0; e < edits; e++) randomEdit(r, b, 100 + e);
      const d = diffCheckpoints(a, b, { patch: true });
      const out = jsonpatch.applyPatch(structuredClone(a), d.patch as jsonpatch.Operation[], true, false).newDocument;
      expect(out, `seed ${seed}`).toEqual(b);
      expect(d.identical, `seed ${seed}`).toBe(JSON.stringify(a) === JSON.stringify(b));
    }
  });
  test("one inserted message is one operation", () => {
    const a = cp(Array.from({ length: 1000 }, (_x, k) => user(`m${k}`, k)));
    const b = structuredClone(a);
    b.messages.splice(3, 0, user("new", 1e6));
    const d = diffCheckpoints(a, b, { patch: true });
    expect(d.patch).toEqual([{ op: "add", path: "/messages/3", value: user("new", 1e6) }]);
  });
  test("a moved message is one move operation", () => {
    const a = cp(Array.from({ length: 100 }, (_x, k) => user(`m${k}`, k)));
    const b = structuredClone(a);
    const [m] = b.messages.splice(10, 1);
    b.messages.splice(80, 0, m!);
    expect(diffCheckpoints(a, b, { patch: true }).patch).toEqual([
      { op: "move", from: "/messages/10", path: "/messages/80" },
    ]);
  });
});
