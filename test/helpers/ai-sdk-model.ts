/**
 * Model messages of any AI SDK major in one spelling, for comparing ai@4's `convertToCoreMessages` with ai@5+'s
 * `convertToModelMessages`. Representation only — what each major's providers send identically: a tool call's `args`
 * (`input`), a tool result's raw `result` (`output: {type: "text" | "json", value}`, as ai@5+'s createToolModelOutput
 * wraps it), a string content (one text part), an image attachment read into bytes (`image: Uint8Array`, serialised
 * as an index object) where ai@5+ keeps the data URL (`file` with media type and file name; ai@7 `data: {type: "url",
 * url}`): both as the bytes they hold.
 */
type J = Record<string, unknown>;
const isObj = (v: unknown): v is J => typeof v === "object" && v !== null && !Array.isArray(v);

/** Bytes of a data URL, or of a JSON-serialised Uint8Array ({"0": 137, …}), as base64. */
function bytesOf(v: unknown): string | undefined {
  if (isObj(v) && v.type === "url" && typeof v.url === "string") v = v.url; // ai@7: {type: "url", url}
  if (typeof v === "string") {
    const m = /^data:[^;,]*;base64,(.*)$/s.exec(v);
    return m ? m[1] : undefined;
  }
  if (isObj(v) && Object.keys(v).every((k) => /^\d+$/.test(k)))
    return Buffer.from(Object.values(v) as number[]).toString("base64");
  return undefined;
}

/** Model messages of any major in one spelling (see the header: representation only). */
export function normalize(messages: unknown[]): unknown[] {
  return messages.map((m) => {
    const msg = { ...(m as J) };
    if (msg.role !== "system" && typeof msg.content === "string") msg.content = [{ type: "text", text: msg.content }];
    if (Array.isArray(msg.content)) {
      msg.content = (msg.content as J[]).map((p) => {
        const q = { ...p };
        if (q.type === "tool-call" && "args" in q) {
          q.input = q.args;
          delete q.args;
        }
        if (q.type === "tool-result" && "result" in q) {
          q.output = { type: typeof q.result === "string" ? "text" : "json", value: q.result ?? null };
          delete q.result;
        }
        if (q.type === "image" || q.type === "file") {
          const bytes = bytesOf(q.image ?? q.data);
          if (bytes !== undefined) return { type: "bytes", bytes };
        }
        return q;
      });
    }
    return msg;
  });
}
