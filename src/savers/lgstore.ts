/**
 * LangGraph checkpoint stores at the row level (LANGGRAPH.md §1): what `migrate`, `prune` and `stats` need to move,
 * delete and measure rows exactly as the libraries store them. SQLite (`checkpoints`, `writes`) and PostgreSQL
 * (`checkpoints`, `checkpoint_blobs`, `checkpoint_writes`, `checkpoint_migrations`, in the URI's `?schema=`).
 * Decoding values is the read side's business (src/formats/langgraph/); these stores hand over bytes.
 */
import type { Library } from "../formats/langgraph/encode.js";
import type { LgCheckpoint } from "../formats/langgraph/rows.js";
import { parseSaverUri } from "./uri.js";
import { usageError } from "../base/errors.js";

export interface CheckpointKey {
  threadId: string;
  ns: string;
  id: string;
}

export const keyOf = (k: CheckpointKey) => `${k.threadId}\u0000${k.ns}\u0000${k.id}`;

/** One checkpoint as prune planning sees it (no payload). */
export interface CheckpointHead extends CheckpointKey {
  parentId: string | null;
  /** metadata.step, when present */
  step?: number;
  /** ISO timestamp of the checkpoint (`ts`), when known */
  ts?: string;
  /** DeltaChannel counters (metadata.counters_since_delta_snapshot), when present */
  deltaCounters?: Record<string, unknown>;
  /** whether the checkpoint holds a delta snapshot for these channels (PG Python: inline sentinel `true`) */
  bytes: number;
}

export interface TableStat {
  table: string;
  rows: number;
  bytes: number;
}

export interface WriteOptions {
  /** the library whose layout the rows follow in this store */
  library: Library;
  /** replace existing rows (else existing checkpoints are left alone) */
  overwrite: boolean;
}

export interface LgStore {
  readonly kind: "sqlite" | "postgres";
  readonly uri: string;
  /** whether the LangGraph tables exist */
  hasLayout(): Promise<boolean>;
  /** the library that wrote the store (PG: migrations max v; SQLite: first checkpoint), undefined when empty */
  library(): Promise<Library | undefined>;
  /** create the tables (and PG indexes, migration rows) exactly as the library's own setup() */
  setup(lib: Library): Promise<void>;
  /** checkpoints held */
  count(): Promise<number>;
  /** every checkpoint with its writes, in (thread_id, checkpoint_ns, checkpoint_id) order, in batches */
  scan(batchSize: number, threads?: (id: string) => boolean): AsyncIterable<LgCheckpoint[]>;
  /** the stored checkpoints among `keys` (what the store holds, in the SQLite layout), for conflicts */
  load(keys: CheckpointKey[], lib: Library): Promise<Map<string, LgCheckpoint>>;
  /** write checkpoints and their writes in one transaction */
  write(cps: LgCheckpoint[], opts: WriteOptions): Promise<void>;
  /** prepare `cp` for `write` in this store; throws when the store cannot hold it (the migration rejects it then) */
  stage(cp: LgCheckpoint, lib: Library): void;
  /**
   * Check written checkpoints where they are stored, without reading them back (PostgreSQL: hashes of the stored rows
   * compared in one query): true when the stored rows are exactly the ones written; false leaves the checkpoint to
   * `readBack` and `sameForm`, which decide. Stores without it are read back.
   */
  verifyWritten?(written: Array<{ cp: LgCheckpoint; lib: Library }>): Promise<boolean[]>;
  /** the stored form of `keys` (decoded values), comparable with `stagedForm` of what was written (read-back verification) */
  readBack(keys: CheckpointKey[]): Promise<Map<string, unknown>>;
  /** the form `readBack` will give for a checkpoint after `write` */
  stagedForm(cp: LgCheckpoint, lib: Library): unknown;
  /** whether two forms (of `readBack` / `stagedForm`) hold the same values */
  sameForm(a: unknown, b: unknown): boolean;
  /** thread ids after `after`, ascending, at most `limit` */
  threadPage(after: string | undefined, limit: number): Promise<string[]>;
  /** every checkpoint of these threads, without payloads */
  heads(threads: string[]): Promise<Map<string, PruneHead[]>>;
  /**
   * Prune a page of threads in one transaction: each thread's checkpoints (without payloads) go to `plan`; the
   * checkpoints its plan names are deleted with their writes, then orphan writes (no checkpoint, written before
   * `startId`) and, in PostgreSQL, blobs no remaining checkpoint of the thread names. Only planned ids are deleted.
   * `dryRun` counts the same without changing anything.
   */
  prunePage(threads: string[], plan: PlanFn, o: { startId: string; dryRun: boolean }): Promise<PruneCounts>;
  close(): Promise<void>;
}

export interface PruneHead {
  ns: string;
  id: string;
  parentId: string | null;
  /** stored bytes of the checkpoint row */
  bytes: number;
  /** metadata.counters_since_delta_snapshot, when the checkpoint has one */
  deltaCounters?: Record<string, unknown> | null;
}

export interface ThreadPlan {
  threadId: string;
  /** every checkpoint of the thread goes */
  whole: boolean;
  remove: PruneHead[];
  keep: number;
}

/** What goes of one thread, given its checkpoints (prune planning, src/core/prune.ts). */
export type PlanFn = (threadId: string, heads: PruneHead[]) => ThreadPlan;

export interface PruneCounts {
  checkpoints: number;
  writes: number;
  orphanWrites: number;
  blobs: number;
  bytes: number;
}

export function isLangGraphUri(uri: string, env?: NodeJS.ProcessEnv): boolean {
  const u = parseSaverUri(uri, env);
  return u.kind === "sqlite" || u.kind === "postgres";
}

export async function openLgStore(
  uri: string,
  opts: { env?: NodeJS.ProcessEnv; readonly?: boolean; create?: boolean } = {},
): Promise<LgStore> {
  const u = parseSaverUri(uri, opts.env);
  if (u.kind === "sqlite") return (await import("./lgstore-sqlite.js")).openSqliteLgStore(u.location, u.redacted, opts);
  if (u.kind === "postgres")
    return (await import("./lgstore-postgres.js")).openPostgresLgStore(
      u.location,
      u.redacted,
      u.params.get("schema") ?? "public",
    );
  throw usageError(`'${u.redacted}' is not a LangGraph store: expected sqlite:<path> or postgres://…?schema=`);
}
