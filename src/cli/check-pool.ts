/**
 * One worker thread that checks batches for `migrate` (check-worker.ts). Used only where the compiled worker file
 * exists next to this module (the built package; not when the TypeScript sources run under a test runner) and worker
 * threads can start; otherwise `open` returns undefined and checks run in the calling thread.
 *
 * When migrate asks on its own (`auto`), the worker is started only if two cores are idle (checkWorkerMayStart): the
 * checks then run beside the reads and writes. On a machine whose cores are all busy a worker cannot run beside
 * anything; it only adds its start-up (~0.1 s of CPU loading the validators) and the copy of every text to it and back,
 * which were measured to cost more than the checks it takes over (bench/migrate under load: CPU per 10,000 records
 * ~400 ms with the worker, ~280 ms without).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import type { CheckPool, WireResult } from "../core/check.js";
import { idleCores } from "../base/cores.js";

export { idleCore } from "../base/cores.js";

/**
 * Whether migrate may start the worker on its own: two cores idle, one for the worker and one for what else runs
 * beside the main thread — a folder source's reader (savers/folder-read-ahead.ts, started when one core is idle) or the
 * target's server on this machine (PostgreSQL, Redis). With one idle core the helpers take turns on it with the main
 * thread, and the worker (a fresh thread per migration: its modules loaded, its code not yet optimized) costs more
 * than it takes over. bench/migrate on 2 quiet cores (ratio to a raw copy, file → redis / sqlite / postgres): worker
 * and reader 0.64 / 0.57 / 0.53, the reader alone 0.77 / 0.75 / 0.61; in-process file → sqlite, warm, 10,000
 * records: worker alone 505–517 ms (CPU ~650 ms), checks on the main thread 385 ms (~340 ms).
 */
export function checkWorkerMayStart(load?: number, cores?: number): boolean {
  return idleCores(2, load, cores);
}

export async function openCheckPool(opts: { auto?: boolean } = {}): Promise<CheckPool | undefined> {
  if (opts.auto && !checkWorkerMayStart()) return undefined;
  const url = new URL("./check-worker.js", import.meta.url);
  if (url.protocol !== "file:" || !existsSync(fileURLToPath(url))) return undefined;
  let worker: Worker;
  const readyFlag = new Int32Array(new SharedArrayBuffer(4));
  try {
    const { Worker } = await import("node:worker_threads");
    worker = new Worker(url, { workerData: { ready: readyFlag.buffer } });
  } catch {
    return undefined;
  }
  worker.unref();
  let nextId = 0;
  const pending = new Map<number, { resolve: (r: WireResult[]) => void; reject: (e: Error) => void }>();
  let failed: Error | undefined;
  const failAll = (e: Error) => {
    failed ??= e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on("message", (m: { id: number; results?: WireResult[]; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(`check worker: ${m.error}`));
    else p.resolve(m.results!);
  });
  worker.on("error", (e) => failAll(e));
  worker.on("exit", (code) => failAll(new Error(`check worker exited (code ${code})`)));
  return {
    get ready() {
      return Atomics.load(readyFlag, 0) === 1 && !failed;
    },
    async whenReady() {
      // Atomics.waitAsync (ES2024; in Node since 16) resolves when the worker stores 1 and notifies.
      const waitAsync = (
        Atomics as unknown as {
          waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string };
        }
      ).waitAsync;
      const exited = new Promise<never>((_, reject) =>
        worker.once("exit", () => reject(failed ?? new Error("check worker exited"))),
      );
      exited.catch(() => undefined);
      worker.ref();
      try {
        const w = waitAsync(readyFlag, 0, 0);
        if (w.async) await Promise.race([w.value, exited]);
      } finally {
        worker.unref();
      }
      if (failed) throw failed;
    },
    check(names, texts, opts, wants, threadIds) {
      if (failed) return Promise.reject(failed);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref(); // keep the process alive while a batch is out
        worker.postMessage({ id, opts, wants, names, texts, threadIds });
      }).finally(() => {
        if (pending.size === 0) worker.unref();
      }) as Promise<WireResult[]>;
    },
    async close() {
      worker.removeAllListeners("exit");
      await worker.terminate();
    },
  };
}
