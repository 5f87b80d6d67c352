/**
 * Byte-level msgpack helpers for LangGraph's Python serde (LANGGRAPH.md §5.2): walk a value without decoding it,
 * split a top-level map into (key, raw value bytes), and build a map from raw value bytes. msgpack is context-free,
 * so the bytes of a value inside a map are exactly what `ormsgpack.packb(value)` gives for the value alone: a
 * checkpoint's channel values can move between a SQLite checkpoint and PostgreSQL blobs without being re-encoded.
 */
import { encode as mpEncode, Decoder } from "@msgpack/msgpack";
import { inputError } from "../../base/errors.js";

/** One decoder for every plain decode (a Decoder per call costs more than small values take to decode; no ext codec
 * here, so a decode never re-enters it). */
const plain = new Decoder();
const mpDecode = (b: Uint8Array): unknown => plain.decode(b);
const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

const u16 = (b: Uint8Array, p: number) => (b[p]! << 8) | b[p + 1]!;
const u32 = (b: Uint8Array, p: number) => ((b[p]! << 24) >>> 0) + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);

function truncated(): never {
  throw inputError("msgpack", "msgpack value cut short");
}

/** Offset just past the value that starts at `p`. */
export function skip(b: Uint8Array, p: number): number {
  if (p >= b.length) truncated();
  const t = b[p]!;
  let end: number;
  if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) end = p + 1;
  else if (t >= 0x80 && t <= 0x8f) end = skipN(b, p + 1, (t & 0x0f) * 2);
  else if (t >= 0x90 && t <= 0x9f) end = skipN(b, p + 1, t & 0x0f);
  else if (t >= 0xa0 && t <= 0xbf) end = p + 1 + (t & 0x1f);
  else {
    switch (t) {
      case 0xc4:
      case 0xd9:
        end = p + 2 + b[p + 1]!;
        break; // bin8, str8
      case 0xc5:
      case 0xda:
        end = p + 3 + u16(b, p + 1);
        break;
      case 0xc6:
      case 0xdb:
        end = p + 5 + u32(b, p + 1);
        break;
      case 0xc7:
        end = p + 3 + b[p + 1]!;
        break; // ext8: len, type, data
      case 0xc8:
        end = p + 4 + u16(b, p + 1);
        break;
      case 0xc9:
        end = p + 6 + u32(b, p + 1);
        break;
      case 0xca:
        end = p + 5;
        break;
      case 0xcb:
        end = p + 9;
        break;
      case 0xcc:
      case 0xd0:
        end = p + 2;
        break;
      case 0xcd:
      case 0xd1:
        end = p + 3;
        break;
      case 0xce:
      case 0xd2:
        end = p + 5;
        break;
      case 0xcf:
      case 0xd3:
        end = p + 9;
        break;
      case 0xd4:
        end = p + 3;
        break; // fixext1
      case 0xd5:
        end = p + 4;
        break;
      case 0xd6:
        end = p + 6;
        break;
      case 0xd7:
        end = p + 10;
        break;
      case 0xd8:
        end = p + 18;
        break;
      case 0xdc:
        end = skipN(b, p + 3, u16(b, p + 1));
        break;
      case 0xdd:
        end = skipN(b, p + 5, u32(b, p + 1));
        break;
      case 0xde:
        end = skipN(b, p + 3, u16(b, p + 1) * 2);
        break;
      case 0xdf:
        end = skipN(b, p + 5, u32(b, p + 1) * 2);
        break;
      default:
        throw inputError("msgpack", `byte 0x${t.toString(16)} at offset ${p} starts no msgpack value`);
    }
  }
  if (end > b.length) truncated();
  return end;
}

function skipN(b: Uint8Array, p: number, n: number): number {
  for (let i = 0; i < n; i++) p = skip(b, p);
  return p;
}

/** The ext type code of the value at `p`, or undefined when it is not an ext. */
export function extTypeAt(b: Uint8Array, p: number): number | undefined {
  const t = b[p]!;
  if (t >= 0xd4 && t <= 0xd8) return (b[p + 1]! << 24) >> 24;
  if (t === 0xc7) return (b[p + 2]! << 24) >> 24;
  if (t === 0xc8) return (b[p + 3]! << 24) >> 24;
  if (t === 0xc9) return (b[p + 5]! << 24) >> 24;
  return undefined;
}

/** Whether the value at `p` is nil, a bool, a number or a string (what Python PostgresSaver keeps inline). */
export function isPrimitiveAt(b: Uint8Array, p: number): boolean {
  const t = b[p]!;
  return (
    t <= 0x7f ||
    t >= 0xe0 ||
    (t >= 0xa0 && t <= 0xbf) ||
    t === 0xc0 ||
    t === 0xc2 ||
    t === 0xc3 ||
    (t >= 0xca && t <= 0xd3) ||
    (t >= 0xd9 && t <= 0xdb)
  );
}

/**
 * The last two maps split (a checkpoint and its channel_values): a migration splits each checkpoint twice, for the fork
 * check and for the PostgreSQL rows, one right after the other. Keyed by the byte array and offset; bytes are never
 * changed in place.
 */
const recent: Array<{ b: Uint8Array; p: number; out: Array<[string, Uint8Array]> } | undefined> = [
  undefined,
  undefined,
];

/**
 * The entries of the map at `p` (keys must be strings), each with the raw bytes of its value. The array may be shared
 * with an earlier call on the same bytes: callers do not change it.
 */
export function mapEntries(b: Uint8Array, p = 0): Array<[string, Uint8Array]> {
  for (const r of recent) if (r && r.b === b && r.p === p) return r.out;
  const out = splitMap(b, p);
  recent[1] = recent[0];
  recent[0] = { b, p, out };
  return out;
}

function splitMap(b: Uint8Array, p: number): Array<[string, Uint8Array]> {
  const t = b[p]!;
  let n: number;
  let q: number;
  if (t >= 0x80 && t <= 0x8f) [n, q] = [t & 0x0f, p + 1];
  else if (t === 0xde) [n, q] = [u16(b, p + 1), p + 3];
  else if (t === 0xdf) [n, q] = [u32(b, p + 1), p + 5];
  else throw inputError("msgpack", "expected a msgpack map");
  const out: Array<[string, Uint8Array]> = [];
  const buf = asBuffer(b);
  for (let i = 0; i < n; i++) {
    // a str key is sliced natively (as decodePlain does); anything else goes to the library
    const kEnd = skip(b, q);
    const k = b[q]!;
    const key =
      k >= 0xa0 && k <= 0xbf
        ? buf.toString("utf8", q + 1, kEnd)
        : k === 0xd9
          ? buf.toString("utf8", q + 2, kEnd)
          : mpDecode(b.subarray(q, kEnd));
    if (typeof key !== "string") throw inputError("msgpack", "expected string map keys");
    const vEnd = skip(b, kEnd);
    out.push([key, b.subarray(kEnd, vEnd)]);
    q = vEnd;
  }
  return out;
}

/** The raw bytes of each item of the array at the start of `b` (undefined when `b` is not a msgpack array). */
export function arrayItems(b: Uint8Array): Uint8Array[] | undefined {
  const t = b[0];
  let n: number;
  let q: number;
  if (t === undefined) return undefined;
  if (t >= 0x90 && t <= 0x9f) [n, q] = [t & 0x0f, 1];
  else if (t === 0xdc) [n, q] = [u16(b, 1), 3];
  else if (t === 0xdd) [n, q] = [u32(b, 1), 5];
  else return undefined;
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const end = skip(b, q);
    out.push(b.subarray(q, end));
    q = end;
  }
  return out;
}

function mapHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x80 | n);
  if (n < 0x10000) return Uint8Array.of(0xde, n >> 8, n & 0xff);
  return Uint8Array.of(0xdf, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}

/** A map from keys and already-encoded values, in the given order. */
export function buildMap(entries: Array<[string, Uint8Array]>): Uint8Array {
  const parts: Uint8Array[] = [mapHeader(entries.length)];
  for (const [k, v] of entries) parts.push(mpEncode(k), v);
  return Buffer.concat(parts);
}

/**
 * Decode plain msgpack: the same values `@msgpack/msgpack` gives (ext and bin values, 64-bit integers and maps with
 * other keys are left to it), read here with the strings sliced natively — checkpoints are mostly short strings
 * (versions, ids, channel names), which the library decodes byte by byte in JS.
 */
export function decodePlain(b: Uint8Array): unknown {
  const buf = asBuffer(b);
  const [v, end] = readValue(buf, 0);
  return end === buf.length ? v : mpDecode(b); // trailing bytes: the library's error
}

/** The value at `p` and the offset after it. */
function readValue(b: Buffer, p: number): [unknown, number] {
  const t = b[p];
  if (t === undefined) truncated();
  if (t <= 0x7f) return [t, p + 1];
  if (t >= 0xe0) return [t - 0x100, p + 1];
  if (t >= 0xa0 && t <= 0xbf) return str(b, p + 1, t & 0x1f);
  if (t >= 0x80 && t <= 0x8f) return readMap(b, p, p + 1, t & 0x0f);
  if (t >= 0x90 && t <= 0x9f) return readArray(b, p + 1, t & 0x0f);
  switch (t) {
    case 0xc0:
      return [null, p + 1];
    case 0xc2:
      return [false, p + 1];
    case 0xc3:
      return [true, p + 1];
    case 0xca:
      return [need(b, p + 5) && b.readFloatBE(p + 1), p + 5];
    case 0xcb:
      return [need(b, p + 9) && b.readDoubleBE(p + 1), p + 9];
    case 0xcc:
      return [need(b, p + 2) && b[p + 1]!, p + 2];
    case 0xcd:
      return [need(b, p + 3) && b.readUInt16BE(p + 1), p + 3];
    case 0xce:
      return [need(b, p + 5) && b.readUInt32BE(p + 1), p + 5];
    case 0xd0:
      return [need(b, p + 2) && b.readInt8(p + 1), p + 2];
    case 0xd1:
      return [need(b, p + 3) && b.readInt16BE(p + 1), p + 3];
    case 0xd2:
      return [need(b, p + 5) && b.readInt32BE(p + 1), p + 5];
    case 0xd9:
      return need(b, p + 2) && str(b, p + 2, b[p + 1]!);
    case 0xda:
      return need(b, p + 3) && str(b, p + 3, b.readUInt16BE(p + 1));
    case 0xdb:
      return need(b, p + 5) && str(b, p + 5, b.readUInt32BE(p + 1));
    case 0xdc:
      return need(b, p + 3) && readArray(b, p + 3, b.readUInt16BE(p + 1));
    case 0xdd:
      return need(b, p + 5) && readArray(b, p + 5, b.readUInt32BE(p + 1));
    case 0xde:
      return need(b, p + 3) && readMap(b, p, p + 3, b.readUInt16BE(p + 1));
    case 0xdf:
      return need(b, p + 5) && readMap(b, p, p + 5, b.readUInt32BE(p + 1));
    default:
      return library(b, p);
  }
}

/** true, or the "cut short" error when `b` ends before `end` */
const need = (b: Buffer, end: number): true => (end <= b.length ? true : truncated());

/** The value at `p` as the library decodes it. */
function library(b: Buffer, p: number): [unknown, number] {
  const end = skip(b, p);
  return [mpDecode(b.subarray(p, end)), end];
}

function str(b: Buffer, p: number, n: number): [string, number] {
  need(b, p + n);
  return [b.toString("utf8", p, p + n), p + n];
}

function readArray(b: Buffer, p: number, n: number): [unknown[], number] {
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) [out[i], p] = readValue(b, p);
  return [out, p];
}

/** A map with string keys (other keys, and `__proto__`, go to the library: its own conversion or error). */
function readMap(b: Buffer, start: number, p: number, n: number): [Record<string, unknown>, number] {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const t = b[p];
    let key: string;
    if (t !== undefined && t >= 0xa0 && t <= 0xbf) [key, p] = str(b, p + 1, t & 0x1f);
    else if (t === 0xd9) [key, p] = (need(b, p + 2), str(b, p + 2, b[p + 1]!));
    else return library(b, start) as [Record<string, unknown>, number];
    if (key === "__proto__") return library(b, start) as [Record<string, unknown>, number];
    [out[key], p] = readValue(b, p);
  }
  return [out, p];
}
