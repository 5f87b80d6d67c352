/**
 * Each message change kind on every seed format whose adapter has landed: a real sample is read, the edit is made
 * in the canonical model, the edited checkpoint is written back with the format's own writer and read again, and
 * the diff of the two documents must report exactly that edit. Plus cross-format comparison.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { diffCheckpoints, type MessageChange } from "../src/core/diff/index.js";
import { getAdapter, readCheckpoint } from "../src/formats/index.js";
import { convertDocument } from "../src/core/convert.js";
import type { AgentMessage, Checkpoint } from "../src/generated/types.js";

/** format → a real sample written by the system itself (fixtures/<format>/valid). */
const SAMPLES: Record<string, string> = {
  yoagent: "fixtures/yoagent/valid/save_messages.v0.18.json",
  "yoagent-session": "fixtures/yoagent-session/valid/session.v0.18.jsonl",
  "phi-core": "fixtures/phi-core/valid/save_messages.v0.10.json",
  "phi-core-session": "fixtures/phi-core-session/valid/session.sess-1.v0.10.json",
  swarmer: "fixtures/swarmer/valid/agent_123456789.pkl",
};

/** A sample as a SourceDoc: one file, or an amacs folder of org files. */
function sampleDoc(path: string) {
  if (statSync(path).isDirectory()) {
    const files: Record<string, string> = {};
    for (const f of readdirSync(path)) if (f.endsWith(".org")) files[f] = readFileSync(join(path, f), "utf8");
    return { name: path, files };
  }
  return { name: path, text: readFileSync(path, "utf8") };
}

const msgOps = (changes: Array<{ kind: string }>) =>
  (changes.filter((c) => c.kind === "message") as MessageChange[]).map((c) => [c.op, c.a ?? null, c.b ?? null]);
const userMsg = (text: string): AgentMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: 1767225699000,
});
const firstUser = (ms: AgentMessage[]) =>
  ms.findIndex(
    (m) => m.role === "user" && (m as { content: Array<{ type: string }> }).content.some((b) => b.type === "text"),
  );

/** Write a canonical checkpoint with the format's own writer and read it back, as a second document of that format. */
function roundTrip(format: string, cp: Checkpoint, name: string): Checkpoint {
  const ad = getAdapter(format);
  const out = ad.serialize(ad.fromCanonical(structuredClone(cp), { lossy: [] }));
  return readCheckpoint("text" in out ? { name, text: out.text } : { name, files: out.files }, format).checkpoint;
}

/**
 * yoagent-session orders messages by parent links, not by array position: an insertion or a move is made in the
 * JSONL itself (re-pointing parent_id), as the system would. Returns the edited text and the expected records.
 */
const SESSION_EDITS: Record<string, (lines: Array<Record<string, unknown>>) => { expect: unknown[] }> = {
  // e1 ← e2 becomes e1 ← e9 ← e2: a message inserted at 1, and e2's parent link changed
  inserted: (lines) => {
    // parents come before children in the file, and the last line is the active leaf: e9 goes right after e1
    lines.splice(1, 0, {
      id: "e9",
      parent_id: "e1",
      message: { role: "user", content: [{ type: "text", text: "an inserted question" }], timestamp: 1767225600001 },
      timestamp: 1767225600002,
    });
    lines.find((l) => l.id === "e2")!.parent_id = "e9";
    return {
      expect: [
        ["inserted", null, 1],
        ["edited", 1, 2],
      ],
    };
  },
  // e2 ← e5 ← e6 becomes e2 ← e6 ← e5: e6 moved before e5 (both parent links changed)
  moved: (lines) => {
    const e5 = lines.findIndex((l) => l.id === "e5");
    const [l5] = lines.splice(e5, 1);
    l5!.parent_id = "e6";
    lines.find((l) => l.id === "e6")!.parent_id = "e2";
    lines.push(l5!); // the last line is the active leaf
    // an adjacent swap: both messages are reported as moved (#15 item 22), e5 also edited (its parent link)
    return {
      expect: [
        ["moved", 3, 2],
        ["moved", 2, 3],
      ],
    };
  },
};

for (const [format, path] of Object.entries(SAMPLES)) {
  describe(`${format}: ${basename(path)}`, () => {
    const doc = sampleDoc(path);
    const a = readCheckpoint(doc, format).checkpoint;
    const n = a.messages.length;
    const edited = (f: (ms: AgentMessage[]) => void) => {
      const cp = structuredClone(a);
      f(cp.messages);
      return roundTrip(format, cp, path);
    };
    test("the sample is identical to itself written back", () => {
      expect(diffCheckpoints(a, roundTrip(format, a, path)).identical).toBe(true);
    });
    test("appended", () => {
      const b = edited((ms) => ms.push(userMsg("one more thing")));
      expect(msgOps(diffCheckpoints(a, b).changes)).toEqual([["appended", null, n]]);
    });
    const nativeEdit = (kind: string) => {
      const lines = doc
        .text!.split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const { expect: want } = SESSION_EDITS[kind]!(lines);
      const b = readCheckpoint(
        { name: path, text: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" },
        format,
      ).checkpoint;
      return { b, want };
    };
    test("inserted", () => {
      if (format === "yoagent-session") {
        const { b, want } = nativeEdit("inserted");
        expect(msgOps(diffCheckpoints(a, b).changes)).toEqual(want);
        return;
      }
      const b = edited((ms) => ms.splice(1, 0, userMsg("an inserted question")));
      expect(msgOps(diffCheckpoints(a, b).changes)).toEqual([["inserted", null, 1]]);
    });
    test("removed", () => {
      const i = firstUser(a.messages);
      const b = edited((ms) => ms.splice(i, 1));
      const r = diffCheckpoints(a, b);
      expect(msgOps(r.changes)).toEqual([["removed", i, null]]);
      expect(r.summary.text).toMatch(/^1 message removed/);
    });
    test("edited, with the changed block", () => {
      const i = firstUser(a.messages);
      const b = edited((ms) => {
        const blocks = (ms[i] as { content: Array<{ type: string; text?: string }> }).content;
        blocks.find((x) => x.type === "text")!.text += " (edited)";
      });
      const r = diffCheckpoints(a, b);
      expect(msgOps(r.changes)).toEqual([["edited", i, i]]);
      const c = r.changes[0] as MessageChange;
      expect(c.blocks?.[0]?.op).toBe("changed");
      expect(c.blocks?.[0]?.text).toMatchObject({ mode: "words" });
      const parts =
        c.blocks![0]!.text!.mode === "words"
          ? (c.blocks![0]!.text as { parts: Array<{ value: string; added?: boolean }> }).parts
          : [];
      expect(
        parts
          .filter((p) => p.added)
          .map((p) => p.value)
          .join(""),
      ).toBe(" (edited)");
    });
    test("moved", () => {
      if (format === "yoagent-session") {
        const { b, want } = nativeEdit("moved");
        expect(msgOps(diffCheckpoints(a, b).changes)).toEqual(want);
        return;
      }
      const i = firstUser(a.messages);
      const b = edited((ms) => {
        const [m] = ms.splice(i, 1);
        ms.push(m!);
      });
      const r = diffCheckpoints(a, b);
      expect(msgOps(r.changes)).toEqual([["moved", i, n - 1]]);
    });
  });
}

describe("cross-format comparison", () => {
  const path = SAMPLES.yoagent!;
  const doc = { name: path, text: readFileSync(path, "utf8") };
  test("a yoagent history and its phi-core conversion: the differences are exactly what the converter says it dropped", () => {
    const conv = convertDocument(doc, { from: "yoagent", to: "phi-core" });
    const phi = readCheckpoint(
      { name: path, text: "text" in conv.output ? conv.output.text : "" },
      "phi-core",
    ).checkpoint;
    const a = readCheckpoint(doc, "yoagent").checkpoint;
    // phi-core's Usage always has `reasoning` (serde default 0): not a loss, ignored here
    const r = diffCheckpoints(a, phi, { ignore: ["/messages/*/usage/reasoning"] });
    expect(r.notes[0]).toMatch(/formats differ \(yoagent vs phi-core\)/);
    const lostIn = [...new Set(conv.lossy.map((l) => Number(l.pointer.split("/")[2])))].sort((x, y) => x - y);
    expect(lostIn.length).toBeGreaterThan(0);
    expect(msgOps(r.changes)).toEqual(lostIn.map((i) => ["edited", i, i]));
    const pointers = (r.changes as MessageChange[]).flatMap((c) =>
      [...(c.fields ?? []), ...(c.blocks ?? []).flatMap((b) => b.fields ?? [])].map((f) => f.pointer),
    );
    expect(pointers.sort()).toEqual(conv.lossy.map((l) => l.pointer).sort());

    phi.messages.push(userMsg("and now?"));
    const r2 = diffCheckpoints(a, roundTrip("phi-core", phi, path), { ignore: ["/messages/*/usage/reasoning"] });
    expect(msgOps(r2.changes)).toEqual([...lostIn.map((i) => ["edited", i, i]), ["appended", null, a.messages.length]]);
  });
  test("format-specific ext is compared when the formats are the same", () => {
    const a = readCheckpoint(doc, "yoagent").checkpoint;
    const b = structuredClone(a);
    (b as { ext?: Record<string, unknown> }).ext = { yoagent: { note: 1 } };
    expect(diffCheckpoints(a, b).identical).toBe(false);
  });
});
