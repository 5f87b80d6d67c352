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

describe("toPlainNumbers is copy on write", () => {
  it("returns a value without bigints as it is, and copies only the path to a bigint", async () => {
    const { toPlainNumbers } = await import("../src/base/json.js");
    const plain = { a: [1, { b: "x" }], c: { d: null } };
    expect(toPlainNumbers(plain)).toBe(plain);
    const big = { keep: { same: [1, 2] }, path: [0, { n: 2n ** 64n }], text: "t" };
    const out = toPlainNumbers(big) as typeof big;
    expect(out).not.toBe(big);
    expect(out.keep).toBe(big.keep); // untouched branch shared
    expect((out.path[1] as { n: unknown }).n).toBe(18446744073709552000);
    expect(typeof (big.path[1] as { n: unknown }).n).toBe("bigint"); // the input is not changed
    const proto = JSON.parse('{"__proto__": {"x": 1}, "n": 1}');
    proto.n = 5n;
    const p2 = toPlainNumbers(proto) as Record<string, unknown>;
    expect(Object.keys(p2)).toEqual(["__proto__", "n"]);
    expect(Object.getPrototypeOf(p2)).toBe(Object.prototype);
  });
});
