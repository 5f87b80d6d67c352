/**
 * The per-record check of a migration, pure and self-contained so that it can run in a worker thread: is the text
 * JSON, of a known format, valid against that format's schema; converted to another format when asked.
 */
import { hexDigest } from "../base/digest.js";
import { CkptError } from "../base/errors.js";
import { nestingBeyond, nestingReason, parseJson, stringifyJson } from "../base/json.js";
import { plural } from "../base/plural.js";
import { FORMAT_NAMES, type FormatName } from "../formats/index.js";
import { convertCheckpoint } from "./convert.js";
import { loadDocument, type ParsedDocument } from "./document.js";

export interface CheckOptions {
  /** convert every document to this format */
  toFormat?: FormatName;
  /** the version of it to write (ai-sdk: the AI SDK major) */
  toFormatVersion?: string;
  allowLossy?: boolean;
}

/** A document that passed: the text to store (the input, or its conversion) and its parsed value. */
export type CheckResult = { ok: true; text: string; value: unknown } | { ok: false; reason: string };

/**
 * Check one document through the one document pipeline (core/document.ts: detect → parse → the native schema).
 * `name` is how messages refer to it, e.g. `file:./checkpoints#thread-1`; a reason names it with the place.
 * `threadId` is the thread the store holds it under: a conversion gives it to formats that carry no thread id.
 */
export function checkRecord(name: string, text: string, opts: CheckOptions, threadId?: string): CheckResult {
  // nesting no checkpoint has is the record's problem, named where: never a stack overflow that stops the run
  const deep = nestingBeyond(text);
  if (deep !== undefined) return { ok: false, reason: `${name}: ${nestingReason(deep)}` };
  const doc = threadId === undefined ? { name, text } : { name, text, threadId };
  let p: ParsedDocument;
  try {
    p = loadDocument(doc, undefined, { schemaOnly: true });
  } catch (e) {
    if (!(e instanceof CkptError)) throw e;
    if (e.reason === "unknown-format")
      return {
        ok: false,
        reason: `${name}: not a checkpoint of any supported format (expected one of ${FORMAT_NAMES.join(", ")})`,
      };
    return { ok: false, reason: e.format() };
  }
  // a file bundle (an amacs home, a yoagent JSONL session) is stored as its JSON envelope; other formats as the JSON value
  let value: unknown;
  if (p.doc.bundle) value = parseJson(text, { file: name });
  else if (p.adapter.name === "yoagent-session" || p.adapter.name === "amacs")
    return {
      ok: false,
      reason: `${name}: a ${p.adapter.name} document is not one JSON value; a store holds it as a file bundle`,
    };
  else value = p.native;
  const sameVersion = opts.toFormatVersion === undefined || opts.toFormatVersion === p.version;
  if (!opts.toFormat || (opts.toFormat === p.adapter.name && sameVersion)) return { ok: true, text, value };
  try {
    const cp = p.adapter.toCanonical(p.native, p.doc);
    const r = convertCheckpoint(cp, opts.toFormat, { version: opts.toFormatVersion });
    if (!("text" in r.output))
      return { ok: false, reason: `${name}: ${opts.toFormat} is a multi-file format and cannot be stored in a saver` };
    const lossy = r.lossLog;
    if (lossy.length && !opts.allowLossy) {
      const list =
        Array.from({ length: Math.min(3, lossy.length) }, (_, k) => lossy.pointerOf(k)).join(", ") +
        (lossy.length > 3 ? ", …" : "");
      return {
        ok: false,
        reason: `${name}: converting ${p.adapter.name} → ${opts.toFormat}${opts.toFormatVersion ? `@${opts.toFormatVersion}` : ""} would drop ${plural(lossy.length, "field")}: ${list} (use --allow-lossy)`,
      };
    }
    return { ok: true, text: r.output.text, value: parseJson(r.output.text, { file: name }) };
  } catch (e) {
    return { ok: false, reason: e instanceof CkptError ? e.format() : String(e) };
  }
}

export const sha256 = (s: string) => hexDigest("sha256", s);

/**
 * What a worker sends back for one record: a failure, or the checked text (only when conversion changed it), its
 * compact JSON and the hash of the checked text (sha256 of its UTF-8: what the journal records) — the parsed value
 * itself stays in the worker.
 */
export type WireResult = { ok: false; reason: string } | { ok: true; text?: string; compact?: string; hash?: string };

/** What the caller will need besides the verdict (a serialization, a hash per record). */
export interface WireWants {
  /** the compact JSON (a store that keeps compact text) */
  compact: boolean;
  /**
   * the sha256 of the checked text as it is (a journal records it): of the bytes read, or of the conversion — not of
   * a second serialization of the parsed value
   */
  hash: boolean;
}

export function checkForWire(
  name: string,
  text: string,
  opts: CheckOptions,
  wants: WireWants,
  threadId?: string,
): WireResult {
  const r = checkRecord(name, text, opts, threadId);
  if (!r.ok) return r;
  const out: WireResult = { ok: true };
  if (r.text !== text) out.text = r.text;
  if (wants.compact) out.compact = stringifyJson(r.value);
  if (wants.hash) out.hash = sha256(r.text);
  return out;
}

/** Checks batches off the calling thread (the CLI opens one on worker threads: cli/check-pool.ts) and passes it in. */
export interface CheckPool {
  /** whether the worker has loaded its modules (it takes ~0.1 s to start; until then, check on the calling thread) */
  readonly ready: boolean;
  /** resolves once the worker is ready (rejects if it failed to start) */
  whenReady(): Promise<void>;
  /** `threadIds[i]`: the thread record i is held under (see checkRecord) */
  check(
    names: string[],
    texts: string[],
    opts: CheckOptions,
    wants: WireWants,
    threadIds?: string[],
  ): Promise<WireResult[]>;
  close(): Promise<void>;
}
