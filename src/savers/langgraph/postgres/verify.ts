/**
 * Verification of what a write put in a LangGraph PostgreSQL store: the comparable form of a checkpoint's rows
 * (`pgForm`, compared with `sameValue`), and the server-side hashes that spare reading back rows that are exactly the
 * ones written (`verifyWritten`).
 */
import type pg from "pg";
import { hexDigest } from "../../../base/digest.js";
import type { LgCheckpoint, LgWrite, PgBlobRow, PgCheckpointRow } from "../../../formats/langgraph/rows.js";
import { textArray } from "../../pg-array.js";
import { PG_ROWS } from "../sql.js";

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
export interface PgForm {
  parentId: string | null;
  checkpoint: unknown;
  metadata: unknown;
  /** [channel, version, value], by channel */
  blobs: Array<[string, string, BlobForm]>;
  /** [task, idx, channel, type, bytes], by task and idx */
  writes: Array<[string, number, string, string | null, Uint8Array]>;
}

export function blobValueForm(b: { type: string; blob: Uint8Array | null }): BlobForm {
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

export function pgForm(
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
 * Read-back verification of LangGraph checkpoints written to PostgreSQL, compared where the rows are (as ckpt's own
 * PostgreSQL saver's verifyMany does): for every checkpoint the server hashes its row — parent id, the checkpoint
 * and metadata JSONB as PostgreSQL prints them back, and its pending writes with the md5 of each write's bytes — and
 * every blob key the checkpoint's `channel_versions` name is looked up (type and md5 of the bytes, or no row). The
 * same hashes are computed here from the rows written (the JSONB went in as `jsonbText`, which prints back byte for
 * byte the same), and only the indices that differ come back: a batch's read-back moves no payload. A checkpoint whose
 * hash differs is not yet a mismatch — the caller reads it back and compares decoded values (`readBack`, `sameForm`),
 * which decide; the hashes only spare that work when the rows are exactly the ones written.
 */
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
    ws = `[${sorted.map((w) => `[${str(w.taskId)}, ${w.idx}, ${str(w.channel)}, ${str(w.type)}, "${md5(w.value)}"]`).join(", ")}]`;
  }
  return `[${str(row.parentId)}, ${row.checkpoint}, ${row.metadata}, ${ws}]`;
}

type Check = { b: PgBlobRow | undefined; n: number };

/** The checkpoint's own blob row for (channel, version), if it made one. */
function ownBlob(own: PgBlobRow[], ch: string, v: string): PgBlobRow | undefined {
  for (const x of own) if (x.channel === ch && x.version === v) return x;
  return undefined;
}

/** The hashes to compare: one per checkpoint, one per distinct blob key (with the checkpoints that rely on it). */
function verifyParams(written: WrittenRows[]) {
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
  return { cps, blobs, users };
}

/** For each of `written`, whether its stored rows are exactly the ones written (false: look closer). */
export async function verifyWritten(pool: pg.Pool, S: string, written: WrittenRows[]): Promise<boolean[]> {
  const ok = written.map(() => true);
  const { cps, blobs, users } = verifyParams(written);
  const res = await pool.query(PG_ROWS.verify(S), [...cps, ...blobs].map(textArray));
  for (const r of res.rows as Array<{ kind: string; n: string }>) {
    if (r.kind === "c") ok[Number(r.n) - 1] = false;
    else {
      const n = Number(r.n) - 1;
      for (let k = 0; k < users.length; k += 2) if (users[k] === n) ok[users[k + 1]!] = false;
    }
  }
  return ok;
}
