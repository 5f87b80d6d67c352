/**
 * The `openai-agents-session` format: one session of the OpenAI Agents SDK for Python's `SQLiteSession`, as
 * savers/openai-agents/ reads it from the tables — `{session, rows: {"<row id>": {createdAt, item | text}}}`: the
 * sessions table's row and the messages table's rows by row id (so `/rows/<id>/…` names the row of every finding),
 * each `message_data` parsed (a Responses API input item, schemas/formats/openai-agents/responses-items.json), or
 * kept as its text when it is not JSON.
 *
 * Canonical: the session's items as `SQLiteSession.get_items()` returns them — the rows in id order, a row that is not
 * JSON left out (the SDK skips it; `validate` reports it with its row id) — converted as ./responses.ts converts a
 * Responses item list; the thread id is the session id; the session and row records ride in
 * `ext["openai-agents-session"]` (row ids and times: `_layout`, left out of diffs). Written from another checkpoint,
 * the rows are numbered from 1 and the session takes the thread id.
 */
import type { Checkpoint } from "../../generated/types.js";
import { inputError } from "../../base/errors.js";
import { jsonLocator, parseJson, stringifyJson } from "../../base/json.js";
import { escapePtr } from "../../base/pointer.js";
import type { FormatAdapter, Issue, LossSink, SourceDoc } from "../types.js";
import { isObj, type Obj } from "./items.js";
import { messagesToResponses, responsesToMessages } from "./responses.js";

type Row = { createdAt?: string | null; item?: unknown; text?: string; reason?: string };
export interface PythonSessionDocument {
  session: { id: string; createdAt?: string | null; updatedAt?: string | null } | null;
  sessionId?: string;
  tables?: { sessions: string; messages: string };
  /** rows by row id (agent_messages.id), read in id order */
  rows: Record<string, Row>;
}

const PX = "openai-agents-session";
/** Every row with its id, in id order. */
const rowsOf = (d: PythonSessionDocument) =>
  Object.entries(isObj(d.rows) ? d.rows : {})
    .map(([k, r]) => ({ k, r: r as Row }))
    .sort((a, b) => Number(a.k) - Number(b.k));
/** The rows the SDK reads back: JSON ones (json.loads succeeds), in id order. */
const readable = (d: PythonSessionDocument) => rowsOf(d).filter(({ r }) => isObj(r) && "item" in r);
const itemOf = (v: unknown): Obj => (isObj(v) ? v : {});
const assistants = (cp: Pick<Checkpoint, "messages">) => cp.messages.filter((m) => m.role === "assistant").length;
/** What a session cannot hold of a checkpoint: its state, interrupt, times; other formats' checkpoint-level data. */
function sessionLoss(cp: Checkpoint, lossy: LossSink): void {
  for (const [k, v] of Object.entries(cp.state ?? {})) {
    const empty = v == null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
    if (!empty)
      lossy.push({
        pointer: `/state/${escapePtr(k)}`,
        field: `state.${k}`,
        reason: "an Agents SDK session has no state",
      });
  }
  if (cp.interrupt !== undefined)
    lossy.push({ pointer: "/interrupt", field: "interrupt", reason: "an Agents SDK session has no pending approvals" });
  for (const k of ["createdAt", "updatedAt"] as const)
    if (cp[k] !== undefined)
      lossy.push({
        pointer: `/${k}`,
        field: k,
        reason: `an Agents SDK session's ${k} is its row's (written by SQLite)`,
      });
  for (const k of Object.keys(cp.ext ?? {}))
    if (k !== PX && k !== "openai-agents")
      lossy.push({
        pointer: `/ext/${escapePtr(k)}`,
        field: k,
        reason: `an Agents SDK session cannot carry ${k}-specific data`,
      });
  if (cp.step !== assistants(cp))
    lossy.push({
      pointer: "/step",
      field: "step",
      reason: `a session has no step counter (read back as the number of assistant messages): step ${cp.step} is dropped`,
    });
}

const messagesTable = (d: PythonSessionDocument) => d.tables?.messages ?? "agent_messages";

export const openaiAgentsSessionAdapter: FormatAdapter<PythonSessionDocument> = {
  name: "openai-agents-session",
  title: "OpenAI Agents SDK (Python) SQLiteSession session (agent_sessions / agent_messages rows)",
  extensions: [".json"],
  lossy: [
    "state, interrupt",
    "per-message usage, model, provider, timestamps; tool results' error flag",
    "step (read back as the number of assistant messages)",
  ],
  schema: "formats/openai-agents/session",
  detectNeeds: { first: "{", anyOf: ['"rows"'] },
  detect(doc: SourceDoc) {
    const head = doc.text?.slice(0, 4096);
    if (head === undefined || !/^\s*\{/.test(head)) return { confidence: 0 };
    return /"session"\s*:/.test(head) && /"rows"\s*:\s*\{/.test(head) ? { confidence: 0.9 } : { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "an Agents SDK session document is a single JSON file", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!isObj(v) || !isObj(v.rows))
      throw inputError("not-a-session", "an Agents SDK session document is an object with its rows", {
        file: doc.name,
      });
    return v as unknown as PythonSessionDocument;
  },
  toCanonical(native, doc) {
    const rows = readable(native);
    const { messages } = responsesToMessages(rows.map(({ r }) => itemOf(r.item)));
    const id = native.session?.id ?? native.sessionId ?? doc.threadId ?? doc.name;
    const layout: Obj = { rows: rows.map(({ k, r }) => ({ id: Number(k), createdAt: r.createdAt ?? null })) };
    const own: Obj = { _layout: layout };
    if (native.session !== undefined) own.session = native.session;
    if (native.tables) own.tables = native.tables;
    // rows the SDK skips (not JSON) are not in the conversation, but they are in the store: a conversion into another
    // format reports them lost (they are not presentation), and one back into a session writes them back
    const skipped = rowsOf(native).filter(({ r }) => isObj(r) && !("item" in r));
    if (skipped.length) own.unreadable = skipped.map(({ k, r }) => ({ id: Number(k), ...r }));
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: id,
      step: assistants({ messages }),
      messages,
      state: {},
      origin: { format: "openai-agents-session" },
      ext: { [PX]: own },
    };
    return cp;
  },
  fromCanonical(cp, { lossy }) {
    sessionLoss(cp, lossy);
    const items = messagesToResponses(cp.messages, lossy);
    const own = isObj(cp.ext?.[PX]) ? (cp.ext[PX] as Obj) : {};
    const layout = isObj(own._layout) && Array.isArray(own._layout.rows) ? (own._layout.rows as Obj[]) : [];
    // the rows read keep their ids and times while there are as many items; else rows are numbered from 1
    const kept = layout.length === items.length;
    const rows: Record<string, Row> = {};
    items.forEach((item, k) => {
      const r = kept ? layout[k]! : undefined;
      rows[String(r ? r.id : k + 1)] = { createdAt: (r?.createdAt as string | null | undefined) ?? null, item };
    });
    for (const u of Array.isArray(own.unreadable) ? (own.unreadable as Obj[]) : []) {
      const { id, ...row } = u;
      if (rows[String(id)] === undefined) rows[String(id)] = row as Row;
    }
    const session = isObj(own.session)
      ? (own.session as PythonSessionDocument["session"])
      : own.session === null
        ? null
        : { id: cp.threadId };
    const sorted = Object.fromEntries(Object.entries(rows).sort(([a], [b]) => Number(a) - Number(b)));
    const out: PythonSessionDocument = {
      session,
      ...(session === null ? { sessionId: cp.threadId } : {}),
      rows: sorted,
    };
    if (isObj(own.tables)) out.tables = own.tables as PythonSessionDocument["tables"];
    return out;
  },
  lint(native, doc) {
    const issues: Issue[] = [];
    const loc = doc.text !== undefined ? jsonLocator(doc.text) : undefined;
    const table = messagesTable(native);
    for (const { k, r } of rowsOf(native)) {
      if (!isObj(r)) continue;
      let pointer: string | undefined;
      let message = "";
      if ("text" in r) {
        pointer = `/rows/${k}/text`;
        message = `${table} row ${k}: message_data is ${r.reason ?? "not JSON"} (the SDK skips this row)`;
      } else if (!isObj(r.item) || (!("type" in r.item) && !("role" in r.item))) {
        pointer = `/rows/${k}/item`;
        message = `${table} row ${k}: message_data is JSON but not a Responses API item (an object with a type or a role)`;
      }
      if (pointer === undefined) continue;
      const at = loc?.locate(pointer);
      issues.push({
        severity: "error",
        rule: "openai-agents-session/damaged-row",
        message,
        pointer,
        file: doc.name,
        line: at?.line,
        column: at?.column,
      });
    }
    return issues;
  },
  messagePointers(native) {
    const rows = readable(native);
    return responsesToMessages(rows.map(({ r }) => itemOf(r.item))).starts.map((i) => `/rows/${rows[i]!.k}/item`);
  },
  serialize: (native) => ({ text: stringifyJson(native, 2) }),
};
