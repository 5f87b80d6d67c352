/**
 * Building decoded tuples (./types.ts) from raw store rows: SQLite `checkpoints`/`writes`, Postgres `checkpoints`
 * (JSONB) + `checkpoint_blobs` + `checkpoint_writes`. Pure: the savers do the SELECTs and hand the rows here.
 */
import type {
  LgChannelSource,
  LgCheckpoint,
  LgCheckpointTuple,
  LgDecodeIssue,
  LgHistoryEntry,
  LgMetadata,
  LgPendingWrite,
  LgRowRef,
  LgSerdeType,
} from "./types.js";
import { isRecord } from "./types.js";
import type { AesKey } from "./aes-key.js";
import type { ListDecoder } from "./list-decode.js";
import { compareVersions, decodeMetadata, decodeTyped, detectLibrary, messageCount, normalizeParsed } from "./serde.js";

export interface RawCheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  /** SQLite: the BLOB; Postgres: the JSONB, already parsed */
  checkpoint: Uint8Array | string | Record<string, unknown> | null;
  metadata: Uint8Array | string | Record<string, unknown> | null;
  /** stored size of checkpoint + metadata */
  bytes: number;
}

export interface RawWriteRow {
  task_id: string;
  idx: number;
  channel: string;
  type: string | null;
  value: Uint8Array | string | null;
  task_path?: string;
}

export interface RawBlobRow {
  channel: string;
  version: string;
  type: string;
  blob: Uint8Array | null;
  /** a `json` blob's UTF-8 text, when a scan's reader had the server check and send it (`blob` is then null) */
  text?: string;
}

export interface TableNames {
  checkpoints: string;
  writes: string;
  blobs?: string;
}

const esc = (s: string) => (s.includes("~") || s.includes("/") ? s.replace(/~/g, "~0").replace(/\//g, "~1") : s);
const size = (v: Uint8Array | string | null | undefined) =>
  v == null ? 0 : typeof v === "string" ? Buffer.byteLength(v) : v.byteLength;

function emptyCheckpoint(id: string): LgCheckpoint {
  return { v: 0, id, ts: "", channel_values: {}, channel_versions: {}, versions_seen: {} };
}

/**
 * The decoded checkpoint with the fields the contract guarantees present: a map that is not an object becomes {}
 * (a "shape" issue names it; a missing `channel_values` is normal in JS Postgres rows and is not reported).
 */
function shapeCheckpoint(v: unknown, id: string, ref: LgRowRef, issues: LgDecodeIssue[]): LgCheckpoint {
  if (!isRecord(v)) {
    if (v !== undefined)
      issues.push({
        row: ref,
        pointer: "/checkpoint",
        reason: "shape",
        message: "the checkpoint is not an object",
        fatal: true,
      });
    return emptyCheckpoint(id);
  }
  const cp = v as LgCheckpoint;
  for (const k of ["channel_values", "channel_versions", "versions_seen"] as const) {
    if (isRecord(cp[k])) continue;
    if (cp[k] !== undefined)
      issues.push({
        row: ref,
        pointer: `/checkpoint/${k}`,
        reason: "shape",
        message: `${k} is ${JSON.stringify(cp[k])?.slice(0, 40)}, not an object: read as {}`,
        fatal: true,
      });
    cp[k] = {};
  }
  return cp;
}

function decodeWrites(
  ref: LgRowRef,
  table: string,
  writes: RawWriteRow[],
  issues: LgDecodeIssue[],
  aesKey: AesKey | undefined,
): LgPendingWrite[] {
  return writes.map((w, i) => {
    // written out, in the keys' order of a spread of `ref`: V8 copies `{ ...ref, table }` (a key overridden) in its slow
    // path, ~20 µs a tuple on the bench store; this runs for every payload
    const row: LgRowRef = {
      store: ref.store,
      table,
      threadId: ref.threadId,
      namespace: ref.namespace,
      checkpointId: ref.checkpointId,
      taskId: w.task_id,
      idx: w.idx,
      channel: w.channel,
    };
    const value = decodeTyped(w.type as LgSerdeType | null, w.value, {
      row,
      pointer: `/pendingWrites/${i}/value`,
      issues,
      aesKey,
    });
    const out: LgPendingWrite = {
      taskId: w.task_id,
      idx: w.idx,
      channel: w.channel,
      type: w.type,
      value,
      bytes: size(w.value),
    };
    if (w.task_path !== undefined) out.taskPath = w.task_path;
    return out;
  });
}

/**
 * Postgres channel values (LANGGRAPH.md §1.3): inline JSONB values, then the blob rows of the checkpoint's
 * (channel, version) pairs on top (Python's reading; JS never writes inline values). `empty` rows are skipped.
 */
function reassemble(
  cp: LgCheckpoint,
  ref: LgRowRef,
  tables: TableNames,
  blobs: RawBlobRow[],
  issues: LgDecodeIssue[],
  o: TupleOptions,
): LgChannelSource[] {
  const byChannel = new Map<string, RawBlobRow>();
  for (const b of blobs) byChannel.set(b.channel, b);
  const sources: LgChannelSource[] = [];
  for (const [channel, version] of Object.entries(cp.channel_versions)) {
    const b = byChannel.get(channel);
    if (b && String(version) === b.version) {
      if (b.type === "empty") {
        sources.push({ channel, version, from: "empty", type: "empty", bytes: 0 });
        continue;
      }
      const row: LgRowRef = {
        store: ref.store,
        table: tables.blobs!,
        threadId: ref.threadId,
        namespace: ref.namespace,
        checkpointId: ref.checkpointId,
        channel,
        version: b.version,
      };
      const sink = { row, pointer: `/checkpoint/channel_values/${esc(channel)}`, issues, aesKey: o.aesKey };
      const { value, bytes } = o.lists
        ? o.lists.decode(row, channel, b, sink)
        : { value: decodeTyped(b.type, b.blob, sink), bytes: size(b.blob) };
      if (value !== undefined) cp.channel_values[channel] = value;
      sources.push({ channel, version, from: "blob", type: b.type, bytes });
    } else sources.push({ channel, version, from: channel in cp.channel_values ? "inline" : "none" });
  }
  return sources;
}

/** How a store's rows decode: its key, and (a scan's) the list decoder. */
export interface TupleOptions {
  /** the key of the store's encrypted rows (aes-key.ts); none: they do not open */
  aesKey?: AesKey;
  /** blob lists that extend the previous checkpoint's are decoded incrementally, their unchanged items shared with the previous tuple */
  lists?: ListDecoder;
}

/** A raw checkpoint row (+ its writes, + Postgres blob rows) → the decoded tuple. */
export function buildTuple(
  store: "sqlite" | "postgres",
  tables: TableNames,
  raw: RawCheckpointRow,
  writes: RawWriteRow[],
  blobs?: RawBlobRow[],
  o: TupleOptions = {},
): LgCheckpointTuple {
  const issues: LgDecodeIssue[] = [];
  const ref: LgRowRef = {
    store,
    table: tables.checkpoints,
    threadId: raw.thread_id,
    namespace: raw.checkpoint_ns,
    checkpointId: raw.checkpoint_id,
  };
  const type = raw.type as LgSerdeType | null;
  const parsed = isRecord(raw.checkpoint) && !(raw.checkpoint instanceof Uint8Array);
  const cpValue = parsed
    ? normalizeParsed(raw.checkpoint)
    : decodeTyped(type, raw.checkpoint as Uint8Array | string | null, {
        row: ref,
        pointer: "/checkpoint",
        issues,
        aesKey: o.aesKey,
      });
  const checkpoint = shapeCheckpoint(cpValue, raw.checkpoint_id, ref, issues);
  const mdParsed = isRecord(raw.metadata) && !(raw.metadata instanceof Uint8Array);
  const md = mdParsed
    ? raw.metadata
    : decodeMetadata(type, raw.metadata as Uint8Array | string | null, {
        row: ref,
        pointer: "/metadata",
        issues,
        aesKey: o.aesKey,
      });
  const metadata = (isRecord(md) ? md : {}) as LgMetadata;
  let bytes = raw.bytes;
  let channelSources: LgChannelSource[] | undefined;
  if (blobs) {
    channelSources = reassemble(checkpoint, ref, tables, blobs, issues, o);
    for (const s of channelSources) bytes += s.bytes ?? 0;
  }
  // indexed loops, each behind a length test: a store's rows come with writes and without, and an empty list's
  // array kind seen here after a full one (or the other way round) made V8 throw this function's optimized code away
  // and compile it again, four times over a 10,000-thread search
  const pendingWrites = writes.length ? decodeWrites(ref, tables.writes, writes, issues, o.aesKey) : [];
  for (let i = 0; i < pendingWrites.length; i++) bytes += pendingWrites[i]!.bytes;
  const serdeTags: Array<LgSerdeType | null> = [type];
  for (let i = 0; i < writes.length; i++) serdeTags.push(writes[i]!.type as LgSerdeType | null);
  if (blobs) for (let i = 0; i < blobs.length; i++) serdeTags.push(blobs[i]!.type);
  const t: LgCheckpointTuple = {
    threadId: raw.thread_id,
    namespace: raw.checkpoint_ns,
    checkpointId: raw.checkpoint_id,
    parentId: raw.parent_checkpoint_id ?? null,
    checkpoint,
    metadata,
    pendingWrites,
    library: detectLibrary(checkpoint, serdeTags),
    serde: { checkpoint: store === "sqlite" ? type : null, metadata: store === "sqlite" ? type : null },
    bytes,
    row: ref,
    issues,
  };
  if (channelSources) t.channelSources = channelSources;
  return t;
}

const TASKS = "__pregel_tasks";

/**
 * The v<4 pending-sends migration the savers apply on read (LANGGRAPH.md §1.3; js:sqlite:516-556,
 * js:pg/index.ts:513-546, py:pg/base.py:355-373): a checkpoint older than v4 with a parent gets the parent's
 * `__pregel_tasks` writes (`sends`, in the saver's order) as `channel_values.__pregel_tasks`, and that channel's
 * version becomes the highest of its versions (1 when it has none). Whether it applies (the JS SQLite saver: always,
 * also with no sends; the PostgreSQL savers: when the parent has sends) is the caller's.
 */
export function applyPendingSends(
  t: LgCheckpointTuple,
  sends: RawWriteRow[],
  table: string,
  aesKey: AesKey | undefined,
): void {
  const cp = t.checkpoint;
  if (!(typeof cp.v === "number" && cp.v < 4 && t.parentId)) return;
  const values: unknown[] = [];
  sends.forEach((w, i) => {
    const row: LgRowRef = {
      ...t.row,
      table,
      checkpointId: t.parentId!,
      taskId: w.task_id,
      idx: w.idx,
      channel: w.channel,
    };
    values.push(
      decodeTyped(w.type as LgSerdeType | null, w.value, {
        row,
        pointer: `/checkpoint/channel_values/${TASKS}/${i}`,
        issues: t.issues,
        aesKey,
      }),
    );
  });
  const versions = Object.values(cp.channel_versions);
  cp.channel_values[TASKS] = values;
  cp.channel_versions[TASKS] = versions.length ? versions.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b)) : 1;
}

/**
 * The nodes that wrote a checkpoint: legacy `metadata.writes` keys when present; else the nodes whose
 * `versions_seen` changed from the parent (a node's entry is updated when it runs); `__input__` for input checkpoints.
 */
export function writerNodes(t: LgCheckpointTuple, parent: LgCheckpointTuple | undefined): string[] {
  const w = t.metadata.writes;
  if (isRecord(w)) return Object.keys(w);
  if (t.metadata.source === "input") return ["__input__"];
  const seen = t.checkpoint.versions_seen;
  const before = parent?.checkpoint.versions_seen ?? {};
  const out: string[] = [];
  for (const node of Object.keys(seen)) {
    if (node === "__input__" || node === "__interrupt__") continue;
    if (JSON.stringify(seen[node]) !== JSON.stringify(before[node])) out.push(node);
  }
  return out;
}

export function historyEntry(t: LgCheckpointTuple, parent: LgCheckpointTuple | undefined): LgHistoryEntry {
  return {
    threadId: t.threadId,
    namespace: t.namespace,
    checkpointId: t.checkpointId,
    parentId: t.parentId,
    step: typeof t.metadata.step === "number" ? t.metadata.step : null,
    source: typeof t.metadata.source === "string" ? t.metadata.source : null,
    ts: typeof t.checkpoint.ts === "string" && t.checkpoint.ts ? t.checkpoint.ts : null,
    nodes: writerNodes(t, parent),
    messages: messageCount(t.checkpoint.channel_values),
    bytes: t.bytes,
    pendingWrites: t.pendingWrites.length,
    interrupted: t.pendingWrites.some((w) => w.channel === "__interrupt__"),
  };
}
