/**
 * `ckpt stats` of a Mastra store: where its memory's bytes are — the memory tables' rows and stored sizes, message
 * contents by role, by part type and by tool, resources (with their working memory) and the largest threads.
 * Streamed from the store's scan (a batch of threads with their messages at a time); only the per-resource, per-type
 * and top-N tallies are held.
 */
import type { MastraStatsReport } from "../../generated/types.js";
import type { MastraStore } from "../../savers/mastra/types.js";
import { humanBytes } from "../langgraph/stats.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const utf8 = (s: string) => Buffer.byteLength(s);

interface Tally {
  count: number;
  bytes: number;
}
const bump = <K>(m: Map<K, Tally>, k: K, bytes: number) => {
  const t = m.get(k) ?? m.set(k, { count: 0, bytes: 0 }).get(k)!;
  t.count++;
  t.bytes += bytes;
};

type ToolTally = Map<string, { calls: number; results: number; resultBytes: number }>;

/**
 * One message into the tallies by role, part type and tool; false when its content is neither format 2 nor format 1
 * (Mastra < 0.10, `type` other than "v2": a string content as it is, or an AI SDK 4 part array).
 */
function tallyMessage(
  role: string,
  type: string | null,
  text: string,
  roles: Map<string, Tally>,
  parts: Map<string, Tally>,
  tools: ToolTally,
): boolean {
  bump(roles, role, utf8(text));
  let c: unknown;
  try {
    c = JSON.parse(text);
  } catch {
    return type !== "v2";
  }
  if (type !== "v2" && (typeof c === "string" || Array.isArray(c))) {
    for (const part of Array.isArray(c) ? c : [{ type: "text" }]) {
      if (!isObj(part)) continue;
      bump(parts, String(part.type), utf8(JSON.stringify(part)));
      const name = String(part.toolName);
      if (part.type !== "tool-call" && part.type !== "tool-result") continue;
      const t = tools.get(name) ?? tools.set(name, { calls: 0, results: 0, resultBytes: 0 }).get(name)!;
      if (part.type === "tool-call") t.calls++;
      else {
        t.results++;
        t.resultBytes += utf8(JSON.stringify(part.result) ?? "");
      }
    }
    return true;
  }
  if (!isObj(c) || c.format !== 2 || !Array.isArray(c.parts)) return false;
  for (const part of c.parts) {
    if (!isObj(part)) continue;
    bump(parts, String(part.type), utf8(JSON.stringify(part)));
    const inv = part.type === "tool-invocation" && isObj(part.toolInvocation) ? part.toolInvocation : undefined;
    if (!inv) continue;
    const name = String(inv.toolName);
    const t = tools.get(name) ?? tools.set(name, { calls: 0, results: 0, resultBytes: 0 }).get(name)!;
    t.calls++;
    if ("result" in inv) {
      t.results++;
      t.resultBytes += utf8(JSON.stringify(inv.result) ?? "");
    }
  }
  return true;
}

/** Measure `store` (threads `accept` takes, all when omitted). */
export async function mastraStats(
  store: MastraStore,
  o: { top: number; accept?: (threadId: string) => boolean; filter?: { threads?: string[]; match?: string[] } },
): Promise<MastraStatsReport> {
  const t0 = performance.now();
  const roles = new Map<string, Tally>();
  const parts = new Map<string, Tally>();
  const tools: ToolTally = new Map();
  const resources = new Map<string, { threads: number; messages: number; contentBytes: number }>();
  const threads: MastraStatsReport["topThreads"] = [];
  const totals = { threads: 0, messages: 0, contentBytes: 0, damagedMessages: 0 };
  for await (const batch of store.scan(200)) {
    if (batch.table !== "threads") continue;
    const per = new Map<string, { messages: number; bytes: number }>();
    for (const m of batch.messages) {
      const b = utf8(m.content);
      const p = per.get(m.threadId) ?? per.set(m.threadId, { messages: 0, bytes: 0 }).get(m.threadId)!;
      p.messages++;
      p.bytes += b;
    }
    for (const t of batch.threads) {
      if (o.accept && !o.accept(t.id)) continue;
      const p = per.get(t.id) ?? { messages: 0, bytes: 0 };
      totals.threads++;
      totals.messages += p.messages;
      totals.contentBytes += p.bytes;
      const r =
        resources.get(t.resourceId) ??
        resources.set(t.resourceId, { threads: 0, messages: 0, contentBytes: 0 }).get(t.resourceId)!;
      r.threads++;
      r.messages += p.messages;
      r.contentBytes += p.bytes;
      threads.push({
        threadId: t.id,
        resourceId: t.resourceId,
        title: t.title,
        messages: p.messages,
        bytes: p.bytes,
        updatedAt: t.updatedAt,
      });
      threads.sort((a, b) => b.bytes - a.bytes || a.threadId.localeCompare(b.threadId));
      if (threads.length > o.top) threads.pop();
    }
    for (const m of batch.messages)
      if (!o.accept || o.accept(m.threadId))
        if (!tallyMessage(m.role, m.type, m.content, roles, parts, tools)) totals.damagedMessages++;
  }
  let workingMemoryBytes = 0;
  const res = [...resources.entries()].map(([resourceId, r]) => ({ resourceId, ...r, workingMemoryBytes: 0 }));
  for (const r of res) {
    const row = await store.resource(r.resourceId);
    r.workingMemoryBytes = row?.workingMemory ? utf8(row.workingMemory) : 0;
    workingMemoryBytes += r.workingMemoryBytes;
  }
  const counts = await store.counts();
  const { method, tables } = await store.tables();
  const byBytes = <T extends { bytes: number }>(a: T[]) => a.sort((x, y) => y.bytes - x.bytes);
  const filtered = Boolean(o.filter?.threads?.length || o.filter?.match?.length);
  const top = threads[0];
  const summary =
    totals.threads === 0
      ? `${store.uri}: no threads${filtered ? " match the filter" : ""}`
      : `${humanBytes(totals.contentBytes)} of message contents in ${totals.threads} thread(s) of ${res.length} resource(s) (${totals.messages} messages)` +
        `${top ? `; the largest thread, ${top.threadId}, holds ${Math.round((100 * top.bytes) / Math.max(1, totals.contentBytes))}%` : ""}` +
        `${totals.damagedMessages ? `; ${totals.damagedMessages} damaged message(s) (ckpt validate names them)` : ""}`;
  return {
    kind: "mastra",
    store: store.kind,
    uri: store.uri,
    filter: filtered ? { threads: o.filter?.threads ?? [], match: o.filter?.match ?? [] } : null,
    summary,
    storedMethod: method,
    tables,
    totals: {
      threads: totals.threads,
      messages: totals.messages,
      resources: counts.resources,
      orphanMessages: counts.orphanMessages,
      contentBytes: totals.contentBytes,
      workingMemoryBytes,
      damagedMessages: totals.damagedMessages,
    },
    roles: byBytes([...roles].map(([role, t]) => ({ role, messages: t.count, bytes: t.bytes }))),
    parts: byBytes([...parts].map(([type, t]) => ({ type, count: t.count, bytes: t.bytes }))),
    tools: [...tools]
      .map(([name, t]) => ({ name, ...t }))
      .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
    resources: res
      .sort((a, b) => b.contentBytes - a.contentBytes || a.resourceId.localeCompare(b.resourceId))
      .slice(0, o.top),
    topThreads: threads,
    elapsedMs: performance.now() - t0,
  };
}
