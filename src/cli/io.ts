/** The CLI's view of the process: streams and environment, injectable for tests. Only cli/ prints. */
import type { Readable } from "node:stream";

export interface Out {
  write(chunk: string): unknown;
  /** true when this stream is an interactive terminal */
  isTTY?: boolean;
  /** terminal width, when this stream is a terminal */
  columns?: number;
}

export interface CliIO {
  stdout: Out;
  stderr: Out;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Colour on when the stream is a TTY and NO_COLOR is unset (https://no-color.org), or FORCE_COLOR is set. */
export function useColor(io: CliIO, stream: Out = io.stdout): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}
