/**
 * The endpoint contract: what a layout supplies to take part in a migration (engines/<layout>/migrate.ts implements
 * it; pipeline.ts runs it). The source side reads rows in batches and stages them (checks, converts) into items; the
 * target side says what it holds, writes a batch (over what is there, only where nothing is, or all as new) and
 * verifies a written batch. Everything else — batches in flight, the journal and --resume, --on-conflict, the
 * read-back, progress, the summary and the exit code — is the pipeline's, the same for every layout.
 */
import type { Ignored, MigrateSummary, Rejected } from "./types.js";

/** A staged record on its way to the target. */
export interface Item {
  /** how messages name it: a namespace (or a table) and an id */
  readonly namespace: string;
  readonly threadId: string;
  /** its journal key */
  readonly key: string;
  /**
   * what the journal keeps beside its key: a hash of what was written (documents: the sha256 of the document's text as checked, the bytes read or its conversion;
   * "" where the layout verifies row by row: LangGraph). A resume reads the keys only; the hash is a record of it.
   */
  readonly hash: string;
  /** the bytes it writes */
  readonly bytes: number;
}

/** A source row once staged: the item to write, or why it cannot be. */
export type Staged<I> = { ok: I } | { reject: string };

/** A written item that did not read back as written: what was expected and what came back (null: nothing). */
export interface Misread {
  expected: string;
  got: string | null;
}

/** One connection to the target. */
export interface TargetWriter<I extends Item, H> {
  /** what the target holds under each item's key (undefined: nothing) */
  lookup(items: I[]): Promise<Array<H | undefined>>;
  /**
   * Write the items, over what the target holds when `overwrite` (else the layout's insert); throws a RecordError
   * for an item the target cannot hold (it is rejected and the rest written again).
   */
  write(items: I[], overwrite: boolean): Promise<void>;
  /** Optional: write each item only where the target holds nothing under its key (atomically): which were written. */
  add?(items: I[]): Promise<boolean[]>;
  /** Optional: write the whole batch as new, all or nothing: false (nothing written) when one of them exists. */
  insertNew?(items: I[]): Promise<boolean>;
  /** per written item: undefined when it reads back as written (by content hash, or the layout's own form) */
  verify(items: I[]): Promise<Array<Misread | undefined>>;
}

/** What a layout pair supplies: source rows `R`, staged into items `I`, compared with what the target holds, `H`. */
export interface MigrationEndpoint<R, I extends Item, H> {
  /** the parts of the source read one after another (ckpt's namespaces; one part for the other layouts) */
  parts(): Promise<string[]>;
  /** rows a part holds (for the progress bar) */
  count(part: string): Promise<number>;
  scan(part: string, batchSize: number): AsyncIterable<R[]>;
  /** what the scan of a part passed over: entries that are not records, and rows rejected while reading */
  passedOver?(part: string): { ignored: Ignored[]; rejected: Rejected[] } | undefined;
  /** how a row is named in rejects (and its file) */
  labelOf(r: R): { namespace: string; threadId: string; file?: string };
  /** the journal key the row's item gets */
  keyOf(r: R): string;
  /**
   * the bytes a row counts as read: its size as read from the source (`staged` only saves measuring it again when
   * staging kept it as it was), never the size of what it was converted to — "MB read" and MB/s are the source's
   */
  bytesRead(r: R, staged: Staged<I> | undefined): number;
  /**
   * Stage a batch: per row, the item or why not, undefined for a row `done` says the journal has. Called as the batch
   * is read; the function it returns gives the results (the work may already run elsewhere, a worker thread).
   */
  stage(batch: R[], done: (r: R) => boolean): () => Promise<Array<Staged<I> | undefined>>;
  /** the connections to the target: the first is the target itself; items are sharded over them by thread id */
  readonly writers: Array<TargetWriter<I, H>>;
  /** whether the target holds each of these rows (those a resumed run's journal names) */
  held(rows: R[]): Promise<boolean[]>;
  /** whether the target holds the item's content */
  same(item: I, held: H): boolean;
  /** whether the item is newer than what the target holds (`--on-conflict newer`) */
  newer(item: I, held: H): boolean;
  /** before the first batch: the summary to fill; set up the target (unless `dryRun`) */
  begin?(s: MigrateSummary, dryRun: boolean): Promise<void>;
  /** the first batch was read: it shows the size of the run (start a worker) */
  started?(first: R[]): Promise<void>;
  /** items written (in a dry run: to be written): the layout's own figures and what it changed on the way */
  counted?(items: I[]): void;
  /** the run is over (after a failure too): stop what `started` started; the summary's figures line */
  end?(s: MigrateSummary): Promise<void>;
}
