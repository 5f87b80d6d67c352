/**
 * The Mastra routes of `ckpt migrate` (the engine is picked from the opened stores, cli/migrate.ts):
 * - a Mastra store into a Mastra store (sqlite:<path> ⇄ postgres://…?schema=, `?layout=mastra` on a new target):
 *   every thread with its messages, every resource with its working memory (core/mastra-migrate.ts);
 * - a ckpt store, folder or LangGraph store into a Mastra store: every thread of any format becomes a Mastra thread
 *   through the canonical model (`--allow-lossy` for what Mastra memory has no place for; else such a thread is
 *   rejected, exit 5, and listed).
 * A Mastra store read as documents (`--to` a ckpt store or folder, `--to-format`) goes the document way (core/migrate.ts).
 */
import { usageError } from "../base/errors.js";
import type { ConflictPolicy, Journal, MigrateProgress } from "../core/migrate/types.js";
import type { MastraMigrateSummary } from "../engines/mastra/migrate.js";
import type { MastraStore } from "../savers/mastra/types.js";
import type { Saver } from "../savers/types.js";

export interface MastraMigrateArgs {
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

export interface MastraHooks {
  journal?: Journal;
  onProgress: (p: MigrateProgress) => void;
}

const options = (args: MastraMigrateArgs, hooks: MastraHooks) => ({
  batchSize: args.batchSize,
  dryRun: args.dryRun,
  onConflict: args.onConflict === "default" ? ("auto" as const) : args.onConflict,
  verify: args.verify,
  strict: args.strict,
  journal: hooks.journal,
  onProgress: hooks.onProgress,
});

/** A Mastra store's memory into another Mastra store. */
export async function migrateMastraToMastra(
  source: MastraStore,
  target: MastraStore,
  args: MastraMigrateArgs,
  hooks: MastraHooks,
): Promise<MastraMigrateSummary> {
  const { migrateMastra } = await import("../engines/mastra/migrate.js");
  return migrateMastra(source, target, options(args, hooks));
}

/** Every thread of a store of documents (the namespaces given, else all; a LangGraph store's newest checkpoints) into a Mastra store. */
export async function migrateIntoMastra(
  saver: Saver,
  target: MastraStore,
  namespaces: string[] | undefined,
  args: MastraMigrateArgs,
  hooks: MastraHooks,
): Promise<MastraMigrateSummary> {
  const { migrateDocumentsToMastra } = await import("../engines/mastra/migrate.js");
  return migrateDocumentsToMastra(saver, target, { ...options(args, hooks), namespaces, allowLossy: args.allowLossy });
}

/** The options a Mastra route cannot honour, refused with the reason (exit 2) before anything is written. */
export function refuseOnMastra(
  args: { jobs?: number; toNamespace?: string; toFormat?: string; toLibrary?: string; thread?: string[] },
  layouts: { source: string; target: string },
  to: string,
): void {
  if (layouts.target === "mastra") {
    if (args.jobs !== undefined && args.jobs > 1)
      throw usageError(`--jobs ${args.jobs}: a Mastra target (${to}) takes one writer (leave --jobs out, or --jobs 1)`);
    if (args.toNamespace !== undefined)
      throw usageError(
        `--to-namespace ${args.toNamespace}: a Mastra target (${to}) has no namespaces (threads belong to resources)`,
      );
    if (args.toFormat !== undefined && args.toFormat !== "mastra")
      throw usageError(`--to-format ${args.toFormat}: a Mastra target (${to}) holds Mastra threads only`);
  }
  if (args.toLibrary !== undefined)
    throw usageError(`--to-library ${args.toLibrary}: applies to LangGraph targets, not to Mastra stores`);
  if (args.thread?.length)
    throw usageError("--thread: picks threads of LangGraph routes; a Mastra migration copies the whole store");
  if (layouts.source === "mastra" && layouts.target === "langgraph")
    throw usageError(
      `--to ${to}: a Mastra store goes to a Mastra store, or as documents to a ckpt store or folder (--to-format); LangGraph targets take documents from ckpt stores`,
    );
}
