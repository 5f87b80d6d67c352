/**
 * `ckpt stats` of ckpt's own savers (one document per thread: sqlite, postgres, redis, file, memory): bytes per
 * namespace, per detected format, per day of last update, and the top threads. Fed one thread at a time (its stored
 * size, its text, its update time); memory holds the top-N list and the per-format and per-day sums.
 */
import type { SaverStatsReport } from "../generated/types.js";
import { readCheckpoint } from "../formats/index.js";
import { humanBytes } from "./langgraph/stats.js";
import { fmtInt, pluralInt } from "../base/plural.js";

export interface SaverThread {
  namespace: string;
  threadId: string;
  bytes: number;
  updatedAt?: string;
  text: string | undefined;
}

export function createSaverStats(o: { top: number; uri: string; filter?: { threads?: string[]; match?: string[] } }) {
  const totals = { threads: 0, bytes: 0, messages: 0, unreadable: 0 };
  const namespaces = new Map<string, { threads: number; bytes: number }>();
  const formats = new Map<string, { threads: number; bytes: number; messages: number }>();
  const days = new Map<string, { threads: number; bytes: number }>();
  let top: SaverStatsReport["topThreads"] = [];
  return {
    add(t: SaverThread): void {
      let format: string | null = null;
      let messages: number | null = null;
      let updatedAt = t.updatedAt ?? null;
      if (t.text !== undefined) {
        try {
          const r = readCheckpoint({ name: `${o.uri}#${t.threadId}`, text: t.text });
          format = r.format;
          messages = r.checkpoint.messages.length;
          updatedAt = r.checkpoint.updatedAt ?? updatedAt;
        } catch {
          totals.unreadable++;
        }
      }
      totals.threads++;
      totals.bytes += t.bytes;
      totals.messages += messages ?? 0;
      const ns = namespaces.get(t.namespace) ?? { threads: 0, bytes: 0 };
      namespaces.set(t.namespace, { threads: ns.threads + 1, bytes: ns.bytes + t.bytes });
      const fk = format ?? "unreadable";
      const f = formats.get(fk) ?? { threads: 0, bytes: 0, messages: 0 };
      formats.set(fk, { threads: f.threads + 1, bytes: f.bytes + t.bytes, messages: f.messages + (messages ?? 0) });
      const ms = updatedAt === null ? NaN : Date.parse(updatedAt);
      const day = Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : "undated";
      const d = days.get(day) ?? { threads: 0, bytes: 0 };
      days.set(day, { threads: d.threads + 1, bytes: d.bytes + t.bytes });
      if (top.length < o.top || t.bytes > top[top.length - 1]!.bytes) {
        top.push({ namespace: t.namespace, threadId: t.threadId, format, bytes: t.bytes, messages, updatedAt });
        top.sort((a, b) => b.bytes - a.bytes || (a.threadId < b.threadId ? -1 : 1));
        if (top.length > o.top) top = top.slice(0, o.top);
      }
    },
    report(elapsedMs: number): SaverStatsReport {
      const fl = [...formats].map(([format, f]) => ({ format, ...f })).sort((a, b) => b.bytes - a.bytes);
      const biggest = top[0];
      const summary =
        `${humanBytes(totals.bytes)} in ${pluralInt(totals.threads, "thread")} (${fmtInt(totals.messages)} messages)` +
        (fl[0] && totals.bytes ? `; ${Math.round((100 * fl[0].bytes) / totals.bytes)}% is ${fl[0].format}` : "") +
        (biggest && totals.bytes
          ? `; the largest thread, ${biggest.threadId}, holds ${Math.round((100 * biggest.bytes) / totals.bytes)}%`
          : "");
      return {
        kind: "ckpt",
        uri: o.uri,
        filter:
          o.filter && (o.filter.threads?.length || o.filter.match?.length)
            ? { threads: o.filter.threads ?? [], match: o.filter.match ?? [] }
            : null,
        summary,
        totals,
        namespaces: [...namespaces].map(([namespace, n]) => ({ namespace, ...n })).sort((a, b) => b.bytes - a.bytes),
        formats: fl,
        topThreads: top,
        days: [...days].map(([day, d]) => ({ day, ...d })).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
        elapsedMs: Math.round(elapsedMs),
      };
    },
  };
}
