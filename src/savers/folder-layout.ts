/**
 * How each seed system lays its checkpoints out in a folder (FORMATS.md §1–§5), as names and bytes. Pure: which
 * layout a record belongs to, the thread id a file name stands for, and the files (relative names and texts) a
 * record becomes when written the way its system writes it.
 *
 * | layout             | files                                      | text                                         |
 * |--------------------|--------------------------------------------|----------------------------------------------|
 * | `deepagent`        | `<threadId, [^a-zA-Z0-9_-] → _>.json`      | `JSON.stringify(v, null, 2)` (FileSaver)     |
 * | `swarmer`          | `agent_<id>.pkl` (JSON despite the name)   | Python `json.dump(indent=2)`, `ensure_ascii` |
 * | `phi-core-session` | `<session id>.json` (+ `.lock`, `.tmp.*`)  | serde_json `to_writer_pretty`                |
 * | `yoagent`          | `<stem>.json` message arrays (yoagent and phi-core), `<stem>.jsonl` sessions | serde_json `to_string`; JSONL as it was |
 * | `amacs`            | `<home>/agent-chat.org`, `<home>/scratchpad.org` | the org files as they were            |
 *
 * ckpt's own canonical documents use the FileSaver layout. Thread ids: a FileSaver document's `threadId`; a
 * Swarmer file's `<id>`; every other file's stem; an amacs home's folder name. So a document in the `deepagent`
 * layout that does not hold its thread id (an AI SDK chat, …) is named `<threadId>.json` as it is, not sanitized:
 * its stem is its id when read back.
 */
import { ExitCode, RecordError, usageError } from "../base/errors.js";
import { bundleText, isBundleText, readBundle } from "../formats/bundle.js";
import { detectAll, type FormatName } from "../formats/index.js";
import { threadIdIn } from "./fs-common.js";
import { relayout } from "./json-layout.js";

export const LAYOUTS = ["deepagent", "swarmer", "phi-core-session", "yoagent", "amacs"] as const;
export type Layout = (typeof LAYOUTS)[number];
const ALIASES: Record<string, Layout> = { filesaver: "deepagent", "phi-core": "phi-core-session", ckpt: "deepagent" };

/** `?layout=` value → layout (aliases: filesaver, phi-core, ckpt). */
export function parseLayout(s: string): Layout {
  const l = (LAYOUTS as readonly string[]).includes(s) ? (s as Layout) : ALIASES[s];
  if (!l)
    throw usageError(`unknown folder layout '${s}': expected one of ${LAYOUTS.join(", ")} (or filesaver, phi-core)`);
  return l;
}

/** The layout a format's own system writes. */
export function layoutOf(format: FormatName | undefined): Layout {
  switch (format) {
    case "swarmer":
      return "swarmer";
    case "phi-core-session":
      return "phi-core-session";
    case "yoagent":
    case "phi-core":
    case "yoagent-session":
      return "yoagent";
    case "amacs":
      return "amacs";
    default:
      return "deepagent";
  }
}

/** Which formats a layout can hold (a forced `?layout=` refuses the rest). */
const HOLDS: Record<Layout, (f: FormatName | undefined) => boolean> = {
  deepagent: (f) => f !== "amacs" && f !== "yoagent-session",
  swarmer: (f) => f === "swarmer",
  "phi-core-session": (f) => f === "phi-core-session",
  yoagent: (f) => f === "yoagent" || f === "phi-core" || f === "yoagent-session",
  amacs: (f) => f === "amacs",
};

/** The format of a record's text: a bundle's, a FileSaver/canonical document's by its first keys, else detected. */
export function formatOfText(text: string, name: string): FormatName | undefined {
  if (isBundleText(text)) return readBundle(text, name).format;
  if (/^\s*\{\s*"schemaVersion"\s*:/.test(text.slice(0, 64))) return "ckpt";
  if (/^\s*\{\s*"threadId"\s*:/.test(text.slice(0, 64))) return "deepagent";
  return detectAll({ name, text })[0]?.format;
}

export const sanitizeThreadId = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, "_");
export const MAX_NAME = 250;

/** Swarmer's bot names its files `agent_<telegram user id>.pkl`. */
export const SWARMER_FILE = /^agent_(.+)\.pkl$/;

/** The thread id a file stands for, from its name (and a FileSaver document's first bytes). */
export function threadIdOfFile(name: string, head: string): string {
  if (name.endsWith(".json")) return threadIdIn(head) ?? name.slice(0, -5);
  const sw = SWARMER_FILE.exec(name);
  if (sw) return sw[1]!;
  return name.slice(0, name.lastIndexOf("."));
}

/** A thread id used as a file name as it is (Swarmer, phi-core, yoagent, amacs keep the id in the name). */
function checkNameable(id: string, layout: Layout, name: string): void {
  const bad = /[/\\\u0000-\u001f]/.exec(id)?.[0] ?? (id === "." || id === ".." ? id : undefined);
  // a record this folder cannot hold is that record's problem, not the run's: a migration rejects it (exit 5)
  if (bad !== undefined)
    throw new RecordError(
      ExitCode.STORE,
      "unnameable-thread-id",
      `thread id ${JSON.stringify(id)} cannot be a file name in the ${layout} layout (it holds ${JSON.stringify(bad)}): use ?layout=deepagent, whose names replace such characters`,
      { threadId: id },
    );
  if (Buffer.byteLength(name) > MAX_NAME)
    throw new RecordError(
      ExitCode.STORE,
      "file-name-too-long",
      `thread id ${JSON.stringify(id.slice(0, 40))}… is too long for a file name in the ${layout} layout (${Buffer.byteLength(name)} bytes; the limit is ${MAX_NAME})`,
      { threadId: id },
    );
}

/** A file to write, relative to the namespace folder. */
export interface PlannedFile {
  rel: string;
  text: string;
}

export interface Plan {
  layout: Layout;
  files: PlannedFile[];
  /** the amacs home folder (relative), for homes */
  home?: string;
}

const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/**
 * The files a record becomes in `layout` (its format's own layout when none is forced): names and bytes as its
 * system writes them. `name` is how messages refer to the record.
 */
export function planRecord(threadId: string, text: string, forced: Layout | undefined, name: string): Plan {
  const format = formatOfText(text, name);
  const layout = forced ?? layoutOf(format);
  if (!HOLDS[layout](format)) {
    throw usageError(
      `${name}: the ${layout} folder layout cannot hold a ${format ?? "unrecognised"} document (convert it with --to-format, or pick another ?layout=)`,
    );
  }
  switch (layout) {
    case "deepagent": {
      // re-indented by the FileSaver writer. A document that holds its thread id (FileSaver's, ckpt's own) is read
      // back by it, so its name is FileSaver's sanitized one; any other (an AI SDK chat, …) is read back by its
      // file's stem, so the id is its name as it is: `chat.2` → chat.2.json, never chat_2.json, which would read
      // back as another thread (and collide with `chat_2`'s file)
      if (threadIdIn(text) === threadId)
        return { layout, files: [{ rel: sanitizeThreadId(threadId) + ".json", text }] };
      checkNameable(threadId, layout, `${threadId}.json`);
      return { layout, files: [{ rel: `${threadId}.json`, text }] };
    }
    case "swarmer":
      checkNameable(threadId, layout, `agent_${threadId}.pkl`);
      return {
        layout,
        files: [{ rel: `agent_${threadId}.pkl`, text: relayout(text, { indent: 2, asciiOnly: true }) }],
      };
    case "phi-core-session":
      checkNameable(threadId, layout, `${threadId}.json.lock`);
      return { layout, files: [{ rel: `${threadId}.json`, text: relayout(text, { indent: 2, asciiOnly: false }) }] };
    case "yoagent": {
      if (format !== "yoagent-session") {
        checkNameable(threadId, layout, `${threadId}.json`);
        return { layout, files: [{ rel: `${threadId}.json`, text: relayout(text, { indent: 0, asciiOnly: false }) }] };
      }
      const b = readBundle(text, name);
      const [key, body] = Object.entries(b.files)[0]!;
      // the original file name when it stands for this thread (it always does, unless the id was changed)
      const rel = base(key).replace(/\.[^.]*$/, "") === threadId ? base(key) : `${threadId}.jsonl`;
      checkNameable(threadId, layout, rel);
      return { layout, files: [{ rel, text: body }] };
    }
    case "amacs": {
      checkNameable(threadId, layout, threadId);
      const b = readBundle(text, name);
      return {
        layout,
        home: threadId,
        files: Object.entries(b.files).map(([k, t]) => ({ rel: `${threadId}/${base(k)}`, text: t })),
      };
    }
  }
}

/** The bundle text of an amacs home or a JSONL file read from a folder (`files`: relative name → text). */
export const bundleOf = (format: "amacs" | "yoagent-session", files: Record<string, string>) =>
  bundleText(format, files);
