import type { Argv } from "yargs";
import type { CliIO } from "./io.js";
import { usageError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import { idGlob } from "../base/glob.js";

export { idGlob };

/** One CLI command: yargs wiring plus a run function that returns the exit code (never calls process.exit). */
export interface CommandDef {
  command: string | string[];
  describe: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  builder: (y: Argv) => Argv<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run: (args: any, io: CliIO) => Promise<number>;
}

/**
 * yargs turns `--limit abc` of a number option into NaN. A middleware (main.ts) calls this with the parsed
 * options and the command line: the first option holding NaN is a usage error that names it as the user wrote
 * it and quotes what was given.
 */
export function notANumber(args: Record<string, unknown>, argv: readonly string[]): string | undefined {
  const isNaNAt = (name: string) => typeof args[name] === "number" && Number.isNaN(args[name]);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(argv[i]!);
    if (m && isNaNAt(m[1]!))
      return `${m[1]!.length === 1 ? "-" : "--"}${m[1]} expects a number, got ${JSON.stringify(m[2] ?? argv[i + 1] ?? "")}`;
    if (argv[i] === "--") break;
  }
  const key = Object.keys(args).find(isNaNAt);
  return key === undefined ? undefined : `--${key} expects a number`;
}

/**
 * An option that takes one value given more than once (`--to a --to b`, which yargs turns into an array that nothing
 * downstream expects): the message naming it and its values (redacted: they may be URIs with passwords).
 */
export function givenTwice(
  args: Record<string, unknown>,
  options: { string?: string[]; number?: string[]; boolean?: string[]; array?: string[] },
): string | undefined {
  const arrays = new Set(options.array ?? []);
  for (const key of [...(options.string ?? []), ...(options.number ?? []), ...(options.boolean ?? [])]) {
    const v = args[key];
    if (arrays.has(key) || !Array.isArray(v)) continue;
    const flag = key.length === 1 ? `-${key}` : `--${key}`;
    return `${flag} given ${v.length} times (${v.map((x) => JSON.stringify(redactUri(String(x)))).join(", ")}): it takes one value`;
  }
  return undefined;
}

/**
 * A whole-number option, checked: its value, or undefined when it was not given; a usage error (exit 2) naming the
 * option when it is not an integer from `min` to `max`.
 */
export function intOption(
  value: number | undefined,
  flag: string,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  const want =
    max < Number.MAX_SAFE_INTEGER
      ? `an integer from ${min} to ${max}`
      : min === 1
        ? "a positive integer"
        : min === 0
          ? "a non-negative integer"
          : `an integer of at least ${min}`;
  throw usageError(`${flag} expects ${want}, got ${value}`);
}

/**
 * The threads `--thread <id>…` and `--match <glob>…` select (prune, stats): an id given exactly, or one a glob
 * matches (idGlob); undefined when neither option is given (every thread).
 */
export async function threadFilter(args: {
  thread?: string[];
  match?: string[];
}): Promise<((t: string) => boolean) | undefined> {
  if (!args.thread?.length && !args.match?.length) return undefined;
  const ids = new Set(args.thread ?? []);
  const globs = (args.match ?? []).map(idGlob);
  return (t) => ids.has(t) || globs.some((g) => g.test(t));
}
