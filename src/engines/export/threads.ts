/**
 * The threads of an opened store as `ExportThread`s, one at a time (`ckpt export`'s source): every namespace the
 * store holds (or the one named), each thread the filter accepts, its newest checkpoint — or, with `allCheckpoints`
 * in a store that keeps a history (LangGraph), every checkpoint of its root graph, oldest first — read into the
 * canonical model. Streamed: one thread's document is in memory at a time, whatever the store's size.
 */
import { CkptError, ExitCode, inputError } from "../../base/errors.js";
import type { ExportThread } from "../../core/export/types.js";
import { readNative } from "../../formats/index.js";
import type { LangGraphSaver } from "../../savers/langgraph/shared.js";
import { DEFAULT_NAMESPACE } from "../../savers/types.js";
import type { Engine } from "../types.js";

/** Which threads and checkpoints an export takes. */
export interface ThreadSelection {
  /** a thread id the export takes (`--thread`, `--match`); undefined: every thread */
  accept?: (threadId: string) => boolean;
  /** only checkpoints written at or after this time (epoch ms; `--since`) */
  since?: number;
  /** only checkpoints written before this time (epoch ms; `--until`) */
  until?: number;
  /** every checkpoint of each thread, oldest first, where the store keeps a history (default: the newest) */
  allCheckpoints?: boolean;
  /** ckpt's namespaces to read (default: every namespace the store holds) */
  namespaces?: string[];
  /**
   * a thread whose document no format reads (an input error) is given here and left out; without it the error stops
   * the export
   */
  onUnreadable?: (thread: string, e: CkptError) => void;
}

/**
 * The thread read by `read`, or undefined when it is unreadable and the selection leaves such threads out; without
 * that, its input error says how to leave it out.
 */
function readOrSkip(sel: ThreadSelection, name: string, read: () => ExportThread): ExportThread | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof CkptError) || e.exitCode !== ExitCode.INPUT) throw e;
    if (!sel.onUnreadable)
      throw new CkptError(
        e.exitCode,
        e.reason,
        `${e.message} (nothing written; --skip-unreadable leaves such threads out and exports the rest)`,
        e.place,
        { cause: e },
      );
    sel.onUnreadable(name, e);
    return undefined;
  }
}

/** The time a checkpoint was written (epoch ms), from the checkpoint, else the store's row; NaN when neither says. */
function timeOf(t: ExportThread, stored: string | undefined): number {
  const cp = t.checkpoint;
  return Date.parse(cp.updatedAt ?? cp.createdAt ?? stored ?? "");
}

/** Whether a checkpoint's time is inside --since/--until (one without a time is outside when either is given). */
export function inWindow(ms: number, s: Pick<ThreadSelection, "since" | "until">): boolean {
  if (s.since === undefined && s.until === undefined) return true;
  if (Number.isNaN(ms)) return false;
  return (s.since === undefined || ms >= s.since) && (s.until === undefined || ms < s.until);
}

/** One stored document read as an ExportThread; a document no format reads is an input error naming the thread. */
export function exportThreadOf(
  source: string,
  text: string,
  o: { threadId: string; namespace?: string; checkpointId?: string; name: string; history?: boolean },
): ExportThread {
  const { adapter, native, doc, format } = readNative({ name: o.name, text, threadId: o.threadId });
  const checkpoint = adapter.toCanonical(native, doc);
  // a store with a history names its checkpoints: the document read says which one it is (LangGraph's tuple)
  const named = o.history ? (native as { checkpointId?: unknown } | null)?.checkpointId : undefined;
  const checkpointId = o.checkpointId ?? (typeof named === "string" ? named : undefined);
  return {
    source,
    threadId: o.threadId,
    ...(o.namespace !== undefined && o.namespace !== DEFAULT_NAMESPACE ? { namespace: o.namespace } : {}),
    ...(checkpointId !== undefined ? { checkpointId } : {}),
    format,
    checkpoint,
  };
}

/** Every thread (or checkpoint) of an opened store the selection takes, read one at a time. */
export async function* storeThreads(
  engine: Engine,
  source: string,
  sel: ThreadSelection = {},
): AsyncGenerator<ExportThread> {
  const saver = engine.saver;
  const namespaces = engine.caps.namespaces ? (sel.namespaces ?? (await saver.namespaces())) : [undefined];
  const history = sel.allCheckpoints && engine.caps.history;
  for (const ns of namespaces) {
    for await (const info of saver.list(ns === undefined ? {} : { namespace: ns })) {
      if (sel.accept && !sel.accept(info.threadId)) continue;
      const name = `${saver.uri}#${info.threadId}`;
      if (history) {
        // the thread's checkpoints newest first (ids and times only), exported oldest first
        const lg = saver as LangGraphSaver;
        const ids: string[] = [];
        for await (const e of lg.history(info.threadId)) ids.push(e.checkpointId);
        for (const id of ids.reverse()) {
          const text = await lg.loadAt(info.threadId, id);
          if (text === undefined) continue;
          const t = readOrSkip(sel, `${name}@${id}`, () =>
            exportThreadOf(source, text, { threadId: info.threadId, checkpointId: id, name: `${name}@${id}` }),
          );
          if (t && inWindow(timeOf(t, undefined), sel)) yield { ...t, ofHistory: true };
        }
        continue;
      }
      const text = await saver.load(info.threadId, ns);
      if (text === undefined)
        throw inputError("thread-gone", `thread '${info.threadId}' was listed but could not be read`, { file: name });
      const t = readOrSkip(sel, name, () =>
        exportThreadOf(source, text, { threadId: info.threadId, namespace: ns, name, history: engine.caps.history }),
      );
      if (t && inWindow(timeOf(t, info.updatedAt), sel)) yield t;
    }
  }
}

/** How many threads the store holds (for a progress bar's total): the namespaces read, added up. */
export async function threadCount(engine: Engine, sel: ThreadSelection = {}): Promise<number> {
  const saver = engine.saver;
  if (!engine.caps.namespaces) return saver.count();
  let n = 0;
  for (const ns of sel.namespaces ?? (await saver.namespaces())) n += await saver.count(ns);
  return n;
}
