/**
 * The engine contract (DESIGN §4): one object per store layout, in that layout's own folder under engines/, that says
 * what the store can do (`caps`) and does it. `openEngine` (engines/index.ts) is the one place that turns an opened
 * store into its engine; commands ask the engine and never switch on the layout. An operation a layout cannot do is
 * refused in one place (`requireCap`), from its capabilities, with one message shape (exit 2, naming what to use
 * instead).
 */
import type { FileResult } from "../core/document.js";
import type { PruneCriteria } from "../core/prune.js";
import type { PruneOptions, PruneSummary } from "../core/prune-run.js";
import type { LangGraphStatsReport, MastraStatsReport, SaverStatsReport } from "../generated/types.js";
import type { OpenedStore } from "../savers/index.js";
import type { Saver } from "../savers/types.js";
import type { SaverUri } from "../savers/uri.js";
import type { MigrationRoute } from "./migrate-route.js";
import type { Erased } from "../savers/types.js";
import type { FindingKind, RedactCounts } from "../core/scan/redact.js";

/** What a layout is: the value of `ckpt ls --json`'s `layout` and of `?layout=`. */
export type LayoutName = OpenedStore["layout"];

/** What commands may ask of a store. Everything a layout lacks is refused in one place (`requireCap`), exit 2. */
export interface EngineCaps {
  /** more than one checkpoint per thread (`log` lists them, `@<id>`/`@~N` pick one) */
  history: boolean;
  /** ckpt's namespaces (`?namespace=`, `--namespace`): several independent sets of threads in one store */
  namespaces: boolean;
  /** a thread's checkpoint namespaces (LangGraph subgraphs: `ls <store>#<thread>`, `--namespace` names one) */
  subgraphs: boolean;
  /** the store can be written by ckpt (`migrate --to`) */
  write: boolean;
  /** other processes open the same store (a run killed is resumed by another; a memory: store lives in one) */
  shared: boolean;
  /** several writer processes at once (`migrate --jobs`) */
  parallelWriters: boolean;
  /** `ckpt prune` */
  prune: boolean;
  /** `ckpt delete <store>#<thread>` */
  delete: boolean;
  /** `ckpt copy` into and within the store */
  copy: boolean;
  /** values may be encrypted (an AES key opens them) */
  encrypted: boolean;
  /** values are msgpack that may name Python classes (`stats --allowlist` audits them) */
  msgpack: boolean;
}
export type Capability = keyof EngineCaps;

/** The rows of `ckpt ls`: what the layout lists per thread, as JSON and as table cells. */
export interface Listing<R = unknown> {
  /** the table's column heads, and which columns are right-aligned (numbers) */
  head: string[];
  right: ReadonlySet<number>;
  rows: AsyncIterable<R>;
  /** the JSON object of a row (`ckpt ls --json`) */
  json(row: R): unknown;
  cells(row: R): string[];
  /** the line under the table, given how many rows were printed (0: what the store holds instead) */
  footer(count: number): Promise<string>;
}

export interface ListingOptions {
  /** ckpt's namespaces asked for (URI or `--namespace`); undefined: every namespace */
  namespaces?: string[];
  limit?: number;
}

export interface StatsOptions {
  top: number;
  /** the namespaces asked for (ckpt's own stores) */
  namespaces?: string[];
  thread?: string[];
  match?: string[];
  accept?: (threadId: string) => boolean;
}
export type StatsReport = LangGraphStatsReport | SaverStatsReport | MastraStatsReport;

/** What `ckpt delete` removed (or would remove) from a LangGraph store or ckpt's own. */
export interface Deleted {
  checkpoints: number;
  writes: number;
  blobs: number;
  bytes: number;
  /** PostgreSQL: orphan blobs of the thread kept by the delete's start mark (`notes` says why) */
  blobsKept?: number;
  notes?: string[];
}

/** What `ckpt delete` removed (or would remove) from a foreign layout: savers/types.ts `Erased`. */
export type { Erased };

/**
 * Whose data `ckpt delete` erases besides one thread (GDPR erasure): a Mastra resource (`--resource`), a Chat SDK
 * user (`--user`), or LangGraph threads by a glob on their id (`--match`) and checkpoint metadata (`--where k=v`).
 * Criteria given together must all hold.
 */
export interface Owner {
  resource?: string;
  user?: string;
  match?: string[];
  where?: Array<{ key: string; value: string }>;
}
export type OwnerKey = keyof Owner;

/** A thread to copy into a store (`ckpt copy`): its source, the checkpoint read, and the new thread id. */
export interface CopyIn {
  source: Engine;
  threadId: string;
  /** the source's checkpoint (the newest, or the fork point) as its document */
  text: string;
  /** the fork point, when one was named */
  upTo?: string;
  /** the new thread id */
  to: string;
  dryRun: boolean;
  /**
   * --overwrite: a new thread the write finds (in the step that writes, so that two copies into one new id never both
   * write) is replaced; without it the copy is refused (exit 2, `threadTakenError`) having written nothing
   */
  overwrite: boolean;
  /**
   * --redact of a copy that moves rows (a LangGraph history): the kinds to replace, and the counts of what was
   * replaced, filled in by the copy (a document copy is given its text redacted already)
   */
  redact?: { kinds: ReadonlySet<FindingKind>; counts: RedactCounts; unscanned?: { values: number } };
}
export interface Copied {
  checkpoints: number;
  writes: number;
  /** the new thread was there and was replaced (--overwrite; a dry run: would be) */
  replaced: boolean;
}

/** What `ckpt validate` asks of a store that is validated as a store (its rows, not only its documents). */
export interface StoreValidation {
  /** the input as the user named it (the result's `file`) */
  label: string;
  /** the store's URI as the user named it (findings name it instead of the opened URI) */
  uriLabel: string;
  threadId?: string;
  checkpointId?: string;
  namespace?: string;
  maxErrors?: number;
  library?: "python" | "js";
  /** every finding (else a healthy store's warnings one line per rule) */
  verbose?: boolean;
}

export interface Engine {
  readonly layout: LayoutName;
  /** the layout in words, for messages: "a Mastra store" */
  readonly title: string;
  /** what the store holds, for messages: "Mastra's memory tables" */
  readonly holds: string;
  readonly caps: EngineCaps;
  /** per missing capability, what to use instead (the tail of the refusal) */
  readonly instead: Partial<Record<Capability, string>>;
  readonly uri: SaverUri;
  /** the store as documents, one per thread (read-only for layouts that cannot be written) */
  readonly saver: Saver;
  /** the store as it was opened (the typed store object where the layout has one) */
  readonly opened: OpenedStore;
  close(): Promise<void>;
  /** `ckpt migrate`: this layout's route (its endpoint on the one pipeline, what it refuses as source and target) */
  migration(): Promise<MigrationRoute>;
  /** The namespace a thread is read in: ckpt's namespace rule, or a LangGraph checkpoint namespace (`--namespace`). */
  namespaceFor(flag: string | undefined): string | undefined;
  /** `ckpt ls`: one row per thread */
  listing(o: ListingOptions): Promise<Listing>;
  /** whether the store holds the thread (in a namespace, for ckpt's own stores) */
  hasThread(threadId: string, namespace?: string): Promise<boolean>;
  /**
   * `ckpt validate` of one thread, where the layout judges it itself (its findings name the store's rows): undefined
   * when the store holds no such thread. Without it, a thread's document is validated as any document is.
   */
  validateThread?(
    threadId: string,
    o: { name: string; format?: string; text?: string },
  ): Promise<FileResult | undefined>;
  /** `ckpt validate` of the store as a store, where the layout has store-level rules (LangGraph) */
  validateStore?(o: StoreValidation): Promise<FileResult>;
  /** `ckpt stats` */
  stats(o: StatsOptions): Promise<StatsReport>;
  /** what a stats report read as documents says the store is (default: ckpt's own saver, one document per thread) */
  readonly statsLabel?: string;
  /** `ckpt prune` (caps.prune) */
  prune?(c: PruneCriteria, o: PruneOptions): Promise<PruneSummary>;
  /** the layout a new store takes when a thread of this one is copied into it (`ckpt copy`) */
  readonly copiesAs: "ckpt" | "langgraph";
  /** `ckpt copy` into this store (caps.copy) */
  copyIn?(c: CopyIn): Promise<Copied>;
  /** `ckpt delete`: the thread's rows, or null when it holds none (caps.delete) */
  deleteThread?(threadId: string, dryRun: boolean): Promise<Deleted | Erased | null>;
  /** the `ckpt delete` criteria besides a thread (`Owner`) the layout erases by; none: refused, exit 2 */
  readonly erasesBy?: readonly OwnerKey[];
  /**
   * `ckpt delete --resource/--user/--match/--where`: every row of what the owner criteria select, counted (dry run)
   * or deleted in one transaction per store; `threads` lists the threads (chats) taken. null: nothing selected.
   */
  eraseOwner?(o: Owner, dryRun: boolean): Promise<Erased | null>;
}
