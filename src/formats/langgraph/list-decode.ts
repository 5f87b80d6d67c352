/**
 * Decoding the `json` list blobs of a scan incrementally. Each checkpoint of a thread holds the whole conversation,
 * and LangGraph writes a channel's list as one JSON text: the `messages` blob of a checkpoint is usually the previous
 * one's text with items appended (`[a,b]` → `[a,b,c]`). When the new bytes are the previous bytes without their
 * closing `]`, then `,`, then more, only that suffix is parsed and the previous items are reused as they are (the
 * same objects: a consumer can tell unchanged items by identity). Anything that does not line up — other bytes, a
 * text that is not a list, bytes that are not UTF-8, a suffix that does not parse, a normalization that would now
 * apply to the earlier items — falls back to the full decode (serde.ts `decodeTyped`), so values and issues are
 * exactly the full decode's. Pure.
 *
 * Why the reuse is exact: the previous text P = `[` … `]` decoded in full (or so by induction) to a non-empty list,
 * and the new text is N = P′ `,` S with P′ = P minus its last byte. JSON's grammar makes N a list iff `[` S is a
 * non-empty list, and N's items are then P's items followed by `[` S's, each parsed from the same text. UTF-8: P′
 * ends at a character boundary (P's last byte is ASCII), so N is valid iff S is. Normalization (serde.ts
 * `decodeJson`) is per item and decided by matches in the text; a match in N lies in P′, in S, or spans the `,` —
 * the literals hold no `,`, and OLD_LC1 can cross a `,` of N's top level only right after a string item, so when P's
 * last item is not a string N's facts are P's or S's. Items already normalized stay as normalizing them again gives.
 */
import type { LgRowRef, LgSerdeType } from "./types.js";
import {
  decodeTyped,
  jsonTextFacts,
  normalizeParsed,
  normalizes,
  type DecodeSink,
  type JsonTextFacts,
} from "./serde.js";

/**
 * The last list decoded for a channel: its bytes — or their UTF-8 text, when the reader had the server send the
 * text (the server checked the bytes are UTF-8, so `Buffer.from(text)` is the bytes) — their length in bytes, its
 * value (as decoded) and the facts of its text.
 */
interface ListMemo extends JsonTextFacts {
  bytes?: Buffer;
  text?: string;
  n: number;
  value: unknown[];
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
/** the suffix is decoded on its own: a BOM there is a character of N, not a mark to drop */
const suffixUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const anyUtf8 = new TextDecoder("utf-8");

const asBuffer = (u: Uint8Array): Buffer =>
  Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The items after `prev`'s, parsed from the text after the comma, and the facts of the whole; undefined when they do not line up. */
function extendWith(prev: ListMemo, tail: string): (JsonTextFacts & { value: unknown[] }) | undefined {
  if (tail.charCodeAt(tail.length - 1) !== CLOSE || typeof prev.value[prev.value.length - 1] === "string")
    return undefined;
  let items: unknown;
  try {
    items = JSON.parse("[" + tail);
  } catch {
    return undefined;
  }
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const s = jsonTextFacts(tail);
  const facts = { lc: prev.lc || s.lc, old: prev.old || s.old, undef: prev.undef || s.undef };
  const norm = normalizes(facts);
  if (norm && !normalizes(prev)) return undefined; // the earlier items would be normalized now: the full decode does it
  if (norm) normalizeParsed(items);
  return { ...facts, value: prev.value.concat(items) };
}

/** `data` decoded as the full decode would, reusing `prev`'s items; undefined when it is not `prev` extended or equal. */
export function decodeExtended(prev: ListMemo, data: Buffer): ListMemo | undefined {
  const p = prev.bytes;
  if (!p) return undefined;
  const n = p.length;
  if (data.length === n) return data.equals(p) ? { ...prev, bytes: data, value: prev.value.slice() } : undefined;
  if (data.length <= n || data[n - 1] !== COMMA || data.compare(p, 0, n - 1, 0, n - 1) !== 0) return undefined;
  let tail: string;
  try {
    tail = suffixUtf8.decode(data.subarray(n));
  } catch {
    return undefined;
  }
  const next = extendWith(prev, tail);
  return next && { ...next, bytes: data, n: data.length };
}

/** The same for the blob's UTF-8 text (compared as text; the new part's size in bytes counted, not encoded). */
export function decodeExtendedText(prev: ListMemo, text: string): ListMemo | undefined {
  const p = prev.text;
  if (p === undefined) return undefined;
  const m = p.length;
  if (text.length === m) return text === p ? { ...prev, value: prev.value.slice() } : undefined;
  if (text.length <= m || text.charCodeAt(m - 1) !== COMMA || text.slice(0, m - 1) !== p.slice(0, m - 1))
    return undefined;
  const tail = text.slice(m);
  const next = extendWith(prev, tail);
  return next && { ...next, text, n: prev.n + Buffer.byteLength(tail) };
}

/** A blob row as a scan hands it over: its bytes, or (`text`, json only) their UTF-8 text. */
export interface ListBlob {
  type: LgSerdeType;
  blob: Uint8Array | null;
  text?: string;
}

/**
 * Blob decoding for one scan: `json` lists per channel of the current (thread, namespace) decoded incrementally
 * (see the module comment); everything else, and every fallback, by `decodeTyped` on the blob's bytes. What is kept
 * is one list per channel of the current (thread, namespace). Returns the value and the blob's size in bytes.
 */
export class ListDecoder {
  private group = "";
  private lists = new Map<string, ListMemo>();

  decode(row: LgRowRef, channel: string, b: ListBlob, sink: DecodeSink): { value: unknown; bytes: number } {
    const group = `${row.threadId}\u0000${row.namespace}`;
    if (group !== this.group) {
      this.group = group;
      this.lists.clear();
    }
    const text = b.text;
    const data = text !== undefined ? undefined : b.blob ? asBuffer(b.blob) : undefined;
    if (b.type !== "json" || (text === undefined && !data)) {
      this.lists.delete(channel);
      return { value: decodeTyped(b.type, b.blob, sink), bytes: b.blob?.byteLength ?? 0 };
    }
    const prev = this.lists.get(channel);
    const next = prev && (text !== undefined ? decodeExtendedText(prev, text) : decodeExtended(prev, data!));
    if (next) {
      this.lists.set(channel, next);
      return { value: next.value, bytes: next.n };
    }
    const bytes = data ?? Buffer.from(text!);
    const before = sink.issues.length;
    const value = decodeTyped(b.type, bytes, sink);
    if (
      Array.isArray(value) &&
      value.length > 0 &&
      sink.issues.length === before &&
      bytes[0] === OPEN &&
      bytes[bytes.length - 1] === CLOSE
    ) {
      const memo = text !== undefined ? { text } : { bytes };
      this.lists.set(channel, { ...jsonTextFacts(text ?? anyUtf8.decode(bytes)), ...memo, n: bytes.length, value });
    } else this.lists.delete(channel);
    return { value, bytes: bytes.length };
  }
}
