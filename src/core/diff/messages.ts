/**
 * Message-level comparison: identity keys, alignment, edit pairing and block-level detail. Pure.
 */
import type { AgentMessage, Content } from "../../generated/types.js";
import { alignBy, alignMiddle, allAnchors, trim, type Alignment, type Key } from "./align.js";
import { messageEqual } from "./equal.js";
import { fieldChanges, type FieldChange } from "./fields.js";
import { stripMessage } from "./ignore.js";
import { isObject, stableJson } from "./stable.js";
import { textDiff } from "./text.js";
import type { BlockChange, MessageChange } from "./types.js";

/**
 * Is `value` — at `path` inside message `m` of side a or b ("model", "usage/cacheRead"), absent from its partner —
 * a value that side's format fills in where it has nothing to write (a conversion default)? Such values are left
 * out of a message's changes.
 */
export type FillInFilter = (side: "a" | "b", path: string, value: unknown, m: AgentMessage) => boolean;

/** Result of aligning two message lists: the change records and, for each b index, its source index in a (−1 = new). */
export interface MessagePlan {
  changes: MessageChange[];
  /** sourceOf[j] = index in a of b's message j, or −1 when it is new */
  sourceOf: Int32Array;
  /** b indices of the messages that moved */
  movedB: Set<number>;
  /** length of the common prefix and suffix (identical messages) */
  pre: number;
  suf: number;
  /** indices into a of the messages that have no counterpart in b */
  removed: number[];
  /** same[j] = 1 when b's message j has a source in a and is identical to it */
  same: Uint8Array;
  /** the compared form of a's message i / b's message j (presentation records left out), made on demand */
  at: (i: number) => AgentMessage;
  bt: (j: number) => AgentMessage;
}

/**
 * The identity of a message across saves: a phi-core nodeId, its tool call ids (assistant) or answered call id
 * (tool result), else a content key — role, timestamp and the text of its blocks. A content key is cheap (no
 * serialization of the whole message); two different messages that share one are still compared field by field,
 * so a collision can only make the explanation less minimal, never wrong. A nodeId that is a safe integer (as a
 * number, a bigint or a string of digits) is the number itself — no string is built, and 5, 5n and "5" agree; every
 * other key is a string.
 */
export function messageKey(m: AgentMessage, withTime = true, textNumber?: (t: string) => number): Key {
  const ext = (m as { ext?: Record<string, unknown> }).ext;
  const phi = ext && isObject(ext["phi-core"]) ? (ext["phi-core"] as Record<string, unknown>) : undefined;
  if (phi) {
    const id = phi.nodeId;
    if (typeof id === "number" && Number.isSafeInteger(id)) return id;
    if (typeof id === "number" || typeof id === "bigint" || typeof id === "string") {
      const s = String(id);
      const v = Number(s);
      return Number.isSafeInteger(v) && String(v) === s ? v : `n:${s}`;
    }
  }
  if (m.role === "toolResult" && typeof (m as { toolCallId?: unknown }).toolCallId === "string")
    return `r:${(m as { toolCallId: string }).toolCallId}`;
  const content = (m as { content?: unknown }).content;
  if (m.role === "assistant" && Array.isArray(content)) {
    let ids = "";
    for (const b of content)
      if (isObject(b) && b.type === "toolCall" && typeof b.id === "string") ids += (ids ? "," : "") + b.id;
    if (ids) return `c:${ids}`;
  }
  return `h:${contentKey(m, withTime, textNumber)}`;
}

function contentKey(m: AgentMessage, withTime: boolean, textNumber?: (t: string) => number): string {
  const r = m as unknown as Record<string, unknown>;
  let k = withTime ? `${m.role}|${String(r.timestamp ?? "")}` : `${m.role}|`;
  const content = r.content;
  if (Array.isArray(content)) {
    for (const b of content) {
      if (!isObject(b)) continue;
      if (b.type === "text")
        k += textNumber && typeof b.text === "string" ? `|t#${textNumber(b.text)}` : `|t:${String(b.text)}`;
      else if (b.type === "thinking")
        k += textNumber && typeof b.thinking === "string" ? `|r#${textNumber(b.thinking)}` : `|r:${String(b.thinking)}`;
      else k += `|${String(b.type)}:${typeof b.data === "string" ? b.data.length : String(b.url ?? "")}`;
    }
  } else k += `|${String(r.kind)}:${stableJson(r.data)}`;
  return k;
}

const ROLE_CODE: Readonly<Record<string, number>> = { user: 0, assistant: 1, system: 2, toolResult: 3 };

/**
 * Message identities as integers: two messages get the same id exactly when their `messageKey`s are equal (except
 * where two different contents happen to spell one key, as a text holding "|t:" can: those now differ). No key
 * text is built for the usual message: its texts are numbered through one map (a text parsed from JSON is hashed
 * once, where it lies), and a message that is one text block with no time — and no id that `messageKey` would take
 * first — is identified by its text's number and its role alone. Every other message is keyed by `messageKey`,
 * with each text replaced by its number. Ids are below `count`.
 */
export class MessageIds {
  /** texts and the other keys are numbered from one counter (`atoms`); an id is an atom × 4 + a role code */
  private readonly texts = new Map<string, number>();
  private readonly keys = new Map<Key, number>();
  private atoms = 0;
  private readonly textNumber = (t: string): number => {
    let x = this.texts.get(t);
    if (x === undefined) this.texts.set(t, (x = this.atoms++));
    return x;
  };
  constructor(private readonly withTime: boolean) {}
  get count(): number {
    return this.atoms * 4;
  }
  /** The text of a message identified by its text and role alone (one text block, no time, no other id), or undefined. */
  private oneText(m: AgentMessage): string | undefined {
    const r = m as unknown as Record<string, unknown>;
    const content = r.content;
    if (!Array.isArray(content) || content.length !== 1) return undefined;
    const b = content[0];
    const ext = r.ext;
    return isObject(b) &&
      b.type === "text" &&
      typeof b.text === "string" &&
      !(isObject(ext) && isObject(ext["phi-core"])) &&
      !(m.role === "toolResult" && typeof r.toolCallId === "string") &&
      (!this.withTime || r.timestamp === undefined || r.timestamp === null || r.timestamp === "")
      ? b.text
      : undefined;
  }
  id(m: AgentMessage): number {
    const code = ROLE_CODE[m.role];
    const text = code === undefined ? undefined : this.oneText(m);
    if (text !== undefined) return this.textNumber(text) * 4 + code!;
    const k = messageKey(m, this.withTime, this.textNumber);
    let x = this.keys.get(k);
    if (x === undefined) this.keys.set(k, (x = this.atoms++));
    return x * 4;
  }
  /** The ids of `count` messages from `from` on. */
  ids(ms: readonly AgentMessage[], from: number, count: number): Int32Array {
    const out = new Int32Array(count);
    for (let k = 0; k < count; k++) out[k] = this.id(ms[from + k]!);
    return out;
  }
}

/** A one-line preview of a message: its role and the start of its first text (or the tool called / answered). */
export function preview(m: AgentMessage, max = 60): string {
  const content = (m as { content?: unknown }).content;
  let s = "";
  if (m.role === "toolResult") s = `${(m as { toolName?: string }).toolName ?? "?"}: `;
  if (Array.isArray(content)) {
    for (const b of content as Content[]) {
      if (b.type === "text") s += b.text;
      else if (b.type === "thinking") s += `(thinking) ${b.thinking}`;
      else if (b.type === "toolCall") s += `${b.name}(${clip(stableJson(b.arguments), 30)})`;
      else s += `[${b.type}]`;
      if (s.length >= max) break;
      s += " ";
    }
  } else if ("kind" in m) s = `${(m as { kind: string }).kind}: ${stableJson((m as { data?: unknown }).data)}`;
  return clip(s.replace(/\s+/g, " ").trim(), max);
}

function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

/** Index of the first element of sorted `xs` ≥ x. */
function lowerBound(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One side of a list of index pairs (a loop: `Int32Array.from` with a mapping function is several times slower). */
function column(pairs: ReadonlyArray<readonly [number, number]>, side: 0 | 1): Int32Array {
  const out = new Int32Array(pairs.length);
  for (let t = 0; t < pairs.length; t++) out[t] = pairs[t]![side];
  return out;
}

/**
 * Pair unmatched items that sit in the same gap between anchors and look like the same item (`same`), in order:
 * they are edits rather than a removal plus an insertion.
 */
export function pairEdits(al: Alignment, same: (i: number, j: number) => boolean): Array<[number, number]> {
  if (al.removed.length === 0 || al.inserted.length === 0) return [];
  // removed/inserted items all lie in the middle, so the middle anchors delimit the gaps
  const anchA = column(al.anchors, 0);
  const anchB = column(al.anchors, 1);
  const byGap = new Map<number, number[]>();
  for (const j of al.inserted) {
    const g = lowerBound(anchB, j);
    const l = byGap.get(g);
    if (l) l.push(j);
    else byGap.set(g, [j]);
  }
  const pairs: Array<[number, number]> = [];
  const next = new Map<number, number>();
  for (const i of al.removed) {
    const g = lowerBound(anchA, i);
    const cand = byGap.get(g);
    if (!cand) continue;
    for (let q = next.get(g) ?? 0; q < cand.length; q++) {
      if (same(i, cand[q]!)) {
        pairs.push([i, cand[q]!]);
        next.set(g, q + 1);
        break;
      }
    }
  }
  return pairs;
}

function sameKind(a: AgentMessage, b: AgentMessage): boolean {
  if (a.role !== b.role) return false;
  if (a.role === "toolResult") return (a as { toolName?: string }).toolName === (b as { toolName?: string }).toolName;
  if ("kind" in a || "kind" in b) return (a as { kind?: string }).kind === (b as { kind?: string }).kind;
  return true;
}

/**
 * Compare two message lists: prefix/suffix trimmed by structural equality, the middle aligned by identity key.
 * The messages may still carry adapters' presentation records (`ext.<format>._layout`): they are left out of the
 * comparison, but only messages that differ as given are copied without them (`at`/`bt`) — the common, unchanged
 * run of a long history is compared in place, never copied, keyed or serialized.
 */
export function diffMessages(
  a: readonly AgentMessage[],
  b: readonly AgentMessage[],
  fillIn?: FillInFilter,
  across = false,
): MessagePlan {
  const strippedA = new Map<number, AgentMessage>();
  const strippedB = new Map<number, AgentMessage>();
  const at = (i: number): AgentMessage => {
    let x = strippedA.get(i);
    if (x === undefined) strippedA.set(i, (x = stripMessage(a[i]!)));
    return x;
  };
  const bt = (j: number): AgentMessage => {
    let y = strippedB.get(j);
    if (y === undefined) strippedB.set(j, (y = stripMessage(b[j]!)));
    return y;
  };
  const eq = (i: number, j: number): boolean => {
    const x = a[i];
    const y = b[j];
    if (messageEqual(x, y)) return true;
    // unequal as given: equal once presentation records are left out?
    const x2 = at(i);
    const y2 = bt(j);
    return (x2 !== x || y2 !== y) && messageEqual(x2, y2);
  };
  // identity keys are not affected by presentation records: computed on the messages as given
  // across formats, times are often absent, rounded or filled in on one side: the content alone says which is which
  const { pre, suf } = trim(a.length, b.length, eq);
  const ids = new MessageIds(!across);
  const idsA = ids.ids(a, pre, Math.max(0, a.length - suf - pre));
  const idsB = ids.ids(b, pre, Math.max(0, b.length - suf - pre));
  const al = alignMiddle(pre, suf, a.length, b.length, idsA, idsB, ids.count);
  const edits = pairEdits(al, (i, j) => sameKind(a[i]!, b[j]!));

  const sourceOf = new Int32Array(b.length).fill(-1);
  const same = new Uint8Array(b.length);
  for (let j = 0; j < al.pre; j++) {
    sourceOf[j] = j;
    same[j] = 1;
  }
  for (let s = 1; s <= al.suf; s++) {
    sourceOf[b.length - s] = a.length - s;
    same[b.length - s] = 1;
  }
  const anchors = al.anchors;
  for (let t = 0; t < anchors.length; t++) sourceOf[anchors[t]![1]] = anchors[t]![0];
  for (const [i, j] of al.moved) sourceOf[j] = i;
  for (const [i, j] of edits) sourceOf[j] = i;

  const changes: Array<{ pos: number; c: MessageChange }> = [];
  /** the record of a matched pair, or undefined when it is identical and in order */
  const pair = (i: number, j: number, op: "edited" | "moved"): MessageChange | undefined => {
    const equal = eq(i, j);
    if (equal) {
      same[j] = 1;
      if (op === "edited") return undefined;
    }
    const c: MessageChange = { kind: "message", op, role: b[j]!.role, a: i, b: j, preview: preview(b[j]!) };
    if (!equal) {
      const d = messageDetail(at(i), bt(j), j, fillIn);
      // nothing but conversion defaults: not an edit
      if (fillIn && op === "edited" && !d.blocks && !d.fields) return undefined;
      Object.assign(c, d);
    }
    return c;
  };
  const swapped = swappedAnchors(al, sourceOf);
  for (let t = 0; t < anchors.length; t++) {
    const j = anchors[t]![1];
    const c = pair(anchors[t]![0], j, swapped?.has(j) ? "moved" : "edited");
    if (c) changes.push({ pos: j, c });
  }
  for (const [i, j] of edits) {
    const c = pair(i, j, "edited");
    if (c) changes.push({ pos: j, c });
  }
  for (const [i, j] of al.moved) changes.push({ pos: j, c: pair(i, j, "moved")! });

  let lastKept = -1;
  for (let j = b.length - 1; j >= 0; j--)
    if (sourceOf[j]! >= 0) {
      lastKept = j;
      break;
    }
  // a removed message is shown after the b position of the nearest earlier a message that is still in order
  const inOrder = edits.length ? [...al.anchors, ...edits].sort((x, y) => x[0] - y[0]) : al.anchors;
  const orderA = al.removed.length ? column(inOrder, 0) : new Int32Array(0);
  const editedA = new Set(edits.map((p) => p[0]));
  const removed: number[] = [];
  for (const i of al.removed) {
    if (editedA.has(i)) continue;
    removed.push(i);
    const t = lowerBound(orderA, i);
    const pos = t > 0 ? inOrder[t - 1]![1] + 0.5 : al.pre - 0.5;
    changes.push({ pos, c: { kind: "message", op: "removed", role: a[i]!.role, a: i, preview: preview(a[i]!) } });
  }
  for (const j of al.inserted) {
    if (sourceOf[j] !== -1) continue;
    changes.push({
      pos: j,
      c: {
        kind: "message",
        op: j > lastKept ? "appended" : "inserted",
        role: b[j]!.role,
        b: j,
        preview: preview(b[j]!),
      },
    });
  }
  changes.sort((x, y) => x.pos - y.pos);
  return {
    changes: changes.map((x) => x.c),
    sourceOf,
    movedB: new Set(al.moved.map((p) => p[1])),
    pre: al.pre,
    suf: al.suf,
    removed,
    same,
    at,
    bt,
  };
}

/**
 * b indices of in-order messages that traded places with a neighbour: when two adjacent messages are swapped,
 * either one can be called "the one that moved", and naming only one (possibly an extension message the user
 * never touched) misleads. Both are reported as moved.
 */
function swappedAnchors(al: Alignment, sourceOf: Int32Array): Set<number> | undefined {
  let out: Set<number> | undefined;
  for (const [i, j] of al.moved) {
    // b's message at i came from a's j, and stayed in order: the other half of the swap
    if (Math.abs(i - j) === 1 && i < sourceOf.length && sourceOf[i] === j) (out ??= new Set()).add(i);
  }
  return out;
}

/** Block-level and field-level detail of an edited message (pointers relative to b's message j). */
function messageDetail(
  ma: AgentMessage,
  mb: AgentMessage,
  j: number,
  fillIn?: FillInFilter,
): { blocks?: BlockChange[]; fields?: FieldChange[] } {
  const out: { blocks?: BlockChange[]; fields?: FieldChange[] } = {};
  const { content: ca, ...ra } = ma as { content?: unknown };
  const { content: cb, ...rb } = mb as { content?: unknown };
  let fields = fieldChanges(ra, rb, `/messages/${j}`);
  if (fillIn) {
    const base = `/messages/${j}/`.length;
    fields = fields.filter((f) =>
      f.before === undefined
        ? !fillIn("b", f.pointer.slice(base), f.after, mb)
        : f.after === undefined
          ? !fillIn("a", f.pointer.slice(base), f.before, ma)
          : true,
    );
  }
  if (Array.isArray(ca) && Array.isArray(cb)) {
    const blocks = diffBlocks(ca as Content[], cb as Content[], `/messages/${j}/content`);
    if (blocks.length) out.blocks = blocks;
  } else fieldChanges(ca, cb, `/messages/${j}/content`, fields);
  if (fields.length) out.fields = fields;
  return out;
}

/** Which content blocks changed between two content arrays. */
export function diffBlocks(ca: readonly Content[], cb: readonly Content[], base: string): BlockChange[] {
  // blocks are few: key-order-independent text keeps equal blocks equal
  const key = (c: Content, h: string) => (c.type === "toolCall" && typeof c.id === "string" ? `c:${c.id}` : `h:${h}`);
  const { al, ha, hb } = alignBy(ca, cb, stableJson, key);
  const edits = pairEdits(al, (i, j) => ca[i]!.type === cb[j]!.type);
  const out: Array<{ pos: number; c: BlockChange }> = [];
  const changed = (i: number, j: number) => {
    if (ha[i] === hb[j]) return;
    const x = ca[i] as unknown as Record<string, unknown>;
    const y = cb[j] as unknown as Record<string, unknown>;
    const c: BlockChange = { op: "changed", a: i, b: j, type: cb[j]!.type };
    const textKey = x.type === "text" ? "text" : x.type === "thinking" ? "thinking" : undefined;
    if (textKey && typeof x[textKey] === "string" && typeof y[textKey] === "string" && x[textKey] !== y[textKey]) {
      c.text = textDiff(x[textKey] as string, y[textKey] as string);
      const { [textKey]: _x, ...rx } = x;
      const { [textKey]: _y, ...ry } = y;
      const f = fieldChanges(rx, ry, `${base}/${j}`);
      if (f.length) c.fields = f;
    } else c.fields = fieldChanges(x, y, `${base}/${j}`);
    out.push({ pos: j, c });
  };
  for (const [i, j] of allAnchors(al)) changed(i, j);
  for (const [i, j] of al.moved) {
    if (ha[i] === hb[j]) out.push({ pos: j, c: { op: "moved", a: i, b: j, type: cb[j]!.type } });
    else changed(i, j);
  }
  for (const [i, j] of edits) changed(i, j);
  const ea = new Set(edits.map((p) => p[0]));
  const eb = new Set(edits.map((p) => p[1]));
  for (const i of al.removed) if (!ea.has(i)) out.push({ pos: i - 0.5, c: { op: "removed", a: i, type: ca[i]!.type } });
  for (const j of al.inserted) if (!eb.has(j)) out.push({ pos: j, c: { op: "added", b: j, type: cb[j]!.type } });
  out.sort((x, y) => x.pos - y.pos);
  return out.map((x) => x.c);
}
