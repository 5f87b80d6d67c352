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
    ws =
      "[" +
      sorted
        .map((w) => `[${str(w.taskId)}, ${w.idx}, ${str(w.channel)}, ${str(w.type)}, "${md5(w.value)}"]`)
        .join(", ") +
      "]";
  }
  return `[${str(row.parentId)}, ${row.checkpoint}, ${row.metadata}, ${ws}]`;
}

type Check = { b: PgBlobRow | undefined; n: number };

/** The checkpoint's own blob row for (channel, version), if it made one. */
function ownBlob(own: PgBlobRow[], ch: string, v: string): PgBlobRow | undefined {
  for (const x of own) if (x.channel === ch && x.version === v) return x;
  return undefined;
}

/** For each of `written`, whether its stored rows are exactly the ones written (false: look closer). */
export async function verifyPgWritten(pool: pg.Pool, S: string, written: WrittenRows[]): Promise<boolean[]> {
  const ok = written.map(() => true);
  const cps: string[][] = [[], [], [], []];
  const blobs: Array<Array<string | null>> = [[], [], [], [], []];
  /** (blob check, checkpoint that relies on it) pairs, flat */
  const users: number[] = [];
  let nChecks = 0;
  /** channel → version → the checks so far of the (thread, namespace) at hand, by the row expected there
   * (checkpoints of a thread share their blob rows) */
  let scope: { t: string; ns: string } | undefined;
  let at = new Map<string, Map<string, Check[]>>();
  for (let i = 0; i < written.length; i++) {
    const { cp, row, blobs: own, versions } = written[i]!;
    cps[0]!.push(cp.threadId), cps[1]!.push(cp.ns), cps[2]!.push(cp.id), cps[3]!.push(md5(rowText(row, cp.writes)));
    if (scope?.t !== cp.threadId || scope.ns !== cp.ns) [scope, at] = [{ t: cp.threadId, ns: cp.ns }, new Map()];
    for (const ch in versions) {
      const v = String(versions[ch]);
      const b = ownBlob(own, ch, v);
      let byVersion = at.get(ch);
      if (!byVersion) at.set(ch, (byVersion = new Map()));
      let checks = byVersion.get(v);
      if (!checks) byVersion.set(v, (checks = []));
      let check: Check | undefined;
      for (const c of checks) if (c.b === b) check = c;
      if (!check) {
        checks.push((check = { b, n: nChecks++ }));
        // what the key must hold: md5 of the bytes (or "-" for NULL) then the type; null when no row may exist
        blobs[0]!.push(cp.threadId),
          blobs[1]!.push(cp.ns),
          blobs[2]!.push(ch),
          blobs[3]!.push(v),
          blobs[4]!.push(b ? blobWant(b) : null);
      }
      users.push(check.n, i);
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
    else {
      const n = Number(r.n) - 1;
      for (let k = 0; k < users.length; k += 2) if (users[k] === n) ok[users[k + 1]!] = false;
    }
  }
  return ok;
}
