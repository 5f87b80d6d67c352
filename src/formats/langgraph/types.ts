/**
 * LangGraph checkpoint data as ckpt decodes it: the contract between the store reader (src/savers/langgraph*),
 * the `langgraph` format adapter (LangChain messages ⇄ canonical), the writers/migrators and the viewer.
 * Pure types and tiny pure helpers; no I/O. Reference: /work/shared/LANGGRAPH.md (§ numbers below).
 *
 * Normal form of decoded values — the same whichever library/serde wrote the row:
 * - JSON-compatible values only (objects, arrays, strings, numbers, booleans, null): a decoded tuple can be
 *   `JSON.stringify`-ed as is. Channel versions keep their stored type (Python padded strings, JS integers, §3).
 * - LangChain messages (Python msgpack EXT 5 `langchain_core.messages.*`, JS lc:1 records, pre-2024 Python lc:1
 *   records with ids like `["langchain","schema","messages","HumanMessage"]`) become the JS lc:1 constructor
 *   record `{lc:1, type:"constructor", id:["langchain_core","messages",<Class>], kwargs}` (see `LcMessage`).
 *   From Python: kwargs = `model_dump()` minus `type`, `example` and null-valued keys (what JS `toJSON` omits, §9).
 * - Every other Python msgpack extension (§5.2) becomes an lc:2 constructor record, the shape Python's own JSON
 *   serde and JS's lc:2 records use, plus `ext` = the msgpack extension code so an encoder can rebuild the exact
 *   bytes: EXT 0 → args [arg]; EXT 1 → args; EXT 2 → kwargs; EXT 3 → method + args [arg]; EXT 4/5 → kwargs
 *   (+ method for 5); EXT 6 (numpy) → args [dtype, shape, order, bytes-record]; EXT 7 → `{lc:2, type:"delta_snapshot", value}`.
 *   `id` is `[...module.split("."), name]` (Python's convention), e.g. `["uuid","UUID"]`, `["langgraph","types","Interrupt"]`.
 * - Raw bytes (a `bytes`/`bytearray` payload, or msgpack bin inside a value) become the JS lc:2 Uint8Array record
 *   `{lc:2, type:"constructor", id:["Uint8Array"], method:"from", args:[[...byte values]], kwargs:{}}`.
 * - JS `{lc:2, type:"undefined"}` object properties are dropped (JS revives them as absent, e.g. ToolMessage.artifact);
 *   other JS lc:2 records (Set/Map/RegExp/Error/Uint8Array constructors, delta_snapshot, undefined in arrays) stay as stored.
 * - A `null` type decodes to `null`; an `empty` PG blob means "no value" (the channel is absent from channel_values).
 * - Python msgpack maps with non-string keys: integer keys become their decimal string, other keys (tuples) the
 *   JSON text of the key (lossy; reported as a `LgDecodeIssue` with reason "map-key").
 * - Integers outside ±2^53 decode to the nearest double and are reported (reason "big-int").
 * Helpers below (`interruptOf`, `sendOf`, `isLcMessage`) read the shapes that still differ by library.
 */
import type { AesKey } from "./aes-key.js";

/** Which library wrote a row (from its serde tags, version types and ids; "unknown" when nothing tells). */
export type LgLibrary = "python" | "js" | "unknown";

/** The `type` column values (§5.1); other strings (e.g. `msgpack+aes`, `pickle`) are kept as read. */
export type LgSerdeType = "json" | "msgpack" | "null" | "empty" | "bytes" | "bytearray" | "pickle" | (string & {});

/** Where a row lives, for findings and for writers. `table` is the store's table name. */
export interface LgRowRef {
  store: "sqlite" | "postgres";
  /** "checkpoints" | "writes" | "checkpoint_writes" | "checkpoint_blobs" */
  table: string;
  threadId: string;
  namespace: string;
  checkpointId?: string;
  /** writes */
  taskId?: string;
  idx?: number;
  /** writes, blobs */
  channel?: string;
  /** blobs: the version text (the join key) */
  version?: string;
}

/** A payload that did not decode, or decoded lossily. The value it belonged to is `undefined` when `fatal`. */
export interface LgDecodeIssue {
  row: LgRowRef;
  /** JSON pointer of the value inside the decoded tuple document, e.g. "/checkpoint/channel_values/messages" */
  pointer: string;
  /** "unknown-type" | "msgpack" | "json" | "encrypted" | "pickle" | "map-key" | "big-int" | "ext" | "missing-blob" */
  reason: string;
  message: string;
  /** true: the value is missing from the tuple; false: decoded with a loss */
  fatal: boolean;
}

export type LgVersion = number | string;

/** The Checkpoint object (§2.1), decoded; Postgres channel values reassembled (§1.3, see `LgChannelSource`). */
export interface LgCheckpoint {
  v: number;
  id: string;
  ts: string;
  channel_values: Record<string, unknown>;
  channel_versions: Record<string, LgVersion>;
  versions_seen: Record<string, Record<string, LgVersion>>;
  /** v ≤ 3 only */
  pending_sends?: unknown[];
  /** Python since 2025-08 */
  updated_channels?: string[] | null;
  [key: string]: unknown;
}

/** CheckpointMetadata (§2.5): source/step/parents plus whatever the library copied in. */
export interface LgMetadata {
  source?: "input" | "loop" | "update" | "fork" | (string & {});
  step?: number;
  parents?: Record<string, string>;
  /** legacy (v1 era) */
  writes?: unknown;
  [key: string]: unknown;
}

/** One pending write (§4), in the saver's read order (task_id, idx). */
export interface LgPendingWrite {
  taskId: string;
  idx: number;
  channel: string;
  /** the row's type tag */
  type: LgSerdeType | null;
  /** decoded value (normal form); undefined when it failed to decode (see the tuple's `issues`) */
  value: unknown;
  /** Python Postgres (migration 9) only */
  taskPath?: string;
  /** stored payload size in bytes */
  bytes: number;
}

/**
 * Postgres only: where each channel of `channel_versions` got its value (LANGGRAPH.md §1.3, rule 14).
 * inline = the JSONB `checkpoint.channel_values` (Python primitives); blob = a `checkpoint_blobs` row;
 * empty = an `empty` blob row; none = no row and no inline value (legal for Python: empty channel).
 */
export interface LgChannelSource {
  channel: string;
  version: LgVersion;
  from: "inline" | "blob" | "empty" | "none";
  type?: LgSerdeType;
  bytes?: number;
}

/** One checkpoint with everything hanging off it: what `getTuple` returns, decoded and normalized. */
export interface LgCheckpointTuple {
  threadId: string;
  /** checkpoint_ns: "" for the root graph, "<node>:<task id>" for subgraphs (§2.4) */
  namespace: string;
  checkpointId: string;
  parentId: string | null;
  checkpoint: LgCheckpoint;
  metadata: LgMetadata;
  pendingWrites: LgPendingWrite[];
  library: LgLibrary;
  /** type tags as stored: checkpoint (SQLite column; null in Postgres, JSONB), metadata (JSON/JSONB) */
  serde: { checkpoint: LgSerdeType | null; metadata: LgSerdeType | null };
  /** stored bytes of this checkpoint: checkpoint + metadata + its writes (+ the blob rows it references, Postgres) */
  bytes: number;
  /** the checkpoints row */
  row: LgRowRef;
  /** Postgres: per-channel provenance of channel_values */
  channelSources?: LgChannelSource[];
  /** payloads that failed to decode or decoded lossily; empty when all is well */
  issues: LgDecodeIssue[];
  /** DeltaChannel values (./delta.ts): how each got its value in `channel_values` (a snapshot, or rebuilt from writes) */
  delta?: Record<string, import("./delta.js").DeltaValueInfo>;
}

/** A lighter row for history listings (`ckpt log`): no channel values decoded beyond the message count. */
export interface LgHistoryEntry {
  threadId: string;
  namespace: string;
  checkpointId: string;
  parentId: string | null;
  step: number | null;
  source: string | null;
  ts: string | null;
  /** node(s) whose writes produced this checkpoint: metadata.writes keys, else the parent's pending-write task channels' nodes (see reader) */
  nodes: string[];
  /** messages in channel_values.messages (null when there is no messages channel) */
  messages: number | null;
  bytes: number;
  pendingWrites: number;
  /** an `__interrupt__` write hangs off this checkpoint */
  interrupted: boolean;
}

/** One thread of a store (`ckpt ls`): aggregated over its root namespace; `namespaces` counts subgraph namespaces. */
export interface LgThreadSummary {
  threadId: string;
  checkpoints: number;
  /** checkpoints in subgraph namespaces (not counted in `checkpoints`) */
  subgraphCheckpoints: number;
  namespaces: number;
  newestId: string | null;
  newestStep: number | null;
  /** messages of the newest root checkpoint */
  messages: number | null;
  /** stored bytes of the newest root checkpoint (checkpoint + metadata + its writes; Postgres: + the blob rows it references), like the document size other stores list */
  bytes: number;
  /** ts of the newest root checkpoint */
  updatedAt: string | null;
  library: LgLibrary;
  /** the DeltaChannels the newest root checkpoint's metadata counts (`counters_since_delta_snapshot`), if any */
  deltaChannels?: string[];
}

export interface LgStoreInfo {
  store: "sqlite" | "postgres";
  /** Postgres: max(checkpoint_migrations.v) (4 = JS, 9 = Python); undefined for SQLite */
  migration?: number;
  /** Postgres: checkpoint_writes.task_path exists */
  taskPath?: boolean;
  /** Postgres: the schema read */
  schema?: string;
  /** ShallowPostgresSaver layout (no checkpoint_id column) */
  shallow?: boolean;
}

export interface LgListOptions {
  threadId?: string;
  /** undefined = every namespace */
  namespace?: string;
  /** checkpoint ids lower than this (paging, like the libraries' `before`) */
  before?: string;
  limit?: number;
}

/**
 * A read-only LangGraph store (implemented in src/savers/langgraph*). Every iterator streams in bounded batches:
 * memory does not grow with the number of checkpoints or threads.
 */
export interface LgReader {
  readonly uri: string;
  readonly info: LgStoreInfo;
  /** the key of the store's encrypted rows (`OpenOptions.aesKey`), handed to every decode of its rows */
  readonly aesKey?: AesKey;
  /** threads in ascending thread id order */
  threads(options?: { after?: string; limit?: number }): AsyncIterable<LgThreadSummary>;
  /** checkpoints newest first (checkpoint_id DESC), like the libraries' `list()` */
  list(options?: LgListOptions): AsyncIterable<LgCheckpointTuple>;
  /** how many threads the store holds */
  countThreads(): Promise<number>;
  /** the checkpoint namespaces of one thread ("" the root graph first, then subgraphs in order); [] for no thread */
  namespacesOf(threadId: string): Promise<string[]>;
  /** checkpoint ids (with parents) of one thread+namespace, newest first, without decoding anything */
  checkpointIds(threadId: string, namespace?: string): AsyncIterable<{ checkpointId: string; parentId: string | null }>;
  /** history entries of one thread+namespace, newest first */
  history(threadId: string, namespace?: string): AsyncIterable<LgHistoryEntry>;
  /** one checkpoint: the newest of (thread, namespace) when `checkpointId` is undefined */
  getTuple(threadId: string, namespace?: string, checkpointId?: string): Promise<LgCheckpointTuple | undefined>;
  /**
   * Optional: the newest checkpoint of each of `threadIds` in `namespace` ("" the root graph), as `getTuple` gives
   * it, the page's rows fetched in one round trip and each decoded only when its function is called (a thread
   * without one is absent from the map). `text`: a test of a JSON text (false: nothing searched for is in it); a
   * thread whose rows are JSON texts that decode and that it rules out may be left out undecoded (SQLite)
   */
  newestTuples?(
    threadIds: readonly string[],
    namespace: string,
    o?: { text?: (s: string) => boolean },
  ): Promise<Map<string, () => Promise<LgCheckpointTuple>>>;
  /**
   * every checkpoint of the store in (thread, namespace, id) order, for validate and migrate; batches of tuples.
   * Tuples of one (thread, namespace) may share the unchanged items of a list channel (PostgreSQL: a `messages` blob
   * that extends the previous checkpoint's holds the previous items themselves): values are read, never changed
   */
  scan(options?: { batchSize?: number; threadId?: string }): AsyncIterable<LgCheckpointTuple[]>;
  /** writes whose checkpoint row does not exist (rule 8), streamed */
  orphanWrites(): AsyncIterable<LgRowRef>;
  /** Postgres: blob rows referenced by no checkpoint (rule 15), streamed; SQLite: nothing */
  orphanBlobs(): AsyncIterable<LgRowRef>;
  /**
   * Optional, for DeltaChannel walks (./delta.ts): the parent chain from `fromId` (included), nearest first, with each
   * checkpoint's stored value of `channel` and its writes to it, in one round trip; the chain ends at the first
   * checkpoint whose stored value the store could look at (`value` set) or that it cannot look into (`raw` set: the
   * caller decodes the checkpoint), at the first checkpoint without a parent, or after `limit` rows.
   */
  deltaChain?(
    threadId: string,
    namespace: string,
    fromId: string,
    channel: string,
    limit: number,
  ): Promise<DeltaChainRow[]>;
  /**
   * `deltaChain` of many threads at once (the same namespace and channel), one round trip: the chains by thread id
   * (a thread whose start checkpoint is not found has none). For `ls` of a store over the network.
   */
  deltaChains?(
    /** `checkpoints`: the thread's root checkpoints, when known (how the store reads them may depend on it) */
    starts: Array<{ threadId: string; fromId: string; checkpoints?: number }>,
    namespace: string,
    channel: string,
    limit: number,
  ): Promise<Map<string, DeltaChainRow[]>>;
  close(): Promise<void>;
}

/** One checkpoint of a `deltaChain`: ids, the stored value's JSON text (if the store could read it) or the raw row. */
export interface DeltaChainRow {
  checkpointId: string;
  parentId: string | null;
  /** the JSON text of `channel_values[channel]` (a JSON row that stores it) */
  value: string | null;
  /** a row the store cannot look into (not JSON): its type tag and payload, for the caller to decode */
  raw?: { type: string | null; checkpoint: Uint8Array | string | null };
  /** PostgreSQL: the stored value as a typed payload (the blob row of the channel's version), for the caller to decode */
  stored?: { type: string | null; data: Uint8Array | string | null };
  /** the writes of this checkpoint to the channel, in (task_id, idx) order */
  writes: Array<{
    task_id: string;
    idx: number;
    channel: string;
    type: string | null;
    value: Uint8Array | string | null;
    task_path?: string;
  }>;
}

/**
 * The document form of one tuple, as the saver hands it to the format pipeline (`SourceDoc.text` of
 * `<uri>#<thread>@<id>`): JSON text of this object. The `langgraph` format adapter detects it by
 * `format === "langgraph"` and `formatVersion === 1`.
 */
export interface LgTupleDocument extends Omit<LgCheckpointTuple, "issues"> {
  format: "langgraph";
  formatVersion: 1;
  /** the store URI (redacted) it came from */
  store: string;
  issues?: LgDecodeIssue[];
}

export const LG_DOCUMENT_FORMAT = "langgraph";

export function tupleDocument(t: LgCheckpointTuple, store: string): LgTupleDocument {
  const { issues, ...rest } = t;
  return { format: "langgraph", formatVersion: 1, store, ...rest, ...(issues.length ? { issues } : {}) };
}

/** The normalized LangChain message record. */
export interface LcMessage {
  lc: 1;
  type: "constructor";
  id: ["langchain_core", "messages", string];
  kwargs: Record<string, unknown>;
}

/** lc:2 constructor record (Python ext values, JS Set/Map/…/Uint8Array). */
export interface Lc2Constructor {
  lc: 2;
  type: "constructor";
  id: string[];
  method: string | null;
  args: unknown[];
  kwargs: Record<string, unknown>;
  /** the Python msgpack ext code it was decoded from (absent for JSON-stored records) */
  ext?: number;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function isLcMessage(v: unknown): v is LcMessage {
  return (
    isRecord(v) &&
    v.lc === 1 &&
    v.type === "constructor" &&
    Array.isArray(v.id) &&
    v.id[0] === "langchain_core" &&
    v.id[1] === "messages" &&
    isRecord(v.kwargs)
  );
}

/** The class name of a normalized message ("HumanMessage", "AIMessageChunk", …). */
export const lcClass = (m: LcMessage): string => m.id[m.id.length - 1]!;

export function isLc2Constructor(v: unknown, name?: string): v is Lc2Constructor {
  return (
    isRecord(v) &&
    v.lc === 2 &&
    v.type === "constructor" &&
    Array.isArray(v.id) &&
    (name === undefined || v.id[v.id.length - 1] === name)
  );
}

/** An interrupt value from an `__interrupt__` write (Python EXT 2 `Interrupt` or JS `{id, value}`). */
export function interruptOf(v: unknown): { id: string | undefined; value: unknown } | undefined {
  if (isLc2Constructor(v, "Interrupt"))
    return { id: typeof v.kwargs.id === "string" ? v.kwargs.id : undefined, value: v.kwargs.value };
  if (isRecord(v) && "value" in v) return { id: typeof v.id === "string" ? v.id : undefined, value: v.value };
  return undefined;
}

/** A Send packet (Python EXT 1 `Send` or JS `{node, args}`). */
export function sendOf(v: unknown): { node: string; args: unknown } | undefined {
  if (isLc2Constructor(v, "Send") && typeof v.args[0] === "string") return { node: v.args[0], args: v.args[1] };
  if (isRecord(v) && typeof v.node === "string" && "args" in v) return { node: v.node, args: v.args };
  return undefined;
}

/** Special write channels and their fixed idx (§4). */
export const WRITES_IDX_MAP: Record<string, number> = {
  __error__: -1,
  __scheduled__: -2,
  __interrupt__: -3,
  __resume__: -4,
};
export const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";
