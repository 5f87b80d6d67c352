/**
 * Mastra rows of the older message format, and signal rows, read as Mastra's own MessageList reads them.
 *
 * - Format 1 (`@mastra/core` before 0.10: a `mastra_messages` row per AI SDK 4 CoreMessage, `type` "text",
 *   "tool-call" or "tool-result", `content` the CoreMessage's content — a string kept as it is, a part array as JSON
 *   text — and a `tool` role for tool results): the content becomes format 2 parts (`text`, `file`, `reasoning`,
 *   `tool-invocation` in state `call`), a tool row's results become tool results (of the assistant row before it,
 *   as MessageList merges them into that row's calls). Written back, such a row is a format 2 row.
 * - Signals (`role: "signal"`, `@mastra/core` 1.51+): a signal whose `metadata.signal.type` is `user` or
 *   `user-message` is a turn the user wrote (an agent-controller session persists chat messages that way:
 *   `isUserAuthoredMessage`) and is read as a user message; other signals stay Mastra's own.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A row whose content is format 1: not of type "v2", a string or a part array (format 2 is an object with `parts`). */
export const isV1Row = (m: { type?: unknown; content: unknown }): boolean =>
  m.type !== "v2" && (typeof m.content === "string" || Array.isArray(m.content) || typeof m.content === "number");

/** A signal row the user wrote (Mastra's isUserAuthoredMessage). */
export function isUserSignal(m: { role: string; content: unknown }): boolean {
  if (m.role !== "signal" || !isObj(m.content)) return false;
  const meta = m.content.metadata;
  const signal = isObj(meta) ? meta.signal : undefined;
  return isObj(signal) && (signal.type === "user" || signal.type === "user-message");
}

/** A format 1 user, system or assistant content as format 2 parts. */
export function v1Parts(content: unknown): Obj[] {
  if (!Array.isArray(content)) return [{ type: "text", text: typeof content === "string" ? content : String(content) }];
  const out: Obj[] = [];
  for (const p of content) {
    if (!isObj(p)) continue;
    switch (p.type) {
      case "text":
        out.push({ type: "text", text: String(p.text ?? "") });
        break;
      case "image":
        out.push({ type: "file", data: p.image, mimeType: typeof p.mimeType === "string" ? p.mimeType : "image/*" });
        break;
      case "file":
        out.push({
          type: "file",
          data: p.data,
          mimeType: p.mimeType,
          ...(typeof p.filename === "string" ? { filename: p.filename } : {}),
        });
        break;
      case "reasoning": {
        const detail: Obj = { type: "text", text: String(p.text ?? "") };
        if (typeof p.signature === "string") detail.signature = p.signature;
        out.push({ type: "reasoning", reasoning: String(p.text ?? ""), details: [detail] });
        break;
      }
      case "redacted-reasoning":
        out.push({ type: "reasoning", reasoning: "", details: [{ type: "redacted", data: p.data }] });
        break;
      case "tool-call":
        out.push({
          type: "tool-invocation",
          toolInvocation: { state: "call", toolCallId: p.toolCallId, toolName: p.toolName, args: p.args },
        });
        break;
      default:
        out.push(p); // kept as it is at its place
    }
  }
  return out;
}

/** A format 1 tool row's results: [toolCallId, toolName, result, isError]. */
export function v1Results(
  content: unknown,
): Array<{ toolCallId: string; toolName: string; result: unknown; isError: boolean }> {
  if (!Array.isArray(content)) return [];
  return content
    .filter((p): p is Obj => isObj(p) && p.type === "tool-result")
    .map((p) => ({
      toolCallId: String(p.toolCallId),
      toolName: String(p.toolName),
      result: p.result,
      isError: p.isError === true,
    }));
}
