/**
 * A conversion's loss notes, kept compact: a long history converted to deep-agent drops 60,000 fields, and a note
 * object with its own pointer string for each cost more than the rest of the conversion. A `LossLog` keeps per note
 * the message it names (`/messages/N…`) as a number, the rest of its pointer (mostly one shared string such as
 * "/model"), its field and its reason (shared strings), and builds a `LossyNote` only when one is asked for.
 */
import type { LossSink, LossyNote } from "./types.js";

/** N for a pointer `/messages/N` or `/messages/N/…` (N without leading zeros), else -1. */
export function messageIndexOf(pointer: string): number {
  if (!pointer.startsWith("/messages/")) return -1;
  let n = 0;
  let i = 10;
  for (; i < pointer.length; i++) {
    const c = pointer.charCodeAt(i);
    if (c === 47) break;
    if (c < 48 || c > 57 || (i === 11 && pointer.charCodeAt(10) === 48)) return -1;
    n = n * 10 + (c - 48);
  }
  return i === 10 || n > Number.MAX_SAFE_INTEGER ? -1 : n;
}

/** Kinds (tail, field, reason) a log numbers, at most; a note of another kind is kept whole (`spilled`). */
const KINDS = 1024;
/** Kinds one tail may have before further notes with that tail are kept whole (so that finding a kind stays short). */
const KINDS_PER_TAIL = 16;
/** The code of a note kept whole. */
const SPILLED = -KINDS - 1;
/** Message indices a code holds exactly (message × KINDS + kind stays below 2^53). */
const MAX_CODED_MESSAGE = 2 ** 42;

/**
 * Loss notes in order. Notes an adapter adds (`at`, `push`) are kept in parts: one number per note, its message
 * and its kind — the rest of its pointer, its field and its reason, numbered once per log (deepagent's 60,000 notes
 * for a long history are a dozen kinds). A log made from notes already built (`LossLog.of`, a conversion whose notes
 * had to be sorted) keeps those objects and reads its parts from them.
 */
export class LossLog implements LossSink {
  /**
   * Per note: message × KINDS + kind, the message being -1 when its pointer is not `/messages/N…` (N as
   * messageIndexOf reads it); SPILLED for a note kept whole in `spill`.
   */
  private readonly codes: number[] = [];
  /** Per kind: the pointer after `/messages/N` ("" or "/…"), or the whole pointer of a note that names no message. */
  private readonly tails: string[] = [];
  private readonly fields: string[] = [];
  private readonly reasons: string[] = [];
  /** the kinds of each tail */
  private readonly kindsOfTail = new Map<string, number[]>();
  /** notes kept whole: too many kinds, or a message index beyond what a code holds */
  private readonly spill = new Map<number, { message: number; tail: string; field: string; reason: string }>();
  /** the notes as objects: built once asked for (until another note is added), or given (`of`: then the record) */
  private built: LossyNote[] | undefined;
  private whole = false;

  /** A log of `notes`, in their order: the array itself, which `notes()` returns and `push` adds to. */
  static of(notes: LossyNote[]): LossLog {
    const log = new LossLog();
    log.built = notes;
    log.whole = true;
    return log;
  }

  get length(): number {
    return this.whole ? this.built!.length : this.codes.length;
  }

  /** Whether the log holds its notes as LossyNote objects (`of`) rather than in parts. */
  get holdsNotes(): boolean {
    return this.whole;
  }

  push(note: LossyNote): void {
    if (this.whole) {
      this.built!.push(note);
      return;
    }
    const p = note.pointer;
    const m = messageIndexOf(p);
    this.add(m, m < 0 ? p : tailAfterMessage(p), note.field, note.reason);
  }

  /** A note at `/messages/<message><tail>` (`tail` "" or starting with "/"), its pointer built only when read. */
  at(message: number, tail: string, field: string, reason: string): void {
    if (this.whole) this.built!.push({ pointer: `/messages/${message}${tail}`, field, reason });
    else this.add(message, tail, field, reason);
  }

  private add(message: number, tail: string, field: string, reason: string): void {
    const kind = message <= MAX_CODED_MESSAGE ? this.kindOf(tail, field, reason) : -1;
    if (kind >= 0) this.codes.push(message * KINDS + kind);
    else {
      this.spill.set(this.codes.length, { message, tail, field, reason });
      this.codes.push(SPILLED);
    }
    this.built = undefined;
  }

  /** The number of a kind (numbered when new), or -1 when the log numbers no more kinds of this tail or at all. */
  private kindOf(tail: string, field: string, reason: string): number {
    let kinds = this.kindsOfTail.get(tail);
    if (kinds === undefined) this.kindsOfTail.set(tail, (kinds = []));
    for (let j = 0; j < kinds.length; j++) {
      const k = kinds[j]!;
      if (this.reasons[k] === reason && this.fields[k] === field) return k;
    }
    if (kinds.length >= KINDS_PER_TAIL || this.tails.length >= KINDS) return -1;
    const k = this.tails.length;
    this.tails.push(tail);
    this.fields.push(field);
    this.reasons.push(reason);
    kinds.push(k);
    return k;
  }

  /** The kind of note `k` (not spilled). */
  private kindAt(k: number): number {
    const code = this.codes[k]!;
    return code - Math.floor(code / KINDS) * KINDS;
  }

  /** The message note `k` names, or -1. */
  messageOf(k: number): number {
    if (this.whole) return messageIndexOf(this.built![k]!.pointer);
    const code = this.codes[k]!;
    return code === SPILLED ? this.spill.get(k)!.message : Math.floor(code / KINDS);
  }

  /** Note `k`'s pointer after `/messages/N`, or its whole pointer when it names no message (messageOf -1). */
  tailOf(k: number): string {
    if (this.whole) {
      const p = this.built![k]!.pointer;
      return messageIndexOf(p) < 0 ? p : tailAfterMessage(p);
    }
    return this.codes[k] === SPILLED ? this.spill.get(k)!.tail : this.tails[this.kindAt(k)]!;
  }

  pointerOf(k: number): string {
    if (this.whole) return this.built![k]!.pointer;
    const m = this.messageOf(k);
    const tail = this.tailOf(k);
    return m < 0 ? tail : `/messages/${m}${tail}`;
  }

  fieldOf(k: number): string {
    if (this.whole) return this.built![k]!.field;
    return this.codes[k] === SPILLED ? this.spill.get(k)!.field : this.fields[this.kindAt(k)]!;
  }

  reasonOf(k: number): string {
    if (this.whole) return this.built![k]!.reason;
    return this.codes[k] === SPILLED ? this.spill.get(k)!.reason : this.reasons[this.kindAt(k)]!;
  }

  /** The notes as `LossyNote` objects (built once, then the same array). */
  notes(): LossyNote[] {
    if (this.built) return this.built;
    const out: LossyNote[] = new Array(this.length);
    for (let k = 0; k < out.length; k++)
      out[k] = { pointer: this.pointerOf(k), field: this.fieldOf(k), reason: this.reasonOf(k) };
    return (this.built = out);
  }
}

/** The rest of a pointer `/messages/N…` after N: "" or "/…". */
function tailAfterMessage(p: string): string {
  const slash = p.indexOf("/", 10);
  return slash < 0 ? "" : p.slice(slash);
}

/**
 * Note a field of message `message` (`tail` "" or "/…" after `/messages/N`): compactly into a LossLog, as a
 * LossyNote into any other sink (an array).
 */
export function noteAt(sink: LossSink, message: number, tail: string, field: string, reason: string): void {
  if (sink instanceof LossLog) sink.at(message, tail, field, reason);
  else sink.push({ pointer: `/messages/${message}${tail}`, field, reason });
}
