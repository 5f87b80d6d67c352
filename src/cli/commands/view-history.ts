/**
 * A LangGraph thread's history for `ckpt view`: the store's checkpoints of one thread and namespace (the root graph
 * unless a subgraph's namespace is named; each checkpoint loaded from that namespace, as `log` lists them), read with
 * the saver's history interface (newest first, streamed) and each decoded through the `langgraph` format into a
 * canonical checkpoint, oldest first, as the timeline shows them.
 */
import { readCheckpoint, unreadableLine, unreadableParts } from "../../formats/index.js";
import type { LangGraphSaver } from "../../savers/langgraph/shared.js";
import type { HistoryEntry } from "../../view/index.js";

/** At most this many checkpoints (the newest) on one page; `--history-limit` changes it. */
export const HISTORY_LIMIT = 300;

export interface ThreadHistory {
  entries: HistoryEntry[];
  /** checkpoints of the thread left out (older than the newest `limit`) */
  omitted: number;
  /** the checkpoints of the page read in part: each with its first unreadable part (the page marks them) */
  unreadable: Array<{ id: string; line: string }>;
}

export async function readHistory(
  saver: LangGraphSaver,
  threadId: string,
  label: string,
  limit = HISTORY_LIMIT,
  namespace?: string,
): Promise<ThreadHistory> {
  const newestFirst = [];
  let omitted = 0;
  for await (const e of saver.history(threadId, namespace)) {
    if (newestFirst.length < limit) newestFirst.push(e);
    else omitted++;
  }
  const entries: HistoryEntry[] = [];
  const unreadable: ThreadHistory["unreadable"] = [];
  for (const e of newestFirst.reverse()) {
    const text = await saver.loadAt(threadId, e.checkpointId, namespace);
    if (text === undefined) continue; // removed between listing and reading
    const name = `${label}#${threadId}@${e.checkpointId}${namespace ? ` (namespace '${namespace}')` : ""}`;
    const { checkpoint } = readCheckpoint({ name, text }, "langgraph");
    const part = unreadableParts(checkpoint)[0];
    if (part) unreadable.push({ id: e.checkpointId, line: unreadableLine(part) });
    const node = e.nodes.length ? e.nodes.join(", ") : (e.source ?? undefined);
    entries.push({
      id: e.checkpointId,
      step: e.step ?? checkpoint.step,
      ...(e.parentId ? { parentId: e.parentId } : {}),
      ...(node ? { node } : {}),
      ...(e.ts ? { time: e.ts } : {}),
      checkpoint,
    });
  }
  return { entries, omitted, unreadable };
}
