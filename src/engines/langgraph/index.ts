/**
 * LangGraph stores (SQLite and PostgreSQL, Python- or JS-written: savers/langgraph/): every checkpoint of every thread,
 * with pending writes and (PostgreSQL) blobs, in checkpoint namespaces (subgraphs). Read, migrated into, pruned,
 * deleted and copied (rows and all) by ckpt; values may be msgpack naming Python classes, and encrypted.
 */
import { CkptError, ExitCode } from "../../base/errors.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import { tableTime } from "../../base/time.js";
import type { LangGraphStatsReport } from "../../generated/types.js";
import type { LgThreadSummary } from "../../formats/langgraph/types.js";
import type { OpenedStore } from "../../savers/index.js";
import type { LangGraphSaver, LangGraphStore } from "../../savers/langgraph/shared.js";
import { deleteThreadRows, eraseThreads } from "./delete.js";
import type { Engine, Listing, StatsOptions } from "../types.js";

/** One checkpoint namespace of a thread (`ckpt ls <store>#<thread>`). */
export interface NamespaceRow {
  namespace: string;
  checkpoints: number;
  newestId: string | null;
  newestStep: number | null;
  messages: number | null;
  updatedAt: string | null;
  interrupted: boolean;
}

/** A LangGraph store's engine: its Saver view (`saver.langgraph` is the store) and what only LangGraph stores do. */
export interface LangGraphEngine extends Engine {
  readonly layout: "langgraph";
  readonly saver: LangGraphSaver;
  readonly store: LangGraphStore;
  /** a thread's checkpoint namespaces ('' the root graph, then its subgraphs), one kept when `namespace` names it */
  threadNamespaces(threadId: string, namespace: string | undefined): Promise<Listing<NamespaceRow>>;
}

/**
 * An engine whose store keeps every checkpoint as rows (caps.history: LangGraph's layout), with that row store and
 * its history reader: what `convert -o <store>#<thread>` writes a row into and `view` reads a history page from.
 */
export const keepsHistory = (e: Engine): e is LangGraphEngine => e.caps.history && "store" in e && "saver" in e;

/**
 * One row per thread (root-namespace checkpoints, newest step, messages of the newest checkpoint, stored bytes incl.
 * writes and blobs, last update, subgraph namespaces), as the store streams them: memory does not grow with the number
 * of threads or checkpoints.
 */
function listing(saver: LangGraphSaver, limit: number | undefined): Listing<LgThreadSummary> {
  return {
    head: ["THREAD", "CHECKPOINTS", "STEP", "MESSAGES", "SIZE", "UPDATED", "SUBGRAPHS", "WRITER"],
    right: new Set([1, 2, 3, 4]),
    rows: saver.langgraph.threads({ limit }),
    json: (t) => ({ layout: "langgraph", ...t }),
    cells: (t) => [
      t.threadId,
      String(t.checkpoints),
      t.newestStep === null ? "-" : String(t.newestStep),
      t.messages === null ? "-" : String(t.messages),
      `${t.bytes} B`,
      tableTime(t.updatedAt),
      t.namespaces ? `${t.namespaces} ns, ${t.subgraphCheckpoints} cp` : "-",
      t.library,
    ],
    footer: async (n) =>
      n ? `${plural(n, "thread")} (LangGraph ${saver.langgraph.info.store} store)` : `${saver.uri}: no threads`,
  };
}

async function threadNamespaces(
  saver: LangGraphSaver,
  threadId: string,
  namespace: string | undefined,
): Promise<Listing<NamespaceRow>> {
  const lg = saver.langgraph;
  const spaces = await lg.namespacesOf(threadId);
  if (spaces.length === 0)
    throw new CkptError(ExitCode.INPUT, "no-thread", `no checkpoint for thread '${threadId}'`, { file: saver.uri });
  const asked = namespace === "default" ? "" : namespace;
  if (asked !== undefined && !spaces.includes(asked))
    throw new CkptError(
      ExitCode.INPUT,
      "no-namespace",
      `thread '${threadId}' has no checkpoint namespace '${asked}'; its namespaces: ${spaces.map((n) => `'${n}'`).join(", ")}`,
      { file: saver.uri },
    );
  async function* rows(): AsyncIterable<NamespaceRow> {
    for (const ns of asked !== undefined ? [asked] : spaces) {
      let checkpoints = 0;
      for await (const _ of lg.checkpointIds(threadId, ns)) checkpoints++;
      const newest = await first(saver.history(threadId, ns));
      yield {
        namespace: ns,
        checkpoints,
        newestId: newest?.checkpointId ?? null,
        newestStep: newest?.step ?? null,
        messages: newest?.messages ?? null,
        updatedAt: newest?.ts ?? null,
        interrupted: newest?.interrupted ?? false,
      };
    }
  }
  return {
    head: ["NAMESPACE", "CHECKPOINTS", "STEP", "MESSAGES", "UPDATED", "INTERRUPTED"],
    right: new Set([1, 2, 3]),
    rows: rows(),
    json: (r) => r,
    cells: (r) => [
      r.namespace === "" ? "'' (root)" : r.namespace,
      String(r.checkpoints),
      r.newestStep === null ? "-" : String(r.newestStep),
      r.messages === null ? "-" : String(r.messages),
      tableTime(r.updatedAt),
      r.interrupted ? "yes" : "-",
    ],
    footer: async (n) => `${plural(n, "namespace")} of thread '${printable(threadId)}'`,
  };
}

async function first<T>(it: AsyncIterable<T>): Promise<T | undefined> {
  for await (const x of it) return x;
  return undefined;
}

/** A LangGraph store's stats: its rows a page of threads at a time, then its tables' sizes. */
async function stats(src: LangGraphStore, o: StatsOptions): Promise<LangGraphStatsReport> {
  const { createLgStats } = await import("../../core/langgraph/stats.js");
  const t0 = performance.now();
  const acc = createLgStats({
    top: o.top,
    store: src.kind,
    uri: src.uri,
    storedMethod: src.storedMethod,
    filter: { threads: o.thread, match: o.match },
    aesKey: src.aesKey,
  });
  // only --thread: those ids are looked up directly; with --match every thread id is read and filtered
  const only = o.thread?.length && !o.match?.length ? o.thread : undefined;
  for await (const batch of src.rows({ accept: o.accept, only })) acc.add(batch);
  const report = acc.report(await src.tables(), performance.now() - t0);
  const files = src.files?.();
  return files ? { ...report, files } : report;
}

export function langGraphEngine(opened: Extract<OpenedStore, { layout: "langgraph" }>): LangGraphEngine {
  const { saver, store, uri } = opened;
  return {
    layout: "langgraph",
    title: `a LangGraph ${store.kind === "sqlite" ? "SQLite" : "PostgreSQL"} store`,
    holds: "LangGraph's tables",
    caps: {
      history: true,
      namespaces: false,
      subgraphs: true,
      write: true,
      shared: true,
      parallelWriters: false,
      prune: true,
      delete: true,
      copy: true,
      encrypted: true,
      msgpack: true,
    },
    instead: {
      namespaces:
        "a LangGraph store's namespaces are a thread's subgraphs ('<node>:<task id>'): 'ckpt ls <store>#<thread>' lists a thread's, and show, view, diff, log and validate read one with --namespace",
      parallelWriters: "a LangGraph target is written by one process (its rows are verified in order)",
    },
    uri,
    saver,
    store,
    opened,
    migration: async () => (await import("./migrate.js")).route,
    close: () => store.close(),
    // the checkpoint namespace: the flag as given (undefined: the root graph)
    namespaceFor: (flag) => flag,
    listing: async (o) => listing(saver, o.limit),
    threadNamespaces: (threadId, ns) => threadNamespaces(saver, threadId, ns),
    hasThread: async (threadId) =>
      (await store.hasLayout()) && ((await store.heads([threadId])).get(threadId) ?? []).length > 0,
    validateStore: async (o) => (await import("./validate.js")).validateStore(store, o),
    stats: (o) => stats(store, o),
    prune: async (c, o) => (await import("../../core/prune-run.js")).pruneLangGraph(store, c, o),
    copiesAs: "langgraph",
    copyIn: async (c) => (await import("./copy.js")).copyIntoLangGraph(store, c),
    // threads by a glob on their id and by checkpoint metadata, every row of them in one transaction
    erasesBy: ["match", "where"],
    eraseOwner: (o, dryRun) => eraseThreads(store, o, dryRun),
    async deleteThread(threadId, dryRun) {
      const c = await deleteThreadRows(store, threadId, dryRun);
      if (!c) return null;
      const d = { checkpoints: c.checkpoints, writes: c.writes + c.orphanWrites, blobs: c.blobs, bytes: c.bytes };
      return c.blobsKept === undefined ? d : { ...d, blobsKept: c.blobsKept, ...(c.notes ? { notes: c.notes } : {}) };
    },
  };
}
