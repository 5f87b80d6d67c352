/**
 * The format registry: every adapter, detection across all of them, and reading any document into the
 * canonical model. Pure: callers supply the text (see cli/input.ts for reading files, stdin and saver URIs).
 */
import type { Checkpoint } from "../generated/types.js";
import { CkptError, inputError, usageError } from "../base/errors.js";
import { knownDigitRun, parseJson, parsingOnce, rememberDigitRun } from "../base/json.js";
import { FORMAT_NAMES, type FormatAdapter, type FormatName, type SourceDoc } from "./types.js";
import { ckptAdapter } from "./ckpt.js";
import { yoagentAdapter } from "./yoagent.js";
import { yoagentSessionAdapter } from "./yoagent-session.js";
import { phiCoreAdapter } from "./phi-core.js";
import { phiCoreSessionAdapter } from "./phi-core-session.js";
import { amacsAdapter } from "./amacs.js";
import { swarmerAdapter } from "./swarmer.js";
import { deepagentAdapter } from "./deepagent.js";
import { langgraphAdapter } from "./langgraph/adapter.js";
import { mastraAdapter } from "./mastra.js";
import { openaiAgentsAdapter } from "./openai-agents/run-state.js";
import { openaiAgentsItemsAdapter } from "./openai-agents/session.js";
import { aiSdkAdapter } from "./ai-sdk.js";
import { openaiResponsesItemsAdapter } from "./openai-agents/responses-items.js";
import { openaiAgentsSessionAdapter } from "./openai-agents/python-session.js";
import { unbundle } from "./bundle.js";

export const adapters: Record<FormatName, FormatAdapter> = {
  ckpt: ckptAdapter as FormatAdapter,
  yoagent: yoagentAdapter,
  "yoagent-session": yoagentSessionAdapter,
  "phi-core": phiCoreAdapter,
  "phi-core-session": phiCoreSessionAdapter,
  amacs: amacsAdapter,
  swarmer: swarmerAdapter,
  deepagent: deepagentAdapter,
  langgraph: langgraphAdapter as FormatAdapter,
  mastra: mastraAdapter as FormatAdapter,
  "openai-agents": openaiAgentsAdapter as FormatAdapter,
  "openai-agents-items": openaiAgentsItemsAdapter as FormatAdapter,
  "ai-sdk": aiSdkAdapter as FormatAdapter,
  "openai-responses-items": openaiResponsesItemsAdapter as FormatAdapter,
  "openai-agents-session": openaiAgentsSessionAdapter as FormatAdapter,
};

/** Format names as options accept them: every format, and ai-sdk with its major (`ai-sdk@5`). */
export const FORMAT_CHOICES: readonly string[] = [...FORMAT_NAMES, "ai-sdk@4", "ai-sdk@5", "ai-sdk@6", "ai-sdk@7"];

/** The schema a parsed value answers to: its version's when the format has one per version (ai-sdk). */
export function schemaFor(adapter: FormatAdapter, native: unknown): string {
  return adapter.schemaOf ? adapter.schemaOf(native) : adapter.schema;
}

/**
 * A format name with an optional version: `ai-sdk@5` → {name: "ai-sdk", version: "5"}. The name is checked (a usage
 * error for an unknown one); the version is the adapter's to check.
 */
export function splitFormat(spec: string): { name: FormatName; version?: string } {
  const at = spec.indexOf("@");
  const name = at < 0 ? spec : spec.slice(0, at);
  const adapter = getAdapter(name);
  return at < 0 ? { name: adapter.name } : { name: adapter.name, version: spec.slice(at + 1) };
}

export function isFormatName(s: string): s is FormatName {
  return (FORMAT_NAMES as readonly string[]).includes(s);
}

export function getAdapter(name: string): FormatAdapter {
  if (!isFormatName(name)) throw usageError(`unknown format '${name}': expected one of ${FORMAT_NAMES.join(", ")}`);
  return adapters[name];
}

export interface Detection {
  format: FormatName;
  confidence: number;
  version?: string;
}

/** JavaScript's `\s` (white space and line terminators, a BOM included), which the detections' `^\s*` skip. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The text's first character that is not white space ("" when there is none, or no text). */
export function firstNonSpace(text: string | undefined): string {
  if (text === undefined) return "";
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return text.charAt(i);
  return "";
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Every string some adapter's detection needs (`detectNeeds.anyOf`). */
const NEEDED_STRINGS = [...new Set(FORMAT_NAMES.flatMap((n) => adapters[n].detectNeeds?.anyOf ?? []))];
/**
 * Strings as one pattern: one scan of a text finds which it holds; with `digits`, also a run of 16 digits (what
 * `hasLongDigitRun` looks for: the same scan answers it, rather than a second pass over a 5 MB text).
 */
const patternOf = (list: readonly string[], digits: boolean) =>
  new RegExp([...quoted(list), ...(digits ? ["\\d{16}"] : [])].join("|") || "(?!)", "g");
/**
 * The strings' alternatives, their common leading `"` (every string is a JSON key or value) written once: `"(?:a"|b")`
 * matches what `"a"|"b"` matches, and irregexp scans a 5 MB text for it in ~20% fewer instructions (issue #41).
 */
function quoted(list: readonly string[]): string[] {
  if (list.length === 0) return [];
  if (!list.every((s) => s.length > 1 && s.startsWith('"'))) return list.map(escapeRe);
  return [`"(?:${list.map((s) => escapeRe(s.slice(1))).join("|")})`];
}
/**
 * The pattern of the strings not found yet, by the set found (a bit per NEEDED_STRINGS index, and DIGITS_BIT when it
 * looks for a digit run too), made once per set: a migration of 10,000 documents met the same few sets 10,000 times,
 * and built (and compiled) a RegExp each time.
 */
const patternsLeft = new Map<number, RegExp>();
const NEEDED_BIT = new Map(NEEDED_STRINGS.map((s, i) => [s, 2 ** i]));
const DIGITS_BIT = 2 ** 30;
// a bit each in a 31-bit integer (there are 11), and DIGITS_BIT
if (NEEDED_STRINGS.length > 30) throw new Error("formats: more than 30 detectNeeds strings; widen neededIn's set key");

function patternLeft(foundBits: number, digits: boolean): RegExp {
  const key = digits ? foundBits + DIGITS_BIT : foundBits;
  let p = patternsLeft.get(key);
  if (p === undefined) {
    p = patternOf(
      NEEDED_STRINGS.filter((s) => (foundBits & NEEDED_BIT.get(s)!) === 0),
      digits,
    );
    patternsLeft.set(key, p);
  }
  return p;
}

/**
 * The strings of NEEDED_STRINGS a text holds. One scan: after each match it goes on one character later (overlapping
 * occurrences count) looking only for the strings not found yet, so a string met 20,000 times costs one match. While
 * `hasLongDigitRun` has no answer for the text, the scan also looks for a run of 16 digits (none of the strings holds
 * a digit) and gives it the answer: a run when it met one, none when it ran to the end of the text without.
 */
function neededIn(text: string): Set<string> {
  const found = new Set<string>();
  let bits = 0;
  let digits = knownDigitRun(text) === undefined;
  let pattern = patternLeft(0, digits);
  let from = 0;
  for (;;) {
    pattern.lastIndex = from;
    const m = pattern.exec(text);
    if (m === null) {
      if (digits) rememberDigitRun(text, false);
      return found;
    }
    from = m.index + 1;
    const s = m[0];
    const c = s.charCodeAt(0);
    if (c >= 48 && c <= 57) {
      rememberDigitRun(text, true);
      digits = false;
    } else {
      if (found.add(s).size === NEEDED_STRINGS.length) return found;
      bits |= NEEDED_BIT.get(s)!;
    }
    pattern = patternLeft(bits, digits);
  }
}

interface Candidate {
  format: FormatName;
  anyOf?: readonly string[];
}
/** Per first character ("{", "[", or "" for any other): the formats that may claim such a text, in FORMAT_NAMES order. */
const CANDIDATES: Record<string, Candidate[]> = Object.fromEntries(
  ["{", "[", ""].map((first) => [
    first,
    FORMAT_NAMES.filter((n) => [adapters[n].detectNeeds?.first ?? first].flat().includes(first)).map((format) => ({
      format,
      anyOf: adapters[format].detectNeeds?.anyOf,
    })),
  ]),
);

/**
 * Every format that claims the document, most confident first (equal confidence: in FORMAT_NAMES order). Adapters
 * whose `detectNeeds` the document does not meet (its first character that is not white space; one of the strings,
 * all looked for in one scan) are not asked: a document is not scanned by detectors that cannot claim it. The answer
 * is the same as asking every adapter (test/detect-candidates.test.ts compares the two on every fixture and on edge cases).
 */
export function detectAll(doc: SourceDoc): Detection[] {
  return detectParsed(doc).all;
}

/**
 * `detectAll`, with the value the most confident detection parsed the text into, when it did (handed to its `parse`:
 * a document is parsed once).
 */
export function detectParsed(doc: SourceDoc): { all: Detection[]; parsed?: unknown } {
  const first = firstNonSpace(doc.text);
  let found: Set<string> | undefined;
  const out: Array<Detection & { parsed?: unknown }> = [];
  for (const c of CANDIDATES[first === "{" || first === "[" ? first : ""]!) {
    if (c.anyOf && !c.anyOf.some((s) => (found ??= neededIn(doc.text!)).has(s))) continue;
    const r = adapters[c.format].detect(doc);
    if (r.confidence > 0)
      out.push({ format: c.format, confidence: r.confidence, version: r.version, parsed: r.parsed });
  }
  out.sort((a, b) => b.confidence - a.confidence);
  const parsed = out[0]?.parsed;
  return {
    all: out.map(({ format, confidence, version }) => ({ format, confidence, version })),
    ...(parsed !== undefined ? { parsed } : {}),
  };
}

/**
 * The format of a document. When several formats fit equally well (a snake_case message array is both
 * yoagent < 0.13 and phi-core), the first is returned and `alternatives` names the others.
 */
export function detectFormat(doc: SourceDoc): Detection & { alternatives: Detection[]; parsed?: unknown } {
  const { all, parsed } = detectParsed(doc);
  if (all.length === 0) {
    // no format claims it: when it is not even well-formed JSON, that is the clearer message (with line:column)
    if (doc.text !== undefined) syntaxCheck(doc);
    throw inputError(
      "unknown-format",
      `cannot tell the format: expected one of ${FORMAT_NAMES.join(", ")} (name it with --format)`,
      { file: doc.name },
    );
  }
  const [best, ...rest] = all;
  return {
    ...best!,
    alternatives: rest.filter((d) => d.confidence >= best!.confidence),
    ...(parsed !== undefined ? { parsed } : {}),
  };
}

/** Detect (or take the named format) and parse: the adapter, the document it read and its native value. */
export function readNative(
  given: SourceDoc,
  format?: string,
): { adapter: FormatAdapter; native: unknown; doc: SourceDoc; format: FormatName } {
  let doc = unbundle(given); // a file bundle from a store: the amacs home or JSONL file it holds
  const named = format ? splitFormat(format) : undefined;
  if (named?.version !== undefined) doc = { ...doc, formatVersion: named.version };
  // the detectors that look inside a JSON document and then its adapter's parse share one parse of the text
  return parsingOnce(doc.text, () => {
    const detected = named ? undefined : detectFormat(doc);
    const name = named ? named.name : detected!.format;
    const adapter = adapters[name];
    return { adapter, native: adapter.parse(doc, detected?.parsed), doc, format: name };
  });
}

/** Read any supported document into the canonical model. */
export function readCheckpoint(given: SourceDoc, format?: string): { checkpoint: Checkpoint; format: FormatName } {
  const { adapter, native, doc, format: name } = readNative(given, format);
  return { checkpoint: adapter.toCanonical(native, doc), format: name };
}

export {
  FORMAT_NAMES,
  type FormatName,
  type FormatAdapter,
  type SourceDoc,
  type UnreadablePart,
} from "./types.js";

/** One line naming an unreadable part and why it is missing. */
export function unreadableLine(p: import("./types.js").UnreadablePart): string {
  const whose =
    p.cause === "ckpt" ? "ckpt cannot rebuild it; the library can" : "the stored data it needs is damaged or missing";
  return `${p.part} cannot be read (${whose}): ${p.message}`;
}

/** The parts of a canonical checkpoint its source format could not read (`FormatAdapter.unreadable`); [] when none. */
export function unreadableParts(cp: Checkpoint): import("./types.js").UnreadablePart[] {
  const name = cp.origin?.format;
  if (typeof name !== "string" || !isFormatName(name)) return [];
  return getAdapter(name).unreadable?.(cp) ?? [];
}

/** Throw the JSON syntax error of a document (line by line for .jsonl files), if it has one. */
export function syntaxCheck(doc: SourceDoc): void {
  const text = doc.text!;
  if (!/\.jsonl$/i.test(doc.name)) {
    parseJson(text, { file: doc.name });
    return;
  }
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    const end = text.indexOf("\n", start);
    const row = text.slice(start, end < 0 ? text.length : end);
    if (row.trim() !== "") {
      try {
        parseJson(row, { file: doc.name });
      } catch (e) {
        if (e instanceof CkptError && e.place.line !== undefined) {
          throw new CkptError(
            e.exitCode,
            e.reason,
            e.message,
            { ...e.place, line: line + e.place.line - 1 },
            { cause: e },
          );
        }
        throw e;
      }
    }
    if (end < 0) break;
    start = end + 1;
  }
}
