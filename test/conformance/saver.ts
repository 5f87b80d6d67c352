/**
 * One conformance suite for every saver, run against real backends (memory, a temp folder, a temp SQLite file,
 * Redis and PostgreSQL on 127.0.0.1). `open()` must give an isolated, empty store; it may be called more than once
 * (for the concurrent-writer cases) and every instance sees the same data.
 */
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { parseJson, stringifyJson } from "../../src/base/json.js";
import { CkptError } from "../../src/base/errors.js";
import type { Saver } from "../../src/savers/types.js";

export interface ConformanceTarget {
  name: string;
  open: () => Promise<Saver>;
  cleanup?: () => Promise<void>;
  /** FileSaver layout: ids that sanitize to the same file name collide (refused) and long ids exceed file-name limits */
  fileLayout?: boolean;
}

/** A deep-agent style checkpoint as text, with an integer beyond 2^53 that must survive. */
export function doc(threadId: string, n = 1, extra = "", big = true): string {
  const text = JSON.stringify(
    {
      threadId,
      step: n,
      messages: [{ role: "user", content: `hello ${n} ${extra}` }],
      state: { todos: [], files: {} },
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    },
    null,
    2,
  );
  return big ? text.replace('"step": ' + n, '"big": 18446744073709551615,\n  "step": ' + n) : text;
}

/** Same document after parsing: whitespace aside, every byte (key order, big integers) must be kept. */
const same = (a: string | undefined) => (a === undefined ? undefined : stringifyJson(parseJson(a)));

async function collect(s: Saver, opts?: Parameters<Saver["list"]>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const t of s.list(opts)) out.push(t.threadId);
  return out;
}

export function saverConformance(t: ConformanceTarget): void {
  describe(`saver conformance: ${t.name}`, () => {
    let s: Saver;
    beforeAll(async () => {
      s = await t.open();
    });
    afterAll(async () => {
      await s?.close();
      await t.cleanup?.();
    });

    it("round-trips a document (big integers and key order kept); missing is undefined", async () => {
      const d = doc("t-round");
      await s.save("t-round", d);
      expect(same(await s.load("t-round"))).toBe(same(d));
      expect((await s.load("t-round"))!).toContain("18446744073709551615");
      expect(await s.load("t-missing")).toBeUndefined();
      expect(await s.exists("t-round")).toBe(true);
      expect(await s.exists("t-missing")).toBe(false);
    });

    it("keeps namespaces and threads apart", async () => {
      await s.save("t-iso", doc("t-iso", 1, "ns-a"), "ns-a");
      await s.save("t-iso", doc("t-iso", 2, "ns-b"), "ns-b");
      await s.save("t-iso2", doc("t-iso2", 3, "ns-a"), "ns-a");
      expect(same(await s.load("t-iso", "ns-a"))).toBe(same(doc("t-iso", 1, "ns-a")));
      expect(same(await s.load("t-iso", "ns-b"))).toBe(same(doc("t-iso", 2, "ns-b")));
      expect(await s.load("t-iso")).toBeUndefined();
      expect(await collect(s, { namespace: "ns-a" })).toEqual(["t-iso", "t-iso2"]);
      expect(await collect(s, { namespace: "ns-b" })).toEqual(["t-iso"]);
      expect(await s.namespaces()).toEqual(expect.arrayContaining(["ns-a", "ns-b"]));
    });

    it("overwrites and deletes", async () => {
      await s.save("t-del", doc("t-del", 1), "del");
      await s.save("t-del", doc("t-del", 2), "del");
      expect(same(await s.load("t-del", "del"))).toBe(same(doc("t-del", 2)));
      expect(await s.delete("t-del", "del")).toBe(true);
      expect(await s.delete("t-del", "del")).toBe(false);
      expect(await s.load("t-del", "del")).toBeUndefined();
    });

    it("lists in code-unit order and pages with after/limit", async () => {
      // unicode ids chosen so that FileSaver's sanitized names stay distinct ("é" → "_", "日本x" → "__x", "😀y" → "__y")
      const ids = ["b", "a", "c-3", "Z", "a-1", "é", "日本x", "😀y", "m_0"];
      await s.saveMany(ids.map((id) => ({ namespace: "order", threadId: id, text: doc(id) })));
      const expected = [...ids].sort(); // JavaScript's default sort: UTF-16 code units
      expect(await collect(s, { namespace: "order" })).toEqual(expected);
      const pages: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await collect(s, { namespace: "order", after, limit: 4 });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(4);
        pages.push(...page);
        after = page[page.length - 1];
      }
      expect(pages).toEqual(expected);
      const infos = [];
      for await (const i of s.list({ namespace: "order", limit: 1 })) infos.push(i);
      expect(infos[0]!.bytes).toBeGreaterThan(100);
    });

    it("handles unicode and hostile thread ids without escaping or mixing them up", async () => {
      const hostile = ["../escape", "a/b", "..", "x\\y", "emoji 😀 id", "tab\tid"];
      for (const id of hostile) await s.save(id, doc(id), "hostile");
      for (const id of hostile) expect(parseJson((await s.load(id, "hostile"))!)).toMatchObject({ threadId: id });
      expect((await collect(s, { namespace: "hostile" })).sort()).toEqual([...hostile].sort());
      await expect(s.save("", doc(""), "hostile")).rejects.toThrow(/non-empty/);
      const long = "x".repeat(1024);
      if (t.fileLayout) {
        await expect(s.save(long, doc(long), "hostile")).rejects.toThrow(/too long for a file name/);
      } else {
        await s.save(long, doc(long), "hostile");
        expect(parseJson((await s.load(long, "hostile"))!)).toMatchObject({ threadId: long });
      }
    });

    it(
      t.fileLayout
        ? "refuses ids that would share a FileSaver file, naming both"
        : "keeps ids apart that FileSaver would mix up (a:b, a_b, a.b)",
      async () => {
        await s.save("a:b", doc("a:b", 1), "collide");
        if (t.fileLayout) {
          const err = await s.save("a_b", doc("a_b", 2), "collide").catch((e) => e);
          expect(err).toBeInstanceOf(CkptError);
          expect(err.message).toMatch(/'a_b' and 'a:b' both map to a_b\.json/);
          expect(parseJson((await s.load("a:b", "collide"))!)).toMatchObject({ threadId: "a:b" });
          expect(await s.load("a_b", "collide")).toBeUndefined();
        } else {
          await s.save("a_b", doc("a_b", 2), "collide");
          await s.save("a.b", doc("a.b", 3), "collide");
          expect(parseJson((await s.load("a:b", "collide"))!)).toMatchObject({ threadId: "a:b", step: 1 });
          expect(parseJson((await s.load("a_b", "collide"))!)).toMatchObject({ threadId: "a_b", step: 2 });
          expect(await collect(s, { namespace: "collide" })).toEqual(["a.b", "a:b", "a_b"]);
        }
      },
    );

    it("loads a batch in the order asked, undefined where missing, across namespaces", async () => {
      await s.saveMany([
        { namespace: "lm-a", threadId: "x1", text: doc("x1", 1) },
        { namespace: "lm-a", threadId: "x2", text: doc("x2", 2) },
        { namespace: "lm-b", threadId: "x1", text: doc("x1", 3) },
        { namespace: "lm-b", threadId: 'q"uote\\back 😀', text: doc('q"uote\\back 😀', 4) },
      ]);
      const got = await s.loadMany([
        { namespace: "lm-a", threadId: "x2" },
        { namespace: "lm-b", threadId: "x1" },
        { namespace: "lm-a", threadId: "missing" },
        { namespace: "lm-c", threadId: "x1" },
        { namespace: "lm-a", threadId: "x1" },
      ]);
      expect(got.map(same)).toEqual([same(doc("x2", 2)), same(doc("x1", 3)), undefined, undefined, same(doc("x1", 1))]);
      expect(await s.loadMany([])).toEqual([]);
      expect((await s.loadMany([{ namespace: "lm-b", threadId: 'q"uote\\back 😀' }])).map(same)).toEqual([
        same(doc('q"uote\\back 😀', 4)),
      ]);
      // what loadMany returns is what load returns
      expect(got[0]).toBe(await s.load("x2", "lm-a"));
    });

    it("scans every record of a namespace exactly once, in batches of the size asked, with the text load gives", async () => {
      const ids = Array.from({ length: 23 }, (_, i) => `s-${i}`).concat(["a:b", "é"]);
      await s.saveMany(ids.map((id) => ({ namespace: "scan", threadId: id, text: doc(id, 7) })));
      await s.save("other", doc("other"), "scan-other");
      const seen: string[] = [];
      const sizes: number[] = [];
      for await (const batch of s.scan({ namespace: "scan", batchSize: 5 })) {
        sizes.push(batch.length);
        for (const r of batch) {
          expect(r.namespace).toBe("scan");
          expect(r.text).toBe(await s.load(r.threadId, "scan"));
          seen.push(r.threadId);
        }
      }
      expect([...seen].sort()).toEqual([...ids].sort());
      expect(await s.count("scan")).toBe(ids.length);
      expect(await s.count("scan-other")).toBe(1);
      expect(await s.count("scan-nothing-here")).toBe(0);
      expect(new Set(seen).size).toBe(seen.length);
      expect(sizes.every((n) => n >= 1 && n <= 5)).toBe(true);
      expect(sizes.slice(0, -1).every((n) => n === 5)).toBe(true); // only the last batch may be short
      const none: unknown[] = [];
      for await (const b of s.scan({ namespace: "scan-nothing-here" })) none.push(b);
      expect(none).toEqual([]);
    });

    it("stores a 5 MB document intact", async () => {
      const big = doc("t-big", 1, "y".repeat(5 * 1024 * 1024), false);
      await s.save("t-big", big, "big");
      const back = (await s.load("t-big", "big"))!;
      expect(same(back)).toBe(same(big));
    });

    it("takes concurrent writers: distinct threads all land, one thread ends whole", async () => {
      const s2 = await t.open();
      try {
        await Promise.all([
          ...Array.from({ length: 20 }, (_, i) => s.save(`w1-${i}`, doc(`w1-${i}`, i), "conc")),
          ...Array.from({ length: 20 }, (_, i) => s2.save(`w2-${i}`, doc(`w2-${i}`, i), "conc")),
          ...Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? s : s2).save("same", doc("same", i, "z".repeat(10_000)), "conc"),
          ),
        ]);
        const ids = await collect(s2, { namespace: "conc" });
        expect(ids.length).toBe(41);
        // The stored document is exactly one of the ten that were written, byte for byte once parsed: not torn
        // and not a mix of two writers.
        const stored = same(await s.load("same", "conc"));
        const written = Array.from({ length: 10 }, (_, i) => same(doc("same", i, "z".repeat(10_000))));
        expect(written.filter((w) => w === stored)).toHaveLength(1);
      } finally {
        await s2.close();
      }
    });
  });
}
