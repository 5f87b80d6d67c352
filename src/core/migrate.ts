/**
 * The migration engine: copy every thread from one saver to another in bounded batches — list, load a batch,
 * check (and optionally convert) each document, resolve conflicts, write the batch in one pipelined/transactional
 * call, record it in the journal, read it back and compare content hashes. Memory stays bounded by the batch size.
 * Savers and the journal are passed in, so this module does no I/O of its own.
 */
import { parseJson } from "./json.js";
import { CkptError } from "./errors.js";
import { createHash } from "node:crypto";
import { contentHash, updatedAtOf } from "../savers/common.js";
import type { RecordKey, Saver, SaverRecord } from "../savers/types.js";
import { detectAll, getAdapter, type FormatName } from "../formats/index.js";
import type { LossyNote } from "../formats/types.js";
import { validators } from "../generated/validators.js";
import { toPlainNumbers, containsBigInt, stringifyJson, MAYBE_BIG } from "./json.js";

export type ConflictPolicy = "auto" | "skip" | "overwrite" | "fail" | "newer";

/** Where committed records are remembered, so that an interrupted run can be resumed. */
export interface Journal {
  /** keys (`namespace\0threadId`) committed by an earlier, interrupted run */
  readonly done: ReadonlySet<string>;
  /** durably record that these keys are committed in the target */
  commit(entries: Array<{ key: string; hash: string }>): Promise<void>;
}

export interface MigrateOptions {
  /** source namespaces to copy (default: every namespace the source holds) */
  namespaces?: string[];
  /** write everything into this target namespace instead of the source's */
  toNamespace?: string;
  batchSize?: number;
  dryRun?: boolean;
  onConflict?: ConflictPolicy;
  verify?: boolean;
  /** stop at the first rejected record */
  strict?: boolean;
  /** convert every document to this format */
  toFormat?: FormatName;
  allowLossy?: boolean;
  journal?: Journal;
  onProgress?: (p: MigrateProgress) => void;
  onReject?: (r: Rejected) => void;
  now?: () => number;
}

export interface Rejected {
  namespace: string;
  threadId: string;
  reason: string;
}

export interface Conflict {
  namespace: string;
  threadId: string;
  reason: string;
}

export interface MigrateProgress {
  read: number;
  written: number;
  skipped: number;
  rejected: number;
  bytesRead: number;
  bytesWritten: number;
  elapsedMs: number;
}

export interface MigrateSummary extends MigrateProgress {
  dryRun: boolean;
  /** skipped because the journal of an interrupted run already had them */
  resumed: number;
  /** existing identical records left alone */
  identical: number;
  verified: number;
  conflicts: Conflict[];
  mismatches: Array<{ namespace: string; threadId: string; expected: string; got: string | null }>;
  rejectedRecords: Rejected[];
  /** set when the run stopped early (--strict reject, --on-conflict fail) */
  aborted?: string;
  recordsPerSecond: number;
  mbPerSecond: number;
}

export const journalKey = (namespace: string, threadId: string) => `${namespace}\u0000${threadId}`;

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * A checked record on its way to the target. Its compact text and content hash (sha256 of the compact text, what
 * `contentHash(text)` gives) are computed from the parsed value on first use: a store that keeps the text as given
 * and reads it back identical never needs either.
 */
class PreparedRecord implements SaverRecord {
  #compact: string | undefined;
  #hash: string | undefined;
  constructor(
    readonly namespace: string,
    readonly threadId: string,
    readonly text: string,
    private readonly value: unknown,
  ) {}
  get compact(): string {
    return (this.#compact ??= stringifyJson(this.value));
  }
  get hash(): string {
    return (this.#hash ??= sha256(this.compact));
  }
  /** whether `other` has this record's content: the same text (or compact text), else the same content hash */
  sameContent(other: string): boolean {
    return other === this.text || other === this.compact || contentHash(other) === this.hash;
  }
}

interface Prepared {
  info: RecordKey;
  record: PreparedRecord;
  readonly hash: string;
}

/** Check one document: JSON, a known format, valid against that format's schema; convert when asked. */
function prepare(info: RecordKey, text: string, opts: MigrateOptions, targetNs: string): { ok: Prepared } | { reject: string } {
  const name = `${info.namespace}#${info.threadId}`;
  // JSON.parse unless the text may hold an integer beyond 2^53 (or a BOM); parseJson words the syntax errors.
  const maybeBig = MAYBE_BIG.test(text);
  let value: unknown;
  try {
    value = maybeBig || text.charCodeAt(0) === 0xfeff ? parseJson(text, { file: name }) : JSON.parse(text);
  } catch {
    try {
      parseJson(text, { file: name }); // throws again, with line:column and what was expected
    } catch (e) {
      return { reject: e instanceof CkptError ? e.format() : String(e) };
    }
    return { reject: "not a JSON document" };
  }
  const doc = { name, text };
  const found = detectAll(doc)[0];
  if (!found) return { reject: "not a checkpoint of any supported format" };
  const adapter = getAdapter(found.format);
  const validate = (validators as Record<string, ((v: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null }>)[adapter.schema];
  const big = maybeBig && containsBigInt(value);
  if (validate && !validate(big ? toPlainNumbers(value) : value)) {
    const e = validate.errors?.[0];
    return { reject: `invalid ${found.format} document: ${e?.instancePath || "/"} ${e?.message ?? ""}`.trim() };
  }
  let out = text;
  let outValue = value;
  if (opts.toFormat && opts.toFormat !== found.format) {
    try {
      const cp = adapter.toCanonical(adapter.parse(doc), doc);
      const to = getAdapter(opts.toFormat);
      const lossy: LossyNote[] = [];
      const ser = to.serialize(to.fromCanonical(cp, { lossy }));
      if (!("text" in ser)) return { reject: `${opts.toFormat} is a multi-file format and cannot be stored in a saver` };
      if (lossy.length && !opts.allowLossy) {
        return { reject: `converting ${found.format} → ${opts.toFormat} would drop ${lossy.length} field(s): ${lossy.slice(0, 3).map((n) => n.pointer).join(", ")}${lossy.length > 3 ? ", …" : ""} (use --allow-lossy)` };
      }
      out = ser.text;
      outValue = parseJson(out, { file: name });
    } catch (e) {
      return { reject: e instanceof CkptError ? e.message : String(e) };
    }
  }
  const record = new PreparedRecord(targetNs, info.threadId, out, outValue);
  return {
    ok: {
      info,
      record,
      get hash() {
        return record.hash;
      },
    },
  };
}

/** Run a migration. Throws CkptError(4) for store failures; everything else ends up in the summary. */
export async function migrate(source: Saver, target: Saver, opts: MigrateOptions = {}): Promise<MigrateSummary> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const policy = opts.onConflict ?? "auto";
  const s: MigrateSummary = {
    dryRun: Boolean(opts.dryRun),
    read: 0, written: 0, skipped: 0, rejected: 0, bytesRead: 0, bytesWritten: 0, elapsedMs: 0,
    resumed: 0, identical: 0, verified: 0, conflicts: [], mismatches: [], rejectedRecords: [],
    recordsPerSecond: 0, mbPerSecond: 0,
  };
  const progress = () => {
    s.elapsedMs = now() - t0;
    opts.onProgress?.({ read: s.read, written: s.written, skipped: s.skipped, rejected: s.rejected, bytesRead: s.bytesRead, bytesWritten: s.bytesWritten, elapsedMs: s.elapsedMs });
  };

  async function flush(batch: SaverRecord[]): Promise<boolean> {
    const ready: Prepared[] = [];
    for (const { namespace, threadId, text } of batch) {
      const info: RecordKey = { namespace, threadId };
      s.read++;
      s.bytesRead += Buffer.byteLength(text);
      const targetNs = opts.toNamespace ?? info.namespace;
      if (opts.journal?.done.has(journalKey(targetNs, info.threadId))) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      const p = prepare(info, text, opts, targetNs);
      if ("reject" in p) {
        const r = { namespace: info.namespace, threadId: info.threadId, reason: p.reject };
        s.rejected++;
        s.rejectedRecords.push(r);
        opts.onReject?.(r);
        if (opts.strict) {
          s.aborted = `rejected ${info.namespace}#${info.threadId} (--strict): ${p.reject}`;
          return false;
        }
        continue;
      }
      ready.push(p.ok);
    }
    // conflicts: what the target already holds
    const existing = ready.length ? await target.loadMany(ready.map((p) => p.record)) : [];
    const toWrite: Prepared[] = [];
    const batchConflicts: Conflict[] = [];
    ready.forEach((p, i) => {
      const old = existing[i];
      if (old === undefined) return void toWrite.push(p);
      const same = p.record.sameContent(old);
      switch (policy) {
        case "overwrite":
          toWrite.push(p);
          return;
        case "skip":
          s.skipped++;
          if (same) s.identical++;
          return;
        case "newer": {
          const a = updatedAtOf(p.record.text);
          const b = updatedAtOf(old);
          if (!same && a !== undefined && (b === undefined || Date.parse(a) > Date.parse(b))) toWrite.push(p);
          else {
            s.skipped++;
            if (same) s.identical++;
          }
          return;
        }
        case "fail":
          batchConflicts.push({ namespace: p.record.namespace, threadId: p.record.threadId, reason: same ? "exists (identical)" : "exists with different content" });
          return;
        case "auto":
          if (same) {
            s.skipped++;
            s.identical++;
          } else batchConflicts.push({ namespace: p.record.namespace, threadId: p.record.threadId, reason: "exists with different content" });
      }
    });
    if (batchConflicts.length) {
      s.conflicts.push(...batchConflicts);
      if (!opts.dryRun) {
        s.aborted = `${batchConflicts.length} conflict(s) in the target (--on-conflict ${policy === "auto" ? "default: fail on different" : policy})`;
        return false;
      }
    }
    if (opts.dryRun) {
      s.written += toWrite.length; // "would write"
      s.bytesWritten += toWrite.reduce((n, p) => n + Buffer.byteLength(p.record.text), 0);
      return true;
    }
    if (toWrite.length) {
      await target.saveMany(toWrite.map((p) => p.record));
      await opts.journal?.commit(toWrite.map((p) => ({ key: journalKey(p.record.namespace, p.record.threadId), hash: p.hash })));
      s.written += toWrite.length;
      s.bytesWritten += toWrite.reduce((n, p) => n + Buffer.byteLength(p.record.text), 0);
      if (opts.verify ?? true) {
        const back = await target.loadMany(toWrite.map((p) => p.record));
        toWrite.forEach((p, i) => {
          const b = back[i];
          // contentHash is a function of the text, so a read-back identical to the text (or the compact text) has the
          // expected hash; anything else (a store that reformats) is hashed and compared.
          if (b !== undefined && p.record.sameContent(b)) s.verified++;
          else s.mismatches.push({ namespace: p.record.namespace, threadId: p.record.threadId, expected: p.hash, got: b === undefined ? null : contentHash(b) });
        });
      }
    }
    return true;
  }

  const namespaces = opts.namespaces ?? (await source.namespaces());
  outer: for (const ns of namespaces) {
    // One pass over the source in its own order (a migration needs every record once, not id order).
    for await (const batch of source.scan({ namespace: ns, batchSize })) {
      const go = await flush(batch);
      progress();
      if (!go) break outer;
    }
  }
  s.elapsedMs = now() - t0;
  const secs = Math.max(s.elapsedMs, 1) / 1000;
  s.recordsPerSecond = s.read / secs;
  s.mbPerSecond = s.bytesRead / 1e6 / secs;
  return s;
}
