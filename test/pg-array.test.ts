/**
 * textArray (src/savers/pg-array.ts) writes text[] literals itself: PostgreSQL must read back exactly the array of
 * strings (and NULLs) given, whatever characters the elements hold, checked element by element and by position
 * (array_position / unnest WITH ORDINALITY on the server, not this module's code).
 */
import { describe, expect, it } from "vitest";
import { textArray } from "../src/savers/pg-array.js";
import { pgTestSchemas } from "./helpers/pg-schemas.js";

const pgdb = pgTestSchemas("pga");

const tricky: Array<string | null> = [
  "a-chat-1~233",
  "",
  " ",
  "  lead",
  "trail ",
  "NULL",
  "null",
  "NuLl",
  null,
  "nul",
  "nulls",
  '"',
  "\\",
  '\\"',
  'a"b\\c',
  "{",
  "}",
  "{a,b}",
  ",",
  "a,b",
  "tab\there",
  "new\nline",
  "cr\rx",
  "é",
  "😀",
  "__start__",
  "branch:to:add",
  "00000000000000000000000000000002.0.4734247425358875",
  "1f1e719f-a07c-6a8c-8002-647cebc49fbb",
  "a/b|c#d=e@f+g",
  "'single'",
  "$1",
  "\u00a0nbsp",
  "x".repeat(5000),
];

describe("textArray", () => {
  it("PostgreSQL reads back the same strings and NULLs, in order", async () => {
    const r = await pgdb.query("SELECT t, n FROM unnest($1::text[]) WITH ORDINALITY AS k(t, n) ORDER BY n", [
      textArray(tricky),
    ]);
    expect(r.rows.map((x) => x.t)).toEqual(tricky);
    expect(r.rows.map((x) => Number(x.n))).toEqual(tricky.map((_, i) => i + 1));
  });

  it("an empty array, and arrays of one element each", async () => {
    expect((await pgdb.query("SELECT cardinality($1::text[]) AS n", [textArray([])])).rows[0].n).toBe(0);
    for (const v of tricky) {
      const r = await pgdb.query("SELECT ($1::text[])[1] AS t, cardinality($1::text[]) AS n", [textArray([v])]);
      expect(r.rows[0]).toEqual({ t: v, n: 1 });
    }
  });
});
