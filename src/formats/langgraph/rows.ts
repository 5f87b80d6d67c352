/**
 * LangGraph store rows, store-neutral, and the PostgreSQL channel split (LANGGRAPH.md §1.3, §9).
 *
 * The unit everything moves in is `LgCheckpoint`: a checkpoint in the SQLite layout (the whole serialized checkpoint
 * with its `channel_values`, metadata as JSON text) with its pending writes. PostgreSQL keeps the same checkpoint as a
 * JSONB row plus `checkpoint_blobs`; `splitForPostgres` / `assembleFromPostgres` go between the two exactly as the
 * libraries do on put / get:
 * - Python: None/str/int/float/bool channel values stay inline in the JSONB `channel_values`; a delta snapshot
 *   (ext 7) goes to a blob with the inline sentinel `true`; anything else is a `msgpack` blob. Blob bytes are the
 *   value's own bytes inside the checkpoint (msgpack is context-free), never re-encoded.
 * - JS: `channel_values` leaves the JSONB; every channel in `channel_versions` gets a blob row, `json` or
 *   (`empty`, NULL) when the checkpoint has no value for it. Channel values that have no version at all (JS keeps
 *   defaults such as `"total": 0`, `"__pregel_tasks": []` in SQLite) cannot be blobs; they stay in the JSONB
 *   `channel_values`, which the JS reader ignores, so that PostgreSQL → SQLite gives them back.
 */
import { encode as mpEncode, ExtData } from "@msgpack/msgpack";
import { inputError } from "../../base/errors.js";
import { buildMap, decodePlain, extTypeAt, isPrimitiveAt, mapEntries } from "./msgpack.js";
import { pythonJsonDumps, EXT, type Library } from "./encode.js";
import { createHmac } from "node:crypto";
import { AES_KEY_HINT, type AesKey } from "./aes-key.js";
import { eaxEncrypt, openAesPayload } from "./eax.js";

export interface LgWrite {
  taskId: string;
  idx: number;
  channel: string;
  /** serde tag (`msgpack`, `json`, `null`, `bytes`, …) */
  type: string | null;
  value: Uint8Array;
  /** Python PostgresSaver only; "" elsewhere */
  taskPath: string;
}

export interface LgCheckpoint {
  threadId: string;
  ns: string;
  id: string;
  parentId: string | null;
  /** serde tag of the checkpoint payload (`msgpack`, `json`; NULL on legacy JS rows) */
  type: string | null;
  /** the whole serialized checkpoint, `channel_values` included (SQLite layout) */
  checkpoint: Uint8Array;
  /** metadata as JSON text (what SQLite stores) */
  metadata: Uint8Array;
  writes: LgWrite[];
  /**
   * why this checkpoint must not be written as read (set by a transform of the rows: `--redact` that cannot rewrite
   * one of its payloads); the migration rejects it, and its descendants with it
   */
  refused?: string;
}

export interface PgCheckpointRow {
  threadId: string;
  ns: string;
  id: string;
  parentId: string | null;
  /** JSONB text */
  checkpoint: string;
  /** JSONB text */
  metadata: string;
}

export interface PgBlobRow {
  threadId: string;
  ns: string;
  channel: string;
  version: string;
  type: string;
  blob: Uint8Array | null;
}

type Obj = Record<string, unknown>;
const name = (c: { threadId: string; ns: string; id: string }) => `${c.threadId}${c.ns ? `|${c.ns}` : ""}@${c.id}`;

/** A JS number as PostgreSQL's numeric prints the JSON text `JSON.stringify` gives for it (exponents written out). */
function numberText(n: number): string {
  if (!Number.isFinite(n)) return "null";
  const s = JSON.stringify(n);
  const e = s.indexOf("e");
  if (e < 0) return s;
  const neg = s[0] === "-";
  const m = s.slice(neg ? 1 : 0, e);
  const dot = m.indexOf(".");
  const digits = dot < 0 ? m : m.slice(0, dot) + m.slice(dot + 1);
  const point = (dot < 0 ? m.length : dot) + Number(s.slice(e + 1));
  const body =
    point <= 0
      ? `0.${"0".repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + "0".repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${body}` : body;
}

/** JSONB's key order: shorter (in UTF-8 bytes) first, then byte by byte. */
function jsonbKeyOrder(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  if (la === a.length && lb === b.length) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * Sort object keys in JSONB's order, in place. ASCII keys (nearly all) compare by length, then as strings, with no
 * byte lengths to work out; a few keys are insertion-sorted (Array#sort allocates a work array per call).
 */
function sortJsonbKeys(keys: string[]): void {
  const n = keys.length;
  if (n < 2) return;
  for (let i = 0; i < n; i++) {
    if (NON_ASCII.test(keys[i]!)) {
      keys.sort(jsonbKeyOrder);
      return;
    }
  }
  if (n > 16) {
    keys.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    return;
  }
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    let j = i - 1;
    for (; j >= 0; j--) {
      const x = keys[j]!;
      if (x.length < k.length || (x.length === k.length && x < k)) break;
      keys[j + 1] = x;
    }
    keys[j + 1] = k;
  }
}

/** `"key": ` for the keys seen so far (checkpoints repeat theirs: channel names, node names, v, ts, id …) */
let keyTexts = new Map<string, string>();
const keyText = (k: string): string => {
  let t = keyTexts.get(k);
  if (t === undefined) {
    if (keyTexts.size >= 4096) keyTexts = new Map();
    keyTexts.set(k, (t = JSON.stringify(k) + ": "));
  }
  return t;
};

/**
 * A JSON value as PostgreSQL prints it back from a JSONB column (`jsonb::text`): object keys in JSONB's order,
 * `", "` and `": "` between items, numbers as numeric prints them, strings escaped as `JSON.stringify` does (which is
 * PostgreSQL's escape_json for every string it can hold). U+0000 is stripped as both savers do, JSONB cannot hold it
 * (js:pg/index.ts:264-270, py:ckpt/base/__init__.py:761-774); keys that collide after stripping keep the last value,
 * as JSONB does. Storing this text stores the same JSONB value as `JSON.stringify` would, and the stored row prints
 * back byte for byte the same (what the read-back's hashes rely on).
 */
export function jsonbText(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "string":
      return JSON.stringify(v.includes("\u0000") ? v.replace(/\u0000/g, "") : v);
    case "number":
      return numberText(v);
    case "boolean":
      return v ? "true" : "false";
    case "object":
      break;
    case "bigint":
      throw new TypeError("a BigInt has no JSON form");
    default:
      return "null";
  }
  if (typeof (v as { toJSON?: unknown }).toJSON === "function")
    return jsonbText((v as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    let out = "[" + jsonbText(v[0]);
    for (let i = 1; i < v.length; i++) out += ", " + jsonbText(v[i]);
    return out + "]";
  }
  const o = v as Obj;
  const keys = Object.keys(o);
  // keys of undefined and function values are left out (as JSON.stringify does); a key with NUL takes the slow path
  let n = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = o[k];
    if (x === undefined || typeof x === "function") continue;
    if (k.includes("\u0000")) return nulKeysText(o, Object.keys(o));
    keys[n++] = k;
  }
  if (n === 0) return "{}";
  keys.length = n;
  sortJsonbKeys(keys);
  let out = "{" + keyText(keys[0]!) + jsonbText(o[keys[0]!]);
  for (let i = 1; i < n; i++) out += ", " + keyText(keys[i]!) + jsonbText(o[keys[i]!]);
  return out + "}";
}

/** An object with NUL in a key: keys stripped of NUL, the last value of keys that collide kept (JSONB's way). */
function nulKeysText(o: Obj, all: string[]): string {
  const keys = all.filter((k) => o[k] !== undefined && typeof o[k] !== "function");
  const stripped = new Map(keys.map((k) => [k.replace(/\u0000/g, ""), o[k]]));
  const ks = [...stripped.keys()].sort(jsonbKeyOrder);
  return "{" + ks.map((k) => `${JSON.stringify(k)}: ${jsonbText(stripped.get(k))}`).join(", ") + "}";
}

const utf8 = new TextDecoder("utf-8", { fatal: false });
export const textOf = (b: Uint8Array) => utf8.decode(b);

/** Which library wrote (or will read) a checkpoint: versions are strings in Python, integers in JS (§3). */
export function libraryOfVersions(cp: Obj): Library | undefined {
  const cv = cp.channel_versions as Obj | undefined;
  for (const v of Object.values(cv ?? {})) return typeof v === "string" ? "python" : "js";
  return undefined;
}

/** The checkpoint's library from its serde tag and versions (msgpack is always Python). */
export function libraryOf(cp: LgCheckpoint, fallback: Library): Library {
  if (cp.type === "msgpack") return "python";
  try {
    return libraryOfVersions(JSON.parse(textOf(cp.checkpoint)) as Obj) ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * Metadata as PostgreSQL stores it: NUL stripped (JSONB cannot hold it). Python's own put also drops the legacy
 * `writes` key (§6); a migration keeps it (Python reads it back as metadata), so that nothing is lost.
 */
export const metadataForPostgres = (meta: Uint8Array): string => jsonbText(JSON.parse(textOf(meta) || "{}"));

/** Metadata as SQLite stores it: Python's json.dumps text, or JS's compact JSON. */
export const metadataForSqlite = (jsonb: unknown, lib: Library): Uint8Array =>
  Buffer.from(lib === "python" ? pythonJsonDumps(jsonb) : JSON.stringify(jsonb));

/**
 * Split one checkpoint for PostgreSQL. `seen` holds the blob keys (`channel\0version`) already produced for this
 * (thread, namespace) in this run, so a value shared by many checkpoints is emitted once (the insert is
 * ON CONFLICT DO NOTHING either way, as the libraries write it). An encrypted row is opened and its blobs sealed
 * with `aesKey` (the target store's).
 */
export function splitForPostgres(
  cp: LgCheckpoint,
  lib: Library,
  seen: Set<string>,
  aesKey?: AesKey,
): { row: PgCheckpointRow; blobs: PgBlobRow[]; versions: Obj } {
  if (cp.type?.includes("+")) {
    // an encrypted row (EncryptedSerializer): PostgreSQL keeps the checkpoint as readable JSONB and encrypts the blobs,
    // as Python's PostgresSaver does with the same serializer; so the row is opened, split, and its blobs sealed again
    const plus = cp.type.indexOf("+");
    const cipher = cp.type.slice(plus + 1);
    const open = openRow(cp, cp.type, aesKey);
    const out = splitForPostgres({ ...cp, type: cp.type.slice(0, plus), checkpoint: open }, lib, seen);
    for (const b of out.blobs)
      if (b.blob && b.type !== "empty")
        (b.type = `${b.type}+${cipher}`), (b.blob = sealPayload(needKey(aesKey, name(cp), cp.type), b.blob));
    return out;
  }
  const meta = metadataForPostgres(cp.metadata);
  // the row written out (a { ...base } spread takes V8's slow copy)
  const row = (checkpoint: string): PgCheckpointRow => ({
    threadId: cp.threadId,
    ns: cp.ns,
    id: cp.id,
    parentId: cp.parentId,
    checkpoint,
    metadata: meta,
  });
  const blobs: PgBlobRow[] = [];
  const addBlob = (channel: string, version: unknown, type: string, blob: Uint8Array | null) => {
    if (version === undefined) return;
    const v = String(version);
    const key = `${channel}\u0000${v}`;
    if (seen.has(key)) return;
    seen.add(key);
    blobs.push({ threadId: cp.threadId, ns: cp.ns, channel, version: v, type, blob });
  };
  if (cp.type === "msgpack") {
    const out: Obj = {};
    let values: Array<[string, Uint8Array]> = [];
    for (const [k, raw] of mapEntries(cp.checkpoint)) {
      if (k === "channel_values") values = mapEntries(raw);
      else out[k] = plainValue(raw, cp, k);
    }
    const versions = (out.channel_versions ?? {}) as Obj;
    const inline: Obj = {};
    for (const [ch, raw] of values) {
      if (isPrimitiveAt(raw, 0)) inline[ch] = decodePlain(raw);
      else {
        if (extTypeAt(raw, 0) === EXT.DELTA_SNAPSHOT) inline[ch] = true;
        addBlob(ch, versions[ch], "msgpack", raw);
      }
    }
    return { row: row(jsonbText(withValues(out, inline))), blobs, versions };
  }
  const parsed = JSON.parse(textOf(cp.checkpoint)) as Obj;
  const values = (parsed.channel_values ?? {}) as Obj;
  const versions = (parsed.channel_versions ?? {}) as Obj;
  const rest: Obj = {};
  if (lib === "python") {
    for (const [ch, v] of Object.entries(values)) {
      if (v === null || typeof v !== "object") rest[ch] = v;
      else addBlob(ch, versions[ch], "json", Buffer.from(JSON.stringify(v)));
    }
  } else {
    for (const [ch, ver] of Object.entries(versions)) {
      if (ch in values) addBlob(ch, ver, "json", Buffer.from(JSON.stringify(values[ch])));
      else addBlob(ch, ver, "empty", null);
    }
    for (const [ch, v] of Object.entries(values)) if (!(ch in versions)) rest[ch] = v;
  }
  const { channel_values: _drop, ...others } = parsed;
  const jsonb = lib === "js" && Object.keys(rest).length === 0 ? others : withValues(others, rest);
  return { row: row(jsonbText(jsonb)), blobs, versions };
}

/** The store's key for an encrypted row, or an input error naming the row and how to give the key. */
function needKey(k: AesKey | undefined, where: string, type: string): Uint8Array {
  if (!k)
    throw inputError(
      "langgraph-no-aes-key",
      `the source's rows are encrypted (${type}, LangGraph's EncryptedSerializer; first: checkpoint ${where}) and no key was given, so they cannot be moved into another layout: ${AES_KEY_HINT}`,
    );
  return k.key;
}

function openRow(cp: LgCheckpoint, type: string, aesKey: AesKey | undefined): Uint8Array {
  if (!type.endsWith("+aes"))
    throw inputError("langgraph-encrypted", `checkpoint ${name(cp)}: unknown cipher in '${type}'`);
  const plain = openAesPayload(needKey(aesKey, name(cp), type), cp.checkpoint);
  if (!plain)
    throw inputError(
      "langgraph-encrypted",
      `checkpoint ${name(cp)}: the key does not open this ${type} row (a different key, or a damaged row)`,
    );
  return plain;
}

/**
 * Seal a payload as LangGraph's EncryptedSerializer does: nonce (16) ‖ tag (16) ‖ AES-EAX ciphertext. The library draws
 * the nonce at random; here it is derived from the key and the payload (HMAC-SHA256), so a value that many checkpoints
 * share seals to the same bytes (one blob row, as the library's ON CONFLICT DO NOTHING keeps) and a re-run writes the
 * same rows. Equal payloads then show as equal ciphertexts, nothing more: EAX needs nonces unique per message only.
 */
function sealPayload(key: Uint8Array, plain: Uint8Array): Uint8Array {
  const nonce = createHmac("sha256", key).update("ckpt eax nonce\u0000").update(plain).digest().subarray(0, 16);
  const { ciphertext, tag } = eaxEncrypt(key, nonce, plain);
  return Buffer.concat([nonce, tag, ciphertext]);
}

/** The checkpoint object with `channel_values` placed after v/ts/id, as the libraries order it. */
function withValues(o: Obj, values: Obj): Obj {
  const out: Obj = {};
  for (const k of ["v", "ts", "id"]) if (k in o) out[k] = o[k];
  out.channel_values = values;
  for (const [k, v] of Object.entries(o)) if (!(k in out)) out[k] = v;
  return out;
}

function plainValue(raw: Uint8Array, cp: LgCheckpoint, key: string): unknown {
  const v = decodePlain(raw);
  if (holdsExt(v)) {
    throw inputError(
      "langgraph-checkpoint",
      `checkpoint ${name(cp)}: '${key}' holds a Python object that JSONB cannot store`,
    );
  }
  return v;
}

const holdsExt = (v: unknown): boolean =>
  v instanceof ExtData ||
  v instanceof Uint8Array ||
  (typeof v === "object" && v !== null && Object.values(v).some(holdsExt));

/** A blob as the checkpoint's `channel_values` holds it (type `empty` rows are skipped by the caller). */
export interface BlobValue {
  type: string;
  blob: Uint8Array | null;
}

/**
 * The SQLite-layout checkpoint from a PostgreSQL row (parsed JSONB) and the blobs its `channel_versions` reference
 * (keyed by channel). Python: inline values, then blobs over them (py:pg/__init__.py:579-585), msgpack; JS: blobs
 * (plus the unversioned values this module keeps inline), JSON in `copyCheckpoint` key order. Encrypted blobs are
 * opened, and the checkpoint sealed, with `aesKey` (the source store's).
 */
export function assembleFromPostgres(
  row: { checkpoint: Obj; metadata: unknown },
  blobs: Map<string, BlobValue>,
  lib: Library,
  aesKey?: AesKey,
): { type: string; checkpoint: Uint8Array; metadata: Uint8Array } {
  const cp = row.checkpoint;
  const inline = (cp.channel_values ?? {}) as Obj;
  const sealed = [...blobs.values()].find((b) => b.type.includes("+"));
  if (sealed) {
    // encrypted blobs (EncryptedSerializer): opened, the checkpoint assembled, and sealed whole, as SqliteSaver stores it
    const where = String(cp.id);
    const key = needKey(aesKey, where, sealed.type);
    const open = new Map<string, BlobValue>();
    for (const [ch, b] of blobs) {
      const plus = b.type.indexOf("+");
      if (plus < 0 || !b.blob) open.set(ch, plus < 0 ? b : { type: b.type.slice(0, plus), blob: null });
      else {
        const plain = openAesPayload(key, b.blob);
        if (!plain)
          throw inputError(
            "langgraph-encrypted",
            `checkpoint ${where}: the key does not open the ${b.type} blob of '${ch}'`,
          );
        open.set(ch, { type: b.type.slice(0, plus), blob: plain });
      }
    }
    const a = assembleFromPostgres(row, open, lib);
    return {
      ...a,
      type: `${a.type}+${sealed.type.slice(sealed.type.indexOf("+") + 1)}`,
      checkpoint: sealPayload(key, a.checkpoint),
    };
  }
  if (lib === "python") {
    const values: Array<[string, Uint8Array]> = [];
    const blobbed = new Set<string>();
    for (const [ch, b] of blobs) if (b.type !== "empty") blobbed.add(ch);
    for (const [ch, v] of Object.entries(inline)) if (!blobbed.has(ch)) values.push([ch, mpEncode(v)]);
    for (const [ch, b] of blobs) if (b.type !== "empty") values.push([ch, pyBlobBytes(b)]);
    const entries: Array<[string, Uint8Array]> = [];
    for (const k of ["v", "ts", "id"]) if (k in cp) entries.push([k, mpEncode(cp[k])]);
    entries.push(["channel_values", buildMap(values)]);
    for (const [k, v] of Object.entries(cp))
      if (!["v", "ts", "id", "channel_values"].includes(k)) entries.push([k, mpEncode(v)]);
    return { type: "msgpack", checkpoint: buildMap(entries), metadata: metadataForSqlite(row.metadata, lib) };
  }
  const parts: string[] = [];
  for (const [ch, v] of Object.entries(inline))
    if (!blobs.has(ch) || blobs.get(ch)!.type === "empty") parts.push(`${JSON.stringify(ch)}:${JSON.stringify(v)}`);
  for (const [ch, b] of blobs) if (b.type !== "empty") parts.push(`${JSON.stringify(ch)}:${jsBlobText(b)}`);
  const head = ["v", "id", "ts"].filter((k) => k in cp).map((k) => `${JSON.stringify(k)}:${JSON.stringify(cp[k])}`);
  const tail = Object.entries(cp)
    .filter(([k]) => !["v", "id", "ts", "channel_values"].includes(k))
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const text = `{${[...head, `"channel_values":{${parts.join(",")}}`, ...tail].join(",")}}`;
  return { type: "json", checkpoint: Buffer.from(text), metadata: metadataForSqlite(row.metadata, lib) };
}

function pyBlobBytes(b: BlobValue): Uint8Array {
  switch (b.type) {
    case "msgpack":
      return b.blob ?? mpEncode(null);
    case "null":
      return mpEncode(null);
    case "json":
      return mpEncode(JSON.parse(textOf(b.blob ?? new Uint8Array())));
    case "bytes":
    case "bytearray":
      return mpEncode(b.blob ?? new Uint8Array());
    default:
      throw inputError(
        "langgraph-blob",
        `a checkpoint_blobs row has serde type '${b.type}', which cannot be stored in a SQLite checkpoint`,
      );
  }
}

function jsBlobText(b: BlobValue): string {
  if (b.type === "json") return textOf(b.blob ?? Buffer.from("null"));
  if (b.type === "null") return "null";
  throw inputError(
    "langgraph-blob",
    `a checkpoint_blobs row has serde type '${b.type}', which a JS checkpoint cannot hold`,
  );
}
