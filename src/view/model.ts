/**
 * The page's data: canonical checkpoints reduced to what the page shows. Message text is rendered from Markdown
 * here (markdown.ts, the one place that produces markup); every other string stays text and the page's script
 * puts it into the document as text. Messages sit in one pool that checkpoints refer to by index, so a history of
 * checkpoints repeating the same messages carries each message once.
 */
import type { AgentMessage, Checkpoint, Content } from "../generated/types.js";
import { stableJson } from "../core/diff/index.js";
import { isPlainText, renderMarkdown } from "./markdown.js";
import { langGraphView, type LangGraphView, type ValuePool } from "./langgraph.js";
import { unreadableLine, unreadableParts } from "../formats/index.js";

/** A content block as the page shows it. */
export type BlockView =
  /** Markdown rendered to (safe) HTML */
  | { t: "md"; h: string }
  /** text without Markdown syntax: shown as paragraphs of text */
  | { t: "txt"; x: string }
  /** preformatted text (tool output) */
  | { t: "pre"; x: string }
  /** reasoning, collapsed: HTML or plain text */
  | { t: "think"; h?: string; x?: string; redacted?: boolean }
  | { t: "call"; id: string; name: string; args: unknown; state?: string }
  /** an inline image: a data: URL */
  | { t: "img"; src: string; mime: string }
  /** an image or file kept elsewhere (never loaded by the page); url only when http(s) */
  | { t: "ref"; kind: "image" | "file"; mime: string; name?: string; url?: string; bytes?: number };

export interface MessageView {
  role: string;
  blocks: BlockView[];
  /** extension messages */
  kind?: string;
  data?: unknown;
  ts?: number;
  model?: string;
  provider?: string;
  /** [input, output, cacheRead, cacheWrite, totalTokens, reasoning] */
  usage?: number[];
  stop?: string;
  error?: string;
  /** tool results */
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

export interface FileView {
  lines: string[];
  created?: string;
  modified?: string;
}

export interface StateView {
  todos: Array<{ id: string; content: string; status: string }>;
  files: Record<string, FileView>;
  scratchpad: Array<{ heading: string; thread?: string | null; tick?: number | null; h: string }>;
  contexts?: unknown;
  /** other state keys, as JSON values */
  other: Record<string, unknown>;
}

export interface CheckpointView {
  threadId: string;
  step: number;
  format?: string;
  version?: string;
  createdAt?: string;
  updatedAt?: string;
  /** indices into PageData.pool */
  messages: number[];
  state: StateView;
  interrupt?: {
    toolCallId: string;
    toolName: string;
    args?: unknown;
    step: number;
    /** the other tool calls awaiting approval at the same time (an Agents SDK run paused on several) */
    more?: Array<{ toolCallId: string; toolName: string; args?: unknown }>;
  };
  /** extra facts for the metadata panel (label → text) */
  meta: Record<string, string>;
  /** a LangGraph checkpoint: its channels, scheduled nodes, pending writes per task, interrupts and resumes */
  lg?: LangGraphView;
  /** the parts of the checkpoint that could not be read, one line each (the page says it is not whole) */
  unreadable?: string[];
}

/** Builds the message pool: identical messages (same canonical JSON) share one entry. */
export class MessagePool {
  readonly pool: MessageView[] = [];
  private byKey = new Map<string, number>();
  private byRef = new WeakMap<object, number>();

  add(m: AgentMessage): number {
    const known = this.byRef.get(m);
    if (known !== undefined) return known;
    const key = stableJson(m);
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.pool.length;
      this.pool.push(messageView(m));
      this.byKey.set(key, i);
    }
    this.byRef.set(m, i);
    return i;
  }

  /** Without deduplication (one checkpoint: nothing to share; saves hashing every message). */
  addAll(ms: readonly AgentMessage[]): number[] {
    const start = this.pool.length;
    for (const m of ms) this.pool.push(messageView(m));
    return ms.map((_, k) => start + k);
  }
}

const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : 0);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function textBlock(text: string): BlockView {
  return isPlainText(text) ? { t: "txt", x: text } : { t: "md", h: renderMarkdown(text) };
}

function mediaBlock(
  c: { data?: string; url?: string; mimeType: string; filename?: string },
  kind: "image" | "file",
): BlockView {
  const mime = String(c.mimeType ?? "");
  if (
    kind === "image" &&
    typeof c.data === "string" &&
    /^image\/(png|jpeg|gif|webp|avif|bmp)$/i.test(mime) &&
    /^[A-Za-z0-9+/=\s]*$/.test(c.data)
  ) {
    return { t: "img", src: `data:${mime};base64,${c.data}`, mime };
  }
  const url = typeof c.url === "string" && /^https?:/i.test(c.url) ? c.url : undefined;
  const bytes = typeof c.data === "string" ? Math.floor((c.data.length * 3) / 4) : undefined;
  return {
    t: "ref",
    kind,
    mime,
    ...(c.filename ? { name: c.filename } : {}),
    ...(url ? { url } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
  };
}

/** An AI SDK tool part's state (input-streaming, approval-requested, output-denied, …), kept in the block's ext. */
export function toolState(c: Content): { state?: string } {
  const e = (c as { ext?: Record<string, unknown> }).ext?.["ai-sdk"] as { state?: unknown } | undefined;
  return typeof e?.state === "string" ? { state: e.state } : {};
}

/**
 * An AI SDK tool part whose approval was denied (`approval: {approved: false, reason?}`, states approval-responded
 * and output-denied): the reason given, "" when none was; undefined for any other block. The reason is what the AI
 * SDK hands the model as the call's result (convertToModelMessages: an error-text tool result).
 */
export function toolDenial(c: Content): string | undefined {
  const e = (c as { ext?: Record<string, unknown> }).ext?.["ai-sdk"] as { rest?: { approval?: unknown } } | undefined;
  const a = e?.rest?.approval as { approved?: unknown; reason?: unknown } | undefined;
  if (typeof a !== "object" || a === null || a.approved !== false) return undefined;
  return typeof a.reason === "string" ? a.reason : "";
}

/** One content block; `plain` for tool output (shown preformatted, not as Markdown). */
export function blockView(c: Content, plain = false): BlockView {
  switch (c.type) {
    case "text":
      return plain ? { t: "pre", x: String(c.text) } : textBlock(String(c.text));
    case "thinking": {
      const x = String(c.thinking ?? "");
      if (!x) return { t: "think", x: "", redacted: true };
      return isPlainText(x) ? { t: "think", x } : { t: "think", h: renderMarkdown(x) };
    }
    case "toolCall":
      return { t: "call", id: String(c.id), name: String(c.name), args: c.arguments, ...toolState(c) };
    case "image":
      return mediaBlock(c, "image");
    case "file":
      return mediaBlock(c, "file");
    default:
      return { t: "pre", x: stableJson(c) };
  }
}

/** One canonical message → its view. */
export function messageView(m: AgentMessage): MessageView {
  const r = m as unknown as Record<string, unknown>;
  const role = String(m.role);
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "toolResult") {
    return { role, blocks: [], kind: String(r.kind ?? ""), data: r.data };
  }
  const content = Array.isArray(r.content) ? (r.content as Content[]) : [];
  const v: MessageView = { role, blocks: content.map((c) => blockView(c, role === "toolResult")) };
  if (typeof r.timestamp === "number") v.ts = r.timestamp;
  if (role === "assistant") {
    if (str(r.model)) v.model = str(r.model);
    if (str(r.provider)) v.provider = str(r.provider);
    if (str(r.stopReason)) v.stop = str(r.stopReason);
    if (str(r.errorMessage)) v.error = str(r.errorMessage);
    const u = r.usage as Record<string, unknown> | undefined;
    if (u && typeof u === "object")
      v.usage = [
        num(u.input),
        num(u.output),
        num(u.cacheRead),
        num(u.cacheWrite),
        num(u.totalTokens),
        num(u.reasoning),
      ];
  }
  if (role === "toolResult") {
    v.toolCallId = String(r.toolCallId ?? "");
    v.toolName = String(r.toolName ?? "");
    v.isError = r.isError === true;
  }
  return v;
}

const KNOWN_STATE = new Set(["todos", "files", "scratchpad", "contexts"]);

export function stateView(state: Checkpoint["state"] | undefined): StateView {
  const s = (state ?? {}) as Record<string, unknown>;
  const todos = Array.isArray(s.todos) ? (s.todos as Array<Record<string, unknown>>) : [];
  const files: Record<string, FileView> = {};
  if (s.files && typeof s.files === "object") {
    for (const [path, f] of Object.entries(s.files as Record<string, Record<string, unknown>>)) {
      const lines = Array.isArray(f?.content)
        ? (f.content as unknown[]).map(String)
        : typeof f?.content === "string"
          ? f.content.split("\n")
          : [];
      files[path] = {
        lines,
        ...(str(f?.created_at) ? { created: str(f.created_at) } : {}),
        ...(str(f?.modified_at) ? { modified: str(f.modified_at) } : {}),
      };
    }
  }
  const notes = Array.isArray(s.scratchpad) ? (s.scratchpad as Array<Record<string, unknown>>) : [];
  const other: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (!KNOWN_STATE.has(k)) other[k] = v;
  return {
    todos: todos.map((t) => ({
      id: String(t.id ?? ""),
      content: String(t.content ?? ""),
      status: String(t.status ?? ""),
    })),
    files,
    scratchpad: notes.map((n) => ({
      heading: String(n.heading ?? ""),
      thread: n.thread as string | null | undefined,
      tick: n.tick as number | null | undefined,
      h: renderMarkdown(String(n.content ?? "")),
    })),
    ...(s.contexts !== undefined ? { contexts: s.contexts } : {}),
    other,
  };
}

function lastAssistantField(ms: readonly AgentMessage[], field: "model" | "provider"): string | undefined {
  for (let i = ms.length - 1; i >= 0; i--) {
    const v = (ms[i] as unknown as Record<string, unknown>)[field];
    if (ms[i]!.role === "assistant" && typeof v === "string") return v;
  }
  return undefined;
}

/** A canonical checkpoint → its view; messages go into `pool` (deduplicated when `dedupe`). */
export function checkpointView(
  cp: Checkpoint,
  pool: MessagePool,
  opts: { dedupe?: boolean; meta?: Record<string, string>; values?: ValuePool } = {},
): CheckpointView {
  const ms = Array.isArray(cp.messages) ? cp.messages : [];
  const meta: Record<string, string> = {};
  const model = lastAssistantField(ms, "model");
  const provider = lastAssistantField(ms, "provider");
  if (model) meta.model = model;
  if (provider) meta.provider = provider;
  Object.assign(meta, opts.meta ?? {});
  const it = cp.interrupt;
  const lg = opts.values ? langGraphView(cp, opts.values) : undefined;
  const state = stateView(cp.state);
  const unreadable = unreadableParts(cp);
  if (lg) state.other = {}; // every channel is on the Channels panel, with its version and value
  return {
    threadId: String(cp.threadId),
    step: num(cp.step),
    ...(cp.origin?.format ? { format: cp.origin.format } : {}),
    ...(cp.origin?.version ? { version: cp.origin.version } : {}),
    ...(cp.createdAt ? { createdAt: String(cp.createdAt) } : {}),
    ...(cp.updatedAt ? { updatedAt: String(cp.updatedAt) } : {}),
    messages: opts.dedupe ? ms.map((m) => pool.add(m)) : pool.addAll(ms),
    state,
    ...(it?.toolCall
      ? {
          interrupt: {
            toolCallId: String(it.toolCall.toolCallId),
            toolName: String(it.toolCall.toolName),
            args: it.toolCall.args,
            step: num(it.step),
            ...(Array.isArray(it.approvals) && it.approvals.length > 1
              ? {
                  more: (it.approvals.slice(1) as Array<Record<string, unknown>>).map((a) => ({
                    toolCallId: String(a.toolCallId),
                    toolName: String(a.toolName),
                    args: a.args,
                  })),
                }
              : {}),
          },
        }
      : {}),
    meta,
    ...(lg ? { lg } : {}),
    ...(unreadable.length ? { unreadable: unreadable.map(unreadableLine) } : {}),
  };
}
