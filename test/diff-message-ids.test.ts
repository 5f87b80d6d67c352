// The message alignment on integer ids (MessageIds + alignMiddle) against the key-string alignment it replaced
// (align with messageKey), and its counts against an independent diff (the `diff` package's LCS) on generated pairs.
import { describe, expect, test } from "vitest";
import { diffArrays } from "diff";
import { align, diffCheckpoints, type MessageChange } from "../src/core/diff/index.js";
import { alignMiddle, trim } from "../src/core/diff/align.js";
import { messageEqual } from "../src/core/diff/equal.js";
import { MessageIds, messageKey } from "../src/core/diff/messages.js";
import type { AgentMessage, Checkpoint } from "../src/generated/types.js";
import { rng } from "./helpers/rng.js";

/** Messages of every keying kind: plain texts (some repeated), timed, tool calls and results, phi ids, thinking. */
function message(r: () => number, k: number, repeats: boolean, plain = false): AgentMessage {
  const text = repeats && r() < 0.3 ? `again ${Math.floor(r() * 4)}` : `message ${k}: ${r().toString(36)}`;
  const x = plain ? r() * 0.6 : r();
  if (x < 0.35) return { role: "user", content: [{ type: "text", text }] } as AgentMessage;
  if (x < 0.6)
    return {
      role: "assistant",
      content: [{ type: "text", text }],
      ext: { deepagent: { stringContent: true } },
    } as AgentMessage;
  if (x < 0.68) return { role: "user", content: [{ type: "text", text }], timestamp: 1000 + k } as AgentMessage;
  if (x < 0.74)
    return {
      role: "assistant",
      content: [{ type: "toolCall", id: `call-${k}`, name: "ls", arguments: {} }],
    } as AgentMessage;
  if (x < 0.8)
    return {
      role: "toolResult",
      toolCallId: `call-${k}`,
      toolName: "ls",
      content: [{ type: "text", text }],
      isError: false,
    } as AgentMessage;
  if (x < 0.86)
    return { role: "user", content: [{ type: "text", text }], ext: { "phi-core": { nodeId: k } } } as AgentMessage;
  if (x < 0.92)
    return {
      role: "assistant",
      content: [
        { type: "thinking", thinking: `why ${k}` },
        { type: "text", text },
      ],
    } as AgentMessage;
  return {
    role: "system",
    content: [
      { type: "text", text },
      { type: "text", text: "second block" },
    ],
  } as AgentMessage;
}

/**
 * a, and b made from it by inserts, removals, edits, moves and appends. `plain`: user and assistant texts only, no
 * edits (a message's key is then its whole content).
 */
function pair(seed: number, n: number, repeats: boolean, plain = false): { a: AgentMessage[]; b: AgentMessage[] } {
  const r = rng(seed);
  const a = Array.from({ length: n }, (_x, k) => message(r, k, repeats, plain));
  const b = structuredClone(a);
  let next = n;
  for (let e = Math.floor(r() * 8); e >= 0; e--) {
    const op = r();
    const at = Math.floor(r() * b.length);
    if (op < 0.25) b.splice(at, 0, message(r, next++, repeats, plain));
    else if (op < 0.45 && b.length > 1) b.splice(at, 1);
    else if (op < 0.65 && !plain) {
      const block = (b[at] as { content?: Array<{ type: string; text?: string }> }).content?.find(
        (c) => c.type === "text",
      );
      if (block) block.text += " (edited)";
    } else if (op < 0.85) {
      const [m] = b.splice(at, 1);
      b.splice(Math.floor(r() * (b.length + 1)), 0, m!);
    } else if (op >= 0.65) for (let k = Math.floor(r() * 4); k >= 0; k--) b.push(message(r, next++, repeats, plain));
  }
  return { a, b };
}

const eqOf = (a: AgentMessage[], b: AgentMessage[]) => (i: number, j: number) => messageEqual(a[i], b[j]);

function byIds(a: AgentMessage[], b: AgentMessage[], withTime: boolean) {
  const { pre, suf } = trim(a.length, b.length, eqOf(a, b));
  const ids = new MessageIds(withTime);
  const idsA = ids.ids(a, pre, a.length - suf - pre);
  const idsB = ids.ids(b, pre, b.length - suf - pre);
  return alignMiddle(pre, suf, a.length, b.length, idsA, idsB, ids.count);
}

const cp = (messages: AgentMessage[]): Checkpoint =>
  ({ schemaVersion: 1, threadId: "t", step: 1, messages, state: {} }) as Checkpoint;

describe("message alignment on integer ids", () => {
  test("the same alignment as keying each message by its key text, on 300 generated pairs", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { a, b } = pair(seed, 5 + (seed % 60), seed % 2 === 0);
      for (const withTime of [true, false]) {
        const byText = align(
          a.length,
          b.length,
          eqOf(a, b),
          (i) => messageKey(a[i]!, withTime),
          (j) => messageKey(b[j]!, withTime),
        );
        expect(byIds(a, b, withTime), `seed ${seed}`).toEqual(byText);
      }
    }
  });

  test("equal ids exactly where the key texts are equal", () => {
    const { a, b } = pair(7, 400, true);
    const all = [...a, ...b];
    const ids = new MessageIds(true);
    const id = all.map((m) => ids.id(m));
    const key = all.map((m) => messageKey(m, true));
    // one id per key text and one key text per id
    const idsOf = new Map<unknown, Set<number>>();
    const keysOf = new Map<number, Set<unknown>>();
    all.forEach((_m, x) => {
      idsOf.set(key[x], (idsOf.get(key[x]) ?? new Set()).add(id[x]!));
      keysOf.set(id[x]!, (keysOf.get(id[x]!) ?? new Set()).add(key[x]));
    });
    for (const s of idsOf.values()) expect(s.size).toBe(1);
    for (const s of keysOf.values()) expect(s.size).toBe(1);
    expect(idsOf.size).toBeLessThan(all.length); // repeated texts and the messages b kept share keys
    for (const v of id) expect(v).toBeLessThan(ids.count);
  });

  test("counts agree with the diff package's LCS when every message is distinct", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { a, b } = pair(1000 + seed, 20 + seed, false, true);
      const al = byIds(a, b, true);
      // the diff package (Myers) over the messages' JSON: the kept ones are a longest common subsequence
      const parts = diffArrays(
        a.map((m) => JSON.stringify(m)),
        b.map((m) => JSON.stringify(m)),
      );
      const sum = (f: (p: (typeof parts)[number]) => boolean | undefined) =>
        parts.filter(f).reduce((s, p) => s + p.count!, 0);
      // ckpt keeps a longest run in order (an LIS of the matched messages: as long as the LCS when all are distinct)
      // and reports each other matched message as moved, where the LCS has a removal and an insertion
      expect(al.pre + al.anchors.length + al.suf, `seed ${seed}`).toBe(sum((p) => !p.added && !p.removed));
      expect(al.inserted.length + al.moved.length, `seed ${seed}`).toBe(sum((p) => p.added));
      expect(al.removed.length + al.moved.length, `seed ${seed}`).toBe(sum((p) => p.removed));
      // and the whole diff says as much
      const ops = (diffCheckpoints(cp(a), cp(b)).changes as MessageChange[]).map((c) => c.op);
      expect(ops.filter((o) => o === "inserted" || o === "appended" || o === "edited").length).toBe(al.inserted.length);
    }
  });
});
