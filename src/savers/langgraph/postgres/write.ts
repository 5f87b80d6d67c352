/**
 * Writing LangGraph checkpoints to PostgreSQL: checkpoints staged into the rows the target library's put writes
 * (channel values split into `checkpoint_blobs`, rows.ts in formats/), then inserted a batch a transaction with
 * binary COPY, or upserted.
 */
import type pg from "pg";
import { storeError } from "../../../base/errors.js";
import type { AesKey } from "../../../formats/langgraph/aes-key.js";
import type { Library } from "../../../formats/langgraph/encode.js";
import {
  type LgCheckpoint,
  type PgBlobRow,
  type PgCheckpointRow,
  splitForPostgres,
} from "../../../formats/langgraph/rows.js";
import { PG_ROWS } from "../sql.js";
import { blobValueForm, type PgForm, pgForm, sameValue } from "./verify.js";

/** What `write` and the read-back need of a checkpoint, computed once; its comparable form only when asked for. */
export interface Staged {
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
export function makeStager(aesKey: AesKey | undefined): {
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
    const { row, blobs, versions } = splitForPostgres(cp, lib, new Set(), aesKey);
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

/** The blob rows a batch writes: one per blob key (checkpoints of a thread share blobs), new keys only unless `overwrite`. */
export function blobWriter() {
  /** blob keys already inserted for the (thread, ns) being written (reset when it changes) */
  let seenFor = "";
  let seen = new Set<string>();
  return (batch: Array<{ cp: LgCheckpoint; blobs: PgBlobRow[] }>, overwrite: boolean): PgBlobRow[] => {
    const out: PgBlobRow[] = [];
    // one row per blob key in a batch (the stager made sure the values agree): an upsert cannot touch a row twice
    const inBatch = new Set<string>();
    for (const { cp, blobs } of batch) {
      const tn = `${cp.threadId}\u0000${cp.ns}`;
      if (tn !== seenFor) [seenFor, seen] = [tn, new Set()];
      for (const b of blobs) {
        const k = `${b.channel}\u0000${b.version}`;
        const kb = `${tn}\u0000${k}`;
        if ((overwrite || !seen.has(k)) && !inBatch.has(kb)) out.push(b);
        inBatch.add(kb);
        seen.add(k);
      }
    }
    return out;
  };
}

/**
 * Insert one batch of rows in one transaction. New rows go in with binary COPY (one stream per table, no SQL or
 * parameters per row, bytea as bytes) when the tables have the library's column types (`copyOk`), inside a savepoint;
 * when one of them already exists (unique violation: a resumed run, or another writer) the savepoint is rolled back
 * and the batch is upserted instead (three multi-row inserts over unnest arrays, ON CONFLICT as the libraries write).
 * `overwrite`, and tables of other column types, go straight to the upsert.
 */
export async function insertAll(
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
export async function copyTypesOk(pool: pg.Pool, schema: string): Promise<boolean> {
  const r = await pool.query(PG_ROWS.columnTypes, [schema, Object.keys(COPY_TYPES)]);
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
  const { CopyBinary, copyBinary } = await import("../../postgres-copy.js");
  await c.query("SAVEPOINT ckpt_lg_copy");
  try {
    const cpRows = new CopyBinary();
    for (const r of rows)
      cpRows.row(6).text(r.threadId).text(r.ns).text(r.id).text(r.parentId).jsonb(r.checkpoint).jsonb(r.metadata);
    await copyBinary(c, PG_ROWS.copyCheckpoints(S), cpRows.done());
    if (blobs.length) {
      const bl = new CopyBinary();
      for (const b of blobs)
        bl.row(6).text(b.threadId).text(b.ns).text(b.channel).text(b.version).text(b.type).bytea(b.blob);
      await copyBinary(c, PG_ROWS.copyBlobs(S), bl.done());
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
    if (ws.rows) await copyBinary(c, PG_ROWS.copyWrites(S, taskPath), ws.done());
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
  await c.query(PG_ROWS.upsertCheckpoints(S, overwrite), [
    rows.map((r) => r.threadId),
    rows.map((r) => r.ns),
    rows.map((r) => r.id),
    rows.map((r) => r.parentId),
    rows.map((r) => r.checkpoint),
    rows.map((r) => r.metadata),
  ]);
  if (blobs.length) {
    await c.query(PG_ROWS.upsertBlobs(S, overwrite), [
      blobs.map((b) => b.threadId),
      blobs.map((b) => b.ns),
      blobs.map((b) => b.channel),
      blobs.map((b) => b.version),
      blobs.map((b) => b.type),
      blobs.map((b) => (b.blob ? Buffer.from(b.blob) : null)),
    ]);
  }
  const ws = cps.flatMap((cp) => cp.writes.map((w) => ({ cp, w })));
  if (overwrite)
    await c.query(PG_ROWS.deleteWrites(S), [cps.map((x) => x.threadId), cps.map((x) => x.ns), cps.map((x) => x.id)]);
  if (ws.length) {
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
    await c.query(PG_ROWS.insertWrites(S, taskPath), params);
  }
}
