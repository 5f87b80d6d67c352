/**
 * The LangGraph routes of `ckpt migrate` (the engine is picked from the opened stores, cli/migrate.ts):
 * - a LangGraph store into a LangGraph store (sqlite:<path> ⇄ postgres://…?schema=): whole histories, checkpoint by
 *   checkpoint (core/langgraph/migrate.ts); `--to-library python|js` converts on the way;
 * - a ckpt store or folder into a LangGraph store: every thread of any seed format becomes a LangGraph thread (one
 *   checkpoint, LangChain messages; core/langgraph/convert.ts). Threads that cannot be converted (unreadable, lossy without
 *   --allow-lossy, a thread id the target already holds with other checkpoints) are rejected (exit 5) and listed.
 * Both with the journal, --resume, --dry-run, --on-conflict, --reject-file, --thread and the progress of the document
 * migration; the options a LangGraph target cannot honour are refused (`refuseOnLangGraph`).
 */
import { usageError } from "../base/errors.js";
import type { Library } from "../formats/langgraph/encode.js";
import type { ConflictPolicy, Journal, MigrateProgress, MigrateSummary, Rejected } from "../core/migrate/types.js";
import type { LangGraphStore } from "../savers/langgraph/shared.js";
import type { Saver } from "../savers/types.js";

export interface LgMigrateArgs {
  toLibrary?: string;
  thread?: string[];
  namespace?: string[];
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

export interface LgHooks {
  journal?: Journal;
  onProgress: (p: MigrateProgress) => void;
  onReject?: (r: Rejected) => void;
}

export function parseLibrary(v: string | undefined): Library | undefined {
  if (v === undefined) return undefined;
  if (v !== "python" && v !== "js") throw usageError(`--to-library ${v}: expected python or js`);
  return v;
}

/** The options of a LangGraph migration that come from the command line and its journal and progress hooks. */
function lgMigrateOptions(args: LgMigrateArgs, hooks: LgHooks) {
  const threads = args.thread?.length ? new Set(args.thread) : undefined;
  return {
    threads: threads ? (t: string) => threads.has(t) : undefined,
    dryRun: args.dryRun,
    onConflict: args.onConflict === "default" ? ("auto" as const) : args.onConflict,
    verify: args.verify,
    strict: args.strict,
    batchSize: args.batchSize,
    journal: hooks.journal,
    onProgress: hooks.onProgress,
    onReject: hooks.onReject,
  };
}

/** A LangGraph history into a LangGraph store. */
export async function migrateLgToLg(
  source: LangGraphStore,
  target: LangGraphStore,
  args: LgMigrateArgs,
  hooks: LgHooks,
): Promise<MigrateSummary & { library: Library }> {
  const { migrateLangGraph } = await import("../engines/langgraph/migrate.js");
  return migrateLangGraph(source, target, {
    toLibrary: parseLibrary(args.toLibrary),
    ...lgMigrateOptions(args, hooks),
  });
}

/** Every thread of a ckpt store (the namespaces given, else all) into a LangGraph store. */
export async function migrateIntoLg(
  saver: Saver,
  target: LangGraphStore,
  namespaces: string[] | undefined,
  args: LgMigrateArgs,
  hooks: LgHooks,
): Promise<MigrateSummary & { library: Library }> {
  const { migrateDocumentsToLangGraph } = await import("../engines/langgraph/migrate.js");
  return migrateDocumentsToLangGraph(saver, target, {
    toLibrary: parseLibrary(args.toLibrary),
    namespaces,
    allowLossy: args.allowLossy,
    ...lgMigrateOptions(args, hooks),
  });
}

/**
 * The options a LangGraph target cannot honour, refused with the reason (exit 2) before anything is written: it is
 * written by one writer (a batch's checkpoints go in key order, and PostgreSQL blob rows are shared by a thread's
 * checkpoints across batches), holds no ckpt namespaces (a LangGraph `checkpoint_ns` is a subgraph's), and holds
 * LangGraph checkpoints only.
 */
export function refuseOnLangGraph(
  args: { jobs?: number; toNamespace?: string; toFormat?: string; namespace?: string[] },
  sourceIsLg: boolean,
  to: string,
): void {
  if (args.jobs !== undefined && args.jobs > 1)
    throw usageError(
      `--jobs ${args.jobs}: a LangGraph target (${to}) takes one writer: its batches go in key order and PostgreSQL's blob rows are shared by a thread's checkpoints (leave --jobs out, or --jobs 1)`,
    );
  if (args.toNamespace !== undefined)
    throw usageError(
      `--to-namespace ${args.toNamespace}: a LangGraph target (${to}) has no namespaces (a checkpoint_ns is a subgraph's)`,
    );
  if (args.toFormat !== undefined && args.toFormat !== "langgraph")
    throw usageError(`--to-format ${args.toFormat}: a LangGraph target (${to}) holds langgraph checkpoints only`);
  if (sourceIsLg && args.namespace?.length)
    throw usageError(
      `--namespace ${args.namespace.join(" ")}: a LangGraph source has no namespaces (use --thread to pick threads)`,
    );
}
