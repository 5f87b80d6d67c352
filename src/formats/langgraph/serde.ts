/**
 * Decoding LangGraph payloads into the normal form of ./types.ts: JS `json` (lc:1/lc:2 records), Python `msgpack`
 * (ormsgpack with extension codes 0–7, LANGGRAPH.md §5.2), and every `type` tag (§5.1). Pure: bytes in, values out.
 * Failures never throw: they are recorded as `LgDecodeIssue`s in the caller's sink and the value is `undefined`.
 */
import { Decoder, ExtensionCodec } from "@msgpack/msgpack";
import type {
  Lc2Constructor,
  LcMessage,
  LgCheckpoint,
  LgDecodeIssue,
  LgLibrary,
  LgRowRef,
  LgSerdeType,
  LgVersion,
} from "./types.js";
import { isRecord } from "./types.js";
import { AES_KEY_HINT, type AesKey } from "./aes-key.js";
import { openAesPayload } from "./eax.js";

/** Where a decoded value goes, for issues: the row and the pointer inside the tuple document; issues are pushed to `issues`. */
export interface DecodeSink {
  row: LgRowRef;
  pointer: string;
  issues: LgDecodeIssue[];
  /** the key of the store the row comes from, for its encrypted payloads (./aes-key.ts); none: they do not open */
  aesKey?: AesKey;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** JS's lc:2 Uint8Array record (what LangGraph JS writes for bytes). */
export function bytesRecord(b: Uint8Array): Lc2Constructor {
  return { lc: 2, type: "constructor", id: ["Uint8Array"], method: "from", args: [Array.from(b)], kwargs: {} };
}

// ---------------------------------------------------------------------------------------------------------------
// LangChain messages

const MESSAGE_MODULES = /^langchain_core\.messages(\.|$)/;
const MESSAGE_CLASS = /^[A-Z][A-Za-z]*Message(Chunk)?$/;

/** Python `model_dump()` of a message → the JS lc:1 record (kwargs minus `type`, `example`, null-valued keys). */
export function messageFromDump(cls: string, dump: Record<string, unknown>): LcMessage {
  const kwargs: Record<string, unknown> = {};
  for (const k in dump) {
    const v = dump[k];
    if (k === "type" || k === "example" || v === null || v === undefined) continue;
    kwargs[k] = v;
  }
  return { lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs };
}

/**
 * An lc:1 record from any writer → the normal id `["langchain_core","messages",Class]`: pre-2024 Python
 * `["langchain","schema","messages","HumanMessage"]` and `["langchain_core","messages","human","HumanMessage"]`.
 * Non-message lc:1 records are returned as they are.
 */
function normalizeLc1(v: Record<string, unknown>): Record<string, unknown> {
  const id = v.id as unknown[];
  const cls = id[id.length - 1];
  if (typeof cls !== "string" || !MESSAGE_CLASS.test(cls) || (id[0] !== "langchain" && id[0] !== "langchain_core"))
    return v;
  if (id.length === 3 && id[0] === "langchain_core" && id[1] === "messages") return v;
  const kwargs = isRecord(v.kwargs) ? { ...v.kwargs } : {};
  delete kwargs.type;
  return { ...v, id: ["langchain_core", "messages", cls], kwargs };
}

const isUndefinedRecord = (v: unknown) => isRecord(v) && v.lc === 2 && v.type === "undefined";

/**
 * Normalize a JSON-decoded value in place: old lc:1 message ids, and object properties holding JS's
 * `{lc:2, type:"undefined"}` record dropped (LangGraph JS revives them to `undefined`, i.e. an absent property).
 */
function normalizeJsonValue(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = normalizeJsonValue(v[i]);
    return v;
  }
  if (!isRecord(v)) return v;
  for (const k in v) {
    if (isUndefinedRecord(v[k])) delete v[k];
    else v[k] = normalizeJsonValue(v[k]);
  }
  return v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) ? normalizeLc1(v) : v;
}

/**
 * Only JSON texts that may hold a non-normal message id need the walk (most JS texts do not). One regex scan: V8
 * finds its literal parts fast, and it is exact where substring pre-tests would miss whitespace variants.
 */
const OLD_LC1 = /"id"\s*:\s*\[\s*"langchain"\s*,|"langchain_core"\s*,\s*"messages"\s*,\s*"[a-z]/;
/**
 * OLD_LC1 or a JS `undefined` record's `"undefined"`: what decodeJson tests a text with `"lc"` for, in one scan (two
 * scans — the regular expression, then the literal — took twice as long over the same texts: ~2.3 ms against
 * ~1.0 ms a megabyte of the search bench's checkpoints).
 */
const NEEDS_NORMALIZING = new RegExp(`"undefined"|${OLD_LC1.source}`);
/**
 * A looser pattern that matches wherever NEEDS_NORMALIZING (or OLD_LC1) does — each of its alternatives is a part of
 * one of theirs — without their leading quote: the regular expression engine then tries a match at each `u` or `l`
 * that starts one of its literals, not at every `"` of the text. Tested first, it rules out a text that needs nothing
 * in less than half the time (the search bench's 71 MB of checkpoints: ~22 ms against ~52 ms); a text it passes is
 * then tested with the exact pattern, so what is normalized does not change.
 */
const MAY_NEED_NORMALIZING = /undefined"|langchain"\s*,|langchain_core"\s*,\s*"messages"\s*,\s*"[a-z]/;

// ---------------------------------------------------------------------------------------------------------------
// msgpack (Python ormsgpack + ext codes 0–7)

let sink: DecodeSink | undefined; // the current decode's sink (decoding is synchronous)

function issue(reason: string, message: string, fatal: boolean): void {
  if (sink) sink.issues.push({ row: sink.row, pointer: sink.pointer, reason, message, fatal });
}

function ctor(ext: number, payload: unknown): Lc2Constructor | unknown {
  if (!Array.isArray(payload) || typeof payload[0] !== "string" || typeof payload[1] !== "string") {
    issue(
      "ext",
      `msgpack extension ${ext}: expected [module, name, …], got ${JSON.stringify(payload)?.slice(0, 80)}`,
      false,
    );
    return payload;
  }
  const [module, name] = payload as [string, string];
  const id = [...module.split("."), name];
  const rec = (method: string | null, args: unknown[], kwargs: Record<string, unknown>): Lc2Constructor => ({
    lc: 2,
    type: "constructor",
    id,
    method,
    args,
    kwargs,
    ext,
  });
  switch (ext) {
    case 0:
      return rec(null, [payload[2]], {});
    case 1:
      return rec(null, Array.isArray(payload[2]) ? payload[2] : [payload[2]], {});
    case 2:
    case 4:
      return rec(null, [], isRecord(payload[2]) ? payload[2] : {});
    case 3:
      return rec(typeof payload[3] === "string" ? payload[3] : null, [payload[2]], {});
    default: {
      // 5: pydantic v2, LangChain messages among them
      if (MESSAGE_MODULES.test(module) && isRecord(payload[2]) && MESSAGE_CLASS.test(name))
        return messageFromDump(name, payload[2]);
      return rec(typeof payload[3] === "string" ? payload[3] : null, [], isRecord(payload[2]) ? payload[2] : {});
    }
  }
}

const codec = new ExtensionCodec();
const decoders: Decoder[] = [];
let depth = 0;

function nested(data: Uint8Array): unknown {
  const d = (decoders[depth] ??= makeDecoder());
  depth++;
  try {
    return d.decode(data);
  } finally {
    depth--;
  }
}

for (let ext = 0; ext <= 5; ext++) {
  codec.register({ type: ext, encode: () => null, decode: (data) => ctor(ext, nested(data)) });
}
codec.register({
  type: 6, // numpy: [dtype, shape, order, buffer]
  encode: () => null,
  decode: (data) => {
    const p = nested(data) as unknown[];
    const args = Array.isArray(p) ? p.map((x) => (x instanceof Uint8Array ? bytesRecord(x) : x)) : [p];
    return {
      lc: 2,
      type: "constructor",
      id: ["numpy", "ndarray"],
      method: null,
      args,
      kwargs: {},
      ext: 6,
    } satisfies Lc2Constructor;
  },
});
codec.register({
  type: 7,
  encode: () => null,
  decode: (data) => ({ lc: 2, type: "delta_snapshot", value: nested(data) }),
});

function mapKey(key: unknown): string | number {
  if (typeof key === "string") return key;
  if (typeof key === "number") {
    issue("map-key", `msgpack map key ${key} is a number: read as the string "${key}"`, false);
    return String(key);
  }
  const text = JSON.stringify(key, (_k, v) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Array.from(v) : v,
  );
  issue(
    "map-key",
    `msgpack map key is not a string (${Array.isArray(key) ? "array" : typeof key}): read as the JSON text ${text}`,
    false,
  );
  return text;
}

function makeDecoder(): Decoder {
  return new Decoder({ extensionCodec: codec, useBigInt64: true, mapKeyConverter: mapKey });
}

/** bigints → numbers, Uint8Array → bytes records (only for payloads whose bytes hold a bin or 64-bit int marker). */
function fixBinAndBigInt(v: unknown): unknown {
  if (typeof v === "bigint") {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) issue("big-int", `integer ${v} does not fit a double exactly: read as ${n}`, false);
    return n;
  }
  if (v instanceof Uint8Array) return bytesRecord(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = fixBinAndBigInt(v[i]);
  } else if (isRecord(v)) {
    for (const k in v) v[k] = fixBinAndBigInt(v[k]);
  }
  return v;
}

/** Decode a Python msgpack payload (throws on malformed data; see `decodeTyped` for the non-throwing form). */
export function decodeMsgpack(data: Uint8Array): unknown {
  const v = nested(data);
  // bin8/16/32, uint64, int64 markers: a byte scan is a cheap superset test (the bytes may also sit inside strings)
  if (data.includes(0xc4) || data.includes(0xc5) || data.includes(0xc6) || data.includes(0xcf) || data.includes(0xd3))
    return fixBinAndBigInt(v);
  return v;
}

/** Decode a JSON payload (text or UTF-8 bytes) into normal form (throws on malformed data). */
export function decodeJson(data: Uint8Array | string): unknown {
  const text = typeof data === "string" ? data : utf8.decode(data);
  const v = JSON.parse(text);
  return text.includes('"lc"') && MAY_NEED_NORMALIZING.test(text) && NEEDS_NORMALIZING.test(text)
    ? normalizeJsonValue(v)
    : v;
}

/**
 * The facts about a JSON text that decide whether `decodeJson` normalizes its value: it does when `lc` and (`old` or
 * `undef`). Each is a match inside the text (a literal or OLD_LC1), so the facts of a longer text whose new part
 * cannot complete a match begun before it are those of its parts or-ed (./list-decode.ts).
 */
export interface JsonTextFacts {
  lc: boolean;
  old: boolean;
  undef: boolean;
}

export function jsonTextFacts(text: string): JsonTextFacts {
  const may = MAY_NEED_NORMALIZING.test(text);
  return { lc: text.includes('"lc"'), old: may && OLD_LC1.test(text), undef: may && text.includes('"undefined"') };
}

export const normalizes = (f: JsonTextFacts): boolean => f.lc && (f.old || f.undef);

/** Normalize a value that arrived already parsed (Postgres JSONB). */
export function normalizeParsed(v: unknown): unknown {
  return normalizeJsonValue(v);
}

/**
 * Decode one typed payload (§5.1). `type` null is read as `json` (what JS does). `empty` decodes to undefined
 * without an issue (the caller treats the channel as having no value). Anything that fails is an issue in `s`.
 */
export function decodeTyped(
  type: LgSerdeType | null | undefined,
  data: Uint8Array | string | null | undefined,
  s: DecodeSink,
): unknown {
  const t = type ?? "json";
  const prev = sink;
  sink = s;
  try {
    switch (t) {
      case "json":
        if (data === null || data === undefined) return fail("json", "a json payload is missing (NULL)");
        if (typeof data === "string" && data.includes("\uFFFD")) {
          s.issues.push({
            row: s.row,
            pointer: s.pointer,
            reason: "utf8",
            message: "the json payload holds U+FFFD: invalid UTF-8 bytes (or a replacement character)",
            fatal: false,
          });
        }
        return decodeJson(data);
      case "msgpack":
        if (data === null || data === undefined) return fail("msgpack", "a msgpack payload is missing (NULL)");
        return decodeMsgpack(typeof data === "string" ? Buffer.from(data, "latin1") : data);
      case "null":
        return null;
      case "empty":
        return undefined;
      case "bytes":
      case "bytearray":
        return bytesRecord(typeof data === "string" ? Buffer.from(data, "utf8") : (data ?? new Uint8Array()));
      case "pickle":
        return fail(
          "pickle",
          "a pickle payload (Python pickle: the serde of langgraph before 0.0.39, later pickle_fallback=True): ckpt does not unpickle",
        );
      default:
        if (t.includes("+")) return decrypted(t, data, s);
        return fail(
          "unknown-type",
          `unknown serialization type '${t}': expected json, msgpack, null, bytes, bytearray, empty`,
        );
    }
  } catch (e) {
    return fail(t === "json" ? "json" : "msgpack", `${t} payload does not decode: ${(e as Error).message}`);
  } finally {
    sink = prev;
  }
  function fail(reason: string, message: string): undefined {
    s.issues.push({ row: s.row, pointer: s.pointer, reason, message, fatal: true });
    return undefined;
  }
}

/**
 * An encrypted payload (`<type>+<cipher>`, LangGraph's EncryptedSerializer: the type splits on the first `+`): opened
 * with the store's key (`s.aesKey`, ./aes-key.ts) and decoded with its inner type; without the key, or with one that does not open it, an
 * issue that says so.
 */
function decrypted(t: string, data: Uint8Array | string | null | undefined, s: DecodeSink): unknown {
  const plus = t.indexOf("+");
  const inner = t.slice(0, plus);
  const cipher = t.slice(plus + 1);
  const fail = (message: string) => {
    s.issues.push({ row: s.row, pointer: s.pointer, reason: "encrypted", message, fatal: true });
    return undefined;
  };
  if (cipher !== "aes") return fail(`an encrypted payload (${t}): ckpt knows the 'aes' cipher only`);
  const k = s.aesKey;
  if (!k) return fail(`an encrypted payload (${t}): ${AES_KEY_HINT}`);
  if (k.key.length !== 16 && k.key.length !== 24 && k.key.length !== 32)
    return fail(
      `an encrypted payload (${t}): the key (${k.from}) has ${k.key.length} bytes; an AES key has 16, 24 or 32`,
    );
  const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : data;
  const plain = bytes ? openAesPayload(k.key, bytes) : undefined;
  if (!plain)
    return fail(
      `an encrypted payload (${t}) that the key (${k.from}) does not open: a different key, or a damaged row (EAX tag mismatch)`,
    );
  return decodeTyped(inner, plain, s);
}

/**
 * Metadata (§1.1): Python SQLite stores JSON text under the checkpoint's `msgpack` tag; JS decodes it with the row's
 * type. So: JSON first, then the tag.
 */
export function decodeMetadata(
  type: LgSerdeType | null | undefined,
  data: Uint8Array | string | null | undefined,
  s: DecodeSink,
): unknown {
  if (data === null || data === undefined) return {};
  try {
    return decodeJson(data);
  } catch {
    if (type && type !== "json") return decodeTyped(type, data, s);
    return decodeTyped("json", data, s); // records the JSON error
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Facts about decoded checkpoints

/** Which library wrote a checkpoint: version types first, then serde tags, then the ts format (§2.1, §3). */
export function detectLibrary(
  cp: Partial<LgCheckpoint> | undefined,
  serde: Array<LgSerdeType | null | undefined>,
): LgLibrary {
  const versions = cp && isRecord(cp.channel_versions) ? Object.values(cp.channel_versions) : [];
  if (versions.some((v) => typeof v === "string")) return "python";
  if (serde.some((t) => t === "msgpack" || t === "null" || t === "bytearray")) return "python";
  if (versions.some((v) => typeof v === "number")) return "js";
  if (typeof cp?.ts === "string")
    return cp.ts.endsWith("Z") ? "js" : /[+-]\d\d:\d\d$/.test(cp.ts) ? "python" : "unknown";
  return "unknown";
}

/** Messages in a checkpoint's `messages` channel, or null when it has none. */
export function messageCount(channelValues: Record<string, unknown> | undefined): number | null {
  let m = channelValues?.messages;
  // a DeltaChannel snapshot not yet unwrapped (./delta.ts)
  if (isRecord(m) && m.lc === 2 && m.type === "delta_snapshot") m = m.value;
  return Array.isArray(m) ? m.length : null;
}

/** Compare two channel versions as the libraries do (numbers numerically, strings by code unit). */
export function compareVersions(a: LgVersion, b: LgVersion): number {
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
