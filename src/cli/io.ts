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

/**
 * The real process. Its streams are created on first use, as Node's own `process.stdout` getters do: creating one
 * loads stream modules and costs a few milliseconds at start-up, and most runs never read stdin or write stderr.
 */
export function processIO(): CliIO {
  return {
    get stdout() {
      return pipeSafe(process.stdout);
    },
    get stderr() {
      return pipeSafe(process.stderr);
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/** `ckpt … | head` closes the pipe early: that ends the run with its exit code so far, it is not an error. */
function pipeSafe(s: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!guarded.has(s)) {
    guarded.add(s);
    s.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  return s;
}

/** Colour on when the stream is a TTY and NO_COLOR is unset (https://no-color.org), or FORCE_COLOR is set. */
export function useColor(io: CliIO, stream: Out = io.stdout): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}
