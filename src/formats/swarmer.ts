/**
 * Swarmer agent state: `Agent.save_state()` = `json.dump(state, f, indent=2)` (Python: 2-space indent, `", "`/`": "`
 * separators, non-ASCII escaped as \uXXXX, no trailing newline) with keys identity, token_budget, model, token_usage,
 * message_log (litellm `Message.dict()`: OpenAI-style, tool-call arguments as JSON strings), contexts (FORMATS.md §4).
 * Files are usually named `agent_<id>.pkl` although they hold JSON.
 *
 * Canonical mapping: threadId = identity.id; tool calls become `toolCall` blocks with parsed arguments (the original
 * argument string is kept in the block's `ext.swarmer.arguments`); `role:"tool"` messages become `toolResult`s
 * (`isError` when the content starts "Error executing tool:"); contexts go to `state.contexts`; identity,
 * token_budget, model and the cumulative token_usage travel in `ext.swarmer`.
 */
import type {
  AgentMessage,
  AssistantMessage,
  Checkpoint,
  Content,
  Ext,
  ToolResultMessage,
} from "../generated/types.js";
import { CkptError, inputError } from "../base/errors.js";
import { addInts, isJsonInt, parseJson, stringifyJson, type JsonInt } from "../base/json.js";
import type { FormatAdapter, LintMessage, LossSink, SourceDoc } from "./types.js";
import { escapePtr } from "../base/pointer.js";

type Obj = Record<string, unknown>;
export interface SwarmerState {
  identity: { name: string; id: string };
  token_budget: number;
  model: string;
  token_usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  message_log: Obj[];
  contexts: Record<string, Obj>;
  [k: string]: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const KNOWN_MESSAGE_KEYS = ["content", "role", "tool_calls", "function_call", "tool_call_id", "name"];
const ERROR_PREFIX = "Error executing tool:";
const SNIFF = /^\s*\{\s*"identity"\s*:\s*\{/;

function setExt(target: { ext?: Ext }, key: string, v: unknown): void {
  if (v === undefined) return;
  const ext = (target.ext ??= {});
  ((ext.swarmer ??= {}) as Obj)[key] = v;
}
const extOf = (x: { ext?: Ext } | undefined): Obj => (isObj(x?.ext?.swarmer) ? (x!.ext!.swarmer as Obj) : {});

/** Python's json.dumps(v, indent=2) (ensure_ascii=True): JSON.stringify's layout plus \uXXXX for non-ASCII and DEL. */
export function pythonDumps(v: unknown, indent?: number): string {
  const text = stringifyJson(v, indent);
  return text.replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** Python json.dumps(args) for tool-call arguments: separators ", " and ": " on one line. */
function pythonCompact(v: unknown): string {
  if (v === null || typeof v !== "object") return pythonDumps(v);
  if (Array.isArray(v)) return "[" + v.map(pythonCompact).join(", ") + "]";
  return (
    "{" +
    Object.entries(v as Obj)
      .map(([k, x]) => pythonDumps(k) + ": " + pythonCompact(x))
      .join(", ") +
    "}"
  );
}

function toCanonicalMessage(m: Obj, model: string): AgentMessage {
  const role = String(m.role);
  const text = typeof m.content === "string" ? m.content : undefined;
  const content: Content[] = text !== undefined ? [{ type: "text", text }] : [];
  let msg: AgentMessage;
  if (role === "tool") {
    const r: ToolResultMessage = {
      role: "toolResult",
      toolCallId: String(m.tool_call_id ?? ""),
      toolName: String(m.name ?? ""),
      content,
      isError: (text ?? "").startsWith(ERROR_PREFIX),
    };
    msg = r;
  } else if (role === "assistant") {
    const a: AssistantMessage = { role: "assistant", content, model };
    for (const tc of Array.isArray(m.tool_calls) ? (m.tool_calls as Obj[]) : []) {
      const fn = isObj(tc.function) ? tc.function : {};
      const raw = typeof fn.arguments === "string" ? fn.arguments : "";
      let args: unknown = raw;
      try {
        args = parseJson(raw);
      } catch {
        /* unparseable arguments are kept as the string */
      }
      const block: Content = { type: "toolCall", id: String(tc.id), name: String(fn.name), arguments: args };
      setExt(block, "arguments", raw);
      const extra = Object.keys(tc).filter((k) => !["function", "id", "type"].includes(k));
      if (extra.length) setExt(block, "extra", Object.fromEntries(extra.map((k) => [k, tc[k]])));
      a.content.push(block);
    }
    if ((a.content as Content[]).some((c) => c.type === "toolCall")) a.stopReason = "toolUse";
    msg = a;
  } else if (role === "system") {
    msg = { role: "system", content };
  } else if (role === "user") {
    msg = { role: "user", content };
  } else {
    msg = { role: "swarmer", kind: role, data: m }; // "function" messages: carried whole
    return msg;
  }
  if (m.content === null) setExt(msg, "contentNull", true);
  const extra = Object.keys(m).filter((k) => !KNOWN_MESSAGE_KEYS.includes(k));
  if (extra.length) setExt(msg, "extra", Object.fromEntries(extra.map((k) => [k, m[k]])));
  // keep exactly which of the optional keys the record had (tool messages carry tool_call_id and name)
  setExt(
    msg,
    "keys",
    Object.keys(m).filter((k) => KNOWN_MESSAGE_KEYS.includes(k)),
  );
  return msg;
}

/** The thread id: identity.id, else the file stem. */
function threadIdOf(native: SwarmerState, doc: SourceDoc): string {
  return isObj(native.identity) && typeof native.identity.id === "string"
    ? native.identity.id
    : (doc.threadId ?? (doc.name.split(/[\\/]/).pop() ?? doc.name).replace(/\.[^.]*$/, ""));
}

function textOf(content: Content[]): string {
  return content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");
}

function fromCanonicalMessage(m: AgentMessage, i: number, lossy: LossSink, native: boolean): Obj | undefined {
  const ptr = `/messages/${i}`;
  const e = extOf(m as { ext?: Ext });
  if (m.role !== "user" && m.role !== "assistant" && m.role !== "system" && m.role !== "toolResult") {
    if (m.role === "swarmer") return (m as { data: Obj }).data;
    lossy.push({ pointer: ptr, field: "message", reason: `Swarmer has no extension messages (role '${m.role}')` });
    return undefined;
  }
  const msg = m as Extract<AgentMessage, { content: Content[] }>;
  if (!native && msg.timestamp !== undefined)
    lossy.push({ pointer: `${ptr}/timestamp`, field: "timestamp", reason: "Swarmer messages have no timestamps" });
  msg.content.forEach((c, k) => {
    if (c.type === "image" || c.type === "file" || c.type === "thinking")
      lossy.push({
        pointer: `${ptr}/content/${k}`,
        field: c.type,
        reason: `Swarmer message content is a string: ${c.type} blocks are dropped`,
      });
  });
  const text = textOf(msg.content);
  // an assistant turn with no text (tool calls only, or nothing at all) has content None, as the OpenAI client gives it
  const content =
    e.contentNull === true
      ? null
      : msg.role === "assistant" && text === "" && !msg.content.some((c) => c.type === "text") && !native
        ? null
        : text;
  const out: Obj = {
    content,
    role: msg.role === "toolResult" ? "tool" : msg.role,
    tool_calls: null,
    function_call: null,
  };
  if (msg.role === "assistant") {
    const calls = msg.content.filter((c) => c.type === "toolCall") as Array<Extract<Content, { type: "toolCall" }>>;
    if (calls.length) {
      out.tool_calls = calls.map((c) => {
        const ce = extOf(c);
        const args =
          typeof ce.arguments === "string"
            ? ce.arguments
            : typeof c.arguments === "string"
              ? c.arguments
              : pythonCompact(c.arguments);
        return {
          function: { arguments: args, name: c.name },
          id: c.id,
          type: "function",
          ...(isObj(ce.extra) ? ce.extra : {}),
        };
      });
      if (!native) {
        msg.content.forEach((c, k) => {
          if (c.type === "toolCall" && c.providerMetadata !== undefined)
            lossy.push({
              pointer: `${ptr}/content/${k}/providerMetadata`,
              field: "providerMetadata",
              reason: "Swarmer tool calls have no provider metadata",
            });
        });
      }
    }
    if (!native) {
      for (const f of ["stopReason", "usage", "errorMessage", "provider"] as const) {
        if ((msg as AssistantMessage)[f] !== undefined)
          lossy.push({
            pointer: `${ptr}/${f}`,
            field: f,
            reason: `Swarmer messages have no ${f} (token usage is one cumulative total)`,
          });
      }
    }
  }
  if (msg.role === "toolResult") {
    const r = msg as ToolResultMessage;
    out.tool_call_id = r.toolCallId;
    out.name = r.toolName;
    if (r.isError && !text.startsWith(ERROR_PREFIX)) {
      out.content = `${ERROR_PREFIX} ${text}`;
      lossy.push({
        pointer: `${ptr}/content`,
        field: "isError",
        reason: `Swarmer marks a failed tool result by its text alone: written with the prefix '${ERROR_PREFIX}'`,
      });
    }
  }
  if (Array.isArray(e.keys)) {
    // restore the record's own key set and order
    const ordered: Obj = {};
    for (const k of e.keys as string[]) ordered[k] = out[k] ?? null;
    Object.assign(out, ordered);
    for (const k of Object.keys(out)) if (!(e.keys as string[]).includes(k)) delete out[k];
    const reordered: Obj = {};
    for (const k of e.keys as string[]) reordered[k] = out[k];
    if (isObj(e.extra)) Object.assign(reordered, e.extra);
    return reordered;
  }
  if (isObj(e.extra)) Object.assign(out, e.extra);
  return out;
}

export const swarmerAdapter: FormatAdapter<SwarmerState> = {
  name: "swarmer",
  title: "Swarmer agent state (JSON written by Agent.save_state, often named agent_*.pkl)",
  extensions: [".pkl", ".json"],
  lossy: [
    "message timestamps",
    "images, files and thinking blocks (content is a string)",
    "per-message usage, stop reasons, provider, errorMessage (token usage is one cumulative total)",
    "todos and files",
    "interrupt, createdAt / updatedAt, step",
  ],
  schema: "formats/swarmer/agent-state",
  detectNeeds: { first: "{" },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined) return { confidence: 0 };
    if (SNIFF.test(t.slice(0, 256)) && /"token_budget"\s*:/.test(t.slice(0, 4096))) return { confidence: 0.95 };
    return { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a Swarmer agent state is a single JSON file", { file: doc.name });
    try {
      return parseJson(doc.text, { file: doc.name }) as SwarmerState;
    } catch (e) {
      if (
        e instanceof CkptError &&
        e.reason === "json-syntax" &&
        /truncated|end of input|unterminated/i.test(e.message)
      ) {
        throw inputError(
          "swarmer-truncated",
          `Swarmer file cut short mid-write (${doc.text.length} characters survive): json.dump raised while writing — typically ToolCreationContext's unserializable tools — so load_state fails and the bot starts a new agent; restore it from a backup (lint/swarmer-truncated)`,
          e.place,
          e,
        );
      }
      throw e;
    }
  },
  toCanonical(native, doc) {
    const model = typeof native.model === "string" ? native.model : "unknown";
    const messages = (Array.isArray(native.message_log) ? native.message_log : [])
      .filter(isObj)
      .map((m) => toCanonicalMessage(m, model));
    const id = threadIdOf(native, doc);
    const extra = Object.keys(native).filter(
      (k) => !["identity", "token_budget", "model", "token_usage", "message_log", "contexts"].includes(k),
    );
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: id,
      step: messages.filter((m) => m.role === "assistant").length,
      messages,
      state: { contexts: native.contexts },
      origin:
        isObj(native.identity) && typeof native.identity.id === "string"
          ? { format: "swarmer" }
          : { format: "swarmer", threadIdFrom: "file-name" },
      ext: {
        swarmer: {
          identity: native.identity,
          token_budget: native.token_budget,
          model: native.model,
          token_usage: native.token_usage,
          ...(extra.length ? { extra: Object.fromEntries(extra.map((k) => [k, native[k]])) } : {}),
        },
      },
    };
    return cp;
  },
  fromCanonical(cp, { lossy }) {
    const native = cp.origin?.format === "swarmer";
    const e = cp.ext && isObj(cp.ext.swarmer) ? (cp.ext.swarmer as Obj) : {};
    const message_log: Obj[] = [];
    cp.messages.forEach((m, i) => {
      const n = fromCanonicalMessage(m, i, lossy, native);
      if (n) message_log.push(n);
    });
    let usage = e.token_usage as SwarmerState["token_usage"] | undefined;
    if (!usage) {
      let p: JsonInt = 0;
      let c: JsonInt = 0;
      for (const m of cp.messages) {
        const u = m.role === "assistant" ? (m as AssistantMessage).usage : undefined;
        if (u) {
          p = addInts(p, u.input, u.cacheRead, u.cacheWrite);
          c = addInts(c, u.output);
        }
      }
      // exact beyond 2^53 (Python ints are unbounded; the numbers are written digit for digit)
      usage = { prompt_tokens: p as number, completion_tokens: c as number, total_tokens: addInts(p, c) as number };
    }
    const lastModel = [...cp.messages]
      .reverse()
      .find((m) => m.role === "assistant" && (m as AssistantMessage).model)
      ?.valueOf() as AssistantMessage | undefined;
    const { contexts, ...rest } = cp.state;
    for (const k of Object.keys(rest)) {
      const v = (rest as Obj)[k];
      if (v !== undefined && !(Array.isArray(v) && v.length === 0) && !(isObj(v) && Object.keys(v).length === 0)) {
        lossy.push({ pointer: `/state/${escapePtr(k)}`, field: k, reason: "Swarmer state holds only contexts" });
      }
    }
    const model = typeof e.model === "string" ? e.model : (lastModel?.model ?? "unknown");
    if (!native) {
      if (cp.interrupt)
        lossy.push({ pointer: "/interrupt", field: "interrupt", reason: "Swarmer has no pending-approval state" });
      cp.messages.forEach((m, i) => {
        const mm = m.role === "assistant" ? (m as AssistantMessage).model : undefined;
        if (mm !== undefined && mm !== model)
          lossy.push({
            pointer: `/messages/${i}/model`,
            field: "model",
            reason: `Swarmer keeps one model per agent: '${mm}' is read back as '${model}'`,
          });
      });
      for (const k of ["createdAt", "updatedAt"] as const)
        if (cp[k] !== undefined) lossy.push({ pointer: `/${k}`, field: k, reason: `Swarmer has no checkpoint ${k}` });
      const assistants = cp.messages.filter((m) => m.role === "assistant").length;
      if (cp.step !== assistants)
        lossy.push({
          pointer: "/step",
          field: "step",
          reason: `Swarmer has no step counter (it is read back as the number of assistant messages, ${assistants}): step ${cp.step} is dropped`,
        });
      for (const k of Object.keys(cp.ext ?? {}))
        lossy.push({ pointer: `/ext/${escapePtr(k)}`, field: k, reason: `Swarmer cannot carry ${k}-specific data` });
    }
    const out: SwarmerState = {
      identity: (e.identity as SwarmerState["identity"]) ?? { name: cp.threadId, id: cp.threadId },
      token_budget: isJsonInt(e.token_budget) ? (e.token_budget as number) : 100000,
      model,
      token_usage: usage,
      message_log,
      contexts: (isObj(contexts) ? contexts : {}) as Record<string, Obj>,
    };
    if (isObj(e.extra)) Object.assign(out, e.extra);
    return out;
  },
  /** toCanonical's role, tool-call ids and tool-result ids (Swarmer messages have no timestamps or usage), without parsing every tool call's arguments. */
  lintView(native, doc) {
    const messages = (Array.isArray(native.message_log) ? native.message_log : [])
      .filter(isObj)
      .map((m): LintMessage => {
        const role = String(m.role);
        if (role === "tool") return { role: "toolResult", toolCallId: String(m.tool_call_id ?? "") };
        if (role === "assistant") {
          const content: Array<{ type: string; id?: string }> = typeof m.content === "string" ? [{ type: "text" }] : [];
          for (const tc of Array.isArray(m.tool_calls) ? (m.tool_calls as Obj[]) : [])
            content.push({ type: "toolCall", id: String(tc.id) });
          return { role, content };
        }
        return { role: role === "system" || role === "user" ? role : "swarmer" };
      });
    return { threadId: threadIdOf(native, doc), messages };
  },
  messagePointers: (native) =>
    (Array.isArray(native.message_log) ? native.message_log : []).map((_m, i) => `/message_log/${i}`),
  /** the model a state without one is read with, and the empty contexts every state has */
  fillIns: {
    checkpoint: (pointer, value) => pointer === "/state/contexts" && isObj(value) && Object.keys(value).length === 0,
    message: (path, value) => path === "model" && value === "unknown",
  },
  serialize: (native) => ({ text: pythonDumps(native, 2) }),
};
