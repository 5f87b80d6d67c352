/**
 * LangGraph `DeltaChannel` values (langgraph ≥ 1.2, Python `langgraph.channels.delta`, JS `channels/delta`), rebuilt
 * exactly as the libraries rebuild them. Pure: the reader walks the parent chain and hands the ancestors here.
 *
 * What the store holds: a delta channel's checkpoint value is absent, except at a snapshot (every
 * `snapshot_frequency` updates), where `channel_values[ch]` is the whole value wrapped — Python msgpack EXT 7
 * `_DeltaSnapshot`, JS `{lc:2, type:"delta_snapshot", value}`; both decode to the JS record (./serde.ts). Every
 * checkpoint's metadata carries `counters_since_delta_snapshot: {ch: [updates, supersteps]}`, except the one that
 * took the snapshot. Python's PostgresSaver keeps the inline sentinel `ch: true` and the snapshot in a blob row.
 *
 * The value at checkpoint X (`get_delta_channel_history` + `DeltaChannel.replay_writes`, both libraries):
 * 1. X stores a value (a snapshot, or a plain pre-delta value) → that value;
 * 2. else walk X's parents (not id order: a fork sees only its branch) to the nearest ancestor that stores one (the
 *    seed; none → empty); the channel's pending writes of every ancestor from X's parent up to and including the seed
 *    ancestor, oldest first (within one checkpoint in the saver's order: task_path, task_id, idx), are applied to the
 *    seed by the channel's reducer in one call; the last `Overwrite` among them resets the base. X's own writes are
 *    pending for the next step and not applied.
 * The reducer is batching-invariant (a library requirement), so the value at X is also the value at X's parent with
 * the parent's writes applied: a reader that already rebuilt the parent (a scan in id order) passes it as the seed.
 *
 * The messages reducers: Python `_messages_delta_reducer` (langgraph 1.2.12) and JS `messagesDeltaReducer`
 * (@langchain/langgraph 1.7.3) — flatten the writes one level; a message whose id is already there replaces it; a
 * RemoveMessage removes the message with its id (unknown ids are ignored); messages without an id are appended.
 * They differ on `RemoveMessage(id="__remove_all__")`: JS clears everything before it, Python 1.2.12 ignores it (its
 * docstring: "not full add_messages parity — REMOVE_ALL_MESSAGES … not handled").
 *
 * deepagents (Python ≥ 0.3 on langgraph ≥ 1.2, `deepagents/_delta_channel.py`, `middleware/filesystem.py`) declares two
 * delta channels with reducers of its own, both public and stable:
 * - `messages`: `deepagents._messages_reducer._messages_delta_reducer` — the messages reducer above, and it resets on
 *   `__remove_all__` (everything before the last one goes) in Python too;
 * - `files`: `_file_data_delta_reducer` — each write is a dict `{path: FileData | None}` merged into the value in order,
 *   a `None` deleting the path (JS deepagents' `fileDataReducer`, applied write by write, is the same).
 * A thread is deepagents' when its delta channels include `files` (`DeltaReplayContext.deepagents`). The file-data
 * reducer is used only on writes of deepagents' shape (records of FileData or null): any other delta channel whose
 * writes are not messages has a reducer ckpt cannot know — it is reported as ckpt's own inability, never guessed.
 */
import type { LgCheckpointTuple, LgDecodeIssue, LgLibrary, LgPendingWrite } from "./types.js";
import { isLc2Constructor, isRecord } from "./types.js";

export const DELTA_COUNTERS = "counters_since_delta_snapshot";
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/** How a tuple's delta channel got its value (kept on the tuple as `delta[channel]`). */
export interface DeltaValueInfo {
  /** snapshot: stored at this checkpoint; writes: rebuilt from a seed and the writes after it */
  from: "snapshot" | "writes";
  /** the checkpoint whose stored value was the seed (null: none on the chain, the value started empty) */
  seed?: string | null;
  /** writes applied on the seed */
  writes?: number;
  /** ancestors walked */
  walked?: number;
}

export interface DeltaSnapshotRecord {
  lc: 2;
  type: "delta_snapshot";
  value: unknown;
}

export function isDeltaSnapshot(v: unknown): v is DeltaSnapshotRecord {
  return isRecord(v) && v.lc === 2 && v.type === "delta_snapshot" && "value" in v;
}

/** The delta channels named by a checkpoint's metadata counters. */
export function countedDeltaChannels(t: Pick<LgCheckpointTuple, "metadata">): string[] {
  const c = t.metadata[DELTA_COUNTERS];
  return isRecord(c) ? Object.keys(c) : [];
}

/**
 * Replace the snapshots in `channel_values` by their values (recorded in `t.delta`); returns the channels unwrapped.
 * The snapshot record itself is left as it is (PostgreSQL scans share decoded values between tuples).
 */
export function unwrapSnapshots(t: LgCheckpointTuple): string[] {
  const cv = t.checkpoint.channel_values;
  const out: string[] = [];
  for (const ch of Object.keys(cv)) {
    const v = cv[ch];
    if (!isDeltaSnapshot(v)) continue;
    cv[ch] = v.value;
    (t.delta ??= {})[ch] = { from: "snapshot" };
    out.push(ch);
  }
  return out;
}

/**
 * The channels whose value at `t` the ancestor walk rebuilds: delta channels (named by the metadata counters) with
 * nothing stored at `t`. JS marks branches whose delta writes all carry a version (`delta_writes_versioned`): there a
 * channel without a version was never written and is empty without a walk (js channels/base.js deltaChannelsToReplay).
 */
export function deltaChannelsToReplay(t: LgCheckpointTuple): string[] {
  const cv = t.checkpoint.channel_values;
  const versioned = t.metadata.delta_writes_versioned === true;
  return countedDeltaChannels(t).filter(
    (ch) => !(ch in cv) && (!versioned || t.checkpoint.channel_versions[ch] !== undefined),
  );
}

/**
 * A stored value as a seed: a snapshot's value, a plain value as is. Python PostgreSQL's inline sentinel `true` with
 * no blob row under it is not a value: undefined (the caller reports the missing snapshot).
 */
export function seedOf(v: unknown): { value: unknown } | undefined {
  if (isDeltaSnapshot(v)) return { value: v.value };
  if (v === true) return undefined;
  return { value: v };
}

const codePoints = (a: string, b: string): number => {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return i >= a.length ? (j >= b.length ? 0 : -1) : 1;
};

/** One checkpoint's writes to `channel` in the libraries' replay order (task_path, task_id, idx; `writesSortKey`). */
export function channelWrites(writes: readonly LgPendingWrite[], channel: string): LgPendingWrite[] {
  const mine = writes.filter((w) => w.channel === channel);
  if (mine.length < 2) return mine;
  return mine.sort(
    (a, b) => codePoints(a.taskPath ?? "", b.taskPath ?? "") || codePoints(a.taskId, b.taskId) || a.idx - b.idx,
  );
}

// ---- the reducers -----------------------------------------------------------------------------------------------

/** `Overwrite(value)`: Python EXT dataclass, `{"__overwrite__": v}`, or `{"type": "__overwrite__", "value": v}`. */
export function overwriteOf(v: unknown): { value: unknown } | undefined {
  if (isLc2Constructor(v, "Overwrite")) return { value: v.kwargs.value ?? v.args[0] };
  if (!isRecord(v)) return undefined;
  if ("__overwrite__" in v && Object.keys(v).length === 1) return { value: v.__overwrite__ };
  if (v.type === "__overwrite__" && "value" in v) return { value: v.value };
  return undefined;
}

const LC_MESSAGE = (v: Record<string, unknown>) =>
  v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) && isRecord(v.kwargs);
/** `/(Message|MessageChunk)$/`, as two tests of the end (no regular expression run per message) */
const isMessageClass = (name: string) => name.endsWith("Message") || name.endsWith("MessageChunk");

/** A value LangChain's `convert_to_messages` takes as one message (a record, a role/type dict, a string, a pair). */
export function isMessageLike(v: unknown): boolean {
  if (typeof v === "string") return true;
  if (Array.isArray(v)) return v.length === 2 && typeof v[0] === "string";
  if (!isRecord(v)) return false;
  if (LC_MESSAGE(v)) return isMessageClass(String((v.id as unknown[])[(v.id as unknown[]).length - 1]));
  return typeof v.role === "string" || typeof v.type === "string";
}

function messageId(m: unknown): string | undefined {
  if (!isRecord(m)) return undefined;
  const id = LC_MESSAGE(m) ? (m.kwargs as Record<string, unknown>).id : m.id;
  return typeof id === "string" ? id : undefined;
}

function isRemoveMessage(m: unknown): boolean {
  if (!isRecord(m)) return false;
  if (LC_MESSAGE(m)) return (m.id as unknown[])[(m.id as unknown[]).length - 1] === "RemoveMessage";
  return m.type === "remove";
}

/** The messages delta reducer of `library` (see the module comment): state + one batch of writes → new list. */
export function messagesDeltaReducer(
  state: readonly unknown[],
  writes: readonly unknown[],
  library: LgLibrary,
): unknown[] {
  const flat: unknown[] = [];
  for (const w of writes) {
    if (Array.isArray(w) && !(w.length === 2 && typeof w[0] === "string" && typeof w[1] === "string")) flat.push(...w);
    else flat.push(w);
  }
  const result: Array<unknown | null> = [...state];
  const index = new Map<string, number>();
  result.forEach((m, i) => {
    const id = messageId(m);
    if (id !== undefined) index.set(id, i);
  });
  for (const m of flat) {
    const id = messageId(m);
    const remove = isRemoveMessage(m);
    if (remove && id === REMOVE_ALL_MESSAGES && library !== "python") {
      result.length = 0;
      index.clear();
    } else if (id === undefined) result.push(m);
    else if (remove) {
      const i = index.get(id);
      if (i !== undefined) {
        result[i] = null;
        index.delete(id);
      }
    } else {
      const i = index.get(id);
      if (i !== undefined) result[i] = m;
      else {
        index.set(id, result.length);
        result.push(m);
      }
    }
  }
  return result.filter((m) => m !== null);
}

/**
 * `messagesDeltaReducer(state, writes, library).length`, counted: the same walk over the same messages, keeping only
 * the ids present and how many messages there are. The reducer's list holds one message per id in its index (a
 * replaced message keeps its slot, a removed one leaves it) and every message without an id; its index maps an id
 * to one slot, so a removal takes exactly one message, once. test/langgraph-delta-count.test.ts holds the two equal.
 */
export function messagesDeltaCount(state: readonly unknown[], writes: readonly unknown[], library: LgLibrary): number {
  let n = state.length;
  const ids = new Set<string>();
  for (const m of state) {
    const id = messageId(m);
    if (id !== undefined) ids.add(id);
  }
  const one = (m: unknown) => {
    const id = messageId(m);
    const remove = isRemoveMessage(m);
    if (remove && id === REMOVE_ALL_MESSAGES && library !== "python") {
      n = 0;
      ids.clear();
    } else if (id === undefined) n++;
    else if (remove) {
      if (ids.delete(id)) n--;
    } else if (!ids.has(id)) {
      ids.add(id);
      n++;
    }
  };
  for (const w of writes) {
    if (Array.isArray(w) && !(w.length === 2 && typeof w[0] === "string" && typeof w[1] === "string"))
      for (const m of w) one(m);
    else one(w);
  }
  return n;
}

/** What a replay knows of the thread beside the values: the writing library, and whether deepagents declared it. */
export interface DeltaReplayContext {
  library: LgLibrary;
  /** the thread's delta channels include `files`: deepagents' (see the module comment) */
  deepagents?: boolean;
}

const FILE_DATA_KEYS = new Set(["content", "encoding", "created_at", "modified_at", "mimeType"]);

/** deepagents' FileData: `{content: str | list[str], encoding?, created_at?, modified_at?}` (JS adds `mimeType`). */
export function isFileData(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const c = v.content;
  if (typeof c !== "string" && !(Array.isArray(c) && c.every((x) => typeof x === "string"))) return false;
  return Object.keys(v).every((k) => FILE_DATA_KEYS.has(k));
}

/** A write to deepagents' `files`: `{path: FileData | null}`. */
export function isFileDataUpdate(v: unknown): boolean {
  return isRecord(v) && !isDeltaSnapshot(v) && Object.values(v).every((x) => x === null || isFileData(x));
}

/** deepagents' `_file_data_delta_reducer`: each write merged in order, a null deleting its path. */
export function fileDataDeltaReducer(
  state: Readonly<Record<string, unknown>> | undefined,
  writes: readonly unknown[],
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...(state ?? {}) };
  for (const w of writes)
    for (const [path, data] of Object.entries(w as Record<string, unknown>)) {
      if (data === null) delete result[path];
      else result[path] = data;
    }
  return result;
}

/** Why a delta channel's value cannot be rebuilt by ckpt (its reducer is one ckpt does not know). */
export const UNKNOWN_REDUCER =
  "its writes are neither LangChain messages nor deepagents' file updates, so its reducer is the graph's own (not stored) and ckpt does not know it";

/** How `replayDelta` settles a replay: a value as it is, a reason, or one of the two reducers on a base. */
type ReplayPlan =
  | { value: unknown }
  | { reason: string }
  | { files: Record<string, unknown> | undefined; rest: unknown[] }
  | { messages: unknown[]; rest: unknown[]; library: LgLibrary };

function replayPlan(seed: unknown, values: readonly unknown[], context: LgLibrary | DeltaReplayContext): ReplayPlan {
  const ctx = typeof context === "string" ? { library: context } : context;
  let base = seed;
  let start = 0;
  values.forEach((v, i) => {
    const o = overwriteOf(v);
    if (o) {
      base = o.value ?? undefined;
      start = i + 1;
    }
  });
  const rest = start === 0 ? (values as unknown[]) : values.slice(start);
  const messages = (x: unknown) => (Array.isArray(x) ? x.every(isMessageLike) : isMessageLike(x));
  const asFiles = isRecord(base) && !Array.isArray(base) ? Object.values(base).every(isFileData) : base === undefined;
  if (rest.length > 0 && asFiles && rest.every(isFileDataUpdate))
    return { files: base as Record<string, unknown> | undefined, rest };
  if (rest.length === 0 && isRecord(base)) return { value: base };
  const list = base === undefined ? [] : base;
  if (rest.length === 0) return { value: list };
  if (!Array.isArray(list) || !list.every(isMessageLike) || !rest.every(messages)) return { reason: UNKNOWN_REDUCER };
  // deepagents' messages reducer resets on remove-all in Python too
  return { messages: list, rest, library: ctx.deepagents ? "js" : ctx.library };
}

/**
 * `DeltaChannel.replay_writes`: the write values applied to the seed in one reducer call, from the last Overwrite on.
 * `{reason}` when the reducer is not one ckpt knows (see the module comment).
 */
export function replayDelta(
  seed: unknown,
  values: readonly unknown[],
  context: LgLibrary | DeltaReplayContext,
): { value: unknown } | { reason: string } {
  const p = replayPlan(seed, values, context);
  if ("files" in p) return { value: fileDataDeltaReducer(p.files, p.rest) };
  if ("messages" in p) return { value: messagesDeltaReducer(p.messages, p.rest, p.library) };
  return p;
}

/**
 * The length of the list `replayDelta` gives (undefined: it gives a reason or a value that is not a list), without
 * building the list: `messagesDeltaCount` for the messages reducer.
 */
export function replayDeltaCount(
  seed: unknown,
  values: readonly unknown[],
  context: LgLibrary | DeltaReplayContext,
): number | undefined {
  const p = replayPlan(seed, values, context);
  if ("messages" in p) return messagesDeltaCount(p.messages, p.rest, p.library);
  return "value" in p && Array.isArray(p.value) ? p.value.length : undefined;
}

// ---- the rebuild ------------------------------------------------------------------------------------------------

/** What the reader found walking the parent chain of one checkpoint for one channel. */
export interface DeltaWalk {
  /** the seed: the value stored at `seedId`, or the value already rebuilt there; undefined when the walk found none */
  seed?: { value: unknown };
  /** the checkpoint the seed came from (null: the walk reached the first checkpoint without finding a stored value) */
  seedId: string | null;
  /** the channel's writes of the ancestors walked, oldest first */
  writes: LgPendingWrite[];
  walked: number;
  /** why the walk stopped short: the parent id that does not exist, a cycle, or a sentinel with no snapshot */
  broken?: { kind: "missing-parent" | "cycle" | "missing-snapshot"; id: string };
}

/** Set `t`'s value of `channel` from the walk (or report why it cannot be rebuilt, leaving the channel absent). */
export function applyDeltaWalk(t: LgCheckpointTuple, channel: string, walk: DeltaWalk): void {
  const issue = (reason: string, message: string) => {
    const d: LgDecodeIssue = {
      row: t.row,
      pointer: `/checkpoint/channel_values/${channel.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      reason,
      message,
      fatal: true,
    };
    t.issues.push(d);
  };
  if (walk.broken) {
    const b = walk.broken;
    const why =
      b.kind === "cycle"
        ? `the parent chain loops back to checkpoint ${b.id}`
        : b.kind === "missing-parent"
          ? `ancestor checkpoint ${b.id} does not exist (pruned or lost)`
          : `checkpoint ${b.id} marks a delta snapshot (inline true) but has no checkpoint_blobs row for it`;
    issue(
      "delta-missing-snapshot",
      `DeltaChannel '${channel}' cannot be rebuilt: ${why}, so the snapshot its ${walk.writes.length} write(s) build on is not there`,
    );
    return;
  }
  const bad = walk.writes.find((w) => w.value === undefined);
  if (bad) {
    issue(
      "delta-replay",
      `DeltaChannel '${channel}' cannot be rebuilt: its write task=${bad.taskId} idx=${bad.idx} did not decode`,
    );
    return;
  }
  const r = replayDelta(
    walk.seed?.value,
    walk.writes.map((w) => w.value),
    { library: t.library, deepagents: countedDeltaChannels(t).includes("files") },
  );
  if ("reason" in r) {
    issue("delta-reducer", `DeltaChannel '${channel}' cannot be rebuilt: ${r.reason}`);
    return;
  }
  t.checkpoint.channel_values[channel] = r.value;
  (t.delta ??= {})[channel] = { from: "writes", seed: walk.seedId, writes: walk.writes.length, walked: walk.walked };
}
