/** Helpers shared by the savers. */
import { hexDigest } from "../base/digest.js";
import { ExitCode, RecordError } from "../base/errors.js";
import { parseJson, stringifyJson } from "../base/json.js";

/** Thread order everywhere: UTF-16 code units (what JavaScript's default sort does), so paging is stable. */
export const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A thread id every store can hold: a non-empty string without NUL (a RecordError naming the record otherwise). */
export function checkThreadId(id: string, namespace?: string): void {
  if (typeof id !== "string" || id.length === 0) {
    throw new RecordError(ExitCode.USAGE, "empty-thread-id", "a thread id must be a non-empty string", {
      threadId: String(id ?? ""),
      namespace,
    });
  }
  if (id.includes("\u0000"))
    throw new RecordError(ExitCode.USAGE, "nul-thread-id", `thread id ${JSON.stringify(id)} contains a NUL character`, {
      threadId: id,
      namespace,
    });
}

/** Re-serialize a JSON document (key order and big integers kept): `indent` 2 for FileSaver, none for Redis. */
export function reformat(text: string, indent: number | undefined, name: string): string {
  return stringifyJson(parseJson(text, { file: name }), indent);
}

/** Content hash of a document, independent of whitespace (compact re-serialization, key order kept). */
export function contentHash(text: string, name = "document"): string {
  let compact: string;
  try {
    compact = stringifyJson(parseJson(text, { file: name }));
  } catch {
    compact = text; // not JSON (an org file): hash the bytes
  }
  return hexDigest("sha256", compact);
}

/** The `updatedAt` of a checkpoint document, if it has one (for --on-conflict newer and `ls`). */
export function updatedAtOf(text: string): string | undefined {
  const m =
    /"updatedAt"\s*:\s*"([^"]*)"/.exec(text.length > 4096 ? text.slice(-4096) : text) ??
    /"updatedAt"\s*:\s*"([^"]*)"/.exec(text);
  return m?.[1];
}
