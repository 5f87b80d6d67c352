/**
 * A canonical conversation as the chat formats see it (openai-chat, hf-messages, sharegpt): system, user, assistant
 * and tool turns of plain text, the assistant's tool calls, each tool result after its call. Every call is paired with
 * its result: a call without one (the run stopped before it ran, an approval pending) and a result without its call
 * are left out and counted, so that a tool-calling conversation is always one the chat APIs accept. What a chat turn
 * cannot hold — images, files, reasoning, app messages, the state, a pending interrupt — is counted per kind.
 */
import type { AgentMessage, Checkpoint, Content, ToolCallContent } from "../../generated/types.js";
import { stringifyJson } from "../../base/json.js";
import type { ExportLoss, ExportThread } from "./types.js";

export interface ToolCall {
  id: string;
  name: string;
  /** the call's arguments as the store holds them (any JSON, normally an object) */
  args: unknown;
}

export type Turn =
  | { role: "system" | "user"; text: string; index: number }
  | { role: "assistant"; text: string | null; calls: ToolCall[]; index: number }
  | { role: "tool"; callId: string; name: string; text: string; isError: boolean; index: number };

/** The label a thread's losses are counted under: its id, and its checkpoint when several of the thread are exported. */
export const threadLabel = (t: ExportThread): string =>
  t.ofHistory && t.checkpointId ? `${t.threadId}@${t.checkpointId}` : t.threadId;

/** The text blocks of a message, joined by newlines. */
export function textOf(content: readonly Content[] | undefined): string {
  let s = "";
  let first = true;
  for (const c of content ?? [])
    if (c.type === "text") {
      s += (first ? "" : "\n") + c.text;
      first = false;
    }
  return s;
}

const LLM_ROLES = new Set(["system", "user", "assistant", "toolResult"]);

/** Note what a plain-text turn leaves out of a message's blocks: images, files, reasoning. */
function noteBlocks(content: readonly Content[], loss: ExportLoss, label: string, index: number): void {
  for (const c of content) {
    if (c.type === "image") loss.add("image", "images", label, index);
    else if (c.type === "file") loss.add("file", "files", label, index);
    else if (c.type === "thinking") loss.add("reasoning", "reasoning blocks", label, index);
  }
}

/** The checkpoint's state keys that hold something (todos, files, channels, working memory). */
export function stateKeys(cp: Checkpoint): string[] {
  return Object.entries(cp.state ?? {})
    .filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
    .filter(([, v]) => !(typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0))
    .map(([k]) => k);
}

/** A checkpoint's messages as chat turns, every tool call paired with its result; what they cannot hold noted in `loss`. */
export function chatTurns(t: ExportThread, loss: ExportLoss): Turn[] {
  const label = threadLabel(t);
  const cp = t.checkpoint;
  const messages: readonly AgentMessage[] = cp.messages ?? [];
  // which calls have a result, and which results have a call before them
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant")
      for (const c of (m as { content: Content[] }).content) if (c.type === "toolCall") called.add(c.id);
    if (m.role === "toolResult") {
      const id = (m as { toolCallId: string }).toolCallId;
      if (called.has(id)) answered.add(id);
    }
  }
  const turns: Turn[] = [];
  messages.forEach((m, index) => {
    if (!LLM_ROLES.has(m.role)) {
      loss.add("app-message", "app messages (never sent to the model)", label, index);
      return;
    }
    const content = ((m as { content?: Content[] }).content ?? []) as Content[];
    noteBlocks(content, loss, label, index);
    if (m.role === "system" || m.role === "user") {
      turns.push({ role: m.role, text: textOf(content), index });
    } else if (m.role === "assistant") {
      const calls: ToolCall[] = [];
      for (const c of content)
        if (c.type === "toolCall") {
          if (answered.has(c.id)) calls.push(callOf(c));
          else loss.add("unanswered-call", "tool calls without a result", label, index);
        }
      const text = textOf(content);
      if (!text && calls.length === 0) {
        // nothing a chat turn holds is left (reasoning alone, an unanswered call, a failed turn): no empty turn
        if (!content.some((c) => c.type !== "text")) loss.add("empty-turn", "empty assistant turns", label, index);
        return;
      }
      turns.push({ role: "assistant", text: text || null, calls, index });
    } else {
      const r = m as { toolCallId: string; toolName: string; isError: boolean };
      if (!answered.has(r.toolCallId)) {
        loss.add("orphan-result", "tool results without their call", label, index);
        return;
      }
      if (r.isError) loss.add("tool-error", "tool error flags (the error text is kept)", label, index);
      turns.push({
        role: "tool",
        callId: r.toolCallId,
        name: r.toolName,
        text: textOf(content),
        isError: r.isError,
        index,
      });
    }
  });
  noteCheckpoint(t, loss);
  return answersAfterCalls(turns, loss, label);
}

/**
 * The turns with each tool result right after the assistant turn that called it (the chat APIs' order: a call's
 * answer comes before any other message). A result the store keeps later — a user message in between — is moved up
 * and counted.
 */
function answersAfterCalls(turns: Turn[], loss: ExportLoss, label: string): Turn[] {
  const out: Turn[] = [];
  const placed = new Set<Turn>();
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i]!;
    if (placed.has(t)) continue;
    out.push(t);
    if (t.role !== "assistant" || !t.calls.length) continue;
    const ids = new Set(t.calls.map((c) => c.id));
    let adjacent = true;
    for (let j = i + 1; j < turns.length && ids.size; j++) {
      const r = turns[j]!;
      if (r.role === "tool" && ids.has(r.callId) && !placed.has(r)) {
        if (!adjacent) loss.add("moved-result", "tool results moved up to right after their call", label, r.index);
        out.push(r);
        placed.add(r);
        ids.delete(r.callId);
      } else if (r.role !== "tool" || !placed.has(r)) adjacent = false;
    }
  }
  return out;
}

/** What a conversation format leaves out of the checkpoint itself: its state and a pending interrupt. */
export function noteCheckpoint(t: ExportThread, loss: ExportLoss): void {
  const label = threadLabel(t);
  const keys = stateKeys(t.checkpoint);
  if (keys.length) loss.add("state", "states (todos, files, channels)", label);
  if (t.checkpoint.interrupt) loss.add("interrupt", "pending interrupts or approvals", label);
}

const callOf = (c: ToolCallContent): ToolCall => ({ id: c.id, name: c.name, args: c.arguments });

/**
 * Tool arguments as a JSON text (what OpenAI's `function.arguments` holds): a string that already is JSON text stays
 * as it is (a store that kept the model's raw arguments), any other value is written as JSON.
 */
export function argumentsText(args: unknown): string {
  if (typeof args === "string") {
    try {
      JSON.parse(args);
      return args;
    } catch {
      return JSON.stringify(args);
    }
  }
  return stringifyJson(args === undefined ? {} : args) ?? "{}";
}

/** The names of the tools a conversation called, in first-call order. */
export function toolNames(turns: readonly Turn[]): string[] {
  const names = new Set<string>();
  for (const t of turns) if (t.role === "assistant") for (const c of t.calls) names.add(c.name);
  return [...names];
}
