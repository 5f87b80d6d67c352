// A document is parsed once on its way in: the format detectors that look inside it and its adapter's parse share
// one JSON.parse of its text (readNative), and nothing of that memo outlives the call.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, test, vi } from "vitest";
import { parseJson, parsingOnce } from "../src/base/json.js";
import { readNative } from "../src/formats/index.js";

const bigParses = (spy: { mock: { calls: unknown[][] } }, text: string) =>
  spy.mock.calls.filter((c) => c[0] === text).length;

describe("parsingOnce", () => {
  afterEach(() => vi.restoreAllMocks());

  test("readNative parses a deep-agent checkpoint's text once (two detectors and the adapter read it)", () => {
    const path = "fixtures/deepagent/valid/user_42_session_1.json";
    const text = readFileSync(path, "utf8");
    const spy = vi.spyOn(JSON, "parse");
    const n = readNative({ name: path, text });
    expect(n.format).toBe("deepagent");
    expect(bigParses(spy, text)).toBe(1);
    // the value is the document's, as a fresh parse gives it
    expect(n.native).toEqual(JSON.parse(text));
  });

  test("the same text outside it is parsed anew (a fresh value), and other texts inside it too", () => {
    const text = '{"a": [1, 2]}';
    const inside = parsingOnce(text, () => [parseJson(text), parseJson(text), parseJson("[3]"), parseJson("[3]")]);
    expect(inside[0]).toBe(inside[1]);
    expect(inside[2]).not.toBe(inside[3]);
    expect(parseJson(text)).not.toBe(inside[0]);
    expect(parseJson(text)).toEqual({ a: [1, 2] });
  });

  test("a syntax error is still thrown every time inside it", () => {
    const text = '{"a": ';
    parsingOnce(text, () => {
      expect(() => parseJson(text, { file: "x.json" })).toThrow(/invalid JSON/);
      expect(() => parseJson(text, { file: "x.json" })).toThrow(/invalid JSON/);
    });
  });
});
