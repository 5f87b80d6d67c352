/**
 * yoagent `Session::to_jsonl()` tree (FORMATS.md §1.3): one `SessionEntry` per line
 * (`{id, parent_id, message, timestamp, label?}`), joined with "\n", no trailing newline. `parse()` returns the
 * array of entries. The canonical checkpoint carries the active branch (root → head, the head being the last
 * line, as `from_jsonl` sets it); every entry keeps its id, parent, timestamp and label in
 * `ext["yoagent-session"].entry`, and entries on other branches travel verbatim in the checkpoint's
 * `ext["yoagent-session"].branches` with the file order in `.order` — so branches and labels survive.
 */
import type { AgentMessage, Checkpoint } from "../generated/types.js";
import { CkptError, inputError } from "../base/errors.js";
import { jsonLocator, parseJson, pointerToPath, stringifyJson } from "../base/json.js";
import type { FormatAdapter, Issue, SourceDoc } from "./types.js";
import {
  RUST_FILL_INS,
  YOAGENT,
  countAssistant,
  defaultTimestampOf,
  isObj,
  issueMaker,
  messageLintView,
  messageToCanonical,
  messagesLint,
  reportEnvelopeLoss,
  singleText,
  threadIdOfDoc,
  unsafeIntegerLint,
} from "./rust-common.js";
import { yoagentMessagesFromCanonical } from "./yoagent.js";

type Entry = Record<string, unknown>;
type Native = Entry[];
const FMT = "yoagent-session";

/** The non-blank lines of a JSONL text with their 1-based line numbers and start offsets. */
function jsonlLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  text.split("\n").forEach((t, i) => {
    const s = t.endsWith("\r") ? t.slice(0, -1) : t;
    if (s.trim() !== "") out.push({ line: i + 1, text: s });
  });
  return out;
}

/** Indices (file order) of the entries on the active branch, root first. The head is the last entry. */
export function activePath(entries: Native): number[] {
  if (entries.length === 0) return [];
  const index = new Map<string, number>();
  entries.forEach((e, i) => {
    if (typeof e.id === "string" && !index.has(e.id)) index.set(e.id, i);
  });
  const path: number[] = [];
  const seen = new Set<number>();
  let i: number | undefined = entries.length - 1;
  while (i !== undefined && !seen.has(i)) {
    seen.add(i);
    path.push(i);
    const p: unknown = entries[i]!.parent_id;
    i = typeof p === "string" ? index.get(p) : undefined;
    if (i !== undefined && seen.has(i)) break;
  }
  return path.reverse();
}

function entryWithoutMessage(e: Entry): Entry {
  const out: Entry = {};
  for (const [k, v] of Object.entries(e)) if (k !== "message") out[k] = v;
  return out;
}

/** serde's field order: id, parent_id, message, timestamp, label, then keys the loader ignores. */
function orderedEntry(meta: Entry, message: unknown): Entry {
  const out: Entry = { id: meta.id };
  if ("parent_id" in meta) out.parent_id = meta.parent_id;
  out.message = message;
  out.timestamp = meta.timestamp;
  if ("label" in meta) out.label = meta.label;
  for (const [k, v] of Object.entries(meta)) if (!(k in out)) out[k] = v;
  return out;
}

const seqOf = (id: unknown) => (typeof id === "string" && /^e\d+$/.test(id) ? Number(id.slice(1)) : 0);

/** The first non-blank line within the first 64 KiB (without splitting the whole text). */
function firstLine(text: string): string {
  const end = Math.min(text.length, 64 * 1024);
  let start = 0;
  while (start < end) {
    let nl = text.indexOf("\n", start);
    if (nl === -1 || nl > end) nl = end;
    const line = text.slice(start, nl);
    if (line.trim() !== "") return line;
    start = nl + 1;
  }
  return "";
}

export const yoagentSessionAdapter: FormatAdapter<Native> = {
  name: FMT,
  title: "yoagent session tree (JSONL of SessionEntry; branches and labels)",
  extensions: [".jsonl"],
  lossy: [
    "state (todos, files, scratchpad, contexts)",
    "interrupt",
    "createdAt / updatedAt",
    "threadId (the file name stands for it)",
    "step (read back as the number of assistant messages on the active branch)",
    "usage.reasoning",
    "file content blocks; images given by URL",
    "system messages (kept as extension messages of kind 'ckpt.system')",
  ],
  schema: "formats/yoagent-session/entries",
  // its first line that is not blank must start `{ "id":` (lines before it are white space)
  detectNeeds: { first: "{" },
  detect(doc: SourceDoc) {
    if (doc.text === undefined) return { confidence: 0 };
    const first = firstLine(doc.text);
    if (!/^\uFEFF?\s*\{\s*"id"\s*:/.test(first) || !/"message"\s*:\s*\{/.test(first)) return { confidence: 0 };
    if (!/"parent_id"\s*:/.test(first) && !/"timestamp"\s*:\s*\d+\s*(,|\})\s*$/.test(first)) return { confidence: 0.4 };
    return {
      confidence: 0.95,
      version: /"(cache_read|error_message|provider_metadata)"\s*:/.test(doc.text.slice(0, 64 * 1024))
        ? "<0.13"
        : ">=0.13",
    };
  },
  parse(doc: SourceDoc): Native {
    const text = singleText(doc, FMT);
    return jsonlLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).map(({ line, text: t }) => {
      let v: unknown;
      try {
        v = parseJson(t, { file: doc.name });
      } catch (e) {
        if (e instanceof CkptError) {
          throw new CkptError(
            e.exitCode,
            e.reason,
            `line ${line}: ${e.message}`,
            {
              file: doc.name,
              line,
              column: e.place.column ?? 1,
            },
            { cause: e },
          );
        }
        throw e;
      }
      if (!isObj(v))
        throw inputError(
          "jsonl-entry",
          `line ${line}: expected a SessionEntry object {id, parent_id, message, timestamp}`,
          { file: doc.name, line, column: 1 },
        );
      return v;
    });
  },
  toCanonical(native: Native, doc: SourceDoc): Checkpoint {
    const path = activePath(native);
    const onPath = new Set(path);
    const messages = path.map((i) => {
      const e = native[i]!;
      const m = messageToCanonical(isObj(e.message) ? e.message : {}, YOAGENT) as AgentMessage & {
        ext?: Record<string, unknown>;
      };
      m.ext = { ...(m.ext ?? {}), [FMT]: { entry: entryWithoutMessage(e) } };
      return m as AgentMessage;
    });
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: threadIdOfDoc(doc),
      step: countAssistant(messages),
      messages,
      state: {},
      origin: {
        format: FMT,
        version: /"(cache_read|error_message|provider_metadata)"\s*:/.test(doc.text ?? "") ? "<0.13" : ">=0.13",
        threadIdFrom: "file-name",
      },
    };
    if (onPath.size !== native.length) {
      cp.ext = { [FMT]: { branches: native.filter((_e, i) => !onPath.has(i)), order: native.map((e) => e.id) } };
    }
    return cp;
  },
  /** toCanonical's thread id and active-path messages as the canonical lints read them. */
  lintView(native: Native, doc: SourceDoc) {
    return {
      threadId: threadIdOfDoc(doc),
      messages: activePath(native).map((i) =>
        messageLintView(isObj(native[i]!.message) ? (native[i]!.message as Record<string, unknown>) : {}, YOAGENT),
      ),
    };
  },
  fromCanonical(cp, options) {
    reportEnvelopeLoss(cp, FMT, options.lossy);
    const msgs = yoagentMessagesFromCanonical(cp, options);
    const se = isObj(cp.ext?.[FMT]) ? (cp.ext![FMT] as Record<string, unknown>) : {};
    const branches = Array.isArray(se.branches) ? (se.branches as Entry[]) : [];
    const metas = cp.messages.map((m) => {
      const x = (m as { ext?: Record<string, unknown> }).ext?.[FMT];
      return isObj(x) && isObj(x.entry) && typeof x.entry.id === "string" ? (x.entry as Entry) : undefined;
    });
    let seq = Math.max(0, ...branches.map((b) => seqOf(b.id)), ...metas.map((e) => seqOf(e?.id)));
    const fallback = defaultTimestampOf(cp);
    let prev: unknown = null;
    const pathEntries = msgs.map((n, i) => {
      const meta = metas[i] ?? { id: `e${++seq}`, parent_id: prev, timestamp: (n as Entry).timestamp ?? fallback };
      prev = meta.id;
      return orderedEntry(meta, n);
    });
    if (branches.length === 0 || !Array.isArray(se.order)) return pathEntries;
    const byId = new Map<unknown, Entry>();
    for (const e of [...branches, ...pathEntries]) if (!byId.has(e.id)) byId.set(e.id, e);
    const out: Entry[] = [];
    const used = new Set<Entry>();
    for (const id of se.order as unknown[]) {
      const e = byId.get(id);
      if (e && !used.has(e)) {
        out.push(e);
        used.add(e);
      }
    }
    for (const e of pathEntries) if (!used.has(e)) out.push(e);
    return out;
  },
  lint(native: Native, doc: SourceDoc): Issue[] {
    const make = issueMaker(doc, (p) => this.locate!(native, p, doc));
    const out: Issue[] = [];
    const seen = new Map<string, number>();
    native.forEach((e, i) => {
      const id = e.id;
      if (typeof id === "string") {
        if (seen.has(id))
          out.push(
            make(
              "error",
              "loader/duplicate-entry-id",
              `/${i}/id`,
              `duplicate entry id '${id}' (first on entry ${seen.get(id)! + 1}): yoagent's from_jsonl rejects the file`,
            ),
          );
        else seen.set(id, i);
      }
      const p = e.parent_id;
      if (typeof p === "string" && !seen.has(p)) {
        out.push(
          make(
            "error",
            "loader/parent-forward-ref",
            `/${i}/parent_id`,
            `parent_id '${p}' does not name an earlier entry: yoagent's from_jsonl rejects forward references and unknown parents`,
          ),
        );
      }
      if ("parentId" in e && !("parent_id" in e))
        out.push(
          make(
            "warning",
            "lint/yoagent-session-camel-parent",
            `/${i}/parentId`,
            "'parentId' is ignored: the session key is snake_case 'parent_id', so this entry loads as a root",
          ),
        );
    });
    out.push(
      ...messagesLint(
        native.map((e, i) => [`/${i}/message`, e.message]),
        YOAGENT,
        make,
      ),
      ...unsafeIntegerLint(native, make, doc.text),
    );
    return out;
  },
  messagePointers: (native) => activePath(native).map((i) => `/${i}/message`),
  locate(_native: Native, pointer: string, doc: SourceDoc) {
    if (doc.text === undefined) return undefined;
    const [first, ...rest] = pointerToPath(pointer);
    const lines = jsonlLines(doc.text);
    const idx = first === undefined ? 0 : Number(first);
    const l = lines[Number.isInteger(idx) ? idx : 0];
    if (!l) return undefined;
    const at = jsonLocator(l.text).locate(rest.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join(""));
    return { file: doc.name, line: l.line, column: at.column };
  },
  /** `to_jsonl()`: one compact entry per line, joined with "\n", no trailing newline. */
  integers: "64-bit",
  fillIns: RUST_FILL_INS,
  serialize: (native) => ({ text: native.map((e) => stringifyJson(e)).join("\n") }),
};
