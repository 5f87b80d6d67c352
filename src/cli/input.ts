/**
 * Reading what the user names into SourceDocs: a file, `-` (stdin), an amacs folder, or `<saver-uri>#<threadId>`.
 * Every failure is a CkptError with the path and a documented exit code (3 input, 4 store).
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { inputError, redactUri } from "../core/errors.js";
import type { SourceDoc } from "../formats/types.js";

/** Saver URIs: memory:, file:, sqlite:, redis://, rediss://, postgres://, postgresql:// */
export const SAVER_URI = /^(memory:|file:|sqlite:|rediss?:\/\/|postgres(ql)?:\/\/)/i;

export const AMACS_FILES = ["agent-chat.org", "scratchpad.org"];

export async function readStdin(stdin: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
  return Buffer.concat(chunks);
}

/** Decode bytes as UTF-8 text; refuse binary data and invalid UTF-8 with the byte offset. */
export function decodeText(buf: Buffer, name: string): string {
  const probe = buf.subarray(0, 8192);
  if (probe.includes(0)) throw inputError("binary", `binary data (a NUL byte at offset ${probe.indexOf(0)}): expected a UTF-8 text document`, { file: name });
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    const text = buf.toString("utf8");
    const at = text.indexOf("\uFFFD");
    throw inputError("encoding", `not valid UTF-8${at >= 0 ? ` (near character ${at})` : ""}: expected a UTF-8 text document`, { file: name });
  }
}

/** Split `uri#threadId` (the last '#' separates; the thread id is percent-decoded). */
export function splitThreadRef(spec: string): { uri: string; threadId?: string } {
  const i = spec.lastIndexOf("#");
  if (i < 0) return { uri: spec };
  let threadId = spec.slice(i + 1);
  try {
    threadId = decodeURIComponent(threadId);
  } catch {
    /* keep raw */
  }
  return { uri: spec.slice(0, i), threadId };
}

export interface ReadOptions {
  stdin: Readable;
  cwd?: string;
}

/** Read one named input into a SourceDoc. */
export async function readSource(spec: string, opts: ReadOptions): Promise<SourceDoc> {
  if (spec === "-") return { name: "<stdin>", text: decodeText(await readStdin(opts.stdin), "<stdin>") };
  if (SAVER_URI.test(spec) && spec.includes("#")) {
    const { uri, threadId } = splitThreadRef(spec);
    const { openSaver } = await import("../savers/index.js");
    const saver = await openSaver(uri);
    try {
      const text = await saver.load(threadId!);
      const name = `${redactUri(uri)}#${threadId}`;
      if (text === undefined) throw inputError("no-thread", `no checkpoint for thread '${threadId}'`, { file: redactUri(uri) });
      return { name, text };
    } finally {
      await saver.close();
    }
  }
  const path = spec.startsWith("file:") ? spec.slice(5) : spec;
  const full = opts.cwd ? join(opts.cwd, path) : path;
  let st;
  try {
    st = await stat(full);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw inputError("missing", "no such file or directory", { file: spec });
    if (code === "EACCES") throw inputError("unreadable", "permission denied", { file: spec });
    throw inputError("unreadable", `cannot read: ${(e as Error).message}`, { file: spec });
  }
  if (st.isDirectory()) {
    const names = await readdir(full);
    const org = AMACS_FILES.filter((n) => names.includes(n));
    if (org.length === 0) {
      throw inputError("directory", "is a directory: expected a file (or an amacs folder with agent-chat.org / scratchpad.org)", { file: spec });
    }
    const files: Record<string, string> = {};
    for (const n of org) files[n] = decodeText(await readFile(join(full, n)), join(spec, n));
    return { name: spec, files };
  }
  if (!st.isFile()) throw inputError("not-a-file", "not a regular file", { file: spec });
  let buf: Buffer;
  try {
    buf = await readFile(full);
  } catch (e) {
    throw inputError("unreadable", `cannot read: ${(e as Error).message}`, { file: spec });
  }
  return { name: spec, text: decodeText(buf, spec) };
}
