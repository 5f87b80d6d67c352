/**
 * Read-back verification of LangGraph checkpoints written to PostgreSQL, compared where the rows are (as ckpt's own
 * PostgreSQL saver's verifyMany does): for every checkpoint the server hashes its row — parent id, the checkpoint
 * and metadata JSONB as PostgreSQL prints them back, and its pending writes with the md5 of each write's bytes — and
 * every blob key the checkpoint's `channel_versions` name is looked up (type and md5 of the bytes, or no row). The
 * same hashes are computed here from the rows written (the JSONB went in as `jsonbText`, which prints back byte for
 * byte the same), and only the indices that differ come back: a batch's read-back moves no payload. A checkpoint whose
 * hash differs is not yet a mismatch — the caller reads it back and compares decoded values (`readBack`, `sameForm`),
 * which decide; the hashes only spare that work when the rows are exactly the ones written.
 */
import type pg from "pg";
import { hexDigest } from "../base/digest.js";
import { textArray } from "./pg-array.js";
import type { LgCheckpoint, LgWrite, PgBlobRow, PgCheckpointRow } from "../formats/langgraph/rows.js";

export interface WrittenRows {
  cp: LgCheckpoint;
  row: PgCheckpointRow;
  /** the blobs the checkpoint's own values make (channel → its row) */
  blobs: PgBlobRow[];
  /** the checkpoint's channel_versions */
  versions: Record<string, unknown>;
}

const md5 = (b: Uint8Array | string) => hexDigest("md5", b);
/** what a blob key must hold, per blob row (a thread's checkpoints share their blob rows, across batches too) */
const wanted = new WeakMap<PgBlobRow, string>();
/** md5 of the bytes (or "-" for NULL) then the type */
const blobWant = (b: PgBlobRow): string => {
  let w = wanted.get(b);
  if (w === undefined) wanted.set(b, (w = `${b.blob === null ? "-" : md5(b.blob)}${b.type}`));
  return w;
};
const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
const byTaskIdx = (a: LgWrite, b: LgWrite) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx);

/** The text the server builds for a checkpoint row and its writes (json_build_array / json_agg print it this way). */
function rowText(row: PgCheckpointRow, writes: LgWrite[]): string {
  let ws = "null";
  if (writes.length) {
    const sorted = writes.length > 1 ? [...writes].sort(byTaskIdx) : writes;
    ws = "[" + sorted.map((w) => `[${str(w.taskId)}, ${w.idx}, ${str(w.channel)}, ${str(w.type)}, "${md5(w.value)}"]`).join(", ") + "]";
  }
  return `[${str(row.parentId)}, ${row.checkpoint}, ${row.metadata}, ${ws}]`;
}

/** For each of `written`, whether its stored rows are exactly the ones written (false: look closer). */
export async function verifyPgWritten(pool: pg.Pool, S: string, written: WrittenRows[]): Promise<boolean[]> {
  const ok = written.map(() => true);
  const cps: string[][] = [[], [], [], []];
  const blobs: Array<Array<string | null>> = [[], [], [], [], []];
  /** blob check → the checkpoints that rely on it */
  const users: number[][] = [];
  /** (channel, version) of the (thread, namespace) at hand → its checks so far, by the row expected there (checkpoints
   * of a thread share their blob rows) */
  let scope = "";
  let at = new Map<string, Array<{ b: PgBlobRow | undefined; n: number }>>();
  for (let i = 0; i < written.length; i++) {
    const { cp, row, blobs: own, versions } = written[i]!;
    cps[0]!.push(cp.threadId), cps[1]!.push(cp.ns), cps[2]!.push(cp.id), cps[3]!.push(md5(rowText(row, cp.writes)));
    const sc = `${cp.threadId}\u0000${cp.ns}`;
    if (sc !== scope) [scope, at] = [sc, new Map()];
    for (const ch in versions) {
      const v = String(versions[ch]);
      const b = own.find((x) => x.channel === ch && x.version === v);
      const key = `${ch}\u0000${v}`;
      let checks = at.get(key);
      if (!checks) at.set(key, (checks = []));
      let check = checks.find((x) => x.b === b);
      if (!check) {
        checks.push((check = { b, n: users.length }));
        users.push([]);
        // what the key must hold: md5 of the bytes (or "-" for NULL) then the type; null when no row may exist
        blobs[0]!.push(cp.threadId), blobs[1]!.push(cp.ns), blobs[2]!.push(ch), blobs[3]!.push(v), blobs[4]!.push(b ? blobWant(b) : null);
      }
      users[check.n]!.push(i);
    }
  }
  const res = await pool.query(
    `SELECT 'c' AS kind, k.n FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k(t, ns, id, h, n)
     WHERE k.h IS DISTINCT FROM (SELECT md5(json_build_array(c.parent_checkpoint_id, c.checkpoint, c.metadata,
       (SELECT json_agg(json_build_array(w.task_id, w.idx, w.channel, w.type, md5(w.blob)) ORDER BY w.task_id COLLATE "C", w.idx)
        FROM ${S}checkpoint_writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id))::text)
       FROM ${S}checkpoints c WHERE c.thread_id = k.t AND c.checkpoint_ns = k.ns AND c.checkpoint_id = k.id)
     UNION ALL
     SELECT 'b', k.n FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS k(t, ns, ch, v, h, n)
     WHERE k.h IS DISTINCT FROM (SELECT coalesce(md5(b.blob), '-') || b.type FROM ${S}checkpoint_blobs b
       WHERE b.thread_id = k.t AND b.checkpoint_ns = k.ns AND b.channel = k.ch AND b.version = k.v)`,
    [...cps, ...blobs].map(textArray),
  );
  for (const r of res.rows as Array<{ kind: string; n: string }>) {
    if (r.kind === "c") ok[Number(r.n) - 1] = false;
    else for (const i of users[Number(r.n) - 1]!) ok[i] = false;
  }
  return ok;
}
