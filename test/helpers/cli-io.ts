import { Readable } from "node:stream";
import type { CliIO } from "../../src/cli/io.js";

/** An in-memory CliIO: what the command printed on stdout / stderr, with its own env and cwd. */
export function cliIO(opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from(opts.stdin !== undefined ? [Buffer.from(opts.stdin)] : []),
    env: { NO_COLOR: "1", ...opts.env },
    cwd: opts.cwd ?? process.cwd(),
    out: () => out,
    err: () => err,
  };
}
