/**
 * The strings of a msgpack value — map keys included, and those inside the ext payloads of LangGraph's Python serde
 * (codes 0–7, LANGGRAPH.md §5.2: each payload is itself one msgpack value) — and the same bytes with some of them
 * replaced. `--redact` of a LangGraph history rewrites its rows this way: a value none of whose strings changes keeps
 * its bytes as stored, and around a changed string only the headers that hold its length (the string's own, and each
 * enclosing ext's) are written anew, in msgpack's shortest form as msgpack and ormsgpack write them.
 */
import { inputError } from "../../base/errors.js";
import { skip } from "./msgpack.js";

const strict = new TextDecoder("utf-8", { fatal: true });
const utf8 = new TextEncoder();

type Head =
  | { kind: "str" | "ext"; body: number; n: number; ext: number }
  | { kind: "array" | "map"; body: number; n: number }
  | { kind: "scalar" };

const u16 = (b: Uint8Array, p: number) => (b[p]! << 8) | b[p + 1]!;
const u32 = (b: Uint8Array, p: number) => ((b[p]! << 24) >>> 0) + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
const i8 = (x: number) => (x << 24) >> 24;

/** The value at `p`: a string, array, map or ext with where its body starts and its length (items for containers). */
function head(b: Uint8Array, p: number): Head {
  const t = b[p];
  if (t === undefined) throw inputError("msgpack", "msgpack value cut short");
  if (t >= 0xa0 && t <= 0xbf) return { kind: "str", body: p + 1, n: t & 0x1f, ext: 0 };
  if (t >= 0x90 && t <= 0x9f) return { kind: "array", body: p + 1, n: t & 0x0f };
  if (t >= 0x80 && t <= 0x8f) return { kind: "map", body: p + 1, n: (t & 0x0f) * 2 };
  switch (t) {
    case 0xd9:
      return { kind: "str", body: p + 2, n: b[p + 1]!, ext: 0 };
    case 0xda:
      return { kind: "str", body: p + 3, n: u16(b, p + 1), ext: 0 };
    case 0xdb:
      return { kind: "str", body: p + 5, n: u32(b, p + 1), ext: 0 };
    case 0xdc:
      return { kind: "array", body: p + 3, n: u16(b, p + 1) };
    case 0xdd:
      return { kind: "array", body: p + 5, n: u32(b, p + 1) };
    case 0xde:
      return { kind: "map", body: p + 3, n: u16(b, p + 1) * 2 };
    case 0xdf:
      return { kind: "map", body: p + 5, n: u32(b, p + 1) * 2 };
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return { kind: "ext", body: p + 2, n: 1 << (t - 0xd4), ext: i8(b[p + 1]!) };
    case 0xc7:
      return { kind: "ext", body: p + 3, n: b[p + 1]!, ext: i8(b[p + 2]!) };
    case 0xc8:
      return { kind: "ext", body: p + 4, n: u16(b, p + 1), ext: i8(b[p + 3]!) };
    case 0xc9:
      return { kind: "ext", body: p + 6, n: u32(b, p + 1), ext: i8(b[p + 5]!) };
    default:
      return { kind: "scalar" };
  }
}

/** Ext codes whose payload is msgpack (Python serde's constructors, pydantic models, numpy arrays, delta snapshots). */
const nests = (ext: number) => ext >= 0 && ext <= 7;

function nestedEnd(h: { body: number; n: number; ext: number }, inner: number): void {
  if (inner !== h.body + h.n)
    throw inputError(
      "msgpack",
      `msgpack ext ${h.ext} payload at byte ${h.body} is not one msgpack value (LangGraph's serde packs one there)`,
    );
}

/** A string's text; undefined when its bytes are not UTF-8 (such a string is kept as it is). */
function text(b: Uint8Array, start: number, end: number): string | undefined {
  try {
    return strict.decode(b.subarray(start, end));
  } catch {
    return undefined;
  }
}

/** Values `msgpackStrings` keeps as stored without reading them as text: binary values, strings that are not UTF-8. */
export interface Unscanned {
  values: number;
}

function collect(b: Uint8Array, p: number, out: string[], seen: Unscanned): number {
  const h = head(b, p);
  if (h.kind === "scalar") {
    const t = b[p]!;
    if (t === 0xc4 || t === 0xc5 || t === 0xc6) seen.values++; // bin 8/16/32
    return skip(b, p);
  }
  if (h.kind === "str") {
    if (h.body + h.n > b.length) throw inputError("msgpack", "msgpack value cut short");
    const t = text(b, h.body, h.body + h.n);
    if (t === undefined) seen.values++;
    out.push(t ?? "");
    return h.body + h.n;
  }
  if (h.kind === "ext") {
    if (nests(h.ext)) nestedEnd(h, collect(b, h.body, out, seen));
    else seen.values++;
    return h.body + h.n;
  }
  let q = h.body;
  for (let i = 0; i < h.n; i++) q = collect(b, q, out, seen);
  return q;
}

/**
 * Every string of the msgpack value `b` (one value, wholly), in order: keys, values, and inside serde ext payloads.
 * What is not read as text (binary values, strings that are not UTF-8, other ext codes) is counted in `seen`.
 */
export function msgpackStrings(b: Uint8Array, seen: Unscanned = { values: 0 }): string[] {
  const out: string[] = [];
  const end = collect(b, 0, out, seen);
  if (end !== b.length) throw inputError("msgpack", `msgpack value ends at byte ${end} of ${b.length}`);
  return out;
}

function strHeader(n: number): Uint8Array {
  if (n < 32) return Uint8Array.of(0xa0 | n);
  if (n < 0x100) return Uint8Array.of(0xd9, n);
  if (n < 0x10000) return Uint8Array.of(0xda, n >> 8, n & 0xff);
  return Uint8Array.of(0xdb, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}

function extHeader(n: number, ext: number): Uint8Array {
  const t = ext & 0xff;
  const fixed = [1, 2, 4, 8, 16].indexOf(n);
  if (fixed >= 0) return Uint8Array.of(0xd4 + fixed, t);
  if (n < 0x100) return Uint8Array.of(0xc7, n, t);
  if (n < 0x10000) return Uint8Array.of(0xc8, n >> 8, n & 0xff, t);
  return Uint8Array.of(0xc9, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, t);
}

interface Cursor {
  before: string[];
  after: string[];
  i: number;
}

const size = (parts: Uint8Array[]) => parts.reduce((n, x) => n + x.length, 0);

/** The value at `p` rewritten: its end, and its new bytes (null: unchanged, its stored bytes stand). */
function rewrite(b: Uint8Array, p: number, c: Cursor): { end: number; parts: Uint8Array[] | null } {
  const h = head(b, p);
  if (h.kind === "scalar") return { end: skip(b, p), parts: null };
  if (h.kind === "str") {
    const i = c.i++;
    const end = h.body + h.n;
    if (c.after[i] === c.before[i]) return { end, parts: null };
    const bytes = utf8.encode(c.after[i]!);
    return { end, parts: [strHeader(bytes.length), bytes] };
  }
  if (h.kind === "ext") {
    const end = h.body + h.n;
    if (!nests(h.ext)) return { end, parts: null };
    const inner = rewrite(b, h.body, c);
    nestedEnd(h, inner.end);
    if (!inner.parts) return { end, parts: null };
    return { end, parts: [extHeader(size(inner.parts), h.ext), ...inner.parts] };
  }
  let q = h.body;
  const items: Array<{ start: number; end: number; parts: Uint8Array[] | null }> = [];
  for (let i = 0; i < h.n; i++) {
    const r = rewrite(b, q, c);
    items.push({ start: q, ...r });
    q = r.end;
  }
  if (items.every((x) => x.parts === null)) return { end: q, parts: null };
  const parts: Uint8Array[] = [b.subarray(p, h.body)];
  for (const x of items) parts.push(...(x.parts ?? [b.subarray(x.start, x.end)]));
  return { end: q, parts };
}

/**
 * `b` with its strings replaced: `after[i]` for the i-th string of `msgpackStrings(b)` (`before`). The same bytes
 * (the same array) when nothing changed.
 */
export function replaceMsgpackStrings(b: Uint8Array, before: string[], after: string[]): Uint8Array {
  const r = rewrite(b, 0, { before, after, i: 0 });
  if (!r.parts) return b;
  return new Uint8Array(Buffer.concat(r.parts));
}
