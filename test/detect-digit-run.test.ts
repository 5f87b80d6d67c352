/**
 * The detection's scan for the strings the detectors need also answers hasLongDigitRun (a run of 16+ digits: an
 * integer that may be beyond 2^53) for the same text: its answer must be the one a scan of its own gives.
 */
import { expect, test } from "vitest";
import { hasLongDigitRun, knownDigitRun, MAYBE_BIG } from "../src/base/json.js";
import { detectParsed } from "../src/formats/index.js";

const texts = [
  '{"a": 12345678901234567}',
  '{"a": 1234567890123456}',
  '{"a": 123456789012345}',
  '{"schemaVersion": 1, "messages": [], "x": "1234567890123456"}',
  '{"parts": [1], "rows": 2, "n": 9007199254740993}',
  '["parts", 123456789012345, "rows", 99999999999999999999]',
  '{"step": 1, "threadId": "t", "messages": [], "state": {}, "n": 12345678901234.5678901234}',
  '{"a": "1234567890123456789012345678901234567890"}',
  "{}",
  "[]",
];

test("after detection, the digit-run answer for a text is the one of its own scan", () => {
  for (const base of texts)
    for (const pad of ["", " ".repeat(7), `"x${"y".repeat(15)}", `]) {
      // a fresh string each time (hasLongDigitRun remembers by text)
      const text = base.startsWith("{") ? `{${pad}${base.slice(1)}` : `[${pad}${base.slice(1)}`;
      detectParsed({ name: "x.json", text });
      const known = knownDigitRun(text);
      if (known !== undefined) expect([text, known]).toEqual([text, MAYBE_BIG.test(text)]);
      expect(hasLongDigitRun(text)).toBe(MAYBE_BIG.test(text));
    }
});
