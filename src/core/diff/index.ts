/**
 * Semantic checkpoint diff: `diffCheckpoints(a, b)` compares two canonical checkpoints (of any origin formats)
 * and returns change records, a summary paragraph and an RFC 6902 patch. Pure; linear in the usual cases.
 */
import type { AgentMessage, Checkpoint } from "../../generated/types.js";
import { fieldChanges } from "./fields.js";
import {
  compileIgnore,
  plainPointers,
  prune,
  prunePointers,
  stripLayout,
  stripTopLayout,
  VOLATILE_GLOBS,
} from "./ignore.js";
import { diffMessages, type FillInFilter } from "./messages.js";
import { getAdapter, isFormatName } from "../../formats/index.js";
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
  /**
   * compare `origin` and `ext` (each format's own bookkeeping) even when the formats, or the versions of one format,
   * differ (default false: those necessarily differ and say nothing of what the user sees)
   */
  bookkeeping?: boolean;
}

export interface DiffOutput extends DiffResult {
  /** present when options.patch: applied to the compared form of a, yields the compared form of b */
  patch?: PatchOp[];
}

/**
 * The documents as compared: ignored values removed; adapters' presentation records (`ext.<format>._layout`:
 * key spelling, explicit nulls) left out; in a cross-format comparison `ext` (format-specific extras) and `origin`
 * are left out too, since they necessarily differ; across versions of one format (an AI SDK 4 chat against its AI SDK
 * 6 conversion) `origin.version` and the ext values that record how each version spelled the document
 * (`FormatAdapter.versionBookkeeping`). `bookkeeping` keeps them all.
 */
export function comparable(
  a: Checkpoint,
  b: Checkpoint,
  options: DiffOptions = {},
): { a: Checkpoint; b: Checkpoint; notes: string[] } {
  const p = prepare(a, b, options);
  return { a: stripLayout(p.a) as Checkpoint, b: stripLayout(p.b) as Checkpoint, notes: p.notes };
}

/**
 * `comparable` except for the messages, which keep their presentation records: `diffMessages` leaves those out
 * itself, copying only the messages that differ. Without ignore rules (and with one format) nothing is copied.
 */
function prepare(
  a: Checkpoint,
  b: Checkpoint,
  options: DiffOptions,
): { a: Checkpoint; b: Checkpoint; notes: string[]; fills?: FillIns } {
  const globs = [...(options.ignore ?? [])];
  const notes: string[] = [];
  const internal: string[] = [];
  if (options.ignoreVolatile) globs.push(...VOLATILE_GLOBS);
  const fa = a.origin?.format;
  const fb = b.origin?.format;
  const va = a.origin?.version;
  const vb = b.origin?.version;
  if (fa && fb && fa !== fb && !options.bookkeeping) {
    internal.push("/origin", "/**/ext");
    notes.push(
      `formats differ (${fa} vs ${fb}): origin and ext (format-specific extras) are not compared (--verbose compares them)`,
    );
  } else if (fa && fa === fb && va !== undefined && vb !== undefined && va !== vb && !options.bookkeeping) {
    const kept = isFormatName(fa) ? (getAdapter(fa).versionBookkeeping ?? []) : [];
    internal.push("/origin/version", ...kept);
    notes.push(
      `versions differ (${fa} ${va} vs ${vb}): the version and how each spelled the document (${kept.length ? kept.map((g) => g.replace(/^\/messages\/\*\//, "")).join(", ") : "origin.version"}) are not compared (--verbose compares them)`,
    );
  }
  // where a thread id came from (a file name, a store key) is how it was read, not content: a chat file and its copy
  // in a store differ there and nowhere else
  if (!options.bookkeeping) internal.push("/origin/threadIdFrom");
  const all = [...globs, ...internal];
  const plain = plainPointers(all);
  const m = plain ? undefined : compileIgnore(all);
  const cut = (x: Checkpoint) => (plain ? prunePointers(x, plain) : m ? prune(x, m) : x);
  const pa = cut(a);
  let pb = cut(b);
  const named = nameDerivedThreadIds(a, b);
  if (named) {
    notes.push(named);
    if (isObject(pa) && isObject(pb) && "threadId" in pa) pb = { ...pb, threadId: pa.threadId };
  }
  const fills = fa && fb && fa !== fb ? fillIns(a, b) : undefined;
  const ca = fills ? fills.envelope("a", pa as Checkpoint, pb as Checkpoint) : pa;
  const cb = fills ? fills.envelope("b", pb as Checkpoint, pa as Checkpoint) : pb;
  return { a: stripTopLayout(ca) as Checkpoint, b: stripTopLayout(cb) as Checkpoint, notes, fills };
}

/**
 * Conversion defaults (`FormatAdapter.fillIns`) of two checkpoints of different formats: a value a format's writer
 * fills in where the checkpoint it wrote from had none (model "unknown", zero usage, a derived time, empty todos)
 * is treated as absent when the other side does not have it; `note()` counts what was left out, in one line.
 */
interface FillIns {
  /** a message value that is a fill-in (counted for the note: ask once per reported place) */
  message: FillInFilter;
  /** the same question, not counted (usage totals, the last model) */
  is: FillInFilter;
  /** `x` without its checkpoint-level fill-ins that `y` does not have (x itself when there are none) */
  envelope(side: "a" | "b", x: Checkpoint, y: Checkpoint): Checkpoint;
  note(): string | undefined;
}

function fillIns(a: Checkpoint, b: Checkpoint): FillIns | undefined {
  const of = (cp: Checkpoint) =>
    cp.origin && isFormatName(cp.origin.format) ? getAdapter(cp.origin.format).fillIns : undefined;
  const own = { a: of(a), b: of(b) };
  if (!own.a && !own.b) return undefined;
  const source = { a: b, b: a };
  const seen = { a: new Map<string, number>(), b: new Map<string, number>() };
  const count = (side: "a" | "b", what: string) => seen[side].set(what, (seen[side].get(what) ?? 0) + 1);
  const is: FillInFilter = (side, path, value, m) => own[side]?.message?.(path, value, m, source[side]) ?? false;
  return {
    is,
    message(side, path, value, m) {
      const hit = is(side, path, value, m);
      if (hit) count(side, path.split("/")[0]!);
      return hit;
    },
    envelope(side, x, y) {
      const f = own[side]?.checkpoint;
      if (!f || !isObject(x)) return x;
      let out: Record<string, unknown> | undefined;
      for (const k of ["createdAt", "updatedAt", "interrupt"] as const) {
        if (x[k] !== undefined && y[k] === undefined && f(`/${k}`, x[k], source[side])) {
          delete (out ??= { ...x })[k];
          count(side, k);
        }
      }
      const sx = isObject(x.state) ? x.state : undefined;
      const sy = isObject(y.state) ? y.state : {};
      if (sx) {
        let st: Record<string, unknown> | undefined;
        for (const k of Object.keys(sx)) {
          if (sy[k] === undefined && f(`/state/${k}`, sx[k], source[side])) {
            delete (st ??= { ...sx })[k];
            count(side, `state.${k}`);
          }
        }
        if (st) (out ??= { ...x }).state = st;
      }
      return (out ?? x) as unknown as Checkpoint;
    },
    note() {
      const parts: string[] = [];
      for (const side of ["a", "b"] as const) {
        const m = seen[side];
        if (m.size === 0) continue;
        const n = [...m.values()].reduce((s, v) => s + v, 0);
        const what = [...m].map(([k, v]) => (v > 1 ? `${k} ×${v}` : k)).join(", ");
        parts.push(`${side} (${(side === "a" ? a : b).origin!.format}): ${n} value${n === 1 ? "" : "s"} (${what})`);
      }
      return parts.length
        ? `conversion defaults not compared — values a format writes where it has none, absent on the other side: ${parts.join("; ")}`
        : undefined;
    },
  };
}

/**
 * A thread id a format derived from the file (or folder) name, or a store's thread key, is not content: when the two thread ids differ and
 * either side's is such a name, they are not compared, and this note says so (undefined otherwise).
 */
function nameDerivedThreadIds(a: Checkpoint, b: Checkpoint): string | undefined {
  if (a.threadId === b.threadId) return undefined;
  const sides = (
    [
      ["a", a],
      ["b", b],
    ] as const
  ).filter(([, cp]) => cp.origin?.threadIdFrom === "file-name");
  if (sides.length === 0) return undefined;
  const which = sides.map(([s, cp]) => `${s}'s '${String(cp.threadId)}' (${cp.origin!.format})`).join(" and ");
  return `thread id not compared: ${which} ${sides.length === 1 ? "is" : "are"} derived from the file name or store key, not content`;
}

/** Compare two canonical checkpoints. */
export function diffCheckpoints(a0: Checkpoint, b0: Checkpoint, options: DiffOptions = {}): DiffOutput {
  const { a, b, notes, fills } = prepare(a0, b0, options);
  const ma: AgentMessage[] = Array.isArray(a.messages) ? a.messages : [];
  const mb: AgentMessage[] = Array.isArray(b.messages) ? b.messages : [];
  const fa = a0.origin?.format;
  const fb = b0.origin?.format;
  const plan = diffMessages(ma, mb, fills?.message, Boolean(fa && fb && fa !== fb));
  const changes: Change[] = [...plan.changes];

  // identical messages add the same usage on both sides: the delta comes from the messages that differ alone
  // (new, removed, or matched but changed), without a pass over the unchanged run of a long history
  const delta: UsageChange["delta"] = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    reasoning: 0,
  };
  for (let j = plan.pre; j < mb.length - plan.suf; j++) {
    if (plan.same[j]) continue;
    const i = plan.sourceOf[j]!;
    if (fills && i >= 0) {
      addUsage(delta, usageWithoutFillIns(mb[j]!, ma[i]!, "b", fills.is), 1);
      addUsage(delta, usageWithoutFillIns(ma[i]!, mb[j]!, "a", fills.is), -1);
      continue;
    }
    addUsage(delta, mb[j]!, 1);
    if (i >= 0) addUsage(delta, ma[i]!, -1);
  }
  for (const i of plan.removed) addUsage(delta, ma[i]!, -1);
  if (Object.values(delta).some((d) => d !== 0))
    changes.push({ kind: "usage", before: usageTotals(ma), after: usageTotals(mb), delta });
  const lastA = lastAssistant(ma, fills && ((field, v, m) => fills.is("a", field, v, m)));
  const lastB = lastAssistant(mb, fills && ((field, v, m) => fills.is("b", field, v, m)));
  for (const field of ["model", "provider"] as const) {
    const x = lastA[field];
    const y = lastB[field];
    if (x !== y)
      changes.push({
        kind: "model",
        field,
        ...(x !== undefined ? { before: x } : {}),
        ...(y !== undefined ? { after: y } : {}),
      } as ModelChange);
  }

  const sa = isObject(a.state) ? a.state : {};
  const sb = isObject(b.state) ? b.state : {};
  changes.push(...diffState(sa, sb));
  const { messages: _ma, state: _sa, ...ra } = a as unknown as Record<string, unknown>;
  const { messages: _mb, state: _sb, ...rb } = b as unknown as Record<string, unknown>;
  const top = fieldChanges(ra, rb, "");
  if ((a.state === undefined) !== (b.state === undefined)) fieldChanges(a.state, b.state, "/state", top);
  for (const f of top) changes.push({ kind: "field", ...f });

  const filled = fills?.note();
  if (filled) notes.push(filled);
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

/**
 * The model and the provider of the last assistant message that names each (conversion defaults, `skip`, do not
 * count): one walk back for both.
 */
function lastAssistant(
  ms: readonly AgentMessage[],
  skip?: (field: "model" | "provider", v: string, m: AgentMessage) => boolean,
): { model?: string; provider?: string } {
  let model: string | undefined;
  let provider: string | undefined;
  for (let i = ms.length - 1; i >= 0 && (model === undefined || provider === undefined); i--) {
    const m = ms[i]!;
    if (m.role !== "assistant") continue;
    const r = m as unknown as { model?: unknown; provider?: unknown };
    if (model === undefined && typeof r.model === "string" && !skip?.("model", r.model, m)) model = r.model;
    if (provider === undefined && typeof r.provider === "string" && !skip?.("provider", r.provider, m))
      provider = r.provider;
  }
  return { model, provider };
}

/** `m` with the usage counts that are its format's fill-ins and absent from its partner `p` left out. */
function usageWithoutFillIns(m: AgentMessage, p: AgentMessage, side: "a" | "b", fill: FillInFilter): AgentMessage {
  const u = (m as { usage?: unknown }).usage;
  if (!isObject(u)) return m;
  const pu = (p as { usage?: unknown }).usage;
  const other = isObject(pu) ? pu : {};
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(u))
    if (other[k] === undefined && fill(side, `usage/${k}`, u[k], m)) delete (out ??= { ...u })[k];
  return out ? ({ ...m, usage: out } as unknown as AgentMessage) : m;
}
