/**
 * The `langgraph` format: one decoded LangGraph checkpoint tuple (the JSON document of ./types.ts
 * `LgTupleDocument`, what the LangGraph store reader hands the format pipeline) ⇄ the canonical checkpoint. Pure.
 *
 * Canonical mapping:
 * - `channel_values.messages` (LangChain lc:1 records) → messages (./messages.ts);
 * - user state channels (names not starting with `__`, not the graph's trigger channels `branch:…`, `join:…`,
 *   `start:…`, nor — before v3 — a node's own channel) → `state.<channel>`; `todos` and `files` only when they
 *   have deep-agent's shapes (TodoItem[], path → FileData), else they stay with the rest;
 * - `metadata.step` → step (−1, the input checkpoint, reads as 0; the real value stays in the metadata);
 *   `checkpoint.ts` → updatedAt; the thread id → threadId;
 * - a pending interrupt (an `__interrupt__` write no `__resume__` answers) → interrupt: a deep-agent-shaped value
 *   as is; a HumanInTheLoop `action_requests` value → the matching tool call of the last AI message; any other
 *   value → `{toolCall: {toolCallId: <interrupt id>, toolName: "interrupt", args: <value>}, step}`;
 * - everything else — checkpoint id, parent, namespace, v, channel versions, versions seen, plumbing channels,
 *   metadata, pending writes, serde tags, store facts — travels in `ext.langgraph.tuple`, so a tuple → canonical →
 *   tuple round trip is exact.
 * A canonical checkpoint without `ext.langgraph` (another format's) becomes a JS-style v4 checkpoint with integer
 * versions, `source: "update"`, and its interrupt as an `__interrupt__` write.
 */
import type { AgentMessage, Checkpoint, InterruptData } from "../../generated/types.js";
import { inputError } from "../../base/errors.js";
import { parseJson, stringifyJson } from "../../base/json.js";
import type { FormatAdapter, LossSink, SourceDoc, UnreadablePart } from "../types.js";
import { cannotRebuild } from "./unreadable.js";
import { envelopeTimes, isEnvelopeFillIn } from "../envelope.js";
import {
  extOf,
  isMappedMessage,
  isObj,
  lintMessageOf,
  messageFromCanonical,
  messageToCanonical,
  messageToCanonicalLean,
  plainMessageRecord,
} from "./messages.js";
import { interruptOf, NULL_TASK_ID, type LgCheckpoint, type LgPendingWrite, type LgTupleDocument } from "./types.js";

type Obj = Record<string, unknown>;

const TRIGGER = /^(__|branch:|join:|start:)/;
/** Store bookkeeping of a tuple and of its checkpoint, kept in `ext.langgraph._layout.store` (see toCanonical). */
const BOOK_DOC = [
  "format",
  "formatVersion",
  "store",
  "checkpointId",
  "parentId",
  "library",
  "serde",
  "bytes",
  "row",
  "channelSources",
  "delta",
];
const BOOK_CP = ["id", "channel_versions", "versions_seen", "updated_channels"];

/** Channels that are graph plumbing rather than state: trigger channels, and (v < 3) node channels. */
export function isPlumbing(channel: string, cp: Pick<LgCheckpoint, "v" | "versions_seen">): boolean {
  if (TRIGGER.test(channel)) return true;
  return typeof cp.v === "number" && cp.v < 3 && isObj(cp.versions_seen) && channel in cp.versions_seen;
}

const isTodos = (v: unknown) =>
  Array.isArray(v) &&
  v.every(
    (t) =>
      isObj(t) &&
      typeof t.id === "string" &&
      typeof t.content === "string" &&
      ["pending", "in_progress", "completed", "cancelled"].includes(t.status as string),
  );
const isFiles = (v: unknown) =>
  isObj(v) &&
  Object.values(v).every(
    (f) =>
      isObj(f) &&
      Array.isArray(f.content) &&
      f.content.every((l) => typeof l === "string") &&
      typeof f.created_at === "string" &&
      typeof f.modified_at === "string",
  );
const STATE_SHAPES: Record<string, (v: unknown) => boolean> = {
  todos: isTodos,
  files: isFiles,
  scratchpad: () => false,
  contexts: () => false,
};

/** The channels of a checkpoint that are canonical state (see the module comment). */
function stateChannels(cp: LgCheckpoint): string[] {
  const cv = isObj(cp.channel_values) ? cp.channel_values : {};
  return Object.keys(cv).filter((k) => k !== "messages" && !isPlumbing(k, cp) && (STATE_SHAPES[k]?.(cv[k]) ?? true));
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

// ---- interrupts ---------------------------------------------------------------------------------------------

/** The interrupts no `__resume__` answers: per-task resumes answer their task, a NULL-task resume every task. */
export function pendingInterrupts(
  writes: readonly LgPendingWrite[],
): Array<{ taskId: string; id: string | undefined; value: unknown }> {
  const resumed = new Set(writes.filter((w) => w.channel === "__resume__").map((w) => w.taskId));
  if (resumed.has(NULL_TASK_ID)) return [];
  const out: Array<{ taskId: string; id: string | undefined; value: unknown }> = [];
  for (const w of writes) {
    if (w.channel !== "__interrupt__" || resumed.has(w.taskId)) continue;
    for (const v of Array.isArray(w.value) ? w.value : [w.value]) {
      const i = interruptOf(v);
      if (i) out.push({ taskId: w.taskId, ...i });
    }
  }
  return out;
}

/** The canonical interrupt of a pending LangGraph interrupt (see the module comment). */
function canonicalInterrupt(
  i: { id: string | undefined; value: unknown },
  messages: readonly AgentMessage[],
  step: number,
): InterruptData {
  const v = i.value;
  if (
    isObj(v) &&
    isObj(v.toolCall) &&
    typeof v.toolCall.toolCallId === "string" &&
    typeof v.toolCall.toolName === "string" &&
    typeof v.step === "number"
  )
    return v as InterruptData;
  const req =
    isObj(v) && Array.isArray(v.action_requests) && isObj(v.action_requests[0])
      ? (v.action_requests[0] as Obj)
      : undefined;
  if (req && typeof req.name === "string") {
    for (let k = messages.length - 1; k >= 0; k--) {
      const m = messages[k]!;
      if (m.role !== "assistant") continue;
      const call = (
        m as { content: Array<{ type: string; id?: string; name?: string; arguments?: unknown }> }
      ).content.find(
        (c) => c.type === "toolCall" && c.name === req.name && JSON.stringify(c.arguments) === JSON.stringify(req.args),
      );
      if (call) return { toolCall: { toolCallId: call.id!, toolName: req.name, args: req.args }, step };
      break;
    }
  }
  return { toolCall: { toolCallId: i.id ?? "", toolName: "interrupt", args: v }, step };
}

// ---- native → canonical ---------------------------------------------------------------------------------------

/** The canonical step of a tuple's metadata (−1, the input checkpoint, reads as 0). */
const stepOf = (metadata: unknown) =>
  Math.max(0, Math.trunc(isObj(metadata) && typeof metadata.step === "number" ? metadata.step : 0));

/**
 * What `ckpt search` reads of a tuple when it searches messages only (their text, tool calls and results): the
 * canonical checkpoint's thread, step and messages — each message converted as toCanonical converts it, without the
 * `ext` only writing it back reads (messageToCanonicalLean) — without the state and the rest of the tuple.
 */
export function searchView(t: { threadId: unknown; checkpoint: unknown; metadata: unknown }): Checkpoint {
  const cv = isObj(t.checkpoint) && isObj(t.checkpoint.channel_values) ? t.checkpoint.channel_values : {};
  const list = Array.isArray(cv.messages) ? (cv.messages as unknown[]) : [];
  const messages: AgentMessage[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) messages[i] = messageToCanonicalLean(list[i]);
  return { schemaVersion: 1, threadId: String(t.threadId), step: stepOf(t.metadata), messages, state: {} };
}

function toCanonical(doc: LgTupleDocument): Checkpoint {
  const cp = isObj(doc.checkpoint) ? (doc.checkpoint as LgCheckpoint) : ({} as LgCheckpoint);
  const cv = isObj(cp.channel_values) ? cp.channel_values : {};
  const list = cv.messages;
  const messages = Array.isArray(list) ? list.map(messageToCanonical) : [];
  const step = stepOf(doc.metadata);
  const state: Checkpoint["state"] = {};
  const stateKeys = stateChannels(cp);
  for (const k of stateKeys) state[k] = cv[k];
  const out: Checkpoint = { schemaVersion: 1, threadId: String(doc.threadId), step, messages, state };
  const pending = pendingInterrupts(Array.isArray(doc.pendingWrites) ? doc.pendingWrites : []);
  if (pending.length) out.interrupt = canonicalInterrupt(pending[0]!, messages, step);
  if (typeof cp.ts === "string" && ISO.test(cp.ts)) out.updatedAt = cp.ts;
  out.origin = { format: "langgraph", version: typeof doc.library === "string" ? doc.library : "unknown" };
  // the rest of the tuple, minus what the canonical fields carry
  const rest: Obj = { ...doc };
  delete rest.threadId;
  const restCp: Obj = { ...cp };
  const layout: Obj = {};
  // store bookkeeping (ids, versions, sizes, serde tags): kept with the layout records, so that a diff of two
  // checkpoints reports what changed in the conversation and the state, not the bookkeeping every step changes
  const book: Obj = {};
  for (const k of BOOK_DOC) if (k in rest) (book[k] = rest[k]), delete rest[k];
  for (const k of BOOK_CP) if (k in restCp) (((book.checkpoint ??= {}) as Obj)[k] = restCp[k]), delete restCp[k];
  if (isObj(doc.metadata) && "step" in doc.metadata) {
    const { step: rawStep, ...md } = doc.metadata;
    rest.metadata = md;
    book.step = rawStep;
    layout.metadataKeys = Object.keys(doc.metadata);
  }
  layout.store = book;
  const restCv: Obj = {};
  for (const k of Object.keys(cv))
    if (!(k === "messages" && Array.isArray(list)) && !stateKeys.includes(k)) restCv[k] = cv[k];
  restCp.channel_values = restCv;
  if (out.updatedAt !== undefined) delete restCp.ts;
  rest.checkpoint = restCp;
  if (isObj(doc.checkpoint)) {
    layout.checkpointKeys = Object.keys(cp);
    layout.channelKeys = Object.keys(cv);
  }
  layout.docKeys = Object.keys(doc);
  out.ext = { langgraph: { tuple: rest, _layout: layout } };
  const unreadable = unreadableOf(doc);
  if (unreadable.length) (out.ext.langgraph as Obj).unreadable = unreadable;
  return out;
}

/**
 * The parts of a tuple read in part (savers/langgraph: `loadAt` keeps a tuple whose channel values or pending writes
 * did not all come back, `partialIssues`): each named, with why, and whose inability it is.
 */
function unreadableOf(doc: LgTupleDocument): UnreadablePart[] {
  const out: UnreadablePart[] = [];
  for (const i of Array.isArray(doc.issues) ? doc.issues : []) {
    if (!i.fatal) continue;
    const ch = /^\/checkpoint\/channel_values\/([^/]+)$/.exec(i.pointer);
    const w = /^\/pendingWrites\/(\d+)\/value$/.exec(i.pointer);
    const write = w ? doc.pendingWrites?.[Number(w[1])] : undefined;
    const part = ch
      ? `channel '${ch[1]!.replace(/~1/g, "/").replace(/~0/g, "~")}'`
      : write
        ? `pending write of task ${write.taskId} to channel '${write.channel}'`
        : i.pointer;
    out.push({ pointer: i.pointer, part, message: i.message, cause: cannotRebuild(i) ? "ckpt" : "store" });
  }
  return out;
}

// ---- canonical → native ---------------------------------------------------------------------------------------

function ordered(o: Obj, order: unknown): Obj {
  if (!Array.isArray(order)) return o;
  const out: Obj = {};
  for (const k of order) if (typeof k === "string" && k in o) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out)) out[k] = o[k];
  return out;
}

/** A uuid6 (LANGGRAPH.md §2.3, JS clock-sequence layout) from a time, a step and a thread id: deterministic. */
export function uuid6For(ms: number, step: number, seed: string): string {
  const t = BigInt(ms) * 10000n + 0x01b21dd213814000n; // 100-ns ticks since 1582-10-15
  const hex = t.toString(16).padStart(15, "0").slice(-15);
  const seq =
    (((step >>> 8) | 0x80) & 0xff).toString(16).padStart(2, "0") + (step & 0xff).toString(16).padStart(2, "0");
  let h = 0x811c9dc5;
  let node = "";
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193) >>> 0;
    h = Math.imul(h ^ r, 0x01000193) >>> 0;
    node += (h & 0xffff).toString(16).padStart(4, "0");
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-6${hex.slice(12, 15)}-${seq}-${node}`;
}

/** A fresh JS-style tuple for a canonical checkpoint that did not come from LangGraph. */
function freshTuple(cp: Checkpoint): Obj {
  // the source's own time, else the messages' (a yoagent history has no checkpoint time, but its messages do)
  const when = envelopeTimes(cp).updatedAt;
  const ms = when !== undefined && !Number.isNaN(Date.parse(when)) ? Date.parse(when) : 0;
  const id = uuid6For(ms, cp.step, cp.threadId);
  const ts = new Date(ms).toISOString();
  return {
    format: "langgraph",
    formatVersion: 1,
    store: "",
    namespace: "",
    checkpointId: id,
    parentId: null,
    checkpoint: { v: 4, id, ts, channel_values: {}, channel_versions: {}, versions_seen: { __input__: {} } },
    metadata: { source: "update", step: cp.step, parents: {} },
    pendingWrites: [],
    library: "js",
    serde: { checkpoint: "json", metadata: "json" },
    bytes: 0,
    row: { store: "sqlite", table: "checkpoints", threadId: cp.threadId, namespace: "", checkpointId: id },
  };
}

function fromCanonical(cp: Checkpoint, lossy: LossSink): LgTupleDocument {
  const e = extOf(cp);
  const kept = isObj(e.tuple) ? e.tuple : undefined;
  const layout = isObj(e._layout) ? e._layout : {};
  const book = isObj(layout.store) ? layout.store : {};
  const doc: Obj = kept ? { ...kept } : freshTuple(cp);
  doc.threadId = cp.threadId;
  for (const k of BOOK_DOC) if (k in book) doc[k] = book[k];
  const c: Obj = {
    ...(isObj(doc.checkpoint) ? doc.checkpoint : {}),
    ...(isObj(book.checkpoint) ? book.checkpoint : {}),
  };
  const cv: Obj = { ...(isObj(c.channel_values) ? c.channel_values : {}) };
  const messages: unknown[] = [];
  cp.messages.forEach((m, i) => {
    const r = messageFromCanonical(m, `/messages/${i}`, lossy);
    if (r !== undefined) messages.push(r);
  });
  const hadMessages = Array.isArray(layout.channelKeys)
    ? layout.channelKeys.includes("messages") && !("messages" in cv)
    : true;
  if (messages.length > 0 || hadMessages || !kept) cv.messages = messages;
  for (const [k, v] of Object.entries(cp.state)) {
    if (v === undefined) continue;
    if (k === "todos" && Array.isArray(v) && v.length === 0 && !kept) continue; // deep-agent's empty defaults
    if (k === "files" && isObj(v) && Object.keys(v).length === 0 && !kept) continue;
    cv[k] = v;
  }
  c.channel_values = ordered(cv, layout.channelKeys);
  if (cp.updatedAt !== undefined) c.ts = cp.updatedAt;
  if (!kept) bumpVersions(c, Object.keys(cv));
  doc.checkpoint = ordered(c, layout.checkpointKeys);
  const md: Obj = { ...(isObj(doc.metadata) ? doc.metadata : {}) };
  if ("step" in book)
    md.step = typeof book.step === "number" && Math.max(0, Math.trunc(book.step)) === cp.step ? book.step : cp.step;
  else if (!kept || typeof md.step === "number") md.step = cp.step;
  doc.metadata = ordered(md, layout.metadataKeys);
  doc.pendingWrites = interruptWrites(
    cp,
    Array.isArray(doc.pendingWrites) ? (doc.pendingWrites as LgPendingWrite[]) : [],
  );
  for (const k of Object.keys(cp.ext ?? {}))
    if (k !== "langgraph")
      lossy.push({ pointer: `/ext/${k}`, field: k, reason: `a LangGraph checkpoint cannot carry ${k}-specific data` });
  if (cp.createdAt !== undefined && kept === undefined)
    lossy.push({
      pointer: "/createdAt",
      field: "createdAt",
      reason: "a LangGraph checkpoint has one time (ts, from updatedAt)",
    });
  return ordered(doc, layout.docKeys) as unknown as LgTupleDocument;
}

/** Integer versions (JS style) for the channels of a fresh checkpoint: every channel at version 1. */
function bumpVersions(c: Obj, channels: string[]): void {
  const cvs: Obj = {};
  for (const k of channels) cvs[k] = 1;
  c.channel_versions = cvs;
}

/** Pending writes for the canonical interrupt: kept when it still says the same, else replaced. */
function interruptWrites(cp: Checkpoint, writes: LgPendingWrite[]): LgPendingWrite[] {
  const pending = pendingInterrupts(writes);
  const now = pending.length ? canonicalInterrupt(pending[0]!, cp.messages, cp.step) : undefined;
  if (JSON.stringify(now) === JSON.stringify(cp.interrupt)) return writes;
  const open = new Set(pending.map((p) => p.taskId));
  const rest = writes.filter((w) => !(w.channel === "__interrupt__" && open.has(w.taskId)));
  if (!cp.interrupt) return rest;
  const tc = cp.interrupt.toolCall;
  const value = tc.toolName === "interrupt" ? tc.args : cp.interrupt;
  return [
    ...rest,
    {
      taskId: NULL_TASK_ID,
      idx: -3,
      channel: "__interrupt__",
      type: "json",
      value: [{ id: tc.toolCallId, value }],
      bytes: 0,
    },
  ];
}

// ---- the adapter -------------------------------------------------------------------------------------------

export const langgraphAdapter: FormatAdapter<LgTupleDocument> = {
  name: "langgraph",
  title: "LangGraph checkpoint (one decoded checkpoint tuple of a SQLite or PostgreSQL store; Python or JS)",
  extensions: [".json"],
  lossy: [
    "message timestamps",
    "assistant errorMessage",
    "toolCall providerMetadata",
    "extension messages of other formats",
    "createdAt (a LangGraph checkpoint has one time, ts)",
    "origin and ext of other formats",
  ],
  schema: "formats/langgraph/tuple",
  detectNeeds: { first: "{", anyOf: ['"langgraph"'] },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined || !/^\s*\{/.test(t)) return { confidence: 0 };
    return /"format"\s*:\s*"langgraph"/.test(t.slice(0, 512))
      ? { confidence: 1, version: /"library"\s*:\s*"(python|js)"/.exec(t)?.[1] ?? "unknown" }
      : { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a LangGraph checkpoint document is a single JSON text", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!isObj(v) || v.format !== "langgraph")
      throw inputError(
        "not-langgraph",
        'expected a LangGraph checkpoint document {"format":"langgraph", threadId, checkpoint, metadata, pendingWrites, …}',
        { file: doc.name, line: 1, column: 1 },
      );
    return v as unknown as LgTupleDocument;
  },
  toCanonical: (native) => toCanonical(native),
  unreadable: (cp) => {
    const u = (cp.ext?.langgraph as Obj | undefined)?.unreadable;
    return Array.isArray(u) ? (u as UnreadablePart[]) : [];
  },
  fromCanonical: (cp, { lossy }) => fromCanonical(cp, lossy),
  /** toCanonical's roles, tool-call and tool-result ids, usage and interrupt, without converting content. */
  lintView(native) {
    const cp = isObj(native.checkpoint) ? native.checkpoint : ({} as LgCheckpoint);
    const list =
      isObj(cp.channel_values) && Array.isArray(cp.channel_values.messages)
        ? (cp.channel_values.messages as unknown[])
        : [];
    const messages = list.map(lintMessageOf);
    const step =
      isObj(native.metadata) && typeof native.metadata.step === "number"
        ? Math.max(0, Math.trunc(native.metadata.step))
        : 0;
    const pending = pendingInterrupts(Array.isArray(native.pendingWrites) ? native.pendingWrites : []);
    if (!pending.length) return { threadId: String(native.threadId), messages };
    // the HITL match reads the last AI message only: convert just that one
    let k = list.length - 1;
    while (k >= 0 && !((isMappedMessage(list[k]) || plainMessageRecord(list[k])) && messages[k]!.role === "assistant"))
      k--;
    const last = k >= 0 ? [messageToCanonical(list[k])] : [];
    return { threadId: String(native.threadId), messages, interrupt: canonicalInterrupt(pending[0]!, last, step) };
  },
  messagePointers(native) {
    const list =
      isObj(native.checkpoint) && isObj(native.checkpoint.channel_values)
        ? native.checkpoint.channel_values.messages
        : undefined;
    return Array.isArray(list) ? list.map((_m, i) => `/checkpoint/channel_values/messages/${i}`) : [];
  },
  /**
   * A fresh tuple's ts derived from the messages (or the epoch), and usage_metadata's required total_tokens, which
   * the writer sums from the message's own counts
   */
  fillIns: {
    checkpoint: isEnvelopeFillIn,
    message(path, value, m) {
      if (path !== "usage/totalTokens") return false;
      const u = (m as { usage?: Record<string, unknown> }).usage ?? {};
      const n = (k: string) => (typeof u[k] === "number" ? (u[k] as number) : 0);
      return value === n("input") + n("cacheRead") + n("cacheWrite") + n("output");
    },
  },
  serialize: (native) => ({ text: stringifyJson(native, 2) + "\n" }),
};
