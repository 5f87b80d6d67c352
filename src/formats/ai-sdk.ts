/**
 * Vercel AI SDK chats (`ai-sdk`): the UI message array `useChat` holds and apps persist, one chat per file, of any
 * major — 4 (`content`, `parts`, `toolInvocations`, `experimental_attachments`), 5, 6 and 7 (`parts` with typed
 * `tool-<name>` parts in states, `step-start`, `reasoning`, `file`, `source-*`, `data-*`, `metadata`). The major is
 * detected from the shape (`detectMajor`) or named (`--format ai-sdk@5`, `--ai-sdk-version 5`); each major has its
 * schema (schemas/formats/ai-sdk/v4…v7.json) accepting what that major's own validator accepts (v4, which has none:
 * what its `convertToCoreMessages` accepts).
 *
 * Canonical mapping: ai-sdk-canonical.ts (one canonical message per model message: steps and tool results), with
 * AI SDK 4 messages read into and written from the shape the others share (ai-sdk-v4.ts). Writing a major older
 * than the chat's drops (and reports) what the older validator would drop; a v4 message read and written back
 * unchanged is written exactly as it was.
 */
import type { AgentMessage, Checkpoint, ExtensionMessage } from "../generated/types.js";
import { inputError, usageError } from "../base/errors.js";
import { jsonLocator, parseJson, stringifyJson } from "../base/json.js";
import { schemaIssues } from "../schema/validate.js";
import { noteAt } from "./loss.js";
import type { FormatAdapter, Issue, LossSink, SourceDoc } from "./types.js";
import {
  AI_SDK_MAJORS,
  type AiSdkMajor,
  isObj,
  isToolPart,
  type Obj,
  partForMajor,
  type ViewMessage,
} from "./ai-sdk-parts.js";
import { canonicalToViews, EXT, type ViewDraft, viewToCanonical, withRawParts } from "./ai-sdk-canonical.js";
import { v4Losses, v4ToView, viewToV4 } from "./ai-sdk-v4.js";
import { v4CoreProblems } from "./ai-sdk-v4-core.js";
import { listPrefix, listText, unwrapList, wrapperOf } from "./wrapped.js";

type Native = unknown[];

/** The major each parsed chat was read as (detected or named). */
const MAJOR = new WeakMap<object, AiSdkMajor>();

/** A major named by a user: "5", "v5", "ai@5", "ai-v5" (a usage error otherwise). */
export function aiSdkMajor(version: string): AiSdkMajor {
  const m = /^(?:v|ai@|ai-v)?(\d+)(?:\.[\d.x*]+)?$/i.exec(version.trim());
  const major = m?.[1] as AiSdkMajor | undefined;
  if (!major || !AI_SDK_MAJORS.includes(major))
    throw usageError(`unknown AI SDK version '${version}': expected 4, 5, 6 or 7`);
  return major;
}

const V4_MESSAGE_KEYS = [
  "content",
  "toolInvocations",
  "experimental_attachments",
  "annotations",
  "createdAt",
  "reasoning",
];
const V4_PART_TYPES = new Set(["tool-invocation", "source"]);

/** The features of one part that only some majors have: 4, 6 or 7 (0: none). */
function partMajor(p: Obj): number {
  const t = p.type;
  if (V4_PART_TYPES.has(String(t))) return 4;
  if (t === "reasoning" && ("details" in p || "reasoning" in p)) return 4;
  if (t === "file" && "data" in p && "mimeType" in p && !("url" in p)) return 4;
  if (t === "custom" || t === "reasoning-file" || t === "steering-message") return 7;
  if (t === "text" && "citations" in p) return 7;
  if (t === "file" && "providerReference" in p) return 7;
  if (isToolPart(p)) {
    if ("title" in p) return 7;
    const a = isObj(p.approval) ? p.approval : {};
    if ("requestReason" in a || "isAutomatic" in a) return 7;
    if ("toolMetadata" in p || "inputEncoding" in p || "resultProviderMetadata" in p) return 6;
    if ("descriptor" in a || "signature" in a || "inputSchemaInput" in a) return 6;
    if (t === "dynamic-tool" && (String(p.state).startsWith("approval-") || p.state === "output-denied")) return 6;
  }
  return 0;
}

/**
 * The major a chat's shape says: 4 when a message has v4 fields (content, toolInvocations, attachments, a data
 * role) or v4 parts; else the newest major whose additions it uses (7, 6), else 5 — the oldest that reads it.
 */
export function detectMajor(messages: readonly unknown[]): AiSdkMajor {
  let newest = 0;
  if (!Array.isArray(messages)) return "5";
  for (const m of messages) {
    if (!isObj(m)) continue;
    if (m.role === "data" || V4_MESSAGE_KEYS.some((k) => k in m)) return "4";
    if (!Array.isArray(m.parts)) continue;
    for (const p of m.parts) {
      if (!isObj(p)) continue;
      const n = partMajor(p);
      if (n === 4) return "4";
      if (n > newest) newest = n;
    }
  }
  return newest === 7 ? "7" : newest === 6 ? "6" : "5";
}

/** The major a parsed chat was read as. */
export function majorOf(native: Native): AiSdkMajor {
  return MAJOR.get(native) ?? detectMajor(native);
}

const ROLES = new Set(["system", "user", "assistant", "data"]);

/**
 * Whether every item looks like a UI message: a known role, no `type` (UI messages have none), and parts (v5+) or a
 * string content / tool invocations (v4).
 */
function looksLikeChat(v: unknown): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  return v.every(
    (m) =>
      isObj(m) &&
      ROLES.has(String(m.role)) &&
      !("type" in m) && // an OpenAI Agents item ({type: "message", role, content}) is no UI message
      (Array.isArray(m.parts) || typeof m.content === "string" || Array.isArray(m.toolInvocations)) &&
      (typeof m.id === "string" || typeof m.content === "string"),
  );
}

/** A chat saved inside an object (`{id, messages}`, `{sessionId, items}`): its messages, when they are UI messages. */
const unwrapChat = (v: unknown) =>
  unwrapList(v, ["messages", "items"], (l) => looksLikeChat(l) && l.every((m) => typeof (m as Obj).id === "string"));

/** A value that is no chat (`--format ai-sdk` on another JSON value): shown or converted it is an input error. */
function needChat(native: unknown, doc: SourceDoc): asserts native is Native {
  if (!Array.isArray(native))
    throw inputError(
      "not-an-array",
      `expected a JSON array of AI SDK UI messages (or an object holding one as 'messages'), found ${native === null ? "null" : typeof native}`,
      { file: doc.name, pointer: "", line: 1, column: 1 },
    );
}

function stemOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base.replace(/\.[^.]*$/, "") || base;
}

/** The view of each message (v4: read as ai-sdk-v4.ts says), and the data messages of v4 by index. */
function viewsOf(native: Native, major: AiSdkMajor): Array<ViewMessage | { data: Obj }> {
  return native.map((m, i) => {
    const o = isObj(m) ? m : { role: "user", parts: [] };
    if (major === "4") return o.role === "data" ? { data: o } : v4ToView(o, i, i === native.length - 1);
    const { id, role, metadata, parts, ...extra } = o;
    const view: ViewMessage = {
      id: String(id),
      role: String(role),
      parts: Array.isArray(parts) ? (parts as Obj[]) : [],
    };
    if ("metadata" in o) view.metadata = metadata;
    if (Object.keys(extra).length > 0) view.extra = extra;
    return view;
  });
}

function toCanonical(native: Native, doc: SourceDoc): Checkpoint {
  needChat(native, doc);
  const major = majorOf(native);
  const messages: AgentMessage[] = [];
  viewsOf(native, major).forEach((view, i) => {
    if ("data" in view) {
      messages.push({ role: EXT, kind: "data-message", data: view.data } as ExtensionMessage);
      return;
    }
    const head: Obj = {};
    const m = native[i] as Obj;
    if (major === "4") {
      // written back exactly when the view is unchanged and the writer's derivation differs from the source
      if (stringifyJson(viewToV4(view)) !== stringifyJson(m)) head.v4 = { view: stringifyJson(view), message: m };
    } else {
      const order = Object.keys(m);
      if (order.join() !== Object.keys(nativeOf(view)).join()) head.order = order;
    }
    const out = viewToCanonical(view, head);
    const ts = timestampOf(view.metadata);
    if (ts !== undefined) (out[0] as { timestamp?: number }).timestamp = ts;
    messages.push(...out);
  });
  const savedId = wrapperOf(native)?.id;
  return {
    schemaVersion: 1,
    threadId: doc.threadId ?? savedId ?? stemOf(doc.name),
    step: messages.filter((m) => m.role === "assistant").length,
    messages,
    state: {},
    origin: {
      format: "ai-sdk",
      version: major,
      ...(savedId === undefined ? { threadIdFrom: "file-name" as const } : {}),
    },
  };
}

/** A v4 createdAt (an ISO date JSON.stringify wrote) as epoch milliseconds. */
function timestampOf(metadata: unknown): number | undefined {
  if (!isObj(metadata) || typeof metadata.createdAt !== "string") return undefined;
  const t = Date.parse(metadata.createdAt);
  return Number.isFinite(t) && t >= 0 ? t : undefined;
}

/** A v5+ UI message from its view. */
function nativeOf(view: ViewMessage, order?: unknown): Obj {
  const m: Obj = { id: view.id, role: view.role };
  if ("metadata" in view && view.metadata !== undefined) m.metadata = view.metadata;
  m.parts = view.parts;
  if (view.extra) Object.assign(m, view.extra);
  if (!Array.isArray(order)) return m;
  const out: Obj = {};
  for (const k of order as string[]) if (k in m) out[k] = m[k];
  for (const k of Object.keys(m)) if (!(k in out)) out[k] = m[k];
  return out;
}

function fromCanonical(cp: Checkpoint, options: { version?: string; lossy: LossSink }): Native {
  const from = cp.origin?.format === "ai-sdk" && typeof cp.origin.version === "string" ? cp.origin.version : undefined;
  const major = options.version !== undefined ? aiSdkMajor(options.version) : ((from as AiSdkMajor) ?? "7");
  const lossy = options.lossy;
  for (const k of Object.keys(cp.ext ?? {}))
    if (k !== EXT)
      lossy.push({ pointer: `/ext/${k}`, field: k, reason: `AI SDK chats cannot carry ${k}-specific data` });
  for (const k of Object.keys(cp.state))
    lossy.push({ pointer: `/state/${k}`, field: k, reason: "AI SDK chats are messages only: no state" });
  if (cp.interrupt !== undefined)
    lossy.push({ pointer: "/interrupt", field: "interrupt", reason: "AI SDK chats have no interrupts" });
  const out: Native = [];
  for (const d of canonicalToViews(cp, lossy)) {
    if (!("parts" in d)) {
      if (major === "4") out.push((d as ExtensionMessage).data);
      else noteAt(lossy, cp.messages.indexOf(d), "", "message", `AI SDK ${major} has no data messages`);
      continue;
    }
    d.parts = withRawParts(d, lossy);
    if (major === "4") out.push(writeV4(d, lossy));
    else out.push(writeV5plus(d, major, lossy));
  }
  if (out.length === 0 && major !== "4")
    throw inputError(
      "empty-chat",
      `no message to write: AI SDK ${major}'s validateUIMessages rejects a chat with no messages ('Messages array must not be empty'); AI SDK 4 (--ai-sdk-version 4) holds an empty chat`,
    );
  MAJOR.set(out, major);
  return out;
}

function writeV4(d: ViewDraft, lossy: LossSink): Obj {
  const v4 = isObj(d.head.v4) ? d.head.v4 : undefined;
  const view: ViewMessage = { id: d.id, role: d.role, parts: d.parts };
  if (d.metadata !== undefined) view.metadata = d.metadata;
  if (d.extra) view.extra = d.extra;
  if (v4 && v4.view === stringifyJson(view)) return v4.message as Obj;
  if (d.timestamp !== undefined && !(isObj(view.metadata) && "createdAt" in view.metadata))
    view.metadata = { ...(isObj(view.metadata) ? view.metadata : {}), createdAt: new Date(d.timestamp).toISOString() };
  for (const l of v4Losses(view))
    noteAt(lossy, d.at, "", l.part === undefined ? l.field : `parts/${l.part}/${l.field}`, l.reason);
  return viewToV4(view);
}

function writeV5plus(d: ViewDraft, major: AiSdkMajor, lossy: LossSink): Obj {
  const parts: Obj[] = [];
  d.parts.forEach((p, k) => {
    if (!isObj(p)) {
      parts.push(p);
      return;
    }
    const r = partForMajor(p, major);
    if (r.drop) noteAt(lossy, d.at, "", `parts/${k}`, r.drop);
    else {
      for (const f of r.lost)
        noteAt(lossy, d.at, "", `parts/${k}/${f}`, `AI SDK ${major} ${String(p.type)} parts have no '${f}'`);
      parts.push(r.part);
    }
  });
  if (d.timestamp !== undefined && d.foreign)
    noteAt(
      lossy,
      d.at,
      "/timestamp",
      "timestamp",
      `AI SDK ${major} UI messages have no time (an app keeps one in metadata)`,
    );
  const view: ViewMessage = { id: d.id, role: d.role, parts };
  if (d.metadata !== undefined) view.metadata = d.metadata;
  if (d.extra) view.extra = d.extra;
  return nativeOf(view, d.head.order);
}

// ---- lints -----------------------------------------------------------------------------------------------

/** What ai@4's attachmentsToParts throws on (beyond the schema): an unparseable URL, a protocol, a data URL. */
function attachmentProblem(a: Obj): string | undefined {
  let url: URL;
  try {
    url = new URL(String(a.url));
  } catch {
    return `'${String(a.url).slice(0, 80)}' is not a URL`;
  }
  const type = typeof a.contentType === "string" ? a.contentType : undefined;
  if (url.protocol === "http:" || url.protocol === "https:") {
    return type?.startsWith("image/") || type ? undefined : "a non-image attachment must have a contentType";
  }
  if (url.protocol !== "data:") return `unsupported URL protocol '${url.protocol}' (http:, https: or data:)`;
  const [header, content] = String(a.url).split(",");
  const mime = header?.split(";")[0]?.split(":")[1];
  if (!mime || content === undefined) return "a data URL needs a media type and a comma before its content";
  if (!type?.startsWith("image/") && !type?.startsWith("text/") && !type)
    return "an attachment that is not an image or text must have a contentType";
  return undefined;
}

/**
 * Keys and part types whose rules differ between AI SDK 5, 6 and 7 (everything else their uiMessagesSchemas define
 * alike): a chat without any is judged the same by all three, and the other majors need not be asked.
 */
const MAJOR_SPECIFIC =
  /"(approval|toolMetadata|inputEncoding|callProviderMetadata|resultProviderMetadata|title|citations|providerReference|requestReason|isAutomatic|descriptor|signature|inputSchemaInput|custom|reasoning-file|steering-message|output-denied|approval-requested|approval-responded)"/;

/** The other majors' verdicts on a chat that the chat's own major gives the opposite one (v5+ majors only). */
function majorsLint(native: Native, major: AiSdkMajor, doc: SourceDoc): Issue[] {
  if (major === "4") return [];
  if (!MAJOR_SPECIFIC.test(doc.text ?? JSON.stringify(native))) return [];
  const ok = (m: AiSdkMajor) => schemaIssues(`formats/ai-sdk/v${m}`, native, doc.name, undefined, false).length === 0;
  const mine = ok(major);
  const others = (["5", "6", "7"] as AiSdkMajor[]).filter((m) => m !== major && ok(m) !== mine);
  if (others.length === 0) return [];
  const list = others.map((m) => `ai@${m}`).join(" and ");
  return [
    {
      severity: "warning",
      rule: "lint/ai-sdk-majors",
      pointer: "",
      file: doc.name,
      message: mine
        ? `read as AI SDK ${major}, which accepts it; ${list} reject${others.length === 1 ? "s" : ""} it`
        : `read as AI SDK ${major}, which rejects it; ${list} accept${others.length === 1 ? "s" : ""} it (name the major with --ai-sdk-version)`,
    },
  ];
}

function lint(native: Native, doc: SourceDoc): Issue[] {
  if (!Array.isArray(native)) return [];
  const major = majorOf(native);
  const issues: Issue[] = [];
  const prefix = listPrefix(native);
  let loc: ReturnType<typeof jsonLocator> | undefined;
  const add = (pointer: string, message: string, rule: string, severity: Issue["severity"]) => {
    if (doc.text !== undefined) loc ??= jsonLocator(doc.text);
    const at = loc?.locate(prefix + pointer);
    issues.push({ severity, rule, message, pointer, file: doc.name, line: at?.line, column: at?.column });
  };
  native.forEach((m, i) => {
    if (!isObj(m)) return;
    if (major === "4") {
      if (m.role === "user" && Array.isArray(m.experimental_attachments) && !isObj(m.parts)) {
        (m.experimental_attachments as unknown[]).forEach((a, k) => {
          const bad = isObj(a) ? attachmentProblem(a) : undefined;
          if (bad)
            add(
              `/${i}/experimental_attachments/${k}/url`,
              `ai@4's convertToCoreMessages throws: ${bad}`,
              "lint/ai-sdk-v4-attachment",
              "error",
            );
        });
      }
      if (m.role !== "data" && typeof m.id !== "string")
        add(
          `/${i}`,
          "the AI SDK 4 Message type requires a string 'id' (useChat keys messages by it); convertToCoreMessages does not read it",
          "lint/ai-sdk-v4-type",
          "warning",
        );
    }
  });
  if (major === "4")
    for (const p of v4CoreProblems(native))
      add(
        p.pointer,
        `ai@4's convertToCoreMessages passes this on and its CoreMessage schema rejects it (streamText and generateText refuse the chat): ${p.message}`,
        "lint/ai-sdk-v4-core",
        "error",
      );
  issues.push(...majorsLint(native, major, doc));
  return issues;
}

export const aiSdkAdapter: FormatAdapter<Native> = {
  name: "ai-sdk",
  title: "Vercel AI SDK chat: an array of UI messages (AI SDK 4, 5, 6 or 7)",
  extensions: [".json"],
  lossy: [
    "assistant usage, model, provider, stopReason, errorMessage",
    "timestamps (v5+; v4 keeps createdAt)",
    "tool result images",
    "extension messages and state",
    "parts and fields an older major does not have (writing an older major)",
  ],
  schema: "formats/ai-sdk/v5",
  schemaOf: (native) => `formats/ai-sdk/v${majorOf(native)}`,
  versionOf: (native) => majorOf(native),
  versionBookkeeping: [
    "/messages/*/ext/ai-sdk/v4",
    "/messages/*/ext/ai-sdk/order",
    "/messages/*/content/*/ext/ai-sdk/order",
  ],
  detectNeeds: { first: ["[", "{"], anyOf: ['"parts"', '"content"', '"toolInvocations"'] },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined) return { confidence: 0 };
    const bare = /^\s*\[\s*\{/.test(t);
    // a chat saved with its id: {"id": …, "messages": [{…"role"…}]}
    if (!bare && !(/^\s*\{/.test(t) && /"(messages|items)"\s*:\s*\[\s*\{/.test(t.slice(0, 65536))))
      return { confidence: 0 };
    if (!/"role"\s*:/.test(bare ? t.slice(0, 4096) : t.slice(0, 65536))) return { confidence: 0 };
    let v: unknown;
    try {
      v = parseJson(t, { file: doc.name });
    } catch {
      return { confidence: 0 };
    }
    if (!bare) {
      const list = unwrapChat(v);
      if (list === undefined) return { confidence: 0 };
      const major = doc.formatVersion !== undefined ? aiSdkMajor(doc.formatVersion) : detectMajor(list);
      return { confidence: 0.9, version: major, parsed: list };
    }
    if (!looksLikeChat(v)) return { confidence: 0 };
    const major = doc.formatVersion !== undefined ? aiSdkMajor(doc.formatVersion) : detectMajor(v as unknown[]);
    // every message with its id, none with a `type`: only UI messages look like that (an OpenAI Agents item list
    // holding `"type": "reasoning"` parts would otherwise be claimed as strongly by its detection)
    const ids = (v as Obj[]).every((m) => typeof m.id === "string");
    // the value parsed here is the one parse reads (the text is parsed once)
    return { confidence: ids ? 0.95 : 0.8, version: major, parsed: v };
  },
  parse(doc: SourceDoc, parsed?: unknown) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "an AI SDK chat is a single JSON file", { file: doc.name });
    // the value detect parsed from this very text, when detection chose this format
    const value = parsed !== undefined ? parsed : parseJson(doc.text, { file: doc.name });
    // an object holding its messages: an envelope around a chat (detected), or any object when the format was named
    const v = Array.isArray(value)
      ? value
      : (unwrapChat(value) ?? unwrapList(value, ["messages"], () => true, true) ?? value);
    // another value named as a chat (--format ai-sdk) is one the validators reject: validate says so (exit 1);
    // show, convert and the rest refuse it (toCanonical: exit 3)
    if (!Array.isArray(v)) {
      if (typeof v === "object" && v !== null && doc.formatVersion !== undefined)
        MAJOR.set(v, aiSdkMajor(doc.formatVersion));
      return v as Native;
    }
    const major = doc.formatVersion !== undefined ? aiSdkMajor(doc.formatVersion) : detectMajor(v);
    MAJOR.set(v, major);
    return v;
  },
  toCanonical,
  fromCanonical,
  lint,
  pointerPrefix: (native) => listPrefix(native),
  messagePointers(native) {
    const out: string[] = [];
    if (!Array.isArray(native)) return out;
    const major = majorOf(native);
    viewsOf(native, major).forEach((view, i) => {
      if ("data" in view) {
        out.push(`/${i}`);
        return;
      }
      const n = viewToCanonical(view, {}).length;
      for (let k = 0; k < n; k++) out.push(`/${i}`);
    });
    return out;
  },
  integers: "js",
  serialize: (native) => ({ text: listText(native) }),
};
