/**
 * Shared code of the Rust-family adapters (yoagent, yoagent-session, phi-core, phi-core-session): the message
 * codec between serde's `AgentMessage` JSON and the canonical `AgentMessage`, for both dialects.
 *
 * Lossless-by-construction: whatever the canonical model has no field for is kept in `ext[<format>]`:
 * - `ext[f].unknown`  keys the loader ignores (serde has no deny_unknown_fields), in document order;
 * - `ext[f].role`     an extension message's native role when it is an LLM role (the canonical extension role
 *                     cannot be one);
 * - `ext[f]._layout`  presentation only (which keys were spelled snake_case, which Option keys were written as
 *                     `null`, which defaulted usage keys were absent). Conversions never report `_layout` as lost.
 * phi-core's LlmMessage extras (`turnId`, `nodeId`, `parentId`, `tags`, `provenanceHint`) travel verbatim in
 * `ext["phi-core"]`.
 */
import type { AgentMessage, Checkpoint, Content } from "../generated/types.js";
import type { FillIns, FormatName, Issue, LintMessage, LossSink, SourceDoc } from "./types.js";
import { inputError } from "../base/errors.js";
import { hasLongDigitRun, jsonLocator, parseJson } from "../base/json.js";

type Json = unknown;
type Obj = Record<string, Json>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The two message dialects: yoagent (camelCase ≥ 0.13, snake_case aliases) and phi-core (yoagent < 0.13 leaves + extras). */
export interface Dialect {
  format: "yoagent" | "phi-core";
  /** stop reasons the loader accepts */
  stopReasons: ReadonlySet<string>;
}

export const YOAGENT_STOP = new Set(["stop", "length", "toolUse", "error", "aborted", "refusal"]);
export const PHI_STOP = new Set([
  "stop",
  "length",
  "toolUse",
  "error",
  "aborted",
  "maxTurns",
  "userStop",
  "handoff",
  "guardRail",
  "contextCompacted",
  "paused",
]);
export const YOAGENT: Dialect = { format: "yoagent", stopReasons: YOAGENT_STOP };
export const PHI: Dialect = { format: "phi-core", stopReasons: PHI_STOP };

export const LLM_ROLES = new Set(["user", "assistant", "toolResult"]);
export const PHI_EXTRAS = ["turnId", "nodeId", "parentId", "tags", "provenanceHint"] as const;
/** kind of the extension message that carries a canonical system message in formats without a system role */
export const SYSTEM_KIND = "ckpt.system";

/** camelCase field → its < 0.13 snake_case alias (yoagent reads both; phi-core only knows the snake ones). */
const USAGE_ALIASES: Record<string, string> = {
  cacheRead: "cache_read",
  cacheWrite: "cache_write",
  totalTokens: "total_tokens",
};

interface Layout {
  /** native keys (relative paths like "usage/cache_read", "content/2/provider_metadata") spelled snake_case */
  snake?: string[];
  /** native keys written as explicit null (Option = None) */
  nulls?: string[];
  /** usage keys with a serde default that were absent */
  absent?: string[];
}

/** Per-message reading context: collects layout facts and tells which spelling the document uses. */
interface ReadCtx {
  layout: Layout;
}

function note(ctx: ReadCtx, kind: keyof Layout, path: string) {
  (ctx.layout[kind] ??= []).push(path);
}

function extOf(dialect: Dialect, unknown: Obj | undefined, layout: Layout | undefined, more?: Obj): Obj | undefined {
  // built only when there is something to keep (most messages have nothing): no object per message otherwise
  let e: Obj | undefined = more;
  if (unknown) (e ??= {}).unknown = unknown; // splitKnown gives undefined, never {}, when every key is known
  if (layout && (layout.snake || layout.nulls || layout.absent)) (e ??= {})._layout = layout;
  return e ? { [dialect.format]: e } : undefined;
}

function splitKnown(o: Obj, known: ReadonlySet<string>): Obj | undefined {
  let out: Obj | undefined;
  for (const k of Object.keys(o)) {
    if (!known.has(k)) (out ??= {})[k] = o[k];
  }
  return out;
}

// ---- native → canonical ------------------------------------------------------------------------------

const CONTENT_KEYS: Record<string, string[]> = {
  text: ["type", "text"],
  image: ["type", "data", "mimeType"],
  thinking: ["type", "thinking", "signature"],
  toolCall: ["type", "id", "name", "arguments", "providerMetadata", "provider_metadata"],
};

/** Known keys per content type and dialect, built once (phi-core tool calls have no providerMetadata). */
const CONTENT_KNOWN: Record<Dialect["format"], Record<string, ReadonlySet<string>>> = {
  yoagent: Object.fromEntries(Object.entries(CONTENT_KEYS).map(([t, ks]) => [t, new Set(ks)])),
  "phi-core": Object.fromEntries(
    Object.entries(CONTENT_KEYS).map(([t, ks]) => [
      t,
      new Set(ks.filter((k) => k !== "providerMetadata" && k !== "provider_metadata")),
    ]),
  ),
};
const TYPE_ONLY: ReadonlySet<string> = new Set(["type"]);

function contentToCanonical(b: Obj, d: Dialect): Content {
  const type = b.type as string;
  let layout: Layout | undefined;
  const known = CONTENT_KNOWN[d.format][type] ?? TYPE_ONLY;
  const unknown = splitKnown(b, known);
  let out: Obj;
  switch (type) {
    case "text":
      out = { type, text: b.text };
      break;
    case "image":
      out = { type, data: b.data, mimeType: b.mimeType };
      break;
    case "thinking":
      out = { type, thinking: b.thinking };
      if (typeof b.signature === "string") out.signature = b.signature;
      else if (b.signature === null) ((layout ??= {}).nulls ??= []).push("signature");
      break;
    case "toolCall": {
      out = { type, id: b.id, name: b.name, arguments: b.arguments };
      if (known.has("providerMetadata")) {
        const key = "provider_metadata" in b ? "provider_metadata" : "providerMetadata";
        if (key === "provider_metadata") ((layout ??= {}).snake ??= []).push(key);
        if (b[key] === null) ((layout ??= {}).nulls ??= []).push(key);
        else if (key in b) out.providerMetadata = b[key];
      }
      break;
    }
    default:
      out = { ...b };
  }
  if (unknown || layout) {
    const ext = extOf(d, unknown, layout);
    if (ext) out.ext = ext;
  }
  return out as unknown as Content;
}

function contentArray(v: Json, d: Dialect): Content[] {
  return Array.isArray(v) ? v.map((b) => contentToCanonical(b as Obj, d)) : [];
}

/** Is this native object read as an LLM message (as opposed to an extension) by serde's untagged AgentMessage? */
export function isLlmMessage(m: Obj): boolean {
  return (
    LLM_ROLES.has(m.role as string) && Array.isArray(m.content) && !("kind" in m && "data" in m && !("timestamp" in m))
  );
}

const MESSAGE_KEYS: Record<string, string[]> = {
  user: ["role", "content", "timestamp"],
  assistant: [
    "role",
    "content",
    "stopReason",
    "model",
    "provider",
    "usage",
    "timestamp",
    "errorMessage",
    "error_message",
  ],
  toolResult: ["role", "toolCallId", "toolName", "content", "isError", "timestamp"],
};
/** Known message keys per role and dialect (phi-core: no errorMessage alias, plus the LlmMessage extras). */
const MESSAGE_KNOWN: Record<Dialect["format"], Record<string, ReadonlySet<string>>> = {
  yoagent: Object.fromEntries(Object.entries(MESSAGE_KEYS).map(([r, ks]) => [r, new Set(ks)])),
  "phi-core": Object.fromEntries(
    Object.entries(MESSAGE_KEYS).map(([r, ks]) => [
      r,
      new Set([...ks.filter((k) => k !== "errorMessage"), ...PHI_EXTRAS]),
    ]),
  ),
};
const EXTENSION_KEYS: ReadonlySet<string> = new Set(["role", "kind", "data"]);
const USAGE_KNOWN: Record<Dialect["format"], ReadonlySet<string>> = {
  yoagent: new Set([
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "totalTokens",
    "cache_read",
    "cache_write",
    "total_tokens",
  ]),
  "phi-core": new Set(["input", "output", "reasoning", "cache_read", "cache_write", "total_tokens"]),
};

function usageToCanonical(u: Obj, d: Dialect, ctx: ReadCtx): { usage: Obj; unknown: Obj | undefined } {
  const out: Obj = { input: u.input, output: u.output };
  if (d.format === "phi-core") {
    if ("reasoning" in u) out.reasoning = u.reasoning;
    else note(ctx, "absent", "usage/reasoning");
  }
  for (const camel in USAGE_ALIASES) {
    const snake = USAGE_ALIASES[camel]!;
    const useSnake = snake in u;
    const key = d.format === "phi-core" || useSnake ? snake : camel;
    if (key in u) {
      out[camel] = u[key];
      if (d.format === "yoagent" && useSnake) note(ctx, "snake", `usage/${snake}`);
    } else note(ctx, "absent", `usage/${camel}`);
  }
  return { usage: out, unknown: splitKnown(u, USAGE_KNOWN[d.format]) };
}

/** One native message (either dialect) → canonical AgentMessage. */
export function messageToCanonical(m: Obj, d: Dialect): AgentMessage {
  if (!isLlmMessage(m)) {
    if (
      m.role === "system" &&
      m.kind === SYSTEM_KIND &&
      isObj(m.data) &&
      Array.isArray(m.data.content) &&
      Object.keys(m).length === 3
    ) {
      return { role: "system", content: contentArray(m.data.content, d) } as AgentMessage;
    }
    const out: Obj = { role: m.role, kind: m.kind, data: m.data };
    const unknown = splitKnown(m, EXTENSION_KEYS);
    let more: Obj | undefined;
    if (typeof m.role !== "string" || LLM_ROLES.has(m.role) || m.role === "system") {
      out.role = "extension";
      more = { role: m.role };
    }
    const ext = extOf(d, unknown, undefined, more);
    if (ext) out.ext = ext;
    return out as unknown as AgentMessage;
  }
  const ctx: ReadCtx = { layout: {} };
  const role = m.role as string;
  const known = MESSAGE_KNOWN[d.format][role]!;
  const out: Obj = { role, content: contentArray(m.content, d) };
  let usageUnknown: Obj | undefined;
  if (role === "toolResult") {
    out.toolCallId = m.toolCallId;
    out.toolName = m.toolName;
    out.isError = m.isError;
  }
  if (role === "assistant") {
    out.stopReason = m.stopReason;
    out.model = m.model;
    out.provider = m.provider;
    if (isObj(m.usage)) {
      const u = usageToCanonical(m.usage, d, ctx);
      usageUnknown = u.unknown;
      out.usage = u.usage;
    } else out.usage = m.usage;
  }
  out.timestamp = m.timestamp;
  if (role === "assistant") {
    const key =
      d.format === "phi-core" || ("error_message" in m && !("errorMessage" in m)) ? "error_message" : "errorMessage";
    if (d.format === "yoagent" && key === "error_message" && key in m) note(ctx, "snake", "error_message");
    if (typeof m[key] === "string") out.errorMessage = m[key];
    else if (m[key] === null) note(ctx, "nulls", key);
  }
  const unknown = splitKnown(m, known);
  let more: Obj | undefined;
  if (d.format === "phi-core") for (const k of PHI_EXTRAS) if (k in m) (more ??= {})[k] = m[k];
  if (usageUnknown) (more ??= {}).usageUnknown = usageUnknown;
  const ext = extOf(d, unknown, ctx.layout, more);
  if (ext) out.ext = ext;
  return out as unknown as AgentMessage;
}

// ---- lint view (the canonical fields the generic lints read, without building the checkpoint) -----------

/** `messageToCanonical(m, d)` reduced to role, timestamp, assistant content, tool result id and usage. */
export function messageLintView(m: Obj, d: Dialect): LintMessage {
  if (!isLlmMessage(m)) {
    if (
      m.role === "system" &&
      m.kind === SYSTEM_KIND &&
      isObj(m.data) &&
      Array.isArray(m.data.content) &&
      Object.keys(m).length === 3
    )
      return { role: "system" };
    return { role: typeof m.role !== "string" || LLM_ROLES.has(m.role) || m.role === "system" ? "extension" : m.role };
  }
  // role, timestamp, content and toolCallId are the native ones: only a usage object needs renaming
  if (m.role === "assistant" && isObj(m.usage))
    return { role: m.role, timestamp: m.timestamp, content: m.content, usage: usageLintView(m.usage, d) };
  return m;
}

/**
 * `usageToCanonical` without the layout and unknown-key bookkeeping, as one fixed shape (a field the canonical
 * usage would not have is undefined here).
 */
function usageLintView(u: Obj, d: Dialect): Obj {
  const phi = d.format === "phi-core";
  return {
    input: u.input,
    output: u.output,
    cacheRead: phi || "cache_read" in u ? u.cache_read : u.cacheRead,
    cacheWrite: phi || "cache_write" in u ? u.cache_write : u.cacheWrite,
    totalTokens: phi || "total_tokens" in u ? u.total_tokens : u.totalTokens,
    reasoning: phi ? u.reasoning : undefined,
  };
}

// ---- canonical → native ------------------------------------------------------------------------------

export interface WriteCtx {
  dialect: Dialect;
  /** write the < 0.13 snake_case spelling (yoagent); phi-core is always snake for its snake fields */
  snake: boolean;
  /** follow each message's recorded spelling (`_layout.snake`); false when a version was asked for explicitly */
  keepSpelling?: boolean;
  lossy: LossSink;
  /** epoch ms used where the target requires a timestamp the source did not have */
  defaultTimestamp: number | bigint;
}

function lose(ctx: WriteCtx, pointer: string, field: string, reason: string) {
  ctx.lossy.push({ pointer, field, reason });
}

function ownExt(x: { ext?: Obj } | Obj, d: Dialect): Obj {
  const e = (x as { ext?: Obj }).ext;
  return isObj(e) && isObj(e[d.format]) ? (e[d.format] as Obj) : {};
}

function layoutOf(own: Obj): Layout {
  return isObj(own._layout) ? (own._layout as Layout) : {};
}

function contentToNative(c: Content, ctx: WriteCtx, ptr: string): Obj | undefined {
  const d = ctx.dialect;
  const b = c as unknown as Obj;
  const own = ownExt(b, d);
  const layout = layoutOf(own);
  let out: Obj;
  switch (b.type) {
    case "text":
      out = { type: "text", text: b.text };
      break;
    case "image":
      if (typeof b.data !== "string") {
        lose(ctx, ptr, "image.url", `${d.format} images are inline base64 only: an image given by URL is dropped`);
        return undefined;
      }
      if (b.url !== undefined)
        lose(ctx, `${ptr}/url`, "image.url", `${d.format} images have no URL: kept the inline data only`);
      out = { type: "image", data: b.data, mimeType: b.mimeType };
      break;
    case "thinking":
      out = { type: "thinking", thinking: b.thinking };
      if (b.signature !== undefined) out.signature = b.signature;
      else if (layout.nulls?.includes("signature")) out.signature = null;
      break;
    case "toolCall": {
      out = { type: "toolCall", id: b.id, name: b.name, arguments: b.arguments };
      if (d.format === "yoagent") {
        const key =
          ctx.snake || (ctx.keepSpelling && layout.snake?.includes("provider_metadata"))
            ? "provider_metadata"
            : "providerMetadata";
        if (b.providerMetadata !== undefined) out[key] = b.providerMetadata;
        else if (layout.nulls?.length) out[layout.nulls[0]!] = null;
      } else if (b.providerMetadata !== undefined) {
        lose(
          ctx,
          `${ptr}/providerMetadata`,
          "toolCall.providerMetadata",
          "phi-core tool calls have no providerMetadata (e.g. a Gemini thought signature is lost)",
        );
      }
      break;
    }
    case "file":
      lose(ctx, ptr, "content.file", `${d.format} has no file attachments (only text, image, thinking, toolCall)`);
      return undefined;
    default:
      lose(ctx, ptr, `content.${String(b.type)}`, `${d.format} has no '${String(b.type)}' content blocks`);
      return undefined;
  }
  if (isObj(own.unknown)) Object.assign(out, own.unknown);
  return out;
}

function contentArrayToNative(cs: Content[] | undefined, ctx: WriteCtx, ptr: string): Obj[] {
  const out: Obj[] = [];
  (cs ?? []).forEach((c, j) => {
    const n = contentToNative(c, ctx, `${ptr}/content/${j}`);
    if (n) out.push(n);
  });
  return out;
}

const PHI_STOP_FOR: Record<string, string> = { refusal: "stop" };
const YO_STOP_FOR: Record<string, string> = {
  maxTurns: "stop",
  userStop: "aborted",
  handoff: "stop",
  guardRail: "refusal",
  contextCompacted: "stop",
  paused: "aborted",
};

function usageToNative(u: Obj | undefined, ctx: WriteCtx, ptr: string, layout: Layout, own: Obj): Obj {
  const d = ctx.dialect;
  const src = u ?? { input: 0, output: 0 };
  const absent = new Set(layout.absent ?? []);
  const out: Obj = { input: src.input ?? 0, output: src.output ?? 0 };
  if (d.format === "phi-core") {
    if (!absent.has("usage/reasoning")) out.reasoning = src.reasoning ?? 0;
  } else if (src.reasoning !== undefined && src.reasoning !== 0) {
    lose(ctx, `${ptr}/usage/reasoning`, "usage.reasoning", "yoagent usage has no reasoning token count");
  }
  const snakeSet = new Set(ctx.keepSpelling ? (layout.snake ?? []) : []);
  for (const [camel, snake] of Object.entries(USAGE_ALIASES)) {
    if (absent.has(`usage/${camel}`) && src[camel] === undefined) continue;
    const useSnake = d.format === "phi-core" || ctx.snake || snakeSet.has(`usage/${snake}`);
    out[useSnake ? snake : camel] = src[camel] ?? 0;
  }
  if (isObj(own.usageUnknown)) Object.assign(out, own.usageUnknown);
  return out;
}

/** Canonical message → native (either dialect). Returns undefined when the message cannot be written at all. */
export function messageToNative(m: AgentMessage, i: number, ctx: WriteCtx): Obj | undefined {
  const d = ctx.dialect;
  const mm = m as unknown as Obj;
  const ptr = `/messages/${i}`;
  const own = ownExt(mm, d);
  const layout = layoutOf(own);
  const role = mm.role as string;
  if (role === "system") {
    lose(
      ctx,
      ptr,
      "role",
      `${d.format} has no system role: written as an extension message (kind '${SYSTEM_KIND}') that ${d.format} never sends to the model`,
    );
    return {
      role: "system",
      kind: SYSTEM_KIND,
      data: { content: contentArrayToNative(mm.content as Content[], ctx, ptr) },
    };
  }
  if (!LLM_ROLES.has(role)) {
    const out: Obj = { role: own.role !== undefined ? own.role : role, kind: mm.kind, data: mm.data };
    if (isObj(own.unknown)) Object.assign(out, own.unknown);
    return out;
  }
  const ts = mm.timestamp ?? ctx.defaultTimestamp;
  let out: Obj;
  const content = contentArrayToNative(mm.content as Content[], ctx, ptr);
  if (role === "user") out = { role, content, timestamp: ts };
  else if (role === "toolResult") {
    out = { role, toolCallId: mm.toolCallId, toolName: mm.toolName, content, isError: mm.isError, timestamp: ts };
  } else {
    let stop = mm.stopReason as string | undefined;
    if (stop === undefined) {
      stop = (mm.content as Obj[]).some((c) => c.type === "toolCall") ? "toolUse" : "stop";
    } else if (!d.stopReasons.has(stop)) {
      const to = (d.format === "phi-core" ? PHI_STOP_FOR : YO_STOP_FOR)[stop] ?? "stop";
      lose(ctx, `${ptr}/stopReason`, "stopReason", `${d.format} has no stop reason '${stop}': written as '${to}'`);
      stop = to;
    }
    out = {
      role,
      content,
      stopReason: stop,
      model: mm.model ?? "unknown",
      provider: mm.provider ?? "unknown",
      usage: usageToNative(mm.usage as Obj | undefined, ctx, ptr, layout, own),
      timestamp: ts,
    };
    const errKey =
      d.format === "phi-core" || ctx.snake || (ctx.keepSpelling && layout.snake?.includes("error_message"))
        ? "error_message"
        : "errorMessage";
    if (mm.errorMessage !== undefined) out[errKey] = mm.errorMessage;
    else if (layout.nulls?.some((k) => k === "errorMessage" || k === "error_message"))
      out[layout.nulls.find((k) => k.startsWith("error"))!] = null;
  }
  if (d.format === "phi-core") for (const k of PHI_EXTRAS) if (k in own) out[k] = own[k];
  if (isObj(own.unknown)) Object.assign(out, own.unknown);
  return out;
}

// ---- helpers shared by the four adapters ------------------------------------------------------------

/** Recursively sort object keys (serde_json::Value without preserve_order = BTreeMap). */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObj(v)) {
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k]);
    return out;
  }
  return v;
}

/** The thread id of a document whose format carries none: the store's thread, else the file stem of its name. */
export const threadIdOfDoc = (doc: SourceDoc): string => doc.threadId ?? stemOf(doc.name);

/** The file stem of a document name ("./chats/conversation.json" → "conversation"); "<stdin>" → "stdin". */
export function stemOf(name: string): string {
  const base =
    name
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .pop() ?? name;
  const clean = base.replace(/^<(.*)>$/, "$1");
  const dot = clean.lastIndexOf(".");
  return dot > 0 ? clean.slice(0, dot) : clean;
}

export const countAssistant = (ms: ReadonlyArray<{ role: string }>) => ms.filter((m) => m.role === "assistant").length;

/** Formats whose threadId is derived from the file name (so a conversion into a file loses nothing there). */
const STEM_THREAD_FORMATS = new Set(["yoagent", "yoagent-session", "phi-core", "amacs"]);

/**
 * Report the checkpoint-level fields a message-history format cannot carry: state, interrupt, timestamps,
 * a thread id that is not a file stem, a step that is not the assistant count.
 */
export function reportEnvelopeLoss(
  cp: Checkpoint,
  target: FormatName,
  lossy: LossSink,
  carries: { timestamps?: boolean; threadId?: boolean } = {},
) {
  const state = (cp.state ?? {}) as Obj;
  for (const [k, v] of Object.entries(state)) {
    const empty =
      v === undefined ||
      v === null ||
      (Array.isArray(v) && v.length === 0) ||
      (isObj(v) && Object.keys(v).length === 0);
    if (!empty)
      lossy.push({
        pointer: `/state/${escapePtr(k)}`,
        field: `state.${k}`,
        reason: `${target} has no agent state: '${k}' is dropped`,
      });
  }
  if (cp.interrupt !== undefined)
    lossy.push({ pointer: "/interrupt", field: "interrupt", reason: `${target} cannot record a pending interrupt` });
  if (!carries.timestamps) {
    for (const k of ["createdAt", "updatedAt"] as const) {
      if (cp[k] !== undefined) lossy.push({ pointer: `/${k}`, field: k, reason: `${target} has no checkpoint ${k}` });
    }
  }
  if (!carries.threadId && cp.origin && !STEM_THREAD_FORMATS.has(cp.origin.format)) {
    lossy.push({
      pointer: "/threadId",
      field: "threadId",
      reason: `${target} has no thread id (the file name stands for it): '${cp.threadId}' is dropped`,
    });
  }
  const assistants = countAssistant(cp.messages as { role: string }[]);
  if (cp.step !== assistants) {
    lossy.push({
      pointer: "/step",
      field: "step",
      reason: `${target} has no step counter (it is read back as the number of assistant messages, ${assistants}): step ${cp.step} is dropped`,
    });
  }
}

export { escapePtr } from "../base/pointer.js";
import { escapePtr } from "../base/pointer.js";

/**
 * What `messageToNative` writes where the canonical message has nothing (the Rust types require them): model and
 * provider "unknown", zero token counts, the stop reason the content implies, the checkpoint's default timestamp.
 */
export const RUST_FILL_INS: FillIns = {
  message(path, value, m, source) {
    if (path === "model" || path === "provider") return value === "unknown";
    if (path === "usage") return isObj(value) && Object.values(value).every((v) => v === 0);
    if (path.startsWith("usage/")) return value === 0;
    if (path === "stopReason") {
      const content = (m as { content?: unknown }).content;
      const calls = Array.isArray(content) && content.some((c) => isObj(c) && c.type === "toolCall");
      return value === (calls ? "toolUse" : "stop");
    }
    if (path === "timestamp")
      return (typeof value === "number" || typeof value === "bigint") && Number(value) === defaultTimestampOf(source);
    return false;
  },
};

/** Epoch ms to use where a target needs a timestamp the source lacks: the checkpoint's own time, else 0. */
export function defaultTimestampOf(cp: Checkpoint): number {
  for (const s of [cp.updatedAt, cp.createdAt]) {
    const t = s ? Date.parse(s) : NaN;
    if (Number.isFinite(t)) return t;
  }
  return 0;
}

/** Text of a document that must be a single file. */
export function singleText(doc: SourceDoc, format: string): string {
  if (doc.text === undefined)
    throw inputError("not-a-file", `a ${format} document is a single file, not a folder`, { file: doc.name });
  return doc.text;
}

// ---- detection --------------------------------------------------------------------------------------

const SNIFF_BYTES = 64 * 1024;
const CAMEL_KEYS = /"(cacheRead|cacheWrite|totalTokens|errorMessage|providerMetadata)"\s*:/;
const SNAKE_KEYS = /"(cache_read|cache_write|total_tokens|error_message)"\s*:/;
const YO_ONLY = /"provider_metadata"\s*:|"stopReason"\s*:\s*"refusal"/;
const PHI_ONLY =
  /"(turnId|nodeId|parentId|provenanceHint|reasoning)"\s*:|"stopReason"\s*:\s*"(maxTurns|userStop|handoff|guardRail|contextCompacted|paused)"/;

/** What the start of a document says about a yoagent / phi-core message array. */
export interface MessageSniff {
  yoagent: number;
  phi: number;
  /** yoagent spelling seen: "<0.13" when any snake_case alias appears, else ">=0.13" */
  yoagentVersion: string;
}

/**
 * Sniff a serde AgentMessage array: a JSON array whose first element is an object with a `role` (or written by
 * phi-core, whose LLM messages start with `"content"` because keys are sorted). Cheap: looks at the first 64 KiB.
 */
let lastSniffText: string | undefined;
let lastSniff: MessageSniff | undefined;

export function sniffMessageArray(text: string | undefined): MessageSniff {
  const none = { yoagent: 0, phi: 0, yoagentVersion: ">=0.13" };
  if (text === undefined) return none;
  // yoagent's and phi-core's detect (and yoagent's toCanonical) ask about the same text in a row
  if (text === lastSniffText) return { ...lastSniff! };
  lastSniff = sniffText(text);
  lastSniffText = text;
  return { ...lastSniff };
}

function sniffText(text: string): MessageSniff {
  const none = { yoagent: 0, phi: 0, yoagentVersion: ">=0.13" };
  const head = text.slice(0, SNIFF_BYTES);
  if (!/^\uFEFF?\s*\[/.test(head)) return none;
  if (/^\uFEFF?\s*\[\s*\]\s*$/.test(head)) return { yoagent: 0.3, phi: 0.3, yoagentVersion: ">=0.13" };
  if (!/^\uFEFF?\s*\[\s*\{/.test(head) || !/"role"\s*:/.test(head)) return none;
  // Content must be an array of typed blocks (OpenAI / AI SDK arrays use string content or other part types).
  if (!/"content"\s*:\s*\[/.test(head) && !/"kind"\s*:/.test(head)) return none;
  if (
    /"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"(tool-call|tool-result|reasoning|file)"/.test(head) ||
    /"toolCallId"\s*:\s*"[^"]*"\s*,\s*"output"/.test(head)
  )
    return none;
  const camel = CAMEL_KEYS.test(head);
  const snake = SNAKE_KEYS.test(head);
  const yoOnly = YO_ONLY.test(head);
  const phiOnly = PHI_ONLY.test(head);
  const sorted = /^\uFEFF?\s*\[\s*\{\s*"content"/.test(head);
  const yoagentVersion = snake || /"provider_metadata"\s*:/.test(head) ? "<0.13" : ">=0.13";
  // phi-core's own keys and stop reasons win: yoagent-isms in a phi-core file are keys phi-core ignores (lint warns)
  if (phiOnly) return { yoagent: 0.3, phi: 0.9, yoagentVersion };
  if (camel || yoOnly) return { yoagent: 0.9, phi: 0.3, yoagentVersion };
  // Only spellings both accept: the documented yoagent < 0.13 / phi-core ambiguity. Key order breaks the tie.
  if (sorted) return { yoagent: 0.5, phi: 0.7, yoagentVersion };
  return { yoagent: 0.6, phi: snake ? 0.6 : 0.5, yoagentVersion };
}

// ---- lint helpers -----------------------------------------------------------------------------------

/** Every integer beyond 2^53 (parsed as bigint): loaders in JavaScript would round it. */
export function unsafeIntegerIssues(v: unknown, pointer: string, out: Array<{ pointer: string; value: bigint }>): void {
  // The path is kept as segments and turned into a pointer only for a hit: the common case (no bigint anywhere)
  // builds no strings at all.
  const path: Array<string | number> = [];
  const walk = (x: unknown): void => {
    if (typeof x === "bigint")
      out.push({
        pointer: pointer + path.map((s) => "/" + (typeof s === "number" ? s : escapePtr(s))).join(""),
        value: x,
      });
    else if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        path.push(i);
        walk(x[i]);
        path.pop();
      }
    } else if (isObj(x)) {
      for (const k of Object.keys(x)) {
        path.push(k);
        walk(x[k]);
        path.pop();
      }
    }
  };
  walk(v);
}

/** Parse a JSON document that must be an array (the message-history formats). */
export function parseArrayDoc(doc: SourceDoc, format: string): Obj[] {
  const v = parseJson(singleText(doc, format), { file: doc.name });
  if (!Array.isArray(v)) {
    throw inputError(
      "not-an-array",
      `expected a JSON array of messages (${format} save_messages output), found ${v === null ? "null" : typeof v}`,
      { file: doc.name, pointer: "", line: 1, column: 1 },
    );
  }
  return v as Obj[];
}

type Locate = (pointer: string) => { line: number; column: number } | undefined;

/** Build lint issues positioned in the source text (JSON by default; JSONL adapters pass their own `locate`). */
export function issueMaker(doc: SourceDoc, locate?: Locate) {
  const loc = doc.text !== undefined ? jsonLocator(doc.text) : undefined;
  const where: Locate = locate ?? ((p) => loc?.locate(p));
  return (severity: Issue["severity"], rule: string, pointer: string, message: string): Issue => {
    const at = where(pointer);
    return { severity, rule, message, pointer, file: doc.name, ...(at ? { line: at.line, column: at.column } : {}) };
  };
}

/** Lints shared by yoagent and phi-core messages: `items` = [pointer, native message] pairs. */
export function messagesLint(
  items: Array<[string, unknown]>,
  d: Dialect,
  make: ReturnType<typeof issueMaker>,
): Issue[] {
  return messagesLintAt(
    items.length,
    (k) => items[k]![1],
    (k) => items[k]![0],
    d,
    make,
  );
}

/** messagesLint over `n` messages; pointers are built only for findings. */
function messagesLintAt(
  n: number,
  msgAt: (k: number) => unknown,
  pointerAt: (k: number) => string,
  d: Dialect,
  make: ReturnType<typeof issueMaker>,
): Issue[] {
  const out: Issue[] = [];
  for (let k = 0; k < n; k++) {
    const m = msgAt(k);
    if (!isObj(m)) continue;
    if (LLM_ROLES.has(m.role as string) && "kind" in m && "data" in m) {
      out.push(
        make(
          "warning",
          `lint/${d.format === "yoagent" ? "yoagent" : "phi"}-extension-shadow`,
          pointerAt(k),
          `a '${String(m.role)}' message with 'kind' and 'data' is read as an extension message when it is not a valid message, and is then never sent to the model`,
        ),
      );
    }
    if (d.format === "phi-core" && isLlmMessage(m)) phiExtrasLint(m, () => pointerAt(k), make, out);
  }
  return out;
}

/**
 * lint/unsafe-integer for every integer beyond 2^53 in a native value. Pass the source `text` when the value was
 * parsed from it: without a run of 16+ digits there it holds no such integer, and the walk is skipped.
 */
export function unsafeIntegerLint(native: unknown, make: ReturnType<typeof issueMaker>, text?: string): Issue[] {
  if (text !== undefined && !hasLongDigitRun(text)) return [];
  const big: Array<{ pointer: string; value: bigint }> = [];
  unsafeIntegerIssues(native, "", big);
  return big.map((b) =>
    make(
      "warning",
      "lint/unsafe-integer",
      b.pointer,
      `integer ${b.value} is beyond 2^53: JavaScript tools (JSON.parse) round it; ckpt keeps it exact`,
    ),
  );
}

/** All lints of a message-array document (`text`: the source it was parsed from, see unsafeIntegerLint). */
export function messageArrayLint(
  msgs: unknown[],
  d: Dialect,
  make: ReturnType<typeof issueMaker>,
  text?: string,
): Issue[] {
  return [
    ...messagesLintAt(
      msgs.length,
      (k) => msgs[k],
      (k) => `/${k}`,
      d,
      make,
    ),
    ...unsafeIntegerLint(msgs, make, text),
  ];
}

/** What phi-core can parse of each LlmMessage extra (anything else is silently dropped on load). */
const PHI_EXTRA_CHECKS: Record<string, (x: unknown) => boolean> = {
  turnId: (x) => isObj(x) && typeof x.loopId === "string" && isU(x.turnIndex, 2 ** 32 - 1),
  nodeId: (x) => isU(x),
  parentId: (x) => isU(x),
  tags: (x) =>
    Array.isArray(x) &&
    x.every(
      (t) =>
        isObj(t) &&
        ["lesson", "finding", "outcome", "checkpoint"].includes(t.kind as string) &&
        typeof t.text === "string" &&
        isU(t.created_at_turn, 2 ** 32 - 1) &&
        Array.isArray(t.abandoned_node_ids) &&
        t.abandoned_node_ids.every((n) => isU(n)),
    ),
  provenanceHint: (x) =>
    isObj(x) &&
    typeof x.kind === "string" &&
    ["system-prompt", "identity-block", "memory-tier", "loop-turn", "steering", "follow-up", "unknown"].includes(
      x.kind,
    ),
};

function phiExtrasLint(m: Obj, pointer: () => string, make: ReturnType<typeof issueMaker>, out: Issue[]): void {
  for (const k of PHI_EXTRAS) {
    if (k in m && !PHI_EXTRA_CHECKS[k]!(m[k])) {
      out.push(
        make(
          "warning",
          "lint/phi-extra-dropped",
          `${pointer()}/${k}`,
          `phi-core cannot parse this '${k}' and silently drops it on load${k === "tags" ? " (tags read as [])" : ""}`,
        ),
      );
    }
  }
  const camel: string[] = [];
  if ("errorMessage" in m) camel.push("errorMessage");
  if (isObj(m.usage)) for (const k in USAGE_ALIASES) if (k in m.usage) camel.push(`usage/${k}`);
  for (const k of camel)
    out.push(
      make(
        "warning",
        "lint/phi-camel-case-ignored",
        `${pointer()}/${k}`,
        `phi-core reads only the snake_case spelling: '${k.split("/").pop()}' is ignored (read as ${k.startsWith("usage") ? "0" : "absent"}) — a yoagent >= 0.13 message?`,
      ),
    );
  const content = m.content;
  if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const c: unknown = content[j];
      if (isObj(c) && c.type === "toolCall")
        for (const k of ["providerMetadata", "provider_metadata"]) {
          if (k in c)
            out.push(
              make(
                "warning",
                "lint/phi-provider-metadata-ignored",
                `${pointer()}/content/${j}/${k}`,
                `phi-core tool calls have no ${k}: it is ignored on load (a Gemini thought signature is lost)`,
              ),
            );
        }
    }
  }
}

function isU(x: unknown, max: number | bigint = 18446744073709551615n): boolean {
  if (typeof x === "bigint") return x >= 0n && x <= BigInt(max);
  return typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= Number(max);
}
