/**
 * OpenAI Responses API input items (`ResponseInputItem`, snake_case: what the Python Agents SDK's sessions store —
 * `to_input_list()`, one `json.dumps(item)` per SQLiteSession row — and what the JS SDK sends the Responses API) ⇄
 * canonical AgentMessages. Pure.
 *
 * Mapping (native → canonical):
 * - a `message` (with or without `"type": "message"`) of role user → user (string content → one text block;
 *   `input_text` → text, `input_image` with an `image_url` (a data URL → data) → image, `input_file` with
 *   `file_data`/`file_url` → file); role system or developer → system;
 * - consecutive assistant-side items — `message` role assistant (`output_text` → text, `refusal` → text),
 *   `reasoning` (`summary` texts, then `content` texts → thinking), `function_call` (→ toolCall with its `call_id`,
 *   `arguments` parsed when JSON) — → one assistant message (`stopReason: "toolUse"` when it calls a tool);
 * - `function_call_output` → toolResult (the tool's name from the `function_call` with its `call_id`; a string
 *   output → text, `input_text`/`input_image`/`input_file` parts → blocks);
 * - every other item (hosted tool calls, computer, shell, MCP, compaction, item references, …) → an extension
 *   message `{role: "openai-responses", kind: <item type>, data: <the item>}`.
 * The items each message was read from ride in `ext["openai-responses-items"]._layout.items` (left out of diffs):
 * canonical → items gives them back unchanged while the message still says the same. A message read from the JS
 * SDK's own items (`openai-agents`, `openai-agents-items`) is written as that SDK's converter `getInputItems` writes
 * it; anything else is written new, in the same shapes.
 */
import type {
  AgentMessage,
  AssistantMessage,
  Content,
  ExtensionMessage,
  ToolResultMessage,
  UserMessage,
} from "../../generated/types.js";
import { parseJson, stringifyJson } from "../../base/json.js";
import type { LossSink } from "../types.js";
import { noteAt } from "../loss.js";
import { EXT as AGENTS_EXT, HANDOFF, isObj, type Obj } from "./items.js";

/** The key of this format in `ext`. */
export const RX = "openai-responses-items";
/** The role of extension messages holding items with no canonical shape. */
export const RROLE = "openai-responses";

const isMessage = (it: Obj) => it.type === "message" || ((it.type === undefined || it.type === null) && "role" in it);
const isAssistantSide = (it: Obj) =>
  (isMessage(it) && it.role === "assistant") || it.type === "function_call" || it.type === "reasoning";

function argsOf(s: unknown): unknown {
  if (typeof s !== "string") return s;
  try {
    return parseJson(s);
  } catch {
    return s;
  }
}

function media(url: string, kind: "image" | "file", filename?: unknown): Content {
  const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  const block: Obj = m?.[2]
    ? { type: kind, data: m[3], mimeType: m[1] ?? "" }
    : { type: kind, url, mimeType: m?.[1] ?? "" };
  if (kind === "file" && typeof filename === "string") block.filename = filename;
  return block as unknown as Content;
}

/** Content parts → canonical blocks; parts with no canonical form (file ids, audio) are skipped. */
function partsToContent(parts: unknown): Content[] {
  if (typeof parts === "string") return [{ type: "text", text: parts }];
  const out: Content[] = [];
  for (const p of Array.isArray(parts) ? parts : []) {
    if (!isObj(p)) continue;
    if (typeof p.text === "string" && (p.type === "input_text" || p.type === "output_text"))
      out.push({ type: "text", text: p.text });
    else if (p.type === "refusal" && typeof p.refusal === "string") out.push({ type: "text", text: p.refusal });
    else if (p.type === "input_image" && typeof p.image_url === "string") out.push(media(p.image_url, "image"));
    else if (p.type === "input_file" && typeof (p.file_data ?? p.file_url) === "string")
      out.push(media(String(p.file_data ?? p.file_url), "file", p.filename));
  }
  return out;
}

function withExt<T extends { ext?: unknown }>(m: T, items: Obj[]): T {
  (m as { ext?: Obj }).ext = { [RX]: { _layout: { items } } };
  return m;
}

function assistantFrom(group: Obj[]): AssistantMessage {
  const content: Content[] = [];
  for (const it of group) {
    if (it.type === "reasoning") {
      for (const key of ["summary", "content"])
        for (const c of Array.isArray(it[key]) ? (it[key] as unknown[]) : [])
          if (isObj(c) && typeof c.text === "string") content.push({ type: "thinking", thinking: c.text });
    } else if (it.type === "function_call")
      content.push({
        type: "toolCall",
        id: String(it.call_id),
        name: String(it.name),
        arguments: argsOf(it.arguments),
      });
    else content.push(...partsToContent(it.content));
  }
  const m: AssistantMessage = { role: "assistant", content };
  if (content.some((c) => c.type === "toolCall")) m.stopReason = "toolUse";
  return withExt(m, group);
}

function oneItem(it: Obj, names: Map<string, string>): AgentMessage {
  if (isMessage(it)) {
    if (it.role === "user") return withExt<UserMessage>({ role: "user", content: partsToContent(it.content) }, [it]);
    if (it.role === "system" || it.role === "developer")
      return withExt<AgentMessage>({ role: "system", content: partsToContent(it.content) }, [it]);
  }
  if (it.type === "function_call_output") {
    const id = String(it.call_id);
    const r: ToolResultMessage = {
      role: "toolResult",
      toolCallId: id,
      toolName: names.get(id) ?? "",
      content: partsToContent(it.output),
      isError: false,
    };
    return withExt(r, [it]);
  }
  return { role: RROLE, kind: typeof it.type === "string" ? it.type : "item", data: it };
}

/** Items → canonical messages; `starts[i]` is the index of the first item of message i. */
export function responsesToMessages(items: readonly Obj[]): { messages: AgentMessage[]; starts: number[] } {
  const names = new Map<string, string>();
  for (const it of items)
    if (it.type === "function_call" && typeof it.call_id === "string") names.set(it.call_id, String(it.name));
  const messages: AgentMessage[] = [];
  const starts: number[] = [];
  for (let i = 0; i < items.length; ) {
    starts.push(i);
    if (!isAssistantSide(items[i]!)) {
      messages.push(oneItem(items[i]!, names));
      i++;
      continue;
    }
    let j = i + 1;
    while (j < items.length && isAssistantSide(items[j]!)) j++;
    messages.push(assistantFrom(items.slice(i, j)));
    i = j;
  }
  return { messages, starts };
}

// ---- canonical → items ------------------------------------------------------------------------------------

const said = (m: AgentMessage) => stringifyJson({ ...m, ext: undefined });
const layoutOf = (m: AgentMessage, key: string): Obj[] | undefined => {
  const e = isObj(m.ext) ? m.ext[key] : undefined;
  const l = isObj(e) ? e._layout : undefined;
  return isObj(l) && Array.isArray(l.items) ? (l.items as Obj[]) : undefined;
};

/** This format's own items of a message, when they still say what the message says. */
function keptItems(m: AgentMessage, names: Map<string, string>): Obj[] | undefined {
  const items = layoutOf(m, RX);
  if (!items) return undefined;
  const back = responsesToMessages(items).messages;
  if (back.length !== 1) return undefined;
  const again = back[0]!;
  if (again.role === "toolResult" && m.role === "toolResult") {
    // the name came from the call, which is another message's
    (again as ToolResultMessage).toolName = names.get((m as ToolResultMessage).toolCallId) ?? "";
    (again as ToolResultMessage).isError = (m as ToolResultMessage).isError;
  }
  return said(again) === said(m) ? items : undefined;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** The JS SDK's `providerData` as the request fields it becomes (snake_case keys, reserved keys left out). */
function provider(pd: unknown, reserved: string[]): Obj {
  const out: Obj = {};
  if (isObj(pd)) for (const [k, v] of Object.entries(pd)) if (!reserved.includes(snake(k))) out[snake(k)] = v;
  return out;
}
const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
/** The id the JS SDK gives items its model did not name (left out of requests). */
const FAKE_ID = "__fake_id__";

function jsUserPart(p: Obj): Obj {
  if (p.type === "input_text")
    return { type: "input_text", text: p.text, ...provider(p.providerData, ["type", "text"]) };
  if (p.type === "input_image") {
    const img: Obj = { type: "input_image", detail: p.detail ?? "auto" };
    if (typeof p.image === "string") img.image_url = p.image;
    else if (isObj(p.image) && "id" in p.image) img.file_id = p.image.id;
    return img;
  }
  if (p.type === "input_file") {
    const f: Obj = { type: "input_file" };
    if (typeof p.file === "string") f[p.file.trim().startsWith("https://") ? "file_url" : "file_data"] = p.file.trim();
    else if (isObj(p.file) && "id" in p.file) f.file_id = p.file.id;
    else if (isObj(p.file) && "url" in p.file) f.file_url = p.file.url;
    if (p.filename) f.filename = p.filename;
    return f;
  }
  return p;
}

/** A JS SDK item (AgentInputItem) as the JS SDK's `getInputItems` sends it; undefined when it is not one of these. */
export function fromAgentsItem(it: Obj): Obj | undefined {
  const reserved = ["id", "type", "role", "content", "status", "phase", "name", "call_id", "arguments", "output"];
  if (it.type === undefined || it.type === "message") {
    if (it.role === "system" || it.role === "user")
      return defined({
        id: it.id,
        role: it.role,
        content: typeof it.content === "string" ? it.content : (it.content as Obj[]).map(jsUserPart),
        ...provider(it.providerData, reserved),
      });
    if (it.role === "assistant") {
      const content = (it.content as Obj[]).map((c) =>
        c.type === "output_text"
          ? { type: "output_text", text: c.text, annotations: (c.providerData as Obj)?.annotations ?? [] }
          : { type: "refusal", refusal: c.refusal },
      );
      const out = defined({ type: "message", id: it.id, role: "assistant", content, status: it.status });
      if (out.id === FAKE_ID) delete out.id;
      return { ...out, ...provider(it.providerData, reserved) };
    }
    return undefined;
  }
  if (it.type === "function_call") {
    const out = defined({
      id: it.id,
      type: "function_call",
      name: it.name,
      call_id: it.callId,
      arguments: it.arguments,
      status: it.status,
    });
    if (out.id === FAKE_ID) delete out.id;
    return { ...out, ...provider(it.providerData, reserved) };
  }
  if (it.type === "function_call_result") {
    const o = it.output;
    const output =
      typeof o === "string"
        ? o
        : isObj(o) && o.type === "text"
          ? o.text
          : Array.isArray(o)
            ? o.map((p) => jsUserPart(p as Obj))
            : undefined;
    if (output === undefined) return undefined;
    return defined({ type: "function_call_output", id: it.id, call_id: it.callId, output, status: it.status });
  }
  if (it.type === "reasoning")
    return defined({
      id: it.id,
      type: "reasoning",
      summary: ((it.content as Obj[]) ?? []).map((c) => ({ type: "summary_text", text: c.text })),
    });
  return undefined;
}

/** The JS SDK items a message was read from (openai-agents formats), as requests carry them, when they still say it. */
function agentsItems(m: AgentMessage): Obj[] | undefined {
  const items = layoutOf(m, AGENTS_EXT);
  if (!items) return undefined;
  const out = items.map(fromAgentsItem);
  if (out.some((o) => o === undefined)) return undefined;
  const names = new Map<string, string>();
  if (m.role === "toolResult") names.set((m as ToolResultMessage).toolCallId, (m as ToolResultMessage).toolName);
  const back = responsesToMessages(out as Obj[]).messages;
  if (back.length !== 1) return undefined;
  const again = back[0]!;
  if (again.role === "toolResult" && m.role === "toolResult") {
    (again as ToolResultMessage).toolName = (m as ToolResultMessage).toolName;
    (again as ToolResultMessage).isError = (m as ToolResultMessage).isError;
  }
  return said(again) === said(m) ? (out as Obj[]) : undefined;
}

const dataUrl = (c: { url?: string; data?: string; mimeType: string }) =>
  c.url ?? `data:${c.mimeType};base64,${c.data}`;

function userItem(m: UserMessage | AgentMessage, i: number, lossy: LossSink): Obj {
  const blocks = (m as UserMessage).content;
  if (m.role === "system")
    return {
      role: "system",
      content: blocks
        .filter((c) => c.type === "text")
        .map((c) => (c as { text: string }).text)
        .join("\n"),
    };
  if (blocks.length === 1 && blocks[0]!.type === "text")
    return { role: "user", content: (blocks[0] as { text: string }).text };
  const content: Obj[] = [];
  blocks.forEach((c, k) => {
    if (c.type === "text") content.push({ type: "input_text", text: c.text });
    else if (c.type === "image") content.push({ type: "input_image", detail: "auto", image_url: dataUrl(c) });
    else if (c.type === "file")
      content.push({
        type: "input_file",
        [c.url?.startsWith("https://") ? "file_url" : "file_data"]: dataUrl(c),
        ...(c.filename !== undefined ? { filename: c.filename } : {}),
      });
    else noteAt(lossy, i, `/content/${k}`, c.type, `a Responses API user message has no ${c.type} parts`);
  });
  return { role: "user", content };
}

function assistantItems(m: AssistantMessage, i: number, lossy: LossSink): Obj[] {
  const out: Obj[] = [];
  let text: Obj[] | undefined;
  m.content.forEach((c, k) => {
    if (c.type === "text") {
      if (!text) {
        text = [];
        out.push({ type: "message", role: "assistant", content: text, status: "completed" });
      }
      text.push({ type: "output_text", text: c.text, annotations: [] });
      return;
    }
    text = undefined;
    if (c.type === "thinking") out.push({ type: "reasoning", summary: [{ type: "summary_text", text: c.thinking }] });
    else if (c.type === "toolCall")
      out.push({
        type: "function_call",
        name: c.name,
        call_id: c.id,
        arguments: typeof c.arguments === "string" ? c.arguments : stringifyJson(c.arguments ?? {}),
        status: "completed",
      });
    else noteAt(lossy, i, `/content/${k}`, c.type, `a Responses API assistant message has no ${c.type} parts`);
  });
  for (const f of ["usage", "model", "provider", "errorMessage", "timestamp"] as const)
    if (m[f] !== undefined) noteAt(lossy, i, `/${f}`, f, `Responses API items carry no per-message ${f}`);
  return out;
}

function resultItem(m: ToolResultMessage, i: number, lossy: LossSink): Obj {
  const plain = m.content.every((c) => c.type === "text");
  const output: unknown = plain
    ? m.content.map((c) => (c as { text: string }).text).join("\n")
    : m.content.flatMap((c): Obj[] =>
        c.type === "text"
          ? [{ type: "input_text", text: c.text }]
          : c.type === "image"
            ? [{ type: "input_image", detail: "auto", image_url: dataUrl(c) }]
            : [],
      );
  if (m.isError)
    noteAt(lossy, i, "/isError", "isError", "Responses API tool outputs have no error flag: the output text says it");
  return { type: "function_call_output", call_id: m.toolCallId, output, status: "completed" };
}

/** One message of another kind: an extension message's item, if it holds one. */
function extensionItem(m: ExtensionMessage, i: number, lossy: LossSink): Obj | undefined {
  if (m.role === RROLE && isObj(m.data)) return m.data;
  if (m.role === AGENTS_EXT && m.kind === HANDOFF) return undefined; // told by its call and output items
  if (m.role === AGENTS_EXT && isObj(m.data)) {
    const it = fromAgentsItem(m.data);
    if (it) return it;
  }
  noteAt(lossy, i, "", "message", `the Responses API has no '${m.role}' ${m.kind} items`);
  return undefined;
}

/** Canonical messages → Responses input items (see the module comment). */
export function messagesToResponses(messages: readonly AgentMessage[], lossy: LossSink): Obj[] {
  const names = new Map<string, string>();
  for (const m of messages)
    if (m.role === "assistant")
      for (const c of (m as AssistantMessage).content) if (c.type === "toolCall") names.set(c.id, c.name);
  const out: Obj[] = [];
  messages.forEach((m, i) => {
    const kept = keptItems(m, names) ?? agentsItems(m);
    if (kept) {
      out.push(...kept);
      return;
    }
    if (m.role === "user" || m.role === "system") out.push(userItem(m, i, lossy));
    else if (m.role === "assistant") out.push(...assistantItems(m as AssistantMessage, i, lossy));
    else if (m.role === "toolResult") out.push(resultItem(m as ToolResultMessage, i, lossy));
    else {
      const it = extensionItem(m as ExtensionMessage, i, lossy);
      if (it) out.push(it);
    }
    if ("timestamp" in m && m.timestamp !== undefined && m.role !== "assistant")
      noteAt(lossy, i, "/timestamp", "timestamp", "Responses API items carry no timestamps");
  });
  return out;
}
