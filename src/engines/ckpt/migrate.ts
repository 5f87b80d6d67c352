/**
 * The migration endpoint of documents: ckpt's own stores and folders, and any store read as documents (one per
 * thread). Each record is checked (and optionally converted) — in a check pool the caller passes in on large runs
 * (the CLI's runs on a worker thread: cli/check-pool.ts), overlapping with the reads and writes — and written through
 * the target's Saver, over one connection or several (`writers`, `--jobs`). The pipeline (core/migrate/pipeline.ts)
 * does the rest.
 */
import { parseJson, stringifyJson } from "../../base/json.js";
import { RecordError } from "../../base/errors.js";
import {
  checkForWire,
  sha256,
  type CheckOptions,
  type CheckPool,
  type WireResult,
  type WireWants,
} from "../../core/check.js";
import type { Item, MigrationEndpoint, Staged, TargetWriter } from "../../core/migrate/endpoint.js";
import { runMigration } from "../../core/migrate/pipeline.js";
import { journalKey, type MigrateSummary, type RunOptions } from "../../core/migrate/types.js";
import type { FormatName } from "../../formats/index.js";
import { checkThreadId, contentHash, updatedAtOf } from "../../savers/common.js";
import type { Saver, SaverRecord } from "../../savers/types.js";
import { usageError } from "../../base/errors.js";
import { type MigrationRoute, runOptions } from "../migrate-route.js";

export interface MigrateOptions extends RunOptions {
  /** source namespaces to copy (default: every namespace the source holds) */
  namespaces?: string[];
  /** write everything into this target namespace instead of the source's */
  toNamespace?: string;
  /** convert every document to this format */
  toFormat?: FormatName;
  /** the version of it to write (ai-sdk: the AI SDK major) */
  toFormatVersion?: string;
  allowLossy?: boolean;
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
}

/** How a record's messages name it: its file (folder stores), else namespace#thread. */
const checkName = (r: SaverRecord) => r.source ?? `${r.namespace}#${r.threadId}`;

/**
 * A checked record on its way to the target: the text to store, and — when the target or the journal needs them —
 * its compact text (worked out by the check, in the worker or here, while the parsed value was at hand) and the hash
 * the journal records (`hash`: sha256 of the text as it is, no second serialization). The parsed value itself is not
 * kept: a batch in flight holds texts only. A store that keeps the text as given and reads it back identical never
 * needs the compact text nor the content hash (`contentHash`: sha256 of the compact text, what `contentHash(text)`
 * gives, which a conflict or a mismatch compares; it parses the text again, rare).
 */
class PreparedRecord implements SaverRecord, Item {
  #compact: string | undefined;
  #hash: string | undefined;
  #contentHash: string | undefined;
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
  get key(): string {
    return journalKey(this.namespace, this.threadId);
  }
  get compact(): string {
    return (this.#compact ??= stringifyJson(parseJson(this.text)));
  }
  /** what the journal records: the sha256 of the text (UTF-8) as checked — the bytes read, or the conversion */
  get hash(): string {
    return (this.#hash ??= sha256(this.text));
  }
  /** sha256 of the compact text: the same for any layout of the same JSON (what a read-back is compared by) */
  get contentHash(): string {
    return (this.#contentHash ??= sha256(this.compact));
  }
  /** the text's UTF-8 size, worked out once (the counts and a PostgreSQL COPY row need it) */
  get bytes(): number {
    return (this.#bytes ??= Buffer.byteLength(this.text));
  }
  /** whether `other` has this record's content: the same text (or compact text), else the same content hash */
  sameContent(other: string): boolean {
    return other === this.text || other === this.compact || contentHash(other) === this.contentHash;
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

/** A Saver as a target writer: its lookups, writes (insertNew, addMany, saveMany) and in-place verification. */
function saverWriter(w: Saver): TargetWriter<PreparedRecord, string> {
  return {
    lookup: (items) => w.loadMany(items),
    write: (items) => w.saveMany(items),
    ...(w.addMany ? { add: (items: PreparedRecord[]) => w.addMany!(items) } : {}),
    // its commits may skip the wait for the disk: migrate() makes them durable (w.durable) before it reports them
    ...(w.insertNew ? { insertNew: (items: PreparedRecord[]) => w.insertNew!(items, { deferFlush: true }) } : {}),
    /**
     * A store that can compare in place (`verifyMany`: SQLite compares the stored bytes with the text in SQL) says
     * which hold exactly what was written; only the others are read back and compared by content hash.
     */
    async verify(written) {
      const same = w.verifyMany ? await w.verifyMany(written) : undefined;
      const toRead = same ? written.filter((_, i) => !same[i]) : written;
      const back = toRead.length ? await w.loadMany(toRead) : [];
      const misread = new Map<PreparedRecord, { expected: string; got: string | null }>();
      toRead.forEach((p, i) => {
        const b = back[i];
        // contentHash is a function of the text, so a read-back identical to the text (or the compact text) has the
        // expected hash; anything else (a store that reformats) is hashed and compared.
        if (b === undefined || !p.sameContent(b))
          misread.set(p, { expected: p.contentHash, got: b === undefined ? null : contentHash(b) });
      });
      return written.map((p) => misread.get(p));
    },
  };
}

/** The documents endpoint of a run from `source` into `target` (see the module comment). */
export function documentsEndpoint(
  source: Saver,
  target: Saver,
  opts: MigrateOptions,
): MigrationEndpoint<SaverRecord, PreparedRecord, string> {
  const checkOpts: CheckOptions = {
    toFormat: opts.toFormat,
    toFormatVersion: opts.toFormatVersion,
    allowLossy: opts.allowLossy,
  };
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  const targetNsOf = (r: SaverRecord) => opts.toNamespace ?? r.namespace;
  /** what every checked record must carry besides its text: the compact text (a store that keeps it), the hash (the journal) */
  const wants: WireWants = { compact: Boolean(target.storesCompact), hash: opts.journal !== undefined };
  const fromWire = (r: SaverRecord, w: WireResult): Staged<PreparedRecord> => {
    if (!w.ok) return { reject: w.reason };
    const bad = badThreadId(r.threadId, r.namespace);
    if (bad !== undefined) return { reject: bad };
    return { ok: new PreparedRecord(targetNsOf(r), r.threadId, w.text ?? r.text, w.compact, w.hash) };
  };
  let pool: CheckPool | undefined;
  let summary: MigrateSummary | undefined;
  return {
    parts: async () => opts.namespaces ?? (await source.namespaces()),
    count: (ns) => source.count(ns),
    scan: (ns, size) => source.scan({ namespace: ns, batchSize: size }),
    passedOver(ns) {
      const p = source.passedOver?.(ns);
      return (
        p && {
          ignored: p.ignored.map((e) => ({ namespace: e.namespace, file: e.path, reason: e.reason })),
          rejected: p.rejected.map((e) => ({
            namespace: e.namespace,
            threadId: e.threadId ?? "",
            file: e.path,
            reason: e.reason,
          })),
        }
      );
    },
    labelOf: (r) => ({
      namespace: r.namespace,
      threadId: r.threadId,
      ...(r.source !== undefined ? { file: r.source } : {}),
    }),
    keyOf: (r) => journalKey(targetNsOf(r), r.threadId),
    bytesRead: (r, c) =>
      c !== undefined && "ok" in c && c.ok.text === r.text ? c.ok.bytes : Buffer.byteLength(r.text),
    stage(batch, done) {
      if (pool?.ready) {
        const todo = batch.filter((r) => !done(r));
        if (summary) summary.checkedInWorker = true;
        const sent = pool.check(
          todo.map(checkName),
          todo.map((r) => r.text),
          checkOpts,
          wants,
          todo.map((r) => r.threadId),
        );
        sent.catch(() => undefined); // awaited in turn; a run that stops early must not leave it unhandled
        return async () => {
          const results = await sent;
          let k = 0;
          return batch.map((r) => (done(r) ? undefined : fromWire(r, results[k++]!)));
        };
      }
      return async () =>
        batch.map((r) =>
          done(r) ? undefined : fromWire(r, checkForWire(checkName(r), r.text, checkOpts, wants, r.threadId)),
        );
    },
    writers: [target, ...(opts.writers ?? [])].map(saverWriter),
    async held(rows) {
      const keys = rows.map((r) => ({ namespace: targetNsOf(r), threadId: r.threadId }));
      return target.existsMany
        ? await target.existsMany(keys)
        : (await target.loadMany(keys)).map((t) => t !== undefined);
    },
    same: (p, old) => p.sameContent(old),
    newer(p, old) {
      const a = updatedAtOf(p.text);
      const b = updatedAtOf(old);
      return a !== undefined && (b === undefined || Date.parse(a) > Date.parse(b));
    },
    async begin(s) {
      summary = s;
    },
    /** Start the check pool as `opts.worker` asks, once a batch shows the size of the run. */
    async started(first) {
      if (pool) return;
      if (opts.worker === "on") {
        pool = await opts.openCheckPool?.();
        await pool?.whenReady();
      } else if ((opts.worker ?? "auto") === "auto" && first.length >= batchSize) {
        // A large migration: batches are checked in a worker once it has started (until then, here).
        pool = await opts.openCheckPool?.({ auto: true });
      }
    },
    async end() {
      await pool?.close();
    },
  };
}

/** Run a migration of documents. Throws CkptError(4) for store failures; everything else ends up in the summary. */
export async function migrate(source: Saver, target: Saver, opts: MigrateOptions = {}): Promise<MigrateSummary> {
  const s = await runMigration(documentsEndpoint(source, target, opts), opts);
  // what was written is on disk before the summary says so (writers that did not wait for it: Saver.durable)
  for (const w of [target, ...(opts.writers ?? [])]) await w.durable?.();
  return s;
}

/**
 * `ckpt migrate` into ckpt's own stores and folders (and from any store read as documents): every thread, optionally
 * converted (`--to-format`), over one connection or, into Redis and PostgreSQL, several (`--jobs`).
 */
export const route: MigrationRoute = {
  parallelWriters: (to) => to.kind === "redis" || to.kind === "postgres",
  oneWriter: (to) => `only redis:// and postgres:// targets take parallel writers (${to} has one writer)`,
  refuseAsTarget(args, source, to) {
    if (source === "langgraph")
      throw usageError(
        `--to ${to} holds ckpt's own tables: a LangGraph history goes to a LangGraph store (another database, another ?schema=, or ?layout=langgraph)`,
      );
    if (args.toLibrary !== undefined)
      throw usageError(
        `--to-library ${args.toLibrary}: applies to LangGraph targets, and ${to} holds ckpt's own layout`,
      );
    if (args.thread?.length)
      throw usageError(
        "--thread: picks threads of LangGraph routes; a migration between ckpt's own stores copies whole namespaces (--namespace)",
      );
  },
  run: (source, target, args, hooks) =>
    migrate(source.saver, target.saver, {
      ...runOptions(args, hooks),
      namespaces: hooks.namespaces,
      toNamespace: hooks.toNamespace,
      toFormat: args.toFormat as FormatName | undefined,
      ...(args.aiSdkVersion !== undefined ? { toFormatVersion: args.aiSdkVersion } : {}),
      allowLossy: args.allowLossy,
      writers: hooks.writers,
      openCheckPool: hooks.openCheckPool,
    }),
};
