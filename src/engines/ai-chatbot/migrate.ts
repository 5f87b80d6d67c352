/**
 * The Chat SDK template migration endpoint (core/migrate/pipeline.ts runs it): a Chat SDK template database's chats into `Message_v2` (savers/ai-chatbot/): every chat of the source
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
 * what would be written is a conflict (the run stops, as on every layout) and is not written; identical rows are
 * skipped. Chats go in batches, one transaction a batch, recorded in the journal, then verified: the rows read back the way the template reads them
 * (by chatId, ordered by createdAt) equal what was written and are a chat the ai-sdk@6 validator accepts.
 */
import { hexDigest } from "../../base/digest.js";
import { fmtInt } from "../../base/plural.js";
import { stringifyJson } from "../../base/json.js";
import { checkRecord } from "../../core/check.js";
import { validateDocument } from "../../core/document.js";
import type { Item, MigrationEndpoint, Staged, TargetWriter } from "../../core/migrate/endpoint.js";
import { runMigration } from "../../core/migrate/pipeline.js";
import type { MigrateSummary, RunOptions } from "../../core/migrate/types.js";
import { type ChatDocument, v1Messages, v2Messages } from "../../savers/ai-chatbot/saver.js";
import type { AiChatbotStore, ChatRow, MessageV2Row, UserRow } from "../../savers/ai-chatbot/types.js";
import type { OpenedStore } from "../../savers/index.js";
import { usageError } from "../../base/errors.js";
import { nameChatRows } from "./validate.js";
import { type MigrationRoute, runOptions } from "../migrate-route.js";

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
    // rows copied as they are must be a chat the template's major accepts: judged (and named) as validate judges it
    const doc = { chat, table: "Message_v2" as const, ...v2Messages(v2) };
    const r = validateDocument(
      { name: `Chat ${chat.id}`, text: JSON.stringify(doc.messages), threadId: chat.id },
      { format: `ai-sdk@${TEMPLATE_MAJOR}` },
    );
    nameChatRows(doc, r);
    const errors = r.issues.filter((i) => i.severity === "error");
    if (errors.length)
      return {
        ok: false,
        reason: `Chat ${chat.id}: ${errors
          .slice(0, 3)
          .map((i) => `${i.pointer ? `${i.pointer}: ` : ""}${i.message}`)
          .join("; ")}${errors.length > 3 ? "; …" : ""} (ckpt validate lists every finding)`,
      };
    return { ok: true, rows: v2.map(({ unreadable: _u, ...r }) => r), converted: false, altered: [] };
  }
  const v1 = await source.messagesV1(chat.id);
  if (!v1.length) return { ok: true, rows: [], converted: false, altered: [] }; // a chat of no messages: its row
  return convertChat(chat, { chat, table: "Message", ...v1Messages(v1) }, allowLossy);
}

/** A chat on its way to Message_v2: its rows, whether they were converted from Message, and what changed. */
interface ChatItem extends Item {
  chat: ChatRow;
  rows: Row[];
  converted: boolean;
  altered: string[];
  form: string;
}

const journalKeyOf = (chatId: string) => `ai-chatbot\u0000${chatId}`;

/** Read a written chat back as the template does and compare; a converted chat must pass the ai-sdk@6 validator. */
async function verifyChat(target: AiChatbotStore, w: ChatItem): Promise<{ expected: string; got: string } | undefined> {
  const back = await target.messagesV2(w.chat.id);
  const got = rowsForm(back);
  // a copied Message_v2 chat is its rows as they were; a converted one must also be a chat ai-sdk@6 accepts
  const valid =
    got === w.form &&
    (!w.converted ||
      validateDocument(
        { name: `Message_v2#${w.chat.id}`, text: JSON.stringify(v2Messages(back).messages), threadId: w.chat.id },
        { format: `ai-sdk@${TEMPLATE_MAJOR}` },
      ).valid);
  if (valid) return undefined;
  return {
    expected: `${w.rows.length} row(s) the ai-sdk@${TEMPLATE_MAJOR} validator accepts`,
    got: got === w.form ? "rows it rejects" : `${back.length} other row(s)`,
  };
}

/** The target's one writer: lookups of Message_v2 rows, a batch of chats (with their users) in one transaction. */
function chatbotWriter(source: AiChatbotStore, target: AiChatbotStore): TargetWriter<ChatItem, string> {
  return {
    async lookup(items) {
      const there = await target.chatsWithV2(items.map((i) => i.chat.id));
      return Promise.all(
        items.map(async (i) => {
          // the target has Message_v2 rows for the chat: the same rows are left alone, others are a conflict
          if (there.has(i.chat.id)) return rowsForm(await target.messagesV2(i.chat.id));
          const taken = await target.existing(
            "Message_v2",
            i.rows.map((r) => r.id),
          );
          return taken.size ? `Message_v2 row ${[...taken][0]} of another chat` : undefined;
        }),
      );
    },
    async write(items) {
      const users: UserRow[] = [];
      for (const id of new Set(items.map((w) => w.chat.userId))) {
        const u = await source.user(id);
        if (u) users.push(u);
      }
      await target.write({ users, chats: items.map((w) => w.chat), messages: items.flatMap((w) => w.rows) });
    },
    async verify(written) {
      const out: Array<{ expected: string; got: string } | undefined> = [];
      for (const w of written) out.push(await verifyChat(target, w));
      return out;
    },
  };
}

/** Chats of `source` into `target`'s Message_v2 (see the module comment). */
function chatbotEndpoint(
  source: AiChatbotStore,
  target: AiChatbotStore,
  allowLossy: boolean,
): MigrationEndpoint<ChatRow, ChatItem, string> {
  let s: ChatbotMigrateSummary | undefined;
  return {
    parts: async () => [""],
    count: async () => (await source.counts()).chats,
    async *scan(_part, size) {
      let batch: ChatRow[] = [];
      for await (const c of source.chats()) {
        batch.push(c);
        if (batch.length < size) continue;
        yield batch;
        batch = [];
      }
      if (batch.length) yield batch;
    },
    labelOf: (c) => ({ namespace: "", threadId: c.id }),
    keyOf: (c) => journalKeyOf(c.id),
    bytesRead: (_c, staged) => (staged && "ok" in staged ? staged.ok.bytes : 0),
    stage(batch, done) {
      const planned = Promise.all(
        batch.map(async (chat): Promise<Staged<ChatItem> | undefined> => {
          if (done(chat)) return undefined;
          const plan = await planChat(source, chat, allowLossy);
          if (!plan.ok) return { reject: plan.reason };
          const { rows, converted, altered } = plan;
          const bytes = Buffer.byteLength(JSON.stringify(rows));
          const form = rowsForm(rows);
          return {
            ok: {
              namespace: "",
              threadId: chat.id,
              key: journalKeyOf(chat.id),
              hash: hexDigest("sha256", form),
              bytes,
              chat,
              rows,
              converted,
              altered,
              form,
            },
          };
        }),
      );
      planned.catch(() => undefined); // awaited in turn
      return () => planned;
    },
    writers: [chatbotWriter(source, target)],
    async held(chats) {
      const there = await target.chatsWithV2(chats.map((c) => c.id));
      return chats.map((c) => there.has(c.id));
    },
    same: (i, held) => i.form === held,
    newer: () => false, // --on-conflict newer is refused for this target
    async begin(summary, dryRun) {
      s = Object.assign(summary, {
        layout: "ai-chatbot" as const,
        chatbotRows: { chats: 0, messages: 0, converted: 0 },
      });
      const has = await target.tables();
      if (!dryRun && !(has.has("Chat") && has.has("Message_v2") && has.has("User"))) await target.setup();
    },
    counted(items) {
      if (!s) return;
      for (const w of items) {
        for (const what of w.altered) (s.altered ??= []).push({ namespace: "", threadId: w.chat.id, what });
        s.chatbotRows.chats++;
        s.chatbotRows.messages += w.rows.length;
        if (w.converted) s.chatbotRows.converted++;
      }
    },
    async end(summary) {
      const r = s?.chatbotRows;
      if (r)
        summary.figures = `Message_v2 ${summary.dryRun ? "to write" : "written"}: ${fmtInt(r.chats)} chat(s) with ${fmtInt(r.messages)} row(s), ${fmtInt(r.converted)} of the chats converted from Message (AI SDK 4 → 6)`;
    },
  };
}

/** Move every chat of `source` into `target`'s Message_v2 (see the module comment). */
export async function migrateChatbot(
  source: AiChatbotStore,
  target: AiChatbotStore,
  o: RunOptions & { allowLossy?: boolean } = {},
): Promise<ChatbotMigrateSummary> {
  return (await runMigration(chatbotEndpoint(source, target, Boolean(o.allowLossy)), o)) as ChatbotMigrateSummary;
}

const chatbotStore = (o: OpenedStore) => (o as Extract<OpenedStore, { layout: "ai-chatbot" }>).store;

/**
 * `ckpt migrate` into a Chat SDK template store: the chats of another Chat SDK template database into `Message_v2` of
 * a new store or schema (`?layout=ai-chatbot` on a new target), or of the same database (`--to` the same URI: only
 * chats without Message_v2 rows are written; `Message` is never changed). A Chat SDK store read as documents (`--to`
 * a ckpt store or folder, `--to-format`) goes the documents way (engines/ckpt/migrate.ts).
 */
export const route: MigrationRoute = {
  parallelWriters: () => false,
  oneWriter: (to) => `a Chat SDK target (${to}) takes one writer`,
  refuseAsTarget(args, source, to) {
    if (source !== "ai-chatbot")
      throw usageError(
        `--to ${to}: a Chat SDK template store takes the chats of another Chat SDK template database (its Message and Message_v2 tables)`,
      );
    if (args.toNamespace !== undefined)
      throw usageError(`--to-namespace ${args.toNamespace}: a Chat SDK target (${to}) has no namespaces`);
    if (args.toFormat !== undefined && args.toFormat !== "ai-sdk")
      throw usageError(
        `--to-format ${args.toFormat}: a Chat SDK target (${to}) holds Message_v2 rows (the AI SDK major the template pins)`,
      );
    if (args.aiSdkVersion !== undefined && args.aiSdkVersion !== TEMPLATE_MAJOR)
      throw usageError(
        `--to-format ai-sdk@${args.aiSdkVersion}: a Chat SDK target (${to}) holds Message_v2 rows of AI SDK 6, the major the template pins`,
      );
    if (args.onConflict !== "default" && args.onConflict !== "skip")
      throw usageError(
        `--on-conflict ${args.onConflict}: a Chat SDK target's rows are never replaced; a chat whose Message_v2 rows differ is reported and left alone`,
      );
    if (args.toLibrary !== undefined)
      throw usageError(`--to-library ${args.toLibrary}: applies to LangGraph targets, not to Chat SDK stores`);
    if (args.thread?.length)
      throw usageError("--thread: picks threads of LangGraph routes; a Chat SDK migration moves every chat");
  },
  refuseAsSource(target, to) {
    if (target === "langgraph" || target === "mastra")
      throw usageError(
        `--to ${to}: a Chat SDK template database goes to a Chat SDK template store, or as documents to a ckpt store or folder`,
      );
  },
  run: (source, target, args, hooks) =>
    migrateChatbot(chatbotStore(source), chatbotStore(target), {
      ...runOptions(args, hooks),
      allowLossy: args.allowLossy,
    }),
};
