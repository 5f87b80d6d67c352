/**
 * `--redact` (and `--redact=secrets,email,…`) of the commands that show or write conversations (show, view, convert,
 * copy, migrate, export): the option, its parsing, and the summary line. The redaction itself is core/scan/redact.ts:
 * one `Redactor` per thread, so that a value gets the same placeholder every time it appears in the thread.
 */
import { usageError } from "../base/errors.js";
import type { FindingKind, RedactCounts, Redactor } from "../core/scan/redact.js";

export const REDACT_OPTION = {
  type: "string",
  describe:
    "replace secrets and personal data in what is shown or written by placeholders (<EMAIL_1>, the same one for the same value in a thread); =secrets,email,phone,ip,card,path chooses kinds (default: all)",
} as const;

/** The kinds `--redact` asks for, or undefined without it (a bad kind is a usage error). */
export async function redactKinds(value: unknown): Promise<Set<FindingKind> | undefined> {
  if (value === undefined || value === false) return undefined;
  const { parseKinds } = await import("../core/scan/redact.js");
  const kinds = parseKinds(
    Array.isArray(value) ? value.map(String) : value === true ? "" : (String(value) as string | undefined),
  );
  if (typeof kinds === "string")
    throw usageError(
      `--redact: ${kinds}${/[/.:#]/.test(String(value)) ? ` ('${String(value)}' looks like an input: --redact takes an optional value, so write it after the inputs or as --redact=all)` : ""}`,
    );
  return kinds;
}

/** Counts added up over threads. */
export function addCounts(into: RedactCounts, from: RedactCounts): void {
  for (const [k, n] of Object.entries(from)) into[k as FindingKind] = (into[k as FindingKind] ?? 0) + (n ?? 0);
}

/** `redacted: 3 secrets, 2 email, 1 phone` (or that nothing was found). */
export function redactedLine(counts: RedactCounts, unscanned = 0): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n)
    .map(([k, n]) => `${n} ${k}`);
  const line = parts.length ? `redacted: ${parts.join(", ")}` : "redacted: nothing found to redact";
  // values copied as stored without being read as text: not scanned, so not said to be clean
  return unscanned
    ? `${line}; ${unscanned} binary or non-UTF-8 value${unscanned === 1 ? "" : "s"} copied as stored, not scanned`
    : line;
}

/** A text with its findings replaced: a JSON (or JSON Lines) text keeps every character outside the strings changed. */
export async function redactText(text: string, r: Redactor): Promise<string> {
  return /^\s*[[{]/.test(text) ? r.jsonText(text) : (await r.strings([text]))[0]!;
}

/** A document as read (a JSON text, or a bundle of files: an amacs home) with its findings replaced. */
export async function redactDoc<D extends { text?: string; files?: Record<string, string> }>(
  doc: D,
  r: Redactor,
): Promise<D> {
  const out = { ...doc };
  if (doc.text !== undefined) out.text = await redactText(doc.text, r);
  if (doc.files) {
    const files: Record<string, string> = {};
    for (const [name, text] of Object.entries(doc.files)) files[name] = await redactText(text, r);
    out.files = files;
  }
  return out;
}

/**
 * A store's Saver view whose documents come out redacted (each thread's document through its own redactor): what
 * `migrate --redact` reads its source through. Every other method is the store's own.
 */
export function redactingSaver<S extends object>(saver: S, kinds: ReadonlySet<FindingKind>, counts: RedactCounts): S {
  const one = async (text: string | undefined) => {
    if (text === undefined) return text;
    const { Redactor } = await import("../core/scan/redact.js");
    const r = new Redactor(kinds);
    const out = await redactText(text, r);
    addCounts(counts, r.counts);
    return out;
  };
  return new Proxy(saver, {
    get(target, prop) {
      const s = target as unknown as {
        scan(o: unknown): AsyncIterable<Array<{ text: string; compact?: string; bytes?: number }>>;
        load(...a: unknown[]): Promise<string | undefined>;
        loadMany(keys: unknown[]): Promise<Array<string | undefined>>;
      };
      if (prop === "scan")
        return async function* (o: unknown) {
          for await (const batch of s.scan(o)) {
            const out = [];
            // the compact text and size were the original's: left out, the writer derives them from the new text
            for (const { compact: _c, bytes: _b, ...r } of batch) out.push({ ...r, text: (await one(r.text))! });
            yield out;
          }
        };
      if (prop === "load") return async (...a: unknown[]) => one(await s.load(...a));
      if (prop === "loadMany")
        return async (keys: unknown[]) => Promise.all((await s.loadMany(keys)).map((t) => one(t)));
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/**
 * `export --redact`: a transform that redacts each thread (its checkpoint, thread id and source; one redactor per
 * thread, the checkpoints of one thread's history sharing it), and an inspection of every row before it is written
 * that stops the export — nothing written — when a scan of it still finds something, naming it.
 */
export async function exportRedaction(value: unknown) {
  const kinds = value instanceof Set ? (value as Set<FindingKind>) : await redactKinds(value);
  if (!kinds) return undefined;
  const { Redactor, mask } = await import("../core/scan/redact.js");
  const { detectAll } = await import("../core/scan/detect.js");
  const { stringsOf } = await import("../core/scan/redact.js");
  const { CkptError, ExitCode } = await import("../base/errors.js");
  const all: RedactCounts[] = [];
  let key: string | undefined;
  let r: Redactor | undefined;
  type Thread = { source: string; threadId: string; namespace?: string; checkpoint: unknown };
  const api = {
    async transform<T extends Thread>(t: T): Promise<T> {
      const k = `${t.source}\u0000${t.namespace ?? ""}\u0000${t.threadId}`;
      if (k !== key || !r) {
        key = k;
        r = new Redactor(kinds);
        all.push(r.counts);
      }
      const [source, threadId] = await r.strings([t.source, t.threadId]);
      return { ...t, source: source!, threadId: threadId!, checkpoint: await r.value(t.checkpoint) };
    },
    async inspect(row: unknown, t: Thread): Promise<void> {
      const strings = stringsOf(row);
      const found = await detectAll(strings, kinds);
      for (let i = 0; i < found.length; i++) {
        const d = found[i]![0];
        if (!d) continue;
        throw new CkptError(
          ExitCode.NEGATIVE,
          "redact-leak",
          `--redact: the output of thread '${t.threadId}' still holds ${d.kind} (${d.rule}): ${mask(strings[i]!.slice(d.start, d.end))}; nothing written`,
        );
      }
    },
    counts(): RedactCounts {
      const out: RedactCounts = {};
      for (const c of all) addCounts(out, c);
      return out;
    },
  };
  return { ...api, transforms: [api.transform] };
}
