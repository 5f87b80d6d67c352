import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { relayout } from "../src/savers/json-layout.js";

const F = "/work/shared/formats";
const read = (p: string) => readFileSync(join(F, p), "utf8");

describe("relayout: each system's own JSON layout from any layout of the same tokens", () => {
  it("Swarmer (Python json.dump indent=2, ensure_ascii) from the compact form JavaScript writes", () => {
    const sw = read("swarmer/constructed/agent_123456789.pkl"); // equal to python3 json.dumps(json.loads(t), indent=2)
    expect(relayout(JSON.stringify(JSON.parse(sw)), { indent: 2, asciiOnly: true })).toBe(sw);
    expect(relayout(sw, { indent: 2, asciiOnly: true })).toBe(sw);
  });
  it("phi-core session (serde_json to_writer_pretty) from compact; yoagent (serde_json to_string) from pretty", () => {
    const ps = read("phi-core/generated/session.sess-1.v0.10.json");
    expect(relayout(JSON.stringify(JSON.parse(ps)), { indent: 2, asciiOnly: false })).toBe(ps);
    expect(relayout(read("yoagent/generated/save_messages.v0.18.pretty.json"), { indent: 0, asciiOnly: false })).toBe(
      read("yoagent/generated/save_messages.v0.18.json"),
    );
  });
  it("keeps number texts and escapes as Python's ensure_ascii does (expected text from python3 json.dumps)", () => {
    // python3 -c 'import json; print(json.dumps({"a": "é\x7f😀\n\x01", "b": [1.0, {}], "c": []}, indent=2))'
    const py = '{\n  "a": "\\u00e9\\u007f\\ud83d\\ude00\\n\\u0001",\n  "b": [\n    1.0,\n    {}\n  ],\n  "c": []\n}';
    expect(relayout('{"a":"é\u007f😀\\n\\u0001","b":[1.0,{}],"c":[ ]}', { indent: 2, asciiOnly: true })).toBe(py);
    // serde_json writes non-ASCII raw and needs no escape for "/" or "é"
    expect(
      relayout('[ "\\u00e9\\/", 18446744073709551615, -0.5e-7 , "a\\"b\\\\" ]', { indent: 0, asciiOnly: false }),
    ).toBe('["é/",18446744073709551615,-0.5e-7,"a\\"b\\\\"]');
  });
});
