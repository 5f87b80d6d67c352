/**
 * Reading a document's bytes as UTF-8 without rewriting them: Node's decoder replaces every invalid sequence with
 * U+FFFD, so a text read that way and written elsewhere (a migration) would change bytes nobody asked it to. These
 * say where the first invalid byte is instead.
 */
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";

/** The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0) return i;
    const c1 = b[i + 1];
    if (c1 === undefined) return i;
    // overlong forms, UTF-16 surrogates and code points past U+10FFFF
    if (
      (c === 0xe0 && c1 < 0xa0) ||
      (c === 0xed && c1 > 0x9f) ||
      (c === 0xf0 && c1 < 0x90) ||
      (c === 0xf4 && c1 > 0x8f)
    )
      return i;
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** A file's bytes are not UTF-8: where (its `code` is ERR_INVALID_UTF8, as fs errors carry one). */
export class InvalidUtf8Error extends Error {
  readonly code = "ERR_INVALID_UTF8";
  constructor(
    readonly offset: number,
    byte: number,
  ) {
    super(
      `not valid UTF-8 at byte offset ${offset} (0x${byte.toString(16).padStart(2, "0")}): fix its encoding (ckpt never rewrites bytes it was not asked to convert)`,
    );
    this.name = "InvalidUtf8Error";
  }
}

/** Bytes as text, or InvalidUtf8Error naming the first invalid byte (a U+FFFD in the text is checked, never trusted). */
export function utf8Text(buf: Buffer): string {
  const text = buf.toString("utf8");
  if (!text.includes("\uFFFD") || isUtf8(buf)) return text;
  const at = invalidUtf8At(buf);
  throw new InvalidUtf8Error(at, buf[at]!);
}

/** A file's text (readFileSync's errors as they are), or InvalidUtf8Error when its bytes are not UTF-8. */
export const readUtf8File = (path: string): string => utf8Text(readFileSync(path));

/** A text some reader decoded from `path` with replacement: the same text, or InvalidUtf8Error when the bytes are not UTF-8. */
export function checkedUtf8(text: string, path: string): string {
  return text.includes("\uFFFD") ? readUtf8File(path) : text;
}
