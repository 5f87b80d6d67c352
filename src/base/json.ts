/**
 * JSON in and out without losing anything:
 * - integers beyond 2^53 are parsed as `bigint` (never rounded) and written back digit for digit;
 * - syntax errors carry line:column and what was expected;
 * - JSON pointers can be mapped back to line:column of the source text (lazily: the fast path is JSON.parse).
 */
import type * as LosslessJson from "lossless-json";
// Only types and const enums (inlined by tsc) come from this import; the module itself is loaded on first use.
import * as jsonc from "jsonc-parser";
import { constants } from "node:buffer";
import { inputError, type ErrorPlace } from "./errors.js";
import { lazyModule } from "./lazy.js";

// lossless-json (integers beyond 2^53) and jsonc-parser (syntax errors, positions) are needed only for some
// documents: load them on first use, synchronously, so a plain `ckpt validate` does not pay for them at start-up.
const lossless = lazyModule<typeof LosslessJson>("lossless-json");
/** jsonc-parser, loaded on first use. */
export const jsoncParser = lazyModule<typeof jsonc>("jsonc-parser");

/**
 * The largest file read as one JSON text: a JavaScript string holds at most `MAX_STRING_LENGTH` UTF-16 code units
 * (0x1fffffe8, just under 512 MiB, on 64-bit Node), and a UTF-8 file of that many bytes always fits in one.
 */
export const MAX_TEXT_BYTES = constants.MAX_STRING_LENGTH;

/** Why a file of `bytes` is not read: "too large to read as one JSON text (600 MB; the limit is 536 MB)". */
export const tooLargeText = (bytes: number): string =>
  `too large to read as one JSON text (${Math.ceil(bytes / 1e6)} MB; the limit is ${Math.floor(MAX_TEXT_BYTES / 1e6)} MB)`;

/** A run of 16+ digits may be an integer beyond 2^53 (9007199254740991 has 16 digits). */
export const MAYBE_BIG = /\d{16,}/;

let lastDigitRunText: string | undefined;
let lastDigitRun = false;

/**
 * `MAYBE_BIG.test(text)`, about 5x faster: any run of 16 digits covers exactly one index ≡ 15 (mod 16), so only
 * every 16th character is inspected unless it is a digit (`c - 48 >>> 0 > 9`: not a digit, in one comparison; few
 * steps per character, for a loop that a one-off run mostly leaves to V8's first tiers). The last answer is
 * remembered (by string identity first), because parse, the schema check and the lints all ask about the same text.
 */
export function hasLongDigitRun(text: string): boolean {
  if (text === lastDigitRunText) return lastDigitRun;
  let found = false;
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    if ((text.charCodeAt(i) - 48) >>> 0 > 9) continue;
    let a = i;
    while (a > 0 && (text.charCodeAt(a - 1) - 48) >>> 0 <= 9) a--;
    let b = i;
    while (b + 1 < n && (text.charCodeAt(b + 1) - 48) >>> 0 <= 9) b++;
    if (b - a + 1 >= 16) {
      found = true;
      break;
    }
    i = b; // the next candidate is 16 past the end of this run (no shorter step can land in a new run of 16)
  }
  lastDigitRunText = text;
  lastDigitRun = found;
  return found;
}

/** What `hasLongDigitRun` knows of `text` already: its answer, or undefined when it was not asked about that text. */
export function knownDigitRun(text: string): boolean | undefined {
  return text === lastDigitRunText ? lastDigitRun : undefined;
}

/** Tell `hasLongDigitRun` its answer for `text`, found by another full scan of it (the formats' detection). */
export function rememberDigitRun(text: string, found: boolean): void {
  lastDigitRunText = text;
  lastDigitRun = found;
}

export interface ParseOptions {
  /** name shown in errors */
  file?: string;
}

/**
 * Parse JSON text. Integers outside the safe range become `bigint`; everything else is what JSON.parse gives.
 * Throws CkptError (exit 3) with file, line:column and the expectation on malformed input.
 */
export function parseJson(text: string, opts: ParseOptions = {}): unknown {
  // inside parsingOnce: the document's text, parsed already (strings of different lengths compare in one step)
  if (once !== undefined && once.parsed && once.text === text) return once.value;
  const value = parseText(text, opts);
  if (once !== undefined && once.text === text) {
    once.parsed = true;
    once.value = value;
  }
  return value;
}

function parseText(text: string, opts: ParseOptions): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    if (!hasLongDigitRun(text)) return JSON.parse(text);
  } catch (e) {
    throw syntaxError(text, opts.file, e);
  }
  try {
    return lossless().parse(text, null, parseNumberLossless);
  } catch (e) {
    throw syntaxError(text, opts.file, e);
  }
}

/** Inside `parsingOnce`: the document's text, and its value once parsed. */
let once: { text: string; parsed: boolean; value?: unknown } | undefined;

/**
 * Run `fn`, in which `parseJson(text)` parses `text` (a whole document) once: the first call's value is given
 * again to every later one, so that the format detectors that look inside a document and then its adapter's parse
 * share one parse. For code that only reads that value until the last parse (the detectors, then the adapter's
 * parse); other texts are parsed as always. A nested call runs inside the outer one's memo. Dropped on return.
 */
export function parsingOnce<T>(text: string | undefined, fn: () => T): T {
  if (once !== undefined || text === undefined) return fn();
  once = { text, parsed: false };
  try {
    return fn();
  } finally {
    once = undefined;
  }
}

function parseNumberLossless(s: string): number | bigint {
  if (lossless().isSafeNumber(s)) return Number(s);
  if (/^-?\d+$/.test(s)) return BigInt(s);
  return Number(s); // a float: JSON.parse would give the same double
}

/** True when the value holds a bigint anywhere (i.e. came from an integer beyond 2^53). Allocation-free walk. */
export function containsBigInt(v: unknown): boolean {
  if (typeof v === "bigint") return true;
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (containsBigInt(v[i])) return true;
    return false;
  }
  for (const k in v) if (containsBigInt((v as Record<string, unknown>)[k])) return true;
  return false;
}

/** JSON.stringify that writes bigints as bare integers. `indent` as in JSON.stringify. */
export function stringifyJson(value: unknown, indent?: number | string): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (e) {
    if (e instanceof TypeError && /BigInt/i.test(e.message)) {
      return lossless().stringify(value, null, indent) as string;
    }
    throw e;
  }
}

/** An integer as JSON reading gives it: a number when it is safe, else a bigint (never a rounded double). */
export type JsonInt = number | bigint;

/**
 * Exact sum of JSON integers (numbers or bigints): a number while the result is a safe integer, a bigint beyond —
 * so totals of token counts past 2^53 are never rounded. Non-integer numbers are added as doubles.
 */
export function addInts(...xs: ReadonlyArray<JsonInt | undefined | null>): JsonInt {
  const vals = xs.filter((x): x is JsonInt => x !== undefined && x !== null);
  if (vals.some((x) => typeof x === "number" && !Number.isInteger(x)))
    return vals.reduce<number>((a, x) => a + Number(x), 0);
  let n = 0;
  for (const x of vals) {
    if (typeof x === "number" && Number.isSafeInteger(n + x)) n += x;
    else return toSafe(vals.reduce<bigint>((a, y) => a + BigInt(y), 0n));
  }
  return n;
}

/** A bigint as a number when that is exact. */
export const toSafe = (b: bigint): JsonInt =>
  b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;

/** An integer is a JSON integer (number or bigint). */
export const isJsonInt = (x: unknown): x is JsonInt =>
  typeof x === "bigint" || (typeof x === "number" && Number.isInteger(x));

/**
 * Replace bigints by numbers (nearest double) — for code that only inspects values, e.g. schema checks.
 * Copy on write: a value without bigints is returned as it is (no walk allocates), and only the objects and arrays
 * on the path to a bigint are copied.
 */
export function toPlainNumbers(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      const y = typeof x === "object" || typeof x === "bigint" ? toPlainNumbers(x) : x;
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    const y = typeof x === "object" || typeof x === "bigint" ? toPlainNumbers(x) : x;
    if (y === x) continue;
    if (!out) {
      // defineProperty, not assignment: a "__proto__" key stays an own data property
      out = {};
      for (const [k2, x2] of Object.entries(v))
        Object.defineProperty(out, k2, { value: x2, enumerable: true, writable: true, configurable: true });
    }
    Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true });
  }
  return out ?? v;
}

// ---- positions ---------------------------------------------------------------------------------

/** 1-based line and column of a UTF-16 offset. */
export function offsetToLineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

const syntaxMessages: Record<number, string> = {
  [jsonc.ParseErrorCode.InvalidSymbol]: "unexpected character",
  [jsonc.ParseErrorCode.InvalidNumberFormat]: "invalid number",
  [jsonc.ParseErrorCode.PropertyNameExpected]: "expected a property name in double quotes",
  [jsonc.ParseErrorCode.ValueExpected]: "expected a value",
  [jsonc.ParseErrorCode.ColonExpected]: "expected ':'",
  [jsonc.ParseErrorCode.CommaExpected]: "expected ',' or a closing bracket",
  [jsonc.ParseErrorCode.CloseBraceExpected]: "expected '}'",
  [jsonc.ParseErrorCode.CloseBracketExpected]: "expected ']'",
  [jsonc.ParseErrorCode.EndOfFileExpected]: "expected end of input after the JSON value",
  [jsonc.ParseErrorCode.InvalidCommentToken]: "comments are not allowed in JSON",
  [jsonc.ParseErrorCode.UnexpectedEndOfComment]: "unterminated comment",
  [jsonc.ParseErrorCode.UnexpectedEndOfString]: "unterminated string",
  [jsonc.ParseErrorCode.UnexpectedEndOfNumber]: "unterminated number",
  [jsonc.ParseErrorCode.InvalidUnicode]: "invalid unicode escape",
  [jsonc.ParseErrorCode.InvalidEscapeCharacter]: "invalid escape character",
  [jsonc.ParseErrorCode.InvalidCharacter]: "invalid character in string (control characters must be escaped)",
};

function syntaxError(text: string, file: string | undefined, cause: unknown) {
  if (cause instanceof RangeError) {
    return inputError("json-too-deep", "JSON nesting is too deep to process", { file }, cause);
  }
  if (text.trim() === "")
    return inputError("json-empty", "empty input: expected a JSON document", { file, line: 1, column: 1 });
  const errors: jsonc.ParseError[] = [];
  jsoncParser().parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const { line, column } = offsetToLineCol(text, first.offset);
    const truncated =
      first.offset >= text.trimEnd().length - 1 && first.error !== jsonc.ParseErrorCode.EndOfFileExpected;
    const what = syntaxMessages[first.error] ?? jsoncParser().printParseErrorCode(first.error);
    return inputError(
      "json-syntax",
      `invalid JSON: ${what}${truncated ? " (the document ends early: truncated?)" : ""}`,
      { file, line, column },
      cause,
    );
  }
  // jsonc-parser is more lenient than JSON.parse in a few corners (e.g. lone surrogates): use JSON.parse's position.
  const msg = cause instanceof Error ? cause.message : String(cause);
  const pos = /position (\d+)/.exec(msg);
  const place: ErrorPlace = { file };
  if (pos) Object.assign(place, offsetToLineCol(text, Number(pos[1])));
  return inputError("json-syntax", `invalid JSON: ${msg.replace(/^Unexpected/, "unexpected")}`, place, cause);
}

/** Split an RFC 6901 pointer into path segments. */
export function pointerToPath(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Build an RFC 6901 pointer from path segments. */
export function pathToPointer(path: ReadonlyArray<string | number>): string {
  return path.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export interface Locator {
  /** Position of the value at `pointer` (or of its nearest existing ancestor). */
  locate(pointer: string): { line: number; column: number; offset: number };
}

/** Line-start offsets of a text, for offset → line:column by binary search (built once per text). */
export function lineIndex(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

/**
 * Build a locator for JSON text that JSON.parse accepts. No tree is built: a lookup walks the pointer's path,
 * skipping over values it does not enter (strings by `indexOf`, containers by bracket depth), and each container's
 * member offsets are remembered once scanned. A document with thousands of findings costs about one pass over the
 * text in all, without allocating a node per value.
 */
export function jsonLocator(text: string): Locator {
  const arrays = new Map<number, { starts: number[]; pos: number; done: boolean }>();
  const objects = new Map<number, Map<string, number>>();
  let toPos: ReturnType<typeof lineIndex> | undefined;
  const ws = (i: number) => {
    for (
      let c = text.charCodeAt(i);
      c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff;
      c = text.charCodeAt(++i)
    );
    return i;
  };
  const endOfString = (i: number) => {
    // i is at the opening quote; returns the index after the closing one
    for (let j = i + 1; ; ) {
      const k = text.indexOf('"', j);
      if (k === -1) return text.length;
      let bs = 0;
      while (text.charCodeAt(k - 1 - bs) === 92) bs++;
      if (bs % 2 === 0) return k + 1;
      j = k + 1;
    }
  };
  const endOfValue = (i: number): number => {
    const c = text.charCodeAt(i);
    if (c === 34) return endOfString(i);
    if (c === 123 || c === 91) {
      let depth = 0;
      for (let j = i; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 34) j = endOfString(j) - 1;
        else if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) if (--depth === 0) return j + 1;
      }
      return text.length;
    }
    let j = i;
    for (
      let d = text.charCodeAt(j);
      j < text.length && d !== 44 && d !== 125 && d !== 93 && d !== 32 && d !== 10 && d !== 13 && d !== 9;
      d = text.charCodeAt(++j)
    );
    return j;
  };
  const element = (at: number, index: number): number | undefined => {
    let a = arrays.get(at);
    if (!a) arrays.set(at, (a = { starts: [], pos: ws(at + 1), done: false }));
    while (a.starts.length <= index && !a.done) {
      if (text.charCodeAt(a.pos) === 93 || a.pos >= text.length) {
        a.done = true;
        break;
      }
      a.starts.push(a.pos);
      a.pos = ws(endOfValue(a.pos));
      if (text.charCodeAt(a.pos) === 44) a.pos = ws(a.pos + 1);
    }
    return a.starts[index];
  };
  const member = (at: number, key: string): number | undefined => {
    let m = objects.get(at);
    if (!m) {
      m = new Map();
      for (let i = ws(at + 1); i < text.length && text.charCodeAt(i) === 34; ) {
        const end = endOfString(i);
        const raw = text.slice(i + 1, end - 1);
        const name = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        const v = ws(ws(end) + 1); // after the colon
        m.set(name, v); // the last occurrence wins, as in JSON.parse
        i = ws(endOfValue(v));
        if (text.charCodeAt(i) === 44) i = ws(i + 1);
      }
      objects.set(at, m);
    }
    return m.get(key);
  };
  const root = ws(0);
  return {
    locate(pointer: string) {
      let at = root;
      for (const seg of pointerToPath(pointer)) {
        const c = text.charCodeAt(at);
        const next = c === 123 ? member(at, seg) : c === 91 && /^\d+$/.test(seg) ? element(at, Number(seg)) : undefined;
        if (next === undefined) break;
        at = next;
      }
      toPos ??= lineIndex(text);
      return { ...toPos(at), offset: at };
    },
  };
}

// ---- nesting ------------------------------------------------------------------------------------

/** Levels of arrays and objects a record may nest (no checkpoint comes near; walkers of deeper ones overflow the stack). */
export const MAX_NESTING = 1000;

/** The index just past the string that opens at `i` (a `"`), or the text's end when it is not closed. */
function pastString(text: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let b = q - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * Where JSON text (or JSON lines) nests arrays and objects deeper than `max` levels: the pointer of the container
 * that goes past it, its first 8 segments then `/…` — or undefined. A scan of the text (strings skipped), no parse
 * and no recursion, so it answers for texts every recursive walker fails on.
 */
export function nestingBeyond(text: string, max = MAX_NESTING): string | undefined {
  // going past `max` levels takes more than `max` opening brackets: a text no longer than that cannot (no scan)
  if (text.length <= max) return undefined;
  let depth = 0;
  let deep = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = pastString(text, i);
      continue;
    }
    if (c === 91 || c === 123) {
      if (++depth > max) {
        deep = true;
        break;
      }
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
    i++;
  }
  if (!deep) return undefined;
  // again, with the path: per open container its kind, the index or key of the child being read
  const frames: Array<{ array: boolean; at: string | number; key: boolean }> = [];
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === 34) {
      const end = pastString(text, i);
      if (top && !top.array && top.key) {
        try {
          top.at = JSON.parse(text.slice(i, end)) as string;
        } catch {
          top.at = text.slice(i + 1, end - 1);
        }
        top.key = false;
      }
      i = end;
      continue;
    }
    if (c === 91 || c === 123) {
      frames.push({ array: c === 91, at: 0, key: c === 123 });
      if (frames.length > max) {
        const path = frames.slice(0, -1).map((f) => f.at);
        const shown = pathToPointer(path.slice(0, 8));
        return path.length > 8 ? `${shown}/…` : shown;
      }
    } else if (c === 93 || c === 125) frames.pop();
    else if (c === 44 && top) {
      if (top.array) top.at = (top.at as number) + 1;
      else top.key = true;
    }
    i++;
  }
  return undefined;
}

/** Why a record nested past MAX_NESTING is not processed, naming where (`nestingBeyond`'s pointer). */
export const nestingReason = (pointer: string) =>
  `${pointer === "" ? "" : `${pointer}: `}nesting deeper than ${MAX_NESTING} levels of arrays and objects (no checkpoint nests that deep)`;
