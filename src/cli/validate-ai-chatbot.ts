/**
 * Findings on a Chat SDK template store's chat named by the rows they are in: each issue at a message of the chat's
 * document (`/<i>/…`) names that message's table and row id (and the JSON pointer inside its `parts` column where
 * it is there), and what a row holds that the document cannot show (savers/ai-chatbot/saver.ts `damage`) is a
 * finding of its own (rule `store/ai-chatbot-row`).
 */
import { isAbsolute, resolve } from "node:path";
import { inputError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import { type FileResult, validateDocument } from "../core/document.js";
import type { ChatDocument } from "../savers/ai-chatbot/saver.js";

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

/**
 * `validate <sqlite:|postgres://…>#<chat>` of a Chat SDK template store: the chat judged by its table's major with
 * its findings naming rows; undefined when the store holds another layout (the caller reads it as a document).
 */
export async function validateChatbotChat(
  spec: string,
  cwd: string,
  format: string | undefined,
): Promise<FileResult | undefined> {
  const { splitAddress } = await import("../savers/address.js");
  const { fragment, store } = splitAddress(spec);
  if (fragment === undefined || !/^(sqlite|postgres(ql)?):/i.test(store)) return undefined;
  const { openStore } = await import("./stores.js");
  const local = /^sqlite:/i.test(store) && !isAbsolute(store.slice(7).replace(/^\/\//, ""));
  const opened = await openStore(local ? `sqlite:${resolve(cwd, store.slice(7).replace(/^\/\//, ""))}` : store, {
    readOnly: true,
  });
  try {
    if (opened.layout !== "ai-chatbot") return undefined;
    const rows = await opened.saver.chatRows(fragment);
    const text = rows && (await opened.saver.load(fragment));
    if (!rows || text === undefined)
      throw inputError("missing-thread", `no chat '${fragment}' in the store`, { file: redactUri(spec) });
    const r = validateDocument({ name: spec, text, threadId: fragment }, { format: format ?? rows.format });
    nameChatRows(rows, r);
    return r;
  } finally {
    await opened.saver.close();
  }
}
