/**
 * `ckpt validate <paths|globs|->…`: detect each document's format (or take --format), check it against the
 * native schema, run the adapter's and the generic lints, and report with one or more reporters.
 *
 * Exit: 0 valid (warnings allowed), 1 any error (or any warning with --strict), 2 usage, 3 when any input is
 * unreadable, unparseable or of unknown format — 3 wins over 1 because the answer is incomplete: a batch with
 * an unreadable input cannot be called "just invalid"; 4 when a store failed (cannot connect, I/O), over 3 and 1
 * for the same reason. 70 is a bug.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { writeFileAtomic } from "../base/atomic.js";
import { intOption, type CommandDef } from "./command.js";
import { CkptError, ExitCode, inputError, usageError } from "../base/errors.js";
import { jsonLocator } from "../base/json.js";
import { redactText, redactUri } from "../base/redact.js";
import { fileSaverLint } from "../schema/lint.js";
import { FORMAT_CHOICES } from "../formats/index.js";
import type { Issue } from "../formats/types.js";
import { validateDocument, type FileResult } from "../core/document.js";
import { NAMESPACE_OPTION, SAVER_URI, expandInputs, namespaceFor, readSource } from "./input.js";
import { DEFAULT_NAMESPACE } from "../savers/types.js";
import { validateChatbotChat } from "./validate-ai-chatbot.js";
import { useColor, type CliIO } from "./io.js";
import { REPORTERS, REPORTER_NAMES, summarize, type ValidationReport } from "./reporters/index.js";
import { validationExitCode } from "../core/validation.js";

/** Inputs that may be LangGraph stores (validated by ./validate-langgraph.ts, loaded only for them). */
/** Inputs that may name a chat of a Chat SDK template store (validate-ai-chatbot.ts). */
const MAYBE_CHAT = /^(sqlite|postgres(ql)?):[^#]*#./i;
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
  io: Pick<CliIO, "stdin" | "cwd">,
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
      run.files.push(fatalResult(spec, e));
    }
  }
  for (let n = 0; n < queue.length && !run.full(`: ${queue.length - n} input(s) not validated`); n++) {
    const spec = queue[n]!;
    try {
      const limit = run.limit === Infinity ? undefined : run.limit - run.errors;
      const lg =
        (opts.format === undefined || opts.format === "langgraph") && MAYBE_LANGGRAPH_STORE.test(spec)
          ? await (await import("./validate-langgraph.js")).validateLangGraphSpec(spec, io.cwd, {
              maxErrors: limit,
              namespace: opts.namespace,
              verbose: opts.verbose,
              library: opts.library,
            })
          : undefined;
      if (lg) run.take(lg);
      else if (isWholeStore(spec, io.cwd)) await validateStore(spec, io, opts, run);
      else {
        // a chat of a Chat SDK template store: its findings name their rows
        const chat = MAYBE_CHAT.test(spec) ? await validateChatbotChat(spec, io.cwd, opts.format) : undefined;
        if (chat) {
          run.take(chat);
          continue;
        }
        const doc = await readSource(spec, { stdin: () => io.stdin, cwd: io.cwd, namespace: opts.namespace });
        run.take(validateDocument(doc, { format: opts.format }), inFolder.has(n) ? doc.text : undefined);
      }
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

/**
 * A saver URI with no `#thread` names a whole store: `sqlite:store.db`, `redis://…`, `postgres://…`, `file:<folder>`
 * (a `file:` URI of a single file is that document). LangGraph stores are taken before this.
 */
function isWholeStore(spec: string, cwd: string): boolean {
  if (spec.includes("#") || !SAVER_URI.test(spec)) return false;
  if (!/^file:/i.test(spec)) return true;
  try {
    return statSync(resolve(cwd, spec.slice(5))).isDirectory();
  } catch {
    return false; // a missing file: readSource says so
  }
}

/**
 * Every checkpoint of a ckpt store (all namespaces, or the one named by ?namespace= / --namespace), read one batch
 * at a time, each validated as `<uri>#<thread>` (with ?namespace= when it is not the default one), the address
 * `ckpt show` takes. A store that holds none is an input error, as an empty folder is.
 */
async function validateStore(
  spec: string,
  io: Pick<CliIO, "cwd">,
  opts: { format?: string; namespace?: string },
  run: Run,
): Promise<void> {
  const { openStore } = await import("./stores.js");
  const namespace = namespaceFor(spec, opts.namespace);
  const local = /^(sqlite|file):/i.test(spec) && !isAbsolute(spec.slice(spec.indexOf(":") + 1).replace(/^\/\//, ""));
  const { saver, engine } = await openStore(
    local
      ? `${spec.slice(0, spec.indexOf(":") + 1)}${resolve(io.cwd, spec.slice(spec.indexOf(":") + 1).replace(/^\/\//, ""))}`
      : spec,
    { readOnly: true, namespace },
  );
  try {
    const label = local ? spec : saver.uri; // as the user named it; a server URI without its password
    let seen = 0;
    for (const space of namespace !== undefined ? [namespace] : await saver.namespaces()) {
      for await (const batch of saver.scan({ namespace: space, batchSize: 200 })) {
        for (const r of batch) {
          if (run.full(": the rest of the store was not validated")) return;
          seen++;
          const ns =
            r.namespace === DEFAULT_NAMESPACE || /[?&]namespace=/.test(label)
              ? ""
              : `${label.includes("?") ? "&" : "?"}namespace=${encodeURIComponent(r.namespace)}`;
          const name = `${label}${ns}#${r.threadId}`;
          // a layout that judges its threads itself (a Chat SDK chat: by its table's major, findings naming rows)
          const result =
            (await engine.validateThread?.(r.threadId, { name, format: opts.format, text: r.text })) ??
            validateDocument({ name, text: r.text }, { format: opts.format });
          run.take(result);
        }
      }
    }
    if (seen === 0)
      throw inputError(
        "empty-store",
        `the store holds no checkpoints${namespace !== undefined ? ` in namespace '${namespace}'` : ""}`,
        { file: label },
      );
  } finally {
    await saver.close();
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
