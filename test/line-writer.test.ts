/**
 * src/cli/io.ts lineWriter: lines encoded as UTF-8 into 1 MiB buffers and handed to the stream as slices. What the
 * stream receives, joined, must be the UTF-8 of the lines joined (Node's own encoder is the reference), whatever the
 * lines' sizes and characters, with every slice handed over left as it was (a stream may hold it).
 */
import { describe, expect, it } from "vitest";
import { lineWriter } from "../src/cli/io.js";

function collect() {
  const chunks: Array<string | Uint8Array> = [];
  const copies: Buffer[] = [];
  return {
    out: {
      write: (c: string | Uint8Array) => {
        chunks.push(c);
        // what the chunk held when it was handed over
        copies.push(Buffer.from(typeof c === "string" ? Buffer.from(c) : Buffer.from(c)));
        return true;
      },
    },
    chunks,
    bytes: () => Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : Buffer.from(c)))),
    asHanded: () => Buffer.concat(copies),
  };
}

describe("lineWriter", () => {
  it("many lines of every width of character, across buffer boundaries: the UTF-8 of the lines, in order", () => {
    const lines: string[] = [];
    const alphabet = ["a", "é", "°", "€", "汉", "😀", "\n", '"'];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 30000; i++) {
      let s = "";
      const len = rnd(300);
      for (let j = 0; j < len; j++) s += alphabet[rnd(alphabet.length)];
      lines.push(`${i}:${s}\n`);
    }
    const c = collect();
    const w = lineWriter(c.out);
    for (const [i, l] of lines.entries()) {
      w.line(l);
      if (i % 1000 === 0 && w.pending() > 65536) w.flush();
    }
    w.flush();
    const want = Buffer.from(lines.join(""));
    expect(want.length).toBeGreaterThan(3 << 20); // several buffers' worth
    expect(c.bytes().equals(want)).toBe(true);
    // no slice was written again after it was handed over
    expect(c.asHanded().equals(want)).toBe(true);
    expect(c.chunks.length).toBeGreaterThan(3);
  });

  it("a line longer than a buffer goes out whole, in its place", () => {
    const c = collect();
    const w = lineWriter(c.out);
    const big = `${"x€".repeat(400_000)}\n`;
    w.line("before\n");
    w.line(big);
    w.line("after\n");
    w.flush();
    expect(c.bytes().toString("utf8")).toBe(`before\n${big}after\n`);
  });

  it("nothing written, nothing handed over; pending counts bytes not yet handed over", () => {
    const c = collect();
    const w = lineWriter(c.out);
    w.flush();
    expect(c.chunks).toEqual([]);
    w.line("é\n");
    expect(w.pending()).toBe(3);
    w.flush();
    expect(w.pending()).toBe(0);
    expect(c.bytes().toString()).toBe("é\n");
  });
});
