/**
 * The one atomic file writer. Every file ckpt writes (converted documents, reports, reject files, schemas, the
 * FileSaver's checkpoints) goes through here: each text is written to a temp file in its target's folder and
 * fsynced, then all are renamed into place and the folders fsynced. A failure removes every temp file and leaves
 * the targets as they were (no partial output); it is a store error (exit 4, DESIGN §5: an I/O failure) naming
 * the path that failed.
 */
// fs.promises, read when a file is written: a command that only loads this module does not load fs/promises
import { promises as fsp } from "node:fs";
import { dirname } from "node:path";
import { CkptError, storeError } from "./errors.js";

export interface FileText {
  path: string;
  text: string;
}

export interface AtomicOptions {
  /** the temp file's path for a target (default `<path>.ckpt-tmp-<pid>-<random>`; phi-core's own is `<path>.tmp.<pid>.<nanos>`) */
  tempPath?: (path: string) => string;
  /**
   * Never replace a file: each temp file is hard-linked into place (which fails when the target exists) instead of
   * renamed over it. When one target exists, the ones linked by this call are removed again and nothing is written.
   */
  exclusive?: boolean;
}

const ckptTemp = (path: string): string => `${path}.ckpt-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;

function writeError(e: unknown, path: string): CkptError {
  if (e instanceof CkptError) return e;
  const err = e as NodeJS.ErrnoException;
  const why =
    err.code === "EACCES" || err.code === "EPERM"
      ? "permission denied"
      : err.code === "ENOSPC"
        ? "no space left on the device"
        : err.message;
  return storeError(`write-${(err.code ?? "io").toLowerCase()}`, `cannot write: ${why}`, { file: path }, e);
}

async function syncDir(dir: string): Promise<void> {
  let d;
  try {
    d = await fsp.open(dir, "r");
    await d.sync();
  } catch {
    // some file systems cannot fsync a folder (EINVAL / EISDIR): the rename is still atomic there
  } finally {
    await d?.close();
  }
}

/**
 * Write all `targets` atomically (all renamed into place only once every one is written and synced). True when they
 * were written; false (nothing written) when `exclusive` and one of them exists.
 */
export async function writeFilesAtomic(
  targets: ReadonlyArray<FileText>,
  options: AtomicOptions = {},
): Promise<boolean> {
  const tempPath = options.tempPath ?? ckptTemp;
  const temps: string[] = [];
  const linked: string[] = [];
  let at = "";
  try {
    for (const t of targets) {
      at = t.path;
      await fsp.mkdir(dirname(t.path), { recursive: true });
      const tmp = tempPath(t.path);
      const fh = await fsp.open(tmp, "wx");
      temps.push(tmp);
      try {
        await fh.writeFile(t.text);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    for (let i = 0; i < targets.length; i++) {
      at = targets[i]!.path;
      if (options.exclusive) {
        await fsp.link(temps[i]!, at);
        linked.push(at);
      } else await fsp.rename(temps[i]!, at);
    }
    if (options.exclusive) await Promise.all(temps.map((t) => fsp.unlink(t)));
  } catch (e) {
    await Promise.all(temps.map((t) => fsp.unlink(t).catch(() => undefined)));
    if (options.exclusive && (e as NodeJS.ErrnoException).code === "EEXIST") {
      await Promise.all(linked.map((t) => fsp.unlink(t).catch(() => undefined)));
      return false;
    }
    throw writeError(e, at);
  }
  for (const dir of new Set(targets.map((t) => dirname(t.path)))) await syncDir(dir);
  return true;
}

/** Write one file atomically (`exclusive`: only if it does not exist; whether it was written). */
export function writeFileAtomic(path: string, text: string, options: AtomicOptions = {}): Promise<boolean> {
  return writeFilesAtomic([{ path, text }], options);
}

/** A file being written atomically, piece by piece (`openFileAtomic`): nothing is at its path until `commit`. */
export interface AtomicFile {
  readonly path: string;
  /** bytes written so far */
  readonly bytes: number;
  write(chunk: string | Uint8Array): Promise<void>;
  /** sync the temp file, rename it into place, sync the folder */
  commit(): Promise<void>;
  /** remove the temp file; the target stays as it was (safe to call after a failed write or commit) */
  abort(): Promise<void>;
}

/**
 * Open a temp file beside `path` to stream a large output into (an export of a whole store): written in pieces, then
 * synced and renamed into place by `commit`, or removed by `abort`. A failure is a store error naming `path`.
 */
export async function openFileAtomic(path: string): Promise<AtomicFile> {
  const tmp = ckptTemp(path);
  let fh: Awaited<ReturnType<typeof fsp.open>> | undefined;
  try {
    await fsp.mkdir(dirname(path), { recursive: true });
    fh = await fsp.open(tmp, "wx");
  } catch (e) {
    throw writeError(e, path);
  }
  const handle = fh;
  let bytes = 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    path,
    get bytes() {
      return bytes;
    },
    async write(chunk) {
      try {
        const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        let off = 0;
        while (off < buf.length) off += (await handle.write(buf, off, buf.length - off)).bytesWritten;
        bytes += buf.length;
      } catch (e) {
        throw writeError(e, path);
      }
    },
    async commit() {
      try {
        await handle.sync();
        await close();
        await fsp.rename(tmp, path);
      } catch (e) {
        await fsp.unlink(tmp).catch(() => undefined);
        throw writeError(e, path);
      }
      await syncDir(dirname(path));
    },
    async abort() {
      await close().catch(() => undefined);
      await fsp.unlink(tmp).catch(() => undefined);
    },
  };
}
