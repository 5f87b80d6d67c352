/**
 * Migrating LangGraph histories between LangGraph stores (SQLite ⇄ PostgreSQL, same kind), checkpoint by
 * checkpoint: every checkpoint of every thread and namespace with its metadata and pending writes, in batches read
 * in (thread, namespace, checkpoint id) order, each written in one transaction, recorded in the journal, read back
 * and compared row by row with what was written (bytes for serialized values, decoded JSON for JSONB columns).
 * Optionally converted for the other library on the way (`toLibrary`). Stores and the journal are passed in.
 */
import type { Library } from "../formats/langgraph/encode.js";
import { libraryOf, type LgCheckpoint } from "../formats/langgraph/rows.js";
import { convertCheckpoint } from "../formats/langgraph/convert.js";
import { keyOf, type LgStore } from "../savers/lgstore.js";
import type { Conflict, ConflictPolicy, Journal, MigrateProgress, MigrateSummary, Rejected } from "./migrate.js";

export interface LgMigrateOptions {
  batchSize?: number;
  dryRun?: boolean;
  onConflict?: ConflictPolicy;
  verify?: boolean;
  strict?: boolean;
  /** convert every checkpoint for this library (else each keeps its own) */
  toLibrary?: Library;
  /** copy only the threads this accepts */
  threads?: (threadId: string) => boolean;
  journal?: Journal;
  onProgress?: (p: MigrateProgress) => void;
  onReject?: (r: Rejected) => void;
  now?: () => number;
}

const label = (cp: { threadId: string; ns: string; id: string }) => ({ namespace: cp.ns, threadId: `${cp.threadId}@${cp.id}` });

export async function migrateLangGraph(source: Pick<LgStore, "library" | "count" | "scan">, target: LgStore, opts: LgMigrateOptions = {}): Promise<MigrateSummary & { library: Library }> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const batchSize = Math.max(1, opts.batchSize ?? 500);
  const policy = opts.onConflict ?? "auto";
  const sourceLib = (await source.library()) ?? "js";
  const library: Library = opts.toLibrary ?? sourceLib;
  const s: MigrateSummary & { library: Library } = {
    library, dryRun: Boolean(opts.dryRun),
    read: 0, written: 0, skipped: 0, rejected: 0, bytesRead: 0, bytesWritten: 0, elapsedMs: 0,
    resumed: 0, identical: 0, verified: 0, conflicts: [], mismatches: [], rejectedRecords: [], checkedInWorker: false, ignored: 0, ignoredFiles: [], writers: 1,
    recordsPerSecond: 0, mbPerSecond: 0,
  };
  const total = opts.onProgress ? await source.count() : undefined;
  const targetHadLayout = await target.hasLayout();
  if (!targetHadLayout && !opts.dryRun) await target.setup(library);
  const sizeOf = (cp: LgCheckpoint) => cp.checkpoint.length + cp.metadata.length + cp.writes.reduce((n, w) => n + w.value.length, 0);

  const reject = (cp: LgCheckpoint, reason: string) => {
    const r = { ...label(cp), reason };
    s.rejected++;
    s.rejectedRecords.push(r);
    opts.onReject?.(r);
    if (opts.strict) s.aborted = `rejected ${r.namespace}#${r.threadId} (--strict): ${reason}`;
  };

  async function flush(batch: LgCheckpoint[]): Promise<boolean> {
    const ready: Array<{ cp: LgCheckpoint; lib: Library; form: string }> = [];
    for (const raw of batch) {
      s.read++;
      s.bytesRead += sizeOf(raw);
      if (opts.journal?.done.has(keyOf(raw))) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      try {
        const cp = opts.toLibrary ? convertCheckpoint(raw, opts.toLibrary) : raw;
        const lib = opts.toLibrary ?? libraryOf(cp, library);
        ready.push({ cp, lib, form: target.stagedForm(cp, lib) });
      } catch (e) {
        reject(raw, (e as Error).message);
        if (s.aborted) return false;
      }
    }
    const existing = targetHadLayout && ready.length ? await target.readBack(ready.map((r) => r.cp)) : new Map<string, string>();
    const toWrite: typeof ready = [];
    const conflicts: Conflict[] = [];
    for (const r of ready) {
      const old = existing.get(keyOf(r.cp));
      if (old === undefined || policy === "overwrite") toWrite.push(r);
      else if (old === r.form) (s.skipped++, s.identical++);
      else if (policy === "skip" || policy === "newer") s.skipped++; // a checkpoint id names one immutable checkpoint: nothing is "newer"
      else conflicts.push({ ...label(r.cp), reason: "exists with different content" });
    }
    if (conflicts.length) {
      s.conflicts.push(...conflicts);
      if (!opts.dryRun) {
        s.aborted = `${conflicts.length} conflict(s) in the target (--on-conflict ${policy === "auto" ? "default: fail on different" : policy})`;
        return false;
      }
    }
    const bytes = toWrite.reduce((n, r) => n + sizeOf(r.cp), 0);
    if (opts.dryRun || toWrite.length === 0) {
      if (opts.dryRun) (s.written += toWrite.length, s.bytesWritten += bytes);
      return true;
    }
    // one library per write call (a converted or mixed batch may hold both)
    for (const lib of ["python", "js"] as const) {
      const part = toWrite.filter((r) => r.lib === lib).map((r) => r.cp);
      if (part.length) await target.write(part, { library: lib, overwrite: policy === "overwrite" });
    }
    await opts.journal?.commit(toWrite.map((r) => ({ key: keyOf(r.cp), hash: "" })));
    s.written += toWrite.length;
    s.bytesWritten += bytes;
    if (opts.verify ?? true) {
      const back = await target.readBack(toWrite.map((r) => r.cp));
      for (const r of toWrite) {
        const b = back.get(keyOf(r.cp));
        if (b === r.form) s.verified++;
        else s.mismatches.push({ ...label(r.cp), expected: "the rows written", got: b === undefined ? null : "different rows" });
      }
    }
    return true;
  }

  const progress = () => {
    s.elapsedMs = now() - t0;
    opts.onProgress?.({ total, read: s.read, written: s.written, skipped: s.skipped, rejected: s.rejected, bytesRead: s.bytesRead, bytesWritten: s.bytesWritten, elapsedMs: s.elapsedMs });
  };
  for await (const batch of source.scan(batchSize, opts.threads)) {
    const go = await flush(batch);
    progress();
    if (!go) break;
  }
  s.elapsedMs = now() - t0;
  const secs = Math.max(s.elapsedMs, 1) / 1000;
  s.recordsPerSecond = s.read / secs;
  s.mbPerSecond = s.bytesRead / 1e6 / secs;
  return s;
}
