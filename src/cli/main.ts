/**
 * CLI entry: wires the commands into yargs, runs the chosen one and maps failures to the documented exit codes.
 * Expected failures (CkptError) print one line; anything else is a bug (exit 70) and prints its stack.
 */
import { printable } from "../base/printable.js";
import { redactText } from "../base/redact.js";
import { CkptError, ExitCode, inputError, usageError } from "../base/errors.js";
import { processIO, whenWritten, type CliIO } from "./io.js";
import type { AesKey } from "../formats/langgraph/aes-key.js";
import { closeStores, useAesKey } from "./stores.js";
import { givenTwice, notANumber, type CommandDef } from "./command.js";
import { quickArgs } from "./quick.js";
import { ckptVersion } from "./version.js";

/**
 * The commands, in help order. Each module (`src/cli/<name>.ts`, exporting `<name>Command`) is imported only
 * when needed: a `ckpt validate` run loads the validate module alone, never diff/convert/savers (cold start).
 */
export const commands: Array<{ name: string; load: () => Promise<CommandDef> }> = [
  { name: "validate", load: async () => (await import("./commands/validate.js")).validateCommand },
  { name: "diff", load: async () => (await import("./commands/diff.js")).diffCommand },
  { name: "migrate", load: async () => (await import("./commands/migrate.js")).migrateCommand },
  { name: "convert", load: async () => (await import("./commands/convert.js")).convertCommand },
  { name: "export", load: async () => (await import("./commands/export.js")).exportCommand },
  { name: "replay", load: async () => (await import("./commands/replay.js")).replayCommand },
  { name: "prune", load: async () => (await import("./commands/prune.js")).pruneCommand },
  { name: "copy", load: async () => (await import("./commands/copy.js")).copyCommand },
  { name: "delete", load: async () => (await import("./commands/delete.js")).deleteCommand },
  { name: "stats", load: async () => (await import("./commands/stats.js")).statsCommand },
  { name: "ls", load: async () => (await import("./commands/ls.js")).lsCommand },
  { name: "log", load: async () => (await import("./commands/log.js")).logCommand },
  { name: "show", load: async () => (await import("./commands/show.js")).showCommand },
  { name: "search", load: async () => (await import("./commands/search.js")).searchCommand },
  { name: "scan", load: async () => (await import("./commands/scan.js")).scanCommand },
  { name: "view", load: async () => (await import("./commands/view.js")).viewCommand },
  { name: "schema", load: async () => (await import("./commands/schema.js")).schemaCommand },
  { name: "completion", load: async () => (await import("./commands/completion.js")).completionCommand(commands) },
];

/** The command modules a run needs: the one named first in argv, or all of them (help, typos, no command). */
export async function loadCommands(argv: readonly string[]): Promise<CommandDef[]> {
  const first = argv.find((a) => !a.startsWith("-"));
  const hit = commands.find((c) => c.name === first);
  return Promise.all((hit ? [hit] : commands).map((c) => c.load()));
}

/**
 * `ckpt validate` with plain arguments runs without loading yargs (cold start); every other command line,
 * including help and anything unusual, goes through yargs. Undefined: not such a command line.
 */
async function quickValidate(argv: readonly string[], io: CliIO): Promise<number | undefined> {
  if (argv[0] !== "validate") return undefined;
  try {
    const { quickValidateArgs, validateCommand } = await import("./commands/validate.js");
    const args = quickValidateArgs(argv.slice(1));
    return args ? await validateCommand.run(args, io) : undefined;
  } catch (e) {
    return reportError(e, io);
  }
}

/** Any other command with a plain command line (see quick.ts) runs without loading yargs too. */
async function quickCommand(argv: readonly string[], io: CliIO): Promise<number | undefined> {
  const hit = commands.find((c) => c.name === argv[0]);
  if (!hit) return undefined;
  try {
    const def = await hit.load();
    const args = quickArgs(def, argv);
    return args ? await def.run(args, io) : undefined;
  } catch (e) {
    return reportError(e, io);
  }
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  try {
    return await run(argv, io);
  } finally {
    // every exit path closes every store the command opened (an open Redis/PostgreSQL connection keeps Node alive)
    await closeStores();
    useAesKey(undefined);
  }
}

/**
 * The end of a process that ran `main` (bin/ckpt.js, the standalone bundle): once the run's output is written, exit
 * at once with its code. `main` returns when the command is done and every store it opened is closed; what Node would
 * still do before a natural exit is V8's leftover work on a heap about to be dropped — finishing an incremental
 * marking, background compile jobs — which after a diff of two 5 MB checkpoints was ~280 M instructions
 * (callgrind, --single-threaded), 13 % of the run. Never called in-process (tests, the library): main itself
 * does not exit. A child process's stdio pipes are PipeWraps too, but a child comes with its ProcessWrap.
 */
export function exitAfterRun(code: number): void {
  process.exitCode = code;
  // after what the run left on the tick queue (a browser opener that cannot start reports it so), and only when
  // nothing but the standard streams is still active (no timer, socket, child, file request: else the process ends as
  // it always did, when they are done)
  process.nextTick(() => {
    if (process.getActiveResourcesInfo().every((r) => r === "TTYWrap" || r === "PipeWrap"))
      whenWritten(() => process.exit(code));
  });
}

/**
 * The key of LangGraph's encrypted rows, read once: `--aes-key-file` (read here, a trailing newline dropped), else the
 * env var. The run's stores are opened with it (stores.ts).
 */
async function readAesKey(io: CliIO, file?: string): Promise<AesKey | undefined> {
  if (file === undefined) {
    const env = io.env.LANGGRAPH_AES_KEY;
    return env ? { key: Buffer.from(env, "utf8"), from: "LANGGRAPH_AES_KEY" } : undefined;
  }
  const { readFileSync } = await import("node:fs");
  const { resolve } = await import("node:path");
  let text: Buffer;
  try {
    text = readFileSync(resolve(io.cwd, file));
  } catch (e) {
    throw inputError("aes-key-file", `cannot read the AES key file: ${(e as Error).message}`, { file });
  }
  let end = text.length;
  if (end > 0 && text[end - 1] === 0x0a) end--;
  if (end > 0 && text[end - 1] === 0x0d) end--;
  return { key: text.subarray(0, end), from: `--aes-key-file ${file}` };
}

async function run(argv: string[], io: CliIO): Promise<number> {
  useAesKey(await readAesKey(io));
  const quick = (await quickValidate(argv, io)) ?? (await quickCommand(argv, io));
  if (quick !== undefined) return quick;
  const { default: yargs } = await import("yargs");
  const { helpBuilder, tidyHelp } = await import("./help.js");
  const width = Math.min(110, io.stdout.columns ?? 100);
  let pending: Promise<number> | undefined;
  let usageFailure: string | undefined;
  const parser = yargs(argv)
    .scriptName("ckpt")
    .usage("ckpt <command> [options]\n\nInspect, validate, diff, migrate, convert and replay AI agent checkpoints.")
    .strict()
    .exitProcess(false)
    .wrap(width)
    .demandCommand(1, "Name a command: ckpt --help lists them.")
    .recommendCommands()
    .option("aes-key-file", {
      type: "string",
      global: true,
      describe: "file holding the key of LangGraph's encrypted rows (msgpack+aes), instead of LANGGRAPH_AES_KEY",
    })
    .middleware(async (args) => {
      if (typeof args.aesKeyFile === "string") useAesKey(await readAesKey(io, args.aesKeyFile));
    })
    .middleware((args) => {
      // `--limit abc`: yargs made it NaN; say which option and what was given (exit 2) before any command runs
      const bad = notANumber(args, argv);
      if (bad !== undefined) throw usageError(bad);
      // `--to a --to b`: yargs makes an array of an option that takes one value; exit 2 before anything is opened
      const twice = givenTwice(
        args,
        (parser as unknown as { getOptions(): Parameters<typeof givenTwice>[1] }).getOptions(),
      );
      if (twice !== undefined) throw usageError(twice);
    }, true)
    .fail((msg, err) => {
      if (err) throw err;
      usageFailure = msg;
    })
    .help()
    .alias("h", "help")
    .version(ckptVersion())
    .epilogue(
      "Exit codes: 0 success, 1 negative answer (invalid/different/diverged), 2 usage, 3 input error, " +
        "4 store error, 5 partial migration, 70 internal error, 130 interrupted (Ctrl-C).",
    );
  let defs: CommandDef[];
  try {
    defs = await loadCommands(argv);
  } catch (e) {
    return reportError(e, io);
  }
  for (const c of defs) {
    parser.command(c.command, c.describe, helpBuilder(c), (args) => {
      // yargs may still call the handler after reporting a usage failure (e.g. a missing positional): don't run it.
      if (usageFailure === undefined) pending = c.run(args, io);
    });
  }
  let helpText = "";
  try {
    await parser.parseAsync(argv, {}, (_err, _argv, output) => {
      helpText = output;
    });
    if (usageFailure !== undefined) {
      if (pending) await pending.catch(() => undefined);
      io.stderr.write(`ckpt: ${redactText(usageFailure)}\nRun 'ckpt --help' for usage.\n`);
      return ExitCode.USAGE;
    }
    if (helpText) io.stdout.write(tidyHelp(helpText, width) + "\n");
    if (!pending) return ExitCode.OK; // --help / --version
    return await pending;
  } catch (e) {
    return reportError(e, io);
  }
}

export function reportError(e: unknown, io: CliIO): number {
  if (e instanceof CkptError) {
    // every URI a message quotes is redacted here too, whatever the code that made the message did
    io.stderr.write(`ckpt: ${printable(redactText(e.format()), true)}\n`);
    return e.exitCode;
  }
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    // Valid JSON nested deeper than the engines recurse (no real checkpoint comes near): an input problem, not a bug.
    io.stderr.write(
      "ckpt: an input is nested too deeply to process (more levels than any checkpoint has) [input/json-too-deep]\n",
    );
    return ExitCode.INPUT;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  io.stderr.write(
    `ckpt: internal error (this is a bug in ckpt, please report it with the command you ran):\n${redactText(err.stack ?? err.message)}\n`,
  );
  return ExitCode.BUG;
}
