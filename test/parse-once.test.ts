// A document is parsed once on its way in: the format detectors that look inside it and its adapter's parse share
// one JSON.parse of its text (readNative), and nothing of that memo outlives the call.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { parseJson, parsingOnce } from "../src/base/json.js";
import { loadDocument, parseDocument, validateDocument } from "../src/core/document.js";
import { adapters, readNative } from "../src/formats/index.js";

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

// validate and convert read a document through parseDocument (core/document.ts), which shares the parse the same way
describe("parseDocument (validate, convert)", () => {
  afterEach(() => vi.restoreAllMocks());
  const fx = (...p: string[]) => join(import.meta.dirname, "..", "fixtures", ...p);
  const doc = (file: string) => ({ name: file, text: readFileSync(file, "utf8") });

  test("a deep-agent checkpoint that two detectors and the adapter read is parsed once", () => {
    const d = doc(fx("deepagent", "valid", "all-model-message-variants.json"));
    const spy = vi.spyOn(JSON, "parse");
    const p = parseDocument(d);
    expect(p.adapter.name).toBe("deepagent");
    expect(bigParses(spy, d.text)).toBe(1);
    spy.mockRestore();
    expect(p.native).toEqual(adapters.deepagent.parse(d));
    const loaded = vi.spyOn(JSON, "parse");
    loadDocument(d);
    expect(bigParses(loaded, d.text)).toBe(1);
    loaded.mockRestore();
    expect(validateDocument(d)).toMatchObject({ format: "deepagent", valid: true });
  });

  test("every valid fixture: at most one parse of its text, and the value its adapter's own parse gives", () => {
    let seen = 0;
    for (const format of readdirSync(fx())) {
      let files: string[];
      try {
        files = readdirSync(fx(format, "valid")).filter((f) => f.endsWith(".json"));
      } catch {
        continue;
      }
      for (const f of files) {
        const d = doc(fx(format, "valid", f));
        const spy = vi.spyOn(JSON, "parse");
        let p: ReturnType<typeof parseDocument>;
        try {
          p = parseDocument(d);
        } catch {
          spy.mockRestore();
          continue;
        }
        const whole = spy.mock.calls.filter((c) => c[0] === d.text || c[0] === d.text.slice(1)).length;
        spy.mockRestore();
        expect(whole, `${format}/${f}`).toBeLessThanOrEqual(1);
        expect(p.native, `${format}/${f}`).toEqual(adapters[p.adapter.name].parse(d));
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(30);
  });
});
