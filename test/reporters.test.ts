/**
 * The five reporters on one hand-made report: the text layout, the JSON shape, well-formed escaped JUnit XML,
 * GitHub workflow-command escaping (per the runner's rules: %, CR, LF; and ':' ',' in properties) and the
 * properties SARIF 2.1.0 requires (checked by hand against the OASIS spec's required members).
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { Chalk } from "chalk";
import { REPORTERS, summarize, type ValidationReport } from "../src/cli/render/reporters/index.js";
import { escapeData, escapeProperty } from "../src/cli/render/reporters/github.js";
import type { FileResult } from "../src/core/document.js";

const files: FileResult[] = [
  { file: "a.json", format: "ckpt", formatVersion: "1", alternatives: [], valid: true, issues: [] },
  {
    file: "dir/b <&>.json",
    format: "yoagent",
    formatVersion: "<0.13",
    alternatives: [{ format: "phi-core", errors: 0, warnings: 0 }],
    valid: false,
    issues: [
      {
        severity: "error",
        rule: "schema/enum",
        message: "expected one of stop, length",
        expected: "one of stop, length",
        pointer: "/0/stopReason",
        file: "dir/b <&>.json",
        line: 3,
        column: 19,
      },
      {
        severity: "warning",
        rule: "lint/unsafe-integer",
        message: '100% "big"\nsecond line, with: colon',
        pointer: "/0/timestamp",
        file: "dir/b <&>.json",
        line: 5,
        column: 18,
      },
    ],
  },
  {
    file: "c.json",
    alternatives: [],
    valid: false,
    issues: [],
    fatal: { reason: "json-syntax", message: "invalid JSON: expected ']'", line: 1, column: 12 },
  },
];
const report: ValidationReport = { files, summary: summarize(files), strict: false };

test("summary counts", () => {
  expect(report.summary).toEqual({ files: 3, valid: 1, invalid: 1, unreadable: 1, errors: 2, warnings: 1 });
});

describe("text", () => {
  const out = REPORTERS.text!(report, { color: false });
  test("file:line:col first, severity, pointer, message, rule; summary last", () => {
    const lines = out.trimEnd().split("\n");
    expect(lines).toContain("a.json: ok ckpt 1");
    expect(lines).toContain("dir/b <&>.json:3:19: error /0/stopReason: expected one of stop, length schema/enum");
    expect(lines).toContain("c.json:1:12: error: invalid JSON: expected ']' input/json-syntax");
    expect(lines).toContain(
      "dir/b <&>.json: note: fits yoagent (<0.13) and phi-core [valid]; validated as yoagent; use --format to choose",
    );
    expect(lines.at(-1)).toBe("3 files, 1 valid, 1 invalid, 1 unreadable: 2 errors, 1 warning");
  });
  test("quiet drops warnings, notes and ok lines", () => {
    const q = REPORTERS.text!(report, { color: false, quiet: true });
    expect(q).not.toContain("warning /0/timestamp");
    expect(q).not.toContain("ok ckpt");
    expect(q).toContain("schema/enum");
  });
  test("colour only when asked", () => {
    expect(out).not.toContain("\u001b[");
    expect(REPORTERS.text!(report, { color: true, chalk: new Chalk({ level: 1 }) })).toContain(
      "\u001b[31merror\u001b[39m",
    );
  });
});

test("json: the documented shape", () => {
  const j = JSON.parse(REPORTERS.json!(report, { color: false }));
  expect(j.version).toBe(1);
  expect(Object.keys(j.files[1]).sort()).toEqual([
    "alternatives",
    "file",
    "format",
    "formatVersion",
    "issues",
    "valid",
  ]);
  expect(j.files[2]).toMatchObject({
    file: "c.json",
    format: null,
    valid: false,
    error: { reason: "json-syntax", line: 1, column: 12 },
  });
  expect(j.files[1].issues[0]).toEqual(files[1]!.issues[0]);
  expect(j.summary.unreadable).toBe(1);
});

describe("junit", () => {
  const xml = REPORTERS.junit!(report, { color: false });
  test("one suite, one testcase per file, escaped", () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(1);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('<testcase name="dir/b &lt;&amp;&gt;.json" classname="ckpt.validate.yoagent">');
    expect(xml).toContain('tests="3" failures="1" errors="1"');
    expect(xml).toContain('<error type="input/json-syntax"');
    // no raw < or & inside attribute values or text: every '<' opens a tag, every '&' starts an entity
    for (const m of xml.matchAll(/&/g)) expect(xml.slice(m.index!, m.index! + 6)).toMatch(/^&(amp|lt|gt|quot|apos);/);
    const stripped = xml.replace(/<\?xml[^>]*\?>/, "").replace(/<\/?[a-z]+(\s+[a-z]+="[^"<]*")*\s*\/?>/g, "");
    expect(stripped).not.toContain("<");
  });
  test("warnings fail only with --strict", () => {
    expect(xml).not.toContain("lint/unsafe-integer");
    expect(REPORTERS.junit!({ ...report, strict: true }, { color: false })).toContain("lint/unsafe-integer");
  });
});

describe("github", () => {
  const gh = REPORTERS.github!(report, { color: false }).trimEnd().split("\n");
  test("escaping rules", () => {
    expect(escapeData("a%b\r\nc")).toBe("a%25b%0D%0Ac");
    expect(escapeProperty("x:y,z%")).toBe("x%3Ay%2Cz%25");
  });
  test("one command per issue with file, line, col, title", () => {
    expect(gh[0]).toBe(
      "::error file=dir/b <&>.json,line=3,col=19,title=schema/enum::/0/stopReason: expected one of stop, length",
    );
    expect(gh[1]).toBe(
      '::warning file=dir/b <&>.json,line=5,col=18,title=lint/unsafe-integer::/0/timestamp: 100%25 "big"%0Asecond line, with: colon',
    );
    expect(gh[2]).toBe("::error file=c.json,line=1,col=12,title=input/json-syntax::invalid JSON: expected ']'");
  });
});

describe("sarif", () => {
  const log = JSON.parse(REPORTERS.sarif!(report, { color: false }));
  test("required members of SARIF 2.1.0 (sarifLog, run, tool.driver, result, region)", () => {
    expect(log.version).toBe("2.1.0");
    expect(Array.isArray(log.runs)).toBe(true);
    const run = log.runs[0];
    expect(typeof run.tool.driver.name).toBe("string");
    // the driver's version is ckpt's own (package.json), issue #38
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(run.tool.driver.version).toBe(pkg.version);
    expect(run.results).toHaveLength(3);
    for (const r of run.results) {
      expect(typeof r.message.text).toBe("string"); // result.message is required
      expect(["error", "warning", "note", "none"]).toContain(r.level);
      const rule = run.tool.driver.rules[r.ruleIndex];
      expect(rule.id).toBe(r.ruleId);
      const region = r.locations[0].physicalLocation.region;
      expect(Number.isInteger(region.startLine) && region.startLine >= 1).toBe(true);
      expect(Number.isInteger(region.startColumn) && region.startColumn >= 1).toBe(true);
    }
    expect(run.results[0].locations[0].physicalLocation.artifactLocation.uri).toBe("dir/b%20%3C%26%3E.json");
    expect(new Set(run.tool.driver.rules.map((r: { id: string }) => r.id)).size).toBe(run.tool.driver.rules.length);
  });
});
