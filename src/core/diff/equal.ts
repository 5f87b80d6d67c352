/**
 * Structural equality specialized for canonical messages — the hot loop of a diff (every message of the common
 * prefix and suffix is compared once). Same answer as `jsonEqual` on any input: each role and block type is compared
 * field by field with named property loads (which V8 keeps monomorphic per role, unlike a generic walk's keyed loads
 * over every key), and a count of the keys present proves there is nothing else; anything unusual (an unknown key,
 * a key holding undefined, a non-array content, an unknown role or block type) falls back to `jsonEqual`. No
 * allocation; the first difference ends the walk. Pure.
 */
import { jsonEqual } from "./stable.js";

type Rec = Record<string, unknown>;

/** Number of enumerable keys (as for-in sees them, like jsonEqual). */
function keyCount(o: object): number {
  let c = 0;
  for (const _k in o) c++;
  return c;
}

/**
 * `n` known keys of `x` were compared equal with those of `y` (so `y` holds the same known keys): the objects are
 * equal when neither has another key; otherwise the generic walk decides (unknown keys, keys holding undefined).
 */
function rest(x: object, y: object, n: number): boolean {
  return (keyCount(x) === n && keyCount(y) === n) || jsonEqual(x, y);
}

const isObj = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Equality of two canonical messages (any values: non-messages fall back to `jsonEqual`). */
export function messageEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObj(x) || !isObj(y)) return jsonEqual(x, y);
  const r = x.role;
  if (r !== y.role) return false;
  switch (r) {
    case "user":
    case "system":
      return userEqual(x, y);
    case "assistant":
      return assistantEqual(x, y);
    case "toolResult":
      return toolResultEqual(x, y);
    default:
      return jsonEqual(x, y);
  }
}

// Each comparator: `n` counts the known keys present in x (role included); `v !== w && !jsonEqual(v, w)` keeps
// jsonEqual's rules for the rare non-identical primitives (a bigint equals the number with the same value).

function userEqual(x: Rec, y: Rec): boolean {
  let n = 1;
  let v = x.timestamp;
  const w = y.timestamp;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.content;
  if (v !== undefined) n++;
  if (!contentEqual(v, y.content)) return false;
  v = x.ext;
  if (v !== undefined) n++;
  if (!extEqual(v, y.ext)) return false;
  return rest(x, y, n);
}

function assistantEqual(x: Rec, y: Rec): boolean {
  let n = 1;
  let v = x.timestamp;
  let w = y.timestamp;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.stopReason;
  w = y.stopReason;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.model;
  w = y.model;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.provider;
  w = y.provider;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.errorMessage;
  w = y.errorMessage;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.usage;
  if (v !== undefined) n++;
  if (!usageEqual(v, y.usage)) return false;
  v = x.content;
  if (v !== undefined) n++;
  if (!contentEqual(v, y.content)) return false;
  v = x.ext;
  if (v !== undefined) n++;
  if (!extEqual(v, y.ext)) return false;
  return rest(x, y, n);
}

function toolResultEqual(x: Rec, y: Rec): boolean {
  let n = 1;
  let v = x.timestamp;
  let w = y.timestamp;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.toolCallId;
  w = y.toolCallId;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.toolName;
  w = y.toolName;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.isError;
  w = y.isError;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.content;
  if (v !== undefined) n++;
  if (!contentEqual(v, y.content)) return false;
  v = x.ext;
  if (v !== undefined) n++;
  if (!extEqual(v, y.ext)) return false;
  return rest(x, y, n);
}

function usageEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObj(x) || !isObj(y)) return jsonEqual(x, y);
  let n = 0;
  let v = x.input;
  let w = y.input;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.output;
  w = y.output;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.cacheRead;
  w = y.cacheRead;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.cacheWrite;
  w = y.cacheWrite;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.totalTokens;
  w = y.totalTokens;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  v = x.reasoning;
  w = y.reasoning;
  if (v !== undefined) n++;
  if (v !== w && !jsonEqual(v, w)) return false;
  return rest(x, y, n);
}

/** `ext` objects: keyed by format name, each value compared generically. */
function extEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObj(x) || !isObj(y)) return jsonEqual(x, y);
  let n = 0;
  for (const k in x) {
    const v = x[k];
    if (v === undefined) return jsonEqual(x, y);
    n++;
    const w = y[k];
    if (v !== w && !jsonEqual(v, w)) return false;
  }
  return keyCount(y) === n || jsonEqual(x, y);
}

/** Content arrays, block by block. */
export function contentEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!Array.isArray(x) || !Array.isArray(y)) return jsonEqual(x, y);
  const len = x.length;
  if (len !== y.length) return false;
  for (let i = 0; i < len; i++) if (!blockEqual(x[i], y[i])) return false;
  return true;
}

/** One content block, by type. */
export function blockEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObj(x) || !isObj(y)) return jsonEqual(x, y);
  const t = x.type;
  if (t !== y.type) return false;
  let n = 1;
  let v: unknown;
  let w: unknown;
  switch (t) {
    case "text":
      v = x.text;
      w = y.text;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      break;
    case "thinking":
      v = x.thinking;
      w = y.thinking;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.signature;
      w = y.signature;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      break;
    case "toolCall":
      v = x.id;
      w = y.id;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.name;
      w = y.name;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.arguments;
      w = y.arguments;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.providerMetadata;
      w = y.providerMetadata;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      break;
    case "image":
    case "file":
      v = x.data;
      w = y.data;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.url;
      w = y.url;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.mimeType;
      w = y.mimeType;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      v = x.filename;
      w = y.filename;
      if (v !== undefined) n++;
      if (v !== w && !jsonEqual(v, w)) return false;
      break;
    default:
      return jsonEqual(x, y);
  }
  v = x.ext;
  if (v !== undefined) n++;
  if (!extEqual(v, y.ext)) return false;
  return rest(x, y, n);
}
