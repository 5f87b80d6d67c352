/**
 * What every migration shares, whatever the layouts at its ends: the options a run takes, the journal, the summary,
 * the exit code, and the endpoint contract a layout implements to take part (engines/<layout>/migrate.ts). The
 * pipeline that runs an endpoint is pipeline.ts.
 */
import { ExitCode } from "../../base/errors.js";

export type ConflictPolicy = "auto" | "skip" | "overwrite" | "fail" | "newer";

/** Where committed records are remembered, so that an interrupted run can be resumed. */
export interface Journal {
  /** keys (`namespace\0threadId`, or the layout's own) committed by an earlier, interrupted run */
  readonly done: ReadonlySet<string>;
  /** durably record that these keys are committed in the target */
  commit(entries: Array<{ key: string; hash: string }>): Promise<void>;
}

/** The options of a run, whatever its layouts: the command line's flags, the journal, progress and Ctrl-C. */
export interface RunOptions {
  batchSize?: number;
  dryRun?: boolean;
  onConflict?: ConflictPolicy;
  /** read every written record back and compare (default true) */
  verify?: boolean;
  /** stop at the first rejected record */
  strict?: boolean;
  journal?: Journal;
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

/** A written record that did not read back as written: content hashes, or what was compared. */
export interface Mismatch {
  namespace: string;
  threadId: string;
  expected: string;
  got: string | null;
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
  mismatches: Mismatch[];
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
  /** what the run moved in the target layout's own terms (`Mastra memory written: 4 thread(s) …`): a summary line */
  figures?: string;
}

/** The journal key of a record of ckpt's own layout: its namespace and thread id. */
export const journalKey = (namespace: string, threadId: string) => `${namespace}\u0000${threadId}`;

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
