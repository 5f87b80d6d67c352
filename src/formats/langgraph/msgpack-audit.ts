/**
 * Which Python classes a LangGraph msgpack value would make the library import on load, and which of them its strict
 * mode lets through. Python's serde (langgraph-checkpoint `serde/jsonplus.py`) writes an object as a msgpack ext
 * whose payload is an array `[module, name, arg(s), method?]`; on load it checks `(module, name)` against
 * `SAFE_MSGPACK_TYPES` plus the serializer's `allowed_msgpack_modules` for ext codes 0 (one argument), 1 (positional
 * arguments), 2 (keyword arguments), 4 (pydantic v1) and 5 (pydantic v2), and `(module, name, method)` against
 * `SAFE_MSGPACK_METHODS` for code 3 (a method call such as `datetime.fromisoformat`). Code 6 (numpy arrays) and 7
 * (a DeltaChannel snapshot) are not gated. With `LANGGRAPH_STRICT_MSGPACK=true` (or an explicit allowlist) a class
 * outside both lists is not constructed: the raw arguments come back instead, which apps discover at run time.
 *
 * The lists below are langgraph-checkpoint 4.2.0's (`serde/_msgpack.py`), the release that langgraph 1.2.12 uses;
 * they differ between releases. A compiled graph in strict mode also allows the classes of its own state schema
 * (langgraph `_internal/_serde.py` `build_serde_allowlist`), which a store does not record.
 *
 * The scan walks the bytes without decoding values (the payload's first strings are read; everything else skipped),
 * recursing into every container and ext payload, so nested objects are found too.
 */
import { skip } from "./msgpack.js";

/** The langgraph-checkpoint release the lists below come from. */
export const MSGPACK_ALLOWLIST_SOURCE = "langgraph-checkpoint 4.2.0 (langgraph 1.2.12)";

/** `SAFE_MSGPACK_TYPES` of langgraph-checkpoint 4.2.0, as "module\u0000name". */
const SAFE_TYPES = new Set(
  [
    "datetime datetime",
    "datetime date",
    "datetime time",
    "datetime timedelta",
    "datetime timezone",
    "uuid UUID",
    "decimal Decimal",
    "builtins set",
    "builtins frozenset",
    "collections deque",
    "ipaddress IPv4Address",
    "ipaddress IPv4Interface",
    "ipaddress IPv4Network",
    "ipaddress IPv6Address",
    "ipaddress IPv6Interface",
    "ipaddress IPv6Network",
    "pathlib Path",
    "pathlib PosixPath",
    "pathlib WindowsPath",
    "pathlib._local Path",
    "pathlib._local PosixPath",
    "pathlib._local WindowsPath",
    "zoneinfo ZoneInfo",
    "re compile",
    "langchain_core.messages.base BaseMessage",
    "langchain_core.messages.base BaseMessageChunk",
    "langchain_core.messages.human HumanMessage",
    "langchain_core.messages.human HumanMessageChunk",
    "langchain_core.messages.ai AIMessage",
    "langchain_core.messages.ai AIMessageChunk",
    "langchain_core.messages.system SystemMessage",
    "langchain_core.messages.system SystemMessageChunk",
    "langchain_core.messages.chat ChatMessage",
    "langchain_core.messages.chat ChatMessageChunk",
    "langchain_core.messages.tool ToolMessage",
    "langchain_core.messages.tool ToolMessageChunk",
    "langchain_core.messages.function FunctionMessage",
    "langchain_core.messages.function FunctionMessageChunk",
    "langchain_core.messages.modifier RemoveMessage",
    "langchain_core.documents.base Document",
    "langgraph.types Send",
    "langgraph.types TimeoutPolicy",
    "langgraph.types Interrupt",
    "langgraph.types Command",
    "langgraph.types StateSnapshot",
    "langgraph.types PregelTask",
    "langgraph.types Overwrite",
    "langgraph.store.base Item",
    "langgraph.store.base GetOp",
  ].map((s) => s.replace(" ", "\u0000")),
);

/** `SAFE_MSGPACK_METHODS` of langgraph-checkpoint 4.2.0, as "module\u0000name\u0000method". */
const SAFE_METHODS = new Set(["datetime\u0000datetime\u0000fromisoformat"]);

/** The ext codes whose `(module, name)` strict mode checks, by what they construct. */
export const GATED_EXT: Readonly<Record<number, string>> = {
  0: "constructor, one argument",
  1: "constructor, positional arguments",
  2: "constructor, keyword arguments",
  3: "method call",
  4: "pydantic v1 model",
  5: "pydantic v2 model",
};

export interface ExtType {
  /** the ext code (0–6) */
  ext: number;
  module: string;
  name: string;
  /** code 3: the method called */
  method?: string;
  /** whether LangGraph's default strict allowlist lets it through (numpy arrays: not gated, true) */
  allowed: boolean;
}

export function isDefaultAllowed(ext: number, module: string, name: string, method?: string): boolean {
  if (ext === 3) return SAFE_METHODS.has(`${module}\u0000${name}\u0000${method ?? ""}`);
  if (ext in GATED_EXT) return SAFE_TYPES.has(`${module}\u0000${name}`);
  return true;
}

const u16 = (b: Uint8Array, p: number) => (b[p]! << 8) | b[p + 1]!;
const u32 = (b: Uint8Array, p: number) => ((b[p]! << 24) >>> 0) + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
const utf8 = new TextDecoder();

/** The string at `p` and the offset past it, or undefined when the value there is not a string. */
function strAt(b: Uint8Array, p: number): [string, number] | undefined {
  const t = b[p]!;
  let s: number;
  let n: number;
  if (t >= 0xa0 && t <= 0xbf) (s = p + 1), (n = t & 0x1f);
  else if (t === 0xd9) (s = p + 2), (n = b[p + 1]!);
  else if (t === 0xda) (s = p + 3), (n = u16(b, p + 1));
  else if (t === 0xdb) (s = p + 5), (n = u32(b, p + 1));
  else return undefined;
  return [utf8.decode(b.subarray(s, s + n)), s + n];
}

/** The element count and first element's offset of the array at `p`, or undefined when it is not an array. */
function arrayAt(b: Uint8Array, p: number): [number, number] | undefined {
  const t = b[p]!;
  if (t >= 0x90 && t <= 0x9f) return [t & 0x0f, p + 1];
  if (t === 0xdc) return [u16(b, p + 1), p + 3];
  if (t === 0xdd) return [u32(b, p + 1), p + 5];
  return undefined;
}

/** The (module, name[, method]) of a gated ext's payload. */
function payloadType(ext: number, data: Uint8Array): ExtType | undefined {
  const arr = arrayAt(data, 0);
  if (!arr || arr[0] < 2) return undefined;
  const mod = strAt(data, arr[1]);
  const name = mod && strAt(data, mod[1]);
  if (!mod || !name) return undefined;
  let method: string | undefined;
  if (ext === 3 && arr[0] >= 4) {
    const m = strAt(data, skip(data, name[1]));
    method = m?.[0];
  }
  return {
    ext,
    module: mod[0],
    name: name[0],
    ...(method !== undefined ? { method } : {}),
    allowed: isDefaultAllowed(ext, mod[0], name[0], method),
  };
}

/**
 * Calls `visit` for every gated object (ext 0–5) and numpy array (ext 6) in the msgpack value `b`, nested ones
 * included. Throws (an input error from `skip`) on bytes that are not msgpack.
 */
export function scanExtTypes(b: Uint8Array, visit: (t: ExtType) => void): void {
  walk(b, 0, visit);
}

function walk(b: Uint8Array, p: number, visit: (t: ExtType) => void): number {
  const t = b[p]!;
  let n = -1;
  let q = p;
  if (t >= 0x80 && t <= 0x8f) (n = (t & 0x0f) * 2), (q = p + 1);
  else if (t >= 0x90 && t <= 0x9f) (n = t & 0x0f), (q = p + 1);
  else if (t === 0xdc) (n = u16(b, p + 1)), (q = p + 3);
  else if (t === 0xdd) (n = u32(b, p + 1)), (q = p + 5);
  else if (t === 0xde) (n = u16(b, p + 1) * 2), (q = p + 3);
  else if (t === 0xdf) (n = u32(b, p + 1) * 2), (q = p + 5);
  if (n >= 0) {
    for (let i = 0; i < n; i++) q = walk(b, q, visit);
    return q;
  }
  const ext = extAt(b, p);
  if (!ext) return skip(b, p);
  const [code, start, len] = ext;
  const data = b.subarray(start, start + len);
  if (code === 6) visit({ ext: 6, module: "numpy", name: "ndarray", allowed: true });
  else if (code in GATED_EXT) {
    const ty = payloadType(code, data);
    if (ty) visit(ty);
  }
  if (code >= 0 && code <= 7 && len > 0) walk(data, 0, visit);
  return start + len;
}

/** [code, payload offset, payload length] of the ext at `p`, or undefined when it is not an ext. */
function extAt(b: Uint8Array, p: number): [number, number, number] | undefined {
  const t = b[p]!;
  const code = (o: number) => (b[o]! << 24) >> 24;
  if (t >= 0xd4 && t <= 0xd8) return [code(p + 1), p + 2, 1 << (t - 0xd4)];
  if (t === 0xc7) return [code(p + 2), p + 3, b[p + 1]!];
  if (t === 0xc8) return [code(p + 3), p + 4, u16(b, p + 1)];
  if (t === 0xc9) return [code(p + 5), p + 6, u32(b, p + 1)];
  return undefined;
}

/** A Python literal for `JsonPlusSerializer(allowed_msgpack_modules=…)` listing `types` (sorted, unique). */
export function allowlistLiteral(types: Array<{ module: string; name: string }>): string {
  const keys = [...new Set(types.map((t) => JSON.stringify([t.module, t.name])))].sort();
  const py = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const items = keys.map((k) => {
    const [m, n] = JSON.parse(k) as [string, string];
    return `(${py(m)}, ${py(n)})`;
  });
  return items.length === 0 ? "[]" : `[\n${items.map((i) => `    ${i},`).join("\n")}\n]`;
}
