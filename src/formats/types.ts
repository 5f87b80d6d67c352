/**
 * A format adapter: one file per native format (src/formats/<name>.ts). No I/O here — adapters get the
 * document's text (or the texts of a folder's files) and return values; callers read and write.
 */
import type { AgentMessage, Checkpoint } from "../generated/types.js";
import type { Issue, LintView } from "../schema/types.js";

export type { Issue, LintMessage, LintView } from "../schema/types.js";

export const FORMAT_NAMES = [
  "ckpt",
  "yoagent",
  "yoagent-session",
  "phi-core",
  "phi-core-session",
  "amacs",
  "swarmer",
  "deepagent",
  "langgraph",
  "mastra",
  "openai-agents",
  "openai-agents-items",
  "ai-sdk",
  "openai-responses-items",
  "openai-agents-session",
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/**
 * What an adapter is given. A single file has `text`; an amacs folder has `files` (relative name → text).
 * `name` is the path or label shown in messages (e.g. "./conversation.json", "<stdin>", "redis://…#t1").
 */
export interface SourceDoc {
  name: string;
  text?: string;
  files?: Record<string, string>;
  /**
   * The thread a store holds this document under (a saver record, `<uri>#<thread>`). Formats whose documents carry
   * no thread id take it instead of the file stem of `name` (a store's name is no file name: `…#notes.v2` is thread
   * `notes.v2`, and a FileSaver file name is a sanitized thread id).
   */
  threadId?: string;
  /**
   * The format version the user named (`--format ai-sdk@5`, `--ai-sdk-version 5`): read the document as that version
   * instead of detecting it. Only formats with versions that change what their loader accepts read it.
   */
  formatVersion?: string;
}

/** A field a conversion cannot carry: reported per message and field when --allow-lossy is used. */
export interface LossyNote {
  /** pointer into the canonical checkpoint, e.g. "/messages/3/content/0/signature" */
  pointer: string;
  field: string;
  reason: string;
}

/**
 * Where an adapter's `fromCanonical` writes its loss notes: an array of them, or a compact LossLog (formats/loss.ts),
 * which is what conversions pass.
 */
export interface LossSink {
  push(note: LossyNote): unknown;
}

export interface DetectResult {
  /** 0 = not this format; 1 = certain. A document can fit several formats (yoagent < 0.13 and phi-core). */
  confidence: number;
  /** e.g. "<0.13" or ">=0.13" for yoagent, "v3"/"v4" for amacs */
  version?: string;
  /** the value detect parsed the whole text into, where it had to: `parse` is handed it instead of parsing again */
  parsed?: unknown;
}

/** A part of a checkpoint ckpt could not read (see `FormatAdapter.unreadable`). */
export interface UnreadablePart {
  /** where the part is in the source (a JSON pointer into its native document) */
  pointer: string;
  /** the part named for a reader: "channel 'files'", "pending write 2 (task …, channel 'messages')" */
  part: string;
  /** why it cannot be read */
  message: string;
  /** what kind of inability: ckpt's own (a reducer or serialization it does not know) or the stored value's damage */
  cause: "ckpt" | "store";
}

export interface FormatAdapter<Native = unknown> {
  name: FormatName;
  /** one-line description for `ckpt formats` / help */
  title: string;
  /** file extensions this format is commonly stored with (for help and output naming) */
  extensions: string[];
  /** Fields of the canonical model this format cannot represent (documentation; conversions report concrete instances). */
  lossy: string[];
  /**
   * Name of the native root schema in `validators` (e.g. "formats/yoagent/messages") that `parse()`'s output must
   * satisfy — it accepts exactly what the system's own loader accepts. (For amacs, the parsed org structure.)
   */
  schema: string;
  /**
   * For a format whose versions have different schemas (ai-sdk: one per AI SDK major): the schema of this parsed
   * value, i.e. of the version it was read as. Without it, `schema`.
   */
  schemaOf?(native: Native): string;
  /** For such a format: the version a parsed value was read as (reported by validate and convert). */
  versionOf?(native: Native): string;
  detect(doc: SourceDoc): DetectResult;
  /**
   * Optional, for speed: what `detect` needs of a text before it can claim it, so that detection does not ask it about
   * other texts — the first character that is not white space (`\s`, a BOM included), and strings one of which the
   * text must contain somewhere. A document without a text (a folder's files) is asked only when `first` is unset.
   * Must hold for every text `detect` claims (test/detect-candidates.test.ts compares with asking every adapter).
   */
  detectNeeds?: { first: "{" | "[" | readonly ("{" | "[")[]; anyOf?: readonly string[] };
  /** Text → native value (JSON parse, JSONL split, org parse). Throws CkptError(exit 3) with line:column on malformed input. */
  parse(doc: SourceDoc, parsed?: unknown): Native;
  toCanonical(native: Native, doc: SourceDoc): Checkpoint;
  /** Canonical → native. `lossy` receives everything that could not be carried. */
  fromCanonical(cp: Checkpoint, options: { version?: string; lossy: LossSink }): Native;
  /**
   * `fromCanonical` writes its loss notes in JSON pointer order (base/pointer.ts comparePointers, ties in any order):
   * a conversion then keeps them as they are instead of sorting them (test/convert.test.ts checks it on every fixture).
   */
  lossInPointerOrder?: true;
  /**
   * The parts of a checkpoint this adapter read that ckpt could not rebuild while it read the rest (a LangGraph channel
   * whose reducer ckpt does not know, a value that did not decode): shown as unreadable, reported as lost when
   * converted. Absent or [] when the checkpoint was read whole.
   */
  unreadable?(cp: Checkpoint): UnreadablePart[];
  /**
   * Loader-accepted-but-wrong findings specific to this format (severity "warning"), or loader rejections the
   * schema cannot express (severity "error"). Pointers into the native value; file = doc.name (or member file).
   */
  lint?(native: Native, doc: SourceDoc): Issue[];
  /**
   * Optional, for speed: what the generic canonical lints (core/lint.ts `canonicalLint`) read of
   * `toCanonical(native, doc)` — thread id, interrupt, and per message role, timestamp, assistant content, tool
   * result id, assistant usage — without building the whole checkpoint. Must agree with `toCanonical` on those
   * fields (test/validate-engine.test.ts compares the two on every fixture). Without it, `toCanonical` is used.
   */
  lintView?(native: Native, doc: SourceDoc): LintView;
  /** Pointer into the native value of each canonical message, in `toCanonical(native).messages` order. */
  messagePointers(native: Native): string[];
  /**
   * Where the native value is in its JSON text, when it is not the whole of it (a message list saved inside an
   * object: `/messages`): the pointers of issues into the native value are prefixed with it. Absent: "".
   */
  pointerPrefix?(native: Native): string;
  /** Non-JSON formats (org, JSONL): where a pointer into the parsed value is in the source text. JSON formats omit it. */
  locate?(native: Native, pointer: string, doc: SourceDoc): { file: string; line: number; column: number } | undefined;
  /**
   * What integers the system's loader holds exactly. Absent: any (Python ints, text formats, ckpt). `"js"`: only
   * ±(2^53−1) (JSON.parse rounds beyond); `"64-bit"`: i64/u64 (serde refuses beyond). Conversions report a value
   * outside the range as lossy.
   */
  integers?: "js" | "64-bit";
  /**
   * Values this format's writer puts where the checkpoint it writes has none, because its loader requires them
   * (a model "unknown", zero token counts, a time derived from the messages, an empty state). Read back they look
   * like content but say nothing: a cross-format diff treats them as absent.
   */
  fillIns?: FillIns;
  /**
   * For a format with versions: pointer globs (as `ckpt diff --ignore` takes them) of the `ext` values that only
   * record how one version spelled the document — what the writer of that same version needs to give it back byte
   * for byte (AI SDK 4's original message, the key order of v5+ messages and parts). Across versions they necessarily
   * differ and say nothing of what the user sees: a diff of two versions leaves them out (`--verbose` keeps them).
   */
  versionBookkeeping?: readonly string[];
  /** Native → file text(s), exactly as the system writes them. */
  serialize(native: Native, options?: { version?: string }): SerializedDoc;
}

/**
 * Conversion defaults of a format (see `FormatAdapter.fillIns`). `source` is the checkpoint such a value would have
 * been written from — in a diff, the other side. Each is asked only about a value the other side does not have.
 */
export interface FillIns {
  /** a checkpoint-level value at `pointer` ("/createdAt", "/state/todos") */
  checkpoint?(pointer: string, value: unknown, source: Checkpoint): boolean;
  /** a message's own field at `path` ("model", "usage", "usage/cacheRead", "stopReason", "timestamp") */
  message?(path: string, value: unknown, message: AgentMessage, source: Checkpoint): boolean;
}

/** A single text, or several files (amacs folder: "agent-chat.org", "scratchpad.org"). */
export type SerializedDoc = { text: string } | { files: Record<string, string> };
