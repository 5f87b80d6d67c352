/**
 * Converting a LangGraph checkpoint (SQLite layout, with its writes) for the other library (LANGGRAPH.md §3.3, §9):
 * - Python → JS: msgpack → JSON (LangChain messages ext 5 → lc:1 records via the read side's decoder; Interrupt →
 *   `{id, value}`; Send → `{node, args}`; UUID/datetime/Decimal → strings; set/frozenset/deque → arrays), padded
 *   string versions → integers in `channel_versions` and `versions_seen`, `updated_channels`/`pending_sends` dropped,
 *   type `json` for checkpoint, metadata and writes (`null` writes → JSON `null`).
 * - JS → Python: JSON → msgpack (lc:1 messages → ext 5 `model_dump` dicts, JS interrupts → ext 2 `Interrupt`),
 *   integer versions → `f"{n:032}.{0.0:016}"`, metadata as Python's json.dumps text.
 * The checkpoint's own library is told by its serde tag and version types; one already for `to` is returned as is.
 */
import { encode as mpEncode } from "@msgpack/msgpack";
import { inputError } from "../../base/errors.js";
import { convertVersions, dumpsTypedJs, dumpsTypedPython, pythonJsonDumps, type Library } from "./encode.js";
import { buildMap } from "./msgpack.js";
import { libraryOf, textOf, type LgCheckpoint, type LgWrite } from "./rows.js";
import { decodeMsgpack } from "./serde.js";
import { isLc2Constructor, isRecord } from "./types.js";

type Obj = Record<string, unknown>;

export function convertCheckpoint(cp: LgCheckpoint, to: Library): LgCheckpoint {
  const from = libraryOf(cp, to);
  if (from === to && (to === "js" || cp.type === "msgpack")) return cp;
  const decoded = decodeCheckpoint(cp);
  convertVersions(decoded, to);
  const meta = JSON.parse(textOf(cp.metadata) || "{}") as Obj;
  if (to === "js") {
    delete decoded.updated_channels;
    delete decoded.pending_sends;
    const { v, id, ts, channel_values, channel_versions, versions_seen, ...rest } = decoded;
    const ordered = { v, id, ts, channel_values: toJsValue(channel_values), channel_versions, versions_seen, ...rest };
    return {
      ...cp,
      type: "json",
      checkpoint: Buffer.from(JSON.stringify(ordered)),
      metadata: Buffer.from(JSON.stringify(meta)),
      writes: cp.writes.map((w) => writeForJs(w)),
    };
  }
  const order = ["v", "ts", "id", "channel_values", "channel_versions", "versions_seen"];
  const entries: Array<[string, Uint8Array]> = [];
  for (const k of [...order, ...Object.keys(decoded).filter((k) => !order.includes(k))]) {
    if (!(k in decoded)) continue;
    const [, bytes] = dumpsTypedPython(decoded[k] ?? {});
    entries.push([k, decoded[k] === null ? mpEncode(null) : bytes]);
  }
  return {
    ...cp,
    type: "msgpack",
    checkpoint: buildMap(entries),
    metadata: Buffer.from(pythonJsonDumps(meta)),
    writes: cp.writes.map((w) => writeForPython(w)),
  };
}

function decodeCheckpoint(cp: LgCheckpoint): Obj {
  const v = cp.type === "msgpack" ? decodeMsgpack(cp.checkpoint) : JSON.parse(textOf(cp.checkpoint));
  if (!isRecord(v)) throw inputError("langgraph-checkpoint", `checkpoint ${cp.threadId}@${cp.id} is not a map`);
  return v;
}

function decodeWrite(w: LgWrite): unknown {
  switch (w.type) {
    case "msgpack":
      return decodeMsgpack(w.value);
    case "null":
      return null;
    case "json":
    case null:
      return JSON.parse(textOf(w.value));
    default:
      throw inputError(
        "langgraph-write",
        `a pending write on '${w.channel}' has serde type '${w.type}', which cannot be converted`,
      );
  }
}

function writeForJs(w: LgWrite): LgWrite {
  if (w.type === "bytes") return w;
  const [type, value] = dumpsTypedJs(toJsValue(decodeWrite(w)));
  return { ...w, type, value };
}

function writeForPython(w: LgWrite): LgWrite {
  if (w.type === "bytes" || w.type === "msgpack" || w.type === "null") return w;
  const [type, value] = dumpsTypedPython(decodeWrite(w), { channel: w.channel });
  return { ...w, type, value };
}

const hyphenate = (h: string) =>
  /^[0-9a-f]{32}$/i.test(h)
    ? `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
    : h;

/** A decoded Python value in the shapes LangGraph JS stores (§9). */
export function toJsValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toJsValue);
  if (!isRecord(v)) return v;
  if (isLc2Constructor(v) && v.ext !== undefined) {
    const name = v.id[v.id.length - 1];
    if (name === "Interrupt") return { id: v.kwargs.id, value: toJsValue(v.kwargs.value) };
    if (name === "Send") return { node: v.args[0], args: toJsValue(v.args[1]) };
    if (name === "UUID") return hyphenate(String(v.args[0]));
    if (v.ext === 3 || name === "Decimal") return String(v.args[0]);
    if (["set", "frozenset", "deque"].includes(name!)) return toJsValue(v.args[0]);
    if (v.ext === 2 || v.ext === 4 || v.ext === 5) return toJsValue(v.kwargs);
    if (v.ext === 1) return toJsValue(v.args);
    return toJsValue(v.args[0]);
  }
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) out[k] = toJsValue(x);
  return out;
}
