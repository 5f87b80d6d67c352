/**
 * Change records produced by `diffCheckpoints` — the `--json` output of `ckpt diff`. Indices are 0-based positions
 * in the `messages` array of the first (`a`) or second (`b`) canonical checkpoint; pointers are RFC 6901 into the
 * canonical documents.
 */
import type { FieldChange } from "./fields.js";

export type { FieldChange } from "./fields.js";

/** A text difference: word level for short text, a unified line diff for long text. */
export type TextDiff =
  | { mode: "words"; parts: Array<{ value: string; added?: boolean; removed?: boolean }> }
  | { mode: "lines"; patch: string };

/** One content block of an edited message. */
export interface BlockChange {
  /** "moved": same content, another position among the message's blocks */
  op: "added" | "removed" | "changed" | "moved";
  /** index in the old / new message's content */
  a?: number;
  b?: number;
  /** block type (text, thinking, toolCall, toolResult content, image, file) */
  type: string;
  /** text / thinking changes */
  text?: TextDiff;
  /** other field changes of the block (pointers relative to the new message) */
  fields?: FieldChange[];
}

export interface MessageChange {
  kind: "message";
  op: "appended" | "inserted" | "removed" | "edited" | "moved";
  role: string;
  /** index in a (removed, edited, moved) */
  a?: number;
  /** index in b (appended, inserted, edited, moved) */
  b?: number;
  /** one-line preview of the message */
  preview: string;
  /** for edited (and moved-and-edited) messages: which content blocks changed */
  blocks?: BlockChange[];
  /** for edited messages: changed fields other than content (pointers into b) */
  fields?: FieldChange[];
}

export interface TodoChange {
  kind: "todo";
  op: "added" | "removed" | "status" | "edited";
  id: string;
  content: string;
  /** status before / after (op "status", or any op where it applies) */
  before?: string;
  after?: string;
  fields?: FieldChange[];
}

export interface FileChange {
  kind: "file";
  op: "added" | "removed" | "edited";
  path: string;
  /** unified diff of the content lines ("" when only metadata changed) */
  patch: string;
  /** line counts */
  added: number;
  removed: number;
  /** metadata changes (created_at, modified_at, …) */
  fields?: FieldChange[];
}

export interface ScratchpadChange {
  kind: "scratchpad";
  op: "added" | "removed" | "edited" | "moved";
  heading: string;
  a?: number;
  b?: number;
  text?: TextDiff;
  fields?: FieldChange[];
}

export interface ContextChange {
  kind: "context";
  op: "added" | "removed" | "edited";
  name: string;
  fields?: FieldChange[];
}

/** Token totals summed over all assistant messages. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  reasoning: number;
}

export interface UsageChange {
  kind: "usage";
  before: UsageTotals;
  after: UsageTotals;
  /** after − before, per field */
  delta: UsageTotals;
}

/** The model or provider of the last assistant message changed. */
export interface ModelChange {
  kind: "model";
  field: "model" | "provider";
  before?: string;
  after?: string;
}

/** Any other changed value: step, threadId, createdAt, updatedAt, interrupt, state keys, ext, … */
export interface ValueChange extends FieldChange {
  kind: "field";
}

export type Change =
  | MessageChange
  | TodoChange
  | FileChange
  | ScratchpadChange
  | ContextChange
  | UsageChange
  | ModelChange
  | ValueChange;

export interface DiffSummary {
  messages: {
    a: number;
    b: number;
    appended: number;
    inserted: number;
    removed: number;
    edited: number;
    moved: number;
    toolResultsChanged: number;
  };
  /** the summary paragraph, e.g. "3 messages appended, 1 tool result changed, +1,234 input tokens, todo 2 pending → completed" */
  text: string;
}

/** One compared side. */
export interface DiffSide {
  format?: string;
  threadId: string;
  /** "file-name": the format has no thread id; this one was derived from the file name (it is not compared) */
  threadIdFrom?: "file-name";
}

export interface DiffResult {
  identical: boolean;
  summary: DiffSummary;
  changes: Change[];
  /** what was compared: origin formats and notes such as "ext ignored: formats differ" */
  a: DiffSide;
  b: DiffSide;
  notes: string[];
}
