/**
 * What each entry of a store folder is: a checkpoint (a file, or an amacs home folder) with the thread id it stands
 * for, a namespace sub-folder, or something that is not a checkpoint (ignored, with the reason). Nothing is skipped
 * without a reason: `ckpt migrate` counts ignored entries and lists them with --verbose.
 *
 * A file that looks like a checkpoint — by its content (a format claims it) or by its name (`agent_<id>.pkl`, or a
 * `.json` / `.pkl` / `.jsonl` file that is not even valid JSON) — is a record even when it does not load: the
 * migration's check rejects it with the reason (exit 5). Valid JSON that no format claims is ignored.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { detectAll } from "../formats/index.js";
import { bundleText } from "../formats/bundle.js";
import { threadIdIn } from "./fs-common.js";
import { SWARMER_FILE, threadIdOfFile } from "./folder-layout.js";
import { MAX_TEXT_BYTES, tooLargeText } from "../base/json.js";
import { InvalidUtf8Error, readUtf8File } from "../base/utf8.js";

export const AMACS_FILES = ["agent-chat.org", "scratchpad.org"] as const;
const DOC = /\.(json|pkl|jsonl)$/;
const TEMP = /\.tmp\.|\.tmp-|\.ckpt-tmp-/;

export interface FoundRecord {
  kind: "record";
  threadId: string;
  /** file or amacs home folder, relative to the namespace folder */
  rel: string;
  /** the record's text (the file's, or an amacs home's / a JSONL file's bundle); absent when only the head was read */
  text?: string;
  size: number;
  mtimeMs: number;
  /** a FileSaver (or canonical) document: its thread id is its `threadId`, its own path is `<sanitized id>.json` */
  byContent: boolean;
}
export interface IgnoredEntry {
  kind: "ignored";
  rel: string;
  reason: string;
  /**
   * A file of a checkpoint's name that could not be read (permission denied, too large for one string, a link loop):
   * not "not a checkpoint" but a record ckpt cannot take — a migration rejects it (exit 5), `ls` names it.
   */
  unreadable?: { threadId: string };
}
export type FolderEntry = FoundRecord | IgnoredEntry | { kind: "namespace"; rel: string };

const ignored = (rel: string, reason: string): IgnoredEntry => ({ kind: "ignored", rel, reason });

/** One buffer for every head read: listing a large folder allocates nothing per file but the head string. */
const HEAD_BYTES = 1536;
const headBuf = Buffer.alloc(HEAD_BYTES);

/**
 * The first bytes of a file (FileSaver writes the thread id first), with its size and modification time (ms).
 * Synchronous on purpose: four syscalls per file, where the promise API pays a thread-pool round trip for each
 * (listing 10,000 files took ~4 s that way, ~0.1 s this way).
 */
export function readHead(path: string): { head: string; size: number; mtimeMs: number } {
  const fd = openSync(path, "r");
  try {
    const bytesRead = readSync(fd, headBuf, 0, HEAD_BYTES, 0);
    const st = fstatSync(fd);
    return { head: headBuf.toString("utf8", 0, bytesRead), size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function whyNot(name: string): string {
  if (name.endsWith(".lock")) return "a lock file (phi-core's session lock protocol)";
  if (TEMP.test(name)) return "a temporary file of a write in progress or interrupted";
  if (/^(consciousness\.el|monologue\.org|config\.el|skill-bindings\.el)$/.test(name))
    return "amacs agent state outside the chat and scratchpad (not part of a checkpoint)";
  return "not a checkpoint file";
}

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A JSONL file: a yoagent session (bundled), one that does not load, or JSON lines of something else. */
function jsonlEntry(name: string, text: string, size: number, mtimeMs: number): FolderEntry {
  const doc = { name, text };
  const rec: FoundRecord = {
    kind: "record",
    threadId: threadIdOfFile(name, ""),
    rel: name,
    text: bundleText("yoagent-session", { [name]: text }),
    size,
    mtimeMs,
    byContent: false,
  };
  if (detectAll(doc).some((d) => d.format === "yoagent-session")) return rec;
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  return lines.length > 0 && lines.every(parses) ? ignored(name, "JSON lines, but not a yoagent session") : rec;
}

/** Whether a file is read at all: a checkpoint's name (`.json`, `.pkl`, `.jsonl`), not a temporary file. */
export const isDocName = (name: string) => DOC.test(name) && !TEMP.test(name);

/** A file that is not read: ignored by its name, with the reason. */
export const nameIgnored = (name: string): IgnoredEntry => ignored(name, whyNot(name));

/** A file of a checkpoint's name that could not be read (`code`: the error's code, else its message). */
export function readFailed(name: string, code: string | undefined, message: string, path?: string): IgnoredEntry {
  if (code === "ENOENT") return ignored(name, "removed while the folder was read");
  if (code === "EISDIR") return ignored(name, "unreadable: EISDIR"); // a link to a folder: not a file at all
  let why = `cannot read it: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? message)}`;
  if (code === "ERR_INVALID_UTF8") why = message;
  if (code === "ERR_STRING_TOO_LONG") {
    let size = MAX_TEXT_BYTES + 1;
    try {
      if (path) size = statSync(path).size;
    } catch {
      // the size is only for the message
    }
    why = tooLargeText(size);
  }
  return { ...ignored(name, why), unreadable: { threadId: threadIdOfFile(name, "") } };
}

/** A document that starts with its thread id (FileSaver's layout), whose id the first bytes may cut short. */
const OPENS_WITH_ID = /^\s*\{\s*"threadId"\s*:\s*"/;

/**
 * The thread id a FileSaver document holds: from its first bytes, or — when they cut a very long id short (10,000
 * characters) — from the whole text. One rule for every id: a record's key is the id its document holds, never the
 * file's name in its place (a store that cannot hold the id rejects the record).
 */
function contentIdOf(head: string, whole: () => string): string | undefined {
  const id = threadIdIn(head.slice(0, HEAD_BYTES));
  if (id !== undefined || !OPENS_WITH_ID.test(head)) return id;
  return threadIdIn(whole());
}

/** A file of a checkpoint's name, by its whole text: a record (FileSaver's by its content), or ignored with the reason. */
export function textEntry(name: string, text: string): FolderEntry {
  const contentId = name.endsWith(".json") ? contentIdOf(text, () => text) : undefined;
  if (name.endsWith(".jsonl")) return jsonlEntry(name, text, text.length, 0);
  const rec: FoundRecord = {
    kind: "record",
    threadId: contentId ?? threadIdOfFile(name, ""),
    rel: name,
    text,
    size: text.length,
    mtimeMs: 0,
    byContent: contentId !== undefined,
  };
  if (contentId !== undefined || detectAll({ name, text }).length > 0 || SWARMER_FILE.test(name)) return rec;
  return parses(text) ? ignored(name, "JSON, but not a checkpoint of any supported format") : rec;
}

/**
 * One file of a store folder. `full` (scan): one read per file, the whole text (its size and time are not needed);
 * else (list) the head, and the text only when the head does not name a FileSaver thread.
 */
export function fileEntry(dir: string, name: string, full: boolean): FolderEntry {
  if (!isDocName(name)) return nameIgnored(name);
  const path = join(dir, name);
  let head: { head: string; size: number; mtimeMs: number } | undefined;
  let text: string | undefined;
  try {
    if (full) text = readUtf8File(path);
    else head = readHead(path);
  } catch (e) {
    return readFailed(name, (e as NodeJS.ErrnoException).code, (e as Error).message, path);
  }
  if (text !== undefined) return textEntry(name, text);
  const { size, mtimeMs } = head!;
  const contentId = name.endsWith(".json") ? threadIdIn(head!.head) : undefined;
  if (contentId !== undefined)
    return { kind: "record", threadId: contentId, rel: name, size, mtimeMs, byContent: true };
  try {
    text = readUtf8File(path);
  } catch (e) {
    return readFailed(name, (e as NodeJS.ErrnoException).code, (e as Error).message, path);
  }
  if (name.endsWith(".jsonl")) return jsonlEntry(name, text, size, mtimeMs);
  const longId = name.endsWith(".json") && OPENS_WITH_ID.test(head!.head) ? threadIdIn(text) : undefined;
  if (longId !== undefined) return { kind: "record", threadId: longId, rel: name, size, mtimeMs, byContent: true };
  const rec: FoundRecord = {
    kind: "record",
    threadId: threadIdOfFile(name, ""),
    rel: name,
    text,
    size,
    mtimeMs,
    byContent: false,
  };
  if (detectAll({ name, text }).length > 0 || SWARMER_FILE.test(name)) return rec;
  return parses(text) ? ignored(name, "JSON, but not a checkpoint of any supported format") : rec;
}

/** The records and ignored entries of an amacs home (`rel` "" when the store folder is the home itself). */
export function homeEntries(dir: string, rel: string, threadId: string): FolderEntry[] {
  const names = readdirSync(dir).sort();
  const files: Record<string, string> = {};
  const out: FolderEntry[] = [];
  let size = 0;
  let mtimeMs = 0;
  const at = (n: string) => (rel ? `${rel}/${n}` : n);
  for (const n of names) {
    if ((AMACS_FILES as readonly string[]).includes(n)) {
      const p = join(dir, n);
      try {
        files[`${threadId}/${n}`] = readUtf8File(p);
      } catch (e) {
        // an org file that is not UTF-8: the home is rejected, named with the file and the byte (never rewritten)
        if (!(e instanceof InvalidUtf8Error)) throw e;
        return [{ ...readFailed(at(n), e.code, e.message), unreadable: { threadId } }];
      }
      const st = statSync(p);
      size += st.size;
      mtimeMs = Math.max(mtimeMs, st.mtimeMs);
    } else out.push(ignored(at(n), n === ".git" ? "a git folder (amacs commits its home on every tick)" : whyNot(n)));
  }
  out.unshift({
    kind: "record",
    threadId,
    rel: rel || ".",
    text: bundleText("amacs", files),
    size,
    mtimeMs,
    byContent: false,
  });
  return out;
}

export const isHome = (names: readonly string[]) => AMACS_FILES.some((n) => names.includes(n));

/** One sub-folder: an amacs home (a thread), a namespace (holds checkpoints), a git folder or an empty one. */
export function dirEntries(dir: string, name: string): FolderEntry[] {
  if (name === ".git") return [ignored(name, "a git folder")];
  let names: string[];
  try {
    names = readdirSync(join(dir, name));
  } catch (e) {
    return [ignored(name, `unreadable folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)];
  }
  if (isHome(names)) return homeEntries(join(dir, name), name, name);
  if (names.some((n) => DOC.test(n) && !TEMP.test(n))) return [{ kind: "namespace", rel: name }];
  return [ignored(name, "a folder with no checkpoints")];
}
