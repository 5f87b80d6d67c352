/**
 * PostgreSQL bulk writes go through COPY (savers/postgres-copy.ts) when every row is new and fall back to an upsert
 * when one exists; both must store the exact text, whatever the ids and documents hold (tabs, newlines, backslashes).
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { openSaver } from "../src/savers/index.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const schema = `ckpt_copy_${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

const hostile = (i: number) =>
  [`tab\tid-${i}`, `nl\nid-${i}`, `back\\slash-${i}`, `cr\rid-${i}`, `plain-${i}`, `\\N-${i}`][i % 6]!;
const text = (id: string, v: string) =>
  `{\n\t"threadId": ${JSON.stringify(id)},\r\n  "v": ${JSON.stringify(v)},\n  "path": "C:\\\\x\\\\y\\t"\n}`;

describe("postgres bulk writes (COPY, upsert fallback)", () => {
  it("stores exact texts through COPY, and overwrites through the fallback when rows exist", async () => {
    const s = await openSaver(`${PG}?schema=${schema}`);
    try {
      const ids = Array.from({ length: 40 }, (_, i) => hostile(i));
      await s.saveMany(ids.map((id) => ({ namespace: "n\tx", threadId: id, text: text(id, "one") })));
      const got = await s.loadMany(ids.map((id) => ({ namespace: "n\tx", threadId: id })));
      expect(got).toEqual(ids.map((id) => text(id, "one")));
      // half of them exist: COPY fails on the first duplicate, nothing of it stays, the upsert writes all 40
      const mixed = [...ids.slice(0, 20), ...Array.from({ length: 20 }, (_, i) => `new-${i}`)];
      await s.saveMany(mixed.map((id) => ({ namespace: "n\tx", threadId: id, text: text(id, "two") })));
      expect(await s.loadMany(mixed.map((id) => ({ namespace: "n\tx", threadId: id })))).toEqual(
        mixed.map((id) => text(id, "two")),
      );
      expect(await s.load(ids[30]!, "n\tx")).toBe(text(ids[30]!, "one"));
      expect(await s.count("n\tx")).toBe(60);
      const listed: number[] = [];
      for await (const t of s.list({ namespace: "n\tx", limit: 3 })) listed.push(t.bytes);
      expect(listed.every((b) => b > 60)).toBe(true);
    } finally {
      await s.close();
    }
  });
});
