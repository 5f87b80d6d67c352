/** The CLI's view of the process: streams and environment, injectable for tests. Only cli/ prints. */
import { fstatSync, statSync, writeSync } from "node:fs";
import type { Readable } from "node:stream";

export interface Out {
  /** a string, or UTF-8 bytes (lineWriter's chunks) */
  write(chunk: string | Uint8Array): unknown;
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
      return fileStdout() ?? pipeSafe(process.stdout);
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

let stdoutFile: Out | null | undefined;

/**
 * Standard output when it is a regular file or /dev/null, written with fs.writeSync as Node's own stream for a file
 * does (SyncWriteStream), without creating process.stdout: that loads Node's ~20 stream modules, a tenth of what a
 * tiny `ckpt validate > out.txt` added to Node's own start-up (issue #41). Terminals, pipes and sockets get
 * process.stdout (colour, columns, a closed pipe ending the run). Undefined for those, and on Windows.
 */
function fileStdout(): Out | undefined {
  if (stdoutFile === undefined) {
    stdoutFile = null;
    if (process.platform !== "win32") {
      try {
        const st = fstatSync(1);
        if (st.isFile() || (st.isCharacterDevice() && st.rdev === statSync("/dev/null").rdev)) {
          stdoutFile = {
            isTTY: false,
            write(chunk) {
              if (typeof chunk === "string") writeSync(1, chunk);
              else writeSync(1, chunk);
              return true;
            },
          };
        }
      } catch {
        // no standard output to look at: process.stdout decides, as before
      }
    }
  }
  return stdoutFile ?? undefined;
}

const guarded = new WeakSet<NodeJS.WriteStream>();
/** the process's streams created so far (through processIO: all of ckpt's output goes through it) */
const opened: NodeJS.WriteStream[] = [];

/** `ckpt … | head` closes the pipe early: that ends the run with its exit code so far, it is not an error. */
function pipeSafe(s: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!guarded.has(s)) {
    guarded.add(s);
    opened.push(s);
    s.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  return s;
}

/**
 * Call `done` once everything written so far to the process's streams has been handed to the system: at once where
 * writes are synchronous (files, and on Linux pipes and terminals), after the pending chunks elsewhere (pipes on
 * macOS). A stream not created yet is not created for this.
 */
export function whenWritten(done: () => void): void {
  let left = opened.length + 1;
  const one = () => {
    if (--left === 0) done();
  };
  for (const s of opened) s.write("", one);
  one();
}

/** Colour on when the stream is a TTY and NO_COLOR is unset (https://no-color.org), or FORCE_COLOR is set. */
export function useColor(io: CliIO, stream: Out = io.stdout): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

/** What lineWriter gives: `line` adds a line (its own `\n` included); `flush` hands what was added to the stream. */
export interface LineWriter {
  line(s: string): void;
  /** bytes added since the last flush */
  pending(): number;
  flush(): void;
}

/** the size of lineWriter's buffers */
const CHUNK = 1 << 20;

/**
 * Many lines to one stream, each encoded as UTF-8 straight into a 1 MiB buffer and handed to the stream as a slice of
 * it at `flush` — no string of the output grows, and no second pass measures a string before encoding it (for a
 * search that prints 90,000 matches, a tenth of its time). A slice handed over is never written again (the stream may
 * hold it until the descriptor takes it): a full buffer is replaced, not reused. A line longer than a buffer can
 * hold goes to the stream as it is.
 */
export function lineWriter(out: Out): LineWriter {
  let b = Buffer.allocUnsafe(CHUNK);
  let start = 0;
  let n = 0;
  const flush = () => {
    if (n > start) out.write(b.subarray(start, n));
    start = n;
  };
  return {
    line(s) {
      // at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2)
      if (n + s.length * 3 > CHUNK) {
        flush();
        b = Buffer.allocUnsafe(CHUNK);
        start = n = 0;
        if (s.length * 3 > CHUNK) return void out.write(s);
      }
      n += b.write(s, n);
    },
    pending: () => n - start,
    flush,
  };
}
