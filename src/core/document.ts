/**
 * The validation pipeline for one document: detect → parse → native schema → adapter lints → generic lints
 * (canonical lints only when the schema passed). Pure: the caller reads the document and prints the result.
 */
import { CkptError, inputError } from "../base/errors.js";
import { jsonLocator, parsingOnce, type Locator } from "../base/json.js";
import { canonicalLint, mayHoldBigInt, mayNeedNativeLint, nativeLint } from "../schema/lint.js";
import { adapters, detectParsed, schemaFor, splitFormat, syntaxCheck, type Detection } from "../formats/index.js";
import { unbundle, type Bundle } from "../formats/bundle.js";
import type { FormatAdapter, FormatName, Issue, SourceDoc } from "../formats/types.js";
import { schemaIssues, type Locate } from "../schema/validate.js";

/** Another format the document fits as well as the chosen one, with what validating as that format found. */
export interface Alternative {
  format: FormatName;
  version?: string;
  errors: number;
  warnings: number;
}

/**
 * The outcome for one input. `fatal` is set when it could not be read, parsed or recognised (exit 3), or when
 * the store holding it failed (connection, I/O: `fatalExit` 4).
 */
export interface FileResult {
  file: string;
  format?: FormatName;
  formatVersion?: string;
  alternatives: Alternative[];
  valid: boolean;
  issues: Issue[];
  fatal?: { reason: string; message: string; line?: number; column?: number; pointer?: string };
  /** the exit code of the failure behind `fatal` when it is not an input error (4: the store failed) */
  fatalExit?: number;
  /** the document's thread id (canonical), when the schema passed */
  threadId?: string;
  /** what the result is about, for a summary that counts what the user named: a store's thread, a whole store (file
   * when absent: a document, a file of a folder) */
  unit?: "thread" | "store";
}

export interface ValidateOptions {
  /** force this format instead of detecting */
  format?: string;
}

/** A document read by the pipeline's first two steps: its format (named or detected) and native value. */
export interface ParsedDocument {
  adapter: FormatAdapter;
  native: unknown;
  /** the format version detection saw, if the format has versions */
  version?: string;
  /** other formats that claim the document as confidently as the chosen one */
  alternatives: Detection[];
  /** the document the adapter read: the one given, or the files a store's file bundle holds (formats/bundle.ts) */
  doc: SourceDoc & { bundle?: Bundle };
}

/**
 * detect (or take the named format) → parse. Throws CkptError: an unknown format name (exit 2), a document no format
 * claims (exit 3; its JSON syntax error when it is not even well-formed), a malformed document (exit 3).
 */
export function parseDocument(given: SourceDoc, format?: string): ParsedDocument {
  const doc = unbundle(given); // a file bundle from a store: the amacs home or JSONL file it holds
  // the detectors that look inside a JSON document and then its adapter's parse share one parse of the text
  return parsingOnce(doc.text, () => detectAndParse(doc, format));
}

function detectAndParse(unbundled: SourceDoc & { bundle?: Bundle }, format?: string): ParsedDocument {
  let doc = unbundled;
  if (format) {
    const named = splitFormat(format); // `ai-sdk@5`: read as that version
    if (named.version !== undefined) doc = { ...doc, formatVersion: named.version };
    const adapter = adapters[named.name];
    const native = adapter.parse(doc);
    const version = adapter.versionOf ? adapter.versionOf(native) : adapter.detect(doc).version;
    return {
      adapter,
      native,
      ...(version !== undefined ? { version } : {}),
      alternatives: [],
      doc,
    };
  }
  const { all, parsed } = detectParsed(doc);
  if (all.length === 0) {
    // no format claims it: when it is not even well-formed JSON, that is the clearer message
    if (doc.text !== undefined) syntaxCheck(doc);
    throw inputError(
      "unknown-format",
      `cannot tell the format: expected one of ${Object.keys(adapters).join(", ")} (name it with --format)`,
      { file: doc.name },
    );
  }
  const chosen = all[0]!;
  const adapter = adapters[chosen.format];
  const native = adapter.parse(doc, parsed);
  const version = adapter.versionOf ? adapter.versionOf(native) : chosen.version;
  return {
    adapter,
    native,
    ...(version !== undefined ? { version } : {}),
    alternatives: all.slice(1).filter((d) => d.confidence >= chosen.confidence),
    doc,
  };
}

/**
 * The loader's verdict on a parsed document: the native schema's errors (positioned, unknown tags explained), then —
 * unless `schemaOnly` — the loader rejections the adapter finds beyond the schema. Empty when the system loads it.
 */
export function loaderErrors(p: ParsedDocument, opts: { schemaOnly?: boolean } = {}): Issue[] {
  const { adapter, native, doc } = p;
  // only the bigint part of mayNeedNativeLint: the prototype-key scans serve the lints, which run elsewhere
  const errors = schemaIssues(
    schemaFor(adapter, native),
    native,
    doc.name,
    locatorFor(adapter, native, doc),
    mayHoldBigInt(native, doc.text),
  );
  if (errors.length || opts.schemaOnly) return errors;
  return (adapter.lint?.(native, doc) ?? []).filter((i) => i.severity === "error");
}

/**
 * The whole pipeline for a document to be used (convert, replay, a migration's record check): parse, then refuse
 * (exit 3) what the system's own loader would refuse, naming the first problem and where it is.
 */
export function loadDocument(doc: SourceDoc, format?: string, opts: { schemaOnly?: boolean } = {}): ParsedDocument {
  const p = parseDocument(doc, format);
  const bad = loaderErrors(p, opts)[0];
  if (bad) {
    const place = {
      file: bad.file,
      pointer: bad.pointer,
      ...(bad.line !== undefined ? { line: bad.line, column: bad.column } : {}),
    };
    throw inputError(
      "invalid-source",
      `not a valid ${p.adapter.name} document: ${bad.message} (ckpt validate lists every issue)`,
      place,
    );
  }
  return p;
}

/** Validate one document. Expected failures (unreadable, unknown format, syntax) come back as `fatal`. */
export function validateDocument(given: SourceDoc, opts: ValidateOptions = {}): FileResult {
  const result: FileResult = { file: given.name, alternatives: [], valid: false, issues: [] };
  try {
    const p = parseDocument(given, opts.format);
    const doc = p.doc;
    result.format = p.adapter.name;
    if (p.version !== undefined) result.formatVersion = p.version;
    const main = runAdapter(p.adapter, doc, p.native);
    result.issues = main.issues;
    result.threadId = main.threadId;
    for (const alt of p.alternatives) {
      const r = safeRun(adapters[alt.format], doc);
      result.alternatives.push({
        format: alt.format,
        ...(alt.version ? { version: alt.version } : {}),
        errors: r.errors,
        warnings: r.warnings,
      });
    }
    result.valid = !result.issues.some((i) => i.severity === "error");
  } catch (e) {
    if (e instanceof CkptError) {
      result.fatal = { reason: e.reason, message: e.message, ...pick(e.place) };
      return result;
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      result.fatal = {
        reason: "json-too-deep",
        message: "nesting is too deep to process (more levels than any checkpoint has)",
      };
      return result;
    }
    throw e;
  }
  return result;
}

function pick(p: CkptError["place"]) {
  const o: { line?: number; column?: number; pointer?: string } = {};
  if (p.line !== undefined) o.line = p.line;
  if (p.column !== undefined) o.column = p.column;
  if (p.pointer !== undefined && p.pointer !== "") o.pointer = p.pointer;
  return o;
}

function safeRun(a: FormatAdapter, doc: SourceDoc): { errors: number; warnings: number } {
  try {
    const { issues } = runAdapter(a, doc);
    return {
      errors: issues.filter((i) => i.severity === "error").length,
      warnings: issues.filter((i) => i.severity === "warning").length,
    };
  } catch (e) {
    if (e instanceof CkptError) return { errors: 1, warnings: 0 };
    throw e;
  }
}

/** Where a pointer into the native value is in the source: the adapter's own locator, else the JSON text's. */
function locatorFor(a: FormatAdapter, native: unknown, doc: SourceDoc): Locate {
  let jl: Locator | undefined;
  return (p) => {
    if (a.locate) return a.locate(native, p, doc);
    if (doc.text === undefined) return undefined;
    jl ??= jsonLocator(doc.text);
    return jl.locate(p);
  };
}

/** parse → schema → adapter lint → generic lints, issues positioned and de-duplicated. */
export function runAdapter(a: FormatAdapter, doc: SourceDoc, parsed?: unknown): { issues: Issue[]; threadId?: string } {
  const native = parsed !== undefined ? parsed : a.parse(doc);
  // a native value saved inside an object (`{id, messages}`): its pointers are told as pointers into the file
  const prefix = a.pointerPrefix?.(native) ?? "";
  const inner = locatorFor(a, native, doc);
  const locate: Locate = prefix ? (p) => inner(prefix + p) : inner;
  const make = (severity: Issue["severity"], rule: string, pointer: string, message: string): Issue => {
    const at = locate(pointer);
    const i: Issue = { severity, rule, message, pointer, file: at?.file ?? doc.name };
    if (at) Object.assign(i, { line: at.line, column: at.column });
    return i;
  };
  // the native walk (and the bigint-safe schema copy) only matter when there is a bigint or a prototype key
  const need = mayNeedNativeLint(native, doc.text);
  const issues = schemaIssues(schemaFor(a, native), native, doc.name, locate, need.bigint);
  if (a.lint) issues.push(...a.lint(native, doc));
  // the native walk only finds something when the text has a 16+ digit run or a prototype key
  if (need.any) issues.push(...nativeLint(native, a.name, make));
  let threadId: string | undefined;
  if (!issues.some((i) => i.severity === "error" && i.rule.startsWith("schema/"))) {
    const cp = a.lintView ? a.lintView(native, doc) : a.toCanonical(native, doc);
    threadId = cp.threadId;
    issues.push(...canonicalLint(cp, () => a.messagePointers(native), native, make));
  }
  if (prefix) for (const i of issues) i.pointer = prefix + i.pointer;
  return { issues: dedupe(issues), threadId };
}

/**
 * One issue per (file, rule, pointer) — adapters and the generic lints may both report e.g. an unsafe integer;
 * schema issues also keep their message (two missing properties of one object are two issues). An integer
 * beyond the 64-bit range is reported as that error only, not also as an unsafe-integer warning.
 */
function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  const outOfRange = new Set(
    issues.filter((i) => i.rule === "lint/integer-out-of-range").map((i) => `${i.file}\0${i.pointer}`),
  );
  return issues.filter((i) => {
    if (i.rule === "lint/unsafe-integer" && outOfRange.has(`${i.file}\0${i.pointer}`)) return false;
    const k = `${i.file}\0${i.rule}\0${i.pointer}${i.rule.startsWith("schema/") ? `\0${i.message}` : ""}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
