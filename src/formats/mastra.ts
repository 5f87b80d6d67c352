/**
 * Mastra memory thread (`mastra`): one thread of a Mastra store as savers/mastra/ reads it from the tables
 * `@mastra/libsql` and `@mastra/pg` write — the thread row, its resource (working memory) and its messages, each
 * message's content in Mastra's format 2 (`{format: 2, parts, content?, metadata?}`, AI SDK 4-style UI parts).
 *
 * Canonical mapping (everything without a canonical field travels in `ext.mastra`, so Mastra → canonical → Mastra is
 * identical):
 * - a Mastra message is one or more canonical messages: `user` and `system` messages one each; an `assistant` message
 *   (a whole turn: steps, tool calls and their results in one row) one assistant message per step (a `step-start`
 *   part begins one; its `model` is the assistant's `model`), each followed by a `toolResult` message per tool call
 *   that has a result (`tool-invocation` parts in state `result`), and a new step also begins at text that follows a
 *   tool result; the first canonical message of a row carries the row (`ext.mastra.id`, `type`, `createdAt`,
 *   `resourceId`, the content's other keys in `rest`), the others name it (`ext.mastra.of`);
 * - `text` → text; `reasoning` → thinking (its `details` kept when they are not just the text and a signature);
 *   `tool-invocation` → toolCall (`args` → arguments; the invocation's state and other keys in the block's ext) and
 *   its `result` → the toolResult's text (JSON text, `ext.mastra.json`, when not a string); `file` parts of user
 *   messages → image (an `image/*` type) or file blocks; other parts (`source`, `data-*`, `error`, …) ride along
 *   verbatim in `ext.mastra.raw` at their place; messages of other roles (`signal`) → extension messages
 *   (`kind: "mastra-message"`, the row as data);
 * - the resource's working memory → `state.workingMemory` (`{resource, text}`); the thread row and resource row in
 *   the checkpoint's `ext.mastra`.
 * Written from another format, a Mastra message takes a run of assistant and tool-result messages (one turn), each
 * assistant message after a `step-start`; what Mastra memory has no place for is reported lost.
 */
import type {
  AgentMessage,
  AssistantMessage,
  Checkpoint,
  Content,
  Ext,
  ExtensionMessage,
  ToolResultMessage,
} from "../generated/types.js";
import { inputError } from "../base/errors.js";
import { parseJson, stringifyJson } from "../base/json.js";
import { escapePtr } from "../base/pointer.js";
import { isEnvelopeFillIn, envelopeTimes } from "./envelope.js";
import { noteAt } from "./loss.js";
import type { FormatAdapter, Issue, LossSink, SourceDoc } from "./types.js";
import { jsonLocator } from "../base/json.js";
import { isUserSignal, isV1Row, v1Parts, v1Results } from "./mastra-v1.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export interface MastraRow {
  id: string;
  role: string;
  type: string;
  createdAt: string;
  resourceId?: string | null;
  content: unknown;
  [k: string]: unknown;
}

export interface MastraDocument {
  thread: {
    id: string;
    resourceId: string;
    title: string;
    metadata: unknown;
    createdAt: string;
    updatedAt: string;
    [k: string]: unknown;
  };
  resource: {
    id: string;
    workingMemory: string | null;
    metadata?: unknown;
    createdAt: string;
    updatedAt: string;
  } | null;
  messages: MastraRow[];
  unreadable?: Array<{ table: string; row: string; column: string; reason: string }>;
  [k: string]: unknown;
}

const MX = "mastra";
const mext = (o: { ext?: Ext } | undefined): Obj | undefined =>
  o?.ext && isObj(o.ext[MX]) ? (o.ext[MX] as Obj) : undefined;
const withExt = <T extends { ext?: Ext }>(o: T, e: Obj | undefined): T => {
  if (e && Object.keys(e).length) o.ext = { [MX]: e };
  return o;
};
const without = (o: Obj, keys: string[]): Obj | undefined => {
  let out: Obj | undefined;
  for (const k of Object.keys(o)) if (!keys.includes(k)) (out ??= {})[k] = o[k];
  return out;
};
const timeOf = (iso: unknown): number | undefined => {
  const t = typeof iso === "string" ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
};
const URLISH = /^(https?:|data:)/i;

// ------------------------------------------------------------------------------------------------ Mastra → canonical

/** A thread that cannot be shown as it is: a value that did not decode, or a message whose content is not format 2. */
function refuse(native: MastraDocument, doc: SourceDoc): void {
  const bad = native.unreadable?.[0];
  if (bad)
    throw inputError(
      "mastra-undecodable",
      `${bad.table} row '${bad.row}': ${bad.column} does not decode (${bad.reason}); ckpt validate lists every such row`,
      { file: doc.name },
    );
  native.messages.forEach((m, i) => {
    if (isV1Row(m)) return; // the older format (mastra-v1.ts)
    if (!isObj(m.content) || !Array.isArray(m.content.parts))
      throw inputError(
        "mastra-bad-message",
        `mastra_messages row '${m.id}': content is not Mastra's format 2 ({format: 2, parts: […]}); ckpt validate lists every such row`,
        { file: doc.name, pointer: `/messages/${i}/content` },
      );
  });
}

/** A content block from a part of a user or system message, or undefined (kept raw). */
function userBlock(p: Obj): Content | undefined {
  if (p.type === "text" && typeof p.text === "string")
    return withExt<Content>({ type: "text", text: p.text }, without(p, ["type", "text"]));
  if (p.type === "file" && typeof p.data === "string" && typeof p.mimeType === "string") {
    const src = URLISH.test(p.data) ? { url: p.data } : { data: p.data };
    const rest = without(p, ["type", "data", "mimeType", "filename"]);
    if (p.mimeType.startsWith("image/") && p.filename === undefined)
      return withExt<Content>({ type: "image", ...src, mimeType: p.mimeType }, rest);
    const f: Content = { type: "file", ...src, mimeType: p.mimeType };
    if (typeof p.filename === "string") f.filename = p.filename;
    return withExt(f, rest);
  }
  return undefined;
}

function derivedDetails(text: string, signature: string | undefined): unknown[] {
  return [{ type: "text", text, ...(signature !== undefined ? { signature } : {}) }];
}

/** What every canonical message of a row carries: the row itself (on the first), its time. */
interface RowCtx {
  id: string;
  ts: number | undefined;
  rowExt: Obj;
  at: string;
}

function rowCtx(m: MastraRow, i: number): RowCtx {
  const c = m.content as Obj;
  const rowExt: Obj = { id: m.id, type: m.type, createdAt: m.createdAt };
  if (m.resourceId !== undefined) rowExt.resourceId = m.resourceId;
  const rest = isObj(c) ? without(c, ["format", "parts"]) : undefined;
  if (rest) rowExt.rest = rest;
  const extra = without(m, ["id", "role", "type", "createdAt", "resourceId", "content"]);
  if (extra) rowExt.extra = extra;
  return { id: m.id, ts: timeOf(m.createdAt), rowExt, at: `/messages/${i}` };
}

const stampOf =
  (ts: number | undefined) =>
  <T extends { timestamp?: number }>(o: T): T => {
    if (ts !== undefined) o.timestamp = ts;
    return o;
  };

/** A user or system row: one canonical message (parts with no canonical block kept raw at their place). */
function userToCanonical(role: "user" | "system", parts: unknown[], x: RowCtx): AgentMessage {
  const content: Content[] = [];
  const raw: Obj[] = [];
  for (const p of parts) {
    const b = isObj(p) ? userBlock(p) : undefined;
    if (b) content.push(b);
    else raw.push({ at: content.length, part: p });
  }
  const e = raw.length ? { ...x.rowExt, raw } : x.rowExt;
  return stampOf(x.ts)(withExt({ role, content } as AgentMessage & { timestamp?: number }, e));
}

/** The steps of an assistant row being cut into canonical messages. */
class Steps {
  readonly messages: AgentMessage[] = [];
  readonly pointers: string[] = [];
  a: { content: Content[]; ext: Obj; model?: string; at: string } | undefined;
  results: Array<{ msg: ToolResultMessage; at: string }> = [];
  constructor(private readonly x: RowCtx) {}
  open(at = this.x.at) {
    this.a = { content: [], ext: {}, at };
    return this.a;
  }
  cur() {
    return this.a ?? this.open();
  }
  raw(p: unknown) {
    const c = this.cur();
    ((c.ext.raw ??= []) as Obj[]).push({ at: c.content.length, part: p });
  }
  flush() {
    const stamp = stampOf(this.x.ts);
    if (this.a) {
      const msg: AssistantMessage = { role: "assistant", content: this.a.content };
      if (this.a.model !== undefined) msg.model = this.a.model;
      const e = this.messages.length === 0 ? { ...this.x.rowExt, ...this.a.ext } : { of: this.x.id, ...this.a.ext };
      this.messages.push(stamp(withExt(msg, e)));
      this.pointers.push(this.a.at);
    }
    for (const r of this.results) {
      this.messages.push(stamp(withExt(r.msg, { ...mext(r.msg), of: this.x.id })));
      this.pointers.push(r.at);
    }
    this.a = undefined;
    this.results = [];
  }
}

function reasoningBlock(p: Obj & { reasoning: string }): Content {
  const d = Array.isArray(p.details) ? (p.details as Obj[]) : undefined;
  const sig = d?.length === 1 && isObj(d[0]) && typeof d[0].signature === "string" ? d[0].signature : undefined;
  const e = without(p, ["type", "reasoning", "details"]) ?? {};
  if (stringifyJson(p.details) !== stringifyJson(derivedDetails(p.reasoning, sig))) e.details = p.details ?? null;
  const b: Content = { type: "thinking", thinking: p.reasoning };
  if (sig !== undefined) b.signature = sig;
  return withExt(b, e);
}

/** A tool-invocation part: its toolCall block, and its result message when it has one. */
function toolInvocation(p: Obj, inv: Obj): { call: Content; result?: ToolResultMessage } {
  const e: Obj = { inv: without(inv, ["toolCallId", "toolName", "args", "result"]) ?? {} };
  const partRest = without(p, ["type", "toolInvocation"]);
  if (partRest) e.part = partRest;
  if (!("args" in inv)) e.noArgs = true;
  const call = withExt<Content>(
    { type: "toolCall", id: String(inv.toolCallId), name: String(inv.toolName), arguments: inv.args ?? null },
    e,
  );
  if (!("result" in inv)) return { call };
  const text = typeof inv.result === "string" ? inv.result : stringifyJson(inv.result);
  const r: ToolResultMessage = {
    role: "toolResult",
    toolCallId: String(inv.toolCallId),
    toolName: String(inv.toolName),
    content: [{ type: "text", text: text ?? "null" }],
    isError: inv.isError === true,
  };
  return { call, result: withExt(r, typeof inv.result === "string" ? undefined : { json: true }) };
}

/** An assistant row (a whole turn): one assistant message per step, each followed by its tool results. */
function assistantToCanonical(
  parts: unknown[],
  x: RowCtx,
  i: number,
): { messages: AgentMessage[]; pointers: string[] } {
  const s = new Steps(x);
  parts.forEach((p, k) => {
    const at = `/messages/${i}/content/parts/${k}`;
    if (!isObj(p)) return s.raw(p);
    if (p.type === "step-start") {
      if (s.a || s.results.length) s.flush();
      const cur = s.open();
      cur.ext.stepStart = without(p, ["type", "model"]) ?? {};
      if (typeof p.model === "string") cur.model = p.model;
      return;
    }
    if (p.type === "text" && typeof p.text === "string") {
      if (s.results.length) s.flush(); // text after a tool result: the next step
      s.cur().content.push(withExt<Content>({ type: "text", text: p.text }, without(p, ["type", "text"])));
      return;
    }
    if (p.type === "reasoning" && typeof p.reasoning === "string")
      return void s.cur().content.push(reasoningBlock(p as Obj & { reasoning: string }));
    if (p.type === "tool-invocation" && isObj(p.toolInvocation)) {
      const { call, result } = toolInvocation(p, p.toolInvocation);
      s.cur().content.push(call);
      if (result) s.results.push({ msg: result, at });
      return;
    }
    const file = p.type === "file" ? userBlock(p) : undefined;
    if (file) s.cur().content.push(file);
    else s.raw(p);
  });
  if (s.a || s.results.length || s.messages.length === 0) {
    s.cur();
    s.flush();
  }
  return { messages: s.messages, pointers: s.pointers };
}

/**
 * A format 1 row (mastra-v1.ts) as the format 2 row Mastra reads it as (and writes back); a tool row's results are
 * the tool results of the assistant row before it (`prev`).
 */
function v1RowToCanonical(
  m: MastraRow,
  x: RowCtx,
  i: number,
  prev?: string,
): { messages: AgentMessage[]; pointers: string[] } {
  x.rowExt.type = "v2";
  x.rowExt.format = 1;
  if (m.role === "user" || m.role === "system")
    return { messages: [userToCanonical(m.role, v1Parts(m.content), x)], pointers: [x.at] };
  if (m.role === "assistant") return assistantToCanonical(v1Parts(m.content), x, i);
  if (m.role !== "tool")
    return { messages: [{ role: m.role, kind: "mastra-message", data: m } as ExtensionMessage], pointers: [x.at] };
  const messages = v1Results(m.content).map((r, k) => {
    const text = typeof r.result === "string" ? r.result : stringifyJson(r.result);
    const msg: ToolResultMessage = {
      role: "toolResult",
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      content: [{ type: "text", text: text ?? "null" }],
      isError: r.isError,
    };
    const own = prev !== undefined ? { of: prev } : k === 0 ? x.rowExt : { of: m.id };
    return stampOf(x.ts)(withExt(msg, { ...own, v1: true, ...(typeof r.result === "string" ? {} : { json: true }) }));
  });
  return { messages, pointers: messages.map(() => x.at) };
}

/** The canonical messages of one Mastra row, and the pointer of each (`prev`: the assistant row just before). */
function rowToCanonical(m: MastraRow, i: number, prev?: string): { messages: AgentMessage[]; pointers: string[] } {
  const x = rowCtx(m, i);
  if (isV1Row(m)) return v1RowToCanonical(m, x, i, prev);
  const parts = (m.content as Obj).parts as unknown[];
  if (m.role === "user" || m.role === "system")
    return { messages: [userToCanonical(m.role, parts, x)], pointers: [x.at] };
  if (isUserSignal(m)) {
    // a turn the user wrote, persisted as a signal (Mastra 1.51+): the user's message, written back as the signal
    x.rowExt.role = "signal";
    return { messages: [userToCanonical("user", parts, x)], pointers: [x.at] };
  }
  if (m.role === "assistant") return assistantToCanonical(parts, x, i);
  const ext: ExtensionMessage = { role: m.role, kind: "mastra-message", data: m };
  return { messages: [ext], pointers: [x.at] };
}

function convertAll(native: MastraDocument): { messages: AgentMessage[]; pointers: string[] } {
  const messages: AgentMessage[] = [];
  const pointers: string[] = [];
  let prev: string | undefined;
  native.messages.forEach((m, i) => {
    const r = rowToCanonical(m, i, prev);
    messages.push(...r.messages);
    pointers.push(...r.pointers);
    prev = m.role === "assistant" ? m.id : m.role === "tool" ? prev : undefined;
  });
  return { messages, pointers };
}

// ------------------------------------------------------------------------------------------------ canonical → Mastra

/** A run of canonical messages that becomes one Mastra row, with the index of its first message. */
interface Group {
  start: number;
  items: AgentMessage[];
}

/** Group canonical messages into rows: by `ext.mastra` where they carry it, else one turn of assistant and tool results. */
function groups(cp: Checkpoint): Group[] {
  const out: Group[] = [];
  cp.messages.forEach((m, i) => {
    const e = mext(m);
    const last = out[out.length - 1];
    const lastRole = last?.items[0]?.role;
    const joins =
      e?.of !== undefined
        ? last !== undefined && mext(last.items[0])?.id === e.of
        : e === undefined &&
          (m.role === "assistant" || m.role === "toolResult") &&
          lastRole === "assistant" &&
          mext(last!.items[0]) === undefined;
    if (joins) last!.items.push(m);
    else out.push({ start: i, items: [m] });
  });
  return out;
}

function blockToPart(b: Content, lossy: LossSink, at: number, k: number): Obj | undefined {
  const e = mext(b);
  if (b.type === "text") return { type: "text", text: b.text, ...e };
  if (b.type === "image" || b.type === "file") {
    const p: Obj = { type: "file", mimeType: b.mimeType, data: b.data ?? b.url };
    if (b.type === "file" && b.filename !== undefined) p.filename = b.filename;
    return { ...p, ...e };
  }
  if (b.type === "thinking") {
    const { details, ...rest } = e ?? {};
    return {
      type: "reasoning",
      reasoning: b.thinking,
      details: details !== undefined ? details : derivedDetails(b.thinking, b.signature),
      ...rest,
    };
  }
  noteAt(lossy, at, `/content/${k}`, b.type, `Mastra memory has no ${b.type} block here`);
  return undefined;
}

function contentParts(m: { content: Content[]; ext?: Ext }, lossy: LossSink, at: number, parts: Obj[]): void {
  const raw = ((mext(m)?.raw as Array<{ at: number; part: Obj }> | undefined) ?? []).slice();
  m.content.forEach((b, k) => {
    while (raw.length && raw[0]!.at <= k) parts.push(raw.shift()!.part);
    if (b.type === "toolCall") {
      const e = mext(b) ?? {};
      const inv: Obj = { state: "call", ...(e.inv as Obj | undefined), toolCallId: b.id, toolName: b.name };
      if (!e.noArgs) inv.args = b.arguments;
      parts.push({ type: "tool-invocation", toolInvocation: inv, ...(e.part as Obj | undefined) });
      if (b.providerMetadata !== undefined)
        noteAt(
          lossy,
          at,
          `/content/${k}/providerMetadata`,
          "providerMetadata",
          "Mastra keeps no provider data on a tool call",
        );
      return;
    }
    const p = blockToPart(b, lossy, at, k);
    if (p) parts.push(p);
  });
  for (const r of raw) parts.push(r.part);
}

function toolResultInto(r: ToolResultMessage, parts: Obj[], lossy: LossSink, at: number): void {
  const inv = [...parts]
    .reverse()
    .find((p) => p.type === "tool-invocation" && (p.toolInvocation as Obj).toolCallId === r.toolCallId)
    ?.toolInvocation as Obj | undefined;
  const e = mext(r);
  // results go back in the order of their calls: one out of that order would come back elsewhere
  const firstOpen = e
    ? undefined
    : parts.find((p) => p.type === "tool-invocation" && !("result" in (p.toolInvocation as Obj)));
  if (!e && inv && firstOpen && firstOpen.toolInvocation !== inv)
    noteAt(
      lossy,
      at,
      "",
      "toolResult",
      "Mastra keeps a tool result on its call: a result out of its calls' order comes back in that order",
    );
  const text = r.content.length === 1 && r.content[0]!.type === "text" ? r.content[0]!.text : undefined;
  if (!inv || text === undefined || "result" in inv) {
    noteAt(
      lossy,
      at,
      "",
      "toolResult",
      inv
        ? "Mastra keeps a tool result as one value: this one has other content than one text"
        : "Mastra keeps a tool result on its call: this result has no call before it in the turn",
    );
    return;
  }
  inv.result = e?.json ? parseJson(text) : text;
  if (!e || e.v1) {
    inv.state = "result";
    if (r.isError) inv.isError = true;
  }
}

const ASSISTANT_LOST: Array<[keyof AssistantMessage, string]> = [
  ["errorMessage", "Mastra memory keeps no error message on a turn"],
  ["provider", "Mastra memory keeps no provider on a step"],
  ["stopReason", "Mastra memory keeps no stop reason"],
  ["usage", "Mastra memory keeps no token usage"],
];

const EPOCH = new Date(0).toISOString();
/** A time in milliseconds as ISO 8601, or undefined past the range of a JavaScript Date. */
const isoOf = (ms: number): string | undefined => {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

function groupToRow(g: Group, cp: Checkpoint, lossy: LossSink): MastraRow | undefined {
  const first = g.items[0]!;
  const e = mext(first);
  if (!("content" in first) && first.role !== "toolResult") {
    const x = first as ExtensionMessage;
    if (x.kind === "mastra-message" && isObj(x.data)) return x.data as MastraRow;
    noteAt(lossy, g.start, "", x.role, "Mastra memory has no extension messages");
    return undefined;
  }
  const parts: Obj[] = [];
  g.items.forEach((m, j) => {
    const at = g.start + j;
    if (m.role === "toolResult") return toolResultInto(m as ToolResultMessage, parts, lossy, at);
    const msg = m as AssistantMessage;
    if (m.role === "assistant") {
      const me = mext(m);
      if (me === undefined || me.stepStart !== undefined)
        parts.push({
          type: "step-start",
          ...(me?.stepStart as Obj | undefined),
          ...(msg.model !== undefined ? { model: msg.model } : {}),
        });
      else if (msg.model !== undefined)
        noteAt(lossy, at, "/model", "model", "Mastra keeps a model only on a step start");
      for (const [k, why] of ASSISTANT_LOST) if (msg[k] !== undefined) noteAt(lossy, at, `/${k}`, k, why);
    }
    contentParts(msg, lossy, at, parts);
  });
  if (first.role === "toolResult") return undefined; // a result without its call: noted by toolResultInto
  const role = e?.role === "signal" ? "signal" : first.role;
  const ts = (first as { timestamp?: number }).timestamp;
  const fallback = isoOf(Date.parse(envelopeTimes(cp).createdAt ?? "") || 0) ?? EPOCH;
  let when = typeof e?.createdAt === "string" ? e.createdAt : fallback;
  if (typeof e?.createdAt !== "string" && ts !== undefined) {
    const iso = isoOf(Number(ts) || 0);
    // a time past what a JavaScript Date holds (±8.64e15 ms: ±275,760 years) cannot be a row's createdAt
    if (iso === undefined)
      noteAt(lossy, g.start, "/timestamp", "timestamp", `timestamp ${ts} is outside the dates a Mastra row can hold`);
    when = iso ?? fallback;
  }
  const text = parts.filter((p) => p.type === "text").map((p) => p.text as string);
  // Mastra's own `content` string: the row's as it was, else (another format) the text, as Mastra writes it
  const rest = e ? ((e.rest as Obj | undefined) ?? {}) : text.length ? { content: text.join("") } : {};
  const row: MastraRow = {
    id: typeof e?.id === "string" ? e.id : `${cp.threadId}-${g.start}`,
    role,
    type: typeof e?.type === "string" ? e.type : "v2",
    createdAt: when,
    ...(e && "resourceId" in e ? { resourceId: e.resourceId as string | null } : {}),
    content: { format: 2, parts, ...rest },
    ...(e?.extra as Obj | undefined),
  };
  return row;
}

// ------------------------------------------------------------------------------------------------ adapter

export const mastraAdapter: FormatAdapter<MastraDocument> = {
  name: "mastra",
  title: "Mastra memory thread (mastra_threads / mastra_messages / mastra_resources rows; content format 2)",
  extensions: [".json"],
  lossy: [
    "assistant usage, stopReason, provider, errorMessage",
    "tool results other than one text",
    "extension messages",
    "checkpoint state other than workingMemory (todos, files, …) and the interrupt",
    "origin and ext of other formats",
  ],
  schema: "formats/mastra/thread",
  detectNeeds: { first: "{", anyOf: ['"resourceId"'] },
  detect(doc) {
    const t = doc.text;
    if (t === undefined || !/^\s*\{/.test(t)) return { confidence: 0 };
    if (
      /"thread"\s*:\s*\{/.test(t) &&
      /"resourceId"\s*:/.test(t) &&
      /"messages"\s*:\s*\[/.test(t) &&
      /"resource"\s*:/.test(t)
    )
      return { confidence: 0.95 };
    return { confidence: 0 };
  },
  parse(doc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a Mastra thread document is a single JSON value", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!isObj(v) || !isObj(v.thread) || !Array.isArray(v.messages))
      throw inputError("not-an-object", "expected a Mastra thread {thread, resource, messages}", {
        file: doc.name,
        line: 1,
        column: 1,
      });
    return v as MastraDocument;
  },
  toCanonical(native, doc) {
    refuse(native, doc);
    const { messages } = convertAll(native);
    const t = native.thread;
    const state: Checkpoint["state"] = {};
    if (native.resource?.workingMemory != null)
      state.workingMemory = { resource: native.resource.id, text: native.resource.workingMemory };
    const ext: Obj = { thread: without(t, ["id"]) ?? {}, resource: native.resource };
    const extra = without(native, ["thread", "resource", "messages", "unreadable"]);
    if (extra) ext.extra = extra;
    return {
      schemaVersion: 1,
      threadId: t.id,
      step: messages.filter((m) => m.role === "assistant").length,
      messages,
      state,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      origin: { format: "mastra" },
      ext: { [MX]: ext },
    };
  },
  fromCanonical(cp, { lossy }) {
    const e = mext(cp);
    for (const k of Object.keys(cp.ext ?? {})
      .filter((k) => k !== MX)
      .sort())
      lossy.push({
        pointer: `/ext/${escapePtr(k)}`,
        field: k,
        reason: `Mastra memory cannot carry ${k}-specific data`,
      });
    if (cp.interrupt !== undefined)
      lossy.push({ pointer: "/interrupt", field: "interrupt", reason: "Mastra memory keeps no pending interrupt" });
    const messages: MastraRow[] = [];
    // Mastra orders a thread's messages by createdAt alone: rows written from another format (one time for a whole
    // conversation, or none) get strictly increasing times, a millisecond apart where they would tie
    let last = Number.NEGATIVE_INFINITY;
    for (const g of groups(cp)) {
      const row = groupToRow(g, cp, lossy);
      if (!row) continue;
      const t = Date.parse(row.createdAt);
      if (mext(g.items[0]) === undefined && Number.isFinite(t) && t <= last)
        row.createdAt = isoOf(last + 1) ?? row.createdAt;
      last = Math.max(last, Date.parse(row.createdAt));
      messages.push(row);
    }
    const { workingMemory, ...rest } = cp.state as { workingMemory?: { resource?: string; text?: string } };
    // (an empty list or map — deep-agent's todos and files of a run that made none — holds nothing to lose)
    const empty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0);
    for (const k of Object.keys(rest).sort())
      if (!empty((rest as Obj)[k]))
        lossy.push({ pointer: `/state/${escapePtr(k)}`, field: k, reason: "Mastra memory keeps only working memory" });
    const times = envelopeTimes(cp);
    const epoch = new Date(0).toISOString();
    const t = (e?.thread as Obj | undefined) ?? {};
    const resourceId = typeof t.resourceId === "string" ? t.resourceId : (workingMemory?.resource ?? cp.threadId);
    const thread = {
      id: cp.threadId,
      resourceId,
      title: typeof t.title === "string" ? t.title : "",
      metadata: "metadata" in t ? t.metadata : null,
      createdAt: cp.createdAt ?? times.createdAt ?? epoch,
      updatedAt: cp.updatedAt ?? times.updatedAt ?? epoch,
      ...without(t, ["resourceId", "title", "metadata", "createdAt", "updatedAt"]),
    };
    let resource = (e && "resource" in e ? e.resource : null) as MastraDocument["resource"];
    if (workingMemory && typeof workingMemory.text === "string") {
      const id = workingMemory.resource ?? resourceId;
      resource =
        resource && resource.id === id
          ? { ...resource, workingMemory: workingMemory.text }
          : {
              id,
              workingMemory: workingMemory.text,
              metadata: {},
              createdAt: thread.createdAt,
              updatedAt: thread.updatedAt,
            };
    }
    const out: MastraDocument = { thread, resource, messages };
    return { ...out, ...(e?.extra as Obj | undefined) };
  },
  lint(native, doc) {
    const issues: Issue[] = [];
    const loc = doc.text !== undefined ? jsonLocator(doc.text) : undefined;
    const add = (pointer: string, rule: string, message: string) => {
      const at = loc?.locate(pointer);
      issues.push({ severity: "error", rule, message, pointer, file: doc.name, line: at?.line, column: at?.column });
    };
    // a message content that is not JSON is the message's finding (below); other values that did not decode here
    const why = new Map<string, string>();
    (native.unreadable ?? []).forEach((u, k) => {
      if (u.table === "mastra_messages" && u.column === "content") why.set(u.row, u.reason);
      else
        add(
          `/unreadable/${k}`,
          "mastra/undecodable",
          `${u.table} row '${u.row}': ${u.column} does not decode: ${u.reason}`,
        );
    });
    (Array.isArray(native.messages) ? native.messages : []).forEach((m, i) => {
      if (!isObj(m)) return;
      const c = m.content;
      if (isV1Row(m) && !why.has(String(m.id))) return; // the older format: read as Mastra reads it (mastra-v1.ts)
      if (!isObj(c) || c.format !== 2 || !Array.isArray(c.parts))
        add(
          `/messages/${i}/content`,
          "mastra/damaged-message",
          `mastra_messages row '${String(m.id)}' (message ${i + 1} of the thread): content is ${typeof c === "string" ? `not JSON (${why.get(String(m.id)) ?? "a string"})` : "not Mastra's format 2 ({format: 2, parts: […]})"}`,
        );
    });
    return issues;
  },
  messagePointers: (native) =>
    native.messages.every((m) => isV1Row(m) || (isObj(m.content) && Array.isArray((m.content as Obj).parts)))
      ? convertAll(native).pointers
      : native.messages.map((_, i) => `/messages/${i}`),
  fillIns: {
    checkpoint: (pointer, value, source) => isEnvelopeFillIn(pointer, value, source),
  },
  serialize: (native) => ({ text: stringifyJson(native, 2) }),
};
