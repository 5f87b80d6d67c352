import { Readable } from "node:stream";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

/** An in-memory CliIO: what the command printed on stdout / stderr, with its own env and cwd. */
export function cliIO(
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): CliIO & { out: () => string; err: () => string } {
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

/** Run the CLI in-process (as `ckpt <argv>` would): its exit code and what it printed on stdout and stderr. */
export async function runCli(
  argv: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = cliIO(opts);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}
