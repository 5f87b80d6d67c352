/**
 * AI SDK 4 UI messages (`{id, role, content, createdAt?, parts?, toolInvocations?, experimental_attachments?,
 * annotations?, reasoning?}`) read into the view every major shares (ai-sdk-parts.ts) and written from it.
 *
 * Reading follows what ai@4's `convertToCoreMessages` reads, so that the view's model messages (through a v5+
 * `convertToModelMessages`) are the ones ai@4 gave: an assistant message's `parts` when it has them (steps as v4
 * cuts them: a text after a tool invocation, or an invocation of another step, starts a new step — a `step-start`
 * is written there), else its `content` and `toolInvocations` in v4's order (per step: the calls, with the content
 * before them on the last message's first step, or after all steps on the others; invocations without a `step`,
 * ai < 4.2's, the content before the calls as ai 4.1 read them); a user message's text parts
 * (else its content) and then its `experimental_attachments` as file parts; a system message's content.
 * `tool-invocation` states: `result` → `output-available`, `call` → `input-available`, `partial-call` →
 * `input-streaming`; each reasoning detail → a `reasoning` part (a signature or redacted data in
 * providerMetadata.anthropic, where AI SDK 5+ keeps them); `source` → `source-url`; file `{mimeType, data}` → file
 * `{mediaType, url: data URL}`; `createdAt` and `annotations` → `metadata` (AI SDK 5+ has no place of their own).
 *
 * Writing derives a v4 message the way ai@4's `appendResponseMessages` writes one (`content` and `reasoning` of
 * the last step, `toolInvocations` mirroring the tool parts with their steps).
 */
import { isObj, isToolPart, type Obj, toolNameOf, type ViewMessage } from "./ai-sdk-parts.js";

const V4_STATE: Record<string, string> = {
  result: "output-available",
  call: "input-available",
  "partial-call": "input-streaming",
};

/** A view part of one v4 assistant part (several for a reasoning part: one per detail); [] for a skipped part. */
function v4PartToView(p: unknown): Obj[] {
  if (!isObj(p)) return [];
  switch (p.type) {
    case "text":
      return [{ type: "text", text: p.text }];
    case "reasoning":
      return reasoningToView(p);
    case "tool-invocation":
      return isObj(p.toolInvocation) ? [invocationToView(p.toolInvocation)] : [];
    case "file":
      return [{ type: "file", mediaType: p.mimeType, url: dataUrl(p.mimeType, p.data) }];
    case "source": {
      const s = isObj(p.source) ? p.source : {};
      const out: Obj = { type: "source-url", sourceId: s.id, url: s.url };
      if (s.title !== undefined) out.title = s.title;
      if (s.providerMetadata !== undefined) out.providerMetadata = s.providerMetadata;
      return [out];
    }
    case "step-start":
      return [{ type: "step-start" }];
    default:
      return [p];
  }
}

function reasoningToView(p: Obj): Obj[] {
  const details = Array.isArray(p.details) ? (p.details as unknown[]) : [];
  const out: Obj[] = [];
  for (const d of details) {
    if (!isObj(d)) continue;
    if (d.type === "text") {
      const r: Obj = { type: "reasoning", text: d.text };
      if (typeof d.signature === "string") r.providerMetadata = { anthropic: { signature: d.signature } };
      out.push(r);
    } else if (d.type === "redacted") {
      out.push({ type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: d.data } } });
    }
  }
  return out;
}

function invocationToView(t: Obj): Obj {
  const state = V4_STATE[String(t.state)] ?? ("result" in t ? "output-available" : "input-available");
  const out: Obj = { type: `tool-${String(t.toolName)}`, toolCallId: t.toolCallId, state };
  if (state !== "input-streaming" || t.args !== undefined) out.input = t.args;
  if (state === "output-available") out.output = t.result;
  return out;
}

const dataUrl = (mime: unknown, data: unknown) =>
  typeof data === "string" && /^(data|https?):/i.test(data) ? data : `data:${String(mime)};base64,${String(data)}`;

/**
 * The steps ai@4's convertToCoreMessages cuts an assistant message's parts into (the parts of each, in order; its
 * step-start parts say nothing to it and are left out: each step gets one when read).
 */
function v4Blocks(parts: unknown[]): unknown[][] {
  const blocks: unknown[][] = [];
  let block: unknown[] = [];
  let hasTools = false;
  let step = 0;
  const flush = () => {
    blocks.push(block);
    block = [];
    hasTools = false;
    step++;
  };
  for (const p of parts) {
    if (!isObj(p)) continue;
    if (p.type === "text") {
      if (hasTools) flush();
      block.push(p);
    } else if (p.type === "file" || p.type === "reasoning") block.push(p);
    else if (p.type === "tool-invocation") {
      const s = isObj(p.toolInvocation) ? (p.toolInvocation.step ?? 0) : 0;
      if (s !== step) flush();
      block.push(p);
      hasTools = true;
    } else if (p.type !== "step-start") block.push(p); // source, unknown: skipped by v4, kept in place
  }
  flush();
  return blocks.filter((b) => b.length > 0);
}

/** An assistant message without parts, as v4 reads content + toolInvocations. */
function legacyAssistantParts(m: Obj, isLast: boolean): Obj[] {
  const content = m.content;
  const invocations = Array.isArray(m.toolInvocations) ? (m.toolInvocations as Obj[]) : [];
  if (invocations.length === 0) return typeof content === "string" ? [{ type: "text", text: content }] : [];
  // invocations without a `step` are ai < 4.2's (one message per step, no parts): its convertToCoreMessages put the
  // message's text before its calls, whether or not the message is the chat's last
  if (invocations.every((t) => !("step" in t))) {
    const head = typeof content === "string" && content !== "" ? [{ type: "text", text: content }] : [];
    return [{ type: "step-start" }, ...head, ...invocations.map((t) => invocationToView(t))];
  }
  const maxStep = invocations.reduce((max, t) => Math.max(max, Number(t.step ?? 0)), 0);
  const parts: Obj[] = [];
  for (let s = 0; s <= maxStep; s++) {
    const calls = invocations.filter((t) => (t.step ?? 0) === s);
    if (calls.length === 0) continue;
    parts.push({ type: "step-start" });
    if (isLast && content && s === 0) parts.push({ type: "text", text: content });
    for (const t of calls) parts.push(invocationToView(t));
  }
  if (content && !isLast) parts.push({ type: "step-start" }, { type: "text", text: content });
  return parts;
}

/** Keys of a v4 message the view carries (the rest are the app's own, kept in `extra`). */
const V4_KEYS = new Set([
  "id",
  "role",
  "content",
  "createdAt",
  "parts",
  "toolInvocations",
  "experimental_attachments",
  "annotations",
  "reasoning",
]);

/** A v4 message (system, user or assistant) as a view message. `isLast`: it is the chat's last message. */
export function v4ToView(m: Obj, index: number, isLast: boolean): ViewMessage {
  const role = String(m.role);
  let parts: Obj[];
  if (role === "assistant") {
    if (Array.isArray(m.parts)) {
      parts = [];
      for (const block of v4Blocks(m.parts as unknown[])) {
        parts.push({ type: "step-start" });
        for (const p of block) parts.push(...v4PartToView(p));
      }
    } else parts = legacyAssistantParts(m, isLast);
  } else if (role === "user" && Array.isArray(m.parts)) {
    parts = (m.parts as unknown[]).flatMap((p) =>
      isObj(p) && p.type === "text" ? [{ type: "text", text: p.text }] : [],
    );
  } else parts = [{ type: "text", text: typeof m.content === "string" ? m.content : String(m.content ?? "") }];
  if (role === "user" && Array.isArray(m.experimental_attachments)) {
    for (const a of m.experimental_attachments as Obj[]) {
      const text = textAttachment(a);
      if (text !== undefined) {
        // ai@4 sends a text attachment to the model as its text: a text part, the attachment kept beside it
        parts.push({ type: "text", text, attachment: a });
        continue;
      }
      const f: Obj = { type: "file", mediaType: a.contentType ?? mediaTypeOfUrl(a.url), url: a.url };
      if (typeof a.name === "string") f.filename = a.name;
      parts.push(f);
    }
  }
  const view: ViewMessage = { id: typeof m.id === "string" ? m.id : `msg-${index}`, role, parts };
  const metadata: Obj = {};
  if (m.createdAt !== undefined) metadata.createdAt = m.createdAt;
  if (m.annotations !== undefined) metadata.annotations = m.annotations;
  if (Object.keys(metadata).length > 0) view.metadata = metadata;
  for (const k of Object.keys(m)) if (!V4_KEYS.has(k)) (view.extra ??= {})[k] = m[k];
  return view;
}

/** The text of a `text/*` attachment given as a base64 data URL, as ai@4's attachmentsToParts decodes it (UTF-8). */
function textAttachment(a: Obj): string | undefined {
  if (typeof a.contentType !== "string" || !a.contentType.startsWith("text/") || typeof a.url !== "string")
    return undefined;
  const m = /^data:[^,]*;base64,(.*)$/s.exec(a.url);
  if (!m) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.from(m[1]!, "base64"));
  } catch {
    return undefined;
  }
}

function mediaTypeOfUrl(url: unknown): string {
  const m = typeof url === "string" ? /^data:([^;,]+)/i.exec(url) : null;
  return m ? m[1]! : "application/octet-stream";
}

/** A view part as a v4 assistant part (reasoning merged by the caller). */
function viewPartToV4(p: Obj, step: number): Obj | undefined {
  if (p.type === "text") return { type: "text", text: p.text };
  if (p.type === "step-start") return { type: "step-start" };
  if (p.type === "file") {
    const m = typeof p.url === "string" ? /^data:([^;,]*)(;base64)?,(.*)$/s.exec(p.url) : null;
    return { type: "file", mimeType: p.mediaType, data: m ? m[3] : p.url };
  }
  if (p.type === "source-url") {
    const source: Obj = { sourceType: "url", id: p.sourceId, url: p.url };
    if (p.title !== undefined) source.title = p.title;
    if (p.providerMetadata !== undefined) source.providerMetadata = p.providerMetadata;
    return { type: "source", source };
  }
  if (isToolPart(p)) return { type: "tool-invocation", toolInvocation: invocationOf(p, step) };
  return undefined;
}

/** The v4 toolInvocation of a view tool part (an error's text becomes the result: v4 has no failed state). */
export function invocationOf(p: Obj, step: number): Obj {
  const s = p.state;
  const out: Obj = {
    state:
      s === "input-streaming"
        ? "partial-call"
        : s === "input-available" || String(s).startsWith("approval-")
          ? "call"
          : "result",
    step,
    args: p.input,
    toolCallId: p.toolCallId,
    toolName: toolNameOf(p),
  };
  if (s === "output-available") out.result = p.output;
  else if (s === "output-error") out.result = p.errorText;
  else if (s === "output-denied")
    out.result = isObj(p.approval) && p.approval.reason !== undefined ? p.approval.reason : "denied";
  return out;
}

/** Consecutive reasoning view parts as one v4 reasoning part, as appendResponseMessages writes them. */
function mergeReasoning(run: Obj[]): Obj {
  const details = run.map((r) => {
    const a = isObj(r.providerMetadata) && isObj(r.providerMetadata.anthropic) ? r.providerMetadata.anthropic : {};
    if (a.redactedData !== undefined) return { type: "redacted", data: a.redactedData };
    const d: Obj = { type: "text", text: r.text };
    if (a.signature !== undefined) d.signature = a.signature;
    return d;
  });
  return { type: "reasoning", reasoning: run.map((r) => String(r.text ?? "")).join(""), details };
}

/** The v4 parts of an assistant view message, with its last step's text and reasoning and its tool invocations. */
function assistantV4(parts: Obj[]): { parts: Obj[]; content: string; reasoning?: string; invocations: Obj[] } {
  const out: Obj[] = [];
  const invocations: Obj[] = [];
  let step = -1;
  let content = "";
  let reasoning: string | undefined;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (p.type === "step-start" || (step < 0 && p.type !== "step-start")) {
      step++;
      content = "";
      reasoning = undefined;
    }
    if (p.type === "reasoning") {
      const run: Obj[] = [];
      while (k < parts.length && parts[k]!.type === "reasoning") run.push(parts[k++]!);
      k--;
      const merged = mergeReasoning(run);
      reasoning = (reasoning ?? "") + String(merged.reasoning);
      out.push(merged);
      continue;
    }
    if (p.type === "text") content += String(p.text ?? "");
    const v = viewPartToV4(p, Math.max(step, 0));
    if (!v) continue;
    if (v.type === "tool-invocation") invocations.push(v.toolInvocation as Obj);
    out.push(v);
  }
  return { parts: out, content, ...(reasoning !== undefined ? { reasoning } : {}), invocations };
}

/** A view message as a v4 message (its metadata's createdAt and annotations back in their v4 fields). */
export function viewToV4(view: ViewMessage): Obj {
  const meta = isObj(view.metadata) ? view.metadata : {};
  // a text part read from a text attachment goes back to the attachments
  const isAttachment = (p: Obj) => p.type === "file" || (p.type === "text" && isObj(p.attachment));
  const texts = view.parts.filter((p) => p.type === "text" && !isObj(p.attachment)).map((p) => String(p.text ?? ""));
  let m: Obj;
  if (view.role === "assistant") {
    const a = assistantV4(view.parts);
    m = { role: "assistant", id: view.id };
    if (meta.createdAt !== undefined) m.createdAt = meta.createdAt;
    m.content = a.content;
    if (a.reasoning !== undefined) m.reasoning = a.reasoning;
    m.toolInvocations = a.invocations;
    m.parts = a.parts;
  } else {
    m = { id: view.id, role: view.role, content: texts.join("") };
    if (meta.createdAt !== undefined) m.createdAt = meta.createdAt;
    const files = view.parts.filter(isAttachment);
    if (view.role === "user" && files.length > 0) {
      m.experimental_attachments = files.map((f) => {
        if (f.type === "text") return f.attachment as Obj;
        const a: Obj = {};
        if (f.filename !== undefined) a.name = f.filename;
        a.contentType = f.mediaType;
        a.url = f.url;
        return a;
      });
    }
    if (view.role === "user")
      m.parts = view.parts
        .filter((p) => p.type === "text" && !isObj(p.attachment))
        .map((p) => ({ type: "text", text: p.text }));
  }
  if (meta.annotations !== undefined) m.annotations = meta.annotations;
  if (view.extra) Object.assign(m, view.extra);
  return m;
}

/** What of a view message a v4 message cannot hold: [pointer tail under the part or message, field, reason]. */
export function v4Losses(view: ViewMessage): Array<{ part?: number; field: string; reason: string }> {
  const out: Array<{ part?: number; field: string; reason: string }> = [];
  if (view.metadata !== undefined) {
    const keys = isObj(view.metadata) ? Object.keys(view.metadata) : ["(value)"];
    const other = keys.filter((k) => k !== "createdAt" && k !== "annotations");
    if (other.length > 0)
      out.push({ field: "metadata", reason: `AI SDK 4 messages have no metadata (${other.join(", ")} dropped)` });
  }
  view.parts.forEach((p, k) => {
    const t = String(p.type);
    if (view.role !== "assistant" && t !== "text" && !(view.role === "user" && t === "file"))
      out.push({
        part: k,
        field: t,
        reason: `AI SDK 4 ${view.role} messages hold text${view.role === "user" ? " and attachments" : ""} only`,
      });
    else if (
      view.role === "assistant" &&
      !["text", "reasoning", "file", "source-url", "step-start"].includes(t) &&
      !isToolPart(p)
    )
      out.push({ part: k, field: t, reason: `AI SDK 4 has no '${t}' parts` });
    else if (isToolPart(p) && p.state === "output-error")
      out.push({
        part: k,
        field: "errorText",
        reason: "AI SDK 4 tool invocations cannot fail: the error text is kept as the result",
      });
    else if (isToolPart(p) && p.state === "output-denied")
      out.push({
        part: k,
        field: "approval",
        reason: "AI SDK 4 has no tool approvals: the denial is kept as the result",
      });
    else if (isToolPart(p) && String(p.state).startsWith("approval-"))
      out.push({ part: k, field: "approval", reason: "AI SDK 4 has no tool approvals" });
    else if (p.type === "text" && p.providerMetadata !== undefined)
      out.push({ part: k, field: "providerMetadata", reason: "AI SDK 4 text parts have no provider metadata" });
  });
  return out;
}
