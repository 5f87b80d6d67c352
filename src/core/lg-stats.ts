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
import { checkpointChannels, listElements, messageClassAt, type Span } from "../formats/langgraph/spans.js";
import type { StatBatch, StatBlobRow, StatCheckpointRow, StatTable, StatWriteRow } from "../savers/lgstats.js";
import type { LangGraphStatsReport } from "../generated/types.js";

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

const UUID_EPOCH_MS = 12219292800000; // 1582-10-15 → 1970-01-01, in ms

/** The time (ms since 1970) of a uuid6 checkpoint id (LANGGRAPH.md §2.3), or undefined when it is not one. */
export function uuid6Ms(id: string): number | undefined {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-6([0-9a-f]{3})-/i.exec(id);
  if (!m) return undefined;
  return parseInt(m[1]! + m[2]! + m[3]!, 16) / 1e4 - UUID_EPOCH_MS;
}

const dayOfMs = (ms: number | undefined): string | null => (ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString().slice(0, 10));
const dayOfTs = (ts: string | null | undefined, id: string): string | null => {
  if (typeof ts === "string" && /^\d{4}-\d\d-\d\d/.test(ts)) {
    const ms = Date.parse(ts);
    if (Number.isFinite(ms)) return new Date(ms).toISOString().slice(0, 10);
  }
  return dayOfMs(uuid6Ms(id));
};

const serdeOf = (type: string | null, b: Uint8Array): Serde | undefined => {
  if (type === "msgpack") return "msgpack";
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
}

export function createLgStats(o: LgStatsOptions) {
  const parts = { checkpoints: { rows: 0, bytes: 0 }, metadata: { rows: 0, bytes: 0 }, writes: { rows: 0, bytes: 0 }, blobs: { rows: 0, bytes: 0 } };
  const channels = new Map<string, ChannelAcc>();
  const classes = new Map<string, ClassAcc>();
  const days = new Map<string, { checkpoints: number; bytes: number }>();
  const rep = { messages: 0, messageBytes: 0, copies: 0, copyBytes: 0 };
  const serdes = { json: 0, msgpack: 0 };
  let threadsSeen = 0;
  let bookkeeping = 0;
  let unreadable = 0;
  let top: ThreadAcc[] = [];
  // per page of threads
  let acc = new Map<string, ThreadAcc>();
  let seen = new Map<string, Set<string>>();
  let versionDay = new Map<string, string | null>();
  let checkpointDay = new Map<string, string | null>();

  const thread = (id: string): ThreadAcc => {
    let t = acc.get(id);
    if (!t) acc.set(id, (t = { threadId: id, checkpoints: 0, writes: 0, blobs: 0, bytes: 0, messages: 0, copyBytes: 0, lastTs: null }));
    return t;
  };
  const channel = (name: string): ChannelAcc => {
    let c = channels.get(name);
    if (!c) channels.set(name, (c = { checkpointBytes: 0, blobBytes: 0, writeBytes: 0, values: 0 }));
    return c;
  };
  const addDay = (day: string | null, bytes: number, checkpoints: number) => {
    const k = day ?? "undated";
    const d = days.get(k) ?? { checkpoints: 0, bytes: 0 };
    d.checkpoints += checkpoints;
    d.bytes += bytes;
    days.set(k, d);
  };

  /** The messages of a list value (each element that is a LangChain message), hashed against the thread's earlier ones. */
  function messages(t: ThreadAcc, b: Uint8Array, span: Span, serde: Serde): void {
    const els = listElements(b, span, serde);
    if (!els) return;
    let set = seen.get(t.threadId);
    if (!set) seen.set(t.threadId, (set = new Set()));
    for (const [s, e] of els) {
      const cls = messageClassAt(b, s, e, serde);
      if (cls === undefined) continue;
      const n = e - s;
      const c = classes.get(cls) ?? { count: 0, bytes: 0, copies: 0, copyBytes: 0 };
      classes.set(cls, c);
      c.count++;
      c.bytes += n;
      rep.messages++;
      rep.messageBytes += n;
      t.messages++;
      const h = createHash("sha1").update(b.subarray(s, e)).digest("base64");
      if (set.has(h)) {
        c.copies++;
        c.copyBytes += n;
        rep.copies++;
        rep.copyBytes += n;
        t.copyBytes += n;
      } else set.add(h);
    }
  }

  function checkpointRow(r: StatCheckpointRow): void {
    const t = thread(r.threadId);
    const bytes = r.checkpointBytes + r.metadataBytes;
    t.checkpoints++;
    t.bytes += bytes;
    parts.checkpoints.rows++;
    parts.checkpoints.bytes += r.checkpointBytes;
    parts.metadata.rows++;
    parts.metadata.bytes += r.metadataBytes;
    let ts: string | null | undefined = r.ts;
    if (r.checkpoint) {
      const serde = serdeOf(r.type, r.checkpoint);
      try {
        if (!serde) throw new Error("unknown serde");
        serdes[serde]++;
        const { channels: chs, ts: t2 } = checkpointChannels(r.checkpoint, serde);
        ts = t2;
        let inChannels = 0;
        for (const c of chs) {
          const n = c.span[1] - c.span[0];
          inChannels += n;
          const acc = channel(c.channel);
          acc.checkpointBytes += n;
          acc.values++;
          messages(t, r.checkpoint, c.span, serde);
        }
        bookkeeping += r.checkpointBytes - inChannels;
      } catch {
        unreadable++;
      }
    } else {
      bookkeeping += r.checkpointBytes;
      if (r.inline) {
        try {
          for (const [k, v] of Object.entries(JSON.parse(r.inline) as Record<string, unknown>)) {
            const n = Buffer.byteLength(JSON.stringify(v) ?? "null");
            bookkeeping -= n;
            const acc = channel(k);
            acc.checkpointBytes += n;
            acc.values++;
          }
        } catch {
          unreadable++;
        }
      }
      const vday = dayOfTs(r.ts, r.id);
      for (const [ch, v] of Object.entries(r.versions ?? {})) {
        const k = `${r.threadId}\u0000${r.ns}\u0000${ch}\u0000${String(v)}`;
        if (!versionDay.has(k)) versionDay.set(k, vday);
      }
    }
    if (typeof ts === "string" && (t.lastTs === null || ts > t.lastTs)) t.lastTs = ts;
    const day = dayOfTs(ts, r.id);
    checkpointDay.set(`${r.threadId}\u0000${r.ns}\u0000${r.id}`, day);
    addDay(day, bytes, 1);
  }

  function blobRow(r: StatBlobRow): void {
    const t = thread(r.threadId);
    const n = r.blob?.length ?? 0;
    t.blobs++;
    t.bytes += n;
    parts.blobs.rows++;
    parts.blobs.bytes += n;
    if (r.type !== "empty") {
      const acc = channel(r.channel);
      acc.blobBytes += n;
      acc.values++;
    }
    addDay(versionDay.get(`${r.threadId}\u0000${r.ns}\u0000${r.channel}\u0000${r.version}`) ?? null, n, 0);
    const serde = r.blob ? serdeOf(r.type, r.blob) : undefined;
    if (serde && r.blob) {
      serdes[serde]++;
      try {
        messages(t, r.blob, [0, r.blob.length], serde);
      } catch {
        unreadable++;
      }
    }
  }

  function writeRow(r: StatWriteRow): void {
    const t = thread(r.threadId);
    const n = r.value.length;
    t.writes++;
    t.bytes += n;
    parts.writes.rows++;
    parts.writes.bytes += n;
    channel(r.channel).writeBytes += n;
    const k = `${r.threadId}\u0000${r.ns}\u0000${r.checkpointId}`;
    addDay(checkpointDay.has(k) ? checkpointDay.get(k)! : dayOfMs(uuid6Ms(r.checkpointId)), n, 0);
    const serde = serdeOf(r.type, r.value);
    if (serde) {
      try {
        messages(t, r.value, [0, r.value.length], serde);
      } catch {
        unreadable++;
      }
    }
  }

  function endPage(threads: string[]): void {
    for (const id of threads) {
      const t = acc.get(id);
      if (!t) continue;
      threadsSeen++;
      if (top.length < o.top || t.bytes > top[top.length - 1]!.bytes) {
        top.push(t);
        top.sort((a, b) => b.bytes - a.bytes || (a.threadId < b.threadId ? -1 : 1));
        if (top.length > o.top) top = top.slice(0, o.top);
      }
    }
    acc = new Map();
    seen = new Map();
    versionDay = new Map();
    checkpointDay = new Map();
  }

  return {
    add(batch: StatBatch): void {
      if (batch.table === "checkpoints") for (const r of batch.rows) checkpointRow(r);
      else if (batch.table === "blobs") for (const r of batch.rows) blobRow(r);
      else if (batch.table === "writes") for (const r of batch.rows) writeRow(r);
      else endPage(batch.threads);
    },
    report(tables: StatTable[], elapsedMs: number): LangGraphStatsReport {
      const payload = parts.checkpoints.bytes + parts.metadata.bytes + parts.writes.bytes + parts.blobs.bytes;
      const stored = tables.every((t) => t.storedBytes !== null) ? tables.reduce((n, t) => n + (t.storedBytes ?? 0), 0) : null;
      const library = serdes.json && serdes.msgpack ? "mixed" : serdes.msgpack ? "python" : serdes.json ? "js" : null;
      const chList = [...channels].map(([name, c]) => ({ channel: name, bytes: c.checkpointBytes + c.blobBytes + c.writeBytes, ...c })).sort((a, b) => b.bytes - a.bytes || (a.channel < b.channel ? -1 : 1));
      const report: LangGraphStatsReport = {
        kind: "langgraph",
        uri: o.uri,
        store: o.store,
        library,
        filter: o.filter && (o.filter.threads?.length || o.filter.match?.length) ? { threads: o.filter.threads ?? [], match: o.filter.match ?? [] } : null,
        summary: "",
        totals: { threads: threadsSeen, checkpoints: parts.checkpoints.rows, writes: parts.writes.rows, blobs: parts.blobs.rows, payloadBytes: payload, storedBytes: stored },
        storedMethod: o.storedMethod,
        tables: tables.map((t) => ({ table: t.table, rows: t.rows, storedBytes: t.storedBytes })),
        parts: [
          { part: "checkpoints", rows: parts.checkpoints.rows, bytes: parts.checkpoints.bytes },
          { part: "metadata", rows: parts.metadata.rows, bytes: parts.metadata.bytes },
          { part: "writes", rows: parts.writes.rows, bytes: parts.writes.bytes },
          ...(o.store === "postgres" ? [{ part: "blobs" as const, rows: parts.blobs.rows, bytes: parts.blobs.bytes }] : []),
        ],
        checkpointBookkeepingBytes: bookkeeping,
        channels: chList.slice(0, o.top),
        otherChannels: chList.length > o.top ? { channels: chList.length - o.top, bytes: chList.slice(o.top).reduce((n, c) => n + c.bytes, 0) } : null,
        messageClasses: [...classes].map(([cls, c]) => ({ class: cls, ...c })).sort((a, b) => b.bytes - a.bytes || (a.class < b.class ? -1 : 1)),
        repeated: { ...rep, share: rep.messageBytes ? rep.copyBytes / rep.messageBytes : 0 },
        topThreads: top.map((t) => ({ ...t })),
        days: [...days].map(([day, d]) => ({ day, ...d })).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
        unreadableRows: unreadable,
        elapsedMs: Math.round(elapsedMs),
      };
      report.summary = lgSummary(report);
      return report;
    },
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
  const size = t.storedBytes !== null ? `${humanBytes(t.storedBytes)} on disk, ${humanBytes(t.payloadBytes)} of payload` : `${humanBytes(t.payloadBytes)} of payload`;
  const biggest = [...r.parts].sort((a, b) => b.bytes - a.bytes)[0];
  const head = `${size} in ${t.threads.toLocaleString("en-US")} thread${t.threads === 1 ? "" : "s"} (${t.checkpoints.toLocaleString("en-US")} checkpoints)`;
  const where = biggest && biggest.bytes > 0 ? `; ${pct(biggest.bytes, t.payloadBytes)} is ${biggest.part === "checkpoints" ? "checkpoint rows" : biggest.part}` : "";
  const rep = r.repeated;
  const copies = rep.copyBytes > 0 ? `; ${pct(rep.copyBytes, rep.messageBytes)} of message bytes (${humanBytes(rep.copyBytes)}) are copies of messages stored earlier in the same thread` : "";
  return head + where + copies;
}
