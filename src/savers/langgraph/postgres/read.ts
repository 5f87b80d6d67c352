/**
 * The reader of a LangGraph PostgreSQL store (LgReader: `ls` rows, lists, tuples, the scan, orphan rows) and its
 * DeltaChannel chains, on the read-only connection. Every listing pages by key (no server-side state).
 */
import type pg from "pg";
import { storeError } from "../../../base/errors.js";
import type { AesKey } from "../../../formats/langgraph/aes-key.js";
import { ListDecoder } from "../../../formats/langgraph/list-decode.js";
import { decodeTyped, messageCount } from "../../../formats/langgraph/serde.js";
import {
  applyPendingSends,
  buildTuple,
  type RawBlobRow,
  type RawCheckpointRow,
  type RawWriteRow,
} from "../../../formats/langgraph/tuple.js";
import type {
  LgCheckpointTuple,
  LgLibrary,
  LgListOptions,
  LgReader,
  LgRowRef,
  LgStoreInfo,
  LgThreadSummary,
} from "../../../formats/langgraph/types.js";
import { historyFrom, idPages, newestFirst, threadPages } from "../shared.js";
import { PG_BLOB_COLS, PG_READ, PG_TEXT_COLS, pgThreadPageSql } from "../sql.js";
import { deltaChainOf, deltaChainsOf } from "./chains.js";
import type { Client, Connections } from "./connect.js";
import { pgErrorText } from "../../pg-errors.js";

const PAGE = 200;
/** scan: tuples decoded and yielded at a time (see scan) */
const DECODE_CHUNK = 20;
const TABLES = { checkpoints: "checkpoints", writes: "checkpoint_writes", blobs: "checkpoint_blobs" };

interface PgThreadRow {
  thread_id: string;
  n: string;
  sub: string;
  ns: string;
  newest: string | null;
  ts: string | null;
  step: unknown;
  bytes: number | null;
  vtype: string | null;
  wbytes: string | null;
  bbytes: string | null;
  mtype: string | null;
  /** the message count the server took from a json blob (null: not json, or not an array) */
  mcount: number | null;
  mblob: Buffer | null;
  /** the head's DeltaChannel counters (metadata) */
  counters: unknown;
}

function summaryOf(p: PgThreadRow, aesKey: AesKey | undefined): LgThreadSummary {
  let messages: number | null = p.mcount;
  if (p.mtype !== null && p.mtype !== "empty" && p.mblob !== null) {
    const v = decodeTyped(p.mtype, p.mblob, {
      row: { store: "postgres", table: "checkpoint_blobs", threadId: p.thread_id, namespace: "", channel: "messages" },
      pointer: "",
      issues: [],
      aesKey,
    });
    messages = messageCount({ messages: v }); // a list, or a DeltaChannel snapshot's
  }
  const library: LgLibrary = p.vtype === "string" ? "python" : p.vtype === "number" ? "js" : "unknown";
  return {
    threadId: p.thread_id,
    checkpoints: Number(p.n),
    subgraphCheckpoints: Number(p.sub),
    namespaces: Number(p.ns),
    newestId: p.newest,
    newestStep: typeof p.step === "number" ? p.step : null,
    messages,
    bytes: (p.bytes ?? 0) + Number(p.wbytes ?? 0) + Number(p.bbytes ?? 0),
    updatedAt: p.ts || null,
    library,
    ...(p.counters && typeof p.counters === "object" ? { deltaChannels: Object.keys(p.counters) } : {}),
  };
}

const versionsOf = (r: RawCheckpointRow): Record<string, unknown> => {
  const v = (r.checkpoint as { channel_versions?: unknown } | null)?.channel_versions;
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
};

type Key = { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
const key3 = (r: Key) => `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`;
const key2 = (t: string, n: string) => `${t}\u0000${n}`;

const ORPHAN_PAGE = 1000;

/** `arrays`: each row as an array of its columns (pg's `rowMode: "array"`), not an object */
type Query = <R>(sql: string, args?: unknown[], arrays?: boolean) => Promise<R[]>;
/** a query on the second connection: undefined when it (or the connection) failed */
type SideQuery = <R>(sql: string) => Promise<R[] | undefined>;
/** A query whose text conversion the server may refuse (invalid UTF-8, NUL): undefined then. */
type TextQuery = <R>(sql: string, args: unknown[], arrays?: boolean) => Promise<R[] | undefined>;

/**
 * Every row of an orphan query, in keyset pages over `cols` (its primary key, the query's ORDER BY): complete however
 * many there are, with memory bounded by the page. `sql(where)` builds the query; `where(alias)` is the keyset
 * condition (with its AND) or "" on the first page.
 */
async function* orphanPages<R extends Record<string, unknown>>(
  q: Query,
  cols: string[],
  sql: (where: (alias: string) => string) => string,
  first?: Promise<R[] | undefined>,
): AsyncIterable<R> {
  let last: R | undefined;
  let early = first && (await first); // the first page, when it was fetched ahead (see orphanQueries)
  for (;;) {
    const args = last ? cols.map((k) => last![k]) : [];
    const where = (a: string) =>
      last ? `(${cols.map((k) => `${a}.${k}`).join(", ")}) > (${cols.map((_, i) => `$${i + 1}`).join(", ")}) AND` : "";
    const rows = early ?? (await q<R>(`${sql(where)} LIMIT ${ORPHAN_PAGE}`, args));
    early = undefined;
    yield* rows;
    if (rows.length < ORPHAN_PAGE) return;
    last = rows[rows.length - 1];
  }
}

/** The blob rows and writes of a page of checkpoint rows, fetched before the page is decoded. */
interface PageParts {
  /** (thread, ns) → "channel\0version" → row */
  blobs: Map<string, Map<string, RawBlobRow>>;
  /** thread\0ns\0id → writes */
  writes: Map<string, RawWriteRow[]>;
}

interface TupleBuilder {
  tuplesOf: (rows: RawCheckpointRow[], withWrites?: boolean) => Promise<LgCheckpointTuple[]>;
  partsOf: (rows: RawCheckpointRow[], withWrites?: boolean, asText?: boolean) => Promise<PageParts>;
  decode: (rows: RawCheckpointRow[], parts: PageParts, lists?: ListDecoder) => Promise<LgCheckpointTuple[]>;
}

/** The decoded tuples of pages of checkpoint rows (their blob rows and writes in two queries), for a reader. */
function tupleBuilder(
  q: Query,
  S: string,
  info: LgStoreInfo,
  aesKey: AesKey | undefined,
  qText?: TextQuery,
): TupleBuilder {
  const keyArgs = (rows: Key[]) => [
    rows.map((r) => r.thread_id),
    rows.map((r) => r.checkpoint_ns),
    rows.map((r) => r.checkpoint_id),
  ];

  /** The decoded tuples of a page of checkpoint rows: their blob rows and writes in two queries. */
  async function tuplesOf(rows: RawCheckpointRow[], withWrites = true): Promise<LgCheckpointTuple[]> {
    if (rows.length === 0) return [];
    return decode(rows, await partsOf(rows, withWrites));
  }

  /** `asText` (and `qText`): json blobs come as their text (RawBlobRow.text); a page whose text the server refuses comes as bytes */
  async function partsOf(rows: RawCheckpointRow[], withWrites = true, asText = false): Promise<PageParts> {
    const want: string[][] = [[], [], [], []];
    for (const r of rows) {
      const versions = versionsOf(r);
      for (const [ch, v] of Object.entries(versions))
        want[0]!.push(r.thread_id), want[1]!.push(r.checkpoint_ns), want[2]!.push(ch), want[3]!.push(String(v));
    }
    const blobs = new Map<string, Map<string, RawBlobRow>>(); // (thread, ns) → "channel\0version" → row
    if (want[0]!.length) {
      type Row = RawBlobRow & { thread_id: string; checkpoint_ns: string };
      const got =
        (asText && qText && (await qText<Row>(PG_READ.blobs(S, PG_TEXT_COLS), want))) ||
        (await q<Row>(PG_READ.blobs(S, PG_BLOB_COLS), want));
      for (const b of got) {
        if (b.text === null) delete b.text;
        const k = key2(b.thread_id, b.checkpoint_ns);
        (blobs.get(k) ?? blobs.set(k, new Map()).get(k)!).set(`${b.channel}\u0000${b.version}`, b);
      }
    }
    const writes = new Map<string, RawWriteRow[]>();
    if (withWrites) {
      for (const w of await q<RawWriteRow & Key>(PG_READ.writes(S, Boolean(info.taskPath)), keyArgs(rows))) {
        const k = key3(w);
        (writes.get(k) ?? writes.set(k, []).get(k)!).push(w);
      }
    }
    return { blobs, writes };
  }

  async function decode(
    rows: RawCheckpointRow[],
    { blobs, writes }: PageParts,
    lists?: ListDecoder,
  ): Promise<LgCheckpointTuple[]> {
    const out = rows.map((r) => {
      const versions = versionsOf(r);
      const mine = blobs.get(key2(r.thread_id, r.checkpoint_ns));
      const own: RawBlobRow[] = [];
      for (const [ch, v] of Object.entries(versions)) {
        const b = mine?.get(`${ch}\u0000${String(v)}`);
        if (b) own.push(b);
      }
      return buildTuple("postgres", TABLES, r, writes.get(key3(r)) ?? [], own, { aesKey, lists });
    });
    for (const t of out) await withSends(t);
    return out;
  }

  /** The PostgreSQL savers' v<4 migration: when the parent has `__pregel_tasks` writes (Python orders them by task_path first). */
  async function withSends(t: LgCheckpointTuple): Promise<void> {
    if (!(t.parentId && typeof t.checkpoint.v === "number" && t.checkpoint.v < 4)) return;
    const sends = await q<RawWriteRow>(PG_READ.sends(S, Boolean(info.taskPath)), [t.threadId, t.namespace, t.parentId]);
    if (sends.length) applyPendingSends(t, sends, TABLES.writes, aesKey);
  }
  return { tuplesOf, partsOf, decode };
}

const firstPage = (sql: (where: (alias: string) => string) => string) => `${sql(() => "")} LIMIT ${ORPHAN_PAGE}`;

/**
 * Rules 8 and 15's rows: writes without their checkpoint, blobs no checkpoint names (complete, streamed). These
 * anti-joins are the server's longest statements (seconds on a store of 200,000 checkpoints): `prefetch` runs their
 * first pages on a second connection while the scan reads on the first, and the listings start from those pages
 * (a prefetch that failed is asked again on the first connection, so its error comes where it always did).
 */
function orphanQueries(
  q: Query,
  S: string,
): Pick<LgReader, "orphanWrites" | "orphanBlobs"> & { prefetch(side: SideQuery): void } {
  type W = Key & { task_id: string; idx: number; channel: string };
  type B = { thread_id: string; checkpoint_ns: string; channel: string; version: string };
  const writesSql = (where: (alias: string) => string) => PG_READ.orphanWrites(S, where);
  const blobsSql = (where: (alias: string) => string) => PG_READ.orphanBlobs(S, where);
  const early: { writes?: Promise<W[] | undefined>; blobs?: Promise<B[] | undefined> } = {};
  return {
    prefetch(side) {
      if (early.writes || early.blobs) return;
      early.writes = side<W>(firstPage(writesSql));
      early.blobs = side<B>(firstPage(blobsSql));
    },
    async *orphanWrites(): AsyncIterable<LgRowRef> {
      const first = early.writes;
      early.writes = undefined;
      for await (const w of orphanPages<W>(
        q,
        ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"],
        writesSql,
        first,
      )) {
        yield {
          store: "postgres",
          table: "checkpoint_writes",
          threadId: w.thread_id,
          namespace: w.checkpoint_ns,
          checkpointId: w.checkpoint_id,
          taskId: w.task_id,
          idx: w.idx,
          channel: w.channel,
        };
      }
    },
    async *orphanBlobs(): AsyncIterable<LgRowRef> {
      const first = early.blobs;
      early.blobs = undefined;
      for await (const b of orphanPages<B>(q, ["thread_id", "checkpoint_ns", "channel", "version"], blobsSql, first)) {
        yield {
          store: "postgres",
          table: "checkpoint_blobs",
          threadId: b.thread_id,
          namespace: b.checkpoint_ns,
          channel: b.channel,
          version: b.version,
        };
      }
    },
  };
}

/**
 * Every checkpoint in (thread, namespace, id) order (of one thread with `threadId`), in keyset pages of `batchSize`
 * rows: a page's rows, blobs and writes are fetched while the page before it is decoded and consumed.
 */
async function* scanTuples(
  q: Query,
  S: string,
  build: Pick<TupleBuilder, "partsOf" | "decode">,
  options: { batchSize?: number; threadId?: string },
): AsyncIterable<LgCheckpointTuple[]> {
  const size = Math.max(1, options.batchSize ?? PAGE);
  const lists = new ListDecoder(); // a list blob that extends the previous checkpoint's is parsed from where it differs
  const fetchPage = async (last: RawCheckpointRow | undefined) => {
    const a: unknown[] = [];
    const w: string[] = [];
    if (options.threadId !== undefined) a.push(options.threadId), w.push(`thread_id = $${a.length}`);
    if (last)
      a.push(last.thread_id, last.checkpoint_ns, last.checkpoint_id),
        w.push(`(thread_id, checkpoint_ns, checkpoint_id) > ($${a.length - 2}, $${a.length - 1}, $${a.length})`);
    a.push(size);
    const rows = await q<RawCheckpointRow>(PG_READ.scan(S, w, a.length), a);
    return rows.length ? { rows, parts: await build.partsOf(rows, true, true) } : undefined;
  };
  let next = fetchPage(undefined);
  for (;;) {
    const page = await next;
    if (!page) return;
    const { rows, parts } = page;
    next = rows.length < size ? Promise.resolve(undefined) : fetchPage(rows[rows.length - 1]);
    next.catch(() => undefined); // awaited on the next round; a consumer that stops early closes the reader
    // decoded and handed on a few rows at a time, each row let go of as it is decoded: a tuple's checkpoint is its
    // row's object (the channel values are set on it), so rows held to the page's end kept the page's values alive
    // through young-generation GCs (promoted, then mark-compacted: 3.5× the bytes promoted on the bench store)
    // between chunks the event loop runs (setImmediate): the next page's replies are read and its next query sent
    // while this page is consumed (a consumer that never waits on I/O would otherwise hold them to the page's end,
    // leaving the page's three queries to run one after the other while nothing else does)
    while (rows.length) {
      yield await build.decode(rows.splice(0, DECODE_CHUNK), parts, lists);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

const queryOf = (text: string, values: unknown[], arrays?: boolean): pg.QueryConfig =>
  arrays ? ({ text, values, rowMode: "array" } as pg.QueryArrayConfig) : { text, values };

/** json blobs as text (PG_TEXT_COLS) when the server and the connection speak UTF-8; undefined when the server refuses a page's text */
function textQuery(inTurn: <T>(f: (c: Client) => Promise<T>) => Promise<T>, q: Query, uri: string): TextQuery {
  let utf8: Promise<boolean> | undefined;
  return async <R>(sql: string, args: unknown[], arrays?: boolean) => {
    utf8 ??= q<{ ok: boolean }>(PG_READ.utf8).then((r) => r[0]?.ok === true);
    if (!(await utf8)) return undefined;
    return inTurn(async (c) => {
      try {
        return (await c.query(queryOf(sql, args, arrays))).rows as R[];
      } catch (e) {
        const code = (e as { code?: string }).code;
        // 22021 invalid UTF-8 (or a NUL), 22P05 untranslatable character: the page is read as bytes
        if (code === "22021" || code === "22P05") return undefined;
        throw storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${pgErrorText(e)}`, {}, e);
      }
    });
  };
}

/**
 * The reader's queries on the read-only connection: reading errors name the store. They run in turn, in the order
 * asked (`inTurn`): a reader may ask for the next page before it has worked through this one (`ls`), and the
 * connection takes one query at a time.
 */
function readQueries(conns: Connections, S: string, uri: string) {
  const fail = (e: unknown) =>
    storeError("postgres-io", `cannot read the LangGraph store (${uri}): ${pgErrorText(e)}`, {}, e);
  let tail: Promise<unknown> = Promise.resolve();
  /** `f` on the connection once the queries asked before it are done (`f` must not wait for another of them) */
  const inTurn = <T>(f: (c: Client) => Promise<T>): Promise<T> => {
    const p = tail.then(async () => f(await conns.ro()));
    tail = p.catch(() => undefined);
    return p;
  };
  const q: Query = <R>(sql: string, args: unknown[] = [], arrays?: boolean): Promise<R[]> =>
    inTurn(async (c) => {
      try {
        return (await c.query(queryOf(sql, args, arrays))).rows as R[];
      } catch (e) {
        throw fail(e);
      }
    });
  /** a page of `ls` rows: message counts by the server, or (a JSON blob it cannot parse) by JS */
  const threadPage = async (after: string | undefined, n: number): Promise<PgThreadRow[]> => {
    const args: unknown[] = after === undefined ? [n] : [n, after];
    const first = await inTurn(async (c) => {
      try {
        return (await c.query(pgThreadPageSql(S, after !== undefined, true), args)).rows as PgThreadRow[];
      } catch (e) {
        const code = (e as { code?: string }).code;
        // 22P02 invalid JSON text, 22021 invalid UTF-8, 22P05 untranslatable character: JS decodes this page
        if (code !== "22P02" && code !== "22021" && code !== "22P05") throw fail(e);
        return undefined;
      }
    });
    return first ?? q<PgThreadRow>(pgThreadPageSql(S, after !== undefined, false), args);
  };
  return { q, threadPage, inTurn };
}

/**
 * `deltaChains` on a read-only connection of its own, opened on first use (the reader's own when another cannot be
 * opened): `ls` reads a page's chains there while its own connection reads the next page of threads, two server
 * processes at work beside this one.
 */
function chainsOnTheirOwn(
  conns: Connections,
  S: string,
  info: LgStoreInfo,
  uri: string,
  own: { q: Query; qText: TextQuery },
): { deltaChains: NonNullable<LgReader["deltaChains"]>; close(): Promise<void> } {
  let opened: Promise<Client | undefined> | undefined;
  let chains: Promise<NonNullable<LgReader["deltaChains"]>> | undefined;
  const open = async () => {
    const c = await (opened ??= conns.another().catch(() => undefined));
    if (!c) return deltaChainsOf(own.q, S, info, own.qText);
    const mine = readQueries({ ...conns, ro: async () => c }, S, uri);
    return deltaChainsOf(mine.q, S, info, textQuery(mine.inTurn, mine.q, uri));
  };
  return {
    deltaChains: async (starts, namespace, channel, limit) =>
      (await (chains ??= open()))(starts, namespace, channel, limit),
    async close() {
      const c = await opened;
      await c?.end().catch(() => undefined);
    },
  };
}

export function readerOf(
  conns: Connections,
  S: string,
  info: LgStoreInfo,
  uri: string,
  aesKey: AesKey | undefined,
): LgReader {
  const { q, threadPage, inTurn } = readQueries(conns, S, uri);
  const qText = textQuery(inTurn, q, uri);
  const build = tupleBuilder(q, S, info, aesKey, qText);
  const orphans = orphanQueries(q, S);
  const chains = chainsOnTheirOwn(conns, S, info, uri, { q, qText });
  let second: Promise<Client | undefined> | undefined;
  const side: SideQuery = async (sql) => {
    const c2 = await second;
    return c2?.query(sql).then(
      (r) => r.rows,
      () => undefined,
    );
  };
  const list = (options: LgListOptions = {}) => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (options.threadId !== undefined) args.push(options.threadId), where.push(`thread_id = $${args.length}`);
    if (options.namespace !== undefined) args.push(options.namespace), where.push(`checkpoint_ns = $${args.length}`);
    const page = (before: string | undefined, n: number) => {
      const a = [...args];
      const w = [...where];
      if (before !== undefined) a.push(before), w.push(`checkpoint_id < $${a.length}`);
      a.push(n);
      return q<RawCheckpointRow>(PG_READ.list(S, w, a.length), a);
    };
    return newestFirst(page, (rows) => build.tuplesOf(rows), options, PAGE);
  };
  const reader: LgReader = {
    uri,
    info,
    aesKey,
    threads: (options = {}) => threadPages(threadPage, (p) => summaryOf(p, aesKey), options),
    list,
    countThreads: async () => Number((await q<{ n: string }>(PG_READ.countThreads(S)))[0]!.n),
    namespacesOf: async (threadId) =>
      (await q<{ checkpoint_ns: string }>(PG_READ.namespaces(S), [threadId])).map((r) => r.checkpoint_ns),
    checkpointIds: (threadId, namespace = "") =>
      idPages((before, n) =>
        q(
          PG_READ.ids(S, before !== undefined),
          before !== undefined ? [threadId, namespace, n, before] : [threadId, namespace, n],
        ),
      ),
    history: (threadId, namespace = "") =>
      historyFrom(list({ threadId, namespace }), (id) => reader.getTuple(threadId, namespace, id)),
    async getTuple(threadId, namespace = "", checkpointId) {
      const rows =
        checkpointId === undefined
          ? await q<RawCheckpointRow>(PG_READ.newest(S), [threadId, namespace])
          : await q<RawCheckpointRow>(PG_READ.one(S), [threadId, namespace, checkpointId]);
      return (await build.tuplesOf(rows))[0];
    },
    // a page's newest checkpoints in three round trips (rows, their blobs, their writes), not three per thread
    async newestTuples(threadIds, namespace) {
      const rows = await q<RawCheckpointRow>(PG_READ.newestOf(S), [threadIds, namespace]);
      const tuples = await build.tuplesOf(rows);
      return new Map(tuples.map((t) => [t.threadId, async () => t]));
    },
    scan(options = {}) {
      if (!second) {
        second = conns.another().catch(() => undefined);
        orphans.prefetch(side);
      }
      return scanTuples(q, S, build, options);
    },
    deltaChain: deltaChainOf(q, S, info),
    deltaChains: chains.deltaChains,
    orphanWrites: () => orphans.orphanWrites(),
    orphanBlobs: () => orphans.orphanBlobs(),
    async close() {
      const c2 = await second;
      await c2?.end().catch(() => undefined);
      await chains.close();
    },
  };
  return reader;
}
