/**
 * phi-core's session lock protocol (FORMATS.md §2.2): `FileSystemSessionStore::save` takes an exclusive advisory
 * lock (fs2, i.e. flock(2) on Unix) on `<session_id>.json.lock`, waiting up to 5 s before giving up with
 * `SessionError::Locked`, then writes `<session_id>.json.tmp.<pid>.<nanos>`, fsyncs it and renames it into place.
 * ckpt writes a session the same way, so it never writes a session that a phi-core process holds locked.
 *
 * Node has no flock(2); the lock is held by util-linux `flock(1)` in a child process for exactly as long as the
 * write takes (the child waits on its stdin; closing it — or this process dying — releases the lock).
 */
import { writeFileAtomic } from "../base/atomic.js";
import { CkptError, ExitCode, storeError } from "../base/errors.js";

/** phi-core's own budget for taking the lock. */
export const PHI_LOCK_WAIT_MS = 5000;
const LOCKED = 75;

/** Run `fn` holding the exclusive flock on `lockPath` (created if missing, as phi-core does); refuse after `waitMs`. */
export async function withFlock<T>(lockPath: string, waitMs: number, what: string, fn: () => Promise<T>): Promise<T> {
  // loaded here, not with the file store: node:child_process brings net and the stream stack with it (a few ms of
  // every run that reads files), and only a write into a phi-core folder takes the lock
  const { spawn } = await import("node:child_process");
  const child = spawn(
    "flock",
    ["-x", "-w", String(waitMs / 1000), "-E", String(LOCKED), lockPath, "sh", "-c", "echo locked; exec cat >/dev/null"],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const exited = new Promise<number>((res) => child.on("close", (code) => res(code ?? 1)));
  const got = await new Promise<boolean | Error>((res) => {
    child.on("error", (e) => res(e));
    child.stdout.once("data", () => res(true));
    void exited.then(() => res(false));
  });
  if (got instanceof Error)
    throw storeError(
      "lock-unavailable",
      `cannot take phi-core's session lock: flock(1) from util-linux is needed (${got.message})`,
      { file: lockPath },
    );
  if (got !== true) {
    const code = await exited;
    if (code === LOCKED) {
      throw new CkptError(
        ExitCode.STORE,
        "session-locked",
        `${what} is locked by another process (phi-core's ${lockPath.split("/").pop()} was held for ${waitMs / 1000} s): not written`,
        { file: lockPath },
      );
    }
    throw storeError("lock-failed", `cannot take phi-core's session lock (flock exited with ${code})`, {
      file: lockPath,
    });
  }
  try {
    return await fn();
  } finally {
    child.stdin.end();
    await exited;
  }
}

/** phi-core's atomic write — temp `<path>.tmp.<pid>.<nanos>`, fsync, rename, fsync of the folder — by ckpt's one writer. */
export function writeLikePhiCore(path: string, text: string, exclusive = false): Promise<boolean> {
  return writeFileAtomic(path, text, { tempPath: phiTempPath, exclusive });
}

/** The temp file phi-core's `save` writes before renaming it into place: `<path>.tmp.<pid>.<nanos>`. */
export const phiTempPath = (path: string): string => `${path}.tmp.${process.pid}.${process.hrtime.bigint()}`;
