/**
 * `ckpt export`'s model: a thread's checkpoint read into the canonical model (`ExportThread`), the formats that turn
 * one into rows (`ExportFormat`), and the tally of what a format cannot carry (`ExportLoss`). Pure: the pipeline that
 * reads stores and writes files is engines/export/.
 *
 * The pipeline is source threads → canonical conversation (`ExportThread`) → transforms (e.g. redaction) → the
 * format's rows → a writer (JSONL, Parquet, Markdown). Every stage sees one thread at a time.
 */
import type { Checkpoint } from "../../generated/types.js";

/** One checkpoint of one thread, read into the canonical model: what every export format is made from. */
export interface ExportThread {
  /** the store, folder or file it came from, as the user named it (credentials removed) */
  source: string;
  threadId: string;
  /** ckpt's namespace of the thread, when the store has namespaces and it is not `default` */
  namespace?: string;
  /** the checkpoint's id where the store keeps a history (LangGraph), else undefined */
  checkpointId?: string;
  /** one of several checkpoints of its thread in the export (allCheckpoints): named by its checkpoint in reports */
  ofHistory?: boolean;
  /** the native format it was read from */
  format: string;
  checkpoint: Checkpoint;
}

/** The formats `--as` names. */
export const EXPORT_FORMATS = ["openai-chat", "hf-messages", "sharegpt", "ckpt", "audit", "markdown"] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];

/** A Parquet column of a format's flattened rows (the JSONL keys; nested lists and structs where the shape is fixed). */
export type ColumnType =
  | "string"
  | "int"
  | "bool"
  | { list: ColumnType }
  | { struct: ReadonlyArray<readonly [string, ColumnType]> };

export interface ExportFormat {
  readonly name: ExportFormatName;
  /** what one row is, for messages: "conversation", "event", "checkpoint" */
  readonly row: string;
  /** the rows of one thread (JSONL: one line each), noting in `loss` what they cannot carry */
  rows(t: ExportThread, loss: ExportLoss): unknown[];
  /** the Parquet columns of a row: its keys, in order (values whose shape varies are JSON text) */
  readonly columns: ReadonlyArray<readonly [string, ColumnType]>;
  /** a row as the Parquet columns hold it (default: the row itself) */
  flatten?(row: unknown): Record<string, unknown>;
}

/** What a format could not carry, one kind at a time (images, files, reasoning, state, …). */
export interface LossKind {
  kind: string;
  /** what it is, in words: "images", "reasoning blocks" */
  what: string;
  /** how many were left out */
  count: number;
  /** in how many threads (checkpoints, with --all-checkpoints) */
  threads: number;
  /** the first place: `<thread>#<message index>` or `<thread>` */
  first: string;
}

/** The tally of what an export left out, per kind, with a count and the first place of each. */
export class ExportLoss {
  private readonly kinds = new Map<string, LossKind & { last: string }>();

  /** `n` things of `kind` left out of thread `thread` (at message `index`, where it is one). */
  add(kind: string, what: string, thread: string, index?: number, n = 1): void {
    let k = this.kinds.get(kind);
    const at = index === undefined ? thread : `${thread}#${index}`;
    if (!k) this.kinds.set(kind, (k = { kind, what, count: 0, threads: 0, first: at, last: "" }));
    k.count += n;
    if (k.last !== thread) {
      k.threads++;
      k.last = thread;
    }
  }

  get size(): number {
    return this.kinds.size;
  }

  list(): LossKind[] {
    return [...this.kinds.values()].map(({ last: _, ...k }) => k);
  }
}
