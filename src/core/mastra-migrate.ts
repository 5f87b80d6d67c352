/**
 * Migrating Mastra memory between Mastra stores (LibSQL ⇄ PostgreSQL, or within one kind): every thread with all of
 * its messages, then every resource with its working memory, in batches read by id, each batch written in one
 * transaction, recorded in the journal and verified by reading the rows back and comparing them value for value with
 * the source's (content texts exactly; metadata as JSON values; times as instants, since each backend spells them its
 * own way). The target takes Mastra's own tables (`setup`, as `@mastra/libsql` / `@mastra/pg` create them) when it
 * has none. Rows the target cannot be given faithfully (metadata that did not decode) are rejected and named; messages
 * of no thread (Mastra never lists them) are counted and left. Stores and the journal are passed in.
 */
import type {
  MastraBatch,
  MastraMessageRow,
  MastraResourceRow,
  MastraStore,
  MastraThreadRow,
} from "../savers/mastra/types.js";
import { hexDigest } from "../base/digest.js";
import { stringifyJson } from "../base/json.js";
import type { MastraDocument } from "../formats/mastra.js";
import { checkRecord } from "./check.js";
import {
  emptySummary,
  type Rejected,
  type ConflictPolicy,
  type Journal,
  type MigrateProgress,
  type MigrateSummary,
} from "./migrate/types.js";

export interface MastraMigrateOptions {
  batchSize?: number;
  dryRun?: boolean;
  onConflict?: ConflictPolicy;
  verify?: boolean;
  strict?: boolean;
  journal?: Journal;
  onProgress?: (p: MigrateProgress) => void;
  now?: () => number;
}

/** What a Mastra migration moved, by table. */
export interface MastraRows {
  threads: number;
  messages: number;
  resources: number;
}

export type MastraMigrateSummary = MigrateSummary & { layout: "mastra"; rows: MastraRows };

/** A thread as one record: its row and its messages. */
interface ThreadRecord {
  thread: MastraThreadRow;
  messages: MastraMessageRow[];
}

const instant = (s: string) => {
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : s;
};

/** A JSON value with its object keys sorted (PostgreSQL's jsonb keeps its own key order). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The comparable form of a thread record: what Mastra reads of it, backend spellings aside. */
export function threadForm(r: ThreadRecord): string {
  const t = r.thread;
  return stringifyJson([
    t.id,
    t.resourceId,
    t.title,
    sorted(t.metadata),
    instant(t.createdAt),
    instant(t.updatedAt),
    r.messages
      .map((m) => [m.id, m.threadId, m.role, m.type, instant(m.createdAt), m.resourceId, m.content])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  ]);
}

export function resourceForm(r: MastraResourceRow): string {
  return stringifyJson([r.id, r.workingMemory, sorted(r.metadata), instant(r.createdAt), instant(r.updatedAt)]);
}

/** Whether time `a` is later than `b` (a missing `b` counts as earlier). */
const later = (a: string, b: string | undefined) => b === undefined || Date.parse(a) > Date.parse(b);

const threadKey = (id: string) => `threads\u0000${id}`;
const resourceKey = (id: string) => `resources\u0000${id}`;

/** The records of a batch: each thread with its messages. */
function recordsOf(b: Extract<MastraBatch, { table: "threads" }>): ThreadRecord[] {
  const by = new Map<string, MastraMessageRow[]>();
  for (const m of b.messages) (by.get(m.threadId) ?? by.set(m.threadId, []).get(m.threadId)!).push(m);
  return b.threads.map((thread) => ({ thread, messages: by.get(thread.id) ?? [] }));
}

class MastraMigration {
  readonly s: MastraMigrateSummary;
  private readonly policy: ConflictPolicy;
  private readonly start: number;

  constructor(
    private readonly source: Pick<MastraStore, "counts" | "scan">,
    private readonly target: MastraStore,
    private readonly o: MastraMigrateOptions,
  ) {
    this.s = {
      ...emptySummary(Boolean(o.dryRun), 1),
      layout: "mastra",
      rows: { threads: 0, messages: 0, resources: 0 },
    };
    this.policy = o.onConflict ?? "auto";
    this.start = (o.now ?? Date.now)();
  }

  private progress(): void {
    this.s.elapsedMs = (this.o.now ?? Date.now)() - this.start;
    this.o.onProgress?.({
      total: this.s.total,
      read: this.s.read,
      written: this.s.written,
      skipped: this.s.skipped,
      rejected: this.s.rejected,
      bytesRead: this.s.bytesRead,
      bytesWritten: this.s.bytesWritten,
      elapsedMs: this.s.elapsedMs,
    });
  }

  async run(): Promise<MastraMigrateSummary> {
    const counts = await this.source.counts();
    this.s.total = counts.threads + counts.resources;
    if (counts.orphanMessages) {
      this.s.ignored += counts.orphanMessages;
      this.s.ignoredFiles.push({
        namespace: "default",
        file: "mastra_messages",
        reason: `${counts.orphanMessages} message(s) name a thread the store does not hold: Mastra never lists them; not copied`,
      });
    }
    const had = await this.target.hasLayout();
    if (!had && !this.o.dryRun) await this.target.setup();
    for await (const batch of this.source.scan(Math.max(1, this.o.batchSize ?? 200))) {
      const go =
        batch.table === "threads"
          ? await this.threads(recordsOf(batch), had)
          : await this.resources(batch.resources, had);
      this.progress();
      if (!go) break;
    }
    this.s.recordsPerSecond = this.s.elapsedMs > 0 ? Math.round((this.s.written * 1000) / this.s.elapsedMs) : 0;
    return this.s;
  }

  /** Count, reject what cannot be written faithfully, skip what the target holds as it is. False: stop (strict, fail). */
  private reject(key: string, id: string, reason: string): boolean {
    this.s.rejected++;
    this.s.rejectedRecords.push({ namespace: key.split("\u0000")[0]!, threadId: id, reason });
    if (this.o.strict) this.s.aborted = `--strict: ${id} rejected`;
    return !this.o.strict;
  }

  /**
   * What to do with a record the target holds in another form (`newer`: the source's `updatedAt` is later than the
   * target's): write it over, skip it, or stop (a conflict, listed; a dry run lists them all and goes on).
   */
  private conflict(table: string, id: string, newer: boolean): "skip" | "stop" | "write" {
    if (this.policy === "overwrite" || (this.policy === "newer" && newer)) return "write";
    if (this.policy === "skip" || this.policy === "newer") {
      this.s.skipped++;
      return "skip";
    }
    this.s.conflicts.push({
      namespace: table,
      threadId: id,
      reason: `the target holds ${table === "threads" ? "thread" : "resource"} '${id}' with other content (use --on-conflict skip or overwrite)`,
    });
    if (this.o.dryRun) return "skip";
    this.s.aborted ??= `conflict on ${table} '${id}' (--on-conflict ${this.policy === "auto" ? "default: fail on different" : this.policy})`;
    return "stop";
  }

  private async threads(records: ThreadRecord[], had: boolean): Promise<boolean> {
    const write: ThreadRecord[] = [];
    let overwrite = false;
    const held = had
      ? await this.target.existing(
          "threads",
          records.map((r) => r.thread.id),
        )
      : new Set<string>();
    for (const r of records) {
      this.s.read++;
      this.s.bytesRead += r.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
      const bad = r.thread.unreadable?.[0];
      if (
        bad &&
        !this.reject("threads", r.thread.id, `thread '${r.thread.id}': ${bad.column} does not decode (${bad.reason})`)
      )
        return false;
      if (bad) continue;
      if (held.has(r.thread.id)) {
        const there = await this.readThread(r.thread.id);
        if (there && threadForm(there) === threadForm(r)) {
          if (this.o.journal?.done.has(threadKey(r.thread.id))) this.s.resumed++;
          else this.s.identical++;
          continue;
        }
        const what = this.conflict("threads", r.thread.id, later(r.thread.updatedAt, there?.thread.updatedAt));
        if (what === "stop") return false;
        if (what === "skip") continue;
        overwrite = true;
      }
      write.push(r);
    }
    if (write.length === 0) return true;
    const messages = write.flatMap((r) => r.messages);
    if (!overwrite && had) {
      // message ids are keys of their own: one the target holds under another thread is a conflict, not a crash
      const taken = await this.target.existing(
        "messages",
        messages.map((m) => m.id),
      );
      if (taken.size) {
        const id = [...taken][0]!;
        const owner = write.find((r) => r.messages.some((m) => m.id === id))!.thread.id;
        this.s.conflicts.push({
          namespace: "messages",
          threadId: owner,
          reason: `the target already holds message '${id}' (of thread '${owner}') elsewhere (use --on-conflict overwrite)`,
        });
        this.s.aborted ??= `conflict on message '${id}'`;
        return false;
      }
    }
    const bytes = messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
    if (!this.o.dryRun) {
      await this.target.write({ table: "threads", threads: write.map((r) => r.thread), messages }, { overwrite });
      await this.o.journal?.commit(write.map((r) => ({ key: threadKey(r.thread.id), hash: "" })));
      if (this.o.verify ?? true) await this.verifyThreads(write);
    }
    this.s.written += write.length;
    this.s.bytesWritten += bytes;
    this.s.rows.threads += write.length;
    this.s.rows.messages += messages.length;
    return true;
  }

  private async resources(rows: MastraResourceRow[], had: boolean): Promise<boolean> {
    const write: MastraResourceRow[] = [];
    let overwrite = false;
    const held = had
      ? await this.target.existing(
          "resources",
          rows.map((r) => r.id),
        )
      : new Set<string>();
    for (const r of rows) {
      this.s.read++;
      this.s.bytesRead += Buffer.byteLength(r.workingMemory ?? "");
      const bad = r.unreadable?.[0];
      if (bad && !this.reject("resources", r.id, `resource '${r.id}': ${bad.column} does not decode (${bad.reason})`))
        return false;
      if (bad) continue;
      if (held.has(r.id)) {
        const there = await this.target.resource(r.id);
        if (there && resourceForm(there) === resourceForm(r)) {
          if (this.o.journal?.done.has(resourceKey(r.id))) this.s.resumed++;
          else this.s.identical++;
          continue;
        }
        const what = this.conflict("resources", r.id, later(r.updatedAt, there?.updatedAt));
        if (what === "stop") return false;
        if (what === "skip") continue;
        overwrite = true;
      }
      write.push(r);
    }
    if (write.length === 0) return true;
    if (!this.o.dryRun) {
      await this.target.write({ table: "resources", resources: write }, { overwrite });
      await this.o.journal?.commit(write.map((r) => ({ key: resourceKey(r.id), hash: "" })));
      if (this.o.verify ?? true)
        for (const r of write) {
          const there = await this.target.resource(r.id);
          this.check("resources", r.id, resourceForm(r), there ? resourceForm(there) : null);
        }
    }
    this.s.written += write.length;
    this.s.bytesWritten += write.reduce((n, r) => n + Buffer.byteLength(r.workingMemory ?? ""), 0);
    this.s.rows.resources += write.length;
    return true;
  }

  private async readThread(id: string): Promise<ThreadRecord | undefined> {
    const thread = await this.target.thread(id);
    return thread && { thread, messages: await this.target.messages(id) };
  }

  private async verifyThreads(written: ThreadRecord[]): Promise<void> {
    for (const r of written) {
      const there = await this.readThread(r.thread.id);
      this.check("threads", r.thread.id, threadForm(r), there ? threadForm(there) : null);
    }
  }

  private check(table: string, id: string, expected: string, got: string | null): void {
    if (got === expected) this.s.verified++;
    else
      this.s.mismatches.push({
        namespace: table,
        threadId: id,
        expected: hexDigest("sha256", expected).slice(0, 16),
        got: got === null ? null : hexDigest("sha256", got).slice(0, 16),
      });
  }
}

/** Copy a Mastra store's memory into another Mastra store (see the module comment). */
export function migrateMastra(
  source: Pick<MastraStore, "counts" | "scan">,
  target: MastraStore,
  o: MastraMigrateOptions = {},
): Promise<MastraMigrateSummary> {
  return new MastraMigration(source, target, o).run();
}

// ------------------------------------------------------------------------------------------------ documents → Mastra

/** The rows of one `mastra` document (formats/mastra.ts): its thread, its messages (contents as JSON text), its resource. */
export function rowsOfDocument(d: MastraDocument): {
  thread: MastraThreadRow;
  messages: MastraMessageRow[];
  resource?: MastraResourceRow;
} {
  const t = d.thread;
  const thread: MastraThreadRow = {
    id: t.id,
    resourceId: t.resourceId,
    title: t.title,
    metadata: t.metadata ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
  const messages = d.messages.map((m) => ({
    id: m.id,
    threadId: t.id,
    content: JSON.stringify(m.content),
    role: m.role,
    type: m.type,
    createdAt: m.createdAt,
    resourceId: m.resourceId === undefined ? t.resourceId : m.resourceId,
  }));
  const r = d.resource;
  const resource = r
    ? {
        id: r.id,
        workingMemory: r.workingMemory,
        metadata: r.metadata ?? null,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      }
    : undefined;
  return { thread, messages, ...(resource ? { resource } : {}) };
}

/** Documents of any format, in batches (a store's scan). */
export interface DocumentSource {
  count(): Promise<number>;
  batches(size: number): AsyncIterable<Array<{ namespace: string; threadId: string; text: string }>>;
}

/**
 * Documents of any format as a Mastra source: each converted to a `mastra` thread through the canonical model (what
 * Mastra memory has no place for is reported lost; without `allowLossy` such a thread is rejected), its rows in
 * thread batches, then the resources the threads name (the first thread's working memory for a resource wins; one
 * that a later thread gives otherwise is rejected with its thread).
 */
export function documentsAsMastraSource(
  docs: DocumentSource,
  o: { allowLossy: boolean; reject: (r: Rejected) => void },
): Pick<MastraStore, "counts" | "scan"> {
  return {
    async counts() {
      return { threads: await docs.count(), messages: 0, resources: 0, orphanMessages: 0 };
    },
    async *scan(batchSize) {
      const resources = new Map<string, MastraResourceRow>();
      for await (const batch of docs.batches(batchSize)) {
        const threads: MastraThreadRow[] = [];
        const messages: MastraMessageRow[] = [];
        for (const rec of batch) {
          const name = `${rec.namespace}#${rec.threadId}`;
          const r = checkRecord(name, rec.text, { toFormat: "mastra", allowLossy: o.allowLossy }, rec.threadId);
          if (!r.ok) {
            o.reject({ namespace: rec.namespace, threadId: rec.threadId, reason: r.reason, file: name });
            continue;
          }
          const rows = rowsOfDocument(r.value as MastraDocument);
          const had = rows.resource && resources.get(rows.resource.id);
          if (rows.resource && had && resourceForm(had) !== resourceForm(rows.resource)) {
            o.reject({
              namespace: rec.namespace,
              threadId: rec.threadId,
              reason: `${name}: its resource '${rows.resource.id}' has other working memory than an earlier thread's`,
            });
            continue;
          }
          if (rows.resource && !had) resources.set(rows.resource.id, rows.resource);
          threads.push(rows.thread);
          messages.push(...rows.messages);
        }
        if (threads.length) yield { table: "threads", threads, messages };
      }
      const all = [...resources.values()];
      for (let i = 0; i < all.length; i += batchSize)
        yield { table: "resources", resources: all.slice(i, i + batchSize) };
    },
  };
}
