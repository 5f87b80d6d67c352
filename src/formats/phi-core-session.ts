/**
 * phi-core session file `<session_id>.json` (FORMATS.md §2.2): a pretty-printed (2-space) `Session` with its
 * loops, turns and events. The canonical checkpoint carries the loops' messages in order (threadId =
 * session_id, createdAt/updatedAt = created_at/last_active_at); everything else of the session — loops without
 * their messages, turns, events, usage — travels verbatim in `ext["phi-core-session"]` so the file round-trips.
 * From another format, a one-loop session is written (status Completed, no events).
 */
import type { AgentMessage, Checkpoint } from "../generated/types.js";
import { addInts, parseJson, stringifyJson, type JsonInt } from "../base/json.js";
import { inputError } from "../base/errors.js";
import type { FormatAdapter, Issue, LintMessage, SourceDoc } from "./types.js";
import {
  RUST_FILL_INS,
  PHI,
  countAssistant,
  defaultTimestampOf,
  isObj,
  issueMaker,
  messageLintView,
  messageToCanonical,
  messagesLint,
  singleText,
  unsafeIntegerLint,
  reportEnvelopeLoss,
} from "./rust-common.js";
import { phiMessagesFromCanonical } from "./phi-core.js";
import { envelopeTimes, isEnvelopeFillIn, sameInstant } from "./envelope.js";

type Obj = Record<string, unknown>;
type Native = Obj;
const FMT = "phi-core-session";

const loopsOf = (s: Native): Obj[] => (Array.isArray(s.loops) ? (s.loops as unknown[]).filter(isObj) : []);

function isoOf(ms: number | bigint): string {
  const d = new Date(Number(ms));
  return Number.isFinite(d.getTime()) ? d.toISOString() : new Date(0).toISOString();
}

/** Sum of the assistant usages, in phi-core's Usage declaration order. */
function totalUsage(messages: Obj[]): Obj {
  const keys = ["input", "output", "reasoning", "cache_read", "cache_write", "total_tokens"];
  const sum: Record<string, JsonInt> = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const m of messages) {
    if (m.role === "assistant" && isObj(m.usage))
      for (const k of keys) sum[k] = addInts(sum[k], m.usage[k] as JsonInt | undefined);
  }
  return sum;
}

const SESSION_KEYS = ["session_id", "agent_id", "last_active_at", "formation"].map((k) => new RegExp(`"${k}"\\s*:`));
const LOOPS = /"loops"\s*:/;

/**
 * The detection confidence from how many of the session keys (the four above and `loops`) the head names, counted only as far as the verdict needs:
 * 4+ of the 5, or 2+ with `loops`. Without `loops` a second miss decides (a document of another format, whose text
 * holds none of them, costs two scans, not five).
 */
function sessionConfidence(head: string): number {
  const loops = LOOPS.test(head);
  let hits = loops ? 1 : 0;
  let misses = loops ? 0 : 1;
  for (const re of SESSION_KEYS) {
    if (re.test(head)) hits++;
    else if (++misses > 1 && !loops) return 0;
  }
  return hits >= 4 ? 0.95 : hits >= 2 && loops ? 0.5 : 0;
}

export const phiCoreSessionAdapter: FormatAdapter<Native> = {
  name: FMT,
  title: "phi-core session file (<session_id>.json: loops, turns, events)",
  extensions: [".json"],
  lossy: [
    "state (todos, files, scratchpad, contexts)",
    "interrupt",
    "step (read back as the number of assistant messages)",
    "toolCall.providerMetadata",
    "stopReason 'refusal' (written as 'stop')",
    "file content blocks; images given by URL",
    "system messages (kept as extension messages of kind 'ckpt.system')",
  ],
  schema: "formats/phi-core-session/session",
  // sessionConfidence: without `"loops"` the first missing session key (session_id first) is the second miss
  detectNeeds: { first: "{", anyOf: ['"loops"', '"session_id"'] },
  detect(doc: SourceDoc) {
    const head = doc.text?.slice(0, 64 * 1024);
    if (head === undefined || !/^\uFEFF?\s*\{/.test(head)) return { confidence: 0 };
    return { confidence: sessionConfidence(head) };
  },
  parse(doc: SourceDoc) {
    const v = parseJson(singleText(doc, FMT), { file: doc.name });
    if (!isObj(v))
      throw inputError("not-an-object", "expected a phi-core Session object {session_id, agent_id, …, loops}", {
        file: doc.name,
        pointer: "",
        line: 1,
        column: 1,
      });
    return v;
  },
  toCanonical(native: Native): Checkpoint {
    const messages: AgentMessage[] = [];
    const counts: number[] = [];
    const loops = loopsOf(native);
    for (const loop of loops) {
      const ms = Array.isArray(loop.messages) ? (loop.messages as Obj[]) : [];
      counts.push(ms.length);
      for (const m of ms) messages.push(messageToCanonical(isObj(m) ? m : {}, PHI));
    }
    const session: Obj = {};
    for (const [k, v] of Object.entries(native)) {
      session[k] = k === "loops" && Array.isArray(v) ? v.map((l) => (isObj(l) ? { ...l, messages: [] } : l)) : v;
    }
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: String(native.session_id ?? ""),
      step: countAssistant(messages),
      messages,
      state: {},
      origin: { format: FMT },
      ext: { [FMT]: { session, loopMessageCounts: counts } },
    };
    if (typeof native.created_at === "string") cp.createdAt = native.created_at;
    if (typeof native.last_active_at === "string") cp.updatedAt = native.last_active_at;
    return cp;
  },
  /** toCanonical's thread id and messages (every loop's, in order) as the canonical lints read them. */
  lintView(native: Native) {
    const messages: LintMessage[] = [];
    for (const loop of loopsOf(native)) {
      const ms = Array.isArray(loop.messages) ? (loop.messages as Obj[]) : [];
      for (const m of ms) messages.push(messageLintView(isObj(m) ? m : {}, PHI));
    }
    return { threadId: String(native.session_id ?? ""), messages };
  },
  fromCanonical(cp, options) {
    reportEnvelopeLoss(cp, FMT, options.lossy, { timestamps: true, threadId: true });
    const se = isObj(cp.ext?.[FMT]) ? (cp.ext![FMT] as Obj) : undefined;
    if (se && isObj(se.session) && Array.isArray(se.loopMessageCounts)) {
      const session = se.session;
      const counts = se.loopMessageCounts as number[];
      const out: Obj = {};
      let at = 0;
      for (const [k, v] of Object.entries(session)) {
        if (k === "loops" && Array.isArray(v)) {
          out.loops = v.map((l, li) => {
            if (!isObj(l)) return l;
            const n =
              li === v.length - 1 ? cp.messages.length - at : Math.min(counts[li] ?? 0, cp.messages.length - at);
            const slice = cp.messages.slice(at, at + n);
            const native = phiMessagesFromCanonical(cp, options.lossy, slice, at);
            at += n;
            return { ...l, messages: native };
          });
        } else out[k] = v;
      }
      if (typeof cp.createdAt === "string") out.created_at = cp.createdAt;
      if (typeof cp.updatedAt === "string") out.last_active_at = cp.updatedAt;
      out.session_id = cp.threadId;
      return out;
    }
    const messages = phiMessagesFromCanonical(cp, options.lossy);
    const times = envelopeTimes(cp);
    const created = times.createdAt ?? isoOf(defaultTimestampOf(cp));
    const updated = times.updatedAt ?? created;
    const agent = "ckpt";
    const assistant = messages.find((m) => m.role === "assistant");
    return {
      session_id: cp.threadId,
      agent_id: agent,
      created_at: created,
      last_active_at: updated,
      formation: { Explicit: { timestamp: created } },
      parent_spawn_ref: null,
      scope: "persistent",
      loops: [
        {
          loop_id: `${cp.threadId}.default.0`,
          session_id: cp.threadId,
          agent_id: agent,
          parent_loop_id: null,
          continuation_kind: "Initial",
          started_at: created,
          ended_at: updated,
          status: "Completed",
          rejection: null,
          config: assistant ? { model: assistant.model, provider: assistant.provider, config_id: null } : null,
          messages,
          turns: [],
          usage: totalUsage(messages),
          metadata: null,
          events: [],
          children_loop_ids: [],
          child_loop_refs: [],
          parallel_group: null,
        },
      ],
    };
  },
  lint(native: Native, doc: SourceDoc): Issue[] {
    const make = issueMaker(doc);
    const items: Array<[string, unknown]> = [];
    loopsOf(native).forEach((l, li) => {
      (Array.isArray(l.messages) ? l.messages : []).forEach((m: unknown, i: number) =>
        items.push([`/loops/${li}/messages/${i}`, m]),
      );
    });
    return [...messagesLint(items, PHI, make), ...unsafeIntegerLint(native, make, doc.text)];
  },
  messagePointers(native: Native) {
    const out: string[] = [];
    loopsOf(native).forEach((l, li) => {
      (Array.isArray(l.messages) ? l.messages : []).forEach((_m: unknown, i: number) =>
        out.push(`/loops/${li}/messages/${i}`),
      );
    });
    return out;
  },
  /** `serde_json::to_writer_pretty`: 2-space indent, no trailing newline. */
  integers: "64-bit",
  /** the Rust message defaults, and created_at / last_active_at derived from the messages when the source has none */
  fillIns: {
    message: RUST_FILL_INS.message,
    checkpoint: (pointer, value, source) =>
      isEnvelopeFillIn(pointer, value, source) ||
      ((pointer === "/createdAt" || pointer === "/updatedAt") && sameInstant(value, isoOf(defaultTimestampOf(source)))),
  },
  serialize: (native) => ({ text: stringifyJson(native, 2) }),
};
