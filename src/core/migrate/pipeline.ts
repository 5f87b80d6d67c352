/**
 * The migration pipeline, one for every layout: copy every record of a source into a target in bounded batches —
 * scan a batch, stage it (check, convert: the endpoint's), resolve conflicts, write the batch, record it in the
 * journal, read it back and compare. The layouts at the two ends supply their rows, items and writers through one
 * endpoint (endpoint.ts, engines/<layout>/migrate.ts); the journal and `--resume`, `--on-conflict`, `--strict`,
 * verification, progress, the summary and Ctrl-C are written here once. Memory stays bounded by the batch size (at
 * most `writers + 3` batches are in flight). Stores and the journal are passed in, so this module does no I/O.
 */
import { RecordError } from "../../base/errors.js";
import type { Item, MigrationEndpoint, Staged, TargetWriter } from "./endpoint.js";
import {
  type ConflictPolicy,
  type Conflict,
  emptySummary,
  type MigrateSummary,
  type Rejected,
  type RunOptions,
} from "./types.js";

/** Which writer a thread goes to: FNV-1a of the thread id, so a thread always goes through the same connection. */
export function shardOf(threadId: string, writers: number): number {
  if (writers <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < threadId.length; i++) h = Math.imul(h ^ threadId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % writers;
}

/**
 * Write a batch with `save` (write; insertNew: false when a record already exists; add: which were written). A
 * record the target cannot hold (a RecordError: a FileSaver name collision, a thread id too long for a file name, an
 * empty id) is handed to `reject` and the rest written again (writes are idempotent). The records tried and what
 * `save` said (undefined when every record was rejected), or undefined when `reject` says stop.
 */
async function saveRejecting<R extends Item, T>(
  save: (records: R[]) => Promise<T>,
  records: R[],
  reject: (r: R, reason: string) => boolean,
): Promise<{ records: R[]; saved?: T } | undefined> {
  let todo = records;
  for (;;) {
    try {
      return { records: todo, saved: await save(todo) };
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
      const { threadId, namespace } = e.record;
      const i = todo.findIndex(
        (r) => r.threadId === threadId && (namespace === undefined || r.namespace === namespace),
      );
      if (i < 0) throw e;
      if (!reject(todo[i]!, e.format())) return undefined;
      todo = todo.filter((_, k) => k !== i);
      if (!todo.length) return { records: todo };
    }
  }
}

/** Run a migration through `endpoint`. Throws CkptError(4) for store failures; everything else ends up in the summary. */
export function runMigration<R, I extends Item, H>(
  endpoint: MigrationEndpoint<R, I, H>,
  opts: RunOptions = {},
): Promise<MigrateSummary> {
  return new Migration(endpoint, opts).run();
}

/** A scanned batch whose staging is under way (in a worker) or yet to run (here). */
interface Pending<R, I> {
  batch: R[];
  staged: () => Promise<Array<Staged<I> | undefined>>;
}

/**
 * One migration run. Batches flow: scan → stage (the endpoint's; a worker thread for documents) → classify in order
 * (resumed, rejected, ready) → split by thread id over the writers → per writer, one after another: conflict lookup,
 * write, journal (or, into a writer that can insert new records atomically, an insert as new, which is the conflict
 * check itself: the lookup only when it finds a record that exists); then the read-back, beside the lane's next batch.
 * Each writer is a lane of its own; up to `writers + 3` batches are in flight, so reading, staging and the writers'
 * round trips overlap while memory stays bounded by that many batches.
 */
class Migration<R, I extends Item, H> {
  readonly s: MigrateSummary;
  private readonly now: () => number;
  private readonly t0: number;
  private readonly batchSize: number;
  private readonly policy: ConflictPolicy;
  private readonly writers: Array<TargetWriter<I, H>>;
  private lanes: Array<Promise<void>>;
  private journalChain: Promise<void> = Promise.resolve();
  private total: number | undefined;
  /** a writer failed: stop reading and writing */
  private failed = false;
  /** writers that can (insertNew) insert a batch as new before any lookup, until a record is found to exist */
  private insertFirst = true;
  /** journal keys (of an interrupted run) whose records the target does not hold: written again */
  private readonly notInTarget = new Set<string>();

  constructor(
    private readonly e: MigrationEndpoint<R, I, H>,
    private readonly opts: RunOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.t0 = this.now();
    this.batchSize = Math.max(1, opts.batchSize ?? 200);
    this.policy = opts.onConflict ?? "auto";
    this.writers = e.writers;
    this.lanes = this.writers.map(() => Promise.resolve());
    this.s = emptySummary(Boolean(opts.dryRun), this.writers.length);
  }

  private get stopped(): boolean {
    if (this.opts.signal?.aborted && this.s.aborted === undefined) {
      this.s.interrupted = true;
      this.s.aborted = "interrupted";
    }
    return this.failed || this.s.aborted !== undefined;
  }

  /** Report a finished batch: `read` / `bytesRead` up to and including it (later batches may be read already). */
  private progress(read: { read: number; bytesRead: number }): void {
    const s = this.s;
    s.elapsedMs = this.now() - this.t0;
    this.opts.onProgress?.({
      total: this.total,
      read: read.read,
      written: s.written,
      skipped: s.skipped,
      rejected: s.rejected,
      bytesRead: read.bytesRead,
      bytesWritten: s.bytesWritten,
      elapsedMs: s.elapsedMs,
    });
  }

  private isDone(r: R): boolean {
    const key = this.e.keyOf(r);
    return (this.opts.journal?.done.has(key) ?? false) && !this.notInTarget.has(key);
  }

  /**
   * A resumed run trusts its journal only as far as the target bears it out: the records of `batch` the journal names
   * are looked up in the target (one batched existence check), and those it does not hold — a Redis without
   * persistence restarted empty, a table restored from an older backup — are staged and written again like any
   * other record.
   */
  private async confirmJournaled(batch: R[]): Promise<void> {
    if (!this.opts.journal?.done.size) return;
    const named = batch.filter((r) => this.isDone(r));
    if (!named.length) return;
    const held = await this.e.held(named);
    named.forEach((r, i) => {
      if (held[i]) return;
      this.notInTarget.add(this.e.keyOf(r));
      this.s.journalMissing++;
    });
  }

  /** Count a rejected record; false when the run must stop (--strict). */
  private reject(r: Rejected): boolean {
    this.s.rejected++;
    this.s.rejectedRecords.push(r);
    this.opts.onReject?.(r);
    if (!this.opts.strict) return true;
    this.s.aborted ??= `rejected ${r.namespace}#${r.threadId} (--strict): ${r.reason}`;
    return false;
  }

  /** Count the batch as read; the items to write (in batch order), or undefined when --strict stops the run. */
  private classify(batch: R[], staged: Array<Staged<I> | undefined>): I[] | undefined {
    const s = this.s;
    const ready: I[] = [];
    for (let i = 0; i < batch.length; i++) {
      const r = batch[i]!;
      const c = staged[i];
      s.read++;
      s.bytesRead += this.e.bytesRead(r, c);
      if (c === undefined) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      if ("reject" in c) {
        const { namespace, threadId, file } = this.e.labelOf(r);
        if (!this.reject({ namespace, threadId, reason: c.reject, ...(file !== undefined ? { file } : {}) }))
          return undefined;
        continue;
      }
      ready.push(c.ok);
    }
    return ready;
  }

  /**
   * Apply the conflict policy to what the target already holds: the items to write — `add`, those it does not hold
   * (written only if they are still missing then), and `replace`, those the policy overwrites — or undefined to stop.
   */
  private resolveConflicts(ready: I[], existing: Array<H | undefined>): { add: I[]; replace: I[] } | undefined {
    const s = this.s;
    const add: I[] = [];
    const toWrite: I[] = [];
    const conflicts: Conflict[] = [];
    const skip = (same: boolean) => {
      s.skipped++;
      if (same) s.identical++;
    };
    ready.forEach((p, i) => {
      const old = existing[i];
      if (old === undefined) return void add.push(p);
      const same = this.e.same(p, old);
      switch (this.policy) {
        case "overwrite":
          return void toWrite.push(p);
        case "skip":
          return skip(same);
        case "newer":
          if (!same && this.e.newer(p, old)) toWrite.push(p);
          else skip(same);
          return;
        case "fail":
          return void conflicts.push({
            namespace: p.namespace,
            threadId: p.threadId,
            reason: same ? "exists (identical)" : "exists with different content",
          });
        case "auto":
          if (same) skip(true);
          else
            conflicts.push({ namespace: p.namespace, threadId: p.threadId, reason: "exists with different content" });
      }
    });
    if (conflicts.length) {
      s.conflicts.push(...conflicts);
      if (!this.opts.dryRun) {
        s.aborted ??= `${conflicts.length} conflict(s) in the target (--on-conflict ${this.policy === "auto" ? "default: fail on different" : this.policy})`;
        return undefined;
      }
    }
    return { add, replace: toWrite };
  }

  /**
   * One writer's share of a batch: conflict lookup, write, journal on that writer's lane; the read-back is handed to
   * `verifying` and runs after the lane is free, beside the next batch's lookup and write (a thread is in one batch
   * only, so no later batch depends on it): the round trips of consecutive batches overlap. Without a lookup sent
   * (`existing` undefined: the writer inserts new records atomically) the share is first inserted as new; only when the
   * target says one of them exists (nothing written then) is it looked up and written as the conflict policy says.
   */
  private async writeShard(
    writer: TargetWriter<I, H>,
    ready: I[],
    existing: Promise<Array<H | undefined>> | undefined,
    verifying: Array<Promise<void>>,
  ): Promise<void> {
    if (this.stopped || ready.length === 0) return;
    const reject = (p: I, reason: string) => this.reject({ namespace: p.namespace, threadId: p.threadId, reason });
    if (existing === undefined) {
      const first = await saveRejecting((rs) => writer.insertNew!(rs), ready, reject);
      if (!first) return;
      // written records are journaled and counted even when the run is stopping meanwhile
      if (first.saved !== false) {
        if (first.records.length) await this.written(writer, first.records, verifying);
        return;
      }
      if (this.stopped) return;
      this.insertFirst = false; // the target holds records of this run: look up first from now on
      ready = first.records;
      existing = writer.lookup(ready);
    }
    const written = await this.applyPolicy(writer, ready, await existing, reject);
    if (written.length) await this.written(writer, written, verifying);
  }

  /**
   * Write what the conflict policy says to: items the lookup found missing are added only where they are still
   * missing (`add`: another run may have written them since), so `skip` never overwrites; an item someone else wrote
   * meanwhile is looked up again and the policy applied to what is there now. The items written (a dry run counts
   * what it would write and writes none).
   */
  private async applyPolicy(
    writer: TargetWriter<I, H>,
    ready: I[],
    existing: Array<H | undefined>,
    reject: (p: I, reason: string) => boolean,
  ): Promise<I[]> {
    const written: I[] = [];
    for (let round = 0; ready.length; round++) {
      const plan = this.resolveConflicts(ready, existing);
      if (!plan || this.stopped) break;
      if (this.opts.dryRun) {
        const all = [...plan.add, ...plan.replace];
        this.s.written += all.length; // "would write"
        this.s.bytesWritten += all.reduce((n, p) => n + p.bytes, 0);
        this.e.counted?.(all);
        break;
      }
      if (plan.replace.length) {
        const r = await saveRejecting((rs) => writer.write(rs, true), plan.replace, reject);
        if (!r) break;
        written.push(...r.records);
      }
      if (!plan.add.length) break;
      // without `add` (or after a few rounds of records that keep coming and going) the items are simply written
      if (!writer.add || round >= 3) {
        const r = await saveRejecting((rs) => writer.write(rs, false), plan.add, reject);
        if (r) written.push(...r.records);
        break;
      }
      const r = await saveRejecting((rs) => writer.add!(rs), plan.add, reject);
      if (!r) break;
      const added = r.saved ?? [];
      written.push(...r.records.filter((_, i) => added[i]));
      ready = r.records.filter((_, i) => !added[i]);
      if (ready.length) existing = await writer.lookup(ready);
    }
    return written;
  }

  /** Items just written by `writer`: journal them, count them, start their read-back. */
  private async written(writer: TargetWriter<I, H>, written: I[], verifying: Array<Promise<void>>): Promise<void> {
    const s = this.s;
    const journal = this.opts.journal;
    if (journal) {
      const entries = written.map((p) => ({ key: p.key, hash: p.hash }));
      // one commit at a time: the writers share the journal
      await (this.journalChain = this.journalChain.then(() => journal.commit(entries)));
    }
    s.written += written.length;
    s.bytesWritten += written.reduce((n, p) => n + p.bytes, 0);
    this.e.counted?.(written);
    if (this.opts.verify ?? true) {
      const v = this.verify(writer, written);
      v.catch(() => undefined); // awaited by the batch (process); not unhandled meanwhile
      verifying.push(v);
    }
  }

  /** Read the written items back (the writer's way: in place, or by content hash) and count what matches. */
  private async verify(writer: TargetWriter<I, H>, written: I[]): Promise<void> {
    const s = this.s;
    const misread = await writer.verify(written);
    written.forEach((p, i) => {
      const m = misread[i];
      if (m === undefined) s.verified++;
      else s.mismatches.push({ namespace: p.namespace, threadId: p.threadId, expected: m.expected, got: m.got });
    });
  }

  /** Queue `work` on writer `i`'s lane (after what is queued there); a failed lane fails everything queued after it. */
  private onLane(i: number, work: () => Promise<void>): Promise<void> {
    const p = this.lanes[i]!.then(work);
    this.lanes[i] = p;
    return p;
  }

  /**
   * A batch's way after the scan: staging, classification (in the order the batches were read: after `prevQueued`),
   * then each writer's share on its lane. `queued` settles once the batch is classified and its shares are on the
   * lanes — the next batch waits for that only, not for this one's round trips, so consecutive batches' lookups,
   * writes and read-backs overlap; `done` once it is written and read back and the batches before it are done
   * (progress is reported in batch order).
   */
  private process(
    pending: Pending<R, I>,
    prev: { queued: Promise<unknown>; done: Promise<unknown> },
  ): { queued: Promise<unknown>; done: Promise<void> } {
    const queued = (async () => {
      const staged = await pending.staged();
      await prev.queued.catch(() => undefined);
      if (this.stopped) return undefined;
      const ready = this.classify(pending.batch, staged);
      const read = { read: this.s.read, bytesRead: this.s.bytesRead };
      return ready && { all: this.enqueue(ready), read };
    })();
    // a failure stops the batches after this one before they are classified (the caller records the error from `done`)
    queued.catch(() => void (this.failed = true));
    const done = queued.then(async (q) => {
      await q?.all;
      await prev.done.catch(() => undefined);
      if (q) this.progress(q.read);
    });
    return { queued, done };
  }

  /**
   * Put each writer's share of a classified batch on its lane, its conflict lookup (if it needs one) sent at once (a
   * thread is in one batch only, so the lookup reads nothing an earlier batch writes, and its round trip overlaps
   * theirs). Resolves when every share is written and read back.
   */
  private async enqueue(ready: I[]): Promise<void> {
    const shards: I[][] = this.writers.map(() => []);
    for (const p of ready) shards[shardOf(p.threadId, this.writers.length)]!.push(p);
    const verifying: Array<Promise<void>> = [];
    const write = (shard: I[], i: number) => {
      const writer = this.writers[i]!;
      // a writer that inserts new records atomically is asked to do that first (no lookup) until one is found to exist
      const existing = writer.insertNew && this.insertFirst && !this.opts.dryRun ? undefined : writer.lookup(shard);
      existing?.catch(() => undefined); // awaited on the lane; a run that stops first must not leave it unhandled
      return this.onLane(i, () => this.writeShard(writer, shard, existing, verifying));
    };
    await Promise.all(shards.map((shard, i) => (shard.length ? write(shard, i) : undefined)));
    await Promise.all(verifying);
  }

  /** One pass over a part of the source in its own order (a migration needs every record once, not id order). */
  private async copyPart(part: string): Promise<void> {
    const it = this.e.scan(part, this.batchSize)[Symbol.asyncIterator]();
    const inFlight: Array<Promise<void>> = [];
    // a batch per writer being written, one being looked up, one being read back, one being read and staged
    const limit = this.writers.length + 3;
    let last: { queued: Promise<unknown>; done: Promise<unknown> } = {
      queued: Promise.resolve(),
      done: Promise.resolve(),
    };
    let error: unknown;
    try {
      while (!this.stopped) {
        const r = await it.next();
        if (r.done) break;
        await this.confirmJournaled(r.value);
        await this.e.started?.(r.value);
        const batch = r.value;
        const p = this.process({ batch, staged: this.e.stage(batch, (x) => this.isDone(x)) }, last);
        p.done.catch((e) => {
          error ??= e;
          this.failed = true;
        });
        last = p;
        inFlight.push(p.done);
        if (inFlight.length >= limit) while (inFlight.length >= limit) await inFlight.shift()!.catch(() => undefined);
        // let the replies that came in meanwhile be handled (each sends a batch's next command) before reading on
        else await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await Promise.all(inFlight.map((p) => p.catch(() => undefined)));
      if (this.stopped) await it.return?.();
    }
    if (error !== undefined) throw error;
    this.passedOver(part);
  }

  /** What the scan of a part passed over: ignored entries, and rejected ones (a second file for a thread). */
  private passedOver(part: string): void {
    const p = this.e.passedOver?.(part);
    if (!p) return;
    const s = this.s;
    s.ignoredFiles.push(...p.ignored);
    s.ignored += p.ignored.length;
    for (const r of p.rejected) {
      s.rejected++;
      s.rejectedRecords.push(r);
      this.opts.onReject?.(r);
    }
  }

  async run(): Promise<MigrateSummary> {
    const s = this.s;
    try {
      const parts = await this.e.parts();
      if (this.opts.onProgress) {
        this.total = 0;
        for (const part of parts) this.total += await this.e.count(part);
      }
      await this.e.begin?.(s, Boolean(this.opts.dryRun));
      for (const part of parts) {
        if (this.stopped) break;
        await this.copyPart(part);
      }
    } finally {
      await this.e.end?.(s);
    }
    s.elapsedMs = this.now() - this.t0;
    const secs = Math.max(s.elapsedMs, 1) / 1000;
    s.recordsPerSecond = s.read / secs;
    s.mbPerSecond = s.bytesRead / 1e6 / secs;
    return s;
  }
}
