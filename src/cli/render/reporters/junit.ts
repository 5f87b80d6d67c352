/** `--reporter junit`: one testsuite, one testcase per file; each error (and, with --strict, warning) a failure. */
import type { Reporter } from "./types.js";

/** Escape text for XML attribute values and character data; drop characters XML 1.0 cannot carry. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

export const junitReporter: Reporter = (report) => {
  const s = report.summary;
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  for (const f of report.files) {
    const name = xmlEscape(f.file);
    const cls = xmlEscape(`ckpt.validate.${f.format ?? "unknown"}`);
    if (f.fatal) {
      errors++;
      const loc = f.fatal.line !== undefined ? `${f.file}:${f.fatal.line}:${f.fatal.column ?? 1}` : f.file;
      cases.push(
        `    <testcase name="${name}" classname="${cls}">\n      <error type="input/${xmlEscape(f.fatal.reason)}" message="${xmlEscape(f.fatal.message)}">${xmlEscape(`${loc}: ${f.fatal.message}`)}</error>\n    </testcase>`,
      );
      continue;
    }
    const failing = f.issues.filter((i) => i.severity === "error" || report.strict);
    if (failing.length === 0) {
      cases.push(`    <testcase name="${name}" classname="${cls}"/>`);
      continue;
    }
    failures++;
    const body = failing
      .map((i) => `${i.file}:${i.line ?? 1}:${i.column ?? 1}: ${i.severity} ${i.pointer}: ${i.message} [${i.rule}]`)
      .join("\n");
    const first = failing[0]!;
    cases.push(
      `    <testcase name="${name}" classname="${cls}">\n      <failure type="${xmlEscape(first.rule)}" message="${xmlEscape(`${failing.length} issue(s); first: ${first.pointer}: ${first.message}`)}">${xmlEscape(body)}</failure>\n    </testcase>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="ckpt validate" tests="${s.files}" failures="${failures}" errors="${errors}">\n` +
    `  <testsuite name="ckpt validate" tests="${s.files}" failures="${failures}" errors="${errors}" skipped="0">\n` +
    cases.join("\n") +
    (cases.length ? "\n" : "") +
    `  </testsuite>\n</testsuites>\n`
  );
};
