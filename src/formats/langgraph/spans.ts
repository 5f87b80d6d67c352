/**
 * Where the bytes of a serialized LangGraph value are, without decoding it: the byte ranges of a JSON or msgpack
 * checkpoint's channel values and of each element of a message list, and the LangChain class of a message. Used by
 * `ckpt stats`, which measures stores of many gigabytes: building objects for every checkpoint (JSON.parse, msgpack
 * decode) would cost several times the scan. Pure.
 */
import { decode as mpDecode } from "@msgpack/msgpack";
import { inputError } from "../../base/errors.js";
import { extTypeAt, mapEntries, skip } from "./msgpack.js";

/** A value's bytes inside a larger buffer: [start, end). */
export type Span = readonly [number, number];

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function bad(p: number, what: string): never {
  throw inputError("json", `${what} at byte ${p}`);
}

/** Offset of the first non-whitespace byte at or after `p`. */
export function jsonWs(b: Uint8Array, p: number): number {
  while (p < b.length && WS(b[p]!)) p++;
  return p;
}

/** Offset just past the JSON string starting at `p` (a '"'). */
function skipString(b: Uint8Array, p: number): number {
  for (let i = p + 1; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return bad(p, "unterminated JSON string");
}

/** Offset just past the JSON value that starts at `p` (no whitespace before it). */
export function jsonSkip(b: Uint8Array, p: number): number {
  const c = b[p];
  if (c === undefined) return bad(p, "JSON value expected");
  if (c === 0x22) return skipString(b, p);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = p; i < b.length; i++) {
      const x = b[i]!;
      if (x === 0x22) i = skipString(b, i) - 1;
      else if (x === 0x7b || x === 0x5b) depth++;
      else if (x === 0x7d || x === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return bad(p, "unterminated JSON object or array");
  }
  let i = p;
  while (i < b.length && !(WS(b[i]!) || b[i] === 0x2c || b[i] === 0x7d || b[i] === 0x5d)) i++;
  return i;
}

const utf8 = new TextDecoder();

/** The entries of the JSON object at `p`: key and the span of its value. */
export function jsonEntries(b: Uint8Array, p = jsonWs(b, 0)): Array<[string, Span]> {
  if (b[p] !== 0x7b) bad(p, "JSON object expected");
  const out: Array<[string, Span]> = [];
  let i = jsonWs(b, p + 1);
  if (b[i] === 0x7d) return out;
  for (;;) {
    if (b[i] !== 0x22) bad(i, "JSON object key expected");
    const kEnd = skipString(b, i);
    const key = JSON.parse(utf8.decode(b.subarray(i, kEnd))) as string;
    i = jsonWs(b, kEnd);
    if (b[i] !== 0x3a) bad(i, "':' expected");
    const vs = jsonWs(b, i + 1);
    const ve = jsonSkip(b, vs);
    out.push([key, [vs, ve]]);
    i = jsonWs(b, ve);
    if (b[i] === 0x2c) i = jsonWs(b, i + 1);
    else if (b[i] === 0x7d) return out;
    else bad(i, "',' or '}' expected");
  }
}

/** The spans of the elements of the JSON array at `p`. */
export function jsonElements(b: Uint8Array, p: number): Span[] {
  const out: Span[] = [];
  let i = jsonWs(b, p + 1);
  if (b[i] === 0x5d) return out;
  for (;;) {
    const e = jsonSkip(b, i);
    out.push([i, e]);
    i = jsonWs(b, e);
    if (b[i] === 0x2c) i = jsonWs(b, i + 1);
    else if (b[i] === 0x5d) return out;
    else bad(i, "',' or ']' expected");
  }
}

/** The spans of the elements of the msgpack array at `p`, or undefined when the value there is not an array. */
export function msgpackElements(b: Uint8Array, p: number): Span[] | undefined {
  const t = b[p]!;
  let n: number;
  let q: number;
  if (t >= 0x90 && t <= 0x9f) [n, q] = [t & 0x0f, p + 1];
  else if (t === 0xdc) [n, q] = [(b[p + 1]! << 8) | b[p + 2]!, p + 3];
  else if (t === 0xdd) [n, q] = [((b[p + 1]! << 24) >>> 0) + ((b[p + 2]! << 16) | (b[p + 3]! << 8) | b[p + 4]!), p + 5];
  else return undefined;
  const out: Span[] = [];
  for (let i = 0; i < n; i++) {
    const e = skip(b, q);
    out.push([q, e]);
    q = e;
  }
  return out;
}

/** Offset of the data of the msgpack ext value at `p`. */
function extData(b: Uint8Array, p: number): number {
  const t = b[p]!;
  if (t >= 0xd4 && t <= 0xd8) return p + 2;
  if (t === 0xc7) return p + 3;
  if (t === 0xc8) return p + 4;
  return p + 6;
}

const MESSAGE_ID = /"id"\s*:\s*\[\s*"(?:langchain_core|langchain)"[^\]]*?"([A-Z][A-Za-z]*Message(?:Chunk)?)"\s*\]/;

/**
 * The LangChain message class of the serialized value `b[s, e)`, or undefined when it is not a message. JSON: an lc:1
 * record `{"lc":1,"type":"constructor","id":[…,"HumanMessage"],…}` (the id is looked for in the record's first 400
 * bytes, where both libraries write it); msgpack: ext 5 (or 4) `[module langchain_core.messages…, class, …]`.
 */
export function messageClassAt(b: Uint8Array, s: number, e: number, serde: "json" | "msgpack"): string | undefined {
  if (serde === "json") {
    if (b[s] !== 0x7b) return undefined;
    const head = utf8.decode(b.subarray(s, Math.min(e, s + 400)));
    if (!head.includes('"lc"')) return undefined;
    return MESSAGE_ID.exec(head)?.[1];
  }
  const ext = extTypeAt(b, s);
  if (ext !== 5 && ext !== 4) return undefined;
  const d = extData(b, s);
  const parts = msgpackElements(b, d);
  if (!parts || parts.length < 2) return undefined;
  const mod = mpDecode(b.subarray(parts[0]![0], parts[0]![1]));
  const cls = mpDecode(b.subarray(parts[1]![0], parts[1]![1]));
  return typeof mod === "string" && mod.startsWith("langchain_core.messages") && typeof cls === "string"
    ? cls
    : undefined;
}

/** One channel value inside a serialized checkpoint: its name and bytes. */
export interface ChannelSpan {
  channel: string;
  span: Span;
}

/** The channel values of a SQLite-layout checkpoint (JSON or msgpack) and its `ts`, as byte spans of `b`. */
export function checkpointChannels(b: Uint8Array, serde: "json" | "msgpack"): { channels: ChannelSpan[]; ts?: string } {
  const channels: ChannelSpan[] = [];
  let ts: string | undefined;
  if (serde === "msgpack") {
    for (const [k, raw] of mapEntries(b)) {
      if (k === "ts") {
        const v = mpDecode(raw);
        if (typeof v === "string") ts = v;
      } else if (k === "channel_values") {
        for (const [ch, v] of mapEntries(raw)) {
          const s = v.byteOffset - b.byteOffset;
          channels.push({ channel: ch, span: [s, s + v.length] });
        }
      }
    }
    return ts === undefined ? { channels } : { channels, ts };
  }
  for (const [k, [s, e]] of jsonEntries(b)) {
    if (k === "ts" && b[s] === 0x22) ts = JSON.parse(utf8.decode(b.subarray(s, e))) as string;
    else if (k === "channel_values" && b[s] === 0x7b)
      for (const [ch, span] of jsonEntries(b, s)) channels.push({ channel: ch, span });
  }
  return ts === undefined ? { channels } : { channels, ts };
}

/** The elements of a serialized list value at `span` (JSON array or msgpack array), or undefined when not a list. */
export function listElements(b: Uint8Array, span: Span, serde: "json" | "msgpack"): Span[] | undefined {
  if (serde === "json") return b[span[0]] === 0x5b ? jsonElements(b, span[0]) : undefined;
  return msgpackElements(b, span[0]);
}
