/**
 * JSON pointer order, shared by the loss reports of conversions (core/convert.ts sorts them; an adapter that writes
 * its notes in order uses it for the few it cannot write in order by construction).
 */

const isDigits = (s: string, from: number, to: number) => {
  if (from === to) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
};

/**
 * JSON pointer order: character by character (as the strings compare), except that where both pointers are at an
 * all-digit segment (an array index) the two compare by value, so /messages/9 comes before /messages/10. A pointer
 * comes before its own children. Allocates nothing.
 */
export function comparePointers(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (i > 0 && j > 0 && a.charCodeAt(i - 1) === 47 && b.charCodeAt(j - 1) === 47) {
      let ei = a.indexOf("/", i);
      if (ei < 0) ei = a.length;
      let ej = b.indexOf("/", j);
      if (ej < 0) ej = b.length;
      if (isDigits(a, i, ei) && isDigits(b, j, ej)) {
        const zi = leadingZeros(a, i, ei);
        const zj = leadingZeros(b, j, ej);
        const la = ei - i - zi;
        const lb = ej - j - zj;
        if (la !== lb) return la - lb;
        for (let k = 0; k < la; k++) {
          const d = a.charCodeAt(i + zi + k) - b.charCodeAt(j + zj + k);
          if (d !== 0) return d;
        }
        i = ei;
        j = ej;
        continue;
      }
    }
    const d = a.charCodeAt(i) - b.charCodeAt(j);
    if (d !== 0) return d;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

function leadingZeros(s: string, from: number, to: number): number {
  let n = 0;
  while (from + n < to - 1 && s.charCodeAt(from + n) === 48) n++;
  return n;
}

/** One JSON pointer token (RFC 6901): '~' as ~0, '/' as ~1. */
export const escapePtr = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
