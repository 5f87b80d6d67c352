/**
 * The migration engine: copy every thread from one saver to another in bounded batches — scan a batch from the
 * source, check (and optionally convert) each document, resolve conflicts, write the batch in one pipelined /
 * transactional call, record it in the journal, read it back and compare content hashes. Memory stays bounded by
 * the batch size (at most two batches are in flight).
 * Savers and the journal are passed in, so this module does no I/O of its own. On large migrations the checks run in
 * a check pool the caller passes in (the CLI's runs on a worker thread: cli/check-pool.ts), overlapping with the reads and writes on this thread.
 */
import { contentHash, updatedAtOf } from "../savers/common.js";
import type { Saver, SaverRecord } from "../savers/types.js";
import type { FormatName } from "../formats/index.js";
import { parseJson, stringifyJson } from "../base/json.js";
import { checkRecord, sha256, type CheckOptions, type CheckPool, type WireResult } from "./check.js";

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
  /**
   * Where records are checked: "auto" (default) starts a worker thread when the first batch is full and sends it
   * batches once it is up (~0.1 s), checking here meanwhile; "on" waits for the worker and sends it every batch;
   * "off" checks on the calling thread. The results are the same either way.
   */
  worker?: "auto" | "off" | "on";
  /** starts the pool that checks batches off this thread; without it (or when it gives undefined) checks run here */
  openCheckPool?: () => Promise<CheckPool | undefined>;
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
  /** records the source holds (counted before the copy starts, for a progress bar; may be an estimate) */
  total?: number;
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
  /** whether records were checked in a worker thread */
  checkedInWorker: boolean;
  /** set when the run stopped early (--strict reject, --on-conflict fail) */
  aborted?: string;
  recordsPerSecond: number;
  mbPerSecond: number;
}

export const journalKey = (namespace: string, threadId: string) => `${namespace}\u0000${threadId}`;

/**
 * A checked record on its way to the target. Its compact text and content hash (sha256 of the compact text, what
 * `contentHash(text)` gives) come from the worker, or are computed from the parsed value on first use: a store that
 * keeps the text as given and reads it back identical never needs either.
 */
class PreparedRecord implements SaverRecord {
  #compact: string | undefined;
  #hash: string | undefined;
  constructor(
    readonly namespace: string,
    readonly threadId: string,
    readonly text: string,
    private readonly value: unknown,
    compact?: string,
    hash?: string,
  ) {
    this.#compact = compact;
    this.#hash = hash;
  }
  get compact(): string {
    // from the parsed value; a record checked in the worker has none here and parses its text (rare: conflicts, mismatches)
    return (this.#compact ??= this.value !== undefined ? stringifyJson(this.value) : stringifyJson(parseJson(this.text)));
  }
  get hash(): string {
    return (this.#hash ??= sha256(this.compact));
  }
  /** whether `other` has this record's content: the same text (or compact text), else the same content hash */
  sameContent(other: string): boolean {
    return other === this.text || other === this.compact || contentHash(other) === this.hash;
  }
}

type Checked = { ok: PreparedRecord } | { reject: string };

/** Run a migration. Throws CkptError(4) for store failures; everything else ends up in the summary. */
export async function migrate(source: Saver, target: Saver, opts: MigrateOptions = {}): Promise<MigrateSummary> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const policy = opts.onConflict ?? "auto";
  const s: MigrateSummary = {
    dryRun: Boolean(opts.dryRun),
    read: 0, written: 0, skipped: 0, rejected: 0, bytesRead: 0, bytesWritten: 0, elapsedMs: 0,
    resumed: 0, identical: 0, verified: 0, conflicts: [], mismatches: [], rejectedRecords: [], checkedInWorker: false,
    recordsPerSecond: 0, mbPerSecond: 0,
  };
  const progress = () => {
    s.elapsedMs = now() - t0;
    opts.onProgress?.({ total, read: s.read, written: s.written, skipped: s.skipped, rejected: s.rejected, bytesRead: s.bytesRead, bytesWritten: s.bytesWritten, elapsedMs: s.elapsedMs });
  };

  const checkOpts: CheckOptions = { toFormat: opts.toFormat, allowLossy: opts.allowLossy };
  let pool: CheckPool | undefined;
  /** A scanned batch whose checks are under way (in the worker) or yet to run (here). */
  interface Pending {
    batch: SaverRecord[];
    /** per record: the check, or undefined when the journal of an interrupted run has it already */
    checked: () => Promise<Array<Checked | undefined>>;
  }
  const targetNsOf = (r: SaverRecord) => opts.toNamespace ?? r.namespace;
  const isDone = (r: SaverRecord) => opts.journal?.done.has(journalKey(targetNsOf(r), r.threadId)) ?? false;
  const fromWire = (r: SaverRecord, w: WireResult): Checked =>
    w.ok ? { ok: new PreparedRecord(targetNsOf(r), r.threadId, w.text ?? r.text, undefined, w.compact, w.hash) } : { reject: w.reason };

  function dispatch(batch: SaverRecord[]): Pending {
    if (pool?.ready) {
      const todo = batch.filter((r) => !isDone(r));
      s.checkedInWorker = true;
      const wants = { compact: Boolean(target.storesCompact), hash: opts.journal !== undefined };
      const sent = pool.check(todo.map((r) => `${r.namespace}#${r.threadId}`), todo.map((r) => r.text), checkOpts, wants);
      sent.catch(() => undefined); // awaited in turn; a run that stops early must not leave it unhandled
      return {
        batch,
        checked: async () => {
          const results = await sent;
          let k = 0;
          return batch.map((r) => (isDone(r) ? undefined : fromWire(r, results[k++]!)));
        },
      };
    }
    return {
      batch,
      checked: async () =>
        batch.map((r) => {
          if (isDone(r)) return undefined;
          const c = checkRecord(`${r.namespace}#${r.threadId}`, r.text, checkOpts);
          return c.ok ? { ok: new PreparedRecord(targetNsOf(r), r.threadId, c.text, c.value) } : { reject: c.reason };
        }),
    };
  }

  async function flush(pending: Pending): Promise<boolean> {
    const { batch } = pending;
    const checked = await pending.checked();
    const ready: PreparedRecord[] = [];
    for (let i = 0; i < batch.length; i++) {
      const { namespace, threadId, text } = batch[i]!;
      const c = checked[i];
      s.read++;
      s.bytesRead += Buffer.byteLength(text);
      if (c === undefined) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      if ("reject" in c) {
        const r = { namespace, threadId, reason: c.reject };
        s.rejected++;
        s.rejectedRecords.push(r);
        opts.onReject?.(r);
        if (opts.strict) {
          s.aborted = `rejected ${namespace}#${threadId} (--strict): ${c.reject}`;
          return false;
        }
        continue;
      }
      ready.push(c.ok);
    }
    // conflicts: what the target already holds
    const existing = ready.length ? await target.loadMany(ready) : [];
    const toWrite: PreparedRecord[] = [];
    const batchConflicts: Conflict[] = [];
    ready.forEach((p, i) => {
      const old = existing[i];
      if (old === undefined) return void toWrite.push(p);
      const same = p.sameContent(old);
      switch (policy) {
        case "overwrite":
          toWrite.push(p);
          return;
        case "skip":
          s.skipped++;
          if (same) s.identical++;
          return;
        case "newer": {
          const a = updatedAtOf(p.text);
          const b = updatedAtOf(old);
          if (!same && a !== undefined && (b === undefined || Date.parse(a) > Date.parse(b))) toWrite.push(p);
          else {
            s.skipped++;
            if (same) s.identical++;
          }
          return;
        }
        case "fail":
          batchConflicts.push({ namespace: p.namespace, threadId: p.threadId, reason: same ? "exists (identical)" : "exists with different content" });
          return;
        case "auto":
          if (same) {
            s.skipped++;
            s.identical++;
          } else batchConflicts.push({ namespace: p.namespace, threadId: p.threadId, reason: "exists with different content" });
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
      s.bytesWritten += toWrite.reduce((n, p) => n + Buffer.byteLength(p.text), 0);
      return true;
    }
    if (toWrite.length) {
      await target.saveMany(toWrite);
      await opts.journal?.commit(toWrite.map((p) => ({ key: journalKey(p.namespace, p.threadId), hash: p.hash })));
      s.written += toWrite.length;
      s.bytesWritten += toWrite.reduce((n, p) => n + Buffer.byteLength(p.text), 0);
      if (opts.verify ?? true) {
        const back = await target.loadMany(toWrite);
        toWrite.forEach((p, i) => {
          const b = back[i];
          // contentHash is a function of the text, so a read-back identical to the text (or the compact text) has the
          // expected hash; anything else (a store that reformats) is hashed and compared.
          if (b !== undefined && p.sameContent(b)) s.verified++;
          else s.mismatches.push({ namespace: p.namespace, threadId: p.threadId, expected: p.hash, got: b === undefined ? null : contentHash(b) });
        });
      }
    }
    return true;
  }

  const namespaces = opts.namespaces ?? (await source.namespaces());
  let total: number | undefined;
  if (opts.onProgress) {
    total = 0;
    for (const ns of namespaces) total += await source.count(ns);
  }
  try {
    outer: for (const ns of namespaces) {
      // One pass over the source in its own order (a migration needs every record once, not id order). The next
      // batch is read and sent to the worker before this one is written, so checking overlaps with the I/O.
      const it = source.scan({ namespace: ns, batchSize })[Symbol.asyncIterator]();
      const next = async (): Promise<Pending | undefined> => {
        const r = await it.next();
        return r.done ? undefined : dispatch(r.value);
      };
      let cur = await next();
      if (!pool && opts.worker === "on") {
        pool = await opts.openCheckPool?.();
        await pool?.whenReady();
        if (cur) cur = dispatch(cur.batch); // re-dispatched to the worker (nothing was checked yet: checks are lazy here)
      }
      if (cur && !pool && (opts.worker ?? "auto") === "auto" && cur.batch.length >= batchSize) {
        // A large migration: batches are checked in a worker once it has started (until then, here).
        pool = await opts.openCheckPool?.();
      }
      while (cur) {
        const following = await next();
        const go = await flush(cur);
        progress();
        if (!go) {
          await it.return?.();
          break outer;
        }
        cur = following;
      }
    }
  } finally {
    await pool?.close();
  }
  s.elapsedMs = now() - t0;
  const secs = Math.max(s.elapsedMs, 1) / 1000;
  s.recordsPerSecond = s.read / secs;
  s.mbPerSecond = s.bytesRead / 1e6 / secs;
  return s;
}
