/**
 * The record formats of `ckpt export`:
 * - ckpt: the canonical checkpoint, one per line, lossless (what `ckpt show --json` prints);
 * - audit: one row per event — a message, a tool call, a tool result, an approval asked for or answered, a pending
 *   interrupt, an app message — with its thread, checkpoint, time, role, tool and a short text: the trail an auditor
 *   asks for.
 */
import { stringifyJson } from "../../base/json.js";
import type { Content, ToolCallContent } from "../../generated/types.js";
import { stateKeys, textOf, threadLabel } from "./turns.js";
import type { ExportFormat, ExportLoss, ExportThread } from "./types.js";

const S = "string" as const;

// ------------------------------------------------------------------------------------------------ ckpt

export const ckptLines: ExportFormat = {
  name: "ckpt",
  row: "checkpoint",
  rows: (t) => [t.checkpoint],
  columns: [
    ["threadId", S],
    ["step", "int"],
    ["createdAt", S],
    ["updatedAt", S],
    ["format", S],
    ["messages", { list: S }],
    ["state", S],
    ["interrupt", S],
    ["origin", S],
    ["ext", S],
  ],
  flatten(row) {
    // the canonical model's nested parts vary in shape: each message, the state and the rest as JSON text
    const cp = row as ExportThread["checkpoint"];
    const json = (v: unknown) => (v === undefined ? null : stringifyJson(v));
    return {
      threadId: cp.threadId,
      step: typeof cp.step === "number" ? cp.step : Number(cp.step),
      createdAt: cp.createdAt ?? null,
      updatedAt: cp.updatedAt ?? null,
      format: cp.origin?.format ?? null,
      messages: cp.messages.map((m) => stringifyJson(m)),
      state: json(cp.state),
      interrupt: json(cp.interrupt),
      origin: json(cp.origin),
      ext: json(cp.ext),
    };
  },
};

// ------------------------------------------------------------------------------------------------ audit

/** The longest text of an audit row (longer texts end in "…"). */
export const AUDIT_TEXT = 200;

export interface AuditRow {
  source: string;
  thread: string;
  checkpoint: string | null;
  /** the message's index in the checkpoint (null: an event of the checkpoint itself, a pending interrupt) */
  message: number | null;
  /** ISO 8601: the message's own time where the store keeps one, else the checkpoint's */
  time: string | null;
  event: "message" | "tool_call" | "tool_result" | "approval" | "interrupt" | "answer" | "app_message";
  role: string;
  tool: string | null;
  call_id: string | null;
  /** tool results: ok or error; approvals: requested, approved or denied; interrupts: pending or answered */
  status: string | null;
  text: string;
}

const clip = (s: string) => (s.length > AUDIT_TEXT ? `${s.slice(0, AUDIT_TEXT - 1)}…` : s);
const oneLine = (s: string) => clip(s.replace(/\s+/g, " ").trim());
const iso = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** An AI SDK tool part's approval (`ext["ai-sdk"]`): requested, approved or denied (with the reason given). */
function approvalOf(c: ToolCallContent): { status: string; reason?: string } | undefined {
  const e = c.ext?.["ai-sdk"] as { state?: unknown; rest?: { approval?: unknown } } | undefined;
  const a = e?.rest?.approval as { approved?: unknown; reason?: unknown } | undefined;
  if (typeof a !== "object" || a === null) return undefined;
  const reason = typeof a.reason === "string" ? a.reason : undefined;
  if (a.approved === true) return { status: "approved", reason };
  if (a.approved === false) return { status: "denied", reason };
  return { status: "requested" };
}

type Event = Omit<AuditRow, "source" | "thread" | "checkpoint">;

/** The events of one message: the message itself, its tool calls and their approvals, or a tool's result. */
function messageEvents(m: ExportThread["checkpoint"]["messages"][number], message: number, time: string | null) {
  const content = ((m as { content?: Content[] }).content ?? []) as Content[];
  const ev = (e: Omit<Event, "message" | "time">): Event => ({ message, time, ...e });
  if (m.role === "toolResult") {
    const r = m as { toolCallId: string; toolName: string; isError: boolean };
    const status = r.isError ? "error" : "ok";
    return [
      ev({
        event: "tool_result",
        role: "tool",
        tool: r.toolName,
        call_id: r.toolCallId,
        status,
        text: oneLine(textOf(content)),
      }),
    ];
  }
  if (m.role !== "system" && m.role !== "user" && m.role !== "assistant") {
    const x = m as { kind?: unknown; data?: unknown };
    const text = oneLine(`${String(x.kind ?? "")} ${stringifyJson(x.data) ?? "null"}`);
    return [ev({ event: "app_message", role: m.role, tool: null, call_id: null, status: null, text })];
  }
  const events: Event[] = [];
  const text = textOf(content);
  const media = content.filter((c) => c.type === "image" || c.type === "file").length;
  if (text || media || !content.some((c) => c.type === "toolCall")) {
    const attached = media ? `${text ? " " : ""}[${media} attachment${media === 1 ? "" : "s"}]` : "";
    events.push(
      ev({ event: "message", role: m.role, tool: null, call_id: null, status: null, text: oneLine(text + attached) }),
    );
  }
  for (const c of content) {
    if (c.type !== "toolCall") continue;
    const args = oneLine(stringifyJson(c.arguments) ?? "");
    events.push(ev({ event: "tool_call", role: m.role, tool: c.name, call_id: c.id, status: null, text: args }));
    const a = approvalOf(c);
    if (a)
      events.push(
        ev({
          event: "approval",
          role: m.role,
          tool: c.name,
          call_id: c.id,
          status: a.status,
          text: oneLine(a.reason ?? ""),
        }),
      );
  }
  return events;
}

/**
 * The events of the checkpoint itself: the interrupts raised at it and their answers (LangGraph's __interrupt__ /
 * __resume__ writes), else what is pending (the approvals a run paused on).
 */
function checkpointEvents(cp: ExportThread["checkpoint"], time: string | null): Event[] {
  const events: Event[] = [];
  const ev = (e: Omit<Event, "message" | "time">) => events.push({ message: null, time, ...e });
  const raised = langGraphInterrupts(cp);
  for (const r of raised) {
    const status = r.answers.length ? "answered" : "pending";
    ev({
      event: "interrupt",
      role: "system",
      tool: "interrupt",
      call_id: r.id,
      status,
      text: oneLine(stringifyJson(r.value) ?? ""),
    });
    for (const a of r.answers) {
      const text = oneLine(typeof a === "string" ? a : (stringifyJson(a) ?? ""));
      ev({ event: "answer", role: "user", tool: "interrupt", call_id: r.id, status: null, text });
    }
  }
  const i = raised.length ? undefined : cp.interrupt;
  if (i) {
    const all = Array.isArray(i.approvals) ? (i.approvals as (typeof i.toolCall)[]) : [i.toolCall];
    for (const tc of all.length ? all : [i.toolCall]) {
      const text = oneLine(stringifyJson(tc.args) ?? "");
      ev({ event: "interrupt", role: "system", tool: tc.toolName, call_id: tc.toolCallId, status: "pending", text });
    }
  }
  return events;
}

function auditRows(t: ExportThread, loss: ExportLoss): AuditRow[] {
  const cp = t.checkpoint;
  const cpTime = cp.updatedAt ?? cp.createdAt ?? null;
  const base = { source: t.source, thread: t.threadId, checkpoint: t.checkpointId ?? null };
  const events = cp.messages.flatMap((m, i) =>
    messageEvents(m, i, iso((m as { timestamp?: unknown }).timestamp) ?? cpTime),
  );
  events.push(...checkpointEvents(cp, cpTime));
  if (stateKeys(cp).length) loss.add("state", "states (todos, files, channels)", threadLabel(t));
  return events.map((e) => ({ ...base, ...e }));
}

interface Raised {
  id: string | null;
  value: unknown;
  answers: unknown[];
}

/**
 * The interrupts a LangGraph checkpoint's pending writes raise (`__interrupt__`: Interrupt records, Python's as lc:2
 * constructors with kwargs, JS's as plain objects) and the answers its `__resume__` writes give (a task's resume
 * values: a list, one per interrupt of the task; the null task's: the value given to Command(resume=…)).
 */
function langGraphInterrupts(cp: ExportThread["checkpoint"]): Raised[] {
  const lg = cp.ext?.langgraph as { tuple?: { pendingWrites?: unknown } } | undefined;
  const writes = Array.isArray(lg?.tuple?.pendingWrites)
    ? (lg.tuple.pendingWrites as Array<{ taskId?: unknown; channel?: unknown; value?: unknown }>)
    : [];
  const raised: Raised[] = [];
  const byTask = new Map<unknown, Raised[]>();
  for (const w of writes) {
    if (w.channel !== "__interrupt__") continue;
    for (const v of Array.isArray(w.value) ? w.value : [w.value]) {
      const rec = (v ?? {}) as { kwargs?: { value?: unknown; id?: unknown }; value?: unknown; id?: unknown };
      const fields = rec.kwargs ?? rec;
      const r: Raised = {
        id: typeof fields.id === "string" ? fields.id : null,
        value: "value" in fields ? fields.value : v,
        answers: [],
      };
      raised.push(r);
      byTask.set(w.taskId, [...(byTask.get(w.taskId) ?? []), r]);
    }
  }
  if (!raised.length) return raised;
  const given = new Set<Raised>();
  for (const w of writes) {
    if (w.channel !== "__resume__") continue;
    const mine = byTask.get(w.taskId);
    if (mine) {
      const values = Array.isArray(w.value) ? w.value : [w.value];
      mine.forEach((r, k) => {
        if (k < values.length && !given.has(r)) {
          r.answers.push(values[k]);
          given.add(r);
        }
      });
    }
  }
  // a resume written for no task (the value given to the run): the answer of interrupts no task write answered
  for (const w of writes)
    if (w.channel === "__resume__" && !byTask.has(w.taskId))
      for (const r of raised) if (!given.has(r)) r.answers.push(w.value);
  return raised;
}

export const audit: ExportFormat = {
  name: "audit",
  row: "event",
  rows: auditRows,
  columns: [
    ["source", S],
    ["thread", S],
    ["checkpoint", S],
    ["message", "int"],
    ["time", S],
    ["event", S],
    ["role", S],
    ["tool", S],
    ["call_id", S],
    ["status", S],
    ["text", S],
  ],
};
