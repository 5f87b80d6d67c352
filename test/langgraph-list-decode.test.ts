/**
 * The incremental decode of `json` list blobs (src/formats/langgraph/list-decode.ts) gives exactly what the full
 * decode (`decodeTyped`) gives — the same value, normalized the same, the same issues — for every sequence of blobs:
 * lists that extend the previous one, and every way of not doing so (an earlier item changed, a truncated blob, a
 * suffix that does not parse, a BOM or invalid UTF-8 in the new part, a normalization that the new part switches on
 * for the earlier items). The expected values are the full decode of each blob on its own.
 */
import { describe, expect, it } from "vitest";
import { ListDecoder } from "../src/formats/langgraph/list-decode.js";
import { decodeTyped } from "../src/formats/langgraph/serde.js";
import type { LgDecodeIssue, LgRowRef } from "../src/formats/langgraph/types.js";

const row: LgRowRef = {
  store: "postgres",
  table: "checkpoint_blobs",
  threadId: "t",
  namespace: "",
  channel: "messages",
};
const sinkOf = () => ({ row, pointer: "/checkpoint/channel_values/messages", issues: [] as LgDecodeIssue[] });
/** the text PostgreSQL's convert_from(blob, 'UTF8') sends: undefined when it refuses the bytes (not UTF-8, or a NUL) */
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function serverText(b: Buffer): string | undefined {
  if (b.includes(0)) return undefined;
  try {
    return strict.decode(b);
  } catch {
    return undefined;
  }
}

type Form = "bytes" | "text";
/**
 * Decode each blob with one ListDecoder (given as bytes, or as the text the server sends for it, bytes when it
 * refuses) and, separately, in full (decodeTyped on the bytes): both results, issues and sizes per blob.
 */
function decodeAll(form: Form, blobs: Array<Buffer | string>, dec = new ListDecoder(), r: LgRowRef = row) {
  return blobs.map((b) => {
    const bytes = typeof b === "string" ? Buffer.from(b) : b;
    const text = form === "text" ? serverText(bytes) : undefined;
    const inc = sinkOf();
    const full = sinkOf();
    const given = text !== undefined ? { type: "json", blob: null, text } : { type: "json", blob: bytes };
    const { value, bytes: size } = dec.decode(r, "messages", given, inc);
    const want = decodeTyped("json", Buffer.from(bytes), full);
    return { value, want, issues: inc.issues, wantIssues: full.issues, size, wantSize: bytes.length };
  });
}

function expectSame(rs: ReturnType<typeof decodeAll>): void {
  for (const r of rs) {
    expect(r.value).toEqual(r.want);
    expect(r.issues).toEqual(r.wantIssues);
    expect(r.size).toBe(r.wantSize);
  }
}

const msg = (cls: string, content: unknown, extra: Record<string, unknown> = {}) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", cls],
  kwargs: { content, ...extra },
});
const list = (...xs: unknown[]) => JSON.stringify(xs);

describe.each(["bytes", "text"] as const)(
  "ListDecoder: json list blobs decoded from where they differ (given as %s)",
  (form) => {
    const both = (blobs: Array<Buffer | string>, dec?: ListDecoder, r?: LgRowRef) => decodeAll(form, blobs, dec, r);

    it("a list extended by one item: the earlier items are the previous value's objects, the value the full decode's", () => {
      const a = msg("HumanMessage", "hi", { id: "1" });
      const b = msg("AIMessage", "hello", { id: "2", tool_calls: [] });
      const c = msg("HumanMessage", "more", { id: "3" });
      const rs = both([list(a), list(a, b), list(a, b, c), list(a, b, c)]);
      expectSame(rs);
      const [v1, v2, v3, v4] = rs.map((r) => r.value as unknown[]);
      expect(v2![0]).toBe(v1![0]);
      expect(v3![0]).toBe(v1![0]);
      expect(v3![1]).toBe(v2![1]);
      expect(v4![2]).toBe(v3![2]); // the same blob again: the same items
      expect(v4).not.toBe(v3); // in a list of its own
    });

    it("Python's separators (', ') and whitespace before the closing bracket extend as well", () => {
      const rs = both([
        '[{"a": 1}]',
        '[{"a": 1}, {"b": 2}]',
        '[{"a": 1}, {"b": 2}, {"c": [1, 2]}\n]',
        '[{"a": 1}, {"b": 2}, {"c": [1, 2]}\n, 3 ]',
      ]);
      expectSame(rs);
      expect((rs[1]!.value as unknown[])[0]).toBe((rs[0]!.value as unknown[])[0]);
      expect((rs[2]!.value as unknown[])[1]).toBe((rs[1]!.value as unknown[])[1]);
    });

    it("an earlier item changed (same length or longer): decoded in full, nothing shared", () => {
      const a = msg("HumanMessage", "hi", { id: "1" });
      const a2 = msg("HumanMessage", "ho", { id: "1" });
      const b = msg("AIMessage", "hello", { id: "2" });
      const rs = both([list(a, b), list(a2, b), list(a2, b, a), list(a, b, a, b)]);
      expectSame(rs);
      expect((rs[1]!.value as Array<{ kwargs: { content: string } }>)[0]!.kwargs.content).toBe("ho");
      expect((rs[3]!.value as Array<{ kwargs: { content: string } }>)[0]!.kwargs.content).toBe("hi");
      expect((rs[3]!.value as unknown[])[0]).not.toBe((rs[2]!.value as unknown[])[0]);
    });

    it("a truncated blob, a suffix that does not parse, an empty suffix, a trailing comma: the full decode's issue, then recovery", () => {
      const a = list(msg("HumanMessage", "hi"));
      const ab = list(msg("HumanMessage", "hi"), msg("AIMessage", "yes"));
      const rs = both([
        a,
        ab.slice(0, ab.length - 5),
        a,
        a.slice(0, -1) + ",}]",
        a,
        a.slice(0, -1) + ",]",
        a,
        a.slice(0, -1) + ",1,]",
        a,
        ab,
      ]);
      expectSame(rs);
      expect(rs.map((r) => r.issues.length)).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
      expect(rs[1]!.issues[0]!.reason).toBe("json");
      expect((rs[9]!.value as unknown[])[0]).toBe((rs[8]!.value as unknown[])[0]);
    });

    it("the previous bytes without their `]` followed by anything but a comma: the full decode's error", () => {
      const rs = both(["[1]", "[1 2]", "[1]", "[1]2]", "[1]", "[1,2]"]);
      expectSame(rs);
      expect(rs.map((r) => r.issues.length)).toEqual([0, 1, 0, 1, 0, 0]);
    });

    it("whitespace after the closing bracket: that list is not extended from (its `]` is not its last byte)", () => {
      const rs = both(["[1]", "[1,2] ", "[1,2],3]", "[1,2] ", "[1,2] ,3]"]);
      expectSame(rs);
      expect(rs.map((r) => r.issues.length)).toEqual([0, 0, 1, 0, 1]);
    });

    it("a BOM at the start, multi-byte characters in the new part: the full decode's value and size", () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(list({ x: 1 }))]);
      const rs = both([
        bom,
        list({ x: 1 }, { y: "é" }),
        list({ x: 1 }, { y: "é" }, { z: "日本 🎉" }),
        list({ x: 1 }, { y: "é" }, { z: "日本 🎉" }, { w: "\u0000" }),
      ]);
      expectSame(rs);
      expect(rs[0]!.issues).toHaveLength(0); // the decoder drops a leading BOM
      expect((rs[2]!.value as unknown[])[1]).toBe((rs[1]!.value as unknown[])[1]);
    });

    it("a BOM or invalid UTF-8 in the new part: the full decode's result (a BOM there is no mark to drop)", () => {
      const a = list({ x: 1 });
      const bom = Buffer.concat([
        Buffer.from(a.slice(0, -1) + ","),
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"y":2}]'),
      ]);
      const bad = Buffer.concat([Buffer.from(a.slice(0, -1) + ',"'), Buffer.from([0xff]), Buffer.from('"]')]);
      const rs = both([a, bom, a, bad]);
      expectSame(rs);
      expect(rs[1]!.issues).toHaveLength(1);
      expect(rs[3]!.issues).toHaveLength(1);
    });

    it("normalization the new part switches on for the earlier items: decoded in full (old lc:1 ids the regex cannot see)", () => {
      // an old Python id written with an escape: JSON.parse reads "langchain", the text facts see no old id
      const hidden =
        '{"lc":1,"type":"constructor","id":["lang\\u0063hain","schema","messages","HumanMessage"],"kwargs":{"content":"x","type":"human"}}';
      const undef =
        '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"content":"r","tool_call_id":"c","artifact":{"lc":2,"type":"undefined"}}}';
      const rs = both([`[${hidden}]`, `[${hidden},${undef}]`]);
      expectSame(rs);
      const first = (rs[1]!.value as Array<{ id: string[] }>)[0]!;
      expect(first.id).toEqual(["langchain_core", "messages", "HumanMessage"]); // normalized, as the full decode does
      expect("artifact" in (rs[1]!.value as Array<{ kwargs: object }>)[1]!.kwargs).toBe(false);
    });

    it("a match that spans the joint after a string item (OLD_LC1 across the comma): decoded in full", () => {
      const hidden =
        '{"lc":1,"type":"constructor","id":["lang\\u0063hain","schema","messages","HumanMessage"],"kwargs":{"content":"x"}}';
      const rs = both([`[${hidden},"langchain_core"]`, `[${hidden},"langchain_core","messages","abc"]`]);
      expectSame(rs);
      expect((rs[1]!.value as Array<{ id: string[] }>)[0]!.id).toEqual(["langchain_core", "messages", "HumanMessage"]);
    });

    it("lists already normalized stay so: new old-id items are normalized, earlier ones shared", () => {
      const old = (c: string) =>
        `{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],"kwargs":{"content":"${c}","type":"human"}}`;
      const rs = both([`[${old("a")}]`, `[${old("a")},${old("b")}]`]);
      expectSame(rs);
      expect((rs[1]!.value as unknown[])[0]).toBe((rs[0]!.value as unknown[])[0]);
      expect((rs[1]!.value as Array<{ id: string[] }>)[1]!.id).toEqual(["langchain_core", "messages", "HumanMessage"]);
    });

    it("not a list, an empty list, a string list's end, another thread: decoded in full, nothing shared across threads", () => {
      const dec = new ListDecoder();
      expectSame(
        both(['{"a":1}', '{"a":1,"b":2}', "[]", "[1]", "[1,2]", '["s"]', '["s","t"]', "  [1]", "  [1,2]"], dec),
      );
      const a = both([list({ k: 1 })], dec, { ...row, threadId: "t1" });
      const b = both([list({ k: 1 }, { k: 2 })], dec, { ...row, threadId: "t2" });
      expectSame([...a, ...b]);
      expect((b[0]!.value as unknown[])[0]).not.toBe((a[0]!.value as unknown[])[0]);
    });

    it("random edits of random lists: always the full decode's value and issues", () => {
      let seed = 12345;
      const rnd = (n: number) => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed % n;
      };
      const item = (): unknown =>
        [
          () => msg(rnd(2) ? "HumanMessage" : "AIMessage", `m${rnd(100)}`),
          () => rnd(50),
          () => `s${rnd(5)}`,
          () => ({ lc: 2, type: "undefined" }),
          () => ({ k: { lc: 2, type: "undefined" } }),
          () => [rnd(3)],
        ][rnd(6)]!();
      const dec = new ListDecoder();
      let cur: unknown[] = [item()];
      const blobs: Buffer[] = [];
      for (let i = 0; i < 600; i++) {
        const op = rnd(10);
        if (op < 5) cur = [...cur, item()];
        else if (op === 5 && cur.length) cur = [item(), ...cur.slice(1)];
        else if (op === 6) cur = [item()];
        let text = rnd(3) ? JSON.stringify(cur) : JSON.stringify(cur, null, rnd(2) ? 1 : undefined);
        if (op === 7) text = text.slice(0, rnd(text.length));
        let b = Buffer.from(text);
        if (op === 8) b = Buffer.concat([b.subarray(0, b.length - 1), Buffer.from([0xc3]), b.subarray(b.length - 1)]);
        if (op === 9)
          b = Buffer.concat([
            b.subarray(0, b.length - 1),
            Buffer.from(rnd(2) ? ",\ufeff1]" : ', {"lc":2,"type":"undefined"}]'),
          ]);
        blobs.push(b);
      }
      const rs = both(blobs, dec);
      expectSame(rs);
      expect(rs.filter((r) => r.issues.length).length).toBeGreaterThan(10);
    });
  },
);
