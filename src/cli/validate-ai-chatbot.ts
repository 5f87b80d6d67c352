/**
 * `ckpt validate <store>#<chat>` of a store whose engine validates a thread itself (a Chat SDK template store: its
 * findings name the rows they are in, engines/ai-chatbot/validate.ts).
 */
import { isAbsolute, resolve } from "node:path";
import { inputError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import type { FileResult } from "../core/document.js";

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
  const { engine } = opened;
  if (!engine.validateThread) return undefined;
  const r = await engine.validateThread(fragment, { name: spec, format });
  if (!r) throw inputError("missing-thread", `no chat '${fragment}' in the store`, { file: redactUri(spec) });
  return r;
}
