/**
 * A LangGraph PostgreSQL store (Python / JS PostgresSaver, LANGGRAPH.md §1.2-1.3) at the row level, in the URI's
 * `?schema=` (default `public`). `setup` runs the library's own migrations (Python 0-9, JS 0-4) the way its
 * setup() does: read max(v), run each later migration, record its index. Writes split channel values into
 * `checkpoint_blobs` as the target library's put does (rows.ts); reads reassemble them.
 */
import type pg from "pg";
import { storeError } from "../base/errors.js";
import type { Library } from "../formats/langgraph/encode.js";
import {
  assembleFromPostgres,
  libraryOfVersions,
  splitForPostgres,
  type BlobValue,
  type LgCheckpoint,
  type LgWrite,
  type PgBlobRow,
  type PgCheckpointRow,
} from "../formats/langgraph/rows.js";
import { verifyPgWritten } from "./lgstore-pg-verify.js";
import { pgHeads, pgPrunePage, pgThreadPage } from "./lgstore-prune.js";
import { keyOf, type LgStore, type WriteOptions } from "./lgstore.js";
import { attachWrites } from "./lgstore-sqlite.js";

const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';

/** The migrations of the libraries, in order (py:pg/base.py:43-91; js:pg/migrations.ts:7-45); `S.` = the schema. */
export function migrations(lib: Library, S: string): string[] {
  const common = [
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_migrations (\n    v INTEGER PRIMARY KEY\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoints (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    checkpoint_id TEXT NOT NULL,\n    parent_checkpoint_id TEXT,\n    type TEXT,\n    checkpoint JSONB NOT NULL,\n    metadata JSONB NOT NULL DEFAULT '{}',\n    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_blobs (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    channel TEXT NOT NULL,\n    version TEXT NOT NULL,\n    type TEXT NOT NULL,\n    blob BYTEA,\n    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_writes (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    checkpoint_id TEXT NOT NULL,\n    task_id TEXT NOT NULL,\n    idx INTEGER NOT NULL,\n    channel TEXT NOT NULL,\n    type TEXT,\n    blob BYTEA NOT NULL,\n    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)\n);`,
    `ALTER TABLE ${S}checkpoint_blobs ALTER COLUMN blob DROP not null;`,
  ];
  if (lib === "js") return common;
  return [
    ...common,
    "SELECT 1;",
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoints_thread_id_idx ON ${S}checkpoints(thread_id);`,
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoint_blobs_thread_id_idx ON ${S}checkpoint_blobs(thread_id);`,
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoint_writes_thread_id_idx ON ${S}checkpoint_writes(thread_id);`,
    `ALTER TABLE ${S}checkpoint_writes ADD COLUMN IF NOT EXISTS task_path TEXT NOT NULL DEFAULT '';`,
  ];
}

export type PgLgStore = LgStore & { pool: pg.Pool; schema: string; S: string };

type Key = { threadId: string; ns: string; id: string };
type Wrap = <R>(what: string, f: () => Promise<R>) => Promise<R>;

/**
 * Connect (one pool of 4); a server that does not answer is a store error naming the URI. The sessions run without
 * JIT compilation (`-c jit=off`, after what PGOPTIONS sets): every statement here reaches rows
 * by key or thread, and on tables with no statistics yet (a store a migration just filled) the planner costs them in
 * the millions and compiles each one, ~0.4 s a statement, more than the work.
 */
async function connectPool(url: string, uri: string): Promise<pg.Pool> {
  const { default: pgm } = await import("pg");
  const options = [process.env.PGOPTIONS, "-c jit=off"].filter(Boolean).join(" ");
  const pool = new pgm.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000, options });
  pool.on("error", () => undefined);
  try {
    await pool.query("SELECT 1");
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw storeError(
      "postgres-connect",
      `cannot connect to PostgreSQL at ${uri}: ${(e as Error).message} (start it with: pg_ctlcluster <version> main start)`,
    );
  }
  return pool;
}

/** What `write` and the read-back need of a checkpoint, computed once; its comparable form only when asked for. */
interface Staged {
  row: PgCheckpointRow;
  blobs: PgBlobRow[];
  versions: Record<string, unknown>;
  form?: PgForm;
}

/**
 * Stage checkpoints (in key order) for PostgreSQL: the rows `write` inserts. Two checkpoints of one (thread,
 * namespace) putting different values under one blob key are refused: the layout keys blobs by (thread, namespace,
 * channel, version) and cannot hold both.
 */
function makeStager(): {
  stage: (cp: LgCheckpoint, lib: Library) => Staged;
  form: (cp: LgCheckpoint, lib: Library) => PgForm;
} {
  const staged = new WeakMap<LgCheckpoint, Staged>();
  /** what each blob key of the (thread, ns) being staged holds, to catch two values under one key */
  let stagedFor = "";
  let stagedBlobs = new Map<string, PgBlobRow>();
  const stage = (cp: LgCheckpoint, lib: Library): Staged => {
    let s = staged.get(cp);
    if (s) return s;
    const { row, blobs, versions } = splitForPostgres(cp, lib, new Set());
    const tn = `${cp.threadId}\u0000${cp.ns}`;
    if (tn !== stagedFor) [stagedFor, stagedBlobs] = [tn, new Map()];
    for (let i = 0; i < blobs.length; i++) {
      const b = blobs[i]!;
      const k = `${b.channel}\u0000${b.version}`;
      const had = stagedBlobs.get(k);
      if (had === undefined) stagedBlobs.set(k, b);
      else if (b.type === "empty" && had.type !== "empty")
        blobs[i] = had; // a DeltaChannel version the snapshot row holds: the library writes no row, reads the snapshot
      else if (!sameBlob(had, b)) {
        throw storeError(
          "langgraph-blob-collision",
          `its '${b.channel}' value at version ${b.version} differs from the one another checkpoint of this thread has at the same version (a forked branch reached the same version): the PostgreSQL layout keys blobs by (thread, namespace, channel, version) and cannot hold both`,
        );
      } else blobs[i] = had; // the same value (maybe in other bytes: JS key order): the key keeps the first row, which the read-back finds
    }
    // a DeltaChannel left at a version an earlier checkpoint stored a snapshot under: the read-back has that row
    for (const [ch, v] of Object.entries(versions)) {
      const had = stagedBlobs.get(`${ch}\u0000${String(v)}`);
      if (had && had.type !== "empty" && !blobs.some((b) => b.channel === ch)) blobs.push(had);
    }
    s = { row, blobs, versions };
    staged.set(cp, s);
    return s;
  };
  const form = (cp: LgCheckpoint, lib: Library): PgForm => {
    const s = stage(cp, lib);
    return (s.form ??= pgForm(
      s.row.parentId,
      JSON.parse(s.row.checkpoint),
      JSON.parse(s.row.metadata),
      s.blobs,
      cp.writes,
    ));
  };
  return { stage, form };
}

/** Whether two blob rows hold the same value: the same type and bytes, else equal decoded values. */
const sameBlob = (a: PgBlobRow, b: PgBlobRow): boolean =>
  (a.type === b.type &&
    (a.blob === null ? b.blob === null : b.blob !== null && Buffer.compare(a.blob, b.blob) === 0)) ||
  sameValue(blobValueForm(a), blobValueForm(b));

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

const KEYS3 = "SELECT * FROM unnest($1::text[], $2::text[], $3::text[])";

/**
 * The rows of `keys`: checkpoints and writes (two queries on two connections at once, by primary key), then the blobs
 * the checkpoints' channel_versions name, by primary key.
 */
async function readPgRows(pool: pg.Pool, S: string, taskPath: boolean, keys: Key[]): Promise<PgRows> {
  const args = [keys.map((k) => k.threadId), keys.map((k) => k.ns), keys.map((k) => k.id)];
  const tp = taskPath ? "task_path" : "'' AS task_path";
  const [cpRes, wRes] = await Promise.all([
    pool.query(
      `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint::text AS checkpoint, metadata::text AS metadata
      FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${KEYS3})
      ORDER BY thread_id, checkpoint_ns, checkpoint_id`,
      args,
    ),
    pool.query(
      `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob, ${tp}
      FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${KEYS3})
      ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`,
      args,
    ),
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
    const blobs = await pool.query(
      `SELECT thread_id, checkpoint_ns, channel, version, type, blob FROM ${S}checkpoint_blobs
      WHERE (thread_id, checkpoint_ns, channel, version) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]))`,
      want,
    );
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

/** A PostgreSQL checkpoint row (+ its blobs) in the SQLite layout. */
function assemble(r: PgRows["cps"][number], blobMap: Map<string, BlobValue>, fallback: Library): LgCheckpoint {
  const checkpoint = JSON.parse(r.checkpoint) as Record<string, unknown>;
  const lib = libraryOfVersions(checkpoint) ?? fallback;
  const a = assembleFromPostgres(
    { checkpoint, metadata: JSON.parse(r.metadata) },
    blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, blobMap),
    lib,
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
async function* scanPg(
  pool: pg.Pool,
  S: string,
  wrap: Wrap,
  read: (keys: Key[]) => Promise<PgRows>,
  fallback: Library,
  batchSize: number,
  threads?: (id: string) => boolean,
): AsyncIterable<LgCheckpoint[]> {
  let after: string[] | undefined;
  for (;;) {
    const page = await wrap(
      "reading checkpoints",
      async () =>
        (after
          ? await pool.query(
              `SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > ($1, $2, $3) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $4`,
              [...after, batchSize],
            )
          : await pool.query(
              `SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $1`,
              [batchSize],
            )
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
        cps.map((r) => assemble(r, blobMap, fallback)),
        writes,
      );
    }
    if (page.length < batchSize) return;
  }
}

/** The library that wrote the store: a checkpoint's version types, else the migrations level; undefined when empty. */
async function pgLibrary(pool: pg.Pool, S: string): Promise<Library | undefined> {
  const r = (
    await pool.query(
      `SELECT checkpoint->'channel_versions' AS cv FROM ${S}checkpoints WHERE checkpoint->'channel_versions' <> '{}'::jsonb LIMIT 1`,
    )
  ).rows[0];
  const byRow = r ? libraryOfVersions({ channel_versions: r.cv }) : undefined;
  if (byRow) return byRow;
  const v = (await pool.query(`SELECT max(v) AS v FROM ${S}checkpoint_migrations`)).rows[0]?.v;
  return v === null || v === undefined ? undefined : v >= 9 ? "python" : "js";
}

/** The library's setup(): its migrations after the recorded max(v), each recorded. */
async function pgSetup(pool: pg.Pool, schema: string, S: string, lib: Library): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
  const list = migrations(lib, S);
  await pool.query(list[0]!);
  const max = (await pool.query(`SELECT max(v) AS v FROM ${S}checkpoint_migrations`)).rows[0]?.v;
  for (let v = max === null || max === undefined ? 0 : max + 1; v < list.length; v++) {
    await pool.query(list[v]!);
    await pool.query(`INSERT INTO ${S}checkpoint_migrations (v) VALUES ($1) ON CONFLICT DO NOTHING`, [v]);
  }
}

export async function openPostgresLgStore(url: string, uri: string, schema: string): Promise<PgLgStore> {
  const pool = await connectPool(url, uri);
  const S = `${ident(schema)}.`;
  const wrap: Wrap = async (what, f) => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("postgres-io", `${what} (${uri}): ${(e as Error).message}`);
    }
  };
  const hasLayout = async () => {
    const t = new Set(
      (await pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema])).rows.map(
        (r) => r.table_name as string,
      ),
    );
    return t.has("checkpoints") && t.has("checkpoint_blobs") && t.has("checkpoint_writes");
  };
  let taskPath: boolean | undefined;
  const hasTaskPath = async () =>
    (taskPath ??=
      (
        await pool.query(
          "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'checkpoint_writes' AND column_name = 'task_path'",
          [schema],
        )
      ).rowCount! > 0);
  /** whether the tables take binary COPY rows (their column types are the libraries'), found on the first write */
  let copyOk: boolean | undefined;
  const read = async (keys: Key[]) => readPgRows(pool, S, await hasTaskPath(), keys);
  const stager = makeStager();
  /** blob keys already inserted for the (thread, ns) being written (reset when it changes) */
  let seenFor = "";
  let seen = new Set<string>();

  const store: PgLgStore = {
    kind: "postgres",
    uri,
    pool,
    schema,
    S,
    hasLayout: () => wrap("reading the schema", hasLayout),
    library: () => wrap("reading the schema", async () => ((await hasLayout()) ? pgLibrary(pool, S) : undefined)),
    setup: (lib) =>
      wrap("setting up the LangGraph tables", async () => {
        await pgSetup(pool, schema, S, lib);
        taskPath = undefined;
        copyOk = undefined;
      }),
    count: () =>
      wrap("counting checkpoints", async () =>
        (await hasLayout()) ? Number((await pool.query(`SELECT count(*) AS n FROM ${S}checkpoints`)).rows[0].n) : 0,
      ),
    async *scan(batchSize, threads) {
      yield* scanPg(pool, S, wrap, read, (await store.library()) ?? "js", batchSize, threads);
    },
    load: (keys, lib) =>
      wrap("reading checkpoints", async () => {
        const out = new Map<string, LgCheckpoint>();
        if (!keys.length || !(await hasLayout())) return out;
        const { cps, blobMap, writes } = await read(keys);
        for (const cp of attachWrites(
          cps.map((r) => assemble(r, blobMap, lib)),
          writes,
        ))
          out.set(keyOf(cp), cp);
        return out;
      }),
    stage: (cp, lib) => void stager.stage(cp, lib),
    stagedForm: (cp, lib) => stager.form(cp, lib),
    sameForm: sameValue,
    verifyWritten: (written) =>
      wrap("reading checkpoints back", () =>
        verifyPgWritten(
          pool,
          S,
          written.map(({ cp, lib }) => ({ cp, ...stager.stage(cp, lib) })),
        ),
      ),
    write: (cps, o: WriteOptions) =>
      wrap("writing checkpoints", async () => {
        const rows: PgCheckpointRow[] = [];
        const blobs: PgBlobRow[] = [];
        // one row per blob key in a batch (checkpoints of a thread share blobs; the stager made sure the values
        // agree): an upsert cannot touch a row twice
        const inBatch = new Set<string>();
        for (const cp of cps) {
          const s = stager.stage(cp, o.library);
          rows.push(s.row);
          const tn = `${cp.threadId}\u0000${cp.ns}`;
          if (tn !== seenFor) [seenFor, seen] = [tn, new Set()];
          for (const b of s.blobs) {
            const k = `${b.channel}\u0000${b.version}`;
            const kb = `${tn}\u0000${k}`;
            if ((o.overwrite || !seen.has(k)) && !inBatch.has(kb)) blobs.push(b);
            inBatch.add(kb);
            seen.add(k);
          }
        }
        copyOk ??= await copyTypesOk(pool, schema);
        await insertAll(pool, S, rows, blobs, cps, { overwrite: o.overwrite, taskPath: await hasTaskPath(), copyOk });
      }),
    readBack: (keys) =>
      wrap("reading checkpoints back", async () =>
        keys.length ? readBackForms(await read(keys)) : new Map<string, PgForm>(),
      ),
    threadPage: (after, limit) =>
      wrap("listing threads", async () => ((await hasLayout()) ? pgThreadPage(pool, S, after, limit) : [])),
    heads: (threads) => wrap("reading checkpoints", () => pgHeads(pool, S, threads)),
    prunePage: (threads, plan, o) => wrap("pruning", () => pgPrunePage(pool, S, threads, plan, o)),
    close: () => pool.end(),
  };
  return store;
}

/** A blob's value for comparison: JSON decoded (JS's `{lc:2,type:"undefined"}` = an absent key), other types as bytes. */
interface BlobForm {
  type: string;
  value: unknown;
}

/**
 * One checkpoint's PostgreSQL rows (checkpoint, referenced blobs, writes) as decoded values: the JSONB documents
 * parsed, json blobs decoded, other payloads as bytes. Compared with `sameForm` (JSONB's own key order does not
 * matter, bytes compare byte for byte).
 */
interface PgForm {
  parentId: string | null;
  checkpoint: unknown;
  metadata: unknown;
  /** [channel, version, value], by channel */
  blobs: Array<[string, string, BlobForm]>;
  /** [task, idx, channel, type, bytes], by task and idx */
  writes: Array<[string, number, string, string | null, Uint8Array]>;
}

function blobValueForm(b: { type: string; blob: Uint8Array | null }): BlobForm {
  if (b.type === "json" && b.blob)
    return {
      type: b.type,
      value: dropUndefined(
        JSON.parse(Buffer.from(b.blob.buffer, b.blob.byteOffset, b.blob.byteLength).toString("utf8")),
      ),
    };
  return { type: b.type, value: b.blob === null ? null : b.blob };
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = dropUndefined(v[i]);
    return v;
  }
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (
      x &&
      typeof x === "object" &&
      (x as { lc?: unknown }).lc === 2 &&
      (x as { type?: unknown }).type === "undefined"
    )
      delete o[k];
    else o[k] = dropUndefined(x);
  }
  return o;
}

/** Equality of decoded values: JSON-like values with object key order ignored; byte arrays byte for byte. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(y, k) || !sameValue(x[k], y[k])) return false;
    n++;
  }
  for (const _k in y) n--;
  return n === 0;
}

const byFirst = <T extends [string, ...unknown[]]>(a: T, b: T) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function pgForm(
  parentId: string | null,
  checkpoint: unknown,
  metadata: unknown,
  blobs: Array<{ channel: string; version: string; type: string; blob: Uint8Array | null }>,
  writes: LgWrite[],
): PgForm {
  const bl = blobs.map((b): [string, string, BlobForm] => [b.channel, b.version, blobValueForm(b)]).sort(byFirst);
  const ws = [...writes]
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx))
    .map((w): PgForm["writes"][number] => [w.taskId, w.idx, w.channel, w.type, w.value]);
  return { parentId, checkpoint, metadata, blobs: bl, writes: ws };
}

/**
 * Insert one batch of rows in one transaction. New rows go in with binary COPY (one stream per table, no SQL or
 * parameters per row, bytea as bytes) when the tables have the library's column types (`copyOk`), inside a savepoint;
 * when one of them already exists (unique violation: a resumed run, or another writer) the savepoint is rolled back
 * and the batch is upserted instead (three multi-row inserts over unnest arrays, ON CONFLICT as the libraries write).
 * `overwrite`, and tables of other column types, go straight to the upsert.
 */
async function insertAll(
  pool: pg.Pool,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  o: { overwrite: boolean; taskPath: boolean; copyOk: boolean },
): Promise<void> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query("BEGIN");
    if (o.overwrite || !o.copyOk || !(await copyAll(c, S, rows, blobs, cps, o.taskPath)))
      await upsertAll(c, S, rows, blobs, cps, o.overwrite, o.taskPath);
    await c.query("COMMIT");
  } catch (e) {
    broken = e as Error;
    await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}

/** The column types `copyAll`'s binary rows are made for (the libraries' DDL, `migrations`); other columns take their defaults. */
const COPY_TYPES: Record<string, Record<string, string>> = {
  checkpoints: {
    thread_id: "text",
    checkpoint_ns: "text",
    checkpoint_id: "text",
    parent_checkpoint_id: "text",
    checkpoint: "jsonb",
    metadata: "jsonb",
  },
  checkpoint_blobs: {
    thread_id: "text",
    checkpoint_ns: "text",
    channel: "text",
    version: "text",
    type: "text",
    blob: "bytea",
  },
  checkpoint_writes: {
    thread_id: "text",
    checkpoint_ns: "text",
    checkpoint_id: "text",
    task_id: "text",
    idx: "integer",
    channel: "text",
    type: "text",
    blob: "bytea",
    task_path: "text",
  },
};

/** Whether the three tables of `schema` have the column types binary COPY rows are made for. */
async function copyTypesOk(pool: pg.Pool, schema: string): Promise<boolean> {
  const r = await pool.query(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2)",
    [schema, Object.keys(COPY_TYPES)],
  );
  const have = new Map(r.rows.map((x) => [`${x.table_name}.${x.column_name}`, x.data_type as string]));
  return Object.entries(COPY_TYPES).every(([t, cols]) =>
    Object.entries(cols).every(
      ([col, type]) => (col === "task_path" && !have.has(`${t}.${col}`)) || have.get(`${t}.${col}`) === type,
    ),
  );
}

/** COPY the batch's rows into the three tables inside a savepoint; false (nothing kept) when a row already exists. */
async function copyAll(
  c: pg.PoolClient,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  taskPath: boolean,
): Promise<boolean> {
  const { CopyBinary, copyBinary } = await import("./postgres-copy.js");
  await c.query("SAVEPOINT ckpt_lg_copy");
  try {
    const cpRows = new CopyBinary();
    for (const r of rows)
      cpRows.row(6).text(r.threadId).text(r.ns).text(r.id).text(r.parentId).jsonb(r.checkpoint).jsonb(r.metadata);
    await copyBinary(
      c,
      `${S}checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)`,
      cpRows.done(),
    );
    if (blobs.length) {
      const bl = new CopyBinary();
      for (const b of blobs)
        bl.row(6).text(b.threadId).text(b.ns).text(b.channel).text(b.version).text(b.type).bytea(b.blob);
      await copyBinary(c, `${S}checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)`, bl.done());
    }
    const ws = new CopyBinary();
    for (const cp of cps) {
      for (const w of cp.writes) {
        ws.row(taskPath ? 9 : 8)
          .text(cp.threadId)
          .text(cp.ns)
          .text(cp.id)
          .text(w.taskId)
          .int4(w.idx)
          .text(w.channel)
          .text(w.type)
          .bytea(w.value);
        if (taskPath) ws.text(w.taskPath);
      }
    }
    if (ws.rows)
      await copyBinary(
        c,
        `${S}checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob${taskPath ? ", task_path" : ""})`,
        ws.done(),
      );
    await c.query("RELEASE SAVEPOINT ckpt_lg_copy");
    return true;
  } catch (e) {
    if ((e as { code?: string }).code !== "23505") throw e;
    await c.query("ROLLBACK TO SAVEPOINT ckpt_lg_copy");
    return false;
  }
}

/** Upsert the batch: three multi-row inserts over unnest arrays (checkpoints updated with `overwrite`, else kept). */
async function upsertAll(
  c: pg.PoolClient,
  S: string,
  rows: PgCheckpointRow[],
  blobs: PgBlobRow[],
  cps: LgCheckpoint[],
  overwrite: boolean,
  taskPath: boolean,
): Promise<void> {
  const onCp = overwrite
    ? "DO UPDATE SET parent_checkpoint_id = EXCLUDED.parent_checkpoint_id, checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata"
    : "DO NOTHING";
  await c.query(
    `INSERT INTO ${S}checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) ${onCp}`,
    [
      rows.map((r) => r.threadId),
      rows.map((r) => r.ns),
      rows.map((r) => r.id),
      rows.map((r) => r.parentId),
      rows.map((r) => r.checkpoint),
      rows.map((r) => r.metadata),
    ],
  );
  if (blobs.length) {
    await c.query(
      `INSERT INTO ${S}checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[]) ON CONFLICT (thread_id, checkpoint_ns, channel, version) ${overwrite ? "DO UPDATE SET type = EXCLUDED.type, blob = EXCLUDED.blob" : "DO NOTHING"}`,
      [
        blobs.map((b) => b.threadId),
        blobs.map((b) => b.ns),
        blobs.map((b) => b.channel),
        blobs.map((b) => b.version),
        blobs.map((b) => b.type),
        blobs.map((b) => (b.blob ? Buffer.from(b.blob) : null)),
      ],
    );
  }
  const ws = cps.flatMap((cp) => cp.writes.map((w) => ({ cp, w })));
  if (overwrite) {
    await c.query(
      `DELETE FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
      [cps.map((x) => x.threadId), cps.map((x) => x.ns), cps.map((x) => x.id)],
    );
  }
  if (ws.length) {
    const cols = `thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob${taskPath ? ", task_path" : ""}`;
    const params: unknown[] = [
      ws.map((x) => x.cp.threadId),
      ws.map((x) => x.cp.ns),
      ws.map((x) => x.cp.id),
      ws.map((x) => x.w.taskId),
      ws.map((x) => x.w.idx),
      ws.map((x) => x.w.channel),
      ws.map((x) => x.w.type),
      ws.map((x) => Buffer.from(x.w.value)),
    ];
    if (taskPath) params.push(ws.map((x) => x.w.taskPath));
    await c.query(
      `INSERT INTO ${S}checkpoint_writes (${cols}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[]${taskPath ? ", $9::text[]" : ""})
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING`,
      params,
    );
  }
}
