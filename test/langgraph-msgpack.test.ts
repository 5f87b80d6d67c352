/**
 * The byte-level msgpack map split (formats/langgraph/msgpack.ts) against the library's own encoder and decoder: every
 * key comes back as the string encoded, every value's bytes decode (with the library) to the value encoded, whatever
 * form the key takes (fixstr, str8, str16, non-ASCII), from a Buffer or a plain Uint8Array; a second split of the same
 * bytes gives the same entries; other bytes are split on their own.
 */
import { describe, expect, it } from "vitest";
import { decode, encode } from "@msgpack/msgpack";
import { mapEntries } from "../src/formats/langgraph/msgpack.js";

const value = {
  v: 4,
  ts: "2026-11-23T08:43:38.020912+00:00",
  ["k".repeat(31)]: "fixstr key of 31 bytes",
  ["s".repeat(32)]: { nested: [1, "two", null, true, 2.5] },
  ["é".repeat(100)]: "a str8 key of 200 bytes",
  ["x".repeat(300)]: "a str16 key",
  "": -7,
  "😀": new Uint8Array([1, 2, 3]),
};

describe("mapEntries", () => {
  it("splits a map into its keys and each value's own bytes (Buffer and Uint8Array input alike)", () => {
    const bytes = encode(value);
    for (const b of [Buffer.from(bytes), new Uint8Array(bytes)]) {
      const entries = mapEntries(b);
      expect(entries.map(([k]) => k)).toEqual(Object.keys(value));
      // bin values compare as their bytes (the decoder gives a view of the same kind as its input)
      const bytesOf = (x: unknown) => (x instanceof Uint8Array ? [...x] : x);
      for (const [k, raw] of entries) expect(bytesOf(decode(raw))).toEqual(bytesOf(value[k as keyof typeof value]));
    }
  });

  it("a map inside a buffer at an offset, and a second split of the same bytes, give the same entries", () => {
    const inner = encode({ a: 1, b: "x" });
    const b = Buffer.concat([Buffer.from([0xc0, 0xc0]), inner]);
    const first = mapEntries(b, 2);
    expect(first.map(([k, raw]) => [k, decode(raw)])).toEqual([
      ["a", 1],
      ["b", "x"],
    ]);
    expect(mapEntries(b, 2)).toEqual(first);
    // other bytes (another buffer of other content) are not taken for the bytes split before
    const other = Buffer.from(encode({ c: 2 }));
    expect(mapEntries(other).map(([k, raw]) => [k, decode(raw)])).toEqual([["c", 2]]);
    expect(mapEntries(b, 2).map(([k]) => k)).toEqual(["a", "b"]);
  });

  it("a key that is not a string, bytes cut short and a non-map are errors", () => {
    const intKey = Uint8Array.of(0x81, 0x01, 0x02);
    expect(() => mapEntries(intKey)).toThrow(/expected string map keys/);
    const cut = encode({ abc: "defgh" }).subarray(0, 6);
    expect(() => mapEntries(cut)).toThrow(/cut short/);
    expect(() => mapEntries(encode([1, 2]))).toThrow(/expected a msgpack map/);
  });
});
