/**
 * Each change kind on the deep-agent and amacs samples, made where those systems make them: in the native document
 * (deep-agent checkpoint JSON; amacs org files), then both documents are read with readCheckpoint and diffed. The
 * expected records are worked out by hand from the samples:
 *
 * fixtures/deepagent/valid/all-model-message-variants.json has 7 native messages that read as 13 canonical ones —
 *   native 0 system → 0, 1 user "plain string content" → 1, 2 user (text + 2 images + file) → 2, 3 assistant (two
 *   tool calls) → 3, 4 tool (2 results) → 4 and 5 with ext.deepagent.group "call_0a", 5 assistant → 6, 6 tool (5
 *   results and an approval response) → 7…12 with group "call_1". `group` is the first part's toolCallId, not the
 *   native index, so a native message inserted, removed or moved before a tool message changes nothing else.
 * fixtures/amacs/valid/agent-home holds 4 ticks = 8 canonical messages (user, assistant per tick; step = number of
 *   ticks); every message has the same timestamp and the replies of ticks 3 and 4 both read as "" (tick 3's reply
 *   starts with a heading line, which amacs' loader drops), so those two share their identity key.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  diffCheckpoints,
  type Change,
  type FileChange,
  type MessageChange,
  type ScratchpadChange,
  type TodoChange,
} from "../src/core/diff/index.js";
import { getAdapter, readCheckpoint } from "../src/formats/index.js";
import type { Checkpoint } from "../src/generated/types.js";

const msgOps = (changes: Change[]) =>
  (changes.filter((c) => c.kind === "message") as MessageChange[]).map((c) => [c.op, c.a ?? null, c.b ?? null]);
const messageChanges = (changes: Change[]) => changes.filter((c) => c.kind === "message") as MessageChange[];
const nonMessage = (changes: Change[]) => changes.filter((c) => c.kind !== "message");

/** Write a canonical checkpoint with the format's own writer and read it back. */
function roundTrip(format: string, cp: Checkpoint, name: string): Checkpoint {
  const ad = getAdapter(format);
  const out = ad.serialize(ad.fromCanonical(structuredClone(cp), { lossy: [] }));
  return readCheckpoint("text" in out ? { name, text: out.text } : { name, files: out.files }, format).checkpoint;
}

describe("deepagent: all-model-message-variants.json, edited as native JSON", () => {
  const path = "fixtures/deepagent/valid/all-model-message-variants.json";
  const text = readFileSync(path, "utf8");
  const read = (t: string) => readCheckpoint({ name: path, text: t }, "deepagent").checkpoint;
  const a = read(text);
  /** edit the native checkpoint (as deep-agent's FileSaver would write it) and read it back */
  const native = (edit: (doc: { messages: Array<Record<string, unknown>>; [k: string]: unknown }) => void) => {
    const doc = JSON.parse(text);
    edit(doc);
    return read(JSON.stringify(doc, null, 2));
  };
  test("the sample reads as the 13 canonical messages described above", () => {
    expect(a.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
      "toolResult",
      "toolResult",
      "deepagent",
    ]);
    const groups = a.messages.map((m) => (m as { ext?: { deepagent?: { group?: unknown } } }).ext?.deepagent?.group);
    expect(groups.slice(4, 6)).toEqual(["call_0a", "call_0a"]);
    expect(groups.slice(7)).toEqual(Array(6).fill("call_1"));
  });
  test("identical to itself, and to itself written back by the deep-agent writer", () => {
    expect(diffCheckpoints(a, read(text)).identical).toBe(true);
    expect(diffCheckpoints(a, roundTrip("deepagent", a, path)).identical).toBe(true);
  });
  test("appended: a native user message at the end is canonical message 13", () => {
    const b = native((d) => d.messages.push({ role: "user", content: "one more thing" }));
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["appended", null, 13]]);
    expect(r.summary.text).toBe("1 message appended");
  });
  test("inserted at native 1: canonical 1 is new, nothing else changes (tool groups are ids, not positions)", () => {
    const b = native((d) => d.messages.splice(1, 0, { role: "user", content: "an inserted question" }));
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["inserted", null, 1]]);
    expect(r.summary.text).toBe("1 message inserted");
  });
  test("removed native 1 (a user message): canonical 1 removed, nothing else changes", () => {
    const b = native((d) => d.messages.splice(1, 1));
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["removed", 1, null]]);
    expect(r.summary.text).toBe("1 message removed");
  });
  test("edited: the text part of native message 2 — block 0 of canonical 2, a word diff", () => {
    const b = native((d) => {
      (d.messages[2]!.content as Array<{ text?: string }>)[0]!.text = "look at these (edited)";
    });
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["edited", 2, 2]]);
    const c = messageChanges(r.changes)[0]!;
    expect(c.blocks).toHaveLength(1);
    expect(c.blocks![0]).toMatchObject({ op: "changed", a: 0, b: 0, type: "text", text: { mode: "words" } });
    const parts = (c.blocks![0]!.text as { parts: Array<{ value: string; added?: boolean; removed?: boolean }> }).parts;
    expect(
      parts
        .filter((p) => p.added)
        .map((p) => p.value)
        .join(""),
    ).toBe(" (edited)");
    expect(parts.filter((p) => p.removed)).toEqual([]);
    expect(c.fields).toBeUndefined();
  });
  test("edited: the second result of the first native tool message is canonical 5, a changed tool result", () => {
    const b = native((d) => {
      const part = (d.messages[4]!.content as Array<{ output: { value: string } }>)[1]!;
      part.output.value = "Error: '/a.md' is read-only";
    });
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["edited", 5, 5]]);
    const c = messageChanges(r.changes)[0]!;
    expect(c.role).toBe("toolResult");
    expect(c.blocks).toMatchObject([{ op: "changed", a: 0, b: 0, type: "text" }]);
    expect(r.summary.text).toBe("1 tool result changed");
  });
  test("moved: native 1 to the end — canonical 1 moves to 12, nothing else changes", () => {
    const b = native((d) => {
      const [m] = d.messages.splice(1, 1);
      d.messages.push(m!);
    });
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["moved", 1, 12]]);
    const moved = messageChanges(r.changes).find((c) => c.op === "moved")!;
    // moved as is: no detail
    expect(moved.blocks).toBeUndefined();
    expect(moved.fields).toBeUndefined();
    expect(r.summary.text).toBe("1 message moved");
  });
  test("two adjacent tool messages stay two when written back, even if their first results share an id", () => {
    const doc = JSON.parse(text);
    const dup = structuredClone(doc.messages[4]);
    doc.messages.splice(5, 0, dup); // native 4 and 5: two tool messages, both starting with call_0a
    const cp = read(JSON.stringify(doc, null, 2));
    const back = JSON.parse(
      (getAdapter("deepagent").serialize(getAdapter("deepagent").fromCanonical(cp, { lossy: [] })) as { text: string })
        .text,
    );
    expect(back.messages.map((m: { role: string }) => m.role)).toEqual(
      doc.messages.map((m: { role: string }) => m.role),
    );
    expect(back.messages[4].content).toHaveLength(2);
    expect(back.messages[5].content).toHaveLength(2);
  });
});

describe("deepagent state: user_42_session_1.json, edited as native JSON", () => {
  const path = "fixtures/deepagent/valid/user_42_session_1.json";
  const text = readFileSync(path, "utf8");
  const read = (t: string) => readCheckpoint({ name: path, text: t }, "deepagent").checkpoint;
  const a = read(text);
  const native = (edit: (doc: any) => void) => {
    const doc = JSON.parse(text);
    edit(doc);
    return read(JSON.stringify(doc, null, 2));
  };
  test("todo 2 pending → completed is a status change", () => {
    const b = native((d) => {
      d.state.todos[1].status = "completed";
    });
    const r = diffCheckpoints(a, b);
    expect(r.changes).toEqual([
      { kind: "todo", op: "status", id: "2", content: "Write README", before: "pending", after: "completed" },
    ]);
    expect(r.summary.text).toBe("Todo 2 pending → completed");
  });
  test("a todo added and one removed (by id)", () => {
    const b = native((d) => {
      d.state.todos.splice(0, 1);
      d.state.todos.push({ id: "3", content: "Ship it", status: "pending" });
    });
    const r = diffCheckpoints(a, b);
    expect(r.changes).toEqual([
      { kind: "todo", op: "removed", id: "1", content: "Outline the project", before: "in_progress" },
      { kind: "todo", op: "added", id: "3", content: "Ship it", after: "pending" },
    ]);
  });
  test("a file edit: unified diff of its lines, line counts, changed modified_at", () => {
    const b = native((d) => {
      const f = d.state.files["/plan.md"];
      f.content = ["# Plan", "- outline", "- readme (done)", "- ship"];
      f.modified_at = "2026-11-22T09:00:00.000Z";
    });
    const r = diffCheckpoints(a, b);
    expect(r.changes).toHaveLength(1);
    const c = r.changes[0] as FileChange;
    expect(c).toMatchObject({ kind: "file", op: "edited", path: "/plan.md", added: 2, removed: 1 });
    expect(c.patch).toBe(
      [
        "--- a/plan.md",
        "+++ b/plan.md",
        "@@ -1,3 +1,4 @@",
        " # Plan",
        " - outline",
        "-- readme",
        "+- readme (done)",
        "+- ship",
        "",
      ].join("\n"),
    );
    expect(c.fields).toEqual([
      {
        pointer: "/state/files/~1plan.md/modified_at",
        before: "2026-11-22T08:13:51.514Z",
        after: "2026-11-22T09:00:00.000Z",
      },
    ]);
    expect(r.summary.text).toBe("File /plan.md edited (+2 −1)");
    // the file times are volatile
    const v = diffCheckpoints(a, b, { ignoreVolatile: true });
    expect((v.changes[0] as FileChange).fields).toBeUndefined();
  });
  test("a file added and the todo status changed in the same save, plus a reply appended", () => {
    const b = native((d) => {
      d.state.files["/README.md"] = {
        content: ["# Project"],
        created_at: "2026-11-22T09:00:00.000Z",
        modified_at: "2026-11-22T09:00:00.000Z",
      };
      d.state.todos[1].status = "completed";
      d.messages.push({ role: "assistant", content: "README written." });
      d.step = 4;
    });
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["appended", null, 4]]);
    const rest = nonMessage(r.changes);
    expect(rest.map((c) => c.kind)).toEqual(["todo", "file", "field"]);
    expect(rest[0] as TodoChange).toMatchObject({ op: "status", id: "2", before: "pending", after: "completed" });
    expect(rest[1] as FileChange).toMatchObject({ op: "added", path: "/README.md", added: 1, removed: 0 });
    expect((rest[1] as FileChange).patch).toContain("+# Project");
    expect(rest[2]).toEqual({ kind: "field", pointer: "/step", before: 3, after: 4 });
    expect(r.summary.text).toBe("1 message appended, todo 2 pending → completed, file /README.md added, step 3 → 4");
  });
});

describe("amacs: agent-home folder, edited as org text (complete prompt/reply pairs only)", () => {
  const dir = "fixtures/amacs/valid/agent-home";
  const files: Record<string, string> = {};
  for (const f of readdirSync(dir)) if (f.endsWith(".org")) files[f] = readFileSync(join(dir, f), "utf8");
  const read = (fs: Record<string, string>) => readCheckpoint({ name: dir, files: fs }, "amacs").checkpoint;
  const a = read(files);
  const chat = files["agent-chat.org"]!;
  /** the chat file as its title part and its `* Tick N` sections (each up to the next one) */
  const sections = () => {
    const starts = [...chat.matchAll(/^\* Tick [0-9]+$/gm)].map((m) => m.index!);
    return { head: chat.slice(0, starts[0]), ticks: starts.map((s, k) => chat.slice(s, starts[k + 1] ?? chat.length)) };
  };
  const tick = (n: number, human: string, agent: string) =>
    `* Tick ${n}\n:PROPERTIES:\n:TIMESTAMP: 2026-11-22T08:12:28Z\n:END:\n\n** Human\n${human}\n\n** Agent\n${agent}\n\n`;
  const renumber = (section: string, n: number) => section.replace(/^\* Tick [0-9]+$/m, `* Tick ${n}`);
  const withChat = (text: string) => read({ ...files, "agent-chat.org": text });
  const tickEdit = (ai: number, bj: number, before: number, after: number) => ({
    op: "edited",
    a: ai,
    b: bj,
    fields: [{ pointer: `/messages/${bj}/ext/amacs/tick`, before, after }],
  });

  test("the sample reads as 4 ticks = 8 messages, step 4", () => {
    expect(a.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(a.step).toBe(4);
  });
  test("identical to itself written back by the amacs writer", () => {
    expect(diffCheckpoints(a, roundTrip("amacs", a, dir)).identical).toBe(true);
  });
  test("appended: a Tick 5 pair is messages 8 and 9; step 4 → 5", () => {
    const b = withChat(chat + tick(5, "one more thing", "Sure."));
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([
      ["appended", null, 8],
      ["appended", null, 9],
    ]);
    expect(nonMessage(r.changes)).toEqual([{ kind: "field", pointer: "/step", before: 4, after: 5 }]);
    expect(r.summary.text).toBe("2 messages appended, step 4 → 5");
  });
  test("inserted: a pair after Tick 1, later ticks renumbered — 2 inserted, the 6 later messages' tick + 1", () => {
    const { head, ticks } = sections();
    const b = withChat(
      head +
        ticks[0] +
        tick(2, "an inserted question", "an inserted answer") +
        ticks
          .slice(1)
          .map((s, k) => renumber(s, k + 3))
          .join(""),
    );
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([
      ["inserted", null, 2],
      ["inserted", null, 3],
      ["edited", 2, 4],
      ["edited", 3, 5],
      ["edited", 4, 6],
      ["edited", 5, 7],
      ["edited", 6, 8],
      ["edited", 7, 9],
    ]);
    // the replies of ticks 3 and 4 share their identity key: each is matched with its own counterpart
    expect(messageChanges(r.changes).filter((c) => c.op === "edited")).toMatchObject([
      tickEdit(2, 4, 2, 3),
      tickEdit(3, 5, 2, 3),
      tickEdit(4, 6, 3, 4),
      tickEdit(5, 7, 3, 4),
      tickEdit(6, 8, 4, 5),
      tickEdit(7, 9, 4, 5),
    ]);
    expect(nonMessage(r.changes)).toEqual([{ kind: "field", pointer: "/step", before: 4, after: 5 }]);
  });
  test("removed: the Tick 2 section (ticks not renumbered) — messages 2 and 3 removed, step 4 → 3", () => {
    const { head, ticks } = sections();
    const b = withChat(head + ticks[0] + ticks[2] + ticks[3]);
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([
      ["removed", 2, null],
      ["removed", 3, null],
    ]);
    expect(nonMessage(r.changes)).toEqual([{ kind: "field", pointer: "/step", before: 4, after: 3 }]);
    expect(r.summary.text).toBe("2 messages removed, step 4 → 3");
  });
  test("edited: Tick 1's reply — message 1, block 0, a word diff", () => {
    const b = withChat(chat.replace("moved into the closure.", "moved into the closure. Thanks."));
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([["edited", 1, 1]]);
    const c = messageChanges(r.changes)[0]!;
    expect(c.role).toBe("assistant");
    expect(c.blocks).toMatchObject([{ op: "changed", a: 0, b: 0, type: "text", text: { mode: "words" } }]);
    const parts = (c.blocks![0]!.text as { parts: Array<{ value: string; added?: boolean; removed?: boolean }> }).parts;
    expect(
      parts
        .filter((p) => p.added)
        .map((p) => p.value)
        .join(""),
    ).toBe(" Thanks.");
    expect(parts.filter((p) => p.removed)).toEqual([]);
    expect(nonMessage(r.changes)).toEqual([]);
  });
  test("moved: the Tick 1 section after Tick 3 (not renumbered) — messages 0 and 1 move to 4 and 5", () => {
    const { head, ticks } = sections();
    const b = withChat(head + ticks[1] + ticks[2] + ticks[0] + ticks[3]);
    const r = diffCheckpoints(a, b);
    expect(msgOps(r.changes)).toEqual([
      ["moved", 0, 4],
      ["moved", 1, 5],
    ]);
    expect(nonMessage(r.changes)).toEqual([]);
    expect(r.summary.text).toBe("2 messages moved");
  });

  describe("scratchpad notes", () => {
    const pad = files["scratchpad.org"]!;
    const withPad = (text: string) => read({ ...files, "scratchpad.org": text });
    test("a note's text extended: edited, with a line diff (5 lines is long text)", () => {
      const b = withPad(
        pad.replace("Second global note appended later.\n", "Second global note appended later.\n\nThird note.\n"),
      );
      const r = diffCheckpoints(a, b);
      expect(r.changes).toHaveLength(1);
      const c = r.changes[0] as ScratchpadChange;
      expect(c).toMatchObject({ kind: "scratchpad", op: "edited", heading: "Working Notes", a: 0, b: 0 });
      expect(c.text).toEqual({
        mode: "lines",
        patch: [
          "--- a",
          "+++ b",
          "@@ -1,3 +1,5 @@",
          " Human prefers short answers.",
          " ",
          " Second global note appended later.",
          "+",
          "+Third note.",
          "",
        ].join("\n"),
      });
      expect(c.fields).toBeUndefined();
      expect(r.summary.text).toBe('Scratchpad note "Working Notes" edited');
    });
    test("a note added at the end, and a note's tick changed", () => {
      const b = withPad(
        pad.replace(":TICK: 2", ":TICK: 3") +
          "* Release Plan\n:PROPERTIES:\n:THREAD: null\n:TICK: 4\n:END:\n\nShip on Friday.\n",
      );
      const r = diffCheckpoints(a, b);
      expect(r.changes).toEqual([
        {
          kind: "scratchpad",
          op: "edited",
          heading: "Parser Investigation",
          a: 1,
          b: 1,
          fields: [{ pointer: "/state/scratchpad/1/tick", before: 2, after: 3 }],
        },
        { kind: "scratchpad", op: "added", heading: "Release Plan", b: 2 },
      ]);
      expect(r.summary.text).toBe(
        'Scratchpad note "Parser Investigation" edited, scratchpad note "Release Plan" added',
      );
    });
    test("a note removed", () => {
      const cut = pad.indexOf("* Parser Investigation");
      const b = withPad(pad.slice(0, cut));
      const r = diffCheckpoints(a, b);
      expect(r.changes).toEqual([{ kind: "scratchpad", op: "removed", heading: "Parser Investigation", a: 1 }]);
    });
  });
});
