/**
 * Findings in a conversation, and the conversation with them replaced (`--redact`). A `Redactor` belongs to one
 * thread: the same value gets the same placeholder every time it appears in that thread (`<EMAIL_1>` in the text, in
 * a tool's arguments and in the state alike), and counts what it replaced per kind. Everything else is left exactly
 * as it was: a checkpoint's strings are rewritten in place of their findings only, and a JSON text (a store's record,
 * a converted document, an export line) keeps every character outside the strings it changes.
 */
import { type Detection, detectAll, FINDING_KINDS, type FindingKind, mask, PLACEHOLDER } from "./detect.js";

export { FINDING_KINDS, type FindingKind, mask } from "./detect.js";

/** Parse `--redact` / `--redact=secrets,email,…` (and `--kinds` of scan): the kinds chosen, or a message saying what is wrong. */
export function parseKinds(value: string | boolean | undefined | string[]): Set<FindingKind> | string {
  if (value === undefined || value === false) return new Set();
  const items = (Array.isArray(value) ? value : [value]).flatMap((v) =>
    v === true || v === "" ? ["all"] : String(v).split(","),
  );
  const out = new Set<FindingKind>();
  for (const raw of items) {
    const k = raw.trim().toLowerCase();
    if (k === "all" || k === "true") FINDING_KINDS.forEach((x) => out.add(x));
    else if (k === "secret") out.add("secrets");
    else if ((FINDING_KINDS as readonly string[]).includes(k)) out.add(k as FindingKind);
    else return `unknown kind '${raw}': expected all or a list of ${FINDING_KINDS.join(", ")}`;
  }
  return out;
}

/** Replacements made, per kind (`--redact`'s summary). */
export type RedactCounts = Partial<Record<FindingKind, number>>;

export class Redactor {
  private readonly ids = new Map<string, string>();
  private readonly next: Partial<Record<FindingKind, number>> = {};
  readonly counts: RedactCounts = {};
  constructor(readonly kinds: ReadonlySet<FindingKind> = new Set(FINDING_KINDS)) {}

  /** The placeholder of a value of a kind: the same one for the same value throughout the thread. */
  placeholder(kind: FindingKind, value: string): string {
    const key = `${kind}\u0000${value}`;
    let p = this.ids.get(key);
    if (!p) {
      const n = (this.next[kind] ?? 0) + 1;
      this.next[kind] = n;
      p = `<${PLACEHOLDER[kind]}_${n}>`;
      this.ids.set(key, p);
    }
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    return p;
  }

  /**
   * Each string with its findings replaced (the strings in one batch: one detection pass); those `keep` names (a
   * store's own tokens, not content) as they are.
   */
  async strings(texts: string[], keep?: (s: string) => boolean): Promise<string[]> {
    if (this.kinds.size === 0) return texts;
    const found = await detectAll(keep ? texts.map((t) => (keep(t) ? "" : t)) : texts, this.kinds);
    return texts.map((t, i) => this.apply(t, found[i]!));
  }

  private apply(t: string, found: Detection[]): string {
    if (found.length === 0) return t;
    let out = "";
    let at = 0;
    for (const d of found) {
      out += t.slice(at, d.start) + this.placeholder(d.kind, t.slice(d.start, d.end));
      at = d.end;
    }
    return out + t.slice(at);
  }

  /** A copy of any JSON value (a canonical checkpoint, a native document) with every string redacted. */
  async value<T>(v: T): Promise<T> {
    const texts: string[] = [];
    collect(v, texts);
    const done = await this.strings(texts);
    let i = 0;
    return rebuild(v, () => done[i++]!) as T;
  }

  /**
   * A JSON text with the findings in its strings replaced and every other character kept (the text is not
   * re-serialized: only the string tokens that change are written anew, JSON-escaped). Works on JSON Lines too.
   * `keep`: as for `strings`.
   */
  async jsonText(text: string, keep?: (s: string) => boolean): Promise<string> {
    const tokens: Array<{ start: number; end: number; value: string }> = [];
    STRING_TOKEN.lastIndex = 0;
    for (let m = STRING_TOKEN.exec(text); m; m = STRING_TOKEN.exec(text)) {
      let value: string;
      try {
        value = JSON.parse(m[0]) as string;
      } catch {
        continue;
      }
      tokens.push({ start: m.index, end: m.index + m[0].length, value });
    }
    const done = await this.strings(
      tokens.map((t) => t.value),
      keep,
    );
    let out = "";
    let at = 0;
    tokens.forEach((t, i) => {
      if (done[i] === t.value) return;
      out += text.slice(at, t.start) + JSON.stringify(done[i]);
      at = t.end;
    });
    return at === 0 ? text : out + text.slice(at);
  }
}

/** A JSON string token (outside strings, a JSON text holds no `"`). */
const STRING_TOKEN = /"(?:[^"\\\n]|\\.)*"/g;

function collect(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x, out);
}

function rebuild(v: unknown, next: () => string): unknown {
  if (typeof v === "string") return next();
  if (Array.isArray(v)) return v.map((x) => rebuild(x, next));
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: rebuild(x, next), enumerable: true, writable: true, configurable: true });
    return out;
  }
  if (v !== null && typeof v === "object") {
    // not a plain object (a Uint8Array of a native document): its strings, if any, are not JSON's; left as it is
    return v;
  }
  return v;
}

/** A finding of `scan`: where in a conversation, what kind, and the value masked. */
export interface Finding {
  kind: FindingKind;
  rule: string;
  /** the message's index in the canonical checkpoint (as `ckpt show` numbers them); undefined for state */
  message?: number;
  role?: string;
  /** where in the message or state: `text`, `thinking`, `toolCall <name>`, `toolResult <name>`, `state.<key>`, … */
  where: string;
  /** the value with all but its first and last characters masked */
  masked: string;
}

/** A place in a checkpoint holding strings, for `scan` to name. */
export interface Place {
  message?: number;
  role?: string;
  where: string;
  strings: string[];
}

/** Every finding in a set of places (one detection pass over all their strings). */
export async function findIn(places: Place[], kinds?: ReadonlySet<FindingKind>): Promise<Finding[]> {
  const texts = places.flatMap((p) => p.strings);
  const found = await detectAll(texts, kinds);
  const out: Finding[] = [];
  let i = 0;
  for (const p of places)
    for (const s of p.strings) {
      for (const d of found[i++]!)
        out.push({
          kind: d.kind,
          rule: d.rule,
          ...(p.message !== undefined ? { message: p.message } : {}),
          ...(p.role ? { role: p.role } : {}),
          where: p.where,
          masked: mask(s.slice(d.start, d.end)),
        });
    }
  return out;
}

/** The strings of a JSON value (tool arguments, a state channel), in order. */
export function stringsOf(v: unknown): string[] {
  const out: string[] = [];
  collect(v, out);
  return out;
}
