/**
 * Migrating LangGraph histories between LangGraph stores (SQLite ⇄ PostgreSQL, same kind), checkpoint by
 * checkpoint: every checkpoint of every thread and namespace with its metadata and pending writes, in batches read
 * in (thread, namespace, checkpoint id) order, each written in one transaction, recorded in the journal, and
 * verified: checked where it is stored when the target can (PostgreSQL: hashes of the stored rows, no payload comes
 * back), and what that does not find exactly as written is read back and compared row by row with what was written
 * (bytes for serialized values, decoded JSON for JSONB columns), which decides.
 * Optionally converted for the other library on the way (`toLibrary`). Stores and the journal are passed in.
 */
import type { Library } from "../../formats/langgraph/encode.js";
import { libraryOf, textOf, type LgCheckpoint } from "../../formats/langgraph/rows.js";
import { convertCheckpoint } from "../../formats/langgraph/convert.js";
import { keyOf, type LgStore } from "../../savers/langgraph/shared.js";
import { createForkRenumberer } from "./fork-versions.js";
import {
  emptySummary,
  type Conflict,
  type ConflictPolicy,
  type Journal,
  type MigrateProgress,
  type MigrateSummary,
  type Rejected,
} from "../migrate/types.js";

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

const label = (cp: { threadId: string; ns: string; id: string }) => ({
  namespace: cp.ns,
  threadId: `${cp.threadId}@${cp.id}`,
});
const sizeOf = (cp: LgCheckpoint) =>
  cp.checkpoint.length + cp.metadata.length + cp.writes.reduce((n, w) => n + w.value.length, 0);

type Summary = MigrateSummary & { library: Library };

/** Why PostgreSQL cannot key this checkpoint (a NUL in its thread id, namespace, id or a write's task or channel). */
function nulInKeys(cp: LgCheckpoint): string | undefined {
  const fields: Array<[string, string | null]> = [
    ["thread id", cp.threadId],
    ["namespace", cp.ns],
    ["checkpoint id", cp.id],
    ["parent id", cp.parentId],
    ...cp.writes.flatMap(
      (w): Array<[string, string]> => [
        ["pending write's task id", w.taskId],
        ["pending write's channel", w.channel],
      ],
    ),
  ];
  const hit = fields.find(([, v]) => v?.includes("\u0000"));
  return hit
    ? `its ${hit[0]} ${JSON.stringify(hit[1])} holds a NUL character, which PostgreSQL text cannot store`
    : undefined;
}
type Ready = { cp: LgCheckpoint; lib: Library };

/**
 * One run. Batches go one after the other: staged, checked against the target, written in one transaction,
 * journaled. The next batch is read and staged while a batch's write is in flight, and a batch's read-back (of
 * committed rows, on another connection) runs beside the next batch's work: verification and staging cost the
 * overlap rather than rounds of their own. At most three batches are held.
 */
class LgMigration {
  readonly s: Summary;
  private readonly policy: ConflictPolicy;
  private targetHadLayout = false;
  /** the read-back of the batches written so far (each link waits for the previous one) */
  private verifying: Promise<void> = Promise.resolve();
  /** PostgreSQL keys blobs by version: branches of a forked thread get versions of their own (fork-versions.ts) */
  private readonly forks: (cp: LgCheckpoint) => LgCheckpoint;
  /** journal keys (of an interrupted run) whose checkpoints the target does not hold: written again */
  private readonly notInTarget = new Set<string>();

  constructor(
    private readonly source: Pick<LgStore, "library" | "count" | "scanRows">,
    private readonly target: LgStore,
    private readonly opts: LgMigrateOptions,
    library: Library,
  ) {
    this.policy = opts.onConflict ?? "auto";
    this.forks = target.kind === "postgres" ? createForkRenumberer() : (c) => c;
    this.s = { library, ...emptySummary(Boolean(opts.dryRun), 1) };
  }

  async run(): Promise<Summary> {
    const { opts, s } = this;
    const now = opts.now ?? (() => performance.now());
    const t0 = now();
    const total = opts.onProgress ? await this.source.count() : undefined;
    this.targetHadLayout = await this.target.hasLayout();
    if (!this.targetHadLayout && !opts.dryRun) await this.target.setup(s.library);
    const progress = () => {
      s.elapsedMs = now() - t0;
      opts.onProgress?.({
        total,
        read: s.read,
        written: s.written,
        skipped: s.skipped,
        rejected: s.rejected,
        bytesRead: s.bytesRead,
        bytesWritten: s.bytesWritten,
        elapsedMs: s.elapsedMs,
      });
    };
    // the write of a batch is in flight while the next one is read and staged (no target access), then awaited
    let writing: Promise<boolean> | undefined;
    try {
      for await (const batch of this.source.scanRows(Math.max(1, opts.batchSize ?? 500), opts.threads)) {
        await this.confirmJournaled(batch); // (beside the write in flight: it reads what an earlier run wrote)
        const ready = this.stage(batch);
        if (writing && !(await writing)) break;
        writing = undefined;
        progress();
        if (!ready) break;
        const toWrite = await this.sorted(ready);
        if (!toWrite) break;
        writing = this.commit(toWrite);
        writing.catch(() => undefined); // awaited below or in finally
      }
      if (writing) await writing;
      progress();
      await this.verifying;
    } finally {
      await writing?.catch(() => undefined);
      await this.verifying.catch(() => undefined); // a failure elsewhere wins; the read-back ends before the stores close
    }
    s.elapsedMs = now() - t0;
    const secs = Math.max(s.elapsedMs, 1) / 1000;
    s.recordsPerSecond = s.read / secs;
    s.mbPerSecond = s.bytesRead / 1e6 / secs;
    return s;
  }

  private reject(cp: LgCheckpoint, reason: string): void {
    const r = { ...label(cp), reason };
    this.s.rejected++;
    this.s.rejectedRecords.push(r);
    this.opts.onReject?.(r);
    if (this.opts.strict) this.s.aborted = `rejected ${r.namespace}#${r.threadId} (--strict): ${reason}`;
  }

  private journaled(cp: LgCheckpoint): boolean {
    const key = keyOf(cp);
    return (this.opts.journal?.done.has(key) ?? false) && !this.notInTarget.has(key);
  }

  /**
   * A resumed run trusts its journal only as far as the target bears it out: the checkpoints of `batch` the journal
   * names are looked up in the target, and those it does not hold are written again like any other.
   */
  private async confirmJournaled(batch: LgCheckpoint[]): Promise<void> {
    if (!this.opts.journal?.done.size) return;
    const named = batch.filter((cp) => this.journaled(cp));
    if (!named.length) return;
    const held = this.targetHadLayout ? await this.target.readBack(named) : new Map<string, unknown>();
    for (const cp of named) {
      if (held.has(keyOf(cp))) continue;
      this.notInTarget.add(keyOf(cp));
      this.s.journalMissing++;
    }
  }

  /**
   * PostgreSQL's JSONB cannot hold U+0000: the metadata strings holding it lose it (as LangGraph's own savers write
   * them). The checkpoint is written and verified in that form, and the summary says what changed.
   */
  private noteNulMetadata(cp: LgCheckpoint): void {
    const text = textOf(cp.metadata);
    if (!text.includes("\\u0000") && !text.includes("\u0000")) return;
    let n = 0;
    const walk = (v: unknown): void => {
      if (typeof v === "string") n += v.includes("\u0000") ? 1 : 0;
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          n += k.includes("\u0000") ? 1 : 0;
          walk(x);
        }
    };
    try {
      walk(JSON.parse(text));
    } catch {
      return; // metadata that is not JSON is the decoder's to report
    }
    if (n === 0) return;
    (this.s.altered ??= []).push({
      ...label(cp),
      what: `metadata: U+0000 removed from ${n} string${n === 1 ? "" : "s"} (PostgreSQL's JSONB cannot hold it; LangGraph's own savers drop it too)`,
    });
  }

  /** Count the batch, skip what the journal has, convert and stage the rest; undefined when --strict aborted. */
  private stage(batch: LgCheckpoint[]): Ready[] | undefined {
    const { opts, s } = this;
    const ready: Ready[] = [];
    for (const raw of batch) {
      s.read++;
      s.bytesRead += sizeOf(raw);
      let cp: LgCheckpoint;
      try {
        // journaled ones too: a forked branch's renumbered versions carry on to its later checkpoints
        cp = this.forks(opts.toLibrary ? convertCheckpoint(raw, opts.toLibrary) : raw);
      } catch (e) {
        this.reject(raw, (e as Error).message);
        if (s.aborted) return undefined;
        continue;
      }
      if (this.journaled(raw)) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      // PostgreSQL text cannot hold NUL: a key holding one is that checkpoint's problem, not the batch's
      const nul = this.target.kind === "postgres" ? nulInKeys(cp) : undefined;
      if (nul !== undefined) {
        this.reject(raw, nul);
        if (s.aborted) return undefined;
        continue;
      }
      try {
        const lib = opts.toLibrary ?? libraryOf(cp, s.library);
        this.target.stage(cp, lib);
        ready.push({ cp, lib });
        if (this.target.kind === "postgres") this.noteNulMetadata(cp);
      } catch (e) {
        this.reject(raw, (e as Error).message);
        if (s.aborted) return undefined;
      }
    }
    return ready;
  }

  /** What to write of `ready` given what the target holds (--on-conflict); undefined when a conflict aborts. */
  private async sorted(ready: Ready[]): Promise<Ready[] | undefined> {
    const { s, policy, target } = this;
    const existing =
      this.targetHadLayout && ready.length ? await target.readBack(ready.map((r) => r.cp)) : new Map<string, unknown>();
    const toWrite: Ready[] = [];
    const conflicts: Conflict[] = [];
    for (const r of ready) {
      const old = existing.get(keyOf(r.cp));
      if (old === undefined || policy === "overwrite") toWrite.push(r);
      else if (target.sameForm(old, target.stagedForm(r.cp, r.lib))) s.skipped++, s.identical++;
      else if (policy === "skip" || policy === "newer")
        s.skipped++; // a checkpoint id names one immutable checkpoint: nothing is "newer"
      else conflicts.push({ ...label(r.cp), reason: "exists with different content" });
    }
    if (conflicts.length) {
      s.conflicts.push(...conflicts);
      if (!this.opts.dryRun) {
        s.aborted = `${conflicts.length} conflict(s) in the target (--on-conflict ${policy === "auto" ? "default: fail on different" : policy})`;
        return undefined;
      }
    }
    return toWrite;
  }

  /** Write what `sorted` kept (one transaction per library), journal it, and queue its read-back. */
  private async commit(toWrite: Ready[]): Promise<boolean> {
    const { opts, s } = this;
    const bytes = toWrite.reduce((n, r) => n + sizeOf(r.cp), 0);
    if (opts.dryRun || toWrite.length === 0) {
      if (opts.dryRun) (s.written += toWrite.length), (s.bytesWritten += bytes);
      return true;
    }
    // one library per write call (a converted or mixed batch may hold both)
    for (const lib of ["python", "js"] as const) {
      const part = toWrite.filter((r) => r.lib === lib).map((r) => r.cp);
      if (part.length) await this.target.write(part, { library: lib, overwrite: this.policy === "overwrite" });
    }
    await opts.journal?.commit(toWrite.map((r) => ({ key: keyOf(r.cp), hash: "" })));
    s.written += toWrite.length;
    s.bytesWritten += bytes;
    if (opts.verify ?? true) this.verifyLater(toWrite);
    return true;
  }

  /**
   * Check the written batch where it is stored (the target's hashes, when it has them), read back what that does not
   * find exactly as written and compare decoded values; after the batches before it, overlapping the next batch.
   */
  private verifyLater(written: Ready[]): void {
    const prev = this.verifying;
    const { target } = this;
    this.verifying = (async () => {
      await prev;
      const exact = target.verifyWritten ? await target.verifyWritten(written) : [];
      const rest = written.filter((_, i) => !exact[i]);
      this.s.verified += written.length - rest.length;
      const back = rest.length ? await target.readBack(rest.map((r) => r.cp)) : new Map<string, unknown>();
      for (const r of rest) {
        const b = back.get(keyOf(r.cp));
        if (b !== undefined && target.sameForm(b, target.stagedForm(r.cp, r.lib))) this.s.verified++;
        else
          this.s.mismatches.push({
            ...label(r.cp),
            expected: "the rows written",
            got: b === undefined ? null : "different rows",
          });
      }
    })();
    this.verifying.catch(() => undefined); // handled by run(); no unhandled-rejection report in between
  }
}

export async function migrateLangGraph(
  source: Pick<LgStore, "library" | "count" | "scanRows">,
  target: LgStore,
  opts: LgMigrateOptions = {},
): Promise<Summary> {
  const library: Library = opts.toLibrary ?? (await source.library()) ?? "js";
  return new LgMigration(source, target, opts, library).run();
}
