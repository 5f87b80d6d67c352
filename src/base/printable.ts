/**
 * Text from a store or a document (a thread id, a message, a file name) shown on a terminal: control characters
 * would act instead of showing — ESC sequences colour the terminal or set its title, a newline splits a table row, a
 * bidi override reorders what follows. `printable` writes them as escapes (`\x1b`, `\n`, `\u202e`) so that what is
 * printed is what is there. Machine output (`--json`) is JSON and escapes them itself.
 */

/** C0 controls, DEL, C1 controls, and the bidi embedding / override / isolate characters. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeControl(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
}

/**
 * `s` with its control characters escaped. `lines`: keep newlines and tabs (a message's text, a multi-line error);
 * without it (an id, a table cell) they are escaped too.
 */
export function printable(s: string, lines = false): string {
  const re = lines ? CONTROL_BUT_LINES : CONTROL;
  re.lastIndex = 0;
  return re.test(s) ? s.replace(re, escapeControl) : s;
}

/** A copy of `v` with every string in it `printable(…, true)` (a checkpoint about to be rendered as text). */
export function printableDeep<T>(v: T): T {
  if (typeof v === "string") return printable(v, true) as T;
  if (Array.isArray(v)) return v.map(printableDeep) as T;
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, printable(k, true), { value: printableDeep(x), enumerable: true, writable: true });
    return out as T;
  }
  return v;
}
