/**
 * Re-lay a JSON text out the way a given system writes it, changing only whitespace and string escapes — every
 * number, literal and key stays exactly as written (`1.0` stays `1.0`, `18446744073709551615` stays itself).
 *
 * - `indent: 2` is Python's `json.dump(indent=2)`, serde_json's `to_writer_pretty` and `JSON.stringify(v, null, 2)`
 *   alike: `{` newline, two spaces per level, `"key": value`, `,` at line ends, `[]` / `{}` when empty, no final
 *   newline. `indent: 0` is compact (serde_json's `to_string`, `JSON.stringify(v)`).
 * - `asciiOnly` is Python's default `ensure_ascii=True`: every character outside space…`~` inside strings is
 *   written as `\uXXXX` (lowercase hex; characters beyond U+FFFF as their surrogate pair), as Swarmer's files are.
 *   Without it, escapes that JSON does not need (`\u00e9`, `\/`) are written as the character itself, as serde_json
 *   and JavaScript do; control characters keep the short forms (`\n`, `\t`, …) or `\u00XX`.
 * The input must be valid JSON (the caller has checked it); behaviour on anything else is unspecified.
 */
export interface JsonLayout {
  indent: 0 | 2;
  asciiOnly: boolean;
}

const SHORT: Record<string, string> = {
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  '"': '\\"',
  "\\": "\\\\",
};
const hex4 = (c: number) => "\\u" + c.toString(16).padStart(4, "0");

/** One string token (quotes included) re-escaped for the layout. */
function restring(token: string, asciiOnly: boolean): string {
  // fast path: nothing escaped and nothing to escape
  if (!token.includes("\\") && (!asciiOnly || /^[\x20-\x7e]*$/.test(token))) return token;
  const value = JSON.parse(token) as string;
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const c = value.charCodeAt(i);
    const short = SHORT[ch];
    if (short) out += short;
    else if (c < 0x20) out += hex4(c);
    else if (asciiOnly && c > 0x7e) out += hex4(c);
    else if (c >= 0xd800 && c <= 0xdfff && !asciiOnly) {
      // a lone surrogate cannot be written as UTF-8: escaped, as JSON.stringify does
      const pair =
        c <= 0xdbff && i + 1 < value.length && value.charCodeAt(i + 1) >= 0xdc00 && value.charCodeAt(i + 1) <= 0xdfff;
      if (pair) {
        out += ch + value[i + 1];
        i++;
      } else out += hex4(c);
    } else out += ch;
  }
  return out + '"';
}

/** The end (exclusive) of the string token starting at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let k = q - 1;
    while (text.charCodeAt(k) === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1; // an even run of backslashes: the quote is not escaped
    j = q + 1;
  }
}

const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** `text` re-laid out (see the module comment). */
export function relayout(text: string, layout: JsonLayout): string {
  const parts: string[] = [];
  const pretty = layout.indent === 2;
  let depth = 0;
  const nl = () => "\n" + "  ".repeat(depth);
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  const nextSignificant = (from: number) => {
    let k = from;
    while (k < n && isWs(text.charCodeAt(k))) k++;
    return k;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isWs(c)) {
      i++;
      continue;
    }
    if (c === 34) {
      const end = stringEnd(text, i);
      parts.push(restring(text.slice(i, end), layout.asciiOnly));
      i = end;
      continue;
    }
    if (c === 123 || c === 91) {
      const k = nextSignificant(i + 1);
      const close = c === 123 ? 125 : 93;
      if (text.charCodeAt(k) === close) {
        parts.push(c === 123 ? "{}" : "[]");
        i = k + 1;
        continue;
      }
      depth++;
      parts.push(pretty ? text[i]! + nl() : text[i]!);
      i++;
      continue;
    }
    if (c === 125 || c === 93) {
      depth--;
      parts.push(pretty ? nl() + text[i]! : text[i]!);
      i++;
      continue;
    }
    if (c === 44) {
      parts.push(pretty ? "," + nl() : ",");
      i++;
      continue;
    }
    if (c === 58) {
      parts.push(pretty ? ": " : ":");
      i++;
      continue;
    }
    // a number or a literal: copied as written
    let j = i + 1;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (isWs(d) || d === 44 || d === 58 || d === 93 || d === 125) break;
      j++;
    }
    parts.push(text.slice(i, j));
    i = j;
  }
  return parts.join("");
}
