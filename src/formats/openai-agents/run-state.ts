/**
 * The `openai-agents` format: an OpenAI Agents SDK `RunState` — a paused or finished run as `result.state.toString()`
 * writes it and `RunState.fromString(agent, text)` reads it (`$schemaVersion` "1.0" … "1.22" for the JS SDK 0.20.0).
 * Validated against schemas/formats/openai-agents/run-state.json: the SDK's own zod schema for the serialized state
 * (derived from the installed SDK by scripts/openai-agents-schemas.mjs) plus what differs by version.
 *
 * Canonical mapping:
 * - messages: `originalInput` (a string → one user message; items → ./items.ts), then the `rawItem` of each of
 *   `generatedItems` in order (./items.ts; assistant-side items of one agent make one assistant message, which names
 *   its agent in `ext["openai-agents"].agent`); after a `handoff_output_item`, an extension message
 *   `{role: "openai-agents", kind: "agent-handoff", data: {from, to, callId}}`; `tool_approval_item`s are not
 *   messages (they are the interrupt); a tool result the run's approvals rejected is `isError`;
 * - interrupt: when the run stopped on approvals (`currentStep.type: "next_step_interruption"`), the first pending
 *   approval as `{toolCall: {toolCallId, toolName, args}, step}` and every one of them, in order, in
 *   `interrupt.approvals` (`{toolCallId, toolName, args, agent}`) — what `RunState.getInterruptions()` returns;
 * - state.currentAgent: the agent the run is at (after a handoff, the one handed to); step: `currentTurn`;
 * - threadId: the store's thread, else `conversationId`, else the trace's `group_id`, else the file name;
 * - the whole state rides in `ext["openai-agents"]._layout.state` (left out of diffs): model responses, usage,
 *   guardrail results, tool-invocation bookkeeping, trace; canonical → RunState gives it back while the checkpoint
 *   still says the same. A changed or foreign checkpoint becomes a run that has not started, with the conversation
 *   as its input (`freshState`: RunState.fromString reads it and the next run sends the conversation to the model);
 *   what a run in progress has — pending approvals, the turn, model responses — is reported lost.
 */
import type { Checkpoint, InterruptData } from "../../generated/types.js";
import { inputError } from "../../base/errors.js";
import { jsonLocator, parseJson, stringifyJson } from "../../base/json.js";
import type { FormatAdapter, Issue, LossSink, SourceDoc } from "../types.js";
import { stemOf } from "../rust-common.js";
import { EXT, HANDOFF, isObj, itemsToMessages, messagesToItems, type Obj, type SourceItem } from "./items.js";
import { envelopeLoss } from "./session.js";

/** The version this writer writes: the newest the JS SDK 0.20.0 reads (and writes). */
const CURRENT_VERSION = "1.22";
const SNIFF = /"\$schemaVersion"\s*:\s*"([^"]*)"/;
const SHAPE = ['"currentAgent"', '"generatedItems"', '"modelResponses"'];

const nameOf = (a: unknown): string | undefined => (isObj(a) && typeof a.name === "string" ? a.name : undefined);
const argsOf = (s: unknown): unknown => {
  if (typeof s !== "string") return s;
  try {
    return parseJson(s);
  } catch {
    return s;
  }
};

/** Tool calls the run's approvals rejected: call ids listed as rejected, or every call of a tool rejected outright. */
function rejections(st: Obj): { ids: Set<string>; tools: Set<string> } {
  const ids = new Set<string>();
  const tools = new Set<string>();
  const scan = (records: unknown) => {
    if (!isObj(records)) return;
    for (const [key, r] of Object.entries(records)) {
      if (!isObj(r)) continue;
      if (Array.isArray(r.rejected)) for (const id of r.rejected) ids.add(String(id));
      else if (r.rejected === true) {
        const parsed = argsOf(key);
        tools.add(Array.isArray(parsed) ? String(parsed[parsed.length - 1]) : key);
      }
    }
  };
  const ctx = isObj(st.context) ? st.context : {};
  scan(ctx.approvals);
  scan(ctx.legacyFunctionApprovals);
  scan(ctx.hostedMcpApprovals);
  for (const f of Array.isArray(ctx.functionApprovals) ? ctx.functionApprovals : []) if (isObj(f)) scan(f.approvals);
  return { ids, tools };
}

/** The run's conversation as items: the original input, then every generated item but approval requests. */
function runItems(st: Obj): SourceItem[] {
  const out: SourceItem[] = [];
  const input = st.originalInput;
  if (typeof input === "string") out.push({ item: { type: "message", role: "user", content: input } });
  else if (Array.isArray(input)) for (const it of input) out.push({ item: isObj(it) ? it : {} });
  const rejected = rejections(st);
  for (const g of Array.isArray(st.generatedItems) ? st.generatedItems : []) {
    if (!isObj(g) || g.type === "tool_approval_item") continue;
    const raw = isObj(g.rawItem) ? g.rawItem : {};
    if (g.type === "handoff_output_item") {
      out.push({ item: raw, agent: nameOf(g.sourceAgent) });
      const handoff = { from: nameOf(g.sourceAgent), to: nameOf(g.targetAgent), callId: raw.callId };
      out.push({ item: { type: HANDOFF, ...handoff }, agent: nameOf(g.sourceAgent) });
      continue;
    }
    const isRejected =
      g.type === "tool_call_output_item" &&
      (rejected.ids.has(String(raw.callId)) || rejected.tools.has(String(raw.name)));
    out.push({ item: raw, agent: nameOf(g.agent), ...(isRejected ? { rejected: true } : {}) });
  }
  return out;
}

/** The pending approvals of a run that stopped on them (what RunState.getInterruptions() returns). */
export function pendingApprovals(
  st: Obj,
): Array<{ toolCallId: string; toolName: string; args: unknown; agent?: string }> {
  const step = isObj(st.currentStep) ? st.currentStep : {};
  if (step.type !== "next_step_interruption" || !isObj(step.data) || !Array.isArray(step.data.interruptions)) return [];
  return (step.data.interruptions as unknown[]).filter(isObj).map((i) => {
    const raw = isObj(i.rawItem) ? i.rawItem : {};
    const agent = nameOf(i.agent);
    return {
      toolCallId: String(raw.callId ?? raw.id ?? ""),
      toolName: String(i.toolName ?? raw.name ?? raw.type ?? ""),
      args: argsOf(raw.arguments),
      ...(agent !== undefined ? { agent } : {}),
    };
  });
}

function threadOf(st: Obj, doc: SourceDoc): { id: string; fromFile: boolean } {
  if (doc.threadId !== undefined) return { id: doc.threadId, fromFile: false };
  if (typeof st.conversationId === "string") return { id: st.conversationId, fromFile: false };
  if (isObj(st.trace) && typeof st.trace.group_id === "string") return { id: st.trace.group_id, fromFile: false };
  return { id: stemOf(doc.name), fromFile: true };
}

function toCanonical(st: Obj, doc: SourceDoc): Checkpoint {
  const { messages } = itemsToMessages(runItems(st));
  for (const m of messages)
    if (m.role === EXT && (m as { kind: string }).kind === HANDOFF) {
      const { type: _t, ...data } = (m as { data: Obj }).data;
      (m as { data: unknown }).data = data;
    }
  const step = typeof st.currentTurn === "number" && st.currentTurn > 0 ? Math.trunc(st.currentTurn) : 0;
  const thread = threadOf(st, doc);
  const cp: Checkpoint = { schemaVersion: 1, threadId: thread.id, step, messages, state: {} };
  const agent = nameOf(st.currentAgent);
  if (agent !== undefined) cp.state.currentAgent = agent;
  const approvals = pendingApprovals(st);
  if (approvals.length) {
    const first = approvals[0]!;
    const interrupt: InterruptData = {
      toolCall: { toolCallId: first.toolCallId, toolName: first.toolName, args: first.args },
      step,
      approvals,
    };
    cp.interrupt = interrupt;
  }
  cp.origin = {
    format: "openai-agents",
    ...(typeof st.$schemaVersion === "string" ? { version: st.$schemaVersion } : {}),
    ...(thread.fromFile ? { threadIdFrom: "file-name" as const } : {}),
  };
  cp.ext = { [EXT]: { _layout: { state: st } } };
  return cp;
}

/** Loader-accepted states ckpt flags (warnings), each saying why. */
function lint(st: Obj, doc: SourceDoc): Issue[] {
  const out: Issue[] = [];
  const loc = doc.text !== undefined ? jsonLocator(doc.text) : undefined;
  const warn = (pointer: string, rule: string, message: string) => {
    const at = loc?.locate(pointer);
    out.push({
      severity: "warning",
      rule: `openai-agents/${rule}`,
      message,
      pointer,
      file: doc.name,
      line: at?.line,
      column: at?.column,
    });
  };
  if (isObj(st.trace) && typeof st.trace.tracing_api_key === "string" && st.trace.tracing_api_key !== "")
    warn(
      "/trace/tracing_api_key",
      "secret",
      "the state holds the run's tracing API key (serialized with includeTracingApiKey): anyone who reads this file can use it",
    );
  if (typeof st.maxTurns === "number" && typeof st.currentTurn === "number" && st.currentTurn > st.maxTurns)
    warn(
      "/currentTurn",
      "turns-exceeded",
      `currentTurn ${st.currentTurn} is past maxTurns ${st.maxTurns}: resuming this run fails at once (MaxTurnsExceededError)`,
    );
  return out;
}

/**
 * A run that has not started, with the conversation as its input: what a changed or foreign checkpoint becomes. The
 * SDK reads it (RunState.fromString with an agent of that name) and its next run sends the whole conversation to the
 * model. Everything of a run in progress — pending approvals, the turn, model responses — is not carried.
 */
function freshState(cp: Checkpoint, lossy: LossSink): Obj {
  envelopeLoss({ ...cp, state: { ...cp.state, currentAgent: undefined } }, lossy, "a RunState that has not started");
  if (cp.step !== 0)
    lossy.push({
      pointer: "/step",
      field: "step",
      reason: `a RunState that has not started is at turn 0: step ${cp.step} is dropped`,
    });
  const agent = typeof cp.state.currentAgent === "string" ? cp.state.currentAgent : "assistant";
  if (typeof cp.state.currentAgent !== "string")
    lossy.push({
      pointer: "/state",
      field: "currentAgent",
      reason:
        "the checkpoint names no agent: the RunState's current agent is 'assistant', which RunState.fromString looks up in the agent graph it is given",
    });
  const zero = { requests: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  return {
    $schemaVersion: CURRENT_VERSION,
    currentTurn: 0,
    currentAgent: { name: agent },
    originalInput: messagesToItems(cp.messages, lossy),
    modelResponses: [],
    context: { usage: zero, approvals: {}, approvalInvocations: [], context: {} },
    toolUseTracker: {},
    maxTurns: 10,
    noActiveAgentRun: true,
    inputGuardrailResults: [],
    outputGuardrailResults: [],
    generatedItems: [],
    completedToolInvocations: [],
    completedToolInvocationEvidence: [],
    ambiguousToolInvocationCallIds: [],
    trace: null,
  };
}

const said = (cp: Checkpoint) => stringifyJson({ m: cp.messages, i: cp.interrupt, s: cp.state, t: cp.step });

export const openaiAgentsAdapter: FormatAdapter<Obj> = {
  name: "openai-agents",
  title: "OpenAI Agents SDK RunState (result.state.toString(), $schemaVersion 1.0–1.22)",
  extensions: [".json"],
  lossy: [
    "from a changed or foreign checkpoint: a run that has not started, its input the conversation — pending approvals, the turn, model responses, usage and the trace are not carried",
    "createdAt / updatedAt, state other than currentAgent, per-message usage, model, timestamps; tool results' error flag",
  ],
  schema: "formats/openai-agents/run-state",
  detectNeeds: { first: "{", anyOf: ['"$schemaVersion"', '"generatedItems"'] },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined || !/^\s*\{/.test(t)) return { confidence: 0 };
    const v = SNIFF.exec(t);
    const shape = SHAPE.filter((s) => t.includes(s)).length;
    if (v && shape >= 1) return { confidence: 0.95, version: v[1] };
    if (shape === SHAPE.length) return { confidence: 0.8 };
    return { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "an Agents SDK RunState is a single JSON file", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!isObj(v))
      throw inputError("not-an-object", "an Agents SDK RunState is a JSON object (result.state.toString())", {
        file: doc.name,
      });
    return v;
  },
  toCanonical: (native, doc) => toCanonical(native, doc),
  fromCanonical(cp, { lossy }) {
    const layout = isObj(cp.ext?.[EXT]) ? ((cp.ext[EXT] as Obj)._layout as Obj | undefined) : undefined;
    const st = isObj(layout) && isObj(layout.state) ? layout.state : undefined;
    // read from a RunState and unchanged: that state, exactly
    if (
      st &&
      cp.origin?.format === "openai-agents" &&
      said(toCanonical(st, { name: "", threadId: cp.threadId })) === said(cp)
    )
      return st;
    return freshState(cp, lossy);
  },
  lint,
  messagePointers(native) {
    // the pointer of the item each canonical message starts with
    const ptrs: string[] = [];
    const input = native.originalInput;
    const where: string[] = typeof input === "string" ? ["/originalInput"] : [];
    if (Array.isArray(input)) input.forEach((_x, i) => where.push(`/originalInput/${i}`));
    (Array.isArray(native.generatedItems) ? native.generatedItems : []).forEach((g, i) => {
      if (!isObj(g) || g.type === "tool_approval_item") return;
      where.push(`/generatedItems/${i}`);
      if (g.type === "handoff_output_item") where.push(`/generatedItems/${i}`);
    });
    const { starts } = itemsToMessages(runItems(native));
    for (const s of starts) ptrs.push(where[s] ?? "");
    return ptrs;
  },
  serialize: (native) => ({ text: stringifyJson(native) }),
};
