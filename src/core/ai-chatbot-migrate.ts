/**
 * Migrating a Chat SDK template database's chats into `Message_v2` (savers/ai-chatbot/): every chat of the source
 * becomes `Message_v2` rows in the target — a new store or schema, or the same database, where only chats that have
 * no `Message_v2` rows yet are written. The source's rows are never rewritten or deleted (`Message` stays as it is).
 * - a chat with rows in `Message` (AI SDK 4 model messages): read into AI SDK 4 UI messages as the template's own
 *   migration read them (saver.ts `v1Messages`), converted to the major the template pins (ai-sdk@6) through the
 *   ai-sdk format, a row per UI message: its id, role and parts, `attachments` `[]` (AI SDK 4 attachments are file
 *   parts now), `createdAt` the source message's (made strictly increasing within a chat, since the template orders
 *   by it alone; each change reported as altered). What the rows cannot hold (metadata other than createdAt, fields
 *   of no place, parts AI SDK 4's UI messages drop, tool results of no call) is reported lost, and the chat rejected
 *   without `allowLossy`; a row that does not decode is always rejected;
 * - a chat with rows in `Message_v2`: copied as they are (in the same database: already there, left alone).
 * Users and chats go with their messages (kept when the target has them). A chat whose target rows differ from
 * what would be written is a conflict and is not written; identical rows are skipped. Chats go in batches, one
 * transaction a batch, recorded in the journal, then verified: the rows read back the way the template reads them
 * (by chatId, ordered by createdAt) equal what was written and are a chat the ai-sdk@6 validator accepts.
 */
import { stringifyJson } from "../base/json.js";
import { type ChatDocument, v1Messages, v2Messages } from "../savers/ai-chatbot/saver.js";
import type { AiChatbotBatch, AiChatbotStore, ChatRow, MessageV2Row, UserRow } from "../savers/ai-chatbot/types.js";
import { checkRecord } from "./check.js";
import { validateDocument } from "./document.js";
import { emptySummary, type Journal, type MigrateProgress, type MigrateSummary } from "./migrate/types.js";

export interface ChatbotMigrateOptions {
  batchSize?: number;
  dryRun?: boolean;
  allowLossy?: boolean;
  verify?: boolean;
  strict?: boolean;
  journal?: Journal;
  onProgress?: (p: MigrateProgress) => void;
  now?: () => number;
}

/** What a Chat SDK migration wrote, by table. */
export interface ChatbotRows {
  chats: number;
  messages: number;
  /** of them, chats converted from Message */
  converted: number;
}

export type ChatbotMigrateSummary = MigrateSummary & { layout: "ai-chatbot"; chatbotRows: ChatbotRows };

/** The major Message_v2 rows are written for: the one the template pins (ai 6.0.x). */
export const TEMPLATE_MAJOR = "6";

type Row = Omit<MessageV2Row, "unreadable">;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON value with its object keys sorted (PostgreSQL's json keeps the text, SQLite too; compared as values). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (isObj(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted(v[k])]),
    );
  return v;
}

/** The comparable form of a chat's Message_v2 rows: what the template reads of them (times as instants). */
export const rowsForm = (rows: Row[]): string =>
  stringifyJson(rows.map((r) => [r.id, r.role, sorted(r.parts), sorted(r.attachments), Date.parse(r.createdAt)]));

/** A chat's planned rows, or why it cannot be migrated. */
type Plan = { ok: true; rows: Row[]; converted: boolean; altered: string[] } | { ok: false; reason: string };

/** What the rows say that a Message_v2 row has no place for, with the rows' damage: lost unless allowed. */
function lossesOf(doc: Pick<ChatDocument, "damage">, v6: Obj[]): { fatal: string[]; lost: string[] } {
  const fatal = doc.damage.filter((d) => d.severity === "error").map((d) => `${d.table} row ${d.row}: ${d.reason}`);
  const lost = doc.damage
    .filter((d) => d.severity === "warning")
    .map((d) => `${d.table} row ${d.row}, column ${d.column}: ${d.reason}`);
  v6.forEach((m, i) => {
    for (const k of Object.keys(m))
      if (!["id", "role", "parts", "metadata"].includes(k)) lost.push(`/${i}/${k}: Message_v2 has no column for it`);
    if (isObj(m.metadata))
      for (const k of Object.keys(m.metadata))
        if (k !== "createdAt") lost.push(`/${i}/metadata/${k}: Message_v2 keeps no metadata but createdAt`);
  });
  return { fatal, lost };
}

/** A Message chat converted to Message_v2 rows (see the module comment). */
function convertChat(chat: ChatRow, doc: ChatDocument, allowLossy: boolean): Plan {
  const name = `Chat ${chat.id}`;
  const r = checkRecord(
    name,
    JSON.stringify(doc.messages),
    { toFormat: "ai-sdk", toFormatVersion: TEMPLATE_MAJOR, allowLossy },
    chat.id,
  );
  if (!r.ok) return { ok: false, reason: r.reason };
  const v6 = r.value as Obj[];
  const { fatal, lost } = lossesOf(doc, v6);
  if (fatal.length) return { ok: false, reason: `${name}: ${fatal.join("; ")}` };
  if (lost.length && !allowLossy)
    return {
      ok: false,
      reason: `${name}: would drop ${lost.slice(0, 3).join("; ")}${lost.length > 3 ? "; …" : ""} (use --allow-lossy)`,
    };
  const at = new Map(doc.messages.map((m) => [String(m.id), String(m.createdAt)]));
  const altered: string[] = [];
  let prev = Number.NEGATIVE_INFINITY;
  const rows = v6.map((m): Row => {
    const given = at.get(String(m.id)) ?? (isObj(m.metadata) ? String(m.metadata.createdAt) : chat.createdAt);
    let t = Date.parse(given);
    if (!(t > prev)) {
      t = Number.isFinite(prev) ? prev + 1 : Date.parse(chat.createdAt);
      altered.push(
        `message ${String(m.id)}: createdAt ${given} → ${new Date(t).toISOString()} (the template orders by it alone)`,
      );
    }
    prev = t;
    return {
      id: String(m.id),
      chatId: chat.id,
      role: String(m.role),
      parts: m.parts,
      attachments: [],
      createdAt: new Date(t).toISOString(),
    };
  });
  return { ok: true, rows, converted: true, altered };
}

/** What a source chat becomes in Message_v2. */
async function planChat(source: AiChatbotStore, chat: ChatRow, allowLossy: boolean): Promise<Plan> {
  const v2 = await source.messagesV2(chat.id);
  if (v2.length) {
    const bad = v2.find((r) => r.unreadable?.length);
    if (bad)
      return {
        ok: false,
        reason: `Chat ${chat.id}: Message_v2 row ${bad.id}, column ${bad.unreadable![0]!.column}: ${bad.unreadable![0]!.reason}`,
      };
    return { ok: true, rows: v2.map(({ unreadable: _u, ...r }) => r), converted: false, altered: [] };
  }
  const v1 = await source.messagesV1(chat.id);
  if (!v1.length) return { ok: true, rows: [], converted: false, altered: [] }; // a chat of no messages: its row
  return convertChat(chat, { chat, table: "Message", ...v1Messages(v1) }, allowLossy);
}

/** Move every chat of `source` into `target`'s Message_v2 (see the module comment). */
export async function migrateChatbot(
  source: AiChatbotStore,
  target: AiChatbotStore,
  o: ChatbotMigrateOptions = {},
): Promise<ChatbotMigrateSummary> {
  const now = o.now ?? Date.now;
  const t0 = now();
  const s: ChatbotMigrateSummary = {
    ...emptySummary(Boolean(o.dryRun), 1),
    layout: "ai-chatbot",
    chatbotRows: { chats: 0, messages: 0, converted: 0 },
  };
  const has = await target.tables();
  if (!o.dryRun && !(has.has("Chat") && has.has("Message_v2") && has.has("User"))) await target.setup();
  const size = Math.max(1, o.batchSize ?? 100);
  let batch: ChatRow[] = [];
  const flush = async () => {
    if (batch.length) await migrateBatch(source, target, batch, s, o);
    batch = [];
    s.elapsedMs = now() - t0;
    o.onProgress?.(s);
  };
  for await (const c of source.chats()) {
    if (s.aborted) break;
    batch.push(c);
    if (batch.length >= size) await flush();
  }
  await flush();
  s.elapsedMs = now() - t0;
  s.recordsPerSecond = s.elapsedMs > 0 ? (s.read * 1000) / s.elapsedMs : 0;
  s.mbPerSecond = s.elapsedMs > 0 ? s.bytesRead / 1e6 / (s.elapsedMs / 1000) : 0;
  return s;
}

const journalKeyOf = (chatId: string) => `ai-chatbot\u0000${chatId}`;

/** One batch of chats: planned, checked against the target, written in one transaction, journaled, verified. */
async function migrateBatch(
  source: AiChatbotStore,
  target: AiChatbotStore,
  chats: ChatRow[],
  s: ChatbotMigrateSummary,
  o: ChatbotMigrateOptions,
): Promise<void> {
  const there = await target.chatsWithV2(chats.map((c) => c.id));
  const write: Array<{ chat: ChatRow; rows: Row[]; converted: boolean }> = [];
  for (const chat of chats) {
    s.read++;
    if (o.journal?.done.has(journalKeyOf(chat.id))) {
      s.resumed++;
      s.skipped++;
      continue;
    }
    const plan = await planChat(source, chat, Boolean(o.allowLossy));
    if (!plan.ok) {
      s.rejected++;
      s.rejectedRecords.push({ namespace: "", threadId: chat.id, reason: plan.reason });
      if (o.strict) s.aborted ??= `--strict: chat ${chat.id} rejected`;
      continue;
    }
    s.bytesRead += Buffer.byteLength(JSON.stringify(plan.rows));
    if (there.has(chat.id)) {
      // the target has Message_v2 rows for the chat: the same rows are left alone, others are a conflict
      const got = rowsForm(await target.messagesV2(chat.id));
      if (got === rowsForm(plan.rows)) {
        s.identical++;
        s.skipped++;
      } else
        s.conflicts.push({
          namespace: "",
          threadId: chat.id,
          reason:
            "the target's Message_v2 holds other rows for this chat (left alone; migrate into a new schema or store)",
        });
      continue;
    }
    const taken = await target.existing(
      "Message_v2",
      plan.rows.map((r) => r.id),
    );
    if (taken.size) {
      s.conflicts.push({
        namespace: "",
        threadId: chat.id,
        reason: `Message_v2 already has row ${[...taken][0]} (of another chat)`,
      });
      continue;
    }
    for (const what of plan.altered) (s.altered ??= []).push({ namespace: "", threadId: chat.id, what });
    write.push({ chat, rows: plan.rows, converted: plan.converted });
  }
  if (!write.length) return;
  const users: UserRow[] = [];
  for (const id of new Set(write.map((w) => w.chat.userId))) {
    const u = await source.user(id);
    if (u) users.push(u);
  }
  const b: AiChatbotBatch = { users, chats: write.map((w) => w.chat), messages: write.flatMap((w) => w.rows) };
  if (!o.dryRun) {
    await target.write(b);
    await o.journal?.commit(write.map((w) => ({ key: journalKeyOf(w.chat.id), hash: "" })));
    if (o.verify ?? true) for (const w of write) await verifyChat(target, w.chat.id, w.rows, w.converted, s);
  }
  s.written += write.length;
  s.bytesWritten += Buffer.byteLength(JSON.stringify(b.messages));
  s.chatbotRows.chats += write.length;
  s.chatbotRows.messages += b.messages.length;
  s.chatbotRows.converted += write.filter((w) => w.converted).length;
}

/** Read a written chat back as the template does and compare; a converted chat must pass the ai-sdk@6 validator. */
async function verifyChat(
  target: AiChatbotStore,
  chatId: string,
  rows: Row[],
  converted: boolean,
  s: ChatbotMigrateSummary,
) {
  const back = await target.messagesV2(chatId);
  const expected = rowsForm(rows);
  const got = rowsForm(back);
  // a copied Message_v2 chat is its rows as they were; a converted one must also be a chat ai-sdk@6 accepts
  const valid =
    got === expected &&
    (!converted ||
      validateDocument(
        { name: `Message_v2#${chatId}`, text: JSON.stringify(v2Messages(back).messages), threadId: chatId },
        { format: `ai-sdk@${TEMPLATE_MAJOR}` },
      ).valid);
  if (valid) s.verified++;
  else
    s.mismatches.push({
      namespace: "Message_v2",
      threadId: chatId,
      expected: `${rows.length} row(s) the ai-sdk@${TEMPLATE_MAJOR} validator accepts`,
      got: got === expected ? "rows it rejects" : `${back.length} other row(s)`,
    });
}
