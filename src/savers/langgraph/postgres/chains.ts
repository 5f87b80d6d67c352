/**
 * DeltaChannel parent chains of a LangGraph PostgreSQL store (LgReader.deltaChain, deltaChains): to the first
 * checkpoint that stores the channel — its blob row at the checkpoint's version (not `empty`), or an inline JSONB
 * value (Python keeps a snapshot's sentinel `true` inline, the blob beside it) — with the channel's writes of each
 * checkpoint. One thread's chain is one recursive query; the chains of a page of `ls` heads are read by key range (the
 * threads' root checkpoints' ids, parents and channel versions, the channel's non-empty blob rows and its writes, in
 * ordered index range scans) and walked here, which reads each row once in index order instead of an index probe per
 * step; threads with long histories (more root checkpoints than RANGE_MAX) keep the recursive query, which reads only
 * as far as the chain goes.
 */
import type { DeltaChainRow, LgReader, LgStoreInfo } from "../../../formats/langgraph/types.js";
import { PG_READ } from "../sql.js";

/** `arrays`: each row as an array of its columns (pg's `rowMode: "array"`) */
type Query = <R>(sql: string, args?: unknown[], arrays?: boolean) => Promise<R[]>;
/** A query whose text conversion the server may refuse (invalid UTF-8, NUL): undefined then. */
type TextQuery = <R>(sql: string, args: unknown[], arrays?: boolean) => Promise<R[] | undefined>;

/** One checkpoint of a chain and one of its writes (none: write columns null), as the recursive queries give them. */
interface PgChainRow {
  thread?: string;
  id: string;
  parent: string | null;
  btype: string | null;
  blob: Uint8Array | null;
  inline: unknown;
  has_inline: boolean;
  task_id: string | null;
  idx: number;
  wtype: string | null;
  wvalue: Uint8Array | null;
  task_path: string;
}

/** Chain rows (one per checkpoint and write, in chain order) grouped back into checkpoints. */
function chainRowsOf(rows: PgChainRow[], channel: string): DeltaChainRow[] {
  const out: DeltaChainRow[] = [];
  for (const r of rows) {
    let last = out[out.length - 1];
    if (last?.checkpointId !== r.id) {
      last = {
        checkpointId: r.id,
        parentId: r.parent,
        // the sentinel `true` with no blob row is a snapshot that is missing (the caller says so)
        value: r.btype === null && r.has_inline ? JSON.stringify(r.inline) : null,
        ...(r.btype !== null ? { stored: { type: r.btype, data: r.blob } } : {}),
        writes: [],
      };
      out.push(last);
    }
    if (r.task_id !== null)
      last.writes.push({
        task_id: r.task_id,
        idx: r.idx,
        channel,
        type: r.wtype,
        value: r.wvalue,
        task_path: r.task_path,
      });
  }
  return out;
}

export function deltaChainOf(q: Query, S: string, info: LgStoreInfo): NonNullable<LgReader["deltaChain"]> {
  return async (threadId, namespace, fromId, channel, limit) =>
    chainRowsOf(
      await q<PgChainRow>(PG_READ.deltaChain(S, Boolean(info.taskPath)), [threadId, namespace, fromId, channel, limit]),
      channel,
    );
}

/** task ids in code-unit order, null first (the order the chain rows' writes are given in) */
const cmpTask = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;

/** Many threads' chains by the recursive query, one round trip. */
function recursiveChains(q: Query, S: string, info: LgStoreInfo): NonNullable<LgReader["deltaChains"]> {
  return async (starts, namespace, channel, limit) => {
    const rows = await q<PgChainRow & { thread: string; depth: number }>(
      PG_READ.deltaChains(S, Boolean(info.taskPath)),
      [starts.map((s) => s.threadId), starts.map((s) => s.fromId), namespace, channel, limit],
    );
    const byThread = new Map<string, Array<PgChainRow & { depth: number }>>();
    for (const r of rows) (byThread.get(r.thread) ?? byThread.set(r.thread, []).get(r.thread)!).push(r);
    return new Map(
      [...byThread].map(([t, rs]) => [
        t,
        chainRowsOf(
          rs.sort((a, b) => a.depth - b.depth || cmpTask(a.task_id, b.task_id) || a.idx - b.idx),
          channel,
        ),
      ]),
    );
  };
}

/** Threads with at most this many root checkpoints have their chains read by key range (see the module comment). */
export const RANGE_MAX = 128;

/**
 * A checkpoint's facts: chainFacts' row as pg gives it in array mode (no object made per checkpoint) — thread,
 * checkpoint id, parent id, `checkpoint -> 'channel_versions' ->> channel`, whether `channel_values` holds the channel.
 */
type CpFact = readonly [thread: string, id: string, parent: string | null, version: string | null, inline: boolean];
/** One write of a chain, as a chain row hands it on. */
interface WriteRow {
  thread_id: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  type: string | null;
  channel: string;
  /** the payload: a json payload's text where the server gave it (chainWritesText), else its bytes */
  value: Uint8Array | string | null;
  task_path: string;
}

/** chainWrites' and chainWritesText's columns, as arrays: thread, checkpoint, task, idx, type, bytes, text[, task_path] */
type WriteCols = [string, string, string, number, string | null, Uint8Array | null, (string | null)?, string?];

/**
 * A page's writes: json payloads as text where the server can convert them (UTF-8, no NUL), else every payload as
 * bytes. A text is what the UTF-8 decoding of its bytes gives (a leading byte order mark dropped, as TextDecoder does).
 * The rows come as arrays (no row object per write from pg): each is made into the chain row's write here.
 */
async function writesOf(
  q: Query,
  qText: TextQuery | undefined,
  S: string,
  taskPath: boolean,
  args: unknown[],
): Promise<WriteRow[]> {
  const channel = args[2] as string;
  const text = qText && (await qText<WriteCols>(PG_READ.chainWritesText(S, taskPath), args, true));
  const rows = text ?? (await q<WriteCols>(PG_READ.chainWrites(S, taskPath), args, true));
  const p = text ? 7 : 6; // the task_path column, when there is one
  const out: WriteRow[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const t = text ? r[6] : null;
    out[i] = {
      thread_id: r[0],
      checkpoint_id: r[1],
      task_id: r[2],
      idx: r[3],
      type: r[4],
      channel,
      value: t == null ? r[5] : t.charCodeAt(0) === 0xfeff ? t.slice(1) : t,
      task_path: taskPath ? (r[p] as string) : "",
    };
  }
  return out;
}

const k2 = (a: string, b: string) => `${a}\u0000${b}`;

/** `rows` by thread id, then by `key` (rows of one key keep their order). */
function byThreadAnd<R extends { thread_id: string }>(rows: R[], key: (r: R) => string): Map<string, Map<string, R[]>> {
  const m = new Map<string, Map<string, R[]>>();
  let t: string | undefined;
  let inner: Map<string, R[]> | undefined;
  for (const r of rows) {
    if (r.thread_id !== t) {
      t = r.thread_id;
      inner = m.get(t);
      if (!inner) m.set(t, (inner = new Map()));
    }
    const k = key(r);
    const g = inner!.get(k);
    if (g) g.push(r);
    else inner!.set(k, [r]);
  }
  return m;
}

/** writes in (task_id, idx) order: as the server sent them when they are (the primary key's order), else sorted */
function inTaskOrder(ws: WriteRow[]): WriteRow[] {
  for (let i = 1; i < ws.length; i++) {
    const a = ws[i - 1]!;
    const b = ws[i]!;
    if ((cmpTask(a.task_id, b.task_id) || a.idx - b.idx) > 0)
      return [...ws].sort((x, y) => cmpTask(x.task_id, y.task_id) || x.idx - y.idx);
  }
  return ws;
}

/** checkpoint facts by thread id, then checkpoint id */
function factsByThread(rows: CpFact[]): Map<string, Map<string, CpFact>> {
  const m = new Map<string, Map<string, CpFact>>();
  let t: string | undefined;
  let ids: Map<string, CpFact> | undefined;
  for (const r of rows) {
    if (r[0] !== t) {
      t = r[0];
      ids = m.get(t);
      if (!ids) m.set(t, (ids = new Map()));
    }
    ids!.set(r[1], r);
  }
  return m;
}

/** A walked chain: its checkpoints from the first, and the type of the blob row the last one stores (if it does). */
interface Walk {
  steps: CpFact[];
  btype: string | null;
}

/**
 * The steps of one chain, as the recursive query takes them: from `fromId` to its parent while the checkpoint is found,
 * stores no value (blob row or inline) and fewer than `limit` are taken (a cycle is walked round to the limit, as the
 * query does: the caller says it is one). Only the last step can store a value.
 */
function walkChain(cps: Map<string, CpFact>, blobType: Map<string, string>, fromId: string, limit: number): Walk {
  const steps: CpFact[] = [];
  let cur: string | null = fromId;
  while (cur !== null && steps.length < limit) {
    const cp = cps.get(cur);
    if (!cp) break;
    const version = cp[3];
    const btype = version === null || blobType.size === 0 ? null : (blobType.get(k2(cp[0], version)) ?? null);
    steps.push(cp);
    if (btype !== null) return { steps, btype };
    if (cp[4]) break;
    cur = cp[2];
  }
  return { steps, btype: null };
}

/** The stored values the chains end at: blob rows' payloads and inline values, by thread\0checkpoint id. */
async function seedValues(
  q: Query,
  S: string,
  namespace: string,
  channel: string,
  walks: Walk[],
): Promise<{ blobs: Map<string, Uint8Array | null>; inline: Map<string, unknown> }> {
  const stored: CpFact[] = [];
  const inl: CpFact[] = [];
  for (const w of walks) {
    const end = w.steps[w.steps.length - 1];
    if (end && w.btype !== null) stored.push(end);
    else if (end?.[4]) inl.push(end);
  }
  const b = stored.length
    ? await q<{ thread_id: string; version: string; blob: Uint8Array | null }>(PG_READ.chainBlobs(S), [
        stored.map((e) => e[0]),
        namespace,
        channel,
        stored.map((e) => e[3]),
      ])
    : [];
  const i = inl.length
    ? await q<{ thread_id: string; checkpoint_id: string; inline: unknown }>(PG_READ.chainInline(S), [
        inl.map((e) => e[0]),
        namespace,
        channel,
        inl.map((e) => e[1]),
      ])
    : [];
  const byVersion = new Map(b.map((r) => [k2(r.thread_id, r.version), r.blob]));
  return {
    blobs: new Map(stored.map((e) => [k2(e[0], e[1]), byVersion.get(k2(e[0], e[3]!)) ?? null])),
    inline: new Map(i.map((r) => [k2(r.thread_id, r.checkpoint_id), r.inline])),
  };
}

/** Many threads' chains by key range, walked here (threads with few root checkpoints: see the module comment). */
function rangeChains(
  q: Query,
  S: string,
  info: LgStoreInfo,
  qText: TextQuery | undefined,
): NonNullable<LgReader["deltaChains"]> {
  return async (starts, namespace, channel, limit) => {
    const threads = [...new Set(starts.map((s) => s.threadId))];
    // asked for together: the reader runs them in turn, the next while this process reads the one before
    const cpRowsP = q<CpFact>(PG_READ.chainFacts(S), [threads, namespace, channel], true);
    const blobRowsP = q<[string, string, string]>(PG_READ.chainBlobFacts(S), [threads, namespace, channel], true);
    const writeRowsP = writesOf(q, qText, S, Boolean(info.taskPath), [threads, namespace, channel]);
    for (const p of [blobRowsP, writeRowsP]) p.catch(() => undefined); // awaited below, after the first
    const byThread = factsByThread(await cpRowsP);
    const blobType = new Map((await blobRowsP).map(([thread, version, type]) => [k2(thread, version), type]));
    const writes = byThreadAnd(await writeRowsP, (w) => w.checkpoint_id);
    const none = new Map<string, CpFact>();
    const walks = starts.map((s) => walkChain(byThread.get(s.threadId) ?? none, blobType, s.fromId, limit));
    const seeds = await seedValues(q, S, namespace, channel, walks);
    const out = new Map<string, DeltaChainRow[]>();
    for (let k = 0; k < starts.length; k++) {
      const { steps, btype } = walks[k]!;
      if (!steps.length) continue;
      const last = steps.length - 1;
      const thread = writes.get(starts[k]!.threadId);
      const rows: DeltaChainRow[] = new Array(steps.length);
      for (let j = 0; j <= last; j++) {
        const cp = steps[j]!;
        const id = cp[1];
        const row: DeltaChainRow = {
          checkpointId: id,
          parentId: cp[2],
          value: null,
          writes: inTaskOrder(thread?.get(id) ?? []),
        };
        if (j === last && btype !== null) row.stored = { type: btype, data: seeds.blobs.get(k2(cp[0], id)) ?? null };
        // the sentinel `true` with no blob row is a snapshot that is missing (the caller says so)
        else if (cp[4]) row.value = JSON.stringify(seeds.inline.get(k2(cp[0], id))) ?? null;
        rows[j] = row;
      }
      out.set(starts[k]!.threadId, rows);
    }
    return out;
  };
}

/**
 * Many threads' chains (`ls` of a DeltaChannel store: a page of heads at a time): the threads whose root checkpoints
 * are few (`checkpoints`, from the summary) by key range, the others by the recursive query.
 */
export function deltaChainsOf(
  q: Query,
  S: string,
  info: LgStoreInfo,
  qText?: TextQuery,
): NonNullable<LgReader["deltaChains"]> {
  const recursive = recursiveChains(q, S, info);
  const ranged = rangeChains(q, S, info, qText);
  return async (starts, namespace, channel, limit) => {
    const small = starts.filter((s) => s.checkpoints !== undefined && s.checkpoints <= RANGE_MAX);
    const big = starts.filter((s) => !(s.checkpoints !== undefined && s.checkpoints <= RANGE_MAX));
    const a = small.length ? await ranged(small, namespace, channel, limit) : new Map<string, DeltaChainRow[]>();
    const b = big.length ? await recursive(big, namespace, channel, limit) : new Map<string, DeltaChainRow[]>();
    for (const [t, rows] of b) a.set(t, rows);
    return a;
  };
}
