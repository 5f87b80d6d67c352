/**
 * deep-agent (deepagentsdk) `Checkpoint`: `{threadId, step, messages: ModelMessage[] (AI SDK v6), state: {todos,
 * files}, interrupt?, createdAt, updatedAt}` as FileSaver writes it (`JSON.stringify(cp, null, 2)`, no trailing
 * newline) and KeyValueStoreSaver stores it (FORMATS.md §5).
 *
 * Canonical mapping (everything without a canonical field travels in `ext.deepagent`, so deep-agent → canonical →
 * deep-agent is identical):
 * - string `content` → one text block, `ext.deepagent.stringContent: true`;
 * - `reasoning` → `thinking` (providerOptions kept in the block's ext); `tool-call` → `toolCall {id, name, arguments}`;
 *   `image`/`file` → `image`/`file` blocks (base64 `data`, or `url` for http(s)/data URLs);
 * - each `tool-result` part of a `role:"tool"` message → its own `toolResult` message; `ext.deepagent.group` ties the
 *   results of one native message together (the first part's toolCallId, so it does not shift when messages are
 *   inserted before it); the output type (`text`, `json`, `error-text`, `error-json`,
 *   `execution-denied`, `content`) is kept in `ext.deepagent.output` unless it is plain text;
 * - parts with no canonical form (`tool-approval-request`, `tool-result` inside an assistant message,
 *   `tool-approval-response`) ride along verbatim in `ext.deepagent.rawParts` at their original index;
 * - unknown keys (zod objects are non-strict) in `ext.deepagent.extra`.
 */
import type {
  AgentMessage,
  AssistantMessage,
  Checkpoint,
  Content,
  Ext,
  ExtensionMessage,
  FileData,
  InterruptData,
  TodoItem,
  ToolResultMessage,
} from "../generated/types.js";
import { isJsonInt, parseJson, stringifyJson } from "../base/json.js";
import { inputError } from "../base/errors.js";
import type { FormatAdapter, Issue, LintMessage, LossSink, LossyNote, SourceDoc } from "./types.js";
import { jsonLocator } from "../base/json.js";
import { comparePointers, escapePtr } from "../base/pointer.js";
import { envelopeTimes, isEnvelopeFillIn } from "./envelope.js";
import { noteAt } from "./loss.js";

type Obj = Record<string, unknown>;
export interface DeepagentCheckpoint {
  threadId: string;
  step: number;
  messages: Obj[];
  state: { todos: TodoItem[]; files: Record<string, FileData>; [k: string]: unknown };
  interrupt?: InterruptData;
  createdAt: string;
  updatedAt: string;
  [k: string]: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const URLISH = /^(https?:|data:)/i;
const MESSAGE_KEYS: Record<string, string[]> = {
  system: ["role", "content", "providerOptions"],
  user: ["role", "content", "providerOptions"],
  assistant: ["role", "content", "providerOptions"],
  tool: ["role", "content", "providerOptions"],
};
const OTHER_MESSAGE_KEYS = ["role", "content", "providerOptions"];
const PART_KEYS: Record<string, string[]> = {
  text: ["type", "text", "providerOptions"],
  image: ["type", "image", "mediaType", "providerOptions"],
  file: ["type", "data", "filename", "mediaType", "providerOptions"],
  reasoning: ["type", "text", "providerOptions"],
  "tool-call": ["type", "toolCallId", "toolName", "input", "providerExecuted", "providerOptions"],
  "tool-result": ["type", "toolCallId", "toolName", "output", "providerOptions"],
};

/** The canonical content type of each AI SDK part type partToContent converts (others are kept raw). */
const PART_TYPES = new Map<unknown, string>([
  ["text", "text"],
  ["reasoning", "thinking"],
  ["tool-call", "toolCall"],
  ["image", "image"],
  ["file", "file"],
]);

function extrasOf(o: Obj, known: string[]): Obj | undefined {
  let out: Obj | undefined;
  // own keys in Object.keys order, without the array of keys (once per message of a 20,000-message history)
  for (const k in o) {
    if (Object.hasOwn(o, k) && !known.includes(k)) (out ??= {})[k] = o[k];
  }
  return out;
}

/** Put `v` under ext.deepagent[key] (creating the ext objects as needed). */
function setExt(target: { ext?: Ext }, key: string, v: unknown): void {
  if (v === undefined) return;
  const ext = (target.ext ??= {});
  const mine = (ext.deepagent ??= {}) as Obj;
  mine[key] = v;
}
/** lintView's message with text content only, per role: shared and frozen (the lints only read it). */
const TEXT_ONLY: Readonly<Record<string, LintMessage>> = Object.fromEntries(
  ["system", "user", "assistant"].map((role) => [
    role,
    Object.freeze({ role, content: Object.freeze([Object.freeze({ type: "text" })]) }),
  ]),
);
/** What extOf gives for a value with no ext.deepagent: one shared, frozen object (read only), not one per message. */
const NO_EXT: Obj = Object.freeze({});
const extOf = (x: { ext?: Ext } | undefined): Obj => (isObj(x?.ext?.deepagent) ? (x!.ext!.deepagent as Obj) : NO_EXT);

// ---- native → canonical -----------------------------------------------------------------------------------

function dataContent(v: unknown): { data?: string; url?: string; binary?: string } {
  if (typeof v === "string") return URLISH.test(v) ? { url: v } : { data: v };
  // A Uint8Array / Buffer that went through JSON.stringify: recover the bytes (lint reports it as an error).
  if (isObj(v)) {
    const bytes =
      v.type === "Buffer" && Array.isArray(v.data)
        ? (v.data as number[])
        : Object.keys(v).every((k) => /^\d+$/.test(k))
          ? (Object.values(v) as number[])
          : undefined;
    if (bytes)
      return { data: Buffer.from(bytes).toString("base64"), binary: v.type === "Buffer" ? "buffer" : "uint8array" };
  }
  return { data: String(v) };
}

function partToContent(p: Obj): Content | undefined {
  let c: Content;
  switch (p.type) {
    case "text":
      c = { type: "text", text: String(p.text) };
      break;
    case "reasoning": {
      c = { type: "thinking", thinking: String(p.text) };
      // Anthropic's thinking signature travels in providerOptions (where the writer puts a canonical signature)
      const po = p.providerOptions;
      const sig = isObj(po) && isObj(po.anthropic) ? po.anthropic.signature : undefined;
      if (typeof sig === "string") {
        c.signature = sig;
        if (Object.keys(po as Obj).length === 1 && Object.keys((po as Obj).anthropic as Obj).length === 1) {
          const { providerOptions: _po, ...rest } = p;
          p = rest;
        }
      }
      break;
    }
    case "tool-call":
      // no `input` (an AI SDK v4 part has `args`): loaded by ai@6 with zod 3.25 and sent with no input; `args` stays in extra
      c = {
        type: "toolCall",
        id: String(p.toolCallId),
        name: String(p.toolName),
        arguments: "input" in p ? p.input : null,
      };
      if (!("input" in p)) setExt(c, "noInput", true);
      if (p.providerExecuted !== undefined) setExt(c, "providerExecuted", p.providerExecuted);
      break;
    case "image": {
      const d = dataContent(p.image);
      c = {
        type: "image",
        ...(d.url !== undefined ? { url: d.url } : { data: d.data! }),
        mimeType: typeof p.mediaType === "string" ? p.mediaType : "",
      };
      if (p.mediaType === undefined) setExt(c, "noMediaType", true);
      if (d.binary) setExt(c, "binary", d.binary);
      break;
    }
    case "file": {
      const d = dataContent(p.data);
      c = {
        type: "file",
        ...(d.url !== undefined ? { url: d.url } : { data: d.data! }),
        mimeType: String(p.mediaType),
      };
      if (typeof p.filename === "string") c.filename = p.filename;
      if (d.binary) setExt(c, "binary", d.binary);
      break;
    }
    default:
      return undefined;
  }
  if (p.providerOptions !== undefined) setExt(c, "providerOptions", p.providerOptions);
  const extra = extrasOf(p, PART_KEYS[String(p.type)] ?? []);
  if (extra) setExt(c, "extra", extra);
  return c;
}

function outputToResult(p: Obj): { content: Content[]; isError: boolean; output?: Obj } {
  const o = isObj(p.output) ? p.output : {};
  const plainText = o.type === "text" && typeof o.value === "string" && Object.keys(o).length === 2;
  const { value: _value, ...withoutValue } = o;
  switch (o.type) {
    case "text":
      return {
        content: [{ type: "text", text: String(o.value) }],
        isError: false,
        output: plainText ? undefined : withoutValue,
      };
    case "error-text":
      return { content: [{ type: "text", text: String(o.value) }], isError: true, output: withoutValue };
    case "json":
    case "error-json":
      return {
        content: [{ type: "text", text: stringifyJson(o.value) }],
        isError: o.type === "error-json",
        output: withoutValue,
      };
    case "execution-denied":
      return {
        content: [
          {
            type: "text",
            text: typeof o.reason === "string" ? `Tool execution denied: ${o.reason}` : "Tool execution denied",
          },
        ],
        isError: true,
        output: o,
      };
    case "content": {
      const content: Content[] = [];
      for (const item of Array.isArray(o.value) ? (o.value as Obj[]) : []) {
        if (item.type === "text") content.push({ type: "text", text: String(item.text) });
        else if ((item.type === "image-data" || item.type === "media") && String(item.mediaType).startsWith("image/")) {
          content.push({ type: "image", data: String(item.data), mimeType: String(item.mediaType) });
        } else if (item.type === "image-url") content.push({ type: "image", url: String(item.url), mimeType: "" });
      }
      return { content, isError: false, output: o }; // the whole output: items like file-id have no canonical form
    }
    default:
      return { content: [], isError: false, output: o };
  }
}

/**
 * The `ext.deepagent.group` of a role:"tool" message's parts: only consecutive canonical messages with the same group
 * are written back as one tool message, so it must tell adjacent tool messages apart — and it should not depend on
 * the message's position, or one message inserted earlier in the history would change every later tool result (as
 * `ckpt diff` would then report). So: the first part's toolCallId (or approvalId), else the native index.
 */
function toolGroupKey(m: Obj, index: number): string | number {
  const first = Array.isArray(m.content) ? (m.content as unknown[])[0] : undefined;
  if (isObj(first)) {
    if (typeof first.toolCallId === "string" && first.toolCallId !== "") return first.toolCallId;
    if (typeof first.approvalId === "string" && first.approvalId !== "") return first.approvalId;
  }
  return index;
}

function messageToCanonical(m: Obj, index: number | string): AgentMessage[] {
  const role = String(m.role);
  const extra = extrasOf(m, MESSAGE_KEYS[role] ?? OTHER_MESSAGE_KEYS);
  if (role !== "tool") return [chatMessageToCanonical(m, role, extra)];
  {
    const parts = Array.isArray(m.content) ? (m.content as Obj[]) : [];
    const out: AgentMessage[] = [];
    parts.forEach((p, k) => {
      if (p.type === "tool-result") {
        const r = outputToResult(p);
        const msg: ToolResultMessage = {
          role: "toolResult",
          toolCallId: String(p.toolCallId),
          toolName: String(p.toolName),
          content: r.content,
          isError: r.isError,
        };
        setExt(msg, "group", index);
        if (r.output) setExt(msg, "output", r.output);
        if (p.providerOptions !== undefined) setExt(msg, "partProviderOptions", p.providerOptions);
        const pe = extrasOf(p, PART_KEYS["tool-result"]!);
        if (pe) setExt(msg, "partExtra", pe);
        out.push(msg);
      } else {
        const ext: ExtensionMessage = { role: "deepagent", kind: String(p.type), data: p };
        setExt(ext, "group", index);
        out.push(ext);
        void k;
      }
    });
    if (out.length === 0) {
      const empty: ExtensionMessage = { role: "deepagent", kind: "empty-tool-message", data: null };
      setExt(empty, "group", index);
      out.push(empty);
    }
    if (m.providerOptions !== undefined) setExt(out[0]!, "providerOptions", m.providerOptions);
    if (extra) setExt(out[0]!, "extra", extra);
    return out;
  }
}

/** A system, user or assistant message (any role but tool): one canonical message. */
function chatMessageToCanonical(m: Obj, role: string, extra: Obj | undefined): AgentMessage {
  const canonicalRole = role === "system" || role === "user" || role === "assistant" ? role : "user";
  if (typeof m.content === "string") {
    // the common case, built as literals in the key order below (stringContent, providerOptions, extra): a string
    // content is one text block (an array literal: an empty array grown by push reserves 17 slots)
    const mine: Obj = { stringContent: true };
    if (m.providerOptions !== undefined) mine.providerOptions = m.providerOptions;
    if (extra) mine.extra = extra;
    return {
      role: canonicalRole,
      content: [{ type: "text", text: m.content }],
      ext: { deepagent: mine },
    } as AgentMessage;
  }
  const content: Content[] = [];
  const rawParts: Array<{ index: number; part: Obj }> = [];
  if (Array.isArray(m.content)) {
    (m.content as Obj[]).forEach((p, k) => {
      const c = isObj(p) ? partToContent(p) : undefined;
      if (c) content.push(c);
      else rawParts.push({ index: k, part: p });
    });
  }
  const msg = { role: canonicalRole, content } as AgentMessage & { ext?: Ext };
  if (rawParts.length) setExt(msg, "rawParts", rawParts);
  if (m.providerOptions !== undefined) setExt(msg, "providerOptions", m.providerOptions);
  if (extra) setExt(msg, "extra", extra);
  return msg;
}

// ---- canonical → native -----------------------------------------------------------------------------------

/** Block `k` of message `i` as an AI SDK part; notes under /messages/<i>/content/<k> what it drops. */
function contentToPart(c: Content, role: string, i: number, k: number, lossy: LossSink): Obj | undefined {
  const e = extOf(c);
  let p: Obj;
  switch (c.type) {
    case "text":
      p = { type: "text", text: c.text };
      break;
    case "thinking":
      if (role !== "assistant") {
        noteAt(lossy, i, `/content/${k}`, "thinking", `AI SDK ${role} messages have no reasoning parts`);
        return undefined;
      }
      p = { type: "reasoning", text: c.thinking };
      if (c.signature !== undefined && e.providerOptions === undefined)
        p.providerOptions = { anthropic: { signature: c.signature } };
      break;
    case "toolCall":
      if (role !== "assistant") {
        noteAt(lossy, i, `/content/${k}`, "toolCall", `AI SDK ${role} messages have no tool-call parts`);
        return undefined;
      }
      p =
        e.noInput && c.arguments === null
          ? { type: "tool-call", toolCallId: c.id, toolName: c.name }
          : { type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.arguments };
      if (e.providerExecuted !== undefined) p.providerExecuted = e.providerExecuted;
      if (c.providerMetadata !== undefined)
        noteAt(
          lossy,
          i,
          `/content/${k}/providerMetadata`,
          "providerMetadata",
          "AI SDK tool-call parts have no providerMetadata",
        );
      break;
    case "image":
      if (role === "assistant") {
        // assistant messages carry files, not images
        p = { type: "file", data: c.data ?? c.url, mediaType: c.mimeType || "application/octet-stream" };
        break;
      }
      p = { type: "image", image: c.data ?? c.url };
      if (!e.noMediaType) p.mediaType = c.mimeType;
      break;
    case "file":
      p = { type: "file", data: c.data ?? c.url, mediaType: c.mimeType };
      if (c.filename !== undefined) p.filename = c.filename;
      break;
    default:
      return undefined;
  }
  if (e.providerOptions !== undefined) p.providerOptions = e.providerOptions;
  if (isObj(e.extra)) Object.assign(p, e.extra);
  return p;
}

/** The text blocks' texts joined by newlines (as `filter` + `map` + `join("\n")`, without the arrays). */
function textOf(content: ToolResultMessage["content"]): string {
  let text: string | undefined;
  for (let k = 0; k < content.length; k++) {
    const c = content[k]!;
    if (c.type !== "text") continue;
    const t = (c as { text?: unknown }).text ?? ""; // join's reading of null and undefined
    text = text === undefined ? String(t) : text + "\n" + String(t);
  }
  return text ?? "";
}

/** Tool result message `i` as an AI SDK tool-result part. */
function resultToPart(m: ToolResultMessage, i: number, lossy: LossSink): Obj {
  const e = extOf(m);
  const text = textOf(m.content);
  let output: Obj;
  const saved = isObj(e.output) ? e.output : undefined;
  if (saved && (saved.type === "json" || saved.type === "error-json")) {
    output = { ...saved, value: parseJson(text, { file: `/messages/${i}` }) };
  } else if (saved && (saved.type === "text" || saved.type === "error-text")) {
    output = { ...saved, value: text };
  } else if (saved) {
    output = saved; // execution-denied, content: kept whole
  } else if (m.content.some((c) => c.type === "image")) {
    output = {
      type: "content",
      value: m.content.map((c) =>
        c.type === "image"
          ? c.url !== undefined
            ? { type: "image-url", url: c.url }
            : { type: "image-data", data: c.data, mediaType: c.mimeType }
          : { type: "text", text: (c as { text?: string }).text ?? "" },
      ),
    };
    if (m.isError) noteAt(lossy, i, "/isError", "isError", "an AI SDK content output cannot be marked as an error");
  } else {
    output = { type: m.isError ? "error-text" : "text", value: text };
  }
  // keep key order as the SDK writes it: value before providerOptions (only a saved output can have it later)
  if (saved && "value" in output && Object.keys(output).indexOf("value") > 1) {
    const { type, value, ...rest } = output;
    output = { type, value, ...rest };
  }
  const part: Obj = { type: "tool-result", toolCallId: m.toolCallId, toolName: m.toolName, output };
  if (e.partProviderOptions !== undefined) part.providerOptions = e.partProviderOptions;
  if (isObj(e.partExtra)) Object.assign(part, e.partExtra);
  return part;
}

/**
 * The loss reasons of the assistant fields an AI SDK message has no place for (one string each, shared by every
 * note); messagesFromCanonical notes them in pointer order around `timestamp`.
 */
const assistantLoss = (f: string) => `deep-agent checkpoints do not store an assistant message's ${f}`;
const ERROR_MESSAGE_LOSS = assistantLoss("errorMessage");
const MODEL_LOSS = assistantLoss("model");
const PROVIDER_LOSS = assistantLoss("provider");
const STOP_REASON_LOSS = assistantLoss("stopReason");
const USAGE_LOSS = assistantLoss("usage");
const TIMESTAMP_LOSS = "AI SDK messages have no timestamps";
const byPointer = (a: LossyNote, b: LossyNote) => comparePointers(a.pointer, b.pointer);

/**
 * The canonical messages as AI SDK messages. Each message's loss notes are written in pointer order (its own note,
 * then /content/<k>… in block order, then its fields by name: errorMessage, isError, model, provider, stopReason,
 * timestamp, usage), message after message, so that convertCheckpoint finds them sorted and does not sort 60,000 notes.
 */
function messagesFromCanonical(cp: Checkpoint, lossy: LossSink): Obj[] {
  const out: Obj[] = [];
  let openTool: { msg: Obj; group: unknown } | undefined;
  const dropsAssistantFields = cp.origin?.format !== "deepagent";
  const messages = cp.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const e = extOf(m as { ext?: Ext });
    const stamped = (m as { timestamp?: unknown }).timestamp !== undefined;
    if (m.role === "toolResult" || (m.role === "deepagent" && e.group !== undefined)) {
      const group = e.group ?? "results";
      if (!openTool || openTool.group !== group) {
        const msg: Obj = { role: "tool", content: [] };
        if (e.providerOptions !== undefined) msg.providerOptions = e.providerOptions;
        if (isObj(e.extra)) Object.assign(msg, e.extra);
        out.push(msg);
        openTool = { msg, group };
      }
      const parts = openTool.msg.content as Obj[];
      if (m.role === "toolResult")
        parts.push(resultToPart(m as ToolResultMessage, i, lossy)); // may note /isError
      else if ((m as ExtensionMessage).kind !== "empty-tool-message") parts.push((m as ExtensionMessage).data as Obj);
      if (stamped) noteAt(lossy, i, "/timestamp", "timestamp", TIMESTAMP_LOSS);
      continue;
    }
    openTool = undefined;
    if (m.role !== "system" && m.role !== "user" && m.role !== "assistant") {
      noteAt(
        lossy,
        i,
        "",
        "message",
        `deep-agent has no extension messages (role '${m.role}', kind '${(m as ExtensionMessage).kind}')`,
      );
      if (stamped) noteAt(lossy, i, "/timestamp", "timestamp", TIMESTAMP_LOSS);
      continue;
    }
    const msg = m as Extract<AgentMessage, { role: "system" | "user" | "assistant" }>;
    const native: Obj = { role: msg.role };
    native.content = contentFromCanonical(msg, e, i, lossy);
    // an assistant message's fields AI SDK messages have no place for, spelled out (named loads, one string each)
    const a = msg.role === "assistant" && dropsAssistantFields ? (msg as AssistantMessage) : undefined;
    if (a && a.errorMessage !== undefined) noteAt(lossy, i, "/errorMessage", "errorMessage", ERROR_MESSAGE_LOSS);
    if (a && a.model !== undefined) noteAt(lossy, i, "/model", "model", MODEL_LOSS);
    if (a && a.provider !== undefined) noteAt(lossy, i, "/provider", "provider", PROVIDER_LOSS);
    if (a && a.stopReason !== undefined) noteAt(lossy, i, "/stopReason", "stopReason", STOP_REASON_LOSS);
    if (stamped) noteAt(lossy, i, "/timestamp", "timestamp", TIMESTAMP_LOSS);
    if (a && a.usage !== undefined) noteAt(lossy, i, "/usage", "usage", USAGE_LOSS);
    if (e.providerOptions !== undefined) native.providerOptions = e.providerOptions;
    if (isObj(e.extra)) Object.assign(native, e.extra);
    out.push(native);
  }
  return out;
}

/** Message `i` (system, user or assistant)'s AI SDK content (a string or parts); notes what it drops under its /content. */
function contentFromCanonical(
  msg: Extract<AgentMessage, { role: "system" | "user" | "assistant" }>,
  e: Obj,
  i: number,
  lossy: LossSink,
): string | Obj[] {
  if (msg.role === "system") {
    const texts = msg.content.filter((c) => c.type === "text") as Array<{ text: string }>;
    if (texts.length !== msg.content.length)
      noteAt(lossy, i, "/content", "content", "AI SDK system messages hold a string only: non-text blocks dropped");
    return texts.map((t) => t.text).join("\n");
  }
  if (e.stringContent === true && msg.content.length === 1 && msg.content[0]!.type === "text")
    return (msg.content[0] as { text: string }).text;
  const parts: Obj[] = [];
  const content = msg.content;
  for (let k = 0; k < content.length; k++) {
    const p = contentToPart(content[k]!, msg.role, i, k, lossy);
    if (p) parts.push(p);
  }
  if (Array.isArray(e.rawParts))
    for (const r of e.rawParts as Array<{ index: number; part: Obj }>) parts.splice(r.index, 0, r.part);
  return parts;
}

// ---- the adapter ---------------------------------------------------------------------------------------

/**
 * Where the zod versions the AI SDK supports disagree (ai@6 peer range: zod ^3.25.76 || ^4.1.8). deep-agent 0.1.x
 * depends on zod ^3.25, whose bundled zod/v4 — like zod 4.1 to 4.3 — lets `input: z.unknown()` be missing; zod 4.4 and
 * later reject a tool-call part without `input`. ckpt's verdict follows deep-agent's install and warns here.
 */
const ZOD_VERSIONS_RULE = ["lint/deepagent-zod-versions", "warning"] as const;
const ZOD_VERSIONS_NO_INPUT = (p: Obj) =>
  `tool-call part ${JSON.stringify(String(p.toolCallId))} has no 'input'${"args" in p ? " (it has the AI SDK v4 'args')" : ""}: ai@6 with zod 3.25 (what deep-agent installs) loads it and sends the call with no input, ai@6 with zod 4.4 or later rejects the whole checkpoint; ${"args" in p ? "rename 'args' to 'input'" : "add 'input'"}`;
const BINARY_IN = (v: unknown) =>
  isObj(v) &&
  ((v.type === "Buffer" && Array.isArray(v.data)) ||
    (Object.keys(v).length > 0 && Object.keys(v).every((k) => /^\d+$/.test(k))));

function stemOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base.replace(/\.[^.]*$/, "") || base;
}

export const deepagentAdapter: FormatAdapter<DeepagentCheckpoint> = {
  name: "deepagent",
  title: "deep-agent (deepagentsdk) Checkpoint with AI SDK v6 ModelMessages (FileSaver / KeyValueStoreSaver JSON)",
  extensions: [".json"],
  lossy: [
    "message timestamps",
    "assistant stopReason, model, provider, usage, errorMessage",
    "extension messages",
    "thinking signatures (kept as providerOptions.anthropic.signature)",
    "toolCall providerMetadata",
    "state other than todos and files (scratchpad, contexts)",
    "origin and ext of other formats",
  ],
  schema: "formats/deepagent/checkpoint",
  detectNeeds: { first: "{" },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined || !/^\s*\{/.test(t)) return { confidence: 0 };
    const head = t.slice(0, 2048);
    if (/"schemaVersion"\s*:/.test(t.slice(0, 256))) return { confidence: 0 };
    if (/"threadId"\s*:/.test(head) && /"step"\s*:/.test(t) && /"messages"\s*:/.test(t) && /"state"\s*:/.test(t))
      return { confidence: 0.95, version: "ai-v6" };
    return { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a deep-agent checkpoint is a single JSON file", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!isObj(v))
      throw inputError(
        "not-an-object",
        "expected a deep-agent Checkpoint object {threadId, step, messages, state, …}",
        { file: doc.name, line: 1, column: 1 },
      );
    return v as DeepagentCheckpoint;
  },
  toCanonical(native, doc) {
    const messages: AgentMessage[] = [];
    let prevGroup: string | number | undefined;
    const list: unknown[] = Array.isArray(native.messages) ? native.messages : [];
    // a plain loop, and a chat message pushed as it is (no array per message spread into the list): 20,000 messages
    // in a process that runs this once
    for (let i = 0; i < list.length; i++) {
      const m = list[i]; // a hole is undefined here (forEach skipped it)
      if (!isObj(m)) continue;
      const role = String(m.role);
      if (role !== "tool") {
        prevGroup = undefined;
        messages.push(chatMessageToCanonical(m, role, extrasOf(m, MESSAGE_KEYS[role] ?? OTHER_MESSAGE_KEYS)));
        continue;
      }
      let group: string | number | undefined;
      if (m.role === "tool") {
        group = toolGroupKey(m, i);
        if (group === prevGroup) group = i; // two adjacent tool messages must stay apart
      }
      prevGroup = group;
      for (const x of messageToCanonical(m, group ?? i)) messages.push(x);
    }
    const state: Checkpoint["state"] = { ...native.state };
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: typeof native.threadId === "string" ? native.threadId : (doc.threadId ?? stemOf(doc.name)),
      step: isJsonInt(native.step) ? native.step : messages.filter((m) => m.role === "assistant").length,
      messages,
      state,
    };
    if (native.interrupt !== undefined) cp.interrupt = native.interrupt;
    if (native.createdAt !== undefined) cp.createdAt = native.createdAt;
    if (native.updatedAt !== undefined) cp.updatedAt = native.updatedAt;
    cp.origin = {
      format: "deepagent",
      version: "ai-v6",
      ...(typeof native.threadId === "string" ? {} : { threadIdFrom: "file-name" as const }),
    };
    const extra = extrasOf(native, ["threadId", "step", "messages", "state", "interrupt", "createdAt", "updatedAt"]);
    if (extra) cp.ext = { deepagent: { extra } };
    return cp;
  },
  fromCanonical(cp, { lossy }) {
    // notes in pointer order (lossInPointerOrder): /ext/… before /messages/… before /state/…, each sorted
    const extLoss = Object.keys(cp.ext ?? {})
      .filter((k) => k !== "deepagent")
      .map((k) => ({
        pointer: `/ext/${escapePtr(k)}`,
        field: k,
        reason: `deep-agent cannot carry ${k}-specific data`,
      }));
    for (const n of extLoss.sort(byPointer)) lossy.push(n);
    const messages = messagesFromCanonical(cp, lossy);
    const { todos, files, ...rest } = cp.state;
    const stateLoss = Object.keys(rest).map((k) => ({
      pointer: `/state/${escapePtr(k)}`,
      field: k,
      reason: "deep-agent state holds only todos and files",
    }));
    for (const n of stateLoss.sort(byPointer)) lossy.push(n);
    // times from the messages when the source has none; the epoch only when nothing at all says when
    const times = envelopeTimes(cp);
    const fallback = new Date(0).toISOString();
    const out: DeepagentCheckpoint = {
      threadId: cp.threadId,
      step: cp.step,
      messages,
      state: { todos: todos ?? [], files: files ?? {} },
      createdAt: times.createdAt ?? fallback,
      updatedAt: times.updatedAt ?? fallback,
    };
    if (cp.interrupt !== undefined) {
      // key order as deep-agent writes it: interrupt between state and createdAt
      const { createdAt, updatedAt } = out;
      delete (out as Partial<DeepagentCheckpoint>).createdAt;
      delete (out as Partial<DeepagentCheckpoint>).updatedAt;
      Object.assign(out, { interrupt: cp.interrupt, createdAt, updatedAt });
    }
    const ext = cp.ext && isObj(cp.ext.deepagent) ? (cp.ext.deepagent as Obj) : undefined;
    if (ext && isObj(ext.extra)) Object.assign(out, ext.extra);
    return out;
  },
  lint(native, doc) {
    const issues: Issue[] = [];
    const loc = doc.text !== undefined ? jsonLocator(doc.text) : undefined;
    const add = (
      pointer: string,
      message: string,
      rule = "lint/deepagent-binary-object",
      severity: Issue["severity"] = "error",
    ) => {
      const at = loc?.locate(pointer);
      issues.push({ severity, rule, message, pointer, file: doc.name, line: at?.line, column: at?.column });
    };
    (Array.isArray(native.messages) ? native.messages : []).forEach((m, i) => {
      if (!isObj(m) || !Array.isArray(m.content)) return;
      (m.content as unknown[]).forEach((p, k) => {
        if (!isObj(p)) return;
        if (p.type === "tool-call" && m.role === "assistant" && !("input" in p))
          add(`/messages/${i}/content/${k}`, ZOD_VERSIONS_NO_INPUT(p), ...ZOD_VERSIONS_RULE);
        const key = p.type === "image" ? "image" : p.type === "file" ? "data" : undefined;
        if (key && BINARY_IN(p[key])) {
          add(
            `/messages/${i}/content/${k}/${key}`,
            `a ${isObj(p[key]) && (p[key] as Obj).type === "Buffer" ? "Buffer" : "Uint8Array"} serialized as a byte object: the AI SDK rejects it when the checkpoint is reloaded; store the bytes as a base64 string`,
          );
        }
      });
    });
    return issues;
  },
  /**
   * toCanonical's thread id, interrupt, roles, tool-call and tool-result ids (AI SDK messages have no timestamps
   * or usage), without converting parts (images, files, tool outputs).
   */
  lintView(native, doc) {
    const messages: LintMessage[] = [];
    for (const m of Array.isArray(native.messages) ? native.messages : []) {
      if (!isObj(m)) continue;
      const role = String(m.role);
      if (role === "tool") {
        const parts = Array.isArray(m.content) ? (m.content as Obj[]) : [];
        for (const p of parts)
          messages.push(
            p.type === "tool-result" ? { role: "toolResult", toolCallId: String(p.toolCallId) } : { role: "deepagent" },
          );
        if (parts.length === 0) messages.push({ role: "deepagent" });
        continue;
      }
      const lintRole = role === "system" || role === "user" || role === "assistant" ? role : "user";
      if (typeof m.content === "string") {
        // the lints only read the view: one shared message per role for the common text-only message
        messages.push(TEXT_ONLY[lintRole]!);
        continue;
      }
      const content: Array<{ type: string; id?: string }> = [];
      if (Array.isArray(m.content)) {
        for (const p of m.content as unknown[]) {
          if (!isObj(p)) continue;
          if (p.type === "tool-call") content.push({ type: "toolCall", id: String(p.toolCallId) });
          else if (PART_TYPES.has(p.type)) content.push({ type: PART_TYPES.get(p.type)! });
        }
      }
      messages.push({ role: lintRole, content });
    }
    return {
      threadId: typeof native.threadId === "string" ? native.threadId : (doc.threadId ?? stemOf(doc.name)),
      interrupt: native.interrupt,
      messages,
    };
  },
  messagePointers(native) {
    const out: string[] = [];
    (Array.isArray(native.messages) ? native.messages : []).forEach((m, i) => {
      const n = isObj(m) && m.role === "tool" && Array.isArray(m.content) ? Math.max(1, m.content.length) : 1;
      if (isObj(m) && m.role === "tool" && Array.isArray(m.content) && m.content.length > 0) {
        for (let k = 0; k < n; k++) out.push(`/messages/${i}/content/${k}`);
      } else out.push(`/messages/${i}`);
    });
    return out;
  },
  /** FileSaver: JSON.stringify(checkpoint, null, 2), no trailing newline. */
  integers: "js",
  /** createdAt / updatedAt derived from the messages, and the empty todos and files FileSaver's type requires */
  fillIns: {
    checkpoint(pointer, value, source) {
      if (pointer === "/state/todos") return Array.isArray(value) && value.length === 0;
      if (pointer === "/state/files") return isObj(value) && Object.keys(value).length === 0;
      return isEnvelopeFillIn(pointer, value, source);
    },
  },
  serialize: (native) => ({ text: stringifyJson(native, 2) }),
  lossInPointerOrder: true,
};
