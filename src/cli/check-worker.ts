/**
 * Worker-thread entry for `migrate`: checks batches of records (see check.ts) off the main thread, so that reading
 * the source and writing the target overlap with parsing and schema checks. Message in: {id, opts, names, texts, threadIds};
 * out: {id, results} in the same order.
 */
import { parentPort, workerData } from "node:worker_threads";
import { checkForWire, type CheckOptions, type WireResult, type WireWants } from "../core/check.js";

interface Request {
  id: number;
  opts: CheckOptions;
  wants: WireWants;
  names: string[];
  texts: string[];
  threadIds?: string[];
}

// Modules loaded: batches sent from now on are checked at once. A shared flag rather than a message, because the
// main thread may be busy in synchronous store calls (SQLite) and read it without returning to its event loop.
const readyFlag = new Int32Array((workerData as { ready: SharedArrayBuffer }).ready);
Atomics.store(readyFlag, 0, 1);
Atomics.notify(readyFlag, 0);

parentPort!.on("message", (m: Request) => {
  const results: WireResult[] = [];
  try {
    for (let i = 0; i < m.texts.length; i++)
      results.push(checkForWire(m.names[i]!, m.texts[i]!, m.opts, m.wants, m.threadIds?.[i]));
    parentPort!.postMessage({ id: m.id, results });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
