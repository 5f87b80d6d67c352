/**
 * The invalid/ and warn/ fixtures of the Rust-family formats: every issue listed in a fixture's .expect.json
 * (worked out by hand from the file and FORMATS.md) must be reported — by the native schema (rule
 * schema/<ajv keyword>, pointer = ajv instancePath) or by the adapter's lint — at the listed line:column.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { adapters } from "../src/formats/index.js";
import type { FormatAdapter, Issue, SourceDoc } from "../src/formats/types.js";
import { schemaIssues } from "../src/schema/validate.js";
import { jsonLocator } from "../src/base/json.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const FORMATS = ["yoagent", "yoagent-session", "phi-core", "phi-core-session"] as const;

function issuesOf(a: FormatAdapter, doc: SourceDoc): Issue[] {
  const native = a.parse(doc);
  const loc = jsonLocator(doc.text!);
  // the schema's errors as every command reports them (pruned to the meant branch, unknown tags explained)
  const out: Issue[] = schemaIssues(a.schema, native, doc.name, (p) =>
    a.locate ? a.locate(native, p, doc) : loc.locate(p),
  );
  out.push(...(a.lint?.(native, doc) ?? []));
  return out;
}

for (const format of FORMATS) {
  for (const kind of ["invalid", "warn"] as const) {
    const dir = join(FIXTURES, format, kind);
    const cases = readdirSync(dir).filter((f) => !f.endsWith(".expect.json"));
    describe(`${format}/${kind}`, () => {
      test("has cases", () => expect(cases.length).toBeGreaterThan(0));
      for (const c of cases) {
        test(c, () => {
          const expectFile = JSON.parse(readFileSync(join(dir, c + ".expect.json"), "utf8"));
          expect(expectFile.format).toBe(format);
          expect(expectFile.why.length).toBeGreaterThan(20);
          const doc = { name: c, text: readFileSync(join(dir, c), "utf8") };
          const issues = issuesOf(adapters[format], doc);
          for (const want of expectFile.issues) expect(issues).toContainEqual(expect.objectContaining(want));
          const errors = issues.filter((i) => i.severity === "error");
          if (kind === "invalid") {
            expect(expectFile.exit).toBe(1);
            expect(errors.length).toBeGreaterThan(0);
          } else {
            expect(expectFile.exit).toBe(0);
            expect(errors).toEqual([]);
            expect(issues.length).toBeGreaterThan(0);
          }
        });
      }
    });
  }
}
