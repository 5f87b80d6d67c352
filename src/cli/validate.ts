/**
 * `ckpt validate <paths|globs|->…`: detect each document's format (or take --format), check it against the
 * native schema, run the adapter's and the generic lints, and report with one or more reporters.
 *
 * Exit: 0 valid (warnings allowed), 1 any error (or any warning with --strict), 2 usage, 3 when any input is
 * unreadable, unparseable or of unknown format — 3 wins over 1 because the answer is incomplete: a batch with
 * an unreadable input cannot be called "just invalid"; 4 when a store failed (cannot connect, I/O), over 3 and 1
 * for the same reason. 70 is a bug.
 */
import { resolve } from "node:path";
import { writeFileAtomic } from "../base/atomic.js";
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode, usageError } from "../base/errors.js";
import { jsonLocator } from "../base/json.js";
import { fileSaverLint } from "../schema/lint.js";
import { FORMAT_NAMES } from "../formats/types.js";
import type { Issue } from "../formats/types.js";
import { validateDocument, type FileResult } from "../core/document.js";
import { NAMESPACE_OPTION, SAVER_URI, expandInputs, namespaceFor, readSource } from "./input.js";
import { useColor, type CliIO } from "./io.js";
import { REPORTERS, REPORTER_NAMES, summarize, type ValidationReport } from "./reporters/index.js";

/** Inputs that may be LangGraph stores (validated by ./validate-langgraph.ts, loaded only for them). */
const MAYBE_LANGGRAPH_STORE = /^(sqlite:|postgres(ql)?:)|^[^#?:]*\.(sqlite3?|db)([?#]|$)/i;

export interface ValidateArgs {
  inputs: string[];
  format?: string;
  strict: boolean;
  maxErrors?: number;
  quiet: boolean;
  reporter?: string[];
  json: boolean;
  namespace?: string;
}

/** A reporter and where it writes: undefined path = stdout. */
export interface ReporterTarget {
  name: string;
  path?: string;
}

/** Parse `--reporter name[=path]` values. At most one reporter may write to stdout. */
export function parseReporters(values: readonly string[], json: boolean): ReporterTarget[] {
  const out: ReporterTarget[] = values.map((v) => {
    const i = v.indexOf("=");
    const name = i < 0 ? v : v.slice(0, i);
    const path = i < 0 ? undefined : v.slice(i + 1);
    if (!REPORTERS[name]) throw usageError(`unknown reporter '${name}': expected one of ${REPORTER_NAMES.join(", ")} (optionally name=path)`);
    if (path === "") throw usageError(`--reporter ${name}=: the path after '=' is empty`);
    return path === undefined ? { name } : { name, path };
  });
  if (json) out.push({ name: "json" });
  if (!out.some((t) => t.path === undefined)) out.unshift({ name: "text" });
  const toStdout = out.filter((t) => t.path === undefined);
  if (toStdout.length > 1) throw usageError(`only one reporter can write to stdout (got ${toStdout.map((t) => t.name).join(", ")}): send the others to files with name=path`);
  return out;
}

/** Validate every input; stops after `maxErrors` errors. */
export async function runValidation(
  specs: readonly string[],
  io: Pick<CliIO, "stdin" | "cwd">,
  opts: { format?: string; maxErrors?: number; strict?: boolean; namespace?: string } = {},
): Promise<ValidationReport> {
  const files: FileResult[] = [];
  const threadIds: Array<{ file: string; threadId: string; pointer: string; line?: number; column?: number }> = [];
  let errors = 0;
  let stoppedEarly: string | undefined;
  const limit = opts.maxErrors ?? Infinity;
  // a namespace given twice (URI and --namespace, disagreeing) is a usage error for the whole run, not one input's
  if (opts.namespace !== undefined) for (const spec of specs) namespaceFor(spec, opts.namespace);
  // FileSaver's naming rule only concerns documents read out of a folder: a file named on the command line (e.g.
  // `convert -o thread.json`) or a saver URI's thread has no FileSaver file name to disagree with
  const queue: string[] = [];
  const inFolder = new Set<number>();
  for (const spec of specs) {
    try {
      const found = await expandInputs([spec], io.cwd);
      const folder = found.length > 1 || (found.length === 1 && found[0] !== spec);
      for (const f of found) {
        if (folder && !SAVER_URI.test(f)) inFolder.add(queue.length);
        queue.push(f);
      }
    } catch (e) {
      if (!(e instanceof CkptError)) throw e;
      files.push(fatalResult(spec, e));
    }
  }
  for (let n = 0; n < queue.length; n++) {
    if (errors >= limit) {
      stoppedEarly = `stopped after ${limit} error${limit === 1 ? "" : "s"} (--max-errors): ${queue.length - n} input(s) not validated`;
      break;
    }
    const spec = queue[n]!;
    let r: FileResult;
    let text: string | undefined;
    try {
      const store = (opts.format === undefined || opts.format === "langgraph") && MAYBE_LANGGRAPH_STORE.test(spec) ? await (await import("./validate-langgraph.js")).validateLangGraphSpec(spec, io.cwd, { maxErrors: limit === Infinity ? undefined : limit - errors }) : undefined;
      if (store) r = store;
      else {
        const doc = await readSource(spec, { stdin: io.stdin, cwd: io.cwd, namespace: opts.namespace });
        text = doc.text;
        r = validateDocument(doc, { format: opts.format });
      }
    } catch (e) {
      if (!(e instanceof CkptError) || e.exitCode === ExitCode.BUG) throw e;
      r = fatalResult(spec, e);
    }
    if (r.fatal) errors++;
    for (let i = 0; i < r.issues.length; i++) {
      if (r.issues[i]!.severity !== "error") continue;
      if (errors >= limit) {
        r.issues = r.issues.slice(0, i).concat(r.issues.slice(i).filter((x) => x.severity !== "error"));
        stoppedEarly = `stopped after ${limit} error${limit === 1 ? "" : "s"} (--max-errors)`;
        break;
      }
      errors++;
    }
    if (r.format === "deepagent" && r.threadId !== undefined && !r.fatal && inFolder.has(n)) {
      const at = text !== undefined ? jsonLocator(text).locate("/threadId") : undefined;
      threadIds.push({ file: r.file, threadId: r.threadId, pointer: "/threadId", ...(at ? { line: at.line, column: at.column } : {}) });
    }
    files.push(r);
  }
  if (threadIds.length > 0) {
    const pos = new Map(threadIds.map((t) => [t.file, t]));
    const extra = fileSaverLint(threadIds, (file, pointer, message): Issue => {
      const t = pos.get(file);
      return { severity: "warning", rule: "lint/filesaver-id-collision", message, pointer, file, ...(t?.line !== undefined ? { line: t.line, column: t.column } : {}) };
    });
    for (const i of extra) files.find((f) => f.file === i.file)?.issues.push(i);
  }
  return { files, summary: summarize(files), strict: Boolean(opts.strict), ...(stoppedEarly ? { stoppedEarly } : {}) };
}

function fatalResult(spec: string, e: CkptError): FileResult {
  const f: FileResult = { file: e.place.file ?? spec, alternatives: [], valid: false, issues: [], fatal: { reason: e.reason, message: e.message } };
  if (e.place.line !== undefined) f.fatal!.line = e.place.line;
  if (e.place.column !== undefined) f.fatal!.column = e.place.column;
  if (e.exitCode === ExitCode.STORE) f.fatalExit = ExitCode.STORE;
  return f;
}

/** The exit code of a report (see the module comment). */
export function exitCodeOf(report: ValidationReport): number {
  if (report.files.some((f) => f.fatal && f.fatalExit === ExitCode.STORE)) return ExitCode.STORE;
  if (report.summary.unreadable > 0) return ExitCode.INPUT;
  if (report.summary.errors > 0) return ExitCode.NEGATIVE;
  if (report.strict && report.summary.warnings > 0) return ExitCode.NEGATIVE;
  return ExitCode.OK;
}

/**
 * The arguments of a plain `ckpt validate …` command line, read without yargs (loading and running yargs is
 * about half of a one-file validation's start-up time). Only the common, unambiguous forms are read here:
 * inputs that do not start with '-', `--strict`, `--quiet`/`-q`, `--json`, `--format`/`-f NAME` (a known
 * format) and `--max-errors N` (digits), each at most once. Anything else — help, `-` (stdin), reporters,
 * `=` forms, negations, repeats, unknown options, no input — returns undefined and goes through yargs, which
 * gives the same arguments for every form accepted here (test/validate-cli.test.ts compares the two).
 */
export function quickValidateArgs(argv: readonly string[]): ValidateArgs | undefined {
  const args: ValidateArgs = { inputs: [], strict: false, quiet: false, json: false };
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("-")) {
      args.inputs.push(a);
      continue;
    }
    const name = a === "-q" ? "--quiet" : a === "-f" ? "--format" : a;
    if (seen.has(name)) return undefined;
    seen.add(name);
    if (name === "--strict") args.strict = true;
    else if (name === "--quiet") args.quiet = true;
    else if (name === "--json") args.json = true;
    else if (name === "--format") {
      const v = argv[++i];
      if (v === undefined || !(FORMAT_NAMES as readonly string[]).includes(v)) return undefined;
      args.format = v;
    } else if (name === "--max-errors") {
      const v = argv[++i];
      if (v === undefined || !/^[0-9]{1,9}$/.test(v)) return undefined;
      args.maxErrors = Number(v);
    } else return undefined;
  }
  return args.inputs.length > 0 ? args : undefined;
}

export const validateCommand: CommandDef = {
  command: "validate <inputs..>",
  describe: "Check checkpoints against their format's schema and lint rules",
  builder: (y) =>
    y
      // yargs drops a lone "-" from a variadic positional unless unknown options are kept as arguments;
      // run() turns anything else that looks like an option back into a usage error
      .parserConfiguration({ "unknown-options-as-args": true })
      .positional("inputs", { type: "string", array: true, describe: "files, directories, globs, - (stdin) or <saver-uri>#<threadId>" })
      .option("format", { alias: "f", type: "string", choices: [...FORMAT_NAMES], describe: "validate as this format instead of detecting it" })
      .option("strict", { type: "boolean", default: false, describe: "warnings fail too (exit 1)" })
      .option("max-errors", { type: "number", describe: "stop reporting and validating after N errors" })
      .option("quiet", { alias: "q", type: "boolean", default: false, describe: "text reporter: print only errors and the summary" })
      .option("reporter", { alias: "r", type: "string", array: true, describe: `${REPORTER_NAMES.join("|")}[=path], repeatable (default text to stdout)` })
      .option("json", { type: "boolean", default: false, describe: "same as --reporter json" })
      .option("namespace", NAMESPACE_OPTION)
      .example("ckpt validate fixtures/yoagent/valid", "every document under a folder")
      .example("ckpt validate 'runs/**/*.json' --reporter text --reporter junit=out/junit.xml", "text on stdout, JUnit to a file")
      .example("cat conv.json | ckpt validate - --format yoagent", "stdin, format forced"),
  run: async (args: ValidateArgs, io: CliIO) => {
    const unknown = args.inputs.find((s) => s.startsWith("-") && s !== "-");
    if (unknown !== undefined) throw usageError(`unknown option '${unknown}' (a file whose name starts with '-' can be given as ./${unknown})`);
    const targets = parseReporters(args.reporter ?? [], args.json);
    if (args.maxErrors !== undefined && (!Number.isInteger(args.maxErrors) || args.maxErrors < 1)) {
      throw usageError(`--max-errors expects a positive integer, got ${String(args.maxErrors)}`);
    }
    const report = await runValidation(args.inputs, io, { format: args.format, maxErrors: args.maxErrors, strict: args.strict, namespace: args.namespace });
    for (const t of targets) {
      const color = t.path === undefined ? useColor(io, io.stdout) : false;
      const chalk = color ? new (await import("chalk")).Chalk({ level: 1 }) : undefined;
      const text = REPORTERS[t.name]!(report, { color, quiet: args.quiet, ...(chalk ? { chalk } : {}) });
      if (t.path === undefined) io.stdout.write(text);
      else await writeFileAtomic(resolve(io.cwd, t.path), text);
    }
    return exitCodeOf(report);
  },
};
