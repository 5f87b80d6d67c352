/**
 * Writers follow the systems' own rules (FORMATS.md §1.2, §1.3, §2.1, §2.2) when fed a canonical checkpoint from
 * elsewhere, and every field they cannot carry is reported. Expected texts are written by hand from FORMATS.md.
 */
import { describe, expect, test } from "vitest";
import type { Checkpoint } from "../src/generated/types.js";
import type { LossyNote } from "../src/formats/types.js";
import { comparePointers, convertCheckpoint, convertDocument, sortNotes } from "../src/core/convert.js";
import { parseJson, stringifyJson } from "../src/base/json.js";
import { fitsPattern, groupLossy } from "../src/cli/commands/convert.js";
import { LossLog, messageIndexOf, noteAt } from "../src/formats/loss.js";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { adapters, FORMAT_NAMES } from "../src/formats/index.js";

const BIG = 18446744073709551615n; // u64::MAX, beyond 2^53

/** A deep-agent-like checkpoint with everything a Rust-family format lacks. */
function rich(): Checkpoint {
  return {
    schemaVersion: 1,
    threadId: "user:42/session#1",
    step: 5,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:01:00.000Z",
    messages: [
      { role: "system", content: [{ type: "text", text: "You are terse." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "image", url: "https://example.com/y.png", mimeType: "image/png" },
          { type: "file", data: "JVBERi0=", mimeType: "application/pdf", filename: "a.pdf" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "toolCall", id: "c1", name: "ls", arguments: { path: "/", big: BIG }, providerMetadata: { x: 1 } },
        ],
        usage: { input: 1, output: 2, reasoning: 3 },
        stopReason: "paused",
      },
      { role: "toolResult", toolCallId: "c1", toolName: "ls", content: [{ type: "text", text: "a" }], isError: false },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ],
    state: { todos: [{ id: "1", content: "x", status: "pending" }] },
    origin: { format: "deepagent" },
  } as unknown as Checkpoint;
}

const T = 1767225660000; // Date.parse("2026-01-01T00:01:00.000Z"): updatedAt stands in for missing message timestamps

describe("yoagent writer", () => {
  test("exact text: role first, declaration order, compact, camelCase, u64 kept digit for digit", () => {
    const r = convertCheckpoint(rich(), "yoagent");
    expect("text" in r.output && r.output.text).toBe(
      "[" +
        `{"role":"system","kind":"ckpt.system","data":{"content":[{"type":"text","text":"You are terse."}]}},` +
        `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":${T}},` +
        `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"/","big":18446744073709551615},"providerMetadata":{"x":1}}],"stopReason":"aborted","model":"unknown","provider":"unknown","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":${T}},` +
        `{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"a"}],"isError":false,"timestamp":${T}},` +
        `{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop","model":"unknown","provider":"unknown","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":${T}}` +
        "]",
    );
    expect(r.lossy.map((n) => `${n.pointer} ${n.field}`)).toEqual([
      "/createdAt createdAt",
      "/messages/0 role",
      "/messages/1/content/1 image.url",
      "/messages/1/content/2 content.file",
      "/messages/2/stopReason stopReason",
      "/messages/2/usage/reasoning usage.reasoning",
      "/state/todos state.todos",
      "/step step",
      "/threadId threadId",
      "/updatedAt updatedAt",
    ]);
  });
  test("--format-version 0.12 writes the snake_case aliases", () => {
    const r = convertCheckpoint(rich(), "yoagent", { version: "0.12" });
    const text = "text" in r.output ? r.output.text : "";
    expect(text).toContain(`"usage":{"input":1,"output":2,"cache_read":0,"cache_write":0,"total_tokens":0}`);
    expect(text).toContain(`"provider_metadata":{"x":1}`);
    expect(text).not.toMatch(/cacheRead|providerMetadata/);
  });
  test("a bad --format-version is a usage error", () => {
    expect(() => convertCheckpoint(rich(), "yoagent", { version: "banana" })).toThrow(
      expect.objectContaining({ exitCode: 2 }),
    );
  });
});

describe("phi-core writer", () => {
  test("LLM messages with alphabetically sorted keys at every level; snake_case usage incl. reasoning", () => {
    const r = convertCheckpoint(rich(), "phi-core");
    const text = "text" in r.output ? r.output.text : "";
    expect(text.startsWith(`[{"role":"system","kind":"ckpt.system","data":`)).toBe(true); // extension: declaration order
    expect(text).toContain(
      `{"content":[{"signature":"sig","thinking":"hmm","type":"thinking"},{"arguments":{"big":18446744073709551615,"path":"/"},"id":"c1","name":"ls","type":"toolCall"}],"model":"unknown","provider":"unknown","role":"assistant","stopReason":"paused","timestamp":${T},"usage":{"cache_read":0,"cache_write":0,"input":1,"output":2,"reasoning":3,"total_tokens":0}}`,
    );
    const fields = r.lossy.map((n) => n.field);
    expect(fields).toContain("toolCall.providerMetadata");
    expect(fields).not.toContain("usage.reasoning");
    expect(fields).not.toContain("stopReason"); // phi-core has 'paused'
  });
  test("yoagent's 'refusal' has no phi-core equivalent: written as 'stop' and reported", () => {
    const cp = rich();
    (cp.messages[4] as { stopReason?: string }).stopReason = "refusal";
    const r = convertCheckpoint(cp, "phi-core");
    expect(r.lossy).toContainEqual({
      pointer: "/messages/4/stopReason",
      field: "stopReason",
      reason: "phi-core has no stop reason 'refusal': written as 'stop'",
    });
  });
});

describe("session writers", () => {
  test("yoagent-session: snake_case entries e1… chained by parent_id, joined with \\n, no trailing newline", () => {
    const r = convertCheckpoint(rich(), "yoagent-session");
    const text = "text" in r.output ? r.output.text : "";
    const lines = text.split("\n");
    expect(lines).toHaveLength(5);
    expect(text.endsWith("\n")).toBe(false);
    expect(lines[0]!.startsWith(`{"id":"e1","parent_id":null,"message":{"role":"system"`)).toBe(true);
    expect(lines[3]!.startsWith(`{"id":"e4","parent_id":"e3","message":{"role":"toolResult"`)).toBe(true);
    expect(lines[3]!.endsWith(`},"timestamp":${T}}`)).toBe(true);
  });
  test("phi-core-session: serde pretty (2 spaces, no trailing newline), one Completed loop, thread id kept", () => {
    const cp = rich();
    const r = convertCheckpoint(cp, "phi-core-session");
    const text = "text" in r.output ? r.output.text : "";
    expect(text).toBe(stringifyJson(parseJson(text), 2));
    const s = parseJson(text) as Record<string, any>;
    expect(s.session_id).toBe("user:42/session#1");
    expect(s.created_at).toBe("2026-01-01T00:00:00.000Z");
    expect(s.loops[0].status).toBe("Completed");
    expect(s.loops[0].messages[2].usage).toEqual({
      cache_read: 0,
      cache_write: 0,
      input: 1,
      output: 2,
      reasoning: 3,
      total_tokens: 0,
    });
    expect(s.loops[0].messages[2].content[1].arguments.big).toBe(BIG);
    // the session carries thread id and timestamps: only state, step and per-block losses remain
    expect(r.lossy.map((n) => n.field)).not.toContain("threadId");
    expect(r.lossy.map((n) => n.field)).not.toContain("createdAt");
  });
});

describe("integers beyond 2^53 survive every conversion", () => {
  const text = `[{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":18446744073709551615},{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"n","arguments":{"n":9007199254740993}}],"stopReason":"toolUse","model":"m","provider":"p","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":18446744073709551614}]`;
  for (const to of ["ckpt", "yoagent", "yoagent-session", "phi-core", "phi-core-session"]) {
    test(`yoagent → ${to}`, () => {
      const r = convertDocument({ name: "big.json", text }, { to });
      const out = "text" in r.output ? r.output.text : "";
      for (const digits of ["18446744073709551615", "9007199254740993", "18446744073709551614"])
        expect(out).toContain(digits);
    });
  }
});

describe("loss notes in pointer order", () => {
  test("comparePointers orders as 'each index zero-padded, then the strings compared' on random pointers", () => {
    // independent oracle: the key the report used before (indices padded to 10 digits, joined, compared as strings);
    // segments are indices or names that start with a letter (as in canonical pointers: an index and a name never
    // stand at the same place), with '-' and '.' (which sort before '/') in some names
    const key = (p: string) =>
      p
        .split("/")
        .map((s) => (/^\d+$/.test(s) ? s.padStart(10, "0") : s))
        .join("/");
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const seg = () =>
      rnd(2)
        ? String(rnd(1200))
        : ["messages", "content", "usage", "ext", "m", "me", "a1", "yoagent", "yoagent-session", "a.b"][rnd(10)]!;
    const ptrs = Array.from({ length: 3000 }, () => "/" + Array.from({ length: 1 + rnd(4) }, seg).join("/"));
    ptrs.push("", "/messages", "/messages/9", "/messages/10", "/messages/9/usage", "/messages/10/content/2");
    const byKey = [...ptrs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const sign = (n: number) => Math.sign(n);
    const wrong: string[] = [];
    for (let i = 1; i < byKey.length; i++) {
      const [a, b] = [byKey[i - 1]!, byKey[i]!];
      if (
        sign(comparePointers(a, b)) !== (key(a) === key(b) ? 0 : -1) ||
        sign(comparePointers(b, a)) !== (key(a) === key(b) ? 0 : 1)
      )
        wrong.push(`${a} vs ${b}`);
    }
    expect(wrong).toEqual([]);
    expect(comparePointers("/messages/9/usage", "/messages/10")).toBeLessThan(0);
    expect(comparePointers("/messages/10", "/messages/10/usage")).toBeLessThan(0);
  });
  test("a conversion's notes come out sorted with /messages/10 after /messages/9", () => {
    const messages = Array.from({ length: 12 }, (_, i) => ({
      role: "user",
      content: [{ type: "text", text: `m${i}` }],
      timestamp: 1000 + i,
    }));
    const r = convertDocument({ name: "t.json", text: JSON.stringify(messages) }, { to: "deepagent" });
    expect(r.lossy.map((n) => n.pointer)).toEqual(messages.map((_, i) => `/messages/${i}/timestamp`));
  });
});

describe("adapters that write their loss notes in pointer order (lossInPointerOrder: no sort)", () => {
  // oracle: the stable sort by comparePointers; the adapter's own notes must already be in that order
  const sorted = (ns: LossyNote[]) => [...ns].sort((a, b) => comparePointers(a.pointer, b.pointer));
  const ordered = FORMAT_NAMES.filter((f) => adapters[f].lossInPointerOrder);
  const sources: Array<[string, Checkpoint]> = [["rich()", rich()]];
  // every valid fixture of every format, as canonical checkpoints
  for (const format of FORMAT_NAMES) {
    const dir = join(import.meta.dirname, "..", "fixtures", format, "valid");
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith(".expect.json")) continue;
      const path = join(dir, f);
      const doc = statSync(path).isDirectory()
        ? {
            name: f,
            files: Object.fromEntries(
              readdirSync(path)
                .filter((x) => x.endsWith(".org"))
                .map((x) => [x, readFileSync(join(path, x), "utf8")]),
            ),
          }
        : { name: f, text: readFileSync(path, "utf8") };
      const a = adapters[format];
      sources.push([`${format}/${f}`, a.toCanonical(a.parse(doc), doc)]);
    }
  }
  // and one with what deepagent drops in every place: 12 blocks (/content/10 after /content/9), state and ext keys
  // out of order, extension, system and tool result messages with timestamps, assistant fields
  const many = rich() as unknown as {
    messages: Array<Record<string, unknown>>;
    state: Record<string, unknown>;
    ext?: unknown;
    origin?: unknown;
  };
  many.origin = { format: "yoagent" };
  many.state = { zeta: 1, todos: [], "10": 2, alpha: 3, "9": 4 };
  many.ext = { "phi-core": { session: {} }, amacs: { x: 1 } };
  many.messages.push(
    {
      role: "user",
      content: Array.from({ length: 12 }, (_, k) =>
        k % 5 === 3 ? { type: "thinking", thinking: "t" } : { type: "text", text: `b${k}` },
      ),
      timestamp: 5,
    },
    {
      role: "assistant",
      content: Array.from({ length: 12 }, (_, k) => ({
        type: "toolCall",
        id: `c${k}`,
        name: "n",
        arguments: {},
        providerMetadata: { k },
      })),
      stopReason: "stop",
      model: "m",
      provider: "p",
      usage: { input: 1, output: 1 },
      errorMessage: "e",
      timestamp: 6,
    },
    {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "n",
      content: [{ type: "image", data: "AA==", mimeType: "image/png" }],
      isError: true,
      timestamp: 7,
    },
    { role: "extension", kind: "k", data: {}, timestamp: 8 },
    { role: "system", content: [{ type: "image", data: "AA==", mimeType: "image/png" }], timestamp: 9 },
  );
  sources.push(["every kind of loss", many as unknown as Checkpoint]);
  test("there is such an adapter (deepagent)", () => expect(ordered).toContain("deepagent"));
  for (const to of ordered) {
    test(`${to}: its notes for every fixture are in comparePointers order, and so is the conversion's report`, () => {
      let notes = 0;
      for (const [name, cp] of sources) {
        const lossy: LossyNote[] = [];
        adapters[to].fromCanonical(structuredClone(cp), { lossy });
        expect(
          lossy.map((n) => n.pointer),
          name,
        ).toEqual(sorted(lossy).map((n) => n.pointer));
        const r = convertCheckpoint(structuredClone(cp), to);
        expect(r.lossy, name).toEqual(sorted(r.lossy));
        notes += lossy.length;
      }
      expect(notes).toBeGreaterThan(100);
    });
  }
});

describe("sortNotes: the notes in comparePointers order, stable", () => {
  // oracle: Array.prototype.sort (stable) with comparePointers, itself checked against an independent key above
  let seed = 11;
  // the high bits of the generator (its low bits repeat with a short period)
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
  const inner = () =>
    [
      "",
      "/timestamp",
      "/usage",
      "/model",
      "/errorMessage",
      "/ext/yoagent/unknown",
      `/content/${rnd(12)}`,
      `/content/${rnd(12)}/providerMetadata`,
      `/content/${rnd(3)}/ext/phi-core/provenanceHint`,
    ][rnd(9)]!;
  const pointer = () =>
    rnd(8)
      ? `/messages/${rnd(25)}${inner()}`
      : ["", "/state/todos", "/ext/phi-core/session", "/messages", "/threadId", "/interrupt", "/messages/x"][rnd(7)]!;
  const oracle = (ns: LossyNote[]) => [...ns].sort((a, b) => comparePointers(a.pointer, b.pointer));
  test("random notes, in message order (as adapters write them) and shuffled, with duplicate pointers", () => {
    for (let round = 0; round < 200; round++) {
      const notes: LossyNote[] = Array.from({ length: 1 + rnd(60) }, (_, k) => ({
        pointer: pointer(),
        field: "f",
        reason: `r${k}`,
      }));
      // message order: by message index only (stable), the order within a message and of the other notes as drawn
      const msg = (p: string) => (/^\/messages\/(\d+)/.exec(p) ? Number(/^\/messages\/(\d+)/.exec(p)![1]) : -1);
      const ordered = [
        ...notes.filter((n) => msg(n.pointer) < 0),
        ...notes.filter((n) => msg(n.pointer) >= 0).sort((a, b) => msg(a.pointer) - msg(b.pointer)),
      ];
      for (const ns of [notes, ordered]) expect(sortNotes([...ns])).toEqual(oracle(ns));
    }
  });
  test("a message's notes sort numerically after it: /content/10 after /content/9, children after the message", () => {
    const ps = [
      "/messages/3/usage",
      "/messages/3/content/10",
      "/messages/3",
      "/messages/3/content/9/x",
      "/messages/3/content/9",
      "/messages/2/timestamp",
    ];
    expect(sortNotes(ps.map((pointer) => ({ pointer, field: "f", reason: "r" }))).map((n) => n.pointer)).toEqual([
      "/messages/2/timestamp",
      "/messages/3",
      "/messages/3/content/9",
      "/messages/3/content/9/x",
      "/messages/3/content/10",
      "/messages/3/usage",
    ]);
  });
});

describe("loss report grouping", () => {
  // the pattern a note belongs to is its pointer with every all-digit segment as '*' (what groupLossy built per note)
  const patternOf = (p: string) => p.replace(/\/\d+(?=\/|$)/g, "/*");
  const pointers = [
    "/messages/0/timestamp",
    "/messages/12/content/3/providerMetadata",
    "/messages/*/timestamp",
    "/messages/1a/timestamp",
    "/messages/007",
    "/messages/7/",
    "/messages//7",
    "/state/x",
    "/messages/5",
    "/messages/5/content/0",
    "/a/*b/1",
    "/a/*/1",
    "/a/b*/1",
    "",
  ];
  test("groupLossy: one group per reason and pattern, in order of first note, counting notes and messages", () => {
    let seed = 5;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
    // with pointers that read like a message but are none (a leading zero, a literal '*'): their pattern is a
    // message pattern all the same, so they join its group, but they count no message
    const shapes = [
      "/messages/#/timestamp",
      "/messages/#/content/#/providerMetadata",
      "/messages/#",
      "/state/files",
      "/messages/#/content/*/x",
      "/messages/#/a*/1",
      "/messages/0#/timestamp",
      "/messages/*/timestamp",
      "/messages/*",
      "/messages/#a/timestamp",
      "/messages//#",
      "/a/*b/1",
      "/a/*/#",
      "",
    ];
    for (let round = 0; round < 50; round++) {
      const notes = sortNotes(
        Array.from({ length: 1 + rnd(80) }, () => ({
          pointer: shapes[rnd(shapes.length)]!.replace(/#/g, () => String(rnd(30))),
          field: "f",
          reason: ["a", "b", "c"][rnd(3)]!,
        })),
      );
      // oracle: the pattern built per note (what the report did before), distinct messages counted with a set
      const want = new Map<
        string,
        { pattern: string; reason: string; first: string; count: number; messages: Set<number> }
      >();
      for (const n of notes) {
        const pattern = n.pointer.replace(/\/\d+(?=\/|$)/g, "/*");
        const key = `${n.reason}\0${pattern}`;
        if (!want.has(key))
          want.set(key, { pattern, reason: n.reason, first: n.pointer, count: 0, messages: new Set() });
        const w = want.get(key)!;
        w.count++;
        const m = /^\/messages\/(0|[1-9]\d*)(?=\/|$)/.exec(n.pointer);
        if (m) w.messages.add(Number(m[1]));
      }
      // the notes as an array, and in a LossLog, with the message notes added compactly (as deepagent writes them)
      const log = new LossLog();
      for (const n of notes) {
        const m = /^\/messages\/(0|[1-9]\d*)((?:\/.*)?)$/.exec(n.pointer);
        if (m && rnd(2)) log.at(Number(m[1]), m[2]!, n.field, n.reason);
        else log.push(n);
      }
      for (const got of [groupLossy(notes), groupLossy(log), groupLossy(LossLog.of([...notes]))]) {
        expect(got.map((g) => [g.pattern, g.reason, g.first, g.count])).toEqual(
          [...want.values()].map((w) => [w.pattern, w.reason, w.first, w.count]),
        );
        const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
        expect(got.map((g) => g.where)).toEqual(
          [...want.values()].map((w) =>
            w.messages.size === w.count
              ? `on ${plural(w.count, "message")}`
              : `${plural(w.count, "field")}${w.messages.size ? ` on ${plural(w.messages.size, "message")}` : ""}`,
          ),
        );
      }
    }
  });
  test("a pointer fits a pattern exactly when the pattern is its own", () => {
    for (const p of pointers) {
      for (const q of pointers) {
        const pattern = patternOf(q);
        expect(fitsPattern(p, pattern), `${p} vs ${pattern}`).toBe(patternOf(p) === pattern);
      }
    }
  });
});

describe("LossLog: compact loss notes", () => {
  const pointers = [
    "/messages/0/timestamp",
    "/messages/12/content/3/providerMetadata",
    "/messages/*/timestamp",
    "/messages/1a/timestamp",
    "/messages/007",
    "/messages/7/",
    "/messages//7",
    "/messages/",
    "/messages",
    "/state/x",
    "/messages/5",
    "/messages/5/content/0",
    "/a/*b/1",
    "",
    "/messages/9007199254740991/x",
    "/messages/9007199254740993/x",
  ];
  test("notes pushed whole come back as they were, each part readable on its own", () => {
    const notes = pointers.map((pointer, k) => ({ pointer, field: `f${k}`, reason: `r${k}` }));
    const log = new LossLog();
    for (const n of notes) log.push(n);
    expect(log.length).toBe(notes.length);
    expect(log.notes()).toEqual(notes);
    expect(log.notes()).toBe(log.notes()); // built once
    notes.forEach((n, k) => {
      expect(log.pointerOf(k)).toBe(n.pointer);
      expect([log.fieldOf(k), log.reasonOf(k)]).toEqual([n.field, n.reason]);
      // the message read the way the report counts messages: digits without a leading zero, a safe integer
      const m = /^\/messages\/(0|[1-9]\d*)(?=\/|$)/.exec(n.pointer);
      expect(log.messageOf(k), n.pointer).toBe(m && Number.isSafeInteger(Number(m[1])) ? Number(m[1]) : -1);
      expect(messageIndexOf(n.pointer)).toBe(log.messageOf(k));
    });
  });
  test("notes of many kinds (more reasons per pointer rest, more kinds than a log numbers) come back as they were", () => {
    // each note its own reason on one rest of a pointer, then each its own rest: past the kinds a log numbers
    const notes: LossyNote[] = [];
    for (let i = 0; i < 1500; i++)
      notes.push({ pointer: `/messages/${i}/timestamp`, field: "timestamp", reason: `r${i % 40}` });
    for (let i = 0; i < 1500; i++)
      notes.push({ pointer: `/messages/${i}/content/${i}`, field: `f${i % 3}`, reason: "r" });
    for (let i = 0; i < 100; i++) notes.push({ pointer: `/state/k${i}`, field: "k", reason: "r" });
    const log = new LossLog();
    notes.forEach((n, k) => {
      const m = /^\/messages\/(\d+)(.*)$/.exec(n.pointer);
      if (m && k % 2) log.at(Number(m[1]), m[2]!, n.field, n.reason);
      else log.push(n);
    });
    expect(log.notes()).toEqual(notes);
    notes.forEach((n, k) =>
      expect([log.pointerOf(k), log.fieldOf(k), log.reasonOf(k), log.messageOf(k)]).toEqual([
        n.pointer,
        n.field,
        n.reason,
        messageIndexOf(n.pointer),
      ]),
    );
    expect(groupLossy(log)).toEqual(groupLossy(notes));
  });
  test("a log of built notes (LossLog.of) reads its parts from them and adds to that array", () => {
    const notes = pointers.map((pointer, k) => ({ pointer, field: `f${k}`, reason: `r${k}` }));
    const compact = new LossLog();
    for (const n of notes) compact.push(n);
    const log = LossLog.of(notes);
    expect(log.notes()).toBe(notes);
    notes.forEach((_n, k) =>
      expect([log.messageOf(k), log.tailOf(k), log.pointerOf(k)]).toEqual([
        compact.messageOf(k),
        compact.tailOf(k),
        compact.pointerOf(k),
      ]),
    );
    log.at(4, "/usage", "usage", "r");
    expect(notes[notes.length - 1]).toEqual({ pointer: "/messages/4/usage", field: "usage", reason: "r" });
    expect(log.length).toBe(pointers.length + 1);
  });
  test("a note added after the notes were built is in the next build; noteAt writes the same note to a log and an array", () => {
    const log = new LossLog();
    const array: LossyNote[] = [];
    for (const sink of [log, array]) {
      noteAt(sink, 3, "/usage", "usage", "no usage");
      noteAt(sink, 10, "", "message", "no such message");
    }
    expect(log.notes()).toEqual([
      { pointer: "/messages/3/usage", field: "usage", reason: "no usage" },
      { pointer: "/messages/10", field: "message", reason: "no such message" },
    ]);
    expect(array).toEqual(log.notes());
    log.push({ pointer: "/state/x", field: "x", reason: "r" });
    expect(log.notes().map((n) => n.pointer)).toEqual(["/messages/3/usage", "/messages/10", "/state/x"]);
  });
  test("a conversion's lossy array is its lossLog's notes, read lazily, serialized and assignable like a plain property", () => {
    const messages = Array.from({ length: 3 }, (_, i) => ({
      role: "user",
      content: [{ type: "text", text: `m${i}` }],
      timestamp: 1000 + i,
    }));
    const r = convertDocument({ name: "t.json", text: JSON.stringify(messages) }, { to: "deepagent" });
    expect(r.lossLog.length).toBe(3);
    const want = messages.map((_, i) => ({
      pointer: `/messages/${i}/timestamp`,
      field: "timestamp",
      reason: "AI SDK messages have no timestamps",
    }));
    expect(JSON.parse(JSON.stringify(r)).lossy).toEqual(want);
    expect({ ...r }.lossy).toEqual(want);
    expect(r.lossy).toBe(r.lossy);
    expect(Object.keys(r)).toEqual(["from", "fromVersion", "to", "checkpoint", "native", "output", "lossy", "lossLog"]);
    r.lossy = [];
    expect(r.lossy).toEqual([]);
  });
  test("deepagent notes the same into an array as into the LossLog a conversion passes", () => {
    const cp = rich() as unknown as { messages: Array<Record<string, unknown>>; origin?: unknown };
    cp.origin = { format: "yoagent" };
    cp.messages.push(
      { role: "extension", kind: "k", data: {}, timestamp: 8 },
      {
        role: "user",
        content: [
          { type: "thinking", thinking: "t" },
          { type: "toolCall", id: "c", name: "n", arguments: {} },
        ],
        timestamp: 9,
      },
    );
    const array: LossyNote[] = [];
    adapters.deepagent.fromCanonical(structuredClone(cp as unknown as Checkpoint), { lossy: array });
    const log = new LossLog();
    adapters.deepagent.fromCanonical(structuredClone(cp as unknown as Checkpoint), { lossy: log });
    expect(array.map((n) => n.field)).toEqual(
      expect.arrayContaining([
        "thinking",
        "toolCall",
        "message",
        "timestamp",
        "stopReason",
        "usage",
        "providerMetadata",
      ]),
    );
    expect(log.notes()).toEqual(array);
  });
});

describe("loss note pointers are RFC 6901 JSON pointers into the canonical checkpoint", () => {
  /** resolve a pointer by the RFC's own rules (~1 → '/', then ~0 → '~'), independently of ckpt's code */
  const resolvePointer = (doc: unknown, ptr: string): unknown =>
    ptr
      .split("/")
      .slice(1)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>(
        (v, t) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[t] : undefined),
        doc,
      );
  for (const to of ["deepagent", "swarmer", "amacs", "yoagent"]) {
    test(`${to}: state and ext keys holding '/' and '~' are escaped, so every note's pointer finds the dropped value`, () => {
      const cp = rich();
      (cp.state as Record<string, unknown>)["a/b"] = { kept: false };
      (cp.state as Record<string, unknown>)["x~y"] = [1];
      cp.ext = { "my/fmt~1": { detail: true } } as Checkpoint["ext"];
      const { lossy } = convertCheckpoint(cp, to);
      const mine = lossy.filter((n) => /^\/(state|ext)\//.test(n.pointer) && !n.pointer.startsWith("/state/todos"));
      expect(mine.length, JSON.stringify(lossy.map((n) => n.pointer))).toBeGreaterThanOrEqual(2);
      for (const n of mine) expect(resolvePointer(cp, n.pointer), n.pointer).not.toBeUndefined();
    });
  }
});
