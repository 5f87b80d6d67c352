/**
 * Semantic checkpoint diff: `diffCheckpoints(a, b)` compares two canonical checkpoints (of any origin formats)
 * and returns change records, a summary paragraph and an RFC 6902 patch. Pure; linear in the usual cases.
 */
import type { AgentMessage, Checkpoint } from "../../generated/types.js";
import { fieldChanges } from "./fields.js";
import { compileIgnore, prune, stripLayout, stripTopLayout, VOLATILE_GLOBS } from "./ignore.js";
import { diffMessages } from "./messages.js";
import { fieldOps, messagesPatch, type PatchOp } from "./patch.js";
import { isObject } from "./stable.js";
import { diffState } from "./state.js";
import { addUsage, summarize, usageTotals } from "./summary.js";
import type { Change, DiffResult, ModelChange, UsageChange } from "./types.js";

export * from "./types.js";
export { VOLATILE_GLOBS, compileIgnore, prune } from "./ignore.js";
export type { PatchOp } from "./patch.js";
export { align, alignBy, allAnchors, lis, type Alignment, type Key } from "./align.js";
export { stableJson, jsonEqual } from "./stable.js";

export interface DiffOptions {
  /** pointer globs to leave out of the comparison, e.g. "/messages/*\/timestamp", "/state/files/**" */
  ignore?: readonly string[];
  /** also ignore timestamps, createdAt/updatedAt, usage and file times (VOLATILE_GLOBS) */
  ignoreVolatile?: boolean;
  /** compute the RFC 6902 patch as well (default false) */
  patch?: boolean;
}

export interface DiffOutput extends DiffResult {
  /** present when options.patch: applied to the compared form of a, yields the compared form of b */
  patch?: PatchOp[];
}

/**
 * The documents as compared: ignored values removed; adapters' presentation records (`ext.<format>._layout`:
 * key spelling, explicit nulls) left out; in a cross-format comparison `ext` (format-specific extras) and `origin`
 * are left out too, since they necessarily differ.
 */
export function comparable(a: Checkpoint, b: Checkpoint, options: DiffOptions = {}): { a: Checkpoint; b: Checkpoint; notes: string[] } {
  const p = prepare(a, b, options);
  return { a: stripLayout(p.a) as Checkpoint, b: stripLayout(p.b) as Checkpoint, notes: p.notes };
}

/**
 * `comparable` except for the messages, which keep their presentation records: `diffMessages` leaves those out
 * itself, copying only the messages that differ. Without ignore rules (and with one format) nothing is copied.
 */
function prepare(a: Checkpoint, b: Checkpoint, options: DiffOptions): { a: Checkpoint; b: Checkpoint; notes: string[] } {
  const globs = [...(options.ignore ?? [])];
  const notes: string[] = [];
  const internal: string[] = [];
  if (options.ignoreVolatile) globs.push(...VOLATILE_GLOBS);
  const fa = a.origin?.format;
  const fb = b.origin?.format;
  if (fa && fb && fa !== fb) {
    internal.push("/origin", "/**/ext");
    notes.push(`formats differ (${fa} vs ${fb}): origin and ext (format-specific extras) are not compared`);
  }
  const m = compileIgnore([...globs, ...internal]);
  const pa = m ? prune(a, m) : a;
  let pb = m ? prune(b, m) : b;
  const named = nameDerivedThreadIds(a, b);
  if (named) {
    notes.push(named);
    if (isObject(pa) && isObject(pb) && "threadId" in pa) pb = { ...pb, threadId: pa.threadId };
  }
  return { a: stripTopLayout(pa) as Checkpoint, b: stripTopLayout(pb) as Checkpoint, notes };
}

/**
 * A thread id a format derived from the file (or folder) name is not content: when the two thread ids differ and
 * either side's is such a name, they are not compared, and this note says so (undefined otherwise).
 */
function nameDerivedThreadIds(a: Checkpoint, b: Checkpoint): string | undefined {
  if (a.threadId === b.threadId) return undefined;
  const sides = ([["a", a], ["b", b]] as const).filter(([, cp]) => cp.origin?.threadIdFrom === "file-name");
  if (sides.length === 0) return undefined;
  const which = sides.map(([s, cp]) => `${s}'s '${String(cp.threadId)}' (${cp.origin!.format})`).join(" and ");
  return `thread id not compared: ${which} ${sides.length === 1 ? "is" : "are"} derived from the file name, not content`;
}

/** Compare two canonical checkpoints. */
export function diffCheckpoints(a0: Checkpoint, b0: Checkpoint, options: DiffOptions = {}): DiffOutput {
  const { a, b, notes } = prepare(a0, b0, options);
  const ma: AgentMessage[] = Array.isArray(a.messages) ? a.messages : [];
  const mb: AgentMessage[] = Array.isArray(b.messages) ? b.messages : [];
  const plan = diffMessages(ma, mb);
  const changes: Change[] = [...plan.changes];

  // identical messages add the same usage on both sides: the delta comes from the messages that differ alone
  // (new, removed, or matched but changed), without a pass over the unchanged run of a long history
  const delta: UsageChange["delta"] = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, reasoning: 0 };
  for (let j = plan.pre; j < mb.length - plan.suf; j++) {
    if (plan.same[j]) continue;
    addUsage(delta, mb[j]!, 1);
    if (plan.sourceOf[j]! >= 0) addUsage(delta, ma[plan.sourceOf[j]!]!, -1);
  }
  for (const i of plan.removed) addUsage(delta, ma[i]!, -1);
  if (Object.values(delta).some((d) => d !== 0)) changes.push({ kind: "usage", before: usageTotals(ma), after: usageTotals(mb), delta });
  for (const field of ["model", "provider"] as const) {
    const x = lastAssistant(ma, field);
    const y = lastAssistant(mb, field);
    if (x !== y) changes.push({ kind: "model", field, ...(x !== undefined ? { before: x } : {}), ...(y !== undefined ? { after: y } : {}) } as ModelChange);
  }

  const sa = isObject(a.state) ? a.state : {};
  const sb = isObject(b.state) ? b.state : {};
  changes.push(...diffState(sa, sb));
  const { messages: _ma, state: _sa, ...ra } = a as unknown as Record<string, unknown>;
  const { messages: _mb, state: _sb, ...rb } = b as unknown as Record<string, unknown>;
  const top = fieldChanges(ra, rb, "");
  if ((a.state === undefined) !== (b.state === undefined)) fieldChanges(a.state, b.state, "/state", top);
  for (const f of top) changes.push({ kind: "field", ...f });

  const out: DiffOutput = {
    identical: changes.length === 0,
    summary: summarize(changes, ma.length, mb.length),
    changes,
    a: side(a0),
    b: side(b0),
    notes,
  };
  if (options.patch) {
    const ops = messagesPatch(ma.length, mb.length, plan.at, plan.bt, plan.sourceOf, plan.movedB, plan.same);
    if (a.state !== undefined && b.state !== undefined) fieldOps(fieldChanges(a.state, b.state, "/state"), ops);
    fieldOps(top, ops);
    out.patch = ops;
  }
  return out;
}

function side(cp: Checkpoint): DiffResult["a"] {
  return {
    threadId: String(cp.threadId),
    ...(cp.origin?.format ? { format: cp.origin.format } : {}),
    ...(cp.origin?.threadIdFrom ? { threadIdFrom: cp.origin.threadIdFrom } : {}),
  };
}

function lastAssistant(ms: readonly AgentMessage[], field: "model" | "provider"): string | undefined {
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i]!;
    if (m.role === "assistant") {
      const v = (m as unknown as Record<string, unknown>)[field];
      if (typeof v === "string") return v;
    }
  }
  return undefined;
}
