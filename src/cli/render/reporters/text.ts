/** Human text: `file:line:col` first (clickable in terminals), severity coloured, rule id dim, a summary line. */
import { printable } from "../../../base/printable.js";
import type { ChalkInstance } from "chalk";
import type { Issue } from "../../../formats/types.js";
import type { FileResult } from "../../../core/document.js";
import { plural, type Reporter, validatedUnits } from "./types.js";

const where = (file: string, line?: number, column?: number) =>
  printable(file) + (line !== undefined ? `:${line}:${column ?? 1}` : "");

/** The "fits A and B; validated as A" note for a document several formats claim. */
export function ambiguityNote(f: FileResult): string | undefined {
  if (!f.format || f.alternatives.length === 0) return undefined;
  const name = (fmt: string, v?: string) => (v ? `${fmt} (${v})` : fmt);
  const others = f.alternatives.map(
    (a) => `${name(a.format, a.version)} [${a.errors === 0 ? "valid" : plural(a.errors, "error")}]`,
  );
  return `fits ${[name(f.format, f.formatVersion), ...others].join(" and ")}; validated as ${f.format}; use --format to choose`;
}

/** No colour: every style is the identity (so chalk is loaded only when colour is on). */
const id = (s: string) => s;
const plain = { red: id, yellow: id, green: id, blue: id, cyan: id, dim: id } as unknown as ChalkInstance;

export const textReporter: Reporter = (report, opts) => {
  const c = opts.color && opts.chalk ? opts.chalk : plain;
  const lines: string[] = [];
  const issueLine = (i: Issue) => {
    const sev = i.severity === "error" ? c.red("error") : c.yellow("warning");
    const ptr = i.pointer ? ` ${c.cyan(i.pointer)}` : "";
    return `${where(i.file, i.line, i.column)}: ${sev}${ptr}: ${printable(i.message)} ${c.dim(i.rule)}`;
  };
  for (const f of report.files) {
    if (f.fatal) {
      lines.push(
        `${where(f.file, f.fatal.line, f.fatal.column)}: ${c.red("error")}${f.fatal.pointer ? ` ${c.cyan(f.fatal.pointer)}` : ""}: ${printable(f.fatal.message)} ${c.dim(`input/${f.fatal.reason}`)}`,
      );
      continue;
    }
    const note = ambiguityNote(f);
    if (note && !opts.quiet) lines.push(`${printable(f.file)}: ${c.blue("note")}: ${note}`);
    for (const i of f.issues) if (!opts.quiet || i.severity === "error") lines.push(issueLine(i));
    if (!opts.quiet && f.issues.length === 0)
      lines.push(
        `${printable(f.file)}: ${c.green("ok")} ${c.dim(f.format + (f.formatVersion ? ` ${f.formatVersion}` : ""))}`,
      );
  }
  if (report.stoppedEarly) lines.push(c.yellow(report.stoppedEarly));
  const s = report.summary;
  const parts = [validatedUnits(report.files), `${s.valid} valid`, `${s.invalid} invalid`];
  if (s.unreadable) parts.push(`${s.unreadable} unreadable`);
  const head = parts.join(", ");
  const tail = `${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}`;
  const bad = s.errors > 0 || (report.strict && s.warnings > 0);
  lines.push((bad ? c.red : c.green)(`${head}: ${tail}`));
  return lines.join("\n") + "\n";
};
