/**
 * Any agent's thread → a LangGraph thread in a LangGraph store: the `langgraph` tuple document that
 * `convertDocument(…, {to: "langgraph"})` gives (a JS-style v4 checkpoint whose `messages` channel holds LangChain lc:1
 * records — HumanMessage, AIMessage with tool_calls and usage_metadata, ToolMessage, SystemMessage) becomes one
 * checkpoint row in the SQLite layout with its pending writes (an interrupt), encoded for the target library: JS
 * `json` serde, or Python `msgpack` (ext 5 messages, padded string versions) through formats/langgraph/convert.ts. A
 * store then writes it the way that library would (PostgreSQL: channel values split into blobs). Pure.
 *
 * The other direction needs nothing here: a LangGraph store's `<uri>#<thread>[@id]` already reads as a `langgraph`
 * document that converts to every format through the canonical model.
 */
import type { Library } from "../../formats/langgraph/encode.js";
import { dumpsTypedJs } from "../../formats/langgraph/encode.js";
import { convertCheckpoint } from "../../formats/langgraph/convert.js";
import type { LgCheckpoint as LgRow } from "../../formats/langgraph/rows.js";
import type { LgTupleDocument } from "../../formats/langgraph/types.js";
import { convertDocument } from "../convert.js";
import type { LossyNote, SourceDoc } from "../../formats/types.js";
import { inputError } from "../../base/errors.js";
import { uuid6For } from "../../formats/langgraph/adapter.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The checkpoint keys LangGraph JS keeps (`copyCheckpoint`, LANGGRAPH.md §1.1), in its order. */
const JS_KEYS = ["v", "id", "ts", "channel_values", "channel_versions", "versions_seen"];

/**
 * One `langgraph` tuple document as a checkpoint row of `threadId` (default: the document's) for `library`: the
 * root namespace, no parent (a converted thread starts with this checkpoint), its pending writes kept.
 */
export function tupleToRow(doc: LgTupleDocument, o: { threadId?: string; library: Library }): LgRow {
  const cp = isObj(doc.checkpoint) ? (doc.checkpoint as unknown as Obj) : {};
  const id = typeof cp.id === "string" ? cp.id : doc.checkpointId;
  if (typeof id !== "string" || id === "")
    throw inputError("langgraph-checkpoint", "the LangGraph checkpoint has no id");
  const ordered: Obj = {};
  for (const k of JS_KEYS) if (k in cp) ordered[k] = cp[k];
  const writes = (Array.isArray(doc.pendingWrites) ? doc.pendingWrites : []).map((w) => {
    const [type, value] = dumpsTypedJs(w.value);
    return { taskId: w.taskId, idx: w.idx, channel: w.channel, type, value, taskPath: "" };
  });
  const row: LgRow = {
    threadId: o.threadId ?? String(doc.threadId),
    ns: "",
    id,
    parentId: null,
    type: "json",
    checkpoint: Buffer.from(JSON.stringify(ordered)),
    metadata: Buffer.from(JSON.stringify(isObj(doc.metadata) ? doc.metadata : {})),
    writes,
  };
  return o.library === "js" ? row : convertCheckpoint(row, "python");
}

export interface ConvertedThread {
  row: LgRow;
  from: string;
  messages: number;
  lossy: LossyNote[];
}

/** A document of any format → the LangGraph checkpoint row written for it (see `tupleToRow`). */
export function documentToRow(
  doc: SourceDoc,
  o: { from?: string; threadId?: string; library: Library; now: number },
): ConvertedThread {
  const r = convertDocument(doc, { from: o.from, to: "langgraph" });
  const native = r.native as LgTupleDocument;
  const c = r.checkpoint;
  if (c.updatedAt === undefined && c.createdAt === undefined && !isObj(c.ext?.langgraph)) {
    // no time in the source document: the newest message's timestamp, else now (a 1970 checkpoint would be the
    // first thing `prune --older-than` deletes)
    const times = c.messages
      .map((m) => (m as { timestamp?: unknown }).timestamp)
      .filter((t): t is number => typeof t === "number" && Number.isFinite(t));
    const ms = times.length ? Math.max(...times) : o.now;
    const id = uuid6For(ms, c.step, c.threadId);
    const cp = native.checkpoint as unknown as Obj;
    Object.assign(cp, { id, ts: new Date(ms).toISOString() });
    native.checkpointId = id;
  }
  const row = tupleToRow(native, o);
  return { row, from: r.from, messages: r.checkpoint.messages.length, lossy: r.lossy };
}

/** Why a converted thread cannot go into the target: the thread already has other checkpoints there. */
export function threadTaken(row: LgRow, heads: readonly { id: string }[] | undefined): string | undefined {
  if (!heads?.length || heads.some((h) => h.id === row.id)) return undefined;
  return `thread '${row.threadId}' already has ${heads.length} checkpoint${heads.length === 1 ? "" : "s"} in the target (a converted thread is a new history of one checkpoint): choose another thread id, or prune that thread first`;
}
