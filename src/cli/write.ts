/** Atomic output: every file is written to a temp file in its folder and fsynced, then all are renamed into place. */
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { CkptError, storeError } from "../base/errors.js";

export async function writeFilesAtomic(targets: ReadonlyArray<{ path: string; text: string }>, label: string): Promise<void> {
  const temps: string[] = [];
  try {
    for (const t of targets) {
      await mkdir(dirname(t.path), { recursive: true });
      const tmp = `${t.path}.ckpt-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      temps.push(tmp);
      const fh = await open(tmp, "wx");
      try {
        await fh.writeFile(t.text);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    for (let i = 0; i < targets.length; i++) await rename(temps[i]!, targets[i]!.path);
  } catch (e) {
    await Promise.all(temps.map((t) => unlink(t).catch(() => undefined)));
    if (e instanceof CkptError) throw e;
    throw storeError("output", `cannot write: ${(e as Error).message}`, { file: label });
  }
}
