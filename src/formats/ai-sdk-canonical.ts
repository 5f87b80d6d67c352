/**
 * View messages (ai-sdk-parts.ts) to and from canonical messages.
 *
 * - A view message becomes one canonical message per step: system and user messages one; an assistant message one
 *   assistant message per `step-start`-separated step, each followed by a `toolResult` message per tool part of the
 *   step that has an outcome (`output-available`: the output, text or JSON text; `output-error`: the error text,
 *   isError). So canonical messages are the model messages `convertToModelMessages` gives.
 * - Blocks: `text` → text; `reasoning` → thinking; `file` → image (image/*) or file, by URL; a tool part → toolCall
 *   {id: toolCallId, name, arguments: input}. A part's other fields (state, providerMetadata, approval, …) travel in
 *   the block's `ext["ai-sdk"].rest`; parts with no canonical form (step-start, source-*, data-*, custom, …) travel
 *   whole in the first canonical message's `ext["ai-sdk"].raw` with their index.
 * - Every canonical message of a view message has `ext["ai-sdk"].id` (the UI message id): consecutive messages with
 *   one id are written back as one UI message. The first also carries `metadata` and the message's other keys.
 *
 * Canonical messages from other formats (no ai-sdk ext) are grouped as the AI SDK does: a user or system message is
 * a UI message; an assistant message and the tool results and assistant messages after it are one assistant UI
 * message, a step each.
 */
import type {
  AgentMessage,
  Checkpoint,
  Content,
  Ext,
  ExtensionMessage,
  ToolResultMessage,
} from "../generated/types.js";
import { noteAt } from "./loss.js";
import type { LossSink } from "./types.js";
import { isObj, isToolPart, type Obj, toolNameOf, type ViewMessage } from "./ai-sdk-parts.js";

export const EXT = "ai-sdk";
const extOf = (x: { ext?: Ext } | undefined): Obj => (x?.ext && isObj(x.ext[EXT]) ? (x.ext[EXT] as Obj) : NO_EXT);
const NO_EXT: Obj = Object.freeze({});

function withExt<T extends { ext?: Ext }>(target: T, data: Obj): T {
  if (Object.keys(data).length > 0) target.ext = { ...(target.ext ?? {}), [EXT]: data };
  return target;
}

/** The keys of `p` other than `known`, in order (undefined when none). */
function restOf(p: Obj, known: readonly string[]): Obj | undefined {
  let out: Obj | undefined;
  for (const k of Object.keys(p)) if (!known.includes(k)) (out ??= {})[k] = p[k];
  return out;
}

const TOOL_KNOWN = ["type", "toolName", "toolCallId", "state", "input", "output", "errorText"];

/** A view part as a canonical block, or undefined when it has none (kept raw). */
function partToBlock(p: Obj, role: string): Content | undefined {
  let c: Content;
  let known: readonly string[];
  const e: Obj = {};
  switch (p.type) {
    case "text":
      if (typeof p.text !== "string") return undefined;
      c = { type: "text", text: p.text };
      known = ["type", "text"];
      break;
    case "reasoning": {
      if (typeof p.text !== "string" || role !== "assistant") return undefined;
      c = { type: "thinking", thinking: p.text };
      // an Anthropic signature alone in providerMetadata (where AI SDK 5+ keeps it) is the block's signature
      const sig = signatureOf(p.providerMetadata);
      if (sig !== undefined) c.signature = sig;
      known = sig !== undefined ? ["type", "text", "providerMetadata"] : ["type", "text"];
      break;
    }
    case "file": {
      if (typeof p.url !== "string" || typeof p.mediaType !== "string") return undefined;
      const image = p.mediaType.startsWith("image/");
      // a base64 data URL of the part's own media type is the block's data (written back as that URL)
      const prefix = `data:${p.mediaType};base64,`;
      const where = p.url.startsWith(prefix) ? { data: p.url.slice(prefix.length) } : { url: p.url };
      if (image) c = { type: "image", ...where, mimeType: p.mediaType };
      else {
        c = { type: "file", ...where, mimeType: p.mediaType };
        if (typeof p.filename === "string") c.filename = p.filename;
      }
      known = image ? ["type", "url", "mediaType"] : ["type", "url", "mediaType", "filename"];
      break;
    }
    default:
      if (!isToolPart(p) || role !== "assistant" || typeof p.toolCallId !== "string") return undefined;
      c = { type: "toolCall", id: p.toolCallId, name: toolNameOf(p), arguments: "input" in p ? p.input : null };
      e.state = p.state;
      if (p.type === "dynamic-tool") e.dynamic = true;
      if (!("input" in p)) e.noInput = true;
      known = TOOL_KNOWN;
  }
  const rest = restOf(p, known);
  if (rest) e.rest = rest;
  const order = Object.keys(p);
  if (order.join() !== Object.keys(blockToPart(c, { ...e, ...(rest ? { rest } : {}) }, p)).join()) e.order = order;
  return withExt(c, e);
}

/** The signature of providerMetadata that holds nothing but `{anthropic: {signature}}`. */
function signatureOf(pm: unknown): string | undefined {
  if (!isObj(pm) || Object.keys(pm).length !== 1 || !isObj(pm.anthropic)) return undefined;
  const a = pm.anthropic;
  return Object.keys(a).length === 1 && typeof a.signature === "string" ? a.signature : undefined;
}

/** The toolResult message of a tool part with an outcome, else undefined. */
function resultOf(p: Obj, id: string): ToolResultMessage | undefined {
  if (!isToolPart(p) || (p.state !== "output-available" && p.state !== "output-error")) return undefined;
  const error = p.state === "output-error";
  const value = error ? p.errorText : p.output;
  const json = typeof value !== "string";
  const msg: ToolResultMessage = {
    role: "toolResult",
    toolCallId: String(p.toolCallId),
    toolName: toolNameOf(p),
    content: [{ type: "text", text: json ? (JSON.stringify(value) ?? "null") : value }],
    isError: error,
  };
  return withExt(msg, json ? { id, json: value === undefined ? "undefined" : true } : { id });
}

/** One view message as canonical messages (a step each for an assistant message, tool results after their step). */
export function viewToCanonical(view: ViewMessage, head: Obj): AgentMessage[] {
  const out: AgentMessage[] = [];
  const raw: Array<{ index: number; part: unknown }> = [];
  const role = view.role === "system" || view.role === "user" ? view.role : "assistant";
  type Step = Extract<AgentMessage, { role: "system" | "user" | "assistant" }>;
  let current: Step | undefined;
  const start = (): Step => withExt({ role, content: [] } as Step, { id: view.id });
  let results: ToolResultMessage[] = [];
  const flush = () => {
    if (current) out.push(current);
    out.push(...results);
    current = undefined;
    results = [];
  };
  view.parts.forEach((p, k) => {
    if (!isObj(p)) {
      raw.push({ index: k, part: p });
      return;
    }
    if (p.type === "step-start" && role === "assistant") {
      if (current && current.content.length > 0) flush();
      raw.push({ index: k, part: p });
      return;
    }
    const block = partToBlock(p, role);
    if (!block) {
      raw.push({ index: k, part: p });
      return;
    }
    current ??= start();
    current.content.push(block);
    const r = resultOf(p, view.id);
    if (r) results.push(r);
  });
  if (current || out.length === 0) {
    current ??= start();
    flush();
  } else flush();
  const first = out[0]!;
  const e: Obj = { ...extOf(first), ...head };
  if (view.metadata !== undefined) e.metadata = view.metadata;
  if (view.extra) e.extra = view.extra;
  if (raw.length > 0) e.raw = raw;
  if (view.role !== role) e.role = view.role;
  withExt(first, e);
  return out;
}

// ---- canonical → view -----------------------------------------------------------------------------------

/** A canonical block as a view part (`e`: the block's ext), `orig` only to compare key orders while reading. */
function blockToPart(c: Content, e: Obj, orig?: Obj): Obj {
  const rest = isObj(e.rest) ? e.rest : undefined;
  let p: Obj;
  switch (c.type) {
    case "text":
      p = { type: "text", text: c.text, ...rest };
      break;
    case "thinking":
      p = { type: "reasoning", text: c.thinking, ...rest };
      if (c.signature !== undefined && !rest?.providerMetadata)
        p.providerMetadata = { anthropic: { signature: c.signature } };
      break;
    case "image":
    case "file": {
      const url = c.url ?? `data:${c.mimeType};base64,${c.data ?? ""}`;
      p = { type: "file", mediaType: c.mimeType || "application/octet-stream" };
      if (c.type === "file" && c.filename !== undefined) p.filename = c.filename;
      p.url = url;
      if (rest) Object.assign(p, rest);
      break;
    }
    case "toolCall":
      p = e.dynamic
        ? { type: "dynamic-tool", toolName: c.name, toolCallId: c.id }
        : { type: `tool-${c.name}`, toolCallId: c.id };
      p.state = e.state ?? "input-available";
      if (!(e.noInput && c.arguments === null)) p.input = c.arguments;
      if (orig && "output" in orig) p.output = orig.output;
      if (orig && "errorText" in orig) p.errorText = orig.errorText;
      if (rest) Object.assign(p, rest);
      break;
    default:
      p = { type: "text", text: "" };
  }
  return Array.isArray(e.order) ? reorder(p, e.order as string[]) : p;
}

function reorder(p: Obj, order: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (k in p) out[k] = p[k];
  for (const k of Object.keys(p)) if (!(k in out)) out[k] = p[k];
  return out;
}

/** A view message being written, with what its canonical messages said about it. */
export interface ViewDraft extends ViewMessage {
  /** the canonical index of its first message (loss notes point there) */
  at: number;
  /** ext["ai-sdk"] of its first canonical message */
  head: Obj;
  /** its tool parts by call id, waiting for a result */
  tools: Map<string, Obj>;
  /** the source's key order of tool parts whose order was not the SDK's */
  orders: Map<string, unknown>;
  /** from a canonical history of another format: no ai-sdk ext */
  foreign: boolean;
  /** canonical indices of its assistant messages' timestamps and other fields dropped */
  timestamp?: number;
}

const ASSISTANT_FIELDS = ["errorMessage", "model", "provider", "stopReason", "usage"] as const;

/** The canonical messages as view drafts (AI SDK 4 data messages as their extension message). */
export function canonicalToViews(cp: Checkpoint, lossy: LossSink): Array<ViewDraft | ExtensionMessage> {
  const out: Array<ViewDraft | ExtensionMessage> = [];
  let open: ViewDraft | undefined;
  cp.messages.forEach((m, i) => {
    const e = extOf(m as { ext?: Ext });
    if (m.role === "toolResult") {
      attachResult(open, m as ToolResultMessage, e, i, lossy);
      return;
    }
    if (m.role !== "system" && m.role !== "user" && m.role !== "assistant") {
      const x = m as ExtensionMessage;
      if (x.role === EXT) out.push(x);
      else
        noteAt(
          lossy,
          i,
          "",
          "message",
          `AI SDK UI messages have no extension messages (role '${x.role}', kind '${x.kind}')`,
        );
      open = undefined;
      return;
    }
    const id = typeof e.id === "string" ? e.id : undefined;
    const continues =
      open !== undefined &&
      m.role === "assistant" &&
      open.role === "assistant" &&
      (id !== undefined ? open.id === id && !open.foreign : open.foreign);
    if (!continues) {
      open = newDraft(m, e, i, id);
      out.push(open);
    } else if (open!.foreign) open!.parts.push({ type: "step-start" });
    const draft = open!;
    const content = (m as { content: Content[] }).content;
    content.forEach((c) => {
      const ce = extOf(c as { ext?: Ext });
      const p = blockToPart(c, ce);
      if (c.type === "toolCall") {
        draft.tools.set(c.id, p);
        if (Array.isArray(ce.order)) draft.orders.set(c.id, ce.order);
      }
      draft.parts.push(p);
    });
    noteMessageLoss(m, i, draft, lossy);
  });
  return out;
}

function newDraft(m: AgentMessage, e: Obj, i: number, id: string | undefined): ViewDraft {
  const foreign = id === undefined;
  const draft: ViewDraft = {
    id: id ?? `msg-${i}`,
    role: typeof e.role === "string" ? e.role : m.role,
    parts: [],
    at: i,
    head: e,
    tools: new Map(),
    orders: new Map(),
    foreign,
  };
  if (e.metadata !== undefined) draft.metadata = e.metadata;
  if (isObj(e.extra)) draft.extra = e.extra;
  if (foreign && m.role === "assistant") draft.parts.push({ type: "step-start" });
  return draft;
}

function noteMessageLoss(m: AgentMessage, i: number, draft: ViewDraft, lossy: LossSink): void {
  const ts = (m as { timestamp?: number }).timestamp;
  if (ts !== undefined && draft.at === i && draft.timestamp === undefined) draft.timestamp = ts;
  else if (ts !== undefined)
    noteAt(lossy, i, "/timestamp", "timestamp", "AI SDK UI messages have one time (the first step's)");
  if (m.role !== "assistant") return;
  for (const f of ASSISTANT_FIELDS)
    if ((m as unknown as Record<string, unknown>)[f] !== undefined)
      noteAt(lossy, i, `/${f}`, f, `AI SDK UI messages do not store an assistant message's ${f}`);
}

function attachResult(open: ViewDraft | undefined, m: ToolResultMessage, e: Obj, i: number, lossy: LossSink): void {
  const part = open?.tools.get(m.toolCallId);
  if (!part) {
    noteAt(
      lossy,
      i,
      "",
      "toolResult",
      `no tool call '${m.toolCallId}' before it in the same UI message: AI SDK UI messages keep a result in its call's part`,
    );
    return;
  }
  const texts = m.content.filter((c) => c.type === "text") as Array<{ text: string }>;
  if (texts.length !== m.content.length)
    noteAt(lossy, i, "/content", "content", "AI SDK tool parts hold a text or JSON output: non-text blocks dropped");
  const text = texts.map((t) => t.text).join("\n");
  let value: unknown = text;
  if (e.json === "undefined") value = undefined;
  else if (e.json === true) {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  const error = m.isError || part.state === "output-error";
  const order = Object.keys(part).filter((k) => k !== "output" && k !== "errorText");
  const key = error ? "errorText" : "output";
  const outcome = error ? (typeof value === "string" ? value : text) : value;
  // the outcome right after the input, as the SDK writes it (or where the source had it)
  const at = order.indexOf("input");
  const wanted = (open!.orders.get(m.toolCallId) as string[] | undefined) ?? [
    ...order.slice(0, at + 1),
    key,
    ...order.slice(at + 1),
  ];
  const values: Obj = { ...part, state: error ? "output-error" : "output-available", [key]: outcome };
  delete values[error ? "output" : "errorText"];
  for (const k of Object.keys(part)) delete part[k];
  Object.assign(part, reorder(values, wanted));
  open!.tools.delete(m.toolCallId);
}

/**
 * Splice a draft's raw parts back at their indices. A tool part whose state says it has an outcome that no tool
 * result brought (the result message was removed) goes back to `input-available`, noted.
 */
export function withRawParts(draft: ViewDraft, lossy: LossSink): Obj[] {
  for (const [id, p] of draft.tools) {
    if (p.state !== "output-available" && p.state !== "output-error") continue;
    p.state = "input-available";
    noteAt(
      lossy,
      draft.at,
      "",
      "toolResult",
      `the result of tool call '${id}' is missing: written as a call without an outcome`,
    );
  }
  const raw = Array.isArray(draft.head.raw) ? (draft.head.raw as Array<{ index: number; part: Obj }>) : [];
  const parts = [...draft.parts];
  for (const r of [...raw].sort((a, b) => a.index - b.index)) parts.splice(r.index, 0, r.part);
  return parts;
}
