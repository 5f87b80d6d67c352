/**
 * What a layout says about `ckpt migrate` (engines/<layout>/migrate.ts `route`; picked in one place,
 * engines/migrate-endpoints.ts): the options it cannot honour as a source or target, and how a run into it goes (its
 * endpoint on the one pipeline, core/migrate/pipeline.ts).
 */
import type { CheckPool } from "../core/check.js";
import type { ConflictPolicy, Journal, MigrateProgress, MigrateSummary } from "../core/migrate/types.js";
import type { OpenedStore } from "../savers/index.js";
import type { Saver } from "../savers/types.js";
import type { SaverUri } from "../savers/uri.js";

/** The command line of a run, as the layouts read it. */
export interface RouteArgs {
  namespace?: string[];
  toNamespace?: string;
  toFormat?: string;
  aiSdkVersion?: string;
  toLibrary?: string;
  thread?: string[];
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

/** What the command gives every run: the journal, progress, Ctrl-C, the check pool and more target connections. */
export interface RouteHooks {
  journal?: Journal;
  /** absent: no progress is reported (and no source is counted for a total) */
  onProgress?: (p: MigrateProgress) => void;
  signal: AbortSignal;
  /** the source namespaces to copy (the URI's, else --namespace; undefined: all) */
  namespaces?: string[];
  /** the target namespace (the URI's, else --to-namespace) */
  toNamespace?: string;
  /** more connections to the target (`--jobs`, where its engine takes parallel writers) */
  writers: Saver[];
  openCheckPool?: (opts?: { auto?: boolean }) => Promise<CheckPool | undefined>;
}

export interface MigrationRoute {
  /** The options a target of this layout cannot honour, from `source` (exit 2), checked before anything is written. */
  refuseAsTarget(args: RouteArgs, source: OpenedStore["layout"], to: string): void;
  /** The targets a store of this layout cannot go to (exit 2). */
  refuseAsSource?(target: OpenedStore["layout"], to: string): void;
  /** Whether a target of this layout at `to` takes parallel writers, before it is opened (then its engine says). */
  parallelWriters(to: SaverUri): boolean;
  /** Why a target of this layout takes one writer (the tail of the one `--jobs` refusal). */
  oneWriter(to: string): string;
  /** A run into a target of this layout from `source` (its rows, or its documents). */
  run(source: OpenedStore, target: OpenedStore, args: RouteArgs, hooks: RouteHooks): Promise<MigrateSummary>;
}

/** The options every run takes from the command line and the command's hooks. */
export const runOptions = (args: RouteArgs, hooks: RouteHooks) => ({
  batchSize: args.batchSize,
  dryRun: args.dryRun,
  onConflict: args.onConflict === "default" ? ("auto" as const) : args.onConflict,
  verify: args.verify,
  strict: args.strict,
  journal: hooks.journal,
  onProgress: hooks.onProgress,
  signal: hooks.signal,
});
