/**
 * Prune planning (pure): which checkpoints of a LangGraph thread go, given `--keep-last N`, `--older-than`,
 * `--idle-for` and thread filters. Everything a kept checkpoint needs stays: its pending writes (they hang off its
 * id), the blobs its `channel_versions` name (removed only when no remaining checkpoint names them, by the store),
 * and with DeltaChannel the ancestors back to a snapshot (LANGGRAPH.md §6: a delta channel is rebuilt from the
 * writes of the parent chain since the last `_DeltaSnapshot`; metadata `counters_since_delta_snapshot` counts them).
 * Times come from the checkpoint ids (uuid6 timestamps, §2.3), so planning reads no payload.
 */
import { usageError } from "../base/errors.js";
import type { DeltaKept, PruneHead, ThreadPlan } from "../savers/langgraph/shared.js";

export type { DeltaKept, PruneHead, ThreadPlan };

export interface PruneCriteria {
  keepLast?: number;
  /** delete checkpoints older than this many ms (the newest of each namespace always stays) */
  olderThanMs?: number;
  /** delete whole threads whose newest checkpoint is older than this many ms */
  idleForMs?: number;
  /** no criterion but a thread filter: delete the filtered threads whole */
  wholeThreads?: boolean;
  /** when the prune started (ms since the epoch) */
  now: number;
}

const UUID_EPOCH_MS = 12219292800000; // 1582-10-15 → 1970-01-01

const UUID6 = /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-/i;

/** The time (ms since the epoch) in a uuid6 checkpoint id, or undefined when the id is not a uuid6. */
export function uuid6Time(id: string): number | undefined {
  if (!UUID6.test(id)) return undefined;
  // 60 bits of 100 ns: hi · 2^28 + lo, divided by 10,000 without leaving exact doubles (2^28 = 26843 · 10,000 + 5456)
  const hi = parseInt(id.slice(0, 8), 16);
  const lo = parseInt(id.slice(9, 13), 16) * 4096 + parseInt(id.slice(15, 18), 16);
  return hi * 26843 + Math.floor((hi * 5456 + lo) / 10000) - UUID_EPOCH_MS;
}

/** A uuid6-shaped id for a time: every checkpoint id written later sorts after it. */
export function uuid6Floor(ms: number): string {
  const h = (BigInt(Math.floor(ms) + UUID_EPOCH_MS) * 10000n).toString(16).padStart(15, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-6${h.slice(12, 15)}-0000-000000000000`;
}

/** `30d`, `12h`, `90m`, `45s`, `500ms`, `2w` → ms. */
export function parseDuration(flag: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(v.trim());
  if (!m) throw usageError(`${flag} ${v}: expected a duration such as 30d, 12h, 90m, 45s`);
  const unit = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[m[2] as "ms"];
  return Number(m[1]) * unit;
}

const hasPendingDelta = (h: PruneHead) =>
  h.deltaCounters != null &&
  Object.values(h.deltaCounters).some((c) => (Array.isArray(c) ? c.some((x) => Number(x) > 0) : Number(c) > 0));

interface Timed {
  h: PruneHead;
  /** uuid6 time of the id, -Infinity when it has none */
  t: number;
}

/** The plan for one thread (all its namespaces). Each id's time is read once. */
export function planThread(threadId: string, heads: PruneHead[], c: PruneCriteria): ThreadPlan {
  if (heads.length === 0) return { threadId, whole: false, remove: [], keep: 0 };
  let newest = -Infinity;
  // checkpoints written after the prune started are neither deleted nor counted among the newest N
  const old: Timed[] = [];
  for (const h of heads) {
    const t = uuid6Time(h.id) ?? -Infinity;
    if (t > newest) newest = t;
    if (t < c.now) old.push({ h, t });
  }
  if (c.wholeThreads || (c.idleForMs !== undefined && c.now - newest > c.idleForMs))
    return {
      threadId,
      whole: old.length === heads.length,
      remove: old.map((x) => x.h),
      keep: heads.length - old.length,
    };
  if (c.keepLast === undefined && c.olderThanMs === undefined)
    return { threadId, whole: false, remove: [], keep: heads.length };
  const byNs = new Map<string, Timed[]>();
  for (const x of old) (byNs.get(x.h.ns) ?? byNs.set(x.h.ns, []).get(x.h.ns)!).push(x);
  const remove: PruneHead[] = [];
  let delta: DeltaKept[] | undefined;
  const keepN = Math.max(1, c.keepLast ?? 1);
  const cutoff = c.olderThanMs === undefined ? Infinity : c.now - c.olderThanMs;
  for (const list of byNs.values()) {
    list.sort((a, b) => (a.h.id < b.h.id ? 1 : a.h.id > b.h.id ? -1 : 0)); // newest first
    const gone = new Set<PruneHead>();
    for (let i = keepN; i < list.length; i++) if (list[i]!.t < cutoff) gone.add(list[i]!.h);
    if (gone.size === 0) continue;
    const asked = list.length - gone.size;
    const chain = keepDeltaAncestors(list, gone);
    if (chain) (delta ??= []).push({ ns: list[0]!.h.ns, asked, kept: list.length - gone.size, ...chain });
    for (const x of list) if (gone.has(x.h)) remove.push(x.h);
  }
  return { threadId, whole: false, remove, keep: heads.length - remove.length, ...(delta ? { delta } : {}) };
}

/** The channels a checkpoint's counters say have updates since their snapshot. */
const pendingChannels = (h: PruneHead): string[] =>
  Object.entries(h.deltaCounters ?? {})
    .filter(([, c]) => (Array.isArray(c) ? c.some((x) => Number(x) > 0) : Number(c) > 0))
    .map(([ch]) => ch);

/**
 * DeltaChannel: a kept checkpoint with updates since its last snapshot needs its parent chain back to one (its value
 * is rebuilt from that snapshot and the writes since, which hang off the checkpoints between). Rescues them from
 * `gone`; says how far the newest kept checkpoint's chain reaches (undefined when nothing had to be kept).
 */
function keepDeltaAncestors(
  list: Timed[],
  gone: Set<PruneHead>,
): Pick<DeltaKept, "from" | "reach" | "snapshot" | "channels"> | undefined {
  let byId: Map<string, PruneHead> | undefined;
  let far: Pick<DeltaKept, "from" | "reach" | "snapshot" | "channels"> | undefined;
  for (const { h } of list) {
    if (gone.has(h)) continue;
    let cur: PruneHead | undefined = h;
    while (cur && hasPendingDelta(cur) && cur.parentId) {
      byId ??= new Map(list.map((x) => [x.h.id, x.h]));
      const parent = byId.get(cur.parentId);
      if (!parent || !gone.delete(parent)) break;
      cur = parent;
    }
    // the chain that reaches back farthest (ids sort by time): where it ends, and why there
    if (cur && cur !== h && (!far || cur.id < far.reach))
      far = { from: h.id, reach: cur.id, snapshot: !hasPendingDelta(cur), channels: pendingChannels(h) };
  }
  return far;
}
