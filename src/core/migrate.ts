/**
 * The migration engine: copy every thread from one saver to another in bounded batches — scan a batch from the
 * source, check (and optionally convert) each document, resolve conflicts, write the batch in one pipelined /
 * transactional call, record it in the journal, read it back and compare content hashes. Memory stays bounded by
 * the batch size (at most `writers + 2` batches are in flight).
 * Savers and the journal are passed in, so this module does no I/O of its own. On large migrations the checks run in
 * a check pool the caller passes in (the CLI's runs on a worker thread: cli/check-pool.ts), overlapping with the reads and writes on this thread.
 */
import { checkThreadId, contentHash, updatedAtOf } from "../savers/common.js";
import type { Saver, SaverRecord } from "../savers/types.js";
import type { FormatName } from "../formats/index.js";
import { parseJson, stringifyJson } from "../base/json.js";
import { ExitCode, RecordError } from "../base/errors.js";
import { checkForWire, sha256, type CheckOptions, type CheckPool, type WireResult, type WireWants } from "./check.js";

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
  /** the version of it to write (ai-sdk: the AI SDK major) */
  toFormatVersion?: string;
  allowLossy?: boolean;
  journal?: Journal;
  /**
   * Where records are checked: "auto" (default) starts a worker thread when the first batch is full (if the pool
   * agrees: the CLI's declines when no core is idle) and sends it
   * batches once it is up (~0.1 s), checking here meanwhile; "on" waits for the worker and sends it every batch;
   * "off" checks on the calling thread. The results are the same either way.
   */
  worker?: "auto" | "off" | "on";
  /**
   * More connections to the same target (`--jobs`): records are sharded over `[target, ...writers]` by thread id and
   * each writer looks up conflicts, writes and reads back its share on its own connection, in parallel. The caller
   * opens and closes them.
   */
  writers?: Saver[];
  /**
   * starts the pool that checks batches off this thread; without it (or when it gives undefined) checks run here.
   * `auto`: migrate decided on its own (worker "auto"), so the pool may decline (the CLI's does when no core is idle).
   */
  openCheckPool?: (opts?: { auto?: boolean }) => Promise<CheckPool | undefined>;
  onProgress?: (p: MigrateProgress) => void;
  onReject?: (r: Rejected) => void;
  now?: () => number;
  /** stop after the batches in flight (Ctrl-C): the summary says `interrupted`, the journal lets a resume finish */
  signal?: AbortSignal;
}

export interface Rejected {
  namespace: string;
  threadId: string;
  reason: string;
  /** the file it came from (folder stores) */
  file?: string;
}

/** A source entry that is not a checkpoint (a folder store's README, lock file, .git …), with the reason. */
export interface Ignored {
  namespace: string;
  file: string;
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
  /** skipped because the journal of an interrupted run already had them (each found in the target) */
  resumed: number;
  /** records the journal named that the target no longer held (a server restarted empty): written again */
  journalMissing: number;
  /** records written in another form than the source's, with what changed (LangGraph: NUL dropped from metadata) */
  altered?: Array<{ namespace: string; threadId: string; what: string }>;
  /** existing identical records left alone */
  identical: number;
  verified: number;
  conflicts: Conflict[];
  mismatches: Array<{ namespace: string; threadId: string; expected: string; got: string | null }>;
  rejectedRecords: Rejected[];
  /** source entries that are not checkpoints (folder stores): counted, never skipped silently */
  ignored: number;
  ignoredFiles: Ignored[];
  /** whether records were checked in a worker thread */
  checkedInWorker: boolean;
  /** parallel writers (connections to the target) */
  writers: number;
  /** set when the run stopped early (--strict reject, --on-conflict fail, interrupted) */
  aborted?: string;
  /** the run was stopped by `signal` before it finished */
  interrupted?: boolean;
  recordsPerSecond: number;
  mbPerSecond: number;
}

/** How a record's messages name it: its file (folder stores), else namespace#thread. */
const checkName = (r: SaverRecord) => r.source ?? `${r.namespace}#${r.threadId}`;

export const journalKey = (namespace: string, threadId: string) => `${namespace}\u0000${threadId}`;

/**
 * A checked record on its way to the target: the text to store, and — when the target or the journal needs them —
 * its compact text and content hash (sha256 of the compact text, what `contentHash(text)` gives), worked out by the
 * check (in the worker, or here) while the parsed value was at hand. The parsed value itself is not kept: a batch in
 * flight holds texts only. A store that keeps the text as given and reads it back identical never needs either; a
 * conflict or a mismatch parses the text again (rare).
 */
class PreparedRecord implements SaverRecord {
  #compact: string | undefined;
  #hash: string | undefined;
  #bytes: number | undefined;
  constructor(
    readonly namespace: string,
    readonly threadId: string,
    readonly text: string,
    compact?: string,
    hash?: string,
  ) {
    this.#compact = compact;
    this.#hash = hash;
  }
  get compact(): string {
    return (this.#compact ??= stringifyJson(parseJson(this.text)));
  }
  get hash(): string {
    return (this.#hash ??= sha256(this.compact));
  }
  /** the text's UTF-8 size, worked out once (the counts and a PostgreSQL COPY row need it) */
  get bytes(): number {
    return (this.#bytes ??= Buffer.byteLength(this.text));
  }
  /** whether `other` has this record's content: the same text (or compact text), else the same content hash */
  sameContent(other: string): boolean {
    return other === this.text || other === this.compact || contentHash(other) === this.hash;
  }
}

type Checked = { ok: PreparedRecord } | { reject: string };

/** A scanned batch whose checks are under way (in the worker) or yet to run (here). */
interface Pending {
  batch: SaverRecord[];
  /** per record: the check, or undefined when the journal of an interrupted run has it already */
  checked: () => Promise<Array<Checked | undefined>>;
}

/** Which writer a thread goes to: FNV-1a of the thread id, so a thread always goes through the same connection. */
export function shardOf(threadId: string, writers: number): number {
  if (writers <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < threadId.length; i++) h = Math.imul(h ^ threadId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % writers;
}

/**
 * Write a batch with `save` (saveMany; insertNew: false when a record already exists; addMany: which were written). A
 * record the target cannot hold (a RecordError: a FileSaver name collision, a thread id too long for a file name, an
 * empty id) is handed to `reject` and the rest written again (writes are idempotent). The records tried and what
 * `save` said (undefined when every record was rejected), or undefined when `reject` says stop.
 */
async function saveRejecting<R extends SaverRecord, T>(
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

/** Why no store can hold this thread id (empty, NUL), checked before the target is asked anything about it. */
function badThreadId(threadId: string, namespace: string): string | undefined {
  try {
    checkThreadId(threadId, namespace);
    return undefined;
  } catch (e) {
    if (e instanceof RecordError) return e.message;
    throw e;
  }
}

/** Run a migration. Throws CkptError(4) for store failures; everything else ends up in the summary. */
export async function migrate(source: Saver, target: Saver, opts: MigrateOptions = {}): Promise<MigrateSummary> {
  return new Migration(source, target, opts).run();
}

/**
 * One migration run. Batches flow: scan (this thread) → check (the pool's worker, or here) → classify in order
 * (resumed, rejected, ready) → split by thread id over the writers → per writer, one after another: conflict lookup,
 * write, journal (or, into a store that can insert new records atomically, an insert as new, which is the conflict
 * check itself: the lookup only when it finds a record that exists); then the read-back, beside the lane's next batch.
 * Each writer is a lane of its own; up to `writers + 2` batches are in flight, so reading, checking and the writers'
 * round trips overlap while memory stays bounded by that many batches.
 */
class Migration {
  readonly s: MigrateSummary;
  private readonly now: () => number;
  private readonly t0: number;
  private readonly batchSize: number;
  private readonly policy: ConflictPolicy;
  private readonly checkOpts: CheckOptions;
  private readonly writers: Saver[];
  private lanes: Array<Promise<void>>;
  private journalChain: Promise<void> = Promise.resolve();
  private pool: CheckPool | undefined;
  private total: number | undefined;
  /** a writer failed: stop reading and writing */
  private failed = false;
  /** writers that can (insertNew) insert a batch as new before any lookup, until a record is found to exist */
  private insertFirst = true;
  /** journal keys (of an interrupted run) whose records the target does not hold: written again */
  private readonly notInTarget = new Set<string>();

  constructor(
    private readonly source: Saver,
    private readonly target: Saver,
    private readonly opts: MigrateOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.t0 = this.now();
    this.batchSize = Math.max(1, opts.batchSize ?? 200);
    this.policy = opts.onConflict ?? "auto";
    this.checkOpts = { toFormat: opts.toFormat, toFormatVersion: opts.toFormatVersion, allowLossy: opts.allowLossy };
    this.writers = [target, ...(opts.writers ?? [])];
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

  private targetNsOf(r: SaverRecord): string {
    return this.opts.toNamespace ?? r.namespace;
  }

  private isDone(r: SaverRecord): boolean {
    const key = journalKey(this.targetNsOf(r), r.threadId);
    return (this.opts.journal?.done.has(key) ?? false) && !this.notInTarget.has(key);
  }

  /**
   * A resumed run trusts its journal only as far as the target bears it out: the records of `batch` the journal names
   * are looked up in the target (one batched existence check), and those it does not hold — a Redis without
   * persistence restarted empty, a table restored from an older backup — are checked and written again like any
   * other record.
   */
  private async confirmJournaled(batch: SaverRecord[]): Promise<void> {
    const done = this.opts.journal?.done;
    if (!done?.size) return;
    const named = batch.filter((r) => this.isDone(r));
    if (!named.length) return;
    const keys = named.map((r) => ({ namespace: this.targetNsOf(r), threadId: r.threadId }));
    const held = this.target.existsMany
      ? await this.target.existsMany(keys)
      : (await this.target.loadMany(keys)).map((t) => t !== undefined);
    named.forEach((r, i) => {
      if (held[i]) return;
      this.notInTarget.add(journalKey(this.targetNsOf(r), r.threadId));
      this.s.journalMissing++;
    });
  }

  /** What every checked record must carry besides its text: the compact text (a store that keeps it), the hash (the journal). */
  private wants(): WireWants {
    return { compact: Boolean(this.target.storesCompact), hash: this.opts.journal !== undefined };
  }

  private dispatch(batch: SaverRecord[]): Pending {
    const pool = this.pool;
    if (pool?.ready) {
      const todo = batch.filter((r) => !this.isDone(r));
      this.s.checkedInWorker = true;
      const sent = pool.check(
        todo.map(checkName),
        todo.map((r) => r.text),
        this.checkOpts,
        this.wants(),
        todo.map((r) => r.threadId),
      );
      sent.catch(() => undefined); // awaited in turn; a run that stops early must not leave it unhandled
      const fromWire = (r: SaverRecord, w: WireResult): Checked =>
        w.ok
          ? { ok: new PreparedRecord(this.targetNsOf(r), r.threadId, w.text ?? r.text, w.compact, w.hash) }
          : { reject: w.reason };
      return {
        batch,
        checked: async () => {
          const results = await sent;
          let k = 0;
          return batch.map((r) => (this.isDone(r) ? undefined : fromWire(r, results[k++]!)));
        },
      };
    }
    const wants = this.wants();
    return {
      batch,
      checked: async () =>
        batch.map((r) => {
          if (this.isDone(r)) return undefined;
          const w = checkForWire(checkName(r), r.text, this.checkOpts, wants, r.threadId);
          return w.ok
            ? { ok: new PreparedRecord(this.targetNsOf(r), r.threadId, w.text ?? r.text, w.compact, w.hash) }
            : { reject: w.reason };
        }),
    };
  }

  /** Count a rejected record; false when the run must stop (--strict). */
  private reject(namespace: string, threadId: string, reason: string, file?: string): boolean {
    const r: Rejected = { namespace, threadId, reason, ...(file !== undefined ? { file } : {}) };
    this.s.rejected++;
    this.s.rejectedRecords.push(r);
    this.opts.onReject?.(r);
    if (!this.opts.strict) return true;
    this.s.aborted ??= `rejected ${namespace}#${threadId} (--strict): ${reason}`;
    return false;
  }

  /** Count the batch as read; the records to write (in batch order), or undefined when --strict stops the run. */
  private classify(batch: SaverRecord[], checked: Array<Checked | undefined>): PreparedRecord[] | undefined {
    const s = this.s;
    const ready: PreparedRecord[] = [];
    for (let i = 0; i < batch.length; i++) {
      const { namespace, threadId, text, source: file } = batch[i]!;
      const c = checked[i];
      s.read++;
      s.bytesRead += c !== undefined && "ok" in c && c.ok.text === text ? c.ok.bytes : Buffer.byteLength(text);
      if (c === undefined) {
        s.resumed++;
        s.skipped++;
        continue;
      }
      const reason = "reject" in c ? c.reject : badThreadId(threadId, namespace);
      if (reason !== undefined || !("ok" in c)) {
        if (!this.reject(namespace, threadId, reason ?? "", file)) return undefined;
        continue;
      }
      ready.push(c.ok);
    }
    return ready;
  }

  /**
   * Apply the conflict policy to what the target already holds: the records to write — `add`, those it does not hold
   * (written only if they are still missing then), and `replace`, those the policy overwrites — or undefined to stop.
   */
  private resolveConflicts(
    ready: PreparedRecord[],
    existing: Array<string | undefined>,
  ): { add: PreparedRecord[]; replace: PreparedRecord[] } | undefined {
    const s = this.s;
    const add: PreparedRecord[] = [];
    const toWrite: PreparedRecord[] = [];
    const conflicts: Conflict[] = [];
    const skip = (same: boolean) => {
      s.skipped++;
      if (same) s.identical++;
    };
    ready.forEach((p, i) => {
      const old = existing[i];
      if (old === undefined) return void add.push(p);
      const same = p.sameContent(old);
      switch (this.policy) {
        case "overwrite":
          return void toWrite.push(p);
        case "skip":
          return skip(same);
        case "newer": {
          const a = updatedAtOf(p.text);
          const b = updatedAtOf(old);
          if (!same && a !== undefined && (b === undefined || Date.parse(a) > Date.parse(b))) toWrite.push(p);
          else skip(same);
          return;
        }
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
    writer: Saver,
    ready: PreparedRecord[],
    existing: Promise<Array<string | undefined>> | undefined,
    verifying: Array<Promise<void>>,
  ): Promise<void> {
    if (this.stopped || ready.length === 0) return;
    const reject = (p: PreparedRecord, reason: string) => this.reject(p.namespace, p.threadId, reason);
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
      existing = writer.loadMany(ready);
    }
    const written = await this.applyPolicy(writer, ready, await existing, reject);
    if (written.length) await this.written(writer, written, verifying);
  }

  /**
   * Write what the conflict policy says to: records the lookup found missing are added only where they are still
   * missing (`addMany`: another run may have written them since), so `skip` never overwrites; a record someone else
   * wrote meanwhile is looked up again and the policy applied to what is there now. The records written (a dry run
   * counts what it would write and writes none).
   */
  private async applyPolicy(
    writer: Saver,
    ready: PreparedRecord[],
    existing: Array<string | undefined>,
    reject: (p: PreparedRecord, reason: string) => boolean,
  ): Promise<PreparedRecord[]> {
    const written: PreparedRecord[] = [];
    for (let round = 0; ready.length; round++) {
      const plan = this.resolveConflicts(ready, existing);
      if (!plan || this.stopped) break;
      if (this.opts.dryRun) {
        const all = [...plan.add, ...plan.replace];
        this.s.written += all.length; // "would write"
        this.s.bytesWritten += all.reduce((n, p) => n + p.bytes, 0);
        break;
      }
      if (plan.replace.length) {
        const r = await saveRejecting((rs) => writer.saveMany(rs), plan.replace, reject);
        if (!r) break;
        written.push(...r.records);
      }
      if (!plan.add.length) break;
      // without addMany (or after a few rounds of records that keep coming and going) the records are simply written
      if (!writer.addMany || round >= 3) {
        const r = await saveRejecting((rs) => writer.saveMany(rs), plan.add, reject);
        if (r) written.push(...r.records);
        break;
      }
      const r = await saveRejecting((rs) => writer.addMany!(rs), plan.add, reject);
      if (!r) break;
      const added = r.saved ?? [];
      written.push(...r.records.filter((_, i) => added[i]));
      ready = r.records.filter((_, i) => !added[i]);
      if (ready.length) existing = await writer.loadMany(ready);
    }
    return written;
  }

  /** Records just written by `writer`: journal them, count them, start their read-back. */
  private async written(writer: Saver, written: PreparedRecord[], verifying: Array<Promise<void>>): Promise<void> {
    const s = this.s;
    const journal = this.opts.journal;
    if (journal) {
      const entries = written.map((p) => ({ key: journalKey(p.namespace, p.threadId), hash: p.hash }));
      // one commit at a time: the writers share the journal
      await (this.journalChain = this.journalChain.then(() => journal.commit(entries)));
    }
    s.written += written.length;
    s.bytesWritten += written.reduce((n, p) => n + p.bytes, 0);
    if (this.opts.verify ?? true) {
      const v = this.verify(writer, written);
      v.catch(() => undefined); // awaited by the batch (process); not unhandled meanwhile
      verifying.push(v);
    }
  }

  /**
   * Read the written records back and compare. A store that can compare in place (`verifyMany`: SQLite compares the
   * stored bytes with the text in SQL) says which hold exactly what was written; only the others are read back here.
   */
  private async verify(writer: Saver, written: PreparedRecord[]): Promise<void> {
    const s = this.s;
    const same = writer.verifyMany ? await writer.verifyMany(written) : undefined;
    const toRead = same ? written.filter((_, i) => !same[i]) : written;
    if (same) s.verified += written.length - toRead.length;
    if (!toRead.length) return;
    const back = await writer.loadMany(toRead);
    toRead.forEach((p, i) => {
      const b = back[i];
      // contentHash is a function of the text, so a read-back identical to the text (or the compact text) has the
      // expected hash; anything else (a store that reformats) is hashed and compared.
      if (b !== undefined && p.sameContent(b)) s.verified++;
      else
        s.mismatches.push({
          namespace: p.namespace,
          threadId: p.threadId,
          expected: p.hash,
          got: b === undefined ? null : contentHash(b),
        });
    });
  }

  /** Queue `work` on writer `i`'s lane (after what is queued there); a failed lane fails everything queued after it. */
  private onLane(i: number, work: () => Promise<void>): Promise<void> {
    const p = this.lanes[i]!.then(work);
    this.lanes[i] = p;
    return p;
  }

  /**
   * A batch's way after the scan: checks, classification (in the order the batches were read: after `prevQueued`),
   * then each writer's share on its lane. `queued` settles once the batch is classified and its shares are on the
   * lanes — the next batch waits for that only, not for this one's round trips, so consecutive batches' lookups,
   * writes and read-backs overlap; `done` once it is written and read back and the batches before it are done
   * (progress is reported in batch order).
   */
  private process(
    pending: Pending,
    prev: { queued: Promise<unknown>; done: Promise<unknown> },
  ): { queued: Promise<unknown>; done: Promise<void> } {
    const queued = (async () => {
      const checked = await pending.checked();
      await prev.queued.catch(() => undefined);
      if (this.stopped) return undefined;
      const ready = this.classify(pending.batch, checked);
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
  private async enqueue(ready: PreparedRecord[]): Promise<void> {
    const shards: PreparedRecord[][] = this.writers.map(() => []);
    for (const p of ready) shards[shardOf(p.threadId, this.writers.length)]!.push(p);
    const verifying: Array<Promise<void>> = [];
    const write = (shard: PreparedRecord[], i: number) => {
      const writer = this.writers[i]!;
      // a writer that inserts new records atomically is asked to do that first (no lookup) until one is found to exist
      const existing = writer.insertNew && this.insertFirst && !this.opts.dryRun ? undefined : writer.loadMany(shard);
      existing?.catch(() => undefined); // awaited on the lane; a run that stops first must not leave it unhandled
      return this.onLane(i, () => this.writeShard(writer, shard, existing, verifying));
    };
    await Promise.all(shards.map((shard, i) => (shard.length ? write(shard, i) : undefined)));
    await Promise.all(verifying);
  }

  /** Start the check pool as `opts.worker` asks, once the first batch shows the size of the run. */
  private async startPool(first: SaverRecord[] | undefined): Promise<void> {
    if (this.pool || !first) return;
    if (this.opts.worker === "on") {
      this.pool = await this.opts.openCheckPool?.();
      await this.pool?.whenReady();
    } else if ((this.opts.worker ?? "auto") === "auto" && first.length >= this.batchSize) {
      // A large migration: batches are checked in a worker once it has started (until then, here).
      this.pool = await this.opts.openCheckPool?.({ auto: true });
    }
  }

  /** One pass over a namespace of the source in its own order (a migration needs every record once, not id order). */
  private async copyNamespace(ns: string): Promise<void> {
    const it = this.source.scan({ namespace: ns, batchSize: this.batchSize })[Symbol.asyncIterator]();
    const inFlight: Array<Promise<void>> = [];
    // a batch per writer being written, one being looked up, one being read back, one being read and checked
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
        await this.startPool(r.value);
        const p = this.process(this.dispatch(r.value), last);
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
    this.passedOver(ns);
  }

  /** What a folder store's scan of `ns` passed over: ignored entries, and rejected ones (a second file for a thread). */
  private passedOver(ns: string): void {
    const p = this.source.passedOver?.(ns);
    if (!p) return;
    const s = this.s;
    for (const e of p.ignored) s.ignoredFiles.push({ namespace: e.namespace, file: e.path, reason: e.reason });
    s.ignored += p.ignored.length;
    for (const e of p.rejected) {
      const r: Rejected = { namespace: e.namespace, threadId: e.threadId ?? "", file: e.path, reason: e.reason };
      s.rejected++;
      s.rejectedRecords.push(r);
      this.opts.onReject?.(r);
    }
  }

  async run(): Promise<MigrateSummary> {
    const namespaces = this.opts.namespaces ?? (await this.source.namespaces());
    if (this.opts.onProgress) {
      this.total = 0;
      for (const ns of namespaces) this.total += await this.source.count(ns);
    }
    try {
      for (const ns of namespaces) {
        if (this.stopped) break;
        await this.copyNamespace(ns);
      }
    } finally {
      await this.pool?.close();
    }
    const s = this.s;
    s.elapsedMs = this.now() - this.t0;
    const secs = Math.max(s.elapsedMs, 1) / 1000;
    s.recordsPerSecond = s.read / secs;
    s.mbPerSecond = s.bytesRead / 1e6 / secs;
    return s;
  }
}

/** The exit code a migration answers with: 1 on a verification mismatch or conflict, 5 when records were rejected, else 0. */
export function migrateExitCode(s: MigrateSummary): number {
  if (s.mismatches.length || s.conflicts.length) return ExitCode.NEGATIVE;
  if (s.rejected) return ExitCode.PARTIAL;
  return ExitCode.OK;
}

/** A migration's summary before anything was read. */
export function emptySummary(dryRun: boolean, writers: number): MigrateSummary {
  return {
    dryRun,
    read: 0,
    written: 0,
    skipped: 0,
    rejected: 0,
    bytesRead: 0,
    bytesWritten: 0,
    elapsedMs: 0,
    resumed: 0,
    journalMissing: 0,
    identical: 0,
    verified: 0,
    conflicts: [],
    mismatches: [],
    rejectedRecords: [],
    ignored: 0,
    ignoredFiles: [],
    checkedInWorker: false,
    recordsPerSecond: 0,
    mbPerSecond: 0,
    writers,
  };
}
