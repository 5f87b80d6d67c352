/**
 * OpenAI Agents SDK protocol items (`AgentInputItem`: what a Session stores, what a run takes as input, the `rawItem`
 * of every run item in a RunState) ⇄ canonical AgentMessages. Pure.
 *
 * Mapping (native → canonical):
 * - `message` role user → user (string content → one text block; `input_text` → text, `input_image` with a URL or
 *   data URL → image, `input_file` with a URL → file); role system or developer → system;
 * - consecutive assistant-side items of one agent — `message` role assistant (`output_text` → text, `refusal` → text),
 *   `reasoning` (`content` texts → thinking), `function_call` (→ toolCall, `arguments` parsed when they are JSON) —
 *   → one assistant message (`stopReason: "toolUse"` when it calls a tool);
 * - `function_call_result` → toolResult (`output` text → text blocks, images → image blocks); a call the run's
 *   approvals rejected is `isError`;
 * - every other item (hosted, computer, shell and apply_patch calls and their results, tool_search, program,
 *   compaction, unknown) → an extension message `{role: "openai-agents", kind: <item type>, data: <the item>}`.
 * The items each canonical message was read from ride in `ext["openai-agents"]._layout.items` (left out of diffs):
 * canonical → items gives them back unchanged while the message still says the same, else writes new items.
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

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** The key of this format family in `ext` and the role of its extension messages. */
export const EXT = "openai-agents";
/** The kind of the extension message that says a run handed over to another agent (RunState only). */
export const HANDOFF = "agent-handoff";

/** One item to convert, with the agent that produced it (run items) — items of a session have none. */
export interface SourceItem {
  item: Obj;
  agent?: string;
  /** a rejected tool call's result (RunState approvals) */
  rejected?: boolean;
}

const ASSISTANT_SIDE = new Set(["function_call", "reasoning"]);
const isAssistantSide = (it: Obj) =>
  (it.role === "assistant" && (it.type === undefined || it.type === "message")) ||
  ASSISTANT_SIDE.has(it.type as string);

function extOf(m: { ext?: unknown }): Obj {
  return isObj(m.ext) && isObj((m.ext as Obj)[EXT]) ? ((m.ext as Obj)[EXT] as Obj) : {};
}
function layoutItems(m: { ext?: unknown }): Obj[] | undefined {
  const l = extOf(m)._layout;
  return isObj(l) && Array.isArray(l.items) ? (l.items as Obj[]) : undefined;
}
function withExt<T extends { ext?: unknown }>(m: T, items: Obj[], agent?: string): T {
  const mine: Obj = {};
  if (agent !== undefined) mine.agent = agent;
  mine._layout = { items };
  (m as { ext?: Obj }).ext = { [EXT]: mine };
  return m;
}

/** A tool call's arguments: the parsed JSON, or the string itself when it is not JSON. */
function argsOf(s: unknown): unknown {
  if (typeof s !== "string") return s;
  try {
    return parseJson(s);
  } catch {
    return s;
  }
}

function mediaBlock(url: string, kind: "image" | "file", filename?: string): Content {
  const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  const block: Obj = m?.[2]
    ? { type: kind, data: m[3], mimeType: m[1] ?? "" }
    : { type: kind, url, mimeType: m?.[1] ?? "" };
  if (kind === "file" && filename !== undefined) block.filename = filename;
  return block as unknown as Content;
}

/** Content parts (user input, assistant output, tool output) → canonical blocks; parts with no canonical form are skipped. */
function partsToContent(parts: unknown): Content[] {
  if (typeof parts === "string") return [{ type: "text", text: parts }];
  const list = Array.isArray(parts) ? parts : isObj(parts) ? [parts] : [];
  const out: Content[] = [];
  for (const p of list) {
    if (!isObj(p)) continue;
    if (typeof p.text === "string" && /^(input_text|output_text|text)$/.test(String(p.type)))
      out.push({ type: "text", text: p.text });
    else if (p.type === "refusal" && typeof p.refusal === "string") out.push({ type: "text", text: p.refusal });
    else if ((p.type === "input_image" || p.type === "image") && typeof p.image === "string")
      out.push(mediaBlock(p.image, "image"));
    else if (p.type === "input_file" && typeof p.file === "string")
      out.push(mediaBlock(p.file, "file", typeof p.filename === "string" ? p.filename : undefined));
  }
  return out;
}

function assistantFrom(group: SourceItem[]): AssistantMessage {
  const content: Content[] = [];
  for (const { item } of group) {
    if (item.type === "reasoning") {
      for (const c of Array.isArray(item.content) ? (item.content as Obj[]) : [])
        if (isObj(c) && typeof c.text === "string") content.push({ type: "thinking", thinking: c.text });
    } else if (item.type === "function_call") {
      content.push({
        type: "toolCall",
        id: String(item.callId),
        name: String(item.name),
        arguments: argsOf(item.arguments),
      });
    } else content.push(...partsToContent(item.content));
  }
  const m: AssistantMessage = { role: "assistant", content };
  if (content.some((c) => c.type === "toolCall")) m.stopReason = "toolUse";
  return withExt(
    m,
    group.map((g) => g.item),
    group[0]!.agent,
  );
}

function oneItem(s: SourceItem): AgentMessage {
  const it = s.item;
  if (it.type === undefined || it.type === "message") {
    if (it.role === "user") return withExt<UserMessage>({ role: "user", content: partsToContent(it.content) }, [it]);
    if (it.role === "system" || it.role === "developer")
      return withExt<AgentMessage>({ role: "system", content: partsToContent(it.content) }, [it]);
  }
  if (it.type === "function_call_result") {
    const r: ToolResultMessage = {
      role: "toolResult",
      toolCallId: String(it.callId),
      toolName: String(it.name),
      content: partsToContent(it.output),
      isError: s.rejected === true,
    };
    return withExt(r, [it], s.agent);
  }
  const x: ExtensionMessage = { role: EXT, kind: typeof it.type === "string" ? it.type : "item", data: it };
  if (s.agent !== undefined) x.ext = { [EXT]: { agent: s.agent } };
  return x;
}

/** Items → canonical messages (see the module comment); `starts[i]` is the index of the first item of message i. */
export function itemsToMessages(items: readonly SourceItem[]): { messages: AgentMessage[]; starts: number[] } {
  const messages: AgentMessage[] = [];
  const starts: number[] = [];
  for (let i = 0; i < items.length; ) {
    starts.push(i);
    const s = items[i]!;
    if (!isAssistantSide(s.item)) {
      messages.push(oneItem(s));
      i++;
      continue;
    }
    let j = i + 1;
    while (j < items.length && isAssistantSide(items[j]!.item) && items[j]!.agent === s.agent) j++;
    messages.push(assistantFrom(items.slice(i, j)));
    i = j;
  }
  return { messages, starts };
}

// ---- canonical → items ------------------------------------------------------------------------------------

/** The message without its ext, as JSON: two messages that say the same give the same text. */
const said = (m: AgentMessage) => stringifyJson({ ...m, ext: undefined });

/** The canonical message's own items when they still say what it says. */
function keptItems(m: AgentMessage): Obj[] | undefined {
  const items = layoutItems(m);
  if (!items) return undefined;
  const agent = extOf(m).agent as string | undefined;
  const back = itemsToMessages(items.map((item) => ({ item, agent })));
  if (back.messages.length !== 1) return undefined;
  const again = back.messages[0]!;
  if (again.role === "toolResult" && m.role === "toolResult")
    (again as ToolResultMessage).isError = (m as ToolResultMessage).isError;
  return said(again) === said(m) ? items : undefined;
}

function imagePart(c: Extract<Content, { type: "image" }>): Obj {
  return { type: "input_image", image: c.url ?? `data:${c.mimeType};base64,${c.data}` };
}

function userItem(m: UserMessage | AgentMessage, i: number, lossy: LossSink): Obj {
  const blocks = (m as UserMessage).content;
  if (m.role === "system")
    return {
      type: "message",
      role: "system",
      content: blocks
        .filter((c) => c.type === "text")
        .map((c) => (c as { text: string }).text)
        .join("\n"),
    };
  if (blocks.length === 1 && blocks[0]!.type === "text")
    return { type: "message", role: "user", content: (blocks[0] as { text: string }).text };
  const content: Obj[] = [];
  blocks.forEach((c, k) => {
    if (c.type === "text") content.push({ type: "input_text", text: c.text });
    else if (c.type === "image") content.push(imagePart(c));
    else if (c.type === "file")
      content.push({
        type: "input_file",
        file: c.url ?? `data:${c.mimeType};base64,${c.data}`,
        ...(c.filename !== undefined ? { filename: c.filename } : {}),
      });
    else noteAt(lossy, i, `/content/${k}`, c.type, `an Agents SDK user message has no ${c.type} parts`);
  });
  return { type: "message", role: "user", content };
}

function assistantItems(m: AssistantMessage, i: number, lossy: LossSink): Obj[] {
  const out: Obj[] = [];
  let text: Obj[] | undefined;
  m.content.forEach((c, k) => {
    if (c.type === "text") {
      if (!text) {
        text = [];
        out.push({ type: "message", role: "assistant", status: "completed", content: text });
      }
      text.push({ type: "output_text", text: c.text });
      return;
    }
    text = undefined;
    if (c.type === "thinking") out.push({ type: "reasoning", content: [{ type: "input_text", text: c.thinking }] });
    else if (c.type === "toolCall")
      out.push({
        type: "function_call",
        callId: c.id,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : stringifyJson(c.arguments ?? {}),
        status: "completed",
      });
    else noteAt(lossy, i, `/content/${k}`, c.type, `an Agents SDK assistant message has no ${c.type} parts`);
  });
  for (const f of ["usage", "model", "provider", "errorMessage", "timestamp"] as const)
    if (m[f] !== undefined) noteAt(lossy, i, `/${f}`, f, `Agents SDK items carry no per-message ${f}`);
  return out;
}

function resultItem(m: ToolResultMessage, i: number, lossy: LossSink): Obj {
  const images = m.content.filter((c) => c.type === "image");
  const texts = m.content.filter((c) => c.type === "text") as Array<{ text: string }>;
  const output: unknown =
    images.length === 0
      ? { type: "text", text: texts.map((t) => t.text).join("\n") }
      : m.content.flatMap((c): Obj[] =>
          c.type === "text"
            ? [{ type: "input_text", text: c.text }]
            : c.type === "image"
              ? [{ type: "input_image", image: c.url ?? `data:${c.mimeType};base64,${c.data}` }]
              : [],
        );
  if (m.isError)
    noteAt(lossy, i, "/isError", "isError", "Agents SDK tool results have no error flag: the output text says it");
  return { type: "function_call_result", name: m.toolName, callId: m.toolCallId, status: "completed", output };
}

/** Canonical messages → items (kept as read while a message says the same; see the module comment). */
export function messagesToItems(messages: readonly AgentMessage[], lossy: LossSink): Obj[] {
  const out: Obj[] = [];
  messages.forEach((m, i) => {
    const kept = keptItems(m);
    if (kept) {
      out.push(...kept);
      return;
    }
    if (m.role === EXT) {
      // a handoff is told by its call and result items: the note between them is ckpt's, not an item
      if ((m as ExtensionMessage).kind !== HANDOFF) out.push((m as ExtensionMessage).data as Obj);
      return;
    }
    if (m.role === "user" || m.role === "system") out.push(userItem(m, i, lossy));
    else if (m.role === "assistant") out.push(...assistantItems(m as AssistantMessage, i, lossy));
    else if (m.role === "toolResult") out.push(resultItem(m as ToolResultMessage, i, lossy));
    else
      noteAt(
        lossy,
        i,
        "",
        "message",
        `the Agents SDK has no '${m.role}' messages (an extension message of another format)`,
      );
    if ("timestamp" in m && m.timestamp !== undefined && m.role !== "assistant")
      noteAt(lossy, i, "/timestamp", "timestamp", "Agents SDK items carry no timestamps");
  });
  return out;
}
