/**
 * The specialized message equality (the diff's hot loop) must give the same answer as the generic structural one on
 * any input: checked against an independent reference (equal canonical text, stableJson) on randomized messages and
 * randomized perturbations, including the awkward cases (unknown keys, keys holding undefined, bigint vs number,
 * key order, unknown roles and block types, non-array content).
 */
import { describe, expect, test } from "vitest";
import { blockEqual, contentEqual, messageEqual } from "../src/core/diff/equal.js";
import { jsonEqual, stableJson } from "../src/core/diff/stable.js";
import { diffCheckpoints, type MessageChange } from "../src/core/diff/index.js";
import type { Checkpoint } from "../src/generated/types.js";
import { rng } from "./helpers/rng.js";

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function block(r: R): Record<string, unknown> {
  switch (pick(r, ["text", "thinking", "toolCall", "image", "file", "weird"])) {
    case "text":
      return { type: "text", text: pick(r, ["hi", "hello", ""]) };
    case "thinking":
      return { type: "thinking", thinking: "hmm", ...(r() < 0.5 ? { signature: "sig" } : {}) };
    case "toolCall":
      return {
        type: "toolCall",
        id: pick(r, ["c1", "c2"]),
        name: "ls",
        arguments: { path: pick(r, [".", "/"]), n: 1 },
        ...(r() < 0.3 ? { providerMetadata: { s: "x" } } : {}),
      };
    case "image":
      return { type: "image", data: "AAAA", mimeType: "image/png" };
    case "file":
      return { type: "file", url: "https://x/y.pdf", mimeType: "application/pdf", filename: "y.pdf" };
    default:
      return { type: "audio", data: "AA" };
  }
}

function message(r: R): Record<string, unknown> {
  const content = Array.from({ length: Math.floor(r() * 3) }, () => block(r));
  const ext = r() < 0.5 ? { ext: { "phi-core": { nodeId: Math.floor(r() * 3) } } } : {};
  switch (pick(r, ["user", "system", "assistant", "toolResult", "extension"])) {
    case "user":
      return { role: "user", content, timestamp: 1000 + Math.floor(r() * 2), ...ext };
    case "system":
      return { role: "system", content, ...ext };
    case "assistant":
      return {
        role: "assistant",
        content,
        stopReason: pick(r, ["stop", "toolUse"]),
        model: "m",
        provider: "p",
        usage: { input: Math.floor(r() * 2), output: 3, ...(r() < 0.5 ? { cacheRead: 0 } : {}) },
        timestamp: 5,
        ...(r() < 0.2 ? { errorMessage: "boom" } : {}),
        ...ext,
      };
    case "toolResult":
      return {
        role: "toolResult",
        toolCallId: pick(r, ["c1", "c2"]),
        toolName: "ls",
        content,
        isError: r() < 0.5,
        timestamp: 7,
        ...ext,
      };
    default:
      return { role: "extension", kind: "status", data: { status: pick(r, ["running", "done"]) }, ...ext };
  }
}

/** Every object and array inside `v`, with a way to reach it again in a copy. */
function paths(
  v: unknown,
  at: Array<string | number> = [],
  out: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  if (typeof v === "object" && v !== null) {
    out.push(at);
    if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
    else for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, k], out);
  }
  return out;
}
const get = (v: unknown, p: Array<string | number>) => p.reduce((o: any, k) => o[k], v);

/** A copy of `m`, perturbed in one of many ways (some of which keep it equal). */
function perturb(r: R, m: Record<string, unknown>): unknown {
  const c = structuredClone(m);
  const ps = paths(c);
  const target = get(c, pick(r, ps)) as Record<string, unknown> | unknown[];
  const kind = Math.floor(r() * 9);
  if (Array.isArray(target)) {
    if (kind < 3 && target.length) target.pop();
    else if (kind < 6) target.push({ type: "text", text: "x" });
    return c;
  }
  const keys = Object.keys(target);
  const k = keys.length ? pick(r, keys) : "x";
  switch (kind) {
    case 0: // a leaf changed
      if (typeof target[k] === "string") target[k] = (target[k] as string) + "!";
      else if (typeof target[k] === "number") target[k] = (target[k] as number) + 1;
      else if (typeof target[k] === "boolean") target[k] = !target[k];
      return c;
    case 1: // an unknown key
      target.extra = 1;
      return c;
    case 2: // a key holding undefined (counts as absent: still equal)
      target.absent = undefined;
      return c;
    case 3: // a key removed
      delete target[k];
      return c;
    case 4: // key order reversed (still equal)
      for (const key of keys.reverse()) {
        const v = target[key];
        delete target[key];
        target[key] = v;
      }
      return c;
    case 5: // a number as a bigint (still equal)
      if (typeof target[k] === "number" && Number.isInteger(target[k])) target[k] = BigInt(target[k] as number);
      return c;
    case 6: // a value replaced by undefined (absent)
      target[k] = undefined;
      return c;
    case 7: // content that is not an array
      if ("content" in target) target.content = "text";
      return c;
    default:
      return c;
  }
}

const reference = (x: unknown, y: unknown) => stableJson(x) === stableJson(y);

describe("messageEqual agrees with structural equality", () => {
  test("random messages and random perturbations (both argument orders)", () => {
    const r = rng(12345);
    let equal = 0;
    let different = 0;
    for (let n = 0; n < 4000; n++) {
      const m = message(r);
      const p = r() < 0.5 ? perturb(r, m) : r() < 0.5 ? message(r) : structuredClone(m);
      const want = reference(m, p);
      expect(
        [messageEqual(m, p), messageEqual(p, m), jsonEqual(m, p)],
        JSON.stringify([m, p], (_k, v) => (typeof v === "bigint" ? `${v}n` : v)),
      ).toEqual([want, want, want]);
      if (want) equal++;
      else different++;
    }
    // the generator exercises both answers, often
    expect(equal).toBeGreaterThan(800);
    expect(different).toBeGreaterThan(800);
  });
  test("hand-picked cases", () => {
    const u = { role: "user", content: [{ type: "text", text: "a" }], timestamp: 1 };
    expect(messageEqual(u, { timestamp: 1, content: [{ text: "a", type: "text" }], role: "user" })).toBe(true);
    expect(messageEqual(u, { ...u, timestamp: 1n })).toBe(true);
    expect(messageEqual(u, { ...u, timestamp: 2 })).toBe(false);
    expect(messageEqual(u, { ...u, extra: undefined })).toBe(true);
    expect(messageEqual(u, { ...u, extra: null })).toBe(false);
    expect(messageEqual({ ...u, extra: 1 }, u)).toBe(false);
    expect(messageEqual(u, { ...u, role: "system" })).toBe(false);
    expect(messageEqual(u, { ...u, ext: {} })).toBe(false);
    expect(messageEqual({ ...u, ext: { y: { a: 1 } } }, { ...u, ext: { y: { a: 1, b: undefined } } })).toBe(true);
    expect(messageEqual({ ...u, ext: { y: { a: 1 } } }, { ...u, ext: { y: { a: 2 } } })).toBe(false);
    expect(
      contentEqual(
        [{ type: "text", text: "a" }],
        [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      ),
    ).toBe(false);
    expect(
      blockEqual(
        { type: "toolCall", id: "1", name: "n", arguments: { a: [1, 2] } },
        { type: "toolCall", id: "1", name: "n", arguments: { a: [1, 3] } },
      ),
    ).toBe(false);
    expect(
      blockEqual(
        { type: "image", data: "x", mimeType: "image/png" },
        { type: "image", url: "x", mimeType: "image/png" },
      ),
    ).toBe(false);
    expect(blockEqual({ type: "audio", data: "x" }, { type: "audio", data: "x" })).toBe(true);
    expect(messageEqual(null, null)).toBe(true);
    expect(messageEqual(u, null)).toBe(false);
  });
});

describe("presentation records (ext.<format>._layout) are left out without copying the whole history", () => {
  const msg = (text: string, layout?: unknown) => ({
    role: "user",
    content: [{ type: "text", text, ...(layout ? { ext: { yoagent: { _layout: layout } } } : {}) }],
    timestamp: 1,
    ...(layout ? { ext: { yoagent: { _layout: layout, keep: 1 } } } : { ext: { yoagent: { keep: 1 } } }),
  });
  const cp = (messages: unknown[]) =>
    ({
      schemaVersion: 1,
      threadId: "t",
      step: 1,
      messages,
      state: {},
      origin: { format: "yoagent" },
    }) as unknown as Checkpoint;
  test("messages that differ only in their layout records are identical", () => {
    const a = cp([msg("one", { snake: ["timestamp"] }), msg("two"), msg("three", { nulls: ["x"] })]);
    const b = cp([msg("one"), msg("two", { snake: ["content"] }), msg("three", { nulls: ["y"] })]);
    expect(diffCheckpoints(a, b).identical).toBe(true);
  });
  test("a real edit next to a layout difference: one edited block, no _layout in the detail or the patch", () => {
    const a = cp([msg("one"), msg("two", { snake: ["timestamp"] }), msg("three")]);
    const b = cp([msg("one"), msg("two!", { nulls: ["x"] }), msg("three")]);
    const r = diffCheckpoints(a, b, { patch: true });
    const edits = r.changes as MessageChange[];
    expect(edits.map((c) => [c.op, c.a, c.b])).toEqual([["edited", 1, 1]]);
    expect(edits[0]!.blocks).toMatchObject([{ op: "changed", a: 0, b: 0, type: "text" }]);
    expect(edits[0]!.fields).toBeUndefined();
    expect(r.patch).toEqual([{ op: "replace", path: "/messages/1/content/0/text", value: "two!" }]);
  });
});
