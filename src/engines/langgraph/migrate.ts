/**
 * The LangGraph migration endpoints (core/migrate/pipeline.ts runs them): a LangGraph store's histories into a
 * LangGraph store (SQLite ⇄ PostgreSQL), checkpoint by checkpoint with their metadata and pending writes, read in
 * (thread, namespace, checkpoint id) order and optionally converted for the other library (`toLibrary`); and the
 * documents of any store into a LangGraph store, each thread becoming a history of one checkpoint (LangChain
 * messages; core/langgraph/convert.ts). A batch is written in one transaction per library and verified where it is
 * stored when the target can (PostgreSQL: hashes of the stored rows, no payload comes back); what that does not find
 * exactly as written is read back and compared row by row with what was written (bytes for serialized values,
 * decoded JSON for JSONB columns), which decides.
 */
import type { Library } from "../../formats/langgraph/encode.js";
import { convertCheckpoint } from "../../formats/langgraph/convert.js";
import { libraryOf, textOf, type LgCheckpoint } from "../../formats/langgraph/rows.js";
import { documentToRow, threadTaken } from "../../core/langgraph/convert.js";
import { createForkRenumberer } from "../../core/langgraph/fork-versions.js";
import { createSendsMover } from "../../core/langgraph/pg-sends.js";
import type { Item, MigrationEndpoint, Staged, TargetWriter } from "../../core/migrate/endpoint.js";
import { runMigration } from "../../core/migrate/pipeline.js";
import { journalKey, type MigrateSummary, type RunOptions } from "../../core/migrate/types.js";
import { keyOf, type LgStore } from "../../savers/langgraph/shared.js";
import type { Saver, SaverRecord } from "../../savers/types.js";
import type { OpenedStore } from "../../savers/index.js";
import { CkptError, usageError } from "../../base/errors.js";
import { type MigrationRoute, runOptions } from "../migrate-route.js";

export interface LgMigrateOptions extends RunOptions {
  /** convert every checkpoint for this library (else each keeps its own) */
  toLibrary?: Library;
  /** copy only the threads this accepts */
  threads?: (threadId: string) => boolean;
}

export type LgMigrateSummary = MigrateSummary & { library: Library };

/** A staged checkpoint: the row to write and the library whose layout it follows. */
interface LgItem extends Item {
  cp: LgCheckpoint;
  lib: Library;
}

const label = (cp: { threadId: string; ns: string; id: string }) => ({
  namespace: cp.ns,
  threadId: `${cp.threadId}@${cp.id}`,
});
const sizeOf = (cp: LgCheckpoint) =>
  cp.checkpoint.length + cp.metadata.length + cp.writes.reduce((n, w) => n + w.value.length, 0);

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

/** How many metadata strings (and keys) of a checkpoint hold U+0000 (PostgreSQL's JSONB cannot hold it). */
function nulStrings(cp: LgCheckpoint): number {
  const text = textOf(cp.metadata);
  if (!text.includes("\\u0000") && !text.includes("\u0000")) return 0;
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
    return 0; // metadata that is not JSON is the decoder's to report
  }
  return n;
}

/**
 * An error no record of the run can escape (the source's encrypted rows and no key): the run stops at once with it,
 * before the batch is written, rather than rejecting every record with the same reason.
 */
function stopsTheRun(e: unknown): void {
  if (e instanceof CkptError && e.reason === "langgraph-no-aes-key") throw e;
}

/**
 * The LangGraph target: its writer (one: a batch's checkpoints go in key order, and PostgreSQL's blob rows are shared
 * by a thread's checkpoints across batches), the comparison of staged and stored forms, and the staging every source
 * ends with (fork renumbering, NUL checks, the store's own `stage`).
 */
class LgTarget {
  /** whether the target held LangGraph's tables before the run (else nothing is looked up) */
  had = false;
  s: LgMigrateSummary | undefined;
  /**
   * PostgreSQL keys blobs by version: branches of a forked thread get versions of their own, a value changed in place is
   * refused (fork-versions.ts); v<4 pending sends go as the parent's writes (pg-sends.ts)
   */
  private readonly forks: (cp: LgCheckpoint) => LgCheckpoint;
  private readonly sends: (cp: LgCheckpoint) => LgCheckpoint;
  /** the checkpoints of the (thread, namespace) being read that were not written, and why (a child would be a hole) */
  private gone = new Map<string, string>();
  private goneScope = "";

  constructor(
    readonly store: LgStore,
    readonly library: Library,
    private readonly toLibrary: Library | undefined,
  ) {
    const pg = store.kind === "postgres";
    this.forks = pg ? createForkRenumberer() : (c) => c;
    this.sends = pg ? createSendsMover() : (c) => c;
  }

  async begin(s: MigrateSummary, dryRun: boolean): Promise<void> {
    this.s = Object.assign(s, { library: this.library });
    this.had = await this.store.hasLayout();
    if (!this.had && !dryRun) await this.store.setup(this.library);
  }

  /** Convert (`toLibrary`) and renumber a checkpoint: journaled ones too (a fork's versions carry on to later ones). */
  converted(raw: LgCheckpoint): LgCheckpoint {
    return this.forks(this.sends(this.toLibrary ? convertCheckpoint(raw, this.toLibrary) : raw));
  }

  /**
   * A checkpoint not written (rejected): remembered, so that its descendants are not written either — a checkpoint
   * whose parent is missing is a hole that breaks history, time travel, delta rebuilds and the v<4 sends migration.
   */
  reject(cp: LgCheckpoint, why: string): { reject: string } {
    this.scopeOf(cp);
    this.gone.set(cp.id, why);
    return { reject: why };
  }

  /** Why `cp` cannot be written when its parent was not (undefined when its parent is there, or it has none). */
  hole(cp: LgCheckpoint): string | undefined {
    this.scopeOf(cp);
    if (!cp.parentId || !this.gone.has(cp.parentId)) return undefined;
    return `its parent checkpoint ${cp.parentId} was not written (see its rejection), so it is left out too: a checkpoint without its parent would be a hole in the thread's history`;
  }

  private scopeOf(cp: LgCheckpoint): void {
    const sc = `${cp.threadId}\u0000${cp.ns}`;
    if (sc !== this.goneScope) [this.goneScope, this.gone] = [sc, new Map()];
  }

  /** Stage a converted checkpoint for the store, or say why it cannot hold it. */
  stage(cp: LgCheckpoint, key: string): Staged<LgItem> {
    const postgres = this.store.kind === "postgres";
    // PostgreSQL text cannot hold NUL: a key holding one is that checkpoint's problem, not the batch's
    const nul = postgres ? nulInKeys(cp) : undefined;
    if (nul !== undefined) return { reject: nul };
    try {
      const lib = this.toLibrary ?? libraryOf(cp, this.library);
      this.store.stage(cp, lib);
      // PostgreSQL's JSONB cannot hold U+0000: the metadata strings holding it lose it (as LangGraph's own savers
      // write them); the checkpoint is written and verified in that form, and the summary says what changed
      const n = postgres ? nulStrings(cp) : 0;
      if (n && this.s)
        (this.s.altered ??= []).push({
          ...label(cp),
          what: `metadata: U+0000 removed from ${n} string${n === 1 ? "" : "s"} (PostgreSQL's JSONB cannot hold it; LangGraph's own savers drop it too)`,
        });
      return { ok: { ...label(cp), key, hash: "", bytes: sizeOf(cp), cp, lib } };
    } catch (e) {
      stopsTheRun(e);
      return { reject: (e as Error).message };
    }
  }

  /** The stored forms of these checkpoints, by key (nothing when the target had no tables). */
  async stored(cps: LgCheckpoint[]): Promise<Map<string, unknown>> {
    return this.had && cps.length ? await this.store.readBack(cps) : new Map<string, unknown>();
  }

  same(i: LgItem, held: unknown): boolean {
    return this.store.sameForm(held, this.store.stagedForm(i.cp, i.lib));
  }

  writer(): TargetWriter<LgItem, unknown> {
    const store = this.store;
    return {
      lookup: async (items) => {
        const m = await this.stored(items.map((i) => i.cp));
        return items.map((i) => m.get(keyOf(i.cp)));
      },
      async write(items, overwrite) {
        // one library per write call (a converted or mixed batch may hold both)
        for (const lib of ["python", "js"] as const) {
          const part = items.filter((r) => r.lib === lib).map((r) => r.cp);
          if (part.length) await store.write(part, { library: lib, overwrite });
        }
      },
      verify: async (written) => {
        const exact = store.verifyWritten ? await store.verifyWritten(written) : [];
        const rest = written.filter((_, i) => !exact[i]);
        const back = rest.length ? await store.readBack(rest.map((r) => r.cp)) : new Map<string, unknown>();
        return written.map((r, i) => {
          if (exact[i]) return undefined;
          const b = back.get(keyOf(r.cp));
          if (b !== undefined && this.same(r, b)) return undefined;
          return { expected: "the rows written", got: b === undefined ? null : "different rows" };
        });
      },
    };
  }

  /** The target side of an endpoint whose source rows are `R`. */
  side<R>(held: (rows: R[]) => Promise<boolean[]>) {
    return {
      writers: [this.writer()],
      held,
      same: (i: LgItem, h: unknown) => this.same(i, h),
      newer: () => false, // a checkpoint id names one immutable checkpoint: nothing is "newer"
      begin: (s: MigrateSummary, dryRun: boolean) => this.begin(s, dryRun),
    };
  }
}

/** A LangGraph history (a store's rows, or a copy's: core/langgraph/copy.ts) into a LangGraph store. */
export function lgRowsEndpoint(
  source: Pick<LgStore, "count" | "scanRows">,
  t: LgTarget,
  threads?: (threadId: string) => boolean,
): MigrationEndpoint<LgCheckpoint, LgItem, unknown> {
  return {
    parts: async () => [""],
    count: () => source.count(),
    scan: (_part, size) => source.scanRows(size, threads),
    labelOf: label,
    keyOf,
    bytesRead: (raw) => sizeOf(raw),
    stage(batch, done) {
      const staged = batch.map((raw): Staged<LgItem> | undefined => {
        if (raw.refused !== undefined) return done(raw) ? undefined : t.reject(raw, raw.refused);
        let cp: LgCheckpoint;
        try {
          cp = t.converted(raw);
        } catch (e) {
          stopsTheRun(e);
          return t.reject(raw, (e as Error).message);
        }
        if (done(raw)) return undefined;
        const hole = t.hole(raw);
        if (hole !== undefined) return t.reject(raw, hole);
        const s = t.stage(cp, keyOf(raw));
        return "reject" in s ? t.reject(raw, s.reject) : s;
      });
      return async () => staged;
    },
    ...t.side(async (rows: LgCheckpoint[]) => {
      const m = await t.stored(rows);
      return rows.map((r) => m.has(keyOf(r)));
    }),
  };
}

/**
 * Documents of any store (the namespaces given) into a LangGraph store: each converted into a checkpoint for the
 * target's library; one that cannot be (unreadable, lossy without `allowLossy`, a thread the target already holds
 * with other checkpoints) is rejected.
 */
function documentsEndpoint(
  saver: Saver,
  namespaces: string[],
  t: LgTarget,
  o: { allowLossy: boolean; now: number; threads?: (threadId: string) => boolean },
): MigrationEndpoint<SaverRecord, LgItem, unknown> {
  const key = (d: SaverRecord) => journalKey(d.namespace, d.threadId);
  const convert = (d: SaverRecord): LgCheckpoint | { reject: string } => {
    try {
      const c = documentToRow(
        { name: d.source ?? `${d.namespace}#${d.threadId}`, text: d.text },
        { library: t.library, threadId: d.threadId, now: o.now },
      );
      if (c.lossy.length && !o.allowLossy)
        return {
          reject: `converting ${c.from} → langgraph would drop ${c.lossy.map((n) => n.pointer).join(", ")} (--allow-lossy converts anyway)`,
        };
      return c.row;
    } catch (e) {
      return { reject: (e as Error).message };
    }
  };
  const heads = async (threadIds: string[]) =>
    threadIds.length && t.had ? await t.store.heads([...new Set(threadIds)]) : new Map<string, { id: string }[]>();
  return {
    parts: async () => namespaces,
    count: (ns) => saver.count(ns),
    async *scan(ns, size) {
      for await (const batch of saver.scan({ namespace: ns, batchSize: size })) {
        const mine = o.threads ? batch.filter((d) => o.threads!(d.threadId)) : batch;
        if (mine.length) yield mine;
      }
    },
    labelOf: (d) => ({ namespace: d.namespace, threadId: d.threadId, ...(d.source ? { file: d.source } : {}) }),
    keyOf: key,
    bytesRead: (d) => Buffer.byteLength(d.text), // the document as read, not the checkpoint it was converted to
    stage(batch, done) {
      const rows = batch.map((d) => (done(d) ? undefined : convert(d)));
      const converted = rows.filter((r): r is LgCheckpoint => r !== undefined && !("reject" in r));
      const held = heads(converted.map((r) => r.threadId));
      return async () => {
        const h = await held;
        return rows.map((r, i): Staged<LgItem> | undefined => {
          if (r === undefined || "reject" in r) return r;
          const why = threadTaken(r, h.get(r.threadId));
          return why ? { reject: why } : t.stage(t.converted(r), key(batch[i]!));
        });
      };
    },
    ...t.side(async (docs: SaverRecord[]) => {
      const h = await heads(docs.map((d) => d.threadId));
      return docs.map((d) => (h.get(d.threadId)?.length ?? 0) > 0);
    }),
  };
}

/** Copy a LangGraph history into a LangGraph store (see the module comment). */
export async function migrateLangGraph(
  source: Pick<LgStore, "library" | "count" | "scanRows">,
  target: LgStore,
  opts: LgMigrateOptions = {},
): Promise<LgMigrateSummary> {
  const library: Library = opts.toLibrary ?? (await source.library()) ?? "js";
  const t = new LgTarget(target, library, opts.toLibrary);
  return (await runMigration(lgRowsEndpoint(source, t, opts.threads), opts)) as LgMigrateSummary;
}

/** Every thread of a store of documents (the namespaces given, else all) into a LangGraph store. */
export async function migrateDocumentsToLangGraph(
  saver: Saver,
  target: LgStore,
  opts: LgMigrateOptions & { namespaces?: string[]; allowLossy: boolean },
): Promise<LgMigrateSummary> {
  const library = opts.toLibrary ?? ((await target.hasLayout()) ? await target.library() : undefined) ?? "js";
  const t = new LgTarget(target, library, undefined);
  const namespaces = opts.namespaces ?? (await saver.namespaces());
  const e = documentsEndpoint(saver, namespaces, t, {
    allowLossy: opts.allowLossy,
    now: Date.now(),
    threads: opts.threads,
  });
  return (await runMigration(e, opts)) as LgMigrateSummary;
}

export function parseLibrary(v: string | undefined): Library | undefined {
  if (v === undefined) return undefined;
  if (v !== "python" && v !== "js") throw usageError(`--to-library ${v}: expected python or js`);
  return v;
}

const lgStore = (o: OpenedStore) => (o as Extract<OpenedStore, { layout: "langgraph" }>).store;

/**
 * `ckpt migrate` into a LangGraph store: a LangGraph history (whole histories; `--to-library python|js` converts on
 * the way) or the documents of any store (one checkpoint each). A LangGraph target holds no ckpt namespaces (a
 * LangGraph `checkpoint_ns` is a subgraph's) and LangGraph checkpoints only.
 */
export const route: MigrationRoute = {
  parallelWriters: () => false,
  oneWriter: (to) =>
    `a LangGraph target (${to}) takes one writer: its batches go in key order and PostgreSQL's blob rows are shared by a thread's checkpoints`,
  refuseAsTarget(args, source, to) {
    if (args.toNamespace !== undefined)
      throw usageError(
        `--to-namespace ${args.toNamespace}: a LangGraph target (${to}) has no namespaces (a checkpoint_ns is a subgraph's)`,
      );
    if (args.toFormat !== undefined && args.toFormat !== "langgraph")
      throw usageError(`--to-format ${args.toFormat}: a LangGraph target (${to}) holds langgraph checkpoints only`);
    if (source === "langgraph" && args.namespace?.length)
      throw usageError(
        `--namespace ${args.namespace.join(" ")}: a LangGraph source has no namespaces (use --thread to pick threads)`,
      );
  },
  async run(source, target, args, hooks) {
    const picked = args.thread?.length ? new Set(args.thread) : undefined;
    const o = {
      ...runOptions(args, hooks),
      toLibrary: parseLibrary(args.toLibrary),
      threads: picked ? (t: string) => picked.has(t) : undefined,
    };
    // a LangGraph store's own rows, else documents
    if (source.layout === target.layout) return migrateLangGraph(lgStore(source), lgStore(target), o);
    return migrateDocumentsToLangGraph(source.saver, lgStore(target), {
      ...o,
      namespaces: hooks.namespaces,
      allowLossy: args.allowLossy,
    });
  },
};
