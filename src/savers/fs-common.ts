/** Helpers shared by the folder store (file.ts) and the single-file source (single-file.ts). */
import { statSync } from "node:fs";
import { CkptError, inputError, storeError } from "../base/errors.js";
import { MAX_TEXT_BYTES, tooLargeText } from "../base/json.js";

/** The thread id stored in a document, read from its first bytes (FileSaver writes threadId first). */
export function threadIdIn(text: string): string | undefined {
  const m = /^\s*\{\s*"threadId"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text.slice(0, 65536));
  if (m) {
    try {
      return JSON.parse(m[1]!) as string;
    } catch {
      return undefined;
    }
  }
  const any = /"threadId"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (!any) return undefined;
  try {
    return JSON.parse(any[1]!) as string;
  } catch {
    return undefined;
  }
}

/** A file-system failure as a store error (exit 4) naming the file; CkptErrors pass through. */
export function ioError(e: unknown, what: string, file: string): CkptError {
  if (e instanceof CkptError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.code === "ERR_STRING_TOO_LONG") {
    let size = MAX_TEXT_BYTES + 1;
    try {
      size = statSync(file).size;
    } catch {
      // the size is only for the message
    }
    return inputError("too-large", tooLargeText(size), { file }, err);
  }
  return storeError(`file-${err.code ?? "io"}`.toLowerCase(), `${what}: ${err.message}`, { file }, err);
}
