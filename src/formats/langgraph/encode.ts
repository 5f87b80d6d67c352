/**
 * The encode side of LangGraph's serializers (LANGGRAPH.md §5): values in the decoded form (LangChain messages as
 * JS lc:1 constructor records) → Python msgpack (`type` "msgpack", ext codes §5.2/§5.3) or JS JsonPlusSerializer
 * JSON (`type` "json", §5.4); and channel versions between the two libraries (§3).
 */
import { encode as mpEncode, ExtData } from "@msgpack/msgpack";
import { inputError } from "../../base/errors.js";

export type Library = "python" | "js";

/** EXT codes of Python's serde (py:ckpt/serde/jsonplus.py). */
export const EXT = {
  CONSTRUCTOR_SINGLE_ARG: 0,
  CONSTRUCTOR_POS_ARGS: 1,
  CONSTRUCTOR_KW_ARGS: 2,
  METHOD_SINGLE_ARG: 3,
  PYDANTIC_V1: 4,
  PYDANTIC_V2: 5,
  NUMPY_ARRAY: 6,
  DELTA_SNAPSHOT: 7,
} as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** A JS lc:1 constructor record ({lc:1, type:"constructor", id:[…], kwargs}). */
export function isLcConstructor(v: unknown): v is { lc: 1; type: "constructor"; id: string[]; kwargs: Obj } {
  return isObj(v) && v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) && isObj(v.kwargs);
}

/** Python module and `model_dump()` field defaults per LangChain message class (langchain-core 1.x, §5.3). */
const BASE_FIELDS: Array<[string, unknown]> = [
  ["content", ""],
  ["additional_kwargs", {}],
  ["response_metadata", {}],
  ["type", undefined],
  ["name", null],
  ["id", null],
];
const AI_FIELDS: Array<[string, unknown]> = [
  ["tool_calls", []],
  ["invalid_tool_calls", []],
  ["usage_metadata", null],
];
const MESSAGE_CLASSES: Record<string, { module: string; type: string; extra: Array<[string, unknown]> }> = {
  HumanMessage: { module: "human", type: "human", extra: [] },
  HumanMessageChunk: { module: "human", type: "HumanMessageChunk", extra: [] },
  AIMessage: { module: "ai", type: "ai", extra: AI_FIELDS },
  AIMessageChunk: {
    module: "ai",
    type: "AIMessageChunk",
    extra: [...AI_FIELDS, ["tool_call_chunks", []], ["chunk_position", null]],
  },
  ToolMessage: {
    module: "tool",
    type: "tool",
    extra: [
      ["tool_call_id", ""],
      ["artifact", null],
      ["status", "success"],
    ],
  },
  ToolMessageChunk: {
    module: "tool",
    type: "ToolMessageChunk",
    extra: [
      ["tool_call_id", ""],
      ["artifact", null],
      ["status", "success"],
    ],
  },
  SystemMessage: { module: "system", type: "system", extra: [] },
  SystemMessageChunk: { module: "system", type: "SystemMessageChunk", extra: [] },
  ChatMessage: { module: "chat", type: "chat", extra: [["role", ""]] },
  ChatMessageChunk: { module: "chat", type: "ChatMessageChunk", extra: [["role", ""]] },
  FunctionMessage: { module: "function", type: "function", extra: [] },
  FunctionMessageChunk: { module: "function", type: "FunctionMessageChunk", extra: [] },
  RemoveMessage: { module: "modifier", type: "remove", extra: [] },
};

/** JS-only kwargs that Python's message models do not have. */
const JS_ONLY_KWARGS = new Set(["metadata", "lc_kwargs", "lc_serializable"]);

/** `model_dump()` of the Python message class an lc:1 message record stands for, or undefined when it is not a message. */
export function pythonMessageDump(rec: {
  id: string[];
  kwargs: Obj;
}): { module: string; cls: string; dump: Obj } | undefined {
  const cls = rec.id[rec.id.length - 1]!;
  const spec = MESSAGE_CLASSES[cls];
  if (!spec) return undefined;
  const kw = rec.kwargs;
  const dump: Obj = {};
  for (const [k, d] of [...BASE_FIELDS, ...spec.extra]) {
    if (k === "type") dump.type = spec.type;
    else dump[k] = k in kw ? undefinedToNull(kw[k]) : structuredClone(d);
  }
  for (const [k, v] of Object.entries(kw))
    if (!(k in dump) && !JS_ONLY_KWARGS.has(k) && k !== "type") dump[k] = undefinedToNull(v);
  if (Array.isArray(dump.tool_calls))
    dump.tool_calls = dump.tool_calls.map((c) => (isObj(c) && !("type" in c) ? { ...c, type: "tool_call" } : c));
  if (Array.isArray(dump.invalid_tool_calls))
    dump.invalid_tool_calls = dump.invalid_tool_calls.map((c) =>
      isObj(c) && !("type" in c) ? { ...c, type: "invalid_tool_call" } : c,
    );
  return { module: `langchain_core.messages.${spec.module}`, cls, dump };
}

const isLcUndefined = (v: unknown) => isObj(v) && v.lc === 2 && v.type === "undefined";
const undefinedToNull = (v: unknown): unknown => (isLcUndefined(v) || v === undefined ? null : v);

/** An interrupt as JS stores it (`{id, value}` with a 32-hex id). */
const isJsInterrupt = (v: unknown): v is { id: string; value: unknown } =>
  isObj(v) &&
  typeof v.id === "string" &&
  /^[0-9a-f]{32}$/.test(v.id) &&
  "value" in v &&
  Object.keys(v).every((k) => k === "id" || k === "value");

export interface PyEncodeContext {
  /** the channel the value belongs to: `__interrupt__` values become `langgraph.types.Interrupt` (ext 2) */
  channel?: string;
}

/** The value tree with every Python object (messages, interrupts, delta snapshots) replaced by its msgpack ext. */
function toPyTree(v: unknown, ctx: PyEncodeContext, depth: number): unknown {
  if (v === null || typeof v !== "object") return v === undefined ? null : v;
  if (v instanceof Uint8Array || v instanceof ExtData) return v;
  if (Array.isArray(v)) {
    if (depth === 0 && ctx.channel === "__interrupt__" && v.every(isJsInterrupt)) {
      return v.map((i) =>
        ext(EXT.CONSTRUCTOR_KW_ARGS, [
          "langgraph.types",
          "Interrupt",
          { value: toPyTree(i.value, {}, 1), id: i.id, response_schema: null },
        ]),
      );
    }
    return v.map((x) => toPyTree(x, ctx, depth + 1));
  }
  const o = v as Obj;
  if (isLcConstructor(o)) {
    const m = pythonMessageDump(o);
    if (m) return ext(EXT.PYDANTIC_V2, [m.module, m.cls, toPyTree(m.dump, {}, depth + 1), "model_validate_json"]);
  }
  if (isLcUndefined(o)) return null;
  if (o.lc === 2 && o.type === "constructor" && Array.isArray(o.id)) {
    const rebuilt = pyExtOf(o as unknown as Lc2Record, depth);
    if (rebuilt !== undefined) return rebuilt;
  }
  if (o.lc === 2 && o.type === "delta_snapshot")
    return ext(EXT.DELTA_SNAPSHOT, toPyTree((o as Obj).value, {}, depth + 1));
  const out: Obj = {};
  for (const [k, x] of Object.entries(o)) out[k] = toPyTree(x, ctx, depth + 1);
  return out;
}

interface Lc2Record {
  id: string[];
  method: string | null;
  args: unknown[];
  kwargs: Obj;
  ext?: number;
}

/** A decoded Python object (lc:2 record with its ext code, types.ts) → its ext again; JS Uint8Array records → bin. */
function pyExtOf(r: Lc2Record, depth: number): unknown {
  const sub = (v: unknown) => toPyTree(v, {}, depth + 1);
  if (r.ext === undefined) {
    if (r.id.length === 1 && r.id[0] === "Uint8Array" && Array.isArray(r.args[0]))
      return Uint8Array.from(r.args[0] as number[]);
    return undefined;
  }
  const module = r.id.slice(0, -1).join(".");
  const name = r.id[r.id.length - 1]!;
  switch (r.ext) {
    case EXT.CONSTRUCTOR_SINGLE_ARG:
      return ext(r.ext, [module, name, sub(r.args[0])]);
    case EXT.CONSTRUCTOR_POS_ARGS:
      return ext(r.ext, [module, name, sub(r.args)]);
    case EXT.CONSTRUCTOR_KW_ARGS:
    case EXT.PYDANTIC_V1:
      return ext(r.ext, [module, name, sub(r.kwargs)]);
    case EXT.METHOD_SINGLE_ARG:
      return ext(r.ext, [module, name, sub(r.args[0]), r.method]);
    case EXT.PYDANTIC_V2:
      return ext(r.ext, [module, name, sub(r.kwargs), r.method ?? "model_validate_json"]);
    case EXT.NUMPY_ARRAY:
      return ext(r.ext, sub(r.args));
    default:
      return undefined;
  }
}

const ext = (type: number, payload: unknown) => new ExtData(type, mpEncode(payload));

/** Python `serde.dumps_typed(value)` for a decoded value: ["null", b""] for None, else ["msgpack", bytes]. */
export function dumpsTypedPython(value: unknown, ctx: PyEncodeContext = {}): [string, Uint8Array] {
  if (value === null || value === undefined || isLcUndefined(value)) return ["null", new Uint8Array(0)];
  if (value instanceof Uint8Array) return ["bytes", value];
  return ["msgpack", mpEncode(toPyTree(value, ctx, 0))];
}

/** JS `serde.dumpsTyped(value)` for a decoded value: ["json", UTF-8 JSON] (Uint8Array → ["bytes", …]). */
export function dumpsTypedJs(value: unknown): [string, Uint8Array] {
  if (value instanceof Uint8Array) return ["bytes", value];
  return ["json", Buffer.from(JSON.stringify(value === undefined ? { lc: 2, type: "undefined" } : value))];
}

/** Python's version string for an integer version: f"{n:032}.{0.0:016}" (§3.3). */
export const toPythonVersion = (n: number | string): string =>
  typeof n === "string" ? n : `${String(n).padStart(32, "0")}.${"0.0".padStart(16, "0")}`;

/** JS's integer version for a Python version string (its 32-digit counter). */
export function toJsVersion(v: number | string): number {
  if (typeof v === "number") return v;
  const n = Number(v.split(".")[0]);
  if (!Number.isSafeInteger(n))
    throw inputError("langgraph-version", `channel version ${JSON.stringify(v)} has no integer counter`);
  return n;
}

/** Rewrite every version in a checkpoint's `channel_versions` and `versions_seen` for `to`. */
export function convertVersions(cp: Obj, to: Library): void {
  const conv = to === "js" ? toJsVersion : toPythonVersion;
  const cv = cp.channel_versions as Record<string, string | number> | undefined;
  if (cv) for (const k of Object.keys(cv)) cv[k] = conv(cv[k]!);
  const vs = cp.versions_seen as Record<string, Record<string, string | number>> | undefined;
  if (vs) for (const n of Object.values(vs)) for (const k of Object.keys(n)) n[k] = conv(n[k]!);
}

/** Python's `json.dumps(obj, ensure_ascii=False)` text (separators ", " and ": "), as Python SQLiteSaver stores metadata. */
export function pythonJsonDumps(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pythonJsonDumps).join(", ")}]`;
  return `{${Object.entries(v as Obj)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pythonJsonDumps(x)}`)
    .join(", ")}}`;
}

function pyFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
  const s = String(x);
  return /e/.test(s) ? s.replace(/e([+-])(\d)$/, "e$10$2") : s;
}
