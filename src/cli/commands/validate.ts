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
import { writeFileAtomic } from "../../base/atomic.js";
import { intOption, type CommandDef } from "../command.js";
import { CkptError, ExitCode, usageError } from "../../base/errors.js";
import { jsonLocator } from "../../base/json.js";
import { redactText, redactUri } from "../../base/redact.js";
import { fileSaverLint } from "../../schema/lint.js";
import { FORMAT_CHOICES } from "../../formats/index.js";
import type { Issue } from "../../formats/types.js";
import { validateDocument, type FileResult } from "../../core/document.js";
import { NAMESPACE_OPTION, expandInputs, readSource } from "../input.js";
import type { Input } from "../../savers/address.js";
import { DEFAULT_NAMESPACE } from "../../savers/types.js";
import { useColor, type CliIO } from "../io.js";
import { REPORTERS, REPORTER_NAMES, summarize, type ValidationReport } from "../render/reporters/index.js";
import { validationExitCode } from "../../core/validation.js";

export interface ValidateArgs {
  inputs: string[];
  format?: string;
  strict: boolean;
  maxErrors?: number;
  quiet: boolean;
  reporter?: string[];
  json: boolean;
  namespace?: string;
  verbose?: boolean;
  library?: "python" | "js";
  aiSdkVersion?: string;
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
    if (!REPORTERS[name])
      throw usageError(
        `unknown reporter '${name}': expected one of ${REPORTER_NAMES.join(", ")} (optionally name=path)`,
      );
    if (path === "") throw usageError(`--reporter ${name}=: the path after '=' is empty`);
    return path === undefined ? { name } : { name, path };
  });
  if (json) out.push({ name: "json" });
  if (!out.some((t) => t.path === undefined)) out.unshift({ name: "text" });
  const toStdout = out.filter((t) => t.path === undefined);
  if (toStdout.length > 1)
    throw usageError(
      `only one reporter can write to stdout (got ${toStdout.map((t) => t.name).join(", ")}): send the others to files with name=path`,
    );
  return out;
}

/** Validate every input; stops after `maxErrors` errors. */
export async function runValidation(
  specs: readonly string[],
  io: Pick<CliIO, "stdin" | "cwd"> & { env?: NodeJS.ProcessEnv },
  opts: {
    format?: string;
    maxErrors?: number;
    strict?: boolean;
    namespace?: string;
    verbose?: boolean;
    library?: "python" | "js";
  } = {},
): Promise<ValidationReport> {
  const run = new Run(opts.maxErrors ?? Infinity);
  const { parseInput } = await import("../../savers/address.js");
  // each input parsed once, here; a namespace given twice (URI and --namespace, disagreeing) is a usage error for the
  // whole run, not one input's
  const parsed: Array<Input | CkptError> = [];
  for (const spec of specs) {
    try {
      parsed.push(parseInput(spec, { cwd: io.cwd, env: io.env, namespace: opts.namespace }));
    } catch (e) {
      if (!(e instanceof CkptError) || e.reason === "namespace-twice") throw e;
      parsed.push(e);
    }
  }
  // FileSaver's naming rule only concerns documents read out of a folder: a file named on the command line (e.g.
  // `convert -o thread.json`) or a saver URI's thread has no FileSaver file name to disagree with
  const queue: Array<{ spec: string; input: Input | CkptError; inFolder: boolean }> = [];
  for (let i = 0; i < specs.length; i++) {
    const input = parsed[i]!;
    if (input instanceof CkptError) {
      queue.push({ spec: specs[i]!, input, inFolder: false });
      continue;
    }
    try {
      const found = await expandInputs([input], io.cwd);
      const folder = found.length > 1 || (found.length === 1 && found[0] !== input);
      for (const f of found) queue.push({ spec: f.spec, input: f, inFolder: folder && f.kind === "path" });
    } catch (e) {
      if (!(e instanceof CkptError)) throw e;
      run.files.push(fatalResult(input.spec, e));
    }
  }
  for (let n = 0; n < queue.length && !run.full(`: ${queue.length - n} input(s) not validated`); n++) {
    const { spec, input, inFolder } = queue[n]!;
    try {
      if (input instanceof CkptError) throw input;
      if (input.kind === "store" || input.kind === "address") {
        // the store opened once, and asked through its engine
        const limit = run.limit === Infinity ? undefined : run.limit - run.errors;
        const { openStore } = await import("../stores.js");
        const { engine } = await openStore(input.kind === "store" ? input.store : input.address.store, {
          readOnly: true,
          env: io.env,
          namespace: input.kind === "store" ? input.namespace : (input.address.namespace ?? DEFAULT_NAMESPACE),
        });
        try {
          const { validateInStore } = await import("./validate-store.js");
          await validateInStore(input, engine, io, { ...opts, maxErrors: limit }, run);
        } finally {
          await engine.close();
        }
        continue;
      }
      const doc = await readSource(input, { stdin: () => io.stdin, cwd: io.cwd, env: io.env });
      run.take(validateDocument(doc, { format: opts.format }), inFolder ? doc.text : undefined);
    } catch (e) {
      if (!(e instanceof CkptError) || e.exitCode === ExitCode.BUG) throw e;
      run.take(fatalResult(spec, e));
    }
  }
  return run.report(Boolean(opts.strict));
}

/** The results of one validation run, counting errors against --max-errors. */
class Run {
  files: FileResult[] = [];
  errors = 0;
  stoppedEarly: string | undefined;
  private threadIds: Array<{ file: string; threadId: string; pointer: string; line?: number; column?: number }> = [];
  constructor(readonly limit: number) {}

  /** Whether --max-errors is reached (and then why the run stopped, with `rest` saying what was left). */
  full(rest: string): boolean {
    if (this.errors < this.limit) return false;
    this.stoppedEarly = `stopped after ${this.limit} error${this.limit === 1 ? "" : "s"} (--max-errors)${rest}`;
    return true;
  }

  /** One input's result; `folderText`: the text of a document read out of a folder (FileSaver's thread-id rule). */
  take(r: FileResult, folderText?: string): void {
    if (r.fatal) this.errors++;
    for (let i = 0; i < r.issues.length; i++) {
      if (r.issues[i]!.severity !== "error") continue;
      if (this.full("")) {
        r.issues = r.issues.slice(0, i).concat(r.issues.slice(i).filter((x) => x.severity !== "error"));
        break;
      }
      this.errors++;
    }
    if (r.format === "deepagent" && r.threadId !== undefined && !r.fatal && folderText !== undefined) {
      const at = jsonLocator(folderText).locate("/threadId");
      this.threadIds.push({
        file: r.file,
        threadId: r.threadId,
        pointer: "/threadId",
        ...(at ? { line: at.line, column: at.column } : {}),
      });
    }
    this.files.push(r);
  }

  report(strict: boolean): ValidationReport {
    if (this.threadIds.length > 0) {
      const pos = new Map(this.threadIds.map((t) => [t.file, t]));
      const extra = fileSaverLint(this.threadIds, (file, pointer, message): Issue => {
        const t = pos.get(file);
        return {
          severity: "warning",
          rule: "lint/filesaver-id-collision",
          message,
          pointer,
          file,
          ...(t?.line !== undefined ? { line: t.line, column: t.column } : {}),
        };
      });
      for (const i of extra) this.files.find((f) => f.file === i.file)?.issues.push(i);
    }
    // a store's URI names its input: its password never reaches a reporter (text, json, junit, sarif, github)
    for (const f of this.files) {
      f.file = redactUri(f.file);
      if (f.fatal) f.fatal.message = redactText(f.fatal.message);
      for (const i of f.issues) if (i.file !== undefined) i.file = redactUri(i.file);
    }
    return {
      files: this.files,
      summary: summarize(this.files),
      strict,
      ...(this.stoppedEarly ? { stoppedEarly: this.stoppedEarly } : {}),
    };
  }
}

function fatalResult(spec: string, e: CkptError): FileResult {
  const f: FileResult = {
    file: e.place.file ?? spec,
    alternatives: [],
    valid: false,
    issues: [],
    fatal: { reason: e.reason, message: e.message },
  };
  if (e.place.line !== undefined) f.fatal!.line = e.place.line;
  if (e.place.column !== undefined) f.fatal!.column = e.place.column;
  if (e.exitCode === ExitCode.STORE) f.fatalExit = ExitCode.STORE;
  return f;
}

/** `--ai-sdk-version N`: the format ai-sdk@N (a usage error with another --format, or another major). */
export function withAiSdkVersion(format: string | undefined, major: string | undefined): string | undefined {
  if (major === undefined) return format;
  if (format === undefined || format === "ai-sdk" || format === `ai-sdk@${major}`) return `ai-sdk@${major}`;
  throw usageError(`--ai-sdk-version ${major} reads AI SDK chats: it does not go with --format ${format}`);
}

/** The exit code of a report (see the module comment). */

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
      if (v === undefined || !FORMAT_CHOICES.includes(v)) return undefined;
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
      // no default: yargs gives a variadic positional [] and its help then read "[required] [default: []]"
      .positional("inputs", {
        type: "string",
        array: true,
        default: undefined,
        describe:
          "files, directories, globs, - (stdin), <saver-uri> (every checkpoint of the store) or <saver-uri>#<threadId>",
      })
      .option("format", {
        alias: "f",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "validate as this format instead of detecting it (ai-sdk@N: an AI SDK chat of major N)",
      })
      .option("ai-sdk-version", {
        type: "string",
        choices: ["4", "5", "6", "7"],
        describe: "AI SDK chats: read them as this major instead of detecting it (same as --format ai-sdk@N)",
      })
      .option("strict", { type: "boolean", default: false, describe: "warnings fail too (exit 1)" })
      .option("max-errors", { type: "number", describe: "stop reporting and validating after N errors" })
      .option("quiet", {
        alias: "q",
        type: "boolean",
        default: false,
        describe: "text reporter: print only errors and the summary",
      })
      .option("reporter", {
        alias: "r",
        type: "string",
        array: true,
        describe: `${REPORTER_NAMES.join("|")}[=path], repeatable (default text to stdout)`,
      })
      .option("json", { type: "boolean", default: false, describe: "same as --reporter json" })
      .option("verbose", {
        type: "boolean",
        default: false,
        describe:
          "LangGraph stores: every finding (default: a warning found in many threads is one line, the first few named)",
      })
      .option("library", {
        type: "string",
        choices: ["python", "js"],
        describe: "LangGraph stores: the library that will read the store (cross-library warnings for it only)",
      })
      .option("namespace", NAMESPACE_OPTION)
      .example("ckpt validate fixtures/yoagent/valid", "every document under a folder")
      .example(
        "ckpt validate 'runs/**/*.json' --reporter text --reporter junit=out/junit.xml",
        "text on stdout, JUnit to a file",
      )
      .example("cat conv.json | ckpt validate - --format yoagent", "stdin, format forced"),
  run: async (args: ValidateArgs, io: CliIO) => {
    const unknown = args.inputs.find((s) => s.startsWith("-") && s !== "-");
    if (unknown !== undefined)
      throw usageError(`unknown option '${unknown}' (a file whose name starts with '-' can be given as ./${unknown})`);
    const targets = parseReporters(args.reporter ?? [], args.json);
    intOption(args.maxErrors, "--max-errors");
    const report = await runValidation(args.inputs, io, {
      format: withAiSdkVersion(args.format, args.aiSdkVersion),
      maxErrors: args.maxErrors,
      strict: args.strict,
      namespace: args.namespace,
      verbose: args.verbose,
      library: args.library,
    });
    for (const t of targets) {
      const color = t.path === undefined ? useColor(io, io.stdout) : false;
      const chalk = color ? new (await import("chalk")).Chalk({ level: 1 }) : undefined;
      const text = REPORTERS[t.name]!(report, { color, quiet: args.quiet, ...(chalk ? { chalk } : {}) });
      if (t.path === undefined) io.stdout.write(text);
      else await writeFileAtomic(resolve(io.cwd, t.path), text);
    }
    return validationExitCode(report);
  },
};
