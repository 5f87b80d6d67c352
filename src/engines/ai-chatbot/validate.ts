/**
 * Findings on a Chat SDK template store's chat named by the rows they are in: each issue at a message of the chat's
 * document (`/<i>/…`) names that message's table and row id (and the JSON pointer inside its `parts` column where
 * it is there), and what a row holds that the document cannot show (savers/ai-chatbot/saver.ts `damage`) is a
 * finding of its own (rule `store/ai-chatbot-row`). A chat is judged by the major of its table (Message: AI SDK 4,
 * Message_v2: the template's), unless a format is given.
 */
import { type FileResult, validateDocument } from "../../core/document.js";
import type { AiChatbotSaver, ChatDocument } from "../../savers/ai-chatbot/saver.js";

/** Name the rows behind `r`'s issues, and add the rows' damage. */
export function nameChatRows(at: Pick<ChatDocument, "rows" | "damage">, r: FileResult): void {
  for (const i of r.issues) {
    const m = /^\/(\d+)(\/[^/]*)?(.*)$/.exec(i.pointer);
    const ref = m ? at.rows[Number(m[1])] : undefined;
    if (!ref) continue;
    const column = m![2]?.slice(1);
    // a Message_v2 row's parts and attachments are the message's; a Message chat's messages are read from rows
    const inside =
      ref.table === "Message_v2" && (column === "parts" || column === "attachments")
        ? `, column ${column} at ${m![3] || "/"}`
        : "";
    const rows = ref.also?.length ? `rows ${[ref.id, ...ref.also].join(", ")}` : `row ${ref.id}`;
    i.message += ` (${ref.table} ${rows}${inside})`;
    delete i.line;
    delete i.column;
  }
  for (const d of at.damage) {
    r.issues.push({
      severity: d.severity,
      rule: "store/ai-chatbot-row",
      message: `${d.table} row ${d.row}, column ${d.column}: ${d.reason}`,
      pointer: d.pointer,
      file: r.file,
    });
    if (d.severity === "error") r.valid = false;
  }
}

/** One chat of the store validated: undefined when the store holds no such chat. */
export async function validateChat(
  saver: AiChatbotSaver,
  threadId: string,
  o: { name: string; format?: string; text?: string },
): Promise<FileResult | undefined> {
  const rows = await saver.chatRows(threadId);
  const text = rows && (o.text ?? (await saver.load(threadId)));
  if (!rows || text === undefined) return undefined;
  const r = validateDocument({ name: o.name, text, threadId }, { format: o.format ?? rows.format });
  nameChatRows(rows, r);
  return r;
}
