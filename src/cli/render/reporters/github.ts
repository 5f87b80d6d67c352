/**
 * `--reporter github`: GitHub Actions workflow commands, one per issue:
 * `::error file=F,line=L,col=C,title=RULE::MESSAGE`. Escaping follows the runner's rules: in the message
 * `%`, CR, LF; in property values also `:` and `,`.
 */
import { plural, type Reporter, validatedUnits } from "./types.js";

export const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
export const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

export const githubReporter: Reporter = (report) => {
  const out: string[] = [];
  const cmd = (
    level: string,
    file: string,
    line: number | undefined,
    col: number | undefined,
    title: string,
    msg: string,
  ) => {
    const props = [`file=${escapeProperty(file)}`];
    if (line !== undefined) props.push(`line=${line}`);
    if (col !== undefined) props.push(`col=${col}`);
    props.push(`title=${escapeProperty(title)}`);
    out.push(`::${level} ${props.join(",")}::${escapeData(msg)}`);
  };
  for (const f of report.files) {
    if (f.fatal) cmd("error", f.file, f.fatal.line, f.fatal.column, `input/${f.fatal.reason}`, f.fatal.message);
    for (const i of f.issues) {
      const level = i.severity === "error" || report.strict ? "error" : "warning";
      cmd(level, i.file, i.line, i.column, i.rule, `${i.pointer ? i.pointer + ": " : ""}${i.message}`);
    }
  }
  const s = report.summary;
  out.push(
    `ckpt validate: ${validatedUnits(report.files)}, ${s.valid} valid, ${s.invalid} invalid, ${s.unreadable} unreadable: ${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}`,
  );
  return out.join("\n") + "\n";
};
