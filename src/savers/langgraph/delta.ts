/**
 * A LangGraph reader whose tuples carry their DeltaChannel values (src/formats/langgraph/delta.ts): every way a tuple
 * leaves the reader (getTuple, list, scan, history, the `ls` summaries) has its snapshots unwrapped and its delta
 * channels rebuilt from the parent chain, as the libraries' `get_delta_channel_history` does. Wraps any `LgReader`;
 * the rows come from the wrapped reader (`getTuple` of each ancestor), the rebuild itself is pure.
 *
 * Cost: a scan in (thread, namespace, id) order rebuilds each checkpoint from its parent's value (kept a while), so
 * it walks one step; a single `getTuple` walks back to the nearest stored value (at most `snapshot_frequency` steps).
 * Ancestors read by a walk and values rebuilt are kept in small bounded caches.
 */
import {
  applyDeltaWalk,
  replayDeltaCount,
  channelWrites,
  countedDeltaChannels,
  deltaChannelsToReplay,
  seedOf,
  unwrapSnapshots,
  type DeltaWalk,
} from "../../formats/langgraph/delta.js";
import type { AesKey } from "../../formats/langgraph/aes-key.js";
import { historyEntry } from "../../formats/langgraph/tuple.js";
import { decodeJson, decodeTyped, messageCount } from "../../formats/langgraph/serde.js";
import { unreadableReport } from "../../formats/langgraph/unreadable.js";
import { inputError } from "../../base/errors.js";
import {
  isRecord,
  type DeltaChainRow,
  type LgCheckpointTuple,
  type LgDecodeIssue,
  type LgHistoryEntry,
  type LgReader,
  type LgRowRef,
  type LgThreadSummary,
} from "../../formats/langgraph/types.js";

/** A bounded map: the oldest entries go first. */
class Bounded<V> {
  private m = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    return this.m.get(k);
  }
  get size(): number {
    return this.m.size;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.max) this.m.delete(this.m.keys().next().value!);
  }
}

const key = (t: { threadId: string; namespace: string }, id: string, ch = "") =>
  `${t.threadId}\u0000${t.namespace}\u0000${id}\u0000${ch}`;

/** Rebuilds the delta channels of tuples from one reader, keeping what it read and rebuilt in bounded caches. */
class DeltaRebuilder {
  // ancestors as stored (not rebuilt), and values rebuilt or stored at a checkpoint, per channel
  private readonly raw = new Bounded<LgCheckpointTuple | null>(512);
  private readonly values = new Bounded<{ value: unknown }>(1024);
  constructor(private readonly inner: LgReader) {}

  private async ancestor(t: LgCheckpointTuple, id: string): Promise<LgCheckpointTuple | undefined> {
    const k = key(t, id);
    let a = this.raw.get(k);
    if (a === undefined) {
      a = (await this.inner.getTuple(t.threadId, t.namespace, id)) ?? null;
      this.raw.set(k, a);
    }
    return a ?? undefined;
  }

  /**
   * The walk on a reader that reads a parent chain in one round trip (`deltaChain`): only the channel's writes and the
   * seed are decoded. Undefined when the reader has no such read (the walk then reads each ancestor's tuple).
   */
  private async chainWalk(t: LgCheckpointTuple, ch: string, first?: DeltaChainRow[]): Promise<DeltaWalk | undefined> {
    const chain = this.inner.deltaChain?.bind(this.inner);
    if (!chain) return undefined;
    const writes: LgPendingWrite[][] = [];
    const seen = new Set([t.checkpointId]);
    let walked = 0;
    const done = (w: Omit<DeltaWalk, "writes" | "walked">): DeltaWalk => ({
      ...w,
      writes: oldestFirst(writes),
      walked,
    });
    let cursor = t.parentId;
    while (cursor !== null) {
      const rows = first ?? (await chain(t.threadId, t.namespace, cursor, ch, CHAIN_LIMIT));
      first = undefined;
      if (rows.length === 0) return done({ seedId: null, broken: { kind: "missing-parent", id: cursor } });
      for (const r of rows) {
        if (seen.has(r.checkpointId)) return done({ seedId: null, broken: { kind: "cycle", id: r.checkpointId } });
        seen.add(r.checkpointId);
        walked++;
        writes.push(decodeChainWrites(t, r, this.inner.aesKey));
        const sink = () => ({
          row: t.row,
          pointer: "/checkpoint",
          issues: [] as LgDecodeIssue[],
          aesKey: this.inner.aesKey,
        });
        let stored =
          r.value !== null
            ? { value: decodeJson(r.value) }
            : r.stored
              ? { value: decodeTyped(r.stored.type, r.stored.data, sink()) }
              : undefined;
        if (!stored && r.raw) {
          const cp = decodeTyped(r.raw.type, r.raw.checkpoint, sink());
          const cv = isRecord(cp) && isRecord(cp.channel_values) ? cp.channel_values : {};
          if (ch in cv) stored = { value: cv[ch] };
        }
        if (stored) {
          const seed = seedOf(stored.value);
          return seed
            ? done({ seed, seedId: r.checkpointId })
            : done({ seedId: r.checkpointId, broken: { kind: "missing-snapshot", id: r.checkpointId } });
        }
        // (nothing rebuilt yet, as in an `ls`: no key to build per step)
        const known = this.values.size ? this.values.get(key(t, r.checkpointId, ch)) : undefined;
        if (known) return done({ seed: known, seedId: r.checkpointId });
      }
      const last = rows[rows.length - 1]!;
      cursor = last.parentId;
    }
    return done({ seedId: null });
  }

  /**
   * `ls`: the message count of a thread whose head (per its metadata) has a DeltaChannel `messages` and stores no list,
   * from one chain read starting at the head (its own writes are pending, not applied). Undefined when that does not
   * settle it (no chain read, a broken chain, writes that do not replay): the caller rebuilds the whole tuple.
   */
  async headCount(s: LgThreadSummary, prefetched?: DeltaChainRow[], deepagents = false): Promise<number | undefined> {
    const chain = this.inner.deltaChain?.bind(this.inner);
    if (!chain || s.newestId === null) return undefined;
    const rows = prefetched ?? (await chain(s.threadId, "", s.newestId, "messages", CHAIN_LIMIT));
    const head = rows[0];
    if (!head || head.value !== null || head.stored) return undefined;
    if (head.raw) {
      // a row the store cannot look into (msgpack): is the list stored at the head after all?
      const cp = decodeTyped(head.raw.type, head.raw.checkpoint, {
        row: this.rowOf(s),
        pointer: "",
        issues: [],
        aesKey: this.inner.aesKey,
      });
      if (!isRecord(cp) || !isRecord(cp.channel_values) || "messages" in cp.channel_values) return undefined;
    }
    const t = {
      threadId: s.threadId,
      namespace: "",
      checkpointId: s.newestId,
      parentId: head.parentId,
      library: s.library,
      row: this.rowOf(s),
    } as LgCheckpointTuple;
    const walk = await this.chainWalk(t, "messages", rows.length > 1 ? rows.slice(1) : undefined);
    if (!walk || walk.broken || walk.writes.some((w) => w.value === undefined)) return undefined;
    return replayDeltaCount(
      walk.seed?.value,
      walk.writes.map((w) => w.value),
      { library: s.library, deepagents },
    );
  }

  private rowOf(s: LgThreadSummary): LgRowRef {
    return {
      store: this.inner.info.store,
      table: "checkpoints",
      threadId: s.threadId,
      namespace: "",
      checkpointId: s.newestId ?? undefined,
    };
  }

  /**
   * Walk `t`'s parents for `ch` to the nearest stored (or already rebuilt) value, collecting the writes on the way
   * (`first`: the chain from the parent, already read).
   */
  private async walk(t: LgCheckpointTuple, ch: string, first?: DeltaChainRow[]): Promise<DeltaWalk> {
    // a scan has the parent's value already: no read at all
    const parentValue = t.parentId !== null ? this.values.get(key(t, t.parentId, ch)) : undefined;
    if (!parentValue) {
      const fast = await this.chainWalk(t, ch, first);
      if (fast) return fast;
    }
    const writes: LgPendingWrite[][] = [];
    const seen = new Set([t.checkpointId]);
    let cursor = t.parentId;
    let walked = 0;
    const done = (w: Omit<DeltaWalk, "writes" | "walked">): DeltaWalk => ({
      ...w,
      writes: writes.reverse().flat(),
      walked,
    });
    while (cursor !== null) {
      if (seen.has(cursor)) return done({ seedId: null, broken: { kind: "cycle", id: cursor } });
      seen.add(cursor);
      const known = this.values.get(key(t, cursor, ch));
      const a = await this.ancestor(t, cursor);
      if (!a) return done({ seedId: null, broken: { kind: "missing-parent", id: cursor } });
      walked++;
      writes.push(channelWrites(a.pendingWrites, ch));
      const cv = a.checkpoint.channel_values;
      if (ch in cv) {
        const seed = seedOf(cv[ch]);
        return seed
          ? done({ seed, seedId: cursor })
          : done({ seedId: cursor, broken: { kind: "missing-snapshot", id: cursor } });
      }
      if (known) return done({ seed: known, seedId: cursor });
      cursor = a.parentId;
    }
    return done({ seedId: null });
  }

  /**
   * A tuple read and rebuilt elsewhere (a scan): kept as an ancestor, so that a child's walk finds it with its writes
   * and its value (stored or rebuilt: either is the value at that checkpoint) without reading it again.
   */
  seen(t: LgCheckpointTuple): void {
    if (t.delta || countedDeltaChannels(t).length > 0) this.raw.set(key(t, t.checkpointId), t);
  }

  /** `t` with its snapshots unwrapped and its delta channels rebuilt (in place; `chains`: by channel, read already). */
  async rebuild(t: LgCheckpointTuple, chains?: Map<string, DeltaChainRow[]>): Promise<LgCheckpointTuple> {
    const cv = t.checkpoint.channel_values;
    for (const ch of countedDeltaChannels(t)) {
      if (cv[ch] !== true || t.row.store !== "postgres") continue;
      // Python PostgresSaver's delta sentinel with no blob row under it: the snapshot is missing
      delete cv[ch];
      t.issues.push({
        row: t.row,
        pointer: `/checkpoint/channel_values/${ch.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        reason: "delta-missing-snapshot",
        message: `the DeltaChannel sentinel '${ch}: true' has no checkpoint_blobs row with its snapshot: '${ch}' cannot be read`,
        fatal: true,
      });
    }
    for (const ch of unwrapSnapshots(t)) this.values.set(key(t, t.checkpointId, ch), { value: cv[ch] });
    for (const ch of deltaChannelsToReplay(t)) {
      const first = chains?.get(ch);
      applyDeltaWalk(t, ch, await this.walk(t, ch, first?.length ? first : undefined));
      if (ch in cv) this.values.set(key(t, t.checkpointId, ch), { value: cv[ch] });
    }
    return t;
  }
}

/** The writes of a walk (newest checkpoint first) in one list, oldest first. */
function oldestFirst(writes: LgPendingWrite[][]): LgPendingWrite[] {
  const out: LgPendingWrite[] = [];
  for (let i = writes.length - 1; i >= 0; i--) for (const w of writes[i]!) out.push(w);
  return out;
}

/** A chain row's writes as pending writes (a value that does not decode stays undefined: the replay reports it). */
function decodeChainWrites(t: LgCheckpointTuple, r: DeltaChainRow, aesKey: AesKey | undefined): LgPendingWrite[] {
  const sink = { row: t.row, pointer: "/pendingWrites", issues: [] as LgDecodeIssue[], aesKey };
  const ws = r.writes.map((w) => ({
    taskPath: w.task_path,
    taskId: w.task_id,
    idx: w.idx,
    channel: w.channel,
    type: w.type,
    value: decodeTyped(w.type, w.value, sink),
    bytes: 0,
  }));
  return channelWrites(ws, ws[0]?.channel ?? "");
}

/** How far back a chain read goes before the walk reads on (a DeltaChannel snapshots at least every 1000 updates). */
const CHAIN_LIMIT = 1000;
/** `ls` summaries settled together (one `deltaChains` round trip). */
const SUMMARY_PAGE = 500;

export function withDeltaChannels(inner: LgReader): LgReader {
  const d = new DeltaRebuilder(inner);
  const rebuild = (t: LgCheckpointTuple) => d.rebuild(t);
  const maybe = async (t: LgCheckpointTuple | undefined) => (t ? rebuild(t) : undefined);

  /** A summary with no message list at the head may be a delta head: the rebuilt head says (`chain`: prefetched). */
  const summarize = async (s: LgThreadSummary, chain?: DeltaChainRow[]): Promise<LgThreadSummary> => {
    const counted = s.deltaChannels?.includes("messages");
    const deepagents = s.deltaChannels?.includes("files") ?? false;
    delete s.deltaChannels;
    if (s.messages === null && counted) {
      const n = await d.headCount(s, chain?.length ? chain : undefined, deepagents);
      if (n !== undefined) {
        s.messages = n;
        return s;
      }
    }
    if (s.messages === null && s.newestId !== null) {
      const t = await reader.getTuple(s.threadId, "", s.newestId);
      // a head that does not decode has no count to give (listed without one; validate names the rows); an
      // encrypted one without its key stops the listing, saying how to give the key
      const bad = t && unreadableReport(t);
      if (bad && t.issues.some((i) => i.fatal && i.reason === "encrypted"))
        throw inputError("langgraph-undecodable", bad, { file: `${inner.uri}#${s.threadId}` });
      if (t?.delta) s.messages = messageCount(t.checkpoint.channel_values);
    }
    return s;
  };

  const reader: LgReader = {
    get uri() {
      return inner.uri;
    },
    get info() {
      return inner.info;
    },
    get aesKey() {
      return inner.aesKey;
    },
    threads: (options) => summaryPages(inner, summarize, options),
    async *list(options) {
      for await (const t of inner.list(options)) yield await rebuild(t);
    },
    countThreads: () => inner.countThreads(),
    namespacesOf: (threadId) => inner.namespacesOf(threadId),
    checkpointIds: (threadId, namespace) => inner.checkpointIds(threadId, namespace),
    history: (threadId, namespace = "") => historyOf(reader, threadId, namespace),
    getTuple: async (threadId, namespace, checkpointId) =>
      maybe(await inner.getTuple(threadId, namespace, checkpointId)),
    ...(inner.newestTuples
      ? {
          newestTuples: async (
            threadIds: readonly string[],
            namespace: string,
            o?: { text?: (s: string) => boolean },
          ) => {
            const ts = await inner.newestTuples!(threadIds, namespace, o);
            const chains = inner.deltaChains ? await pageChains(inner, ts, namespace) : undefined;
            for (const [id, t] of ts) ts.set(id, async () => d.rebuild(await t(), chains?.get(id)));
            return ts;
          },
        }
      : {}),
    async *scan(options) {
      for await (const batch of inner.scan(options)) {
        for (const t of batch) {
          await rebuild(t);
          d.seen(t); // its children (next in the scan) walk one step: to it, with its writes and its value
        }
        yield batch;
      }
    },
    orphanWrites: () => inner.orphanWrites(),
    orphanBlobs: () => inner.orphanBlobs(),
    close: () => inner.close(),
  };
  return reader;
}

/**
 * `LgReader.threads` of a delta reader: a page of summaries at a time, their delta heads' chains in one read
 * (`deltaChains`). One page ahead: the next page's summaries and chains are asked for before this page's heads are
 * rebuilt, so the store reads them while this process decodes (memory: two pages).
 */
async function* summaryPages(
  inner: LgReader,
  summarize: (s: LgThreadSummary, chain?: DeltaChainRow[]) => Promise<LgThreadSummary>,
  options: Parameters<LgReader["threads"]>[0],
): AsyncIterable<LgThreadSummary> {
  const chainsOf = (page: LgThreadSummary[]): Promise<Map<string, DeltaChainRow[]> | undefined> => {
    const heads = page.filter(
      (s) => s.messages === null && s.newestId !== null && s.deltaChannels?.includes("messages"),
    );
    if (!(heads.length > 1 && inner.deltaChains)) return Promise.resolve(undefined);
    const p = inner.deltaChains(
      heads.map((s) => ({ threadId: s.threadId, fromId: s.newestId!, checkpoints: s.checkpoints })),
      "",
      "messages",
      CHAIN_LIMIT,
    );
    p.catch(() => undefined); // awaited in turn; a listing stopped early must not leave it unhandled
    return p;
  };
  const it = inner.threads(options)[Symbol.asyncIterator]();
  const nextPage = async () => {
    const page: LgThreadSummary[] = [];
    while (page.length < SUMMARY_PAGE) {
      const r = await it.next();
      if (r.done) break;
      page.push(r.value);
    }
    return { page, chains: chainsOf(page) };
  };
  try {
    let cur = await nextPage();
    while (cur.page.length) {
      const next = cur.page.length < SUMMARY_PAGE ? undefined : await nextPage();
      const chains = await cur.chains;
      for (const s of cur.page) yield await summarize(s, chains?.get(s.threadId) ?? (chains ? [] : undefined));
      if (!next) break;
      cur = next;
    }
  } finally {
    await it.return?.();
  }
}

/** `LgReader.history` of a delta reader: each rebuilt checkpoint with its parent (the next listed, or fetched). */
async function* historyOf(reader: LgReader, threadId: string, namespace: string): AsyncIterable<LgHistoryEntry> {
  let pending: LgCheckpointTuple | undefined;
  const fetch = (id: string) => reader.getTuple(threadId, namespace, id);
  for await (const t of reader.list({ threadId, namespace })) {
    if (pending)
      yield historyEntry(
        pending,
        pending.parentId === t.checkpointId ? t : pending.parentId ? await fetch(pending.parentId) : undefined,
      );
    pending = t;
  }
  if (pending) yield historyEntry(pending, pending.parentId ? await fetch(pending.parentId) : undefined);
}

type LgPendingWrite = LgCheckpointTuple["pendingWrites"][number];

/**
 * The parent chains the delta heads of a page of newest tuples replay from, one `deltaChains` round trip per
 * channel (a store over the network: not one chain read per thread): thread → channel → chain from the parent. The
 * tuples are decoded to see which are delta heads (a tuple that fails is left to fail when asked for); undefined when
 * the read fails (each walk then reads its own chain).
 */
async function pageChains(
  inner: LgReader,
  ts: Map<string, () => Promise<LgCheckpointTuple>>,
  namespace: string,
): Promise<Map<string, Map<string, DeltaChainRow[]>> | undefined> {
  const byChannel = new Map<string, Array<{ threadId: string; fromId: string }>>();
  for (const [id, get] of ts) {
    const t = await get().catch(() => undefined);
    if (!t) continue;
    ts.set(id, async () => t);
    if (t.parentId === null || unreadableReport(t)) continue;
    for (const ch of deltaChannelsToReplay(t))
      (byChannel.get(ch) ?? byChannel.set(ch, []).get(ch)!).push({ threadId: id, fromId: t.parentId });
  }
  const out = new Map<string, Map<string, DeltaChainRow[]>>();
  try {
    for (const [ch, starts] of byChannel) {
      if (starts.length < 2) continue;
      for (const [id, rows] of await inner.deltaChains!(starts, namespace, ch, CHAIN_LIMIT))
        (out.get(id) ?? out.set(id, new Map()).get(id)!).set(ch, rows);
    }
  } catch {
    return undefined;
  }
  return out;
}
