/**
 * The per-record check of a migration, pure and self-contained so that it can run in a worker thread: is the text
 * JSON, of a known format, valid against that format's schema; converted to another format when asked.
 */
import { createHash } from "node:crypto";
import { CkptError } from "../base/errors.js";
import { parseJson, toPlainNumbers, containsBigInt, stringifyJson, MAYBE_BIG } from "../base/json.js";
import { detectAll, getAdapter, type FormatName } from "../formats/index.js";
import type { LossyNote, SourceDoc } from "../formats/types.js";
import { unbundle } from "../formats/bundle.js";
import { validators } from "../generated/validators.js";

export interface CheckOptions {
  /** convert every document to this format */
  toFormat?: FormatName;
  allowLossy?: boolean;
}

/** A document that passed: the text to store (the input, or its conversion) and its parsed value. */
export type CheckResult = { ok: true; text: string; value: unknown } | { ok: false; reason: string };

type Validator = ((v: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

/** Check one document (`name` is how messages refer to it, e.g. `default#thread-1`). */
export function checkRecord(name: string, text: string, opts: CheckOptions): CheckResult {
  // JSON.parse unless the text may hold an integer beyond 2^53 (or a BOM); parseJson words the syntax errors.
  const maybeBig = MAYBE_BIG.test(text);
  let value: unknown;
  try {
    value = maybeBig || text.charCodeAt(0) === 0xfeff ? parseJson(text, { file: name }) : JSON.parse(text);
  } catch {
    try {
      parseJson(text, { file: name }); // throws again, with line:column and what was expected
    } catch (e) {
      return { ok: false, reason: e instanceof CkptError ? e.format() : String(e) };
    }
    return { ok: false, reason: "not a JSON document" };
  }
  if (value !== null && typeof value === "object" && (value as { ckptFiles?: unknown }).ckptFiles !== undefined) return checkBundle(name, text, value, opts);
  const doc = { name, text };
  const found = detectAll(doc)[0];
  if (!found) return { ok: false, reason: "not a checkpoint of any supported format" };
  const adapter = getAdapter(found.format);
  const validate = (validators as Record<string, Validator>)[adapter.schema];
  const big = maybeBig && containsBigInt(value);
  if (validate && !validate(big ? toPlainNumbers(value) : value)) {
    const e = validate.errors?.[0];
    return { ok: false, reason: `invalid ${found.format} document: ${e?.instancePath || "/"} ${e?.message ?? ""}`.trim() };
  }
  if (!opts.toFormat || opts.toFormat === found.format) return { ok: true, text, value };
  try {
    const cp = adapter.toCanonical(adapter.parse(doc), doc);
    const to = getAdapter(opts.toFormat);
    const lossy: LossyNote[] = [];
    const ser = to.serialize(to.fromCanonical(cp, { lossy }));
    if (!("text" in ser)) return { ok: false, reason: `${opts.toFormat} is a multi-file format and cannot be stored in a saver` };
    if (lossy.length && !opts.allowLossy) {
      return {
        ok: false,
        reason: `converting ${found.format} → ${opts.toFormat} would drop ${lossy.length} field(s): ${lossy.slice(0, 3).map((n) => n.pointer).join(", ")}${lossy.length > 3 ? ", …" : ""} (use --allow-lossy)`,
      };
    }
    return { ok: true, text: ser.text, value: parseJson(ser.text, { file: name }) };
  } catch (e) {
    return { ok: false, reason: e instanceof CkptError ? e.message : String(e) };
  }
}

/** A file bundle (an amacs home, a yoagent JSONL session): the files it holds, parsed and validated as their format. */
function checkBundle(name: string, text: string, value: unknown, opts: CheckOptions): CheckResult {
  let doc: SourceDoc;
  let format: FormatName;
  let native: unknown;
  try {
    const inner = unbundle({ name, text });
    doc = inner;
    format = inner.bundle!.format;
    native = getAdapter(format).parse(doc);
  } catch (e) {
    return { ok: false, reason: e instanceof CkptError ? e.format() : String(e) };
  }
  const adapter = getAdapter(format);
  const validate = (validators as Record<string, Validator>)[adapter.schema];
  if (validate && !validate(containsBigInt(native) ? toPlainNumbers(native) : native)) {
    const e = validate.errors?.[0];
    return { ok: false, reason: `${doc.name}: invalid ${format} document: ${e?.instancePath || "/"} ${e?.message ?? ""}`.trim() };
  }
  if (!opts.toFormat || opts.toFormat === format) return { ok: true, text, value };
  try {
    const cp = adapter.toCanonical(native, doc);
    const to = getAdapter(opts.toFormat);
    const lossy: LossyNote[] = [];
    const ser = to.serialize(to.fromCanonical(cp, { lossy }));
    if (!("text" in ser)) return { ok: false, reason: `${opts.toFormat} is a multi-file format and cannot be stored in a saver` };
    if (lossy.length && !opts.allowLossy) return { ok: false, reason: `converting ${format} → ${opts.toFormat} would drop ${lossy.length} field(s): ${lossy.slice(0, 3).map((n) => n.pointer).join(", ")}${lossy.length > 3 ? ", …" : ""} (use --allow-lossy)` };
    return { ok: true, text: ser.text, value: parseJson(ser.text, { file: name }) };
  } catch (e) {
    return { ok: false, reason: e instanceof CkptError ? e.message : String(e) };
  }
}

export const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * What a worker sends back for one record: a failure, or the checked text (only when conversion changed it), its
 * compact JSON and content hash (sha256 of the compact text) — the parsed value itself stays in the worker.
 */
export type WireResult = { ok: false; reason: string } | { ok: true; text?: string; compact?: string; hash?: string };

/** What the caller will need besides the verdict (each costs a serialization or a hash per record). */
export interface WireWants {
  /** the compact JSON (a store that keeps compact text) */
  compact: boolean;
  /** the content hash (a journal records it) */
  hash: boolean;
}

export function checkForWire(name: string, text: string, opts: CheckOptions, wants: WireWants): WireResult {
  const r = checkRecord(name, text, opts);
  if (!r.ok) return r;
  const out: WireResult = { ok: true };
  if (r.text !== text) out.text = r.text;
  if (wants.compact || wants.hash) {
    const compact = stringifyJson(r.value);
    if (wants.compact) out.compact = compact;
    if (wants.hash) out.hash = sha256(compact);
  }
  return out;
}

/** Checks batches off the calling thread (the CLI opens one on worker threads: cli/check-pool.ts) and passes it in. */
export interface CheckPool {
  /** whether the worker has loaded its modules (it takes ~0.1 s to start; until then, check on the calling thread) */
  readonly ready: boolean;
  /** resolves once the worker is ready (rejects if it failed to start) */
  whenReady(): Promise<void>;
  check(names: string[], texts: string[], opts: CheckOptions, wants: WireWants): Promise<WireResult[]>;
  close(): Promise<void>;
}
