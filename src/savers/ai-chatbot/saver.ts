/**
 * A Chat SDK template store as a read-only Saver: one document per chat, the chat's UI messages as the template's
 * own readers build them from its rows — an `ai-sdk` chat (formats/ai-sdk.ts) that show, view, diff and validate read:
 * - a chat with rows in `Message_v2`: those rows by chatId ordered by createdAt, each `{id, role, parts,
 *   metadata: {createdAt}}` (the template's `convertToUIMessages`; an `attachments` column that is not `[]` rides
 *   along as `attachments`) — AI SDK 5+ UI messages;
 * - else its `Message` rows (AI SDK 4 model messages: the user's, then each response message), read into AI SDK 4
 *   UI messages as the template's own migration to Message_v2 read them (`v1Messages`).
 * `rows` says which row each message of the document came from, and `damage` what a row holds that the document
 * cannot show (a JSON column that is not JSON, a content part the reader drops), each at its message's pointer.
 */
import { storeError } from "../../base/errors.js";
import { DEFAULT_NAMESPACE, type Saver, type ThreadInfo } from "../types.js";
import type { AiChatbotStore, ChatRow, MessageTable, MessageV1Row, MessageV2Row } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where a document's message came from. */
export interface ChatRowRef {
  table: MessageTable;
  id: string;
  /** the other rows the message was read from (a Message turn's later assistant and tool rows) */
  also?: string[];
}

/** Something a row holds that its document cannot show: at the message's pointer, naming the row. */
export interface RowDamage {
  pointer: string;
  table: MessageTable;
  row: string;
  column: string;
  reason: string;
  /** error: the row's value is not readable; warning: the reader drops or cannot place part of it */
  severity: "error" | "warning";
}

export interface ChatDocument {
  chat: ChatRow;
  table: MessageTable;
  /** the UI messages (AI SDK 5+ from Message_v2, AI SDK 4 from Message) */
  messages: Obj[];
  /** the row of each message, by index */
  rows: ChatRowRef[];
  damage: RowDamage[];
}

/** Message_v2 rows as the template reads them today. */
export function v2Messages(rows: MessageV2Row[]): Pick<ChatDocument, "messages" | "rows" | "damage"> {
  const damage: RowDamage[] = [];
  const messages = rows.map((r, i) => {
    for (const u of r.unreadable ?? [])
      damage.push({ pointer: `/${i}/${u.column}`, table: "Message_v2", row: r.id, ...u, severity: "error" });
    const m: Obj = { id: r.id, role: r.role, parts: r.parts, metadata: { createdAt: r.createdAt } };
    if (!(Array.isArray(r.attachments) && r.attachments.length === 0)) m.attachments = r.attachments;
    return m;
  });
  return { messages, rows: rows.map((r) => ({ table: "Message_v2", id: r.id })), damage };
}

/** The parts, text and reasoning of one assistant row's content, as AI SDK 4's appendResponseMessages reads it. */
function assistantParts(content: unknown, drop: (k: number, type: string) => void) {
  const parts: Obj[] = [{ type: "step-start" }];
  let text = "";
  let reasoning: string | undefined;
  const calls: Obj[] = [];
  if (typeof content === "string") {
    text = content;
    parts.push({ type: "text", text: content });
    return { parts, text, reasoning, calls };
  }
  let thinking: { type: "reasoning"; reasoning: string; details: Obj[] } | undefined;
  const think = () => {
    if (!thinking) {
      thinking = { type: "reasoning", reasoning: "", details: [] };
      parts.push(thinking);
    }
    return thinking;
  };
  (Array.isArray(content) ? content : []).forEach((c, k) => {
    if (!isObj(c)) return drop(k, typeof c);
    if (c.type === "text") {
      thinking = undefined;
      text += String(c.text);
      parts.push({ type: "text", text: c.text });
    } else if (c.type === "reasoning") {
      const t = think();
      reasoning = (reasoning ?? "") + String(c.text);
      t.reasoning += String(c.text);
      t.details.push({ type: "text", text: c.text, ...(c.signature !== undefined ? { signature: c.signature } : {}) });
    } else if (c.type === "redacted-reasoning") think().details.push({ type: "redacted", data: c.data });
    else if (c.type === "tool-call") calls.push({ toolCallId: c.toolCallId, toolName: c.toolName, args: c.args });
    else if (c.type === "file") parts.push({ type: "file", mimeType: c.mimeType, data: c.data });
    else drop(k, String(c.type));
  });
  return { parts, text, reasoning, calls };
}

/** The highest step of a message's invocations (-1: none). */
const maxStep = (invs: Obj[]) => invs.reduce((n, i) => Math.max(n, Number(i.step ?? 0)), -1);

/**
 * Message rows as AI SDK 4 UI messages, the way the template's own migration to Message_v2 read them (AI SDK 4's
 * `appendResponseMessages`): a user or system row is a message of its text; an assistant row begins an assistant
 * message, or continues the one before it (a new step: `step-start`, its text, reasoning, files and tool calls);
 * a tool row's results complete that message's invocations (state `result`).
 */
export function v1Messages(rows: MessageV1Row[]): Pick<ChatDocument, "messages" | "rows" | "damage"> {
  const messages: Obj[] = [];
  const refs: ChatRowRef[] = [];
  const damage: RowDamage[] = [];
  for (const r of rows) {
    const last = messages.at(-1);
    const at = `/${last && r.role !== "user" && r.role !== "system" && last.role === "assistant" ? messages.length - 1 : messages.length}`;
    const hurt = (reason: string, severity: RowDamage["severity"], column = "content") =>
      damage.push({ pointer: `${at}/content`, table: "Message", row: r.id, column, reason, severity });
    for (const u of r.unreadable ?? []) hurt(u.reason, "error", u.column);
    const drop = (k: number, type: string) =>
      hurt(`/${k}: a '${type}' part AI SDK 4's UI messages have no place for`, "warning");
    if (r.role === "tool") {
      if (last?.role !== "assistant") {
        hurt("a tool row that follows no assistant message", "error");
        continue;
      }
      const invs = last.toolInvocations as Obj[];
      for (const res of Array.isArray(r.content) ? r.content : []) {
        const call = isObj(res) ? invs.find((i) => i.toolCallId === res.toolCallId) : undefined;
        if (!call || !isObj(res)) {
          hurt(
            `a result for tool call '${String(isObj(res) ? res.toolCallId : res)}', which the message before it did not make`,
            "error",
          );
          continue;
        }
        Object.assign(call, { state: "result", result: res.result });
      }
      refs[refs.length - 1]!.also = [...(refs[refs.length - 1]!.also ?? []), r.id];
      continue;
    }
    if (r.role === "assistant") {
      const { parts, text, reasoning, calls } = assistantParts(r.content, drop);
      const continues = last?.role === "assistant";
      const step = continues ? maxStep(last.toolInvocations as Obj[]) + 1 : 0;
      // one object in toolInvocations and in the parts: a tool row's result completes both
      const invs = calls.map((c) => ({
        state: "call",
        step,
        args: c.args,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
      }));
      const invParts = invs.map((toolInvocation) => ({ type: "tool-invocation", toolInvocation }));
      if (continues) {
        last.content = text;
        if (reasoning === undefined) delete last.reasoning;
        else last.reasoning = reasoning;
        (last.parts as Obj[]).push(...parts, ...invParts);
        (last.toolInvocations as Obj[]).push(...invs);
        refs[refs.length - 1]!.also = [...(refs[refs.length - 1]!.also ?? []), r.id];
        continue;
      }
      const m: Obj = { role: "assistant", id: r.id, createdAt: r.createdAt, content: text };
      if (reasoning !== undefined) m.reasoning = reasoning;
      Object.assign(m, { toolInvocations: invs, parts: [...parts, ...invParts] });
      messages.push(m);
      refs.push({ table: "Message", id: r.id });
      continue;
    }
    const m: Obj = { id: r.id, role: r.role, content: r.content, createdAt: r.createdAt };
    if (typeof r.content === "string") m.parts = [{ type: "text", text: r.content }];
    else if (Array.isArray(r.content)) {
      const texts = r.content.filter((c) => isObj(c) && c.type === "text").map((c) => String((c as Obj).text));
      r.content.forEach((c, k) => {
        if (!isObj(c) || c.type !== "text") drop(k, isObj(c) ? String(c.type) : typeof c);
      });
      m.content = texts.join("");
      m.parts = texts.map((text) => ({ type: "text", text }));
    }
    messages.push(m);
    refs.push({ table: "Message", id: r.id });
  }
  return { messages, rows: refs, damage };
}

/** One chat as its document, undefined when the store has no such chat. */
export async function chatDocument(store: AiChatbotStore, chatId: string): Promise<ChatDocument | undefined> {
  const chat = await store.chat(chatId);
  if (!chat) return undefined;
  const v2 = await store.messagesV2(chatId);
  if (v2.length) return { chat, table: "Message_v2", ...v2Messages(v2) };
  return { chat, table: "Message", ...v1Messages(await store.messagesV1(chatId)) };
}

export interface AiChatbotSaver extends Saver {
  readonly aiChatbot: AiChatbotStore;
  /**
   * the rows behind a chat's document, their damage (for findings that name rows), and the format its document is
   * read in: `ai-sdk@4` (Message), `ai-sdk@6` (Message_v2: the major the template pins, ai 6.0.x)
   */
  chatRows(chatId: string): Promise<(Pick<ChatDocument, "rows" | "damage" | "table"> & { format: string }) | undefined>;
}

export const isAiChatbotSaver = (s: Saver): s is AiChatbotSaver =>
  (s as Partial<AiChatbotSaver>).aiChatbot !== undefined;

/** The format each table's chats are read in: AI SDK 4 (Message), the major the template pins today (Message_v2). */
export const TABLE_FORMAT: Record<MessageTable, string> = { Message: "ai-sdk@4", Message_v2: "ai-sdk@6" };

/** The Saver view of a Chat SDK store: read-only; writing it is `ckpt migrate`'s. */
export function aiChatbotSaver(store: AiChatbotStore): AiChatbotSaver {
  const readOnly = () => {
    throw storeError(
      "ai-chatbot-read-only",
      `${store.uri}: a Chat SDK template store is read-only here; write it with ckpt migrate`,
    );
  };
  const docs = new Map<string, ChatDocument>();
  const doc = async (id: string) => {
    const d = docs.get(id) ?? (await chatDocument(store, id));
    if (d) docs.set(id, d);
    if (docs.size > 256) docs.delete(docs.keys().next().value as string);
    return d;
  };
  const load = async (chatId: string) => {
    const d = await doc(chatId);
    return d && JSON.stringify(d.messages, null, 2);
  };
  return {
    uri: store.uri,
    aiChatbot: store,
    chatRows: async (id) => {
      const d = await doc(id);
      return d && { rows: d.rows, damage: d.damage, table: d.table, format: TABLE_FORMAT[d.table] };
    },
    load,
    // one after another: a PostgreSQL store reads through one session
    async loadMany(keys) {
      const out: Array<string | undefined> = [];
      for (const k of keys) out.push(await load(k.threadId));
      return out;
    },
    save: async () => readOnly(),
    saveMany: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (id) => (await store.chat(id)) !== undefined,
    async *list(options = {}): AsyncIterable<ThreadInfo> {
      for await (const c of store.chats({ after: options.after, limit: options.limit }))
        yield {
          namespace: options.namespace ?? DEFAULT_NAMESPACE,
          threadId: c.id,
          bytes: Buffer.byteLength((await load(c.id)) ?? ""),
          updatedAt: c.createdAt,
        };
    },
    async *scan(options = {}) {
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: Array<{ namespace: string; threadId: string; text: string }> = [];
      for await (const c of store.chats()) {
        const text = await load(c.id);
        if (text !== undefined) batch.push({ namespace: options.namespace ?? DEFAULT_NAMESPACE, threadId: c.id, text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    count: async () => (await store.counts()).chats,
    namespaces: async () => [DEFAULT_NAMESPACE],
    close: () => store.close(),
  };
}
