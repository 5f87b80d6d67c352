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
import { decodeTyped, jsonTextFacts, normalizeParsed, normalizes, type DecodeSink, type JsonTextFacts } from "./serde.js";

/** The last list decoded for a channel: its bytes, its value (as decoded) and the facts of its text. */
interface ListMemo extends JsonTextFacts {
  bytes: Buffer;
  value: unknown[];
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
/** the suffix is decoded on its own: a BOM there is a character of N, not a mark to drop */
const suffixUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const anyUtf8 = new TextDecoder("utf-8");

const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/** `data` decoded as the full decode would, reusing `prev`'s items; undefined when it is not `prev` extended or equal. */
export function decodeExtended(prev: ListMemo, data: Buffer): ListMemo | undefined {
  const p = prev.bytes;
  const n = p.length;
  if (data.length === n) return data.equals(p) ? { ...prev, bytes: data, value: prev.value.slice() } : undefined;
  if (data.length <= n || data[n - 1] !== COMMA || data[data.length - 1] !== CLOSE || typeof prev.value[prev.value.length - 1] === "string") return undefined;
  if (data.compare(p, 0, n - 1, 0, n - 1) !== 0) return undefined;
  let text: string;
  let items: unknown;
  try {
    text = suffixUtf8.decode(data.subarray(n));
    items = JSON.parse("[" + text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const s = jsonTextFacts(text);
  const facts = { lc: prev.lc || s.lc, old: prev.old || s.old, undef: prev.undef || s.undef };
  const norm = normalizes(facts);
  if (norm && !normalizes(prev)) return undefined; // the earlier items would be normalized now: the full decode does it
  if (norm) normalizeParsed(items);
  return { ...facts, bytes: data, value: prev.value.concat(items) };
}

/**
 * Blob decoding for one scan: `json` lists per channel of the current (thread, namespace) decoded incrementally
 * (see the module comment); everything else, and every fallback, by `decodeTyped`. What is kept is one list per
 * channel of the current (thread, namespace).
 */
export class ListDecoder {
  private group = "";
  private lists = new Map<string, ListMemo>();

  decode(row: LgRowRef, channel: string, type: LgSerdeType, data: Uint8Array | null, sink: DecodeSink): unknown {
    const group = `${row.threadId}\u0000${row.namespace}`;
    if (group !== this.group) {
      this.group = group;
      this.lists.clear();
    }
    if (type !== "json" || !(data instanceof Uint8Array) || data.length < 2) return decodeTyped(type, data, sink);
    const bytes = asBuffer(data);
    const prev = this.lists.get(channel);
    const next = prev && decodeExtended(prev, bytes);
    if (next) {
      this.lists.set(channel, next);
      return next.value;
    }
    const before = sink.issues.length;
    const value = decodeTyped(type, bytes, sink);
    if (Array.isArray(value) && value.length > 0 && sink.issues.length === before && bytes[0] === OPEN && bytes[bytes.length - 1] === CLOSE) {
      this.lists.set(channel, { ...jsonTextFacts(anyUtf8.decode(bytes)), bytes, value });
    } else this.lists.delete(channel);
    return value;
  }
}
