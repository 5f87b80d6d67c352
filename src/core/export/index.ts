/**
 * `ckpt export`'s formats by name (`--as`), and what each is made from: the canonical conversation of one checkpoint
 * of one thread (`ExportThread`). The pipeline around them (stores read, transforms, writers) is engines/export/.
 */
import { hfMessages, openAIChat, shareGpt } from "./chat-formats.js";
import { markdown } from "./markdown.js";
import { audit, ckptLines } from "./record-formats.js";
import type { ExportFormat, ExportFormatName } from "./types.js";

export * from "./types.js";
export { argumentsText, chatTurns, textOf, type ToolCall, type Turn } from "./turns.js";
export { AUDIT_TEXT, type AuditRow } from "./record-formats.js";

/** Every format `--as` names. */
export const exportFormats: Readonly<Record<ExportFormatName, ExportFormat>> = {
  "openai-chat": openAIChat,
  "hf-messages": hfMessages,
  sharegpt: shareGpt,
  ckpt: ckptLines,
  audit,
  markdown,
};
