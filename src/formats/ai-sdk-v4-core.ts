/**
 * What AI SDK 4 does with a chat after `convertToCoreMessages` accepts it: `streamText` and `generateText`
 * (standardizePrompt) check the CoreMessages it made against `coreMessageSchema`, and refuse the chat when one does not
 * fit. convertToCoreMessages copies values from the UI messages into those CoreMessages unchecked — a text part's
 * `text`, a whole assistant `file` or `text` part, a string or array `content`, a reasoning detail's text, a tool
 * invocation's ids — so a chat it converts can still be refused: a v5-shaped `file` part (`mediaType`, `url`: no
 * `data`, no `mimeType`), a text part whose text is a number or missing. This walks a chat as ai@4.3.19's
 * convertToCoreMessages does and names, by a pointer into the chat, each value the CoreMessage schema rejects.
 * (The conversion's own throws — no result, attachments — are the schema's and `lint/ai-sdk-v4-attachment`'s.)
 */
import { isObj, type Obj } from "./ai-sdk-parts.js";

export interface CoreProblem {
  pointer: string;
  message: string;
}

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** ai@4's jsonValueSchema: null, string, number, boolean, arrays and records of those. */
const isJson = (v: unknown): boolean =>
  v === null ||
  typeof v === "string" ||
  typeof v === "number" ||
  typeof v === "boolean" ||
  (Array.isArray(v) && v.every(isJson)) ||
  (isObj(v) && Object.values(v).every(isJson));

/** providerMetadataSchema (optional): a record of records of JSON values. */
function metaProblems(p: Obj, at: string, out: CoreProblem[]): void {
  for (const k of ["providerOptions", "experimental_providerMetadata"]) {
    if (!(k in p) || p[k] === undefined) continue;
    const v = p[k];
    if (!isObj(v) || !Object.values(v).every((x) => isObj(x) && isJson(x)))
      out.push({ pointer: `${at}/${k}`, message: `${k} must be a record of records of JSON values` });
  }
}

const needString = (v: unknown, pointer: string, what: string, out: CoreProblem[]) => {
  if (typeof v !== "string") out.push({ pointer, message: `${what} must be a string, found ${kindOf(v)}` });
};

/** One part of a CoreMessage content array (a part copied whole from the chat), by the roles' part schemas. */
function corePart(p: unknown, at: string, allowed: readonly string[], out: CoreProblem[]): void {
  if (!isObj(p) || !allowed.includes(String(p.type))) {
    out.push({
      pointer: at,
      message: `a ${allowed.join(", ")} part is expected, found ${isObj(p) ? `type '${String(p.type)}'` : kindOf(p)}`,
    });
    return;
  }
  switch (p.type) {
    case "text":
    case "reasoning":
      needString(p.text, `${at}/text`, `a ${p.type} part's text`, out);
      break;
    case "redacted-reasoning":
      needString(p.data, `${at}/data`, "a redacted-reasoning part's data", out);
      break;
    case "image":
      if (typeof p.image !== "string")
        out.push({ pointer: `${at}/image`, message: "an image part's image must be a string (base64 or URL) in JSON" });
      if (p.mimeType !== undefined) needString(p.mimeType, `${at}/mimeType`, "an image part's mimeType", out);
      break;
    case "file":
      if (typeof p.data !== "string")
        out.push({
          pointer: `${at}/data`,
          message: `a file part's data must be a string (base64 or URL), found ${kindOf(p.data)}`,
        });
      needString(p.mimeType, `${at}/mimeType`, "a file part's mimeType", out);
      if (p.filename !== undefined) needString(p.filename, `${at}/filename`, "a file part's filename", out);
      break;
    case "tool-call":
      needString(p.toolCallId, `${at}/toolCallId`, "a tool call's toolCallId", out);
      needString(p.toolName, `${at}/toolName`, "a tool call's toolName", out);
      break;
  }
  metaProblems(p, at, out);
}

const USER_PARTS = ["text", "image", "file"] as const;
const ASSISTANT_PARTS = ["text", "file", "reasoning", "redacted-reasoning", "tool-call"] as const;

/** A `content` passed on as it is: a string, or an array of the role's parts. */
function content(v: unknown, at: string, allowed: readonly string[], out: CoreProblem[]): void {
  if (typeof v === "string") return;
  if (!Array.isArray(v)) {
    out.push({ pointer: at, message: `content must be a string or an array of parts, found ${kindOf(v)}` });
    return;
  }
  v.forEach((p, k) => corePart(p, `${at}/${k}`, allowed, out));
}

/** A tool invocation's ids, as the tool call (and, with a result, the tool result) carries them. */
function invocation(inv: unknown, at: string, out: CoreProblem[]): void {
  if (!isObj(inv)) return; // convertToCoreMessages throws: the schema's
  needString(inv.toolCallId, `${at}/toolCallId`, "a tool invocation's toolCallId", out);
  needString(inv.toolName, `${at}/toolName`, "a tool invocation's toolName", out);
}

function assistantParts(parts: unknown[], at: string, out: CoreProblem[]): void {
  parts.forEach((p, k) => {
    if (!isObj(p)) return;
    const here = `${at}/${k}`;
    if (p.type === "text" || p.type === "file") corePart(p, here, ASSISTANT_PARTS, out);
    else if (p.type === "reasoning") {
      const details = p.details;
      if (!Array.isArray(details)) return; // a string iterates as characters, whose type is undefined
      details.forEach((d, j) => {
        if (!isObj(d)) return;
        if (d.type === "text") needString(d.text, `${here}/details/${j}/text`, "a reasoning detail's text", out);
        else if (d.type === "redacted")
          needString(d.data, `${here}/details/${j}/data`, "a redacted reasoning detail's data", out);
      });
    } else if (p.type === "tool-invocation") invocation(p.toolInvocation, `${here}/toolInvocation`, out);
  });
}

/** Every value of a chat that ai@4's CoreMessage schema refuses once convertToCoreMessages made CoreMessages of it. */
export function v4CoreProblems(chat: readonly unknown[]): CoreProblem[] {
  const out: CoreProblem[] = [];
  chat.forEach((m, i) => {
    if (!isObj(m)) return;
    const at = `/${i}`;
    const last = i === chat.length - 1;
    const attachments = m.experimental_attachments;
    if (m.role === "system") needString(m.content, `${at}/content`, "a system message's content", out);
    else if (m.role === "user") {
      if (m.parts === null || m.parts === undefined) {
        if (attachments) needString(m.content, `${at}/content`, "the content of a user message with attachments", out);
        else content(m.content, `${at}/content`, USER_PARTS, out);
      } else if (Array.isArray(m.parts))
        m.parts.forEach((p, k) => {
          if (isObj(p) && p.type === "text") needString(p.text, `${at}/parts/${k}/text`, "a text part's text", out);
        });
    } else if (m.role === "assistant") {
      if (m.parts !== null && m.parts !== undefined) {
        if (Array.isArray(m.parts)) assistantParts(m.parts, `${at}/parts`, out);
        return;
      }
      const invs = m.toolInvocations;
      if (!Array.isArray(invs) || invs.length === 0) {
        content(m.content, `${at}/content`, ASSISTANT_PARTS, out);
        return;
      }
      invs.forEach((inv, k) => invocation(inv, `${at}/toolInvocations/${k}`, out));
      // the text goes into the first step's message when the message is the chat's last, else into one of its own
      if (last && m.content && invs.some((x) => isObj(x) && (x.step ?? 0) === 0))
        needString(m.content, `${at}/content`, "an assistant message's content", out);
      else if (m.content && !last) content(m.content, `${at}/content`, ASSISTANT_PARTS, out);
    }
  });
  return out;
}
