import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson, jsonLocator } from "../src/base/json.js";
import { CkptError } from "../src/base/errors.js";

describe("parseJson", () => {
  it("keeps integers beyond 2^53 digit for digit", () => {
    const text = '{"a":18446744073709551615,"b":1.5,"c":[9007199254740993]}';
    const v = parseJson(text) as Record<string, unknown>;
    expect(v.a).toBe(18446744073709551615n);
    expect(v.b).toBe(1.5);
    expect(stringifyJson(v)).toBe(text);
  });

  it("reports line and column of a syntax error", () => {
    try {
      parseJson('{\n  "a": 1,\n  "b": }', { file: "x.json" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CkptError);
      const err = e as CkptError;
      expect(err.exitCode).toBe(3);
      expect(err.place).toMatchObject({ file: "x.json", line: 3, column: 8 });
      expect(err.message).toMatch(/expected a value/);
    }
  });

  it("says a truncated document ends early", () => {
    expect(() => parseJson('{"a": [1, 2', { file: "t.json" })).toThrow(/truncated/);
  });

  it("maps a JSON pointer to line:column", () => {
    const text = '{\n  "messages": [\n    {"role": "user"},\n    {"role": "x"}\n  ]\n}';
    const loc = jsonLocator(text).locate("/messages/1/role");
    expect(loc).toMatchObject({ line: 4, column: 14 });
  });
});
