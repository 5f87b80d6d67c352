/**
 * Format conversion through the canonical model: native A → canonical → native B, with an exact report of
 * what B cannot carry. Pure (no I/O): callers read the source and write the result.
 *
 * Guarantees:
 * - the source must be a document its own system would load (native schema + loader rules), else exit 3;
 * - the canonical checkpoint in the middle passes the `Checkpoint` schema (checked for every adapter on every
 *   fixture by the conformance tests, not again on each run: the written document's check below covers the user);
 * - the written document passes the target's native schema (a failure here is a bug in ckpt, exit 70);
 * - everything the target drops is listed per message and field (`LossyNote`): the adapter's own notes plus
 *   every format-specific `ext` entry of another format (except `_layout`, which is presentation only).
 *   Converting to `ckpt` is never lossy: the canonical model keeps every `ext`.
 */
import type { Checkpoint } from "../generated/types.js";
import { CkptError, ExitCode } from "../base/errors.js";
import { containsBigInt, hasLongDigitRun } from "../base/json.js";
import { comparePointers } from "../base/pointer.js";
import { schemaIssues } from "../schema/validate.js";
import { loadDocument } from "./document.js";
import { getAdapter, schemaFor, unreadableParts } from "../formats/index.js";
import { LossLog, messageIndexOf } from "../formats/loss.js";
import type { FormatAdapter, FormatName, LossyNote, SerializedDoc, SourceDoc } from "../formats/types.js";

export { comparePointers, messageIndexOf, LossLog };

export interface ConvertOptions {
  /** source format; detected when omitted */
  from?: string;
  /** target format */
  to: string;
  /** target format version (e.g. yoagent "<0.13" for the snake_case spelling) */
  version?: string;
}

export interface ConvertResult {
  from: FormatName;
  /** the source version detection saw, if the format has versions */
  fromVersion?: string;
  to: FormatName;
  /** the version written, if the target format has versions (an AI SDK major: named, else the source's, else 7) */
  toVersion?: string;
  checkpoint: Checkpoint;
  native: unknown;
  output: SerializedDoc;
  /** everything the target cannot carry, in canonical pointer order (built from `lossLog` when first read) */
  lossy: LossyNote[];
  /** the same notes, compact: their count and each note's parts without building 60,000 objects */
  lossLog: LossLog;
}

/** Other formats' ext entries a target consumes too (a session file carries its message format's ext). */
const CONSUMES: Partial<Record<FormatName, FormatName[]>> = {
  "yoagent-session": ["yoagent-session", "yoagent"],
  "phi-core-session": ["phi-core-session", "phi-core"],
};

/** What well-known ext entries hold, for readable loss reports. */
const EXT_MEANING: Record<string, string> = {
  unknown: "keys the source system ignores but the file contains",
  role: "the native role of an extension message",
  usageUnknown: "unknown keys of the usage record",
  turnId: "phi-core turn id: loopId and turnIndex",
  nodeId: "phi-core node id",
  parentId: "phi-core parent node id",
  tags: "phi-core node tags (lessons, findings, …)",
  provenanceHint: "phi-core block provenance",
  entry: "yoagent session entry id, parent, entry timestamp and label",
  branches: "entries on other branches of the yoagent session tree",
  order: "file order of the yoagent session entries",
  session: "the phi-core session's loops, turns, events and usage",
  loopMessageCounts: "how the messages split into phi-core loops",
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every `ext[<format>]` entry the target does not consume, as loss notes. */
export function foreignExtLoss(cp: Checkpoint, to: FormatName): LossyNote[] {
  if (to === "ckpt") return [];
  const own = new Set<string>(CONSUMES[to] ?? [to]);
  const out: LossyNote[] = [];
  // the place of an ext is built as a pointer only when it holds something foreign (mostly it holds nothing)
  const visit = (ext: unknown, i: number, j: number) => {
    if (!isObj(ext)) return;
    for (const fmt in ext) {
      if (!Object.hasOwn(ext, fmt) || own.has(fmt)) continue;
      const v = ext[fmt];
      const base = i < 0 ? "" : j < 0 ? `/messages/${i}` : `/messages/${i}/content/${j}`;
      if (!isObj(v)) {
        out.push({
          pointer: `${base}/ext/${esc(fmt)}`,
          field: `ext.${fmt}`,
          reason: `${to} has no place for this ${fmt} detail`,
        });
        continue;
      }
      for (const k of Object.keys(v)) {
        if (k === "_layout") continue;
        const what = EXT_MEANING[k] ? ` (${EXT_MEANING[k]})` : "";
        out.push({
          pointer: `${base}/ext/${esc(fmt)}/${esc(k)}`,
          field: `ext.${fmt}.${k}`,
          reason: `${to} has no place for ${fmt}'s '${k}'${what}`,
        });
      }
    }
  };
  visit(cp.ext, -1, -1);
  const messages = cp.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { ext?: unknown; content?: unknown } | undefined;
    visit(m?.ext, i, -1);
    const content = m?.content;
    if (Array.isArray(content))
      for (let j = 0; j < content.length; j++)
        visit(isObj(content[j]) ? (content[j] as { ext?: unknown }).ext : undefined, i, j);
  }
  return out;
}

/** The first error the target's own loader would find in a native value ckpt wrote, if any. */
function outputProblem(
  adapter: FormatAdapter,
  native: unknown,
  mayHoldBigInt: boolean,
): { pointer: string; message: string } | undefined {
  const bad = schemaIssues(schemaFor(adapter, native), native, adapter.name, undefined, mayHoldBigInt)[0];
  return bad && { pointer: bad.pointer, message: bad.message };
}

const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;

/**
 * Integers beyond 2^53 (bigints) the target's loader cannot hold exactly, unless a note already covers the
 * place: deep-agent reads with JSON.parse (rounds), the Rust systems with serde's 64-bit integers (refuse).
 */
export function integerLoss(
  cp: Checkpoint,
  target: FormatAdapter,
  reported: ReadonlyArray<LossyNote>,
  mayHoldBigInt = true,
): LossyNote[] {
  if (!target.integers || !mayHoldBigInt) return [];
  const out: LossyNote[] = [];
  const covered = (p: string) => reported.some((n) => p === n.pointer || p.startsWith(n.pointer + "/"));
  const visit = (v: unknown, ptr: string) => {
    if (typeof v === "bigint") {
      if (covered(ptr)) return;
      if (target.integers === "js") {
        out.push({
          pointer: ptr,
          field: ptr.split("/").pop() ?? "",
          reason: `${target.name} reads its files with JSON.parse, which turns ${v} into ${Number(v)} (ckpt writes the exact digits)`,
        });
      } else if (v < I64_MIN || v > U64_MAX) {
        out.push({
          pointer: ptr,
          field: ptr.split("/").pop() ?? "",
          reason: `${target.name} stores 64-bit integers: ${v} does not fit (its loader refuses the file)`,
        });
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${ptr}/${i}`));
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) visit(x, `${ptr}/${esc(k)}`);
  };
  if (containsBigInt(cp)) visit(cp, "");
  return out;
}

/**
 * Canonical → a target format: native value, its text, and the loss report. `mayHoldBigInt: false` (the caller
 * knows the source had no integer beyond 2^53) spares the walks that look for one.
 */
export function convertCheckpoint(
  cp: Checkpoint,
  to: string,
  options: { version?: string; mayHoldBigInt?: boolean } = {},
): {
  to: FormatName;
  toVersion?: string;
  native: unknown;
  output: SerializedDoc;
  lossy: LossyNote[];
  lossLog: LossLog;
} {
  const mayHoldBigInt = options.mayHoldBigInt ?? true;
  const target = getAdapter(to);
  const log = new LossLog();
  const native = target.fromCanonical(cp, { version: options.version, lossy: log });
  // a part of the source ckpt could not read is not in the checkpoint: lost whatever the target
  const foreign = [
    ...foreignExtLoss(cp, target.name),
    ...unreadableParts(cp).map((p, i) => ({
      pointer: `/ext/${esc(String(cp.origin?.format))}/unreadable/${i}`,
      field: p.part,
      reason: `${p.part} of the source could not be read (${p.cause === "ckpt" ? "ckpt cannot rebuild it" : "the stored data it needs is damaged or missing"}): ${p.message}`,
    })),
  ];
  // an adapter that writes its notes in pointer order (deepagent: 60,000 of them for a long yoagent history) spares
  // the sort and the note objects, unless notes are to be added after its own
  const lossLog =
    target.lossInPointerOrder === true && !foreign.length && !(target.integers && mayHoldBigInt)
      ? log
      : LossLog.of(completed(log, foreign, cp, target, mayHoldBigInt));
  const bad = outputProblem(target, native, mayHoldBigInt);
  if (bad) {
    throw new CkptError(
      ExitCode.BUG,
      "invalid-output",
      `ckpt wrote a ${target.name} document that ${target.name} would reject at '${bad.pointer}': ${bad.message}`,
    );
  }
  const toVersion = target.versionOf?.(native);
  return withLossy(
    {
      to: target.name,
      ...(toVersion !== undefined ? { toVersion } : {}),
      native,
      output: target.serialize(native, { version: options.version }),
    },
    lossLog,
  );
}

/** The adapter's notes, other formats' ext entries it did not note itself, and lost integers, in pointer order. */
function completed(
  log: LossLog,
  foreign: LossyNote[],
  cp: Checkpoint,
  target: FormatAdapter,
  mayHoldBigInt: boolean,
): LossyNote[] {
  const lossy = [...log.notes()];
  const adapterNotes = lossy.length;
  if (foreign.length) {
    // a set of the adapter's pointers only when there is something to check against it (60,000 notes hash slowly)
    const reported = new Set(lossy.map((n) => n.pointer));
    for (const n of foreign) if (!reported.has(n.pointer)) lossy.push(n);
  }
  for (const n of integerLoss(cp, target, lossy, mayHoldBigInt)) lossy.push(n);
  return target.lossInPointerOrder === true && lossy.length === adapterNotes ? lossy : sortNotes(lossy);
}

/**
 * `r` with the notes of `log`: as `lossLog`, and as the array `lossy`, built when first read (a plain property from
 * then on, or once assigned).
 */
function withLossy<T extends object>(r: T, log: LossLog): T & { lossy: LossyNote[]; lossLog: LossLog } {
  const own = (o: object, lossy: LossyNote[]) =>
    Object.defineProperty(o, "lossy", { value: lossy, writable: true, enumerable: true, configurable: true });
  return Object.defineProperties(r, {
    lossy: {
      get(this: object) {
        const lossy = log.notes();
        own(this, lossy);
        return lossy;
      },
      set(this: object, v: LossyNote[]) {
        own(this, v);
      },
      enumerable: true,
      configurable: true,
    },
    lossLog: { value: log, writable: true, enumerable: true, configurable: true },
  }) as T & { lossy: LossyNote[]; lossLog: LossLog };
}

/**
 * Pointer order, numerically for array indices (so /messages/10 comes after /messages/9); stable. A note names a
 * message or a place inside one almost always, and the adapters write them message by message: the notes of one
 * message are sorted on their own (a few each, by insertion), so a 60,000-note report costs a linear pass rather
 * than a million pointer comparisons. Notes out of message order (other formats' ext entries, appended after the
 * adapter's) are first grouped by message index, stably.
 */
export function sortNotes(notes: LossyNote[]): LossyNote[] {
  const other: LossyNote[] = [];
  let inMessages: LossyNote[] = [];
  let at: number[] = [];
  let ordered = true;
  for (const n of notes) {
    const i = messageIndexOf(n.pointer);
    if (i < 0) {
      other.push(n);
      continue;
    }
    if (ordered && at.length > 0 && i < at[at.length - 1]!) ordered = false;
    inMessages.push(n);
    at.push(i);
  }
  if (!ordered) {
    const order = at.map((_i, k) => k).sort((x, y) => at[x]! - at[y]!); // stable: equal indices keep their order
    inMessages = order.map((k) => inMessages[k]!);
    at = order.map((k) => at[k]!);
  }
  for (let s = 0; s < inMessages.length; ) {
    let e = s + 1;
    while (e < inMessages.length && at[e] === at[s]) e++;
    if (e - s > 1) sortRun(inMessages, s, e);
    s = e;
  }
  other.sort((a, b) => comparePointers(a.pointer, b.pointer));
  const out: LossyNote[] = [];
  let k = 0;
  while (k < other.length && comparePointers(other[k]!.pointer, "/messages/0") < 0) out.push(other[k++]!);
  for (const n of inMessages) out.push(n);
  while (k < other.length) out.push(other[k++]!);
  return out;
}

/**
 * Insertion sort (stable) of the notes `xs[from..to)`, which all name one message: their pointers share
 * "/messages/N", so where neither has an index after that the strings compare as they are (native, no scan); an
 * index (/content/10 vs /content/9) needs comparePointers.
 */
function sortRun(xs: LossyNote[], from: number, to: number): void {
  const indexed: boolean[] = [];
  for (let i = from; i < to; i++) indexed.push(hasIndexAfterMessage(xs[i]!.pointer));
  for (let j = from + 1; j < to; j++) {
    const x = xs[j]!;
    const fx = indexed[j - from]!;
    let i = j - 1;
    for (; i >= from; i--) {
      const y = xs[i]!.pointer;
      const c = fx || indexed[i - from] ? comparePointers(y, x.pointer) : y < x.pointer ? -1 : y > x.pointer ? 1 : 0;
      if (c <= 0) break;
      xs[i + 1] = xs[i]!;
      indexed[i + 1 - from] = indexed[i - from]!;
    }
    xs[i + 1] = x;
    indexed[i + 1 - from] = fx;
  }
}

const INDEX_SEGMENT = /\/\d/g;

/** Does the pointer (which starts with /messages/N) have an all-digit-led segment after /messages/N? */
function hasIndexAfterMessage(p: string): boolean {
  const from = p.indexOf("/", 10);
  if (from < 0) return false;
  INDEX_SEGMENT.lastIndex = from;
  return INDEX_SEGMENT.test(p);
}

/** Native document → canonical → target format. */
export function convertDocument(doc: SourceDoc, options: ConvertOptions): ConvertResult {
  const { adapter, native: src, version } = loadDocument(doc, options.from);
  const checkpoint = adapter.toCanonical(src, doc);
  // a bigint can only come from a run of 16+ digits in the source text (a bundle of files: assume it may)
  const mayHoldBigInt = doc.text === undefined || hasLongDigitRun(doc.text);
  // The canonical checkpoint in the middle is not validated again here: the source passed its own schema and loader
  // rules, every adapter's canonical output is checked against the Checkpoint schema on every fixture
  // (formats-conformance), and what the user gets — the written document — is checked against the target's schema
  // below (for a ckpt target that is the Checkpoint schema itself). A third full validation only cost time.
  const r = convertCheckpoint(checkpoint, options.to, { version: options.version, mayHoldBigInt });
  return withLossy(
    {
      from: adapter.name,
      fromVersion: version,
      to: r.to,
      ...(r.toVersion !== undefined ? { toVersion: r.toVersion } : {}),
      checkpoint,
      native: r.native,
      output: r.output,
    },
    r.lossLog,
  );
}
