/**
 * `ckpt stats` of a LangGraph store: where the bytes are. Fed the store's rows a page of threads at a time
 * (savers/lgstats.ts), it adds up, without decoding values into objects (formats/langgraph/spans.ts):
 * - per part: checkpoint rows (the serialized checkpoint, its channel values included in SQLite), their metadata,
 *   pending writes, and PostgreSQL `checkpoint_blobs`;
 * - per channel: the bytes of its values inside checkpoints (SQLite; PostgreSQL inline), in blobs and in writes;
 * - per LangChain message class: every stored occurrence of a message (in a list value of any channel, in
 *   checkpoints, blobs and writes), its bytes, and how many of them are byte-identical copies of a message stored
 *   earlier in the same thread (SHA-1 of each message's serialized bytes; the first occurrence is the original);
 * - per thread (the top N by bytes, kept in a bounded list) and per day (checkpoint `ts`; writes by the uuid6 time of
 *   their checkpoint (else the uuid6 time of its id); PostgreSQL blobs by the first checkpoint of the thread that references them).
 * Memory: one page of threads (their hash sets and version days) and the top-N list.
 */
import { createHash } from "node:crypto";
import { checkpointChannels, listElements, messageClassAt, type Span } from "../../formats/langgraph/spans.js";
import type { PgBlobRow } from "../../formats/langgraph/rows.js";
import type { StatBatch, StatCheckpointRow, StatTable, StatWriteRow } from "../../savers/langgraph/shared.js";
import type { LangGraphStatsReport } from "../../generated/types.js";
import { fmtInt, pluralInt } from "../../base/plural.js";
import type { AesKey } from "../../formats/langgraph/aes-key.js";
import { openAesPayload } from "../../formats/langgraph/eax.js";
import { MSGPACK_ALLOWLIST_SOURCE, scanExtTypes, type ExtType } from "../../formats/langgraph/msgpack-audit.js";

type Serde = "json" | "msgpack";

interface ThreadAcc {
  threadId: string;
  checkpoints: number;
  writes: number;
  blobs: number;
  bytes: number;
  messages: number;
  copyBytes: number;
  lastTs: string | null;
}

interface ChannelAcc {
  checkpointBytes: number;
  blobBytes: number;
  writeBytes: number;
  values: number;
}

interface ClassAcc {
  count: number;
  bytes: number;
  copies: number;
  copyBytes: number;
}

interface ExtAcc extends ExtType {
  count: number;
  checkpoints: number;
  blobs: number;
  writes: number;
  threads: Set<string>;
}

const UUID_EPOCH_MS = 12219292800000; // 1582-10-15 → 1970-01-01, in ms

/** The time (ms since 1970) of a uuid6 checkpoint id (LANGGRAPH.md §2.3), or undefined when it is not one. */
export function uuid6Ms(id: string): number | undefined {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-6([0-9a-f]{3})-/i.exec(id);
  if (!m) return undefined;
  return parseInt(m[1]! + m[2]! + m[3]!, 16) / 1e4 - UUID_EPOCH_MS;
}

const dayOfMs = (ms: number | undefined): string | null =>
  ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString().slice(0, 10);
const dayOfTs = (ts: string | null | undefined, id: string): string | null => {
  if (typeof ts === "string" && /^\d{4}-\d\d-\d\d/.test(ts)) {
    const ms = Date.parse(ts);
    if (Number.isFinite(ms)) return new Date(ms).toISOString().slice(0, 10);
  }
  return dayOfMs(uuid6Ms(id));
};

const serdeOf = (type: string | null, b: Uint8Array): Serde | undefined => {
  if (type === "msgpack" || type === "msgpack+aes") return "msgpack";
  if (type === "json+aes") return "json";
  if (type === "json") return "json";
  if (type === null && b.length > 0 && (b[0] === 0x7b || b[0] === 0x5b)) return "json";
  return undefined;
};

export interface LgStatsOptions {
  /** how many threads, channels and days to list */
  top: number;
  store: "sqlite" | "postgres";
  uri: string;
  storedMethod: LangGraphStatsReport["storedMethod"];
  filter?: { threads?: string[]; match?: string[] };
  /** the store's key (its `aesKey`): `+aes` values are scanned opened with it */
  aesKey?: AesKey;
}

/** Everything the aggregation keeps: the running sums, the top-N list, and the current page's per-thread state. */
interface State {
  o: LgStatsOptions;
  parts: Record<"checkpoints" | "metadata" | "writes" | "blobs", { rows: number; bytes: number }>;
  channels: Map<string, ChannelAcc>;
  classes: Map<string, ClassAcc>;
  days: Map<string, { checkpoints: number; bytes: number }>;
  rep: { messages: number; messageBytes: number; copies: number; copyBytes: number };
  serdes: { json: number; msgpack: number };
  threadsSeen: number;
  bookkeeping: number;
  unreadable: number;
  /** the msgpack audit: every (ext, module, name, method) found, by where */
  ext: Map<string, ExtAcc>;
  /** msgpack values scanned for it, and `+aes` values left unscanned for want of the key */
  audit: { values: number; encrypted: number; unscannable: number };
  top: ThreadAcc[];
  /** per page of threads */
  acc: Map<string, ThreadAcc>;
  seen: Map<string, Set<string>>;
  versionDay: Map<string, string | null>;
  checkpointDay: Map<string, string | null>;
}

function thread(st: State, id: string): ThreadAcc {
  let t = st.acc.get(id);
  if (!t)
    st.acc.set(
      id,
      (t = { threadId: id, checkpoints: 0, writes: 0, blobs: 0, bytes: 0, messages: 0, copyBytes: 0, lastTs: null }),
    );
  return t;
}

function channel(st: State, name: string): ChannelAcc {
  let c = st.channels.get(name);
  if (!c) st.channels.set(name, (c = { checkpointBytes: 0, blobBytes: 0, writeBytes: 0, values: 0 }));
  return c;
}

function addDay(st: State, day: string | null, bytes: number, checkpoints: number): void {
  const k = day ?? "undated";
  const d = st.days.get(k) ?? { checkpoints: 0, bytes: 0 };
  d.checkpoints += checkpoints;
  d.bytes += bytes;
  st.days.set(k, d);
}

/**
 * A stored value as its serializer wrote it: `+aes` values opened with the store's key (`o.aesKey`);
 * undefined when encrypted and there is no key, or the key does not open it (counted, never guessed).
 */
function plaintext(st: State, type: string | null, b: Uint8Array): Uint8Array | undefined {
  if (!type?.endsWith("+aes")) return b;
  const k = st.o.aesKey;
  const plain = k && b.length > 0 ? openAesPayload(k.key, b) : undefined;
  if (!plain && b.length > 0) st.audit.encrypted++;
  return plain;
}

/** The msgpack audit of one value: the classes its ext values name. */
function audit(st: State, threadId: string, b: Uint8Array, where: "checkpoints" | "blobs" | "writes"): void {
  st.audit.values++;
  try {
    scanExtTypes(b, (t) => {
      const k = `${t.ext}\u0000${t.module}\u0000${t.name}\u0000${t.method ?? ""}`;
      let a = st.ext.get(k);
      if (!a) st.ext.set(k, (a = { ...t, count: 0, checkpoints: 0, blobs: 0, writes: 0, threads: new Set() }));
      a.count++;
      a[where]++;
      a.threads.add(threadId);
    });
  } catch {
    st.audit.unscannable++;
  }
}

/** The messages of a list value (each element that is a LangChain message), hashed against the thread's earlier ones. */
function messages(st: State, t: ThreadAcc, b: Uint8Array, span: Span, serde: Serde): void {
  const els = listElements(b, span, serde);
  if (!els) return;
  let set = st.seen.get(t.threadId);
  if (!set) st.seen.set(t.threadId, (set = new Set()));
  for (const [s, e] of els) {
    const cls = messageClassAt(b, s, e, serde);
    if (cls === undefined) continue;
    const n = e - s;
    const c = st.classes.get(cls) ?? { count: 0, bytes: 0, copies: 0, copyBytes: 0 };
    st.classes.set(cls, c);
    c.count++;
    c.bytes += n;
    st.rep.messages++;
    st.rep.messageBytes += n;
    t.messages++;
    const h = createHash("sha1").update(b.subarray(s, e)).digest("base64");
    if (set.has(h)) {
      c.copies++;
      c.copyBytes += n;
      st.rep.copies++;
      st.rep.copyBytes += n;
      t.copyBytes += n;
    } else set.add(h);
  }
}

/** A SQLite checkpoint: its channel values (and their messages) scanned in place. */
function sqliteChannels(
  st: State,
  t: ThreadAcc,
  r: StatCheckpointRow & { checkpoint: Uint8Array },
): string | undefined {
  const serde = serdeOf(r.type, r.checkpoint);
  const b = plaintext(st, r.type, r.checkpoint);
  try {
    if (!serde || !b) throw new Error(b ? "unknown serde" : "encrypted");
    st.serdes[serde]++;
    if (serde === "msgpack") audit(st, t.threadId, b, "checkpoints");
    const { channels: chs, ts } = checkpointChannels(b, serde);
    let inChannels = 0;
    for (const c of chs) {
      const n = c.span[1] - c.span[0];
      inChannels += n;
      const acc = channel(st, c.channel);
      acc.checkpointBytes += n;
      acc.values++;
      messages(st, t, b, c.span, serde);
    }
    st.bookkeeping += r.checkpointBytes - inChannels;
    return ts;
  } catch {
    st.unreadable++;
    return undefined;
  }
}

/** A PostgreSQL checkpoint: inline values (Python primitives), and the day each (channel, version) first appears. */
function pgChannels(st: State, r: StatCheckpointRow): void {
  st.bookkeeping += r.checkpointBytes;
  if (r.inline) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(r.inline) as Record<string, unknown>)) {
        const n = Buffer.byteLength(JSON.stringify(v) ?? "null");
        st.bookkeeping -= n;
        const acc = channel(st, k);
        acc.checkpointBytes += n;
        acc.values++;
      }
    } catch {
      st.unreadable++;
    }
  }
  const day = dayOfTs(r.ts, r.id);
  for (const [ch, v] of Object.entries(r.versions ?? {})) {
    const k = `${r.threadId}\u0000${r.ns}\u0000${ch}\u0000${String(v)}`;
    if (!st.versionDay.has(k)) st.versionDay.set(k, day);
  }
}

function checkpointRow(st: State, r: StatCheckpointRow): void {
  const t = thread(st, r.threadId);
  const bytes = r.checkpointBytes + r.metadataBytes;
  t.checkpoints++;
  t.bytes += bytes;
  st.parts.checkpoints.rows++;
  st.parts.checkpoints.bytes += r.checkpointBytes;
  st.parts.metadata.rows++;
  st.parts.metadata.bytes += r.metadataBytes;
  let ts: string | null | undefined = r.ts;
  if (r.checkpoint) ts = sqliteChannels(st, t, r as StatCheckpointRow & { checkpoint: Uint8Array });
  else pgChannels(st, r);
  if (typeof ts === "string" && (t.lastTs === null || ts > t.lastTs)) t.lastTs = ts;
  const day = dayOfTs(ts, r.id);
  st.checkpointDay.set(`${r.threadId}\u0000${r.ns}\u0000${r.id}`, day);
  addDay(st, day, bytes, 1);
}

function blobRow(st: State, r: PgBlobRow): void {
  const t = thread(st, r.threadId);
  const n = r.blob?.length ?? 0;
  t.blobs++;
  t.bytes += n;
  st.parts.blobs.rows++;
  st.parts.blobs.bytes += n;
  if (r.type !== "empty") {
    const acc = channel(st, r.channel);
    acc.blobBytes += n;
    acc.values++;
  }
  addDay(st, st.versionDay.get(`${r.threadId}\u0000${r.ns}\u0000${r.channel}\u0000${r.version}`) ?? null, n, 0);
  const serde = r.blob ? serdeOf(r.type, r.blob) : undefined;
  const b = serde && r.blob ? plaintext(st, r.type, r.blob) : undefined;
  if (serde && b) {
    st.serdes[serde]++;
    if (serde === "msgpack") audit(st, t.threadId, b, "blobs");
    try {
      messages(st, t, b, [0, b.length], serde);
    } catch {
      st.unreadable++;
    }
  }
}

function writeRow(st: State, r: StatWriteRow): void {
  const t = thread(st, r.threadId);
  const n = r.value.length;
  t.writes++;
  t.bytes += n;
  st.parts.writes.rows++;
  st.parts.writes.bytes += n;
  channel(st, r.channel).writeBytes += n;
  const k = `${r.threadId}\u0000${r.ns}\u0000${r.checkpointId}`;
  addDay(st, st.checkpointDay.has(k) ? st.checkpointDay.get(k)! : dayOfMs(uuid6Ms(r.checkpointId)), n, 0);
  const serde = serdeOf(r.type, r.value);
  const b = serde ? plaintext(st, r.type, r.value) : undefined;
  if (serde && b) {
    if (serde === "msgpack") audit(st, t.threadId, b, "writes");
    try {
      messages(st, t, b, [0, b.length], serde);
    } catch {
      st.unreadable++;
    }
  }
}

/** The page's threads are complete: into the top-N list; the page's state is dropped. */
function endPage(st: State, threads: string[]): void {
  for (const id of threads) {
    const t = st.acc.get(id);
    if (!t) continue;
    st.threadsSeen++;
    if (st.top.length < st.o.top || t.bytes > st.top[st.top.length - 1]!.bytes) {
      st.top.push(t);
      st.top.sort((a, b) => b.bytes - a.bytes || (a.threadId < b.threadId ? -1 : 1));
      if (st.top.length > st.o.top) st.top = st.top.slice(0, st.o.top);
    }
  }
  st.acc = new Map();
  st.seen = new Map();
  st.versionDay = new Map();
  st.checkpointDay = new Map();
}

function buildReport(st: State, tables: StatTable[], elapsedMs: number): LangGraphStatsReport {
  const { o, parts, rep, serdes } = st;
  const payload = parts.checkpoints.bytes + parts.metadata.bytes + parts.writes.bytes + parts.blobs.bytes;
  const stored = tables.every((t) => t.storedBytes !== null)
    ? tables.reduce((n, t) => n + (t.storedBytes ?? 0), 0)
    : null;
  const library = serdes.json && serdes.msgpack ? "mixed" : serdes.msgpack ? "python" : serdes.json ? "js" : null;
  const chList = [...st.channels]
    .map(([name, c]) => ({ channel: name, bytes: c.checkpointBytes + c.blobBytes + c.writeBytes, ...c }))
    .sort((a, b) => b.bytes - a.bytes || (a.channel < b.channel ? -1 : 1));
  const report: LangGraphStatsReport = {
    kind: "langgraph",
    uri: o.uri,
    store: o.store,
    library,
    filter:
      o.filter && (o.filter.threads?.length || o.filter.match?.length)
        ? { threads: o.filter.threads ?? [], match: o.filter.match ?? [] }
        : null,
    summary: "",
    totals: {
      threads: st.threadsSeen,
      checkpoints: parts.checkpoints.rows,
      writes: parts.writes.rows,
      blobs: parts.blobs.rows,
      payloadBytes: payload,
      storedBytes: stored,
    },
    storedMethod: o.storedMethod,
    tables: tables.map((t) => ({ table: t.table, rows: t.rows, storedBytes: t.storedBytes })),
    parts: [
      { part: "checkpoints", rows: parts.checkpoints.rows, bytes: parts.checkpoints.bytes },
      { part: "metadata", rows: parts.metadata.rows, bytes: parts.metadata.bytes },
      { part: "writes", rows: parts.writes.rows, bytes: parts.writes.bytes },
      ...(o.store === "postgres" ? [{ part: "blobs" as const, rows: parts.blobs.rows, bytes: parts.blobs.bytes }] : []),
    ],
    checkpointBookkeepingBytes: st.bookkeeping,
    channels: chList.slice(0, o.top),
    otherChannels:
      chList.length > o.top
        ? { channels: chList.length - o.top, bytes: chList.slice(o.top).reduce((n, c) => n + c.bytes, 0) }
        : null,
    messageClasses: [...st.classes]
      .map(([cls, c]) => ({ class: cls, ...c }))
      .sort((a, b) => b.bytes - a.bytes || (a.class < b.class ? -1 : 1)),
    repeated: { ...rep, share: rep.messageBytes ? rep.copyBytes / rep.messageBytes : 0 },
    topThreads: st.top.map((t) => ({ ...t })),
    days: [...st.days].map(([day, d]) => ({ day, ...d })).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
    unreadableRows: st.unreadable,
    msgpackAudit: auditReport(st),
    elapsedMs: Math.round(elapsedMs),
  };
  report.summary = lgSummary(report);
  return report;
}

function auditReport(st: State): LangGraphStatsReport["msgpackAudit"] {
  const types = [...st.ext.values()]
    .map(({ threads, ...a }) => ({ ...a, method: a.method ?? null, threads: threads.size }))
    .sort(
      (a, b) =>
        Number(a.allowed) - Number(b.allowed) ||
        b.count - a.count ||
        (a.module + a.name < b.module + b.name ? -1 : a.module + a.name > b.module + b.name ? 1 : 0),
    );
  return {
    allowlist: MSGPACK_ALLOWLIST_SOURCE,
    values: st.audit.values,
    encrypted: st.audit.encrypted,
    unscannable: st.audit.unscannable,
    types,
    outsideAllowlist: types.filter((t) => !t.allowed).length,
  };
}

export function createLgStats(o: LgStatsOptions) {
  const st: State = {
    o,
    parts: {
      checkpoints: { rows: 0, bytes: 0 },
      metadata: { rows: 0, bytes: 0 },
      writes: { rows: 0, bytes: 0 },
      blobs: { rows: 0, bytes: 0 },
    },
    channels: new Map(),
    classes: new Map(),
    days: new Map(),
    rep: { messages: 0, messageBytes: 0, copies: 0, copyBytes: 0 },
    serdes: { json: 0, msgpack: 0 },
    threadsSeen: 0,
    bookkeeping: 0,
    unreadable: 0,
    ext: new Map(),
    audit: { values: 0, encrypted: 0, unscannable: 0 },
    top: [],
    acc: new Map(),
    seen: new Map(),
    versionDay: new Map(),
    checkpointDay: new Map(),
  };
  return {
    add(batch: StatBatch): void {
      if (batch.table === "checkpoints") for (const r of batch.rows) checkpointRow(st, r);
      else if (batch.table === "blobs") for (const r of batch.rows) blobRow(st, r);
      else if (batch.table === "writes") for (const r of batch.rows) writeRow(st, r);
      else endPage(st, batch.threads);
    },
    report: (tables: StatTable[], elapsedMs: number): LangGraphStatsReport => buildReport(st, tables, elapsedMs),
  };
}

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : "0%");

/** Bytes for people: 1,234 B, 12.3 kB, 45.6 MB, 7.89 GB (powers of 1000, as `ls` and prune print MB). */
export function humanBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) (v /= 1000), u++;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[u]}`;
}

/** The one line that answers "why is it this big?". */
function lgSummary(r: LangGraphStatsReport): string {
  const t = r.totals;
  const size =
    t.storedBytes !== null
      ? `${humanBytes(t.storedBytes)} on disk, ${humanBytes(t.payloadBytes)} of payload`
      : `${humanBytes(t.payloadBytes)} of payload`;
  const biggest = [...r.parts].sort((a, b) => b.bytes - a.bytes)[0];
  const head = `${size} in ${pluralInt(t.threads, "thread")} (${fmtInt(t.checkpoints)} checkpoints)`;
  const where =
    biggest && biggest.bytes > 0
      ? `; ${pct(biggest.bytes, t.payloadBytes)} is ${biggest.part === "checkpoints" ? "checkpoint rows" : biggest.part}`
      : "";
  const rep = r.repeated;
  const copies =
    rep.copyBytes > 0
      ? `; ${pct(rep.copyBytes, rep.messageBytes)} of message bytes (${humanBytes(rep.copyBytes)}) are copies of messages stored earlier in the same thread`
      : "";
  return head + where + copies;
}
