/**
 * The row-level store of a LangGraph PostgreSQL store (LgStore: migrate, convert, prune), on the pool: its rows read
 * by primary key and assembled in the SQLite layout; writing (write.ts), read-back (verify.ts) and prune (prune.ts)
 * plug in here.
 */
import type pg from "pg";
import { storeError } from "../../../base/errors.js";
import type { AesKey } from "../../../formats/langgraph/aes-key.js";
import type { Library } from "../../../formats/langgraph/encode.js";
import {
  assembleFromPostgres,
  type BlobValue,
  type LgCheckpoint,
  type LgWrite,
  libraryOfVersions,
} from "../../../formats/langgraph/rows.js";
import { attachWrites, keyOf, type LgStore, type WriteOptions } from "../shared.js";
import { PG_ROWS } from "../sql.js";
import { type Connections, type PgPlace, pgLibrary, pgSetup, pinnedPool } from "./connect.js";
import { pgHeads, pgPrunePage, pgPruneStart, pgThreadPage, pgVacuum } from "./prune.js";
import { type PgForm, pgForm, sameValue, verifyWritten } from "./verify.js";
import { blobWriter, copyTypesOk, insertAll, makeStager } from "./write.js";
import { pgErrorText } from "../../pg-errors.js";

export type CpKey = { threadId: string; ns: string; id: string };
export type Wrap = <R>(what: string, f: () => Promise<R>) => Promise<R>;

interface PgRows {
  /** checkpoint rows with their JSONB as text */
  cps: Array<{
    thread_id: string;
    checkpoint_ns: string;
    checkpoint_id: string;
    parent_checkpoint_id: string | null;
    checkpoint: string;
    metadata: string;
  }>;
  /** `thread\0ns\0channel\0version` → blob */
  blobMap: Map<string, BlobValue>;
  writes: Array<readonly [string, LgWrite]>;
}

/**
 * The rows of `keys`: checkpoints and writes (two queries on two connections at once, by primary key), then the blobs
 * the checkpoints' channel_versions name, by primary key.
 */
async function readPgRows(pool: pg.Pool, S: string, taskPath: boolean, keys: CpKey[]): Promise<PgRows> {
  const args = [keys.map((k) => k.threadId), keys.map((k) => k.ns), keys.map((k) => k.id)];
  const [cpRes, wRes] = await Promise.all([
    pool.query(PG_ROWS.checkpoints(S), args),
    pool.query(PG_ROWS.writes(S, taskPath), args),
  ]);
  const cps = cpRes.rows as PgRows["cps"];
  const want: string[][] = [[], [], [], []];
  const seen = new Set<string>();
  for (const r of cps) {
    const cv = (JSON.parse(r.checkpoint) as { channel_versions?: unknown }).channel_versions;
    if (typeof cv !== "object" || cv === null || Array.isArray(cv)) continue;
    for (const [ch, v] of Object.entries(cv)) {
      const k = `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${ch}\u0000${String(v)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      want[0]!.push(r.thread_id), want[1]!.push(r.checkpoint_ns), want[2]!.push(ch), want[3]!.push(String(v));
    }
  }
  const blobMap = new Map<string, BlobValue>();
  if (want[0]!.length) {
    const blobs = await pool.query(PG_ROWS.blobs(S), want);
    for (const b of blobs.rows)
      blobMap.set(`${b.thread_id}\u0000${b.checkpoint_ns}\u0000${b.channel}\u0000${b.version}`, {
        type: b.type,
        blob: b.blob,
      });
  }
  const writes = wRes.rows.map(
    (w) =>
      [
        keyOf({ threadId: w.thread_id, ns: w.checkpoint_ns, id: w.checkpoint_id }),
        {
          taskId: w.task_id,
          idx: w.idx,
          channel: w.channel,
          type: w.type,
          value: w.blob,
          taskPath: w.task_path,
        } as LgWrite,
      ] as const,
  );
  return { cps, blobMap, writes };
}

/** The blobs (by channel) a checkpoint's channel_versions name. */
function blobsOf(
  cp: Record<string, unknown>,
  threadId: string,
  ns: string,
  blobMap: Map<string, BlobValue>,
): Map<string, BlobValue> {
  const out = new Map<string, BlobValue>();
  for (const [ch, v] of Object.entries((cp.channel_versions ?? {}) as Record<string, unknown>)) {
    const b = blobMap.get(`${threadId}\u0000${ns}\u0000${ch}\u0000${String(v)}`);
    if (b) out.set(ch, b);
  }
  return out;
}

/** A PostgreSQL checkpoint row (+ its blobs) in the SQLite layout; encrypted blobs open with the store's `aesKey`. */
function assemble(
  r: PgRows["cps"][number],
  blobMap: Map<string, BlobValue>,
  fallback: Library,
  aesKey: AesKey | undefined,
): LgCheckpoint {
  const checkpoint = JSON.parse(r.checkpoint) as Record<string, unknown>;
  const lib = libraryOfVersions(checkpoint) ?? fallback;
  const a = assembleFromPostgres(
    { checkpoint, metadata: JSON.parse(r.metadata) },
    blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, blobMap),
    lib,
    aesKey,
  );
  return {
    threadId: r.thread_id,
    ns: r.checkpoint_ns,
    id: r.checkpoint_id,
    parentId: r.parent_checkpoint_id,
    ...a,
    writes: [],
  };
}

/** The comparable forms (see pgForm) of what the store holds for `keys`. */
function readBackForms(rows: PgRows): Map<string, PgForm> {
  const out = new Map<string, PgForm>();
  const ws = new Map<string, LgWrite[]>();
  for (const [k, w] of rows.writes) (ws.get(k) ?? ws.set(k, []).get(k)!).push(w);
  for (const r of rows.cps) {
    const checkpoint = JSON.parse(r.checkpoint);
    const bl = [...blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, rows.blobMap)].map(([channel, b]) => ({
      channel,
      version: String(checkpoint.channel_versions[channel]),
      type: b.type,
      blob: b.blob,
    }));
    const k = keyOf({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id });
    out.set(k, pgForm(r.parent_checkpoint_id, checkpoint, JSON.parse(r.metadata), bl, ws.get(k) ?? []));
  }
  return out;
}

/** Every checkpoint (assembled, with writes) in key order, in pages of `batchSize`, of the threads `threads` accepts. */
async function* scanPgRows(
  pool: pg.Pool,
  S: string,
  wrap: Wrap,
  read: (keys: CpKey[]) => Promise<PgRows>,
  toCheckpoint: (r: PgRows["cps"][number], blobMap: Map<string, BlobValue>) => LgCheckpoint,
  batchSize: number,
  threads?: (id: string) => boolean,
  only?: string,
): AsyncIterable<LgCheckpoint[]> {
  let after: string[] | undefined;
  for (;;) {
    const page = await wrap(
      "reading checkpoints",
      async () =>
        (after
          ? await pool.query(PG_ROWS.keysNext(S), [...after, batchSize])
          : only !== undefined
            ? await pool.query(PG_ROWS.keysFrom(S), [only, batchSize])
            : await pool.query(PG_ROWS.keysFirst(S), [batchSize])
        ).rows,
    );
    if (page.length === 0) return;
    const last = page[page.length - 1]!;
    after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
    const keys = page
      .filter((r) => !threads || threads(r.thread_id))
      .map((r) => ({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id }));
    if (keys.length) {
      const { cps, blobMap, writes } = await wrap("reading checkpoints", () => read(keys));
      yield attachWrites(
        cps.map((r) => toCheckpoint(r, blobMap)),
        writes,
      );
    }
    if (page.length < batchSize || (only !== undefined && last.thread_id !== only)) return;
  }
}

/** A failure of the server or the connection as a store error naming what was being done and the store. */
const pgWrap =
  (uri: string): Wrap =>
  async (what, f) => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("postgres-io", `${what} (${uri}): ${pgErrorText(e)}`, {}, e);
    }
  };

export function rowStoreOf(
  conns: Connections,
  S: string,
  place: PgPlace,
  aesKey: AesKey | undefined,
): Omit<LgStore, "close" | "atomically"> {
  const { schema, uri } = place;
  const wrap = pgWrap(uri);
  const hasLayout = async () => {
    const pool = await conns.rw();
    const t = new Set((await pool.query(PG_ROWS.tables, [schema])).rows.map((r) => r.table_name as string));
    return t.has("checkpoints") && t.has("checkpoint_blobs") && t.has("checkpoint_writes");
  };
  let taskPath: boolean | undefined;
  const hasTaskPath = async () =>
    (taskPath ??= (await (await conns.rw()).query(PG_ROWS.taskPath, [schema])).rowCount! > 0);
  /** whether the tables take binary COPY rows (their column types are the libraries'), found on the first write */
  let copyOk: boolean | undefined;
  const read = async (keys: CpKey[]) => readPgRows(await conns.rw(), S, await hasTaskPath(), keys);
  const stager = makeStager(aesKey);
  const blobsToWrite = blobWriter();
  const library = () =>
    wrap("reading the schema", async () => ((await hasLayout()) ? pgLibrary(await conns.rw(), S) : undefined));
  return {
    kind: "postgres",
    uri,
    hasLayout: () => wrap("reading the schema", hasLayout),
    library,
    setup: (lib) =>
      wrap("setting up the LangGraph tables", async () => {
        await pgSetup(await conns.rw(), schema, S, lib);
        taskPath = undefined;
        copyOk = undefined;
      }),
    count: () =>
      wrap("counting checkpoints", async () =>
        (await hasLayout()) ? Number((await (await conns.rw()).query(PG_ROWS.count(S))).rows[0].n) : 0,
      ),
    async *scanRows(batchSize, threads, only) {
      const fallback = (await library()) ?? "js";
      const toCheckpoint = (r: PgRows["cps"][number], m: Map<string, BlobValue>) => assemble(r, m, fallback, aesKey);
      yield* scanPgRows(await conns.rw(), S, wrap, read, toCheckpoint, batchSize, threads, only);
    },
    load: (keys, lib) =>
      wrap("reading checkpoints", async () => {
        const out = new Map<string, LgCheckpoint>();
        if (!keys.length || !(await hasLayout())) return out;
        const { cps, blobMap, writes } = await read(keys);
        for (const cp of attachWrites(
          cps.map((r) => assemble(r, blobMap, lib, aesKey)),
          writes,
        ))
          out.set(keyOf(cp), cp);
        return out;
      }),
    stage: (cp, lib) => void stager.stage(cp, lib),
    stagedForm: (cp, lib) => stager.form(cp, lib),
    sameForm: sameValue,
    verifyWritten: (written) =>
      wrap("reading checkpoints back", async () =>
        verifyWritten(
          await conns.rw(),
          S,
          written.map(({ cp, lib }) => ({ cp, ...stager.stage(cp, lib) })),
        ),
      ),
    write: (cps, o: WriteOptions) =>
      wrap("writing checkpoints", async () => {
        const staged = cps.map((cp) => ({ cp, ...stager.stage(cp, o.library) }));
        const blobs = blobsToWrite(staged, o.overwrite);
        const pool = await conns.rw();
        copyOk ??= await copyTypesOk(pool, schema);
        await insertAll(
          pool,
          S,
          staged.map((s) => s.row),
          blobs,
          cps,
          {
            overwrite: o.overwrite,
            taskPath: await hasTaskPath(),
            copyOk,
          },
        );
      }),
    readBack: (keys) =>
      wrap("reading checkpoints back", async () =>
        keys.length ? readBackForms(await read(keys)) : new Map<string, PgForm>(),
      ),
    threadPage: (after, limit) =>
      wrap("listing threads", async () => ((await hasLayout()) ? pgThreadPage(await conns.rw(), S, after, limit) : [])),
    heads: (threads) => wrap("reading checkpoints", async () => pgHeads(await conns.rw(), S, threads)),
    prunePage: (threads, plan, o) =>
      wrap(o.doing ?? "pruning", async () => pgPrunePage(await conns.rw(), S, threads, plan, o)),
    pruneStart: () => wrap("pruning", async () => pgPruneStart(await conns.rw())),
    vacuum: (o) => wrap("vacuuming", async () => pgVacuum(await conns.rw(), S, schema, o.dryRun)),
  };
}

/**
 * LgStore.atomically over PostgreSQL: a connection of the pool in one transaction holding the advisory lock
 * `ckpt:<schema>:<lock>` (transaction-level: released by COMMIT, ROLLBACK or a lost connection); the row-level store
 * given to `f` runs every query on it (`pinnedPool`). A connection lost meanwhile is a store error, and the server
 * rolls the transaction back.
 */
export async function pgAtomically<T>(
  conns: Connections,
  S: string,
  place: PgPlace,
  aesKey: AesKey | undefined,
  lock: string,
  f: (tx: LgStore) => Promise<T>,
): Promise<T> {
  const wrap = pgWrap(place.uri);
  const c = await wrap("starting a transaction", async () => (await conns.rw()).connect());
  let broken: Error | undefined;
  try {
    await wrap("starting a transaction", async () => {
      await c.query("BEGIN");
      await c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`ckpt:${place.schema}:${lock}`]);
    });
    const pool = pinnedPool(c);
    const pinned: Connections = { ...conns, rw: async () => pool, close: async () => undefined };
    const inside: LgStore = {
      ...rowStoreOf(pinned, S, place, aesKey),
      atomically: () => Promise.reject(new Error("a transaction inside a transaction")),
      close: async () => undefined,
    };
    const r = await f(inside);
    await wrap("committing", () => c.query("COMMIT"));
    return r;
  } catch (e) {
    broken = e as Error;
    await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}
