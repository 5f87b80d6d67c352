/**
 * A file bundle: how a checkpoint that is not one JSON text travels through stores that keep JSON documents
 * (SQLite, PostgreSQL, Redis, memory). An amacs agent home is two org files; a yoagent session is JSONL. The
 * bundle holds the files exactly (texts as JSON strings, so every byte survives any JSON re-serialization) under
 * their names relative to the folder they came from, so writing the thread back to a folder gives the same names:
 *
 *   {"ckptFiles":1,"format":"amacs","files":{"home-1/agent-chat.org":"#+TITLE: …","home-1/scratchpad.org":"…"}}
 *   {"ckptFiles":1,"format":"yoagent-session","files":{"session.v0.18.jsonl":"{\"id\":\"e1\",…}"}}
 *
 * Every reader (validate, show, ls, diff, convert, migrate's check) opens a bundle into the document it holds
 * (`unbundle`) before detecting its format. Pure: no I/O.
 */
import { inputError } from "../base/errors.js";
import { FORMAT_NAMES, type FormatName, type SourceDoc } from "./types.js";

export interface Bundle {
  ckptFiles: 1;
  format: FormatName;
  /** path relative to the store folder (forward slashes) → the file's text */
  files: Record<string, string>;
}

/** Formats whose documents travel as bundles. */
export const BUNDLED_FORMATS: readonly FormatName[] = ["amacs", "yoagent-session"];

const HEAD = /^\s*\{\s*"ckptFiles"\s*:/;

/** Whether a text is a bundle (by its first key: cheap enough to ask of every document). */
export const isBundleText = (text: string | undefined): boolean => text !== undefined && HEAD.test(text.slice(0, 64));

/** A bundle's text: compact JSON, files in name order (so one set of files always gives one text). */
export function bundleText(format: FormatName, files: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(files).sort()) sorted[k] = files[k]!;
  return JSON.stringify({ ckptFiles: 1, format, files: sorted } satisfies Bundle);
}

/** Parse and check a bundle's envelope; throws an input error (exit 3) naming what is wrong. */
export function readBundle(text: string, name: string): Bundle {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw inputError(
      "json-syntax",
      `a ckpt file bundle that is not valid JSON: ${(e as Error).message}`,
      { file: name },
      e,
    );
  }
  const b = v as Partial<Bundle>;
  const bad = (what: string) => inputError("bad-bundle", `a ckpt file bundle ${what}`, { file: name });
  if (!b || typeof b !== "object" || b.ckptFiles !== 1) throw bad('needs "ckptFiles": 1');
  if (typeof b.format !== "string" || !(FORMAT_NAMES as readonly string[]).includes(b.format))
    throw bad(`names an unknown format ${JSON.stringify(b.format)}`);
  if (!b.files || typeof b.files !== "object" || Object.keys(b.files).length === 0) throw bad("holds no files");
  for (const [k, t] of Object.entries(b.files)) {
    if (typeof t !== "string") throw bad(`has a non-text file ${JSON.stringify(k)}`);
    if (k.startsWith("/") || k.split("/").some((p) => p === "" || p === "." || p === ".."))
      throw bad(`names a file outside its folder: ${JSON.stringify(k)}`);
  }
  return b as Bundle;
}

const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);
const dir = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");

/**
 * The document a bundle holds, as the adapters read it: an amacs home as `files` (by base name), named
 * `<doc name>/<home>` (amacs takes the thread id from the last part); a single file as `text`, named
 * `<doc name>/<file>` (the Rust formats take the thread id from the file's stem). Other documents pass through.
 */
export function unbundle(doc: SourceDoc): SourceDoc & { bundle?: Bundle } {
  if (doc.text === undefined || !isBundleText(doc.text)) return doc;
  const b = readBundle(doc.text, doc.name);
  const keys = Object.keys(b.files);
  if (b.format === "amacs") {
    const files: Record<string, string> = {};
    for (const k of keys) files[base(k)] = b.files[k]!;
    const home = dir(keys[0]!);
    return {
      name: home ? `${doc.name}/${home}` : doc.name,
      files,
      bundle: b,
      ...(doc.threadId !== undefined ? { threadId: doc.threadId } : {}),
    };
  }
  if (keys.length !== 1)
    throw inputError("bad-bundle", `a ${b.format} bundle holds one file, this one ${keys.length}`, { file: doc.name });
  return {
    name: `${doc.name}/${keys[0]}`,
    text: b.files[keys[0]!]!,
    bundle: b,
    ...(doc.threadId !== undefined ? { threadId: doc.threadId } : {}),
  };
}
