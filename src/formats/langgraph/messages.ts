/**
 * LangChain messages (JS lc:1 constructor records, the normal form of decoded LangGraph values) ⇄ canonical
 * AgentMessages. Pure.
 *
 * A record is `{lc:1, type:"constructor", id:[…, Class], kwargs}`. Mapping:
 * - HumanMessage(Chunk) → user, SystemMessage(Chunk) → system, AIMessage(Chunk) → assistant, ToolMessage(Chunk) →
 *   toolResult (`tool_call_id` → toolCallId, `name` → toolName, `status:"error"` → isError); plain dicts
 *   (`{"role":"user","content":…}`, `{"type":"ai",…}`), strings and `[role, content]` pairs are read as the message
 *   LangChain's `convert_to_messages` makes of them (`plainMessageRecord`) and written back as stored; anything else
 *   (RemoveMessage, ChatMessage, FunctionMessage, other values) → an
 *   extension message `{role:"langgraph", kind:<class or "value">, data:<the record>}`, carried verbatim;
 * - `content`: a string → one text block (`_layout.stringContent`); blocks: text, image (`image_url`, v0.3
 *   `{type:"image", source_type, …}` and v1 `{type:"image", url|base64|data, mime_type|mimeType}`), thinking
 *   (Anthropic `thinking`, v1 `reasoning`); every other block (tool_use, audio, documents, provider blocks) rides
 *   along verbatim in `ext.langgraph.rawBlocks` at its original index;
 * - AIMessage `tool_calls` → toolCall blocks after the content; `usage_metadata` → usage (input = input_tokens −
 *   cache_read − cache_creation; cacheRead, cacheWrite, reasoning from the token details);
 *   `response_metadata.model_name` → model, `model_provider` → provider, `finish_reason`/`stop_reason` → stopReason;
 * - every other kwarg (ids, names, additional_kwargs, artifact, invalid_tool_calls, tool_call_chunks, …) and
 *   the class / id path when they are not the defaults travel in `ext.langgraph`, so record → canonical → record
 *   is exact. `_layout` (presentation only: key order, string content, omitted defaults) is left out of diffs.
 */
import type {
  AgentMessage,
  AssistantMessage,
  Message,
  Content,
  Ext,
  ExtensionMessage,
  StopReason,
  ToolResultMessage,
  Usage,
} from "../../generated/types.js";
import type { LossSink } from "../types.js";

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A LangChain lc:1 constructor record. */
export interface LcRecord {
  lc: 1;
  type: "constructor";
  id: string[];
  kwargs: Obj;
}

export const EXT_ROLE = "langgraph";
type MappedRole = "user" | "system" | "assistant" | "toolResult";
/**
 * The canonical role of a LangChain message class ckpt maps; undefined for any other name. A switch rather than a
 * lookup in an object: no name inherited from Object.prototype (`toString`, `constructor`) passes for a class, and
 * each message's class name (a new string from JSON.parse) needs no hashing for a property lookup.
 */
function roleOfClass(cls: string): MappedRole | undefined {
  switch (cls) {
    case "HumanMessage":
    case "HumanMessageChunk":
      return "user";
    case "SystemMessage":
    case "SystemMessageChunk":
      return "system";
    case "AIMessage":
    case "AIMessageChunk":
      return "assistant";
    case "ToolMessage":
    case "ToolMessageChunk":
      return "toolResult";
    default:
      return undefined;
  }
}
const CLASS_OF: Record<string, string> = {
  user: "HumanMessage",
  system: "SystemMessage",
  assistant: "AIMessage",
  toolResult: "ToolMessage",
};

export function isLcRecord(v: unknown): v is LcRecord {
  return (
    isObj(v) && v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) && v.id.length > 0 && isObj(v.kwargs)
  );
}

/** The class name of a record (last element of its id path). */
export const classOf = (r: LcRecord): string => {
  const last = r.id[r.id.length - 1];
  return typeof last === "string" ? last : String(last);
};

/** True when `v` is a LangChain message record ckpt maps to a canonical LLM message. */
export const isMappedMessage = (v: unknown): v is LcRecord => isLcRecord(v) && roleOfClass(classOf(v)) !== undefined;

function setExt(target: { ext?: Ext }, key: string, v: unknown): void {
  if (v === undefined) return;
  const ext = (target.ext ??= {});
  ((ext.langgraph ??= {}) as Obj)[key] = v;
}
function setLayout(target: { ext?: Ext }, key: string, v: unknown): void {
  if (v === undefined) return;
  const ext = (target.ext ??= {});
  const mine = (ext.langgraph ??= {}) as Obj;
  ((mine._layout ??= {}) as Obj)[key] = v;
}
export const extOf = (x: { ext?: Ext } | undefined): Obj =>
  isObj(x?.ext?.langgraph) ? (x!.ext!.langgraph as Obj) : {};
const layoutOf = (x: { ext?: Ext } | undefined): Obj => {
  const e = extOf(x);
  return isObj(e._layout) ? e._layout : {};
};

function without(o: Obj, keys: readonly string[]): Obj | undefined {
  let out: Obj | undefined;
  for (const k of Object.keys(o)) if (!keys.includes(k)) (out ??= {})[k] = o[k];
  return out;
}

/** `o` with its keys in the order of `order` (keys not listed keep their place at the end). */
function ordered(o: Obj, order: unknown): Obj {
  if (!Array.isArray(order)) return o;
  const out: Obj = {};
  for (const k of order) if (typeof k === "string" && k in o) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out)) out[k] = o[k];
  return out;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

// ---- content blocks -----------------------------------------------------------------------------------

const DATA_URL = /^data:([^;,]*);base64,(.*)$/s;

/** The canonical image of a LangChain image block, or undefined when it is not one ckpt reads. */
function imageOf(b: Obj): Content | undefined {
  if (b.type === "image_url") {
    const u = typeof b.image_url === "string" ? b.image_url : isObj(b.image_url) ? b.image_url.url : undefined;
    if (typeof u !== "string") return undefined;
    const m = DATA_URL.exec(u);
    return m ? { type: "image", data: m[2]!, mimeType: m[1]! } : { type: "image", url: u, mimeType: "" };
  }
  if (b.type !== "image") return undefined;
  const mime = typeof b.mime_type === "string" ? b.mime_type : typeof b.mimeType === "string" ? b.mimeType : "";
  const data =
    b.source_type === "base64" || b.source_type === undefined
      ? typeof b.data === "string"
        ? b.data
        : typeof b.base64 === "string"
          ? b.base64
          : undefined
      : undefined;
  if (data !== undefined) return { type: "image", data, mimeType: mime };
  if (typeof b.url === "string") return { type: "image", url: b.url, mimeType: mime };
  return undefined;
}

/** The canonical block of a LangChain content block (without ext), or undefined when it has none. */
function blockOf(b: unknown): Content | undefined {
  if (typeof b === "string") return { type: "text", text: b };
  if (!isObj(b)) return undefined;
  if (b.type === "text" && typeof b.text === "string") return { type: "text", text: b.text };
  if (b.type === "thinking" && typeof b.thinking === "string") {
    const c: Content = { type: "thinking", thinking: b.thinking };
    if (typeof b.signature === "string") c.signature = b.signature;
    return c;
  }
  if (b.type === "reasoning" && typeof b.reasoning === "string") return { type: "thinking", thinking: b.reasoning };
  return imageOf(b);
}

/** The LangChain block written for a canonical block that has no recorded original. */
function freshBlock(c: Content): unknown {
  switch (c.type) {
    case "text":
      return { type: "text", text: c.text };
    case "thinking":
      return c.signature !== undefined
        ? { type: "thinking", thinking: c.thinking, signature: c.signature }
        : { type: "thinking", thinking: c.thinking };
    case "image":
      return { type: "image_url", image_url: { url: c.url ?? `data:${c.mimeType};base64,${c.data ?? ""}` } };
    case "file":
      return c.url !== undefined
        ? { type: "file", source_type: "url", url: c.url, mime_type: c.mimeType }
        : {
            type: "file",
            source_type: "base64",
            data: c.data,
            mime_type: c.mimeType,
            ...(c.filename ? { filename: c.filename } : {}),
          };
    default:
      return undefined;
  }
}

/** LangChain content → canonical blocks; blocks without a canonical form are kept raw with their index. */
function contentToCanonical(content: unknown, target: { ext?: Ext }): Content[] {
  if (typeof content === "string") {
    setLayout(target, "stringContent", true);
    return content === "" ? [] : [{ type: "text", text: content }];
  }
  const out: Content[] = [];
  const raw: Array<{ index: number; block: unknown }> = [];
  (Array.isArray(content) ? content : []).forEach((b, k) => {
    const c = blockOf(b);
    if (!c) {
      raw.push({ index: k, block: b });
      return;
    }
    // text blocks with only {type, text}: nothing to keep; anything else: the original block, reused on the way
    // back while the canonical block still says the same
    if (!(isObj(b) && b.type === "text" && Object.keys(b).length === 2 && "text" in b)) setExt(c, "block", b);
    out.push(c);
  });
  if (raw.length) setExt(target, "rawBlocks", raw);
  if (!Array.isArray(content)) setExt(target, "content", content); // neither string nor array: kept as is
  return out;
}

/** Canonical blocks (no toolCalls) → LangChain content. */
function contentFromCanonical(blocks: Content[], holder: { ext?: Ext }, ptr: string, lossy: LossSink): unknown {
  const e = extOf(holder);
  if ("content" in e) return e.content;
  const raw = Array.isArray(e.rawBlocks) ? (e.rawBlocks as Array<{ index: number; block: unknown }>) : [];
  // a message that never was a LangChain one (another format's): plain text is a string, as LangChain writes it
  const fresh = Object.keys(e).length === 0 && blocks.every((b) => extOf(b).block === undefined);
  if ((layoutOf(holder).stringContent === true || fresh) && raw.length === 0) {
    if (blocks.length === 0) return "";
    if (blocks.length === 1 && blocks[0]!.type === "text" && extOf(blocks[0]).block === undefined)
      return (blocks[0] as { text: string }).text;
  }
  const out: unknown[] = [];
  blocks.forEach((c, k) => {
    const kept = extOf(c).block;
    if (kept !== undefined) {
      const { ext: _e, ...plain } = c as Content & { ext?: Ext };
      const again = blockOf(kept);
      if (again && sameJson(again, plain)) {
        out.push(kept);
        return;
      }
    }
    const f = freshBlock(c);
    if (f === undefined)
      lossy.push({
        pointer: `${ptr}/${k}`,
        field: c.type,
        reason: `LangChain messages have no '${c.type}' content block`,
      });
    else out.push(f);
  });
  for (const r of raw) out.splice(Math.min(r.index, out.length), 0, r.block);
  return out;
}

// ---- usage ----------------------------------------------------------------------------------------------

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** LangChain usage_metadata → canonical usage (input is the non-cached part). */
function usageOf(u: Obj): Usage | undefined {
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const inD = isObj(u.input_token_details) ? u.input_token_details : {};
  const outD = isObj(u.output_token_details) ? u.output_token_details : {};
  const cacheRead = num(inD.cache_read);
  const cacheWrite = num(inD.cache_creation);
  const usage: Usage = { input: input - (cacheRead ?? 0) - (cacheWrite ?? 0), output };
  if (cacheRead !== undefined) usage.cacheRead = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWrite = cacheWrite;
  if (num(u.total_tokens) !== undefined) usage.totalTokens = num(u.total_tokens);
  if (num(outD.reasoning) !== undefined) usage.reasoning = num(outD.reasoning);
  return usage;
}

/** Canonical usage → LangChain usage_metadata (the form both libraries write). */
function usageFrom(u: Usage): Obj {
  const out: Obj = {
    input_tokens: u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
    output_tokens: u.output,
    total_tokens: u.totalTokens ?? u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) + u.output,
  };
  if (u.cacheRead !== undefined || u.cacheWrite !== undefined) {
    const d: Obj = {};
    if (u.cacheRead !== undefined) d.cache_read = u.cacheRead;
    if (u.cacheWrite !== undefined) d.cache_creation = u.cacheWrite;
    out.input_token_details = d;
  }
  if (u.reasoning !== undefined) out.output_token_details = { reasoning: u.reasoning };
  return out;
}

// ---- stop reasons ----------------------------------------------------------------------------------------

const STOP: Record<string, StopReason> = {
  stop: "stop",
  STOP: "stop",
  end_turn: "stop",
  stop_sequence: "stop",
  COMPLETE: "stop",
  length: "length",
  max_tokens: "length",
  MAX_TOKENS: "length",
  tool_calls: "toolUse",
  tool_use: "toolUse",
  function_call: "toolUse",
  content_filter: "refusal",
  refusal: "refusal",
  SAFETY: "refusal",
};

// ---- one message ---------------------------------------------------------------------------------------

// ---- plain-dict messages ----------------------------------------------------------------------------------

const PLAIN_CLASS: Record<string, string> = {
  human: "HumanMessage",
  user: "HumanMessage",
  ai: "AIMessage",
  assistant: "AIMessage",
  system: "SystemMessage",
  developer: "SystemMessage",
  tool: "ToolMessage",
};

/** An OpenAI-style tool call (`{id, type:"function", function:{name, arguments}}`) as LangChain's (args parsed). */
function plainToolCall(c: unknown): unknown {
  if (!isObj(c) || !isObj(c.function) || typeof c.function.name !== "string" || typeof c.id !== "string") return c;
  let args = c.function.arguments;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return c; // LangChain would refuse it; kept as stored
    }
  }
  return { name: c.function.name, args, id: c.id, type: "tool_call" };
}

/**
 * A message as LangChain's `convert_to_messages` (Python) / `coerceMessageLikeToMessage` (JS) accepts it in a message
 * list, other than a message record — a string (a human message), a `[role, content]` pair, a dict with `role` (or
 * `type`) and `content`: role aliases human/user, ai/assistant, system/developer, tool (with `tool_call_id`);
 * `content` a string, blocks or null (read as ""); OpenAI-style `tool_calls` parsed — as the lc:1 record of the
 * message LangChain builds from it. Other keys ride along as kwargs. Undefined for anything else.
 */
export function plainMessageRecord(v: unknown): LcRecord | undefined {
  let type: unknown;
  let kw: Obj;
  if (typeof v === "string") (type = "human"), (kw = { content: v });
  else if (Array.isArray(v)) {
    if (v.length !== 2 || typeof v[0] !== "string") return undefined;
    (type = v[0]), (kw = { content: v[1] });
  } else if (isObj(v) && !("lc" in v)) {
    const { role, ...rest } = v;
    if (typeof role === "string") (type = role), (kw = rest);
    else {
      const { type: t, ...others } = rest;
      (type = t), (kw = others);
    }
    if (!("content" in kw)) return undefined;
  } else return undefined;
  const cls = typeof type === "string" ? PLAIN_CLASS[type] : undefined;
  if (!cls || (cls === "ToolMessage" && typeof kw.tool_call_id !== "string")) return undefined;
  const kwargs: Obj = { ...kw, content: kw.content ?? "" };
  if (cls === "AIMessage" && Array.isArray(kw.tool_calls)) kwargs.tool_calls = kw.tool_calls.map(plainToolCall);
  return { lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs };
}

/** One LangChain value of a message list → canonical message. */
export function messageToCanonical(v: unknown): AgentMessage {
  return toCanonicalMessage(v, false);
}

/**
 * messageToCanonical without most of what only writing the message back needs (in its `ext`: the kwargs it does not map, the
 * class, the id, the key order, the usage and response metadata as stored): role, content, tool calls, tool result,
 * usage, model and stop reason are the same. For `ckpt search`, which reads the text and drops the message.
 */
export function messageToCanonicalLean(v: unknown): AgentMessage {
  return toCanonicalMessage(v, true);
}

function toCanonicalMessage(v: unknown, lean: boolean): AgentMessage {
  if (!isMappedMessage(v)) {
    const rec = plainMessageRecord(v);
    if (rec) {
      // read as the message LangChain makes of it; the stored value itself is what is written back
      const m = toCanonicalMessage(rec, lean);
      setLayout(m as { ext?: Ext }, "plain", v);
      return m;
    }
    return { role: EXT_ROLE, kind: isLcRecord(v) ? classOf(v) : "value", data: v } as ExtensionMessage;
  }
  const cls = classOf(v);
  const role = roleOfClass(cls)!;
  const kw = v.kwargs;
  const msg = { role, content: [] } as unknown as AgentMessage & { content: Content[]; ext?: Ext };
  msg.content = contentToCanonical(kw.content, msg);
  if (lean) {
    if (role === "assistant") assistantFieldsLean(kw, msg as AssistantMessage);
    if (role === "toolResult") toolFields(kw, msg as ToolResultMessage, []);
    return msg as AgentMessage;
  }
  const consumed = ["content"];
  // additional_kwargs / response_metadata: `{}` is the default both libraries write; recorded only when absent
  for (const k of ["additional_kwargs", "response_metadata"]) if (!(k in kw)) setLayout(msg, `no_${k}`, true);
  for (const k of ["additional_kwargs", "response_metadata"])
    if (isObj(kw[k]) && Object.keys(kw[k] as Obj).length === 0) consumed.push(k);
  if (role === "assistant") assistantFields(kw, msg as AssistantMessage, consumed);
  if (role === "toolResult") toolFields(kw, msg as ToolResultMessage, consumed);
  const rest = without(kw, consumed);
  if (rest) setExt(msg, "kwargs", rest);
  if (cls !== CLASS_OF[role]) setExt(msg, "class", cls);
  // (what sameJson(v.id, [...]) says of decoded JSON, without writing both out for every message)
  const id = v.id;
  if (!(Array.isArray(id) && id.length === 3 && id[0] === "langchain_core" && id[1] === "messages" && id[2] === cls))
    setExt(msg, "lcId", v.id);
  // key order: recorded only when writing the message back would not give the record's own order
  const back = messageFromCanonical(msg as AgentMessage, "", []) as LcRecord;
  if (Object.keys(back.kwargs).join("\0") !== Object.keys(kw).join("\0")) setLayout(msg, "keys", Object.keys(kw));
  return msg as AgentMessage;
}

/**
 * What assistantFields reads into the message itself — tool calls, usage, model, provider, stop reason — without what
 * only writing it back needs (the layout and ext records, the kwargs consumed).
 */
function assistantFieldsLean(kw: Obj, msg: AssistantMessage): void {
  const calls = Array.isArray(kw.tool_calls) ? kw.tool_calls : undefined;
  if (calls?.every((c) => isObj(c) && typeof c.id === "string" && typeof c.name === "string"))
    for (const c of calls as Obj[])
      msg.content.push({ type: "toolCall", id: c.id as string, name: c.name as string, arguments: c.args } as Content);
  if (isObj(kw.usage_metadata)) {
    const usage = usageOf(kw.usage_metadata);
    if (usage) msg.usage = usage;
  }
  const rm = isObj(kw.response_metadata) ? kw.response_metadata : undefined;
  if (rm) modelFields(rm, msg);
}

/** The model, provider and stop reason a message's response metadata names. */
function modelFields(rm: Obj, msg: AssistantMessage): void {
  if (typeof rm.model_name === "string") msg.model = rm.model_name;
  if (typeof rm.model_provider === "string") msg.provider = rm.model_provider;
  const reason =
    typeof rm.finish_reason === "string"
      ? rm.finish_reason
      : typeof rm.stop_reason === "string"
        ? rm.stop_reason
        : undefined;
  if (reason !== undefined && STOP[reason]) msg.stopReason = STOP[reason];
}

function assistantFields(kw: Obj, msg: AssistantMessage, consumed: string[]): void {
  const calls = Array.isArray(kw.tool_calls) ? kw.tool_calls : undefined;
  if (calls?.every((c) => isObj(c) && typeof c.id === "string" && typeof c.name === "string")) {
    consumed.push("tool_calls");
    for (const c of calls as Obj[]) {
      const block: Content = { type: "toolCall", id: c.id as string, name: c.name as string, arguments: c.args };
      if (c.type !== "tool_call") setLayout(block, "noType", true);
      const extra = without(c, ["id", "name", "args", "type"]);
      if (extra) setExt(block, "extra", extra);
      if (!("args" in c)) setLayout(block, "noArgs", true);
      const keys = Object.keys(c);
      if (
        keys.join() !==
        ["id", "name", "args", "type"]
          .filter((k) => k in c)
          .concat(keys.filter((k) => !["id", "name", "args", "type"].includes(k)))
          .join()
      )
        setLayout(block, "keys", keys);
      msg.content.push(block);
    }
  }
  if (Array.isArray(kw.invalid_tool_calls) && kw.invalid_tool_calls.length === 0) consumed.push("invalid_tool_calls");
  else if (!("invalid_tool_calls" in kw)) setLayout(msg, "no_invalid_tool_calls", true);
  if (!("tool_calls" in kw)) setLayout(msg, "no_tool_calls", true);
  if (isObj(kw.usage_metadata)) {
    const usage = usageOf(kw.usage_metadata);
    if (usage) {
      msg.usage = usage;
      consumed.push("usage_metadata");
      if (!sameJson(usageFrom(usage), kw.usage_metadata)) setExt(msg, "usage_metadata", kw.usage_metadata);
    }
  }
  const rm = isObj(kw.response_metadata) ? kw.response_metadata : undefined;
  if (rm && Object.keys(rm).length > 0) {
    modelFields(rm, msg);
    consumed.push("response_metadata");
    setExt(msg, "response_metadata", rm); // the whole object (key order, provider fields); reused while it agrees
  }
}

function toolFields(kw: Obj, msg: ToolResultMessage, consumed: string[]): void {
  msg.toolCallId = typeof kw.tool_call_id === "string" ? kw.tool_call_id : "";
  if (typeof kw.tool_call_id === "string") consumed.push("tool_call_id");
  msg.toolName = typeof kw.name === "string" ? kw.name : "";
  if (typeof kw.name === "string") consumed.push("name");
  else if (!("name" in kw)) setLayout(msg, "noName", true);
  msg.isError = kw.status === "error";
  if (kw.status === "error" || kw.status === "success") consumed.push("status");
  if (!("status" in kw)) setLayout(msg, "noStatus", true);
}

/** The kwargs written for a canonical message with no recorded extras, in the JS library's key order. */
function freshKwargs(m: AgentMessage): Obj {
  if (m.role === "toolResult")
    return { status: "success", content: "", tool_call_id: "", name: "", additional_kwargs: {}, response_metadata: {} };
  if (m.role === "assistant")
    return { content: "", tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} };
  return { content: "", additional_kwargs: {}, response_metadata: {} };
}

/** A canonical message → LangChain lc:1 record (extension messages of other formats are reported lost). */
export function messageFromCanonical(m0: AgentMessage, ptr: string, lossy: LossSink): unknown {
  if (m0.role !== "user" && m0.role !== "system" && m0.role !== "assistant" && m0.role !== "toolResult") {
    const x = m0 as ExtensionMessage;
    if (x.role === EXT_ROLE) return x.data;
    lossy.push({
      pointer: ptr,
      field: "message",
      reason: `LangChain has no extension messages (role '${x.role}', kind '${x.kind}')`,
    });
    return undefined;
  }
  const m = m0 as Message;
  const e = extOf(m);
  const lay = layoutOf(m);
  if ("plain" in lay) {
    // a plain-dict message: the stored dict while the message still says what it said
    const again = messageToCanonical(lay.plain);
    if (sameJson(again, m0)) return lay.plain;
  }
  const cls = typeof e.class === "string" ? e.class : CLASS_OF[m.role]!;
  const kw: Obj = freshKwargs(m);
  const blocks = m.content.filter((c) => c.type !== "toolCall");
  kw.content = contentFromCanonical(blocks, m, `${ptr}/content`, lossy);
  if ((m as { timestamp?: number }).timestamp !== undefined)
    lossy.push({ pointer: `${ptr}/timestamp`, field: "timestamp", reason: "LangChain messages have no timestamps" });
  if (m.role === "assistant") assistantBack(m, kw, e, lay, ptr, lossy);
  else if (m.content.some((c) => c.type === "toolCall"))
    lossy.push({
      pointer: `${ptr}/content`,
      field: "toolCall",
      reason: `LangChain ${cls} messages carry no tool calls`,
    });
  if (m.role === "toolResult") {
    kw.tool_call_id = m.toolCallId;
    kw.name = m.toolName;
    kw.status = m.isError ? "error" : "success";
    if (lay.noStatus === true && !m.isError) delete kw.status;
    if (lay.noName === true && m.toolName === "") delete kw.name;
  }
  if (lay.no_additional_kwargs === true) delete kw.additional_kwargs;
  if (
    lay.no_response_metadata === true &&
    isObj(kw.response_metadata) &&
    Object.keys(kw.response_metadata).length === 0
  )
    delete kw.response_metadata;
  if (isObj(e.kwargs)) Object.assign(kw, e.kwargs);
  const id = Array.isArray(e.lcId) ? (e.lcId as string[]) : ["langchain_core", "messages", cls];
  return { lc: 1, type: "constructor", id, kwargs: ordered(kw, lay.keys) };
}

function assistantBack(m: AssistantMessage, kw: Obj, e: Obj, lay: Obj, ptr: string, lossy: LossSink): void {
  const calls: Obj[] = [];
  for (const c of m.content) {
    if (c.type !== "toolCall") continue;
    const ce = extOf(c);
    const cl = layoutOf(c);
    const call: Obj = { id: c.id, name: c.name };
    if (cl.noArgs !== true) call.args = c.arguments;
    if (cl.noType !== true) call.type = "tool_call";
    if (isObj(ce.extra)) Object.assign(call, ce.extra);
    calls.push(ordered(call, cl.keys));
    if (c.providerMetadata !== undefined)
      lossy.push({
        pointer: `${ptr}/content`,
        field: "providerMetadata",
        reason: "LangChain tool calls have no provider metadata",
      });
  }
  kw.tool_calls = calls;
  if (lay.no_tool_calls === true && calls.length === 0) delete kw.tool_calls;
  if (lay.no_invalid_tool_calls === true) delete kw.invalid_tool_calls;
  if (m.usage) {
    const kept = e.usage_metadata;
    kw.usage_metadata = isObj(kept) && sameJson(usageOf(kept), m.usage) ? kept : usageFrom(m.usage);
  } else delete kw.usage_metadata;
  const rm = isObj(e.response_metadata) ? { ...e.response_metadata } : {};
  if (m.model !== undefined) rm.model_name = m.model;
  else delete rm.model_name;
  if (m.provider !== undefined) rm.model_provider = m.provider;
  else delete rm.model_provider;
  const reason =
    typeof rm.finish_reason === "string"
      ? "finish_reason"
      : typeof rm.stop_reason === "string"
        ? "stop_reason"
        : undefined;
  const had = reason ? STOP[rm[reason] as string] : undefined;
  if (m.stopReason !== had) {
    if (m.stopReason === undefined && reason) delete rm[reason];
    else if (m.stopReason !== undefined) rm[reason ?? "finish_reason"] = FINISH[m.stopReason] ?? m.stopReason;
  }
  // kept in response_metadata for people, but no LangChain reader (nor ckpt's) takes it back as a stop reason
  if (
    m.stopReason !== undefined &&
    FINISH[m.stopReason] === undefined &&
    !(reason && STOP[rm[reason] as string] === m.stopReason)
  ) {
    lossy.push({
      pointer: `${ptr}/stopReason`,
      field: "stopReason",
      reason: `LangChain has no finish_reason for '${m.stopReason}' (written as finish_reason '${m.stopReason}', which is not read back as a stop reason)`,
    });
  }
  kw.response_metadata = rm;
  if (m.errorMessage !== undefined)
    lossy.push({
      pointer: `${ptr}/errorMessage`,
      field: "errorMessage",
      reason: "LangChain AI messages have no error message",
    });
}

/** finish_reason spellings (OpenAI's) for canonical stop reasons written fresh. */
const FINISH: Partial<Record<StopReason, string>> = {
  stop: "stop",
  length: "length",
  toolUse: "tool_calls",
  refusal: "content_filter",
};

/** What the generic lints read of a message (role, tool-call ids, tool-result id, usage), as toCanonical gives them. */
export function lintMessageOf(value: unknown): {
  role: string;
  content?: Array<{ type: string; id?: string }>;
  toolCallId?: string;
  usage?: Usage;
} {
  const v = isMappedMessage(value) ? value : plainMessageRecord(value);
  if (!v) return { role: EXT_ROLE };
  const role = roleOfClass(classOf(v))!;
  const kw = v.kwargs;
  if (role === "toolResult") return { role, toolCallId: typeof kw.tool_call_id === "string" ? kw.tool_call_id : "" };
  if (role !== "assistant") return { role };
  const content: Array<{ type: string; id?: string }> = [];
  if (typeof kw.content === "string") {
    if (kw.content !== "") content.push({ type: "text" });
  } else if (Array.isArray(kw.content)) {
    for (const b of kw.content) {
      const c = blockOf(b);
      if (c) content.push({ type: c.type });
    }
  }
  const calls = Array.isArray(kw.tool_calls) ? kw.tool_calls : undefined;
  if (calls?.every((c) => isObj(c) && typeof c.id === "string" && typeof c.name === "string")) {
    for (const c of calls as Obj[]) content.push({ type: "toolCall", id: c.id as string });
  }
  const usage = isObj(kw.usage_metadata) ? usageOf(kw.usage_metadata) : undefined;
  return usage ? { role, content, usage } : { role, content };
}

/** A channel value that is a list of messages → canonical messages (one per element). */
export function messagesToCanonical(list: unknown[]): AgentMessage[] {
  return list.map(messageToCanonical);
}
