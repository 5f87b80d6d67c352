/**
 * Decoding LangGraph payloads (src/formats/langgraph/serde.ts) on the real sample stores and on hand-built msgpack.
 * Expected counts come from LANGGRAPH.md §8.1 (decoded independently there), not from ckpt.
 */
import Database from "better-sqlite3";
import { encode } from "@msgpack/msgpack";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeMetadata, decodeTyped, detectLibrary, type DecodeSink } from "../src/formats/langgraph/serde.js";
import { interruptOf, isLcMessage, lcClass, type LgDecodeIssue } from "../src/formats/langgraph/types.js";

const FIX = join(__dirname, "..", "fixtures", "langgraph");
const sinkOf = (issues: LgDecodeIssue[] = []): DecodeSink => ({
  row: { store: "sqlite", table: "t", threadId: "t", namespace: "" },
  pointer: "",
  issues,
});

function rows(file: string) {
  const dir = mkdtempSync(join(tmpdir(), "lg-serde-"));
  copyFileSync(join(FIX, file), join(dir, file));
  const db = new Database(join(dir, file), { readonly: true, fileMustExist: true });
  const cps = db.prepare("SELECT type, checkpoint, metadata FROM checkpoints").all() as Array<{
    type: string;
    checkpoint: Buffer;
    metadata: Buffer;
  }>;
  const ws = db.prepare("SELECT type, value, channel FROM writes").all() as Array<{
    type: string;
    value: Buffer;
    channel: string;
  }>;
  db.close();
  return { cps, ws };
}

function countClasses(v: unknown, out: Map<string, number>): void {
  if (isLcMessage(v)) out.set(lcClass(v), (out.get(lcClass(v)) ?? 0) + 1);
  if (Array.isArray(v)) for (const x of v) countClasses(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) countClasses(x, out);
}

describe("langgraph serde on the from-repo Python samples", () => {
  it("python-v4-chat: 41 HumanMessage and 41 AIMessage (EXT 5) across checkpoints and writes, all to lc:1", () => {
    const { cps, ws } = rows("python-v4-chat.sqlite");
    const issues: LgDecodeIssue[] = [];
    const classes = new Map<string, number>();
    for (const r of cps) {
      const cp = decodeTyped(r.type, r.checkpoint, sinkOf(issues)) as Record<string, unknown>;
      expect(cp.v).toBe(4);
      countClasses(cp, classes);
      const md = decodeMetadata(r.type, r.metadata, sinkOf(issues)) as Record<string, unknown>;
      expect(typeof md.step).toBe("number");
      expect(detectLibrary(cp as never, [r.type])).toBe("python");
    }
    for (const w of ws) countClasses(decodeTyped(w.type, w.value, sinkOf(issues)), classes);
    expect(issues).toEqual([]);
    expect(Object.fromEntries(classes)).toEqual({ HumanMessage: 41, AIMessage: 41 });
    expect(ws.filter((w) => w.type === "null").length).toBe(7);
  });

  it("python messages lose type/example/nulls like JS toJSON", () => {
    const { cps } = rows("python-v4-chat.sqlite");
    const cp = decodeTyped(cps[0]!.type, cps[0]!.checkpoint, sinkOf()) as { channel_values: { messages?: unknown[] } };
    const withMsgs = rows("python-v4-chat.sqlite")
      .cps.map((r) => decodeTyped(r.type, r.checkpoint, sinkOf()) as typeof cp)
      .find((c) => c.channel_values.messages?.length);
    const m = withMsgs!.channel_values.messages![0] as { id: string[]; kwargs: Record<string, unknown> };
    expect(m.id.slice(0, 2)).toEqual(["langchain_core", "messages"]);
    expect("type" in m.kwargs).toBe(false);
    expect("example" in m.kwargs).toBe(false);
    expect(Object.values(m.kwargs).includes(null)).toBe(false);
  });

  it("python-v1-persistence: v1 checkpoints with pending_sends [] and legacy metadata writes", () => {
    const { cps, ws } = rows("python-v1-persistence.sqlite");
    expect(cps.length).toBe(5);
    expect(ws.length).toBe(6);
    for (const r of cps) {
      const cp = decodeTyped(r.type, r.checkpoint, sinkOf()) as Record<string, unknown>;
      expect(cp.v).toBe(1);
      expect(cp.pending_sends).toEqual([]);
    }
    const first = cps
      .map((r) => decodeMetadata(r.type, r.metadata, sinkOf()) as Record<string, unknown>)
      .find((m) => m.step === -1)!;
    expect(first.writes).toEqual({ __start__: { input: "hello world" } });
  });
});

describe("langgraph serde on hand-built payloads", () => {
  const pack = (v: unknown) => encode(v);
  const extBytes = (type: number, payload: unknown) => {
    // build an ext record by hand: fixext/ext8 header + payload
    const data = pack(payload);
    return Buffer.concat([Buffer.from([0xc7, data.length, type]), Buffer.from(data)]);
  };

  it("EXT 0 uuid, EXT 3 datetime, EXT 2 Interrupt, EXT 1 Send become lc:2 records with the ext code", () => {
    const uuid = extBytes(0, ["uuid", "UUID", "0123456789abcdef0123456789abcdef"]);
    const dt = extBytes(3, ["datetime", "datetime", "2024-01-02T03:04:05+00:00", "fromisoformat"]);
    const intr = extBytes(2, ["langgraph.types", "Interrupt", { value: { q: "ok?" }, id: "abc" }]);
    const send = extBytes(1, ["langgraph.types", "Send", ["node_a", { x: 1 }]]);
    const arr = Buffer.concat([Buffer.from([0x94]), uuid, dt, intr, send]);
    const issues: LgDecodeIssue[] = [];
    const [u, d, i, s] = decodeTyped("msgpack", arr, sinkOf(issues)) as Array<Record<string, unknown>>;
    expect(issues).toEqual([]);
    expect(u).toEqual({
      lc: 2,
      type: "constructor",
      id: ["uuid", "UUID"],
      method: null,
      args: ["0123456789abcdef0123456789abcdef"],
      kwargs: {},
      ext: 0,
    });
    expect(d).toMatchObject({
      id: ["datetime", "datetime"],
      method: "fromisoformat",
      args: ["2024-01-02T03:04:05+00:00"],
      ext: 3,
    });
    expect(interruptOf(i)).toEqual({ id: "abc", value: { q: "ok?" } });
    expect(interruptOf({ id: "x", value: 1 })).toEqual({ id: "x", value: 1 });
    expect(s).toMatchObject({ id: ["langgraph", "types", "Send"], args: ["node_a", { x: 1 }], ext: 1 });
  });

  it("EXT 5 message inside a list, bin and int64 values, integer map keys", () => {
    const msg = extBytes(5, [
      "langchain_core.messages.tool",
      "ToolMessage",
      { content: "r", type: "tool", tool_call_id: "c1", name: null, artifact: null, status: "success" },
      "model_validate_json",
    ]);
    const bin = Buffer.from(pack(new Uint8Array([1, 2, 3])));
    const big = Buffer.from([0xcf, 0, 0x20, 0, 0, 0, 0, 0, 1]); // uint64 2^53 + 1
    const mapIntKey = Buffer.concat([Buffer.from([0x81, 0x07]), Buffer.from(pack("seven"))]); // {7: "seven"}
    const arr = Buffer.concat([Buffer.from([0x94]), msg, bin, big, mapIntKey]);
    const issues: LgDecodeIssue[] = [];
    const [m, b, n, mk] = decodeTyped("msgpack", arr, sinkOf(issues)) as unknown[];
    expect(m).toEqual({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "ToolMessage"],
      kwargs: { content: "r", tool_call_id: "c1", status: "success" },
    });
    expect(b).toEqual({
      lc: 2,
      type: "constructor",
      id: ["Uint8Array"],
      method: "from",
      args: [[1, 2, 3]],
      kwargs: {},
    });
    expect(n).toBe(2 ** 53); // nearest double, reported
    expect(mk).toEqual({ "7": "seven" });
    expect(issues.map((x) => `${x.reason}:${x.fatal}`).sort()).toEqual(["big-int:false", "map-key:false"]);
  });

  it("every type tag: null, empty, bytes, bytearray, pickle, encrypted, unknown, truncated msgpack, bad JSON", () => {
    const issues: LgDecodeIssue[] = [];
    const s = sinkOf(issues);
    expect(decodeTyped("null", Buffer.alloc(0), s)).toBeNull();
    expect(decodeTyped("empty", null, s)).toBeUndefined();
    expect(decodeTyped("bytes", Buffer.from([9]), s)).toMatchObject({ id: ["Uint8Array"], args: [[9]] });
    expect(decodeTyped("bytearray", Buffer.from([8]), s)).toMatchObject({ args: [[8]] });
    expect(issues).toEqual([]);
    expect(decodeTyped("pickle", Buffer.from([1]), s)).toBeUndefined();
    expect(decodeTyped("msgpack+aes", Buffer.from([1]), s)).toBeUndefined();
    expect(decodeTyped("yaml", Buffer.from([1]), s)).toBeUndefined();
    expect(decodeTyped("msgpack", Buffer.from([0x92, 0x01]), s)).toBeUndefined();
    expect(decodeTyped("json", Buffer.from("{oops"), s)).toBeUndefined();
    expect(decodeTyped(null, Buffer.from('{"a":1}'), s)).toEqual({ a: 1 });
    expect(issues.map((i) => i.reason)).toEqual(["pickle", "encrypted", "unknown-type", "msgpack", "json"]);
    expect(issues.every((i) => i.fatal)).toBe(true);
  });

  it("old Python lc:1 message ids are normalized; JS records are kept", () => {
    const old =
      '{"messages":[{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],"kwargs":{"content":"hi","type":"human"}}]}';
    expect(decodeTyped("json", Buffer.from(old), sinkOf())).toEqual({
      messages: [
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "hi" } },
      ],
    });
    const mid =
      '[{"lc":1,"type":"constructor","id":["langchain_core","messages","ai","AIMessage"],"kwargs":{"content":"a","type":"ai"}}]';
    expect(decodeTyped("json", Buffer.from(mid), sinkOf())).toEqual([
      { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "a" } },
    ]);
    const undef =
      '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"content":"r","artifact":{"lc":2,"type":"undefined"},"tool_call_id":"c"}}';
    expect(decodeTyped("json", Buffer.from(undef), sinkOf())).toEqual({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "ToolMessage"],
      kwargs: { content: "r", tool_call_id: "c" },
    });
    const js =
      '{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"x","tool_calls":[]}}';
    expect(decodeTyped("json", Buffer.from(js), sinkOf())).toEqual(JSON.parse(js));
  });

  it("the same ids and records are normalized however the JSON text is spaced (the fast pre-test misses none)", () => {
    const oldIds = {
      messages: [
        {
          lc: 1,
          type: "constructor",
          id: ["langchain", "schema", "messages", "HumanMessage"],
          kwargs: { content: "h" },
        },
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "ai", "AIMessage"], kwargs: { content: "a" } },
        {
          lc: 1,
          type: "constructor",
          id: ["langchain_core", "messages", "ToolMessage"],
          kwargs: { content: "r", artifact: { lc: 2, type: "undefined" }, tool_call_id: "c" },
        },
      ],
    };
    // what LangChain's own readers make of these messages (normalized ids, the undefined record gone), written by hand
    const expected = {
      messages: [
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "h" } },
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "a" } },
        {
          lc: 1,
          type: "constructor",
          id: ["langchain_core", "messages", "ToolMessage"],
          kwargs: { content: "r", tool_call_id: "c" },
        },
      ],
    };
    // compact (JS), Python's json.dumps spacing (", " and ": "), and indented
    const texts = [
      JSON.stringify(oldIds),
      JSON.stringify(oldIds).replace(/,"/g, ', "').replace(/":/g, '": '),
      JSON.stringify(oldIds, null, 2),
    ];
    for (const text of texts) expect(decodeTyped("json", Buffer.from(text), sinkOf())).toEqual(expected);
    // each kind alone, spaced the Python way
    for (const m of oldIds.messages) {
      const text = JSON.stringify([m]).replace(/,"/g, ', "').replace(/":/g, '": ');
      expect(decodeTyped("json", Buffer.from(text), sinkOf())).toEqual([expected.messages[oldIds.messages.indexOf(m)]]);
    }
  });
});
