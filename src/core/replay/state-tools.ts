/**
 * deep-agent's built-in state tools (write_todos, ls, read_file, write_file, edit_file, glob, grep), reproduced
 * from the behaviour documented in FORMATS.md §5.5 so that a replay gives the exact result strings deep-agent
 * gives. They act only on an in-memory `ReplayState` (todos + virtual files): never on the host filesystem.
 */
import micromatch from "micromatch";
import type { FileData, TodoItem } from "../../generated/types.js";

export interface ReplayState {
  todos: TodoItem[];
  files: Record<string, FileData>;
}

export interface ToolOutcome {
  /** the tool's result string, exactly as deep-agent returns it */
  text: string;
  /** true when the call itself failed (bad input); deep-agent's own "Error: …" strings are ordinary results */
  isError: boolean;
}

/** JSON Schemas of each tool's input (as the zod schemas in deep-agent declare them), for HTTP providers. */
export const STATE_TOOL_SCHEMAS: Record<string, { description: string; parameters: Record<string, unknown> }> = {
  write_todos: {
    description:
      "Manage and plan tasks using a structured todo list. merge=true updates by id; merge=false replaces all.",
    parameters: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              content: { type: "string", maxLength: 100 },
              status: { type: "string", enum: ["pending", "in_progress", "completed", "cancelled"] },
            },
            required: ["id", "content", "status"],
          },
        },
        merge: { type: "boolean", default: true },
      },
      required: ["todos"],
    },
  },
  ls: {
    description: "List files and directories in a directory.",
    parameters: { type: "object", properties: { path: { type: "string", default: "/" } } },
  },
  read_file: {
    description: "Read the contents of a file.",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        offset: { type: "number", default: 0 },
        limit: { type: "number", default: 2000 },
      },
      required: ["file_path"],
    },
  },
  write_file: {
    description: "Write content to a new file. Returns an error if the file already exists.",
    parameters: {
      type: "object",
      properties: { file_path: { type: "string" }, content: { type: "string" } },
      required: ["file_path", "content"],
    },
  },
  edit_file: {
    description: "Edit a file by replacing a specific string with a new string.",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        old_string: { type: "string" },
        new_string: { type: "string" },
        replace_all: { type: "boolean", default: false },
      },
      required: ["file_path", "old_string", "new_string"],
    },
  },
  glob: {
    description: "Find files matching a glob pattern.",
    parameters: {
      type: "object",
      properties: { pattern: { type: "string" }, path: { type: "string", default: "/" } },
      required: ["pattern"],
    },
  },
  grep: {
    description: "Search for a regex pattern in files.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string" },
        path: { type: "string", default: "/" },
        glob: { type: ["string", "null"] },
      },
      required: ["pattern"],
    },
  },
};

export const STATE_TOOL_NAMES = Object.keys(STATE_TOOL_SCHEMAS);

const LINE_NUMBER_WIDTH = 6;
/** Same order as String.prototype.localeCompare (default locale and options), without its per-call set-up cost. */
const collator = new Intl.Collator();
const MAX_LINE_LENGTH = 10_000;
const TODO_STATUSES = new Set(["pending", "in_progress", "completed", "cancelled"]);

/** Thrown for input that deep-agent's zod schema would refuse; becomes an error tool result. */
class BadInput extends Error {}

function str(args: Record<string, unknown>, key: string, dflt?: string): string {
  const v = args[key];
  if (v === undefined || v === null) {
    if (dflt !== undefined) return dflt;
    throw new BadInput(`'${key}' is required (a string)`);
  }
  if (typeof v !== "string") throw new BadInput(`'${key}' must be a string`);
  return v;
}
function num(args: Record<string, unknown>, key: string, dflt: number): number {
  const v = args[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v)) throw new BadInput(`'${key}' must be a number`);
  return v;
}
function bool(args: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = args[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "boolean") throw new BadInput(`'${key}' must be a boolean`);
  return v;
}

const joined = (fd: FileData) => fd.content.join("\n");
/** Length of the lines joined with "\n", without building the string. */
function joinedLength(fd: FileData): number {
  let n = fd.content.length > 0 ? fd.content.length - 1 : 0;
  for (const line of fd.content) n += line.length;
  return n;
}

function numberLines(lines: string[], startLine: number): string {
  const out: string[] = [];
  lines.forEach((line, i) => {
    const n = i + startLine;
    if (!line) {
      out.push(`${String(n).padStart(LINE_NUMBER_WIDTH)}\t`);
      return;
    }
    for (let k = 0; k * MAX_LINE_LENGTH < line.length; k++) {
      const label = k === 0 ? String(n) : `${n}.${k}`;
      out.push(`${label.padStart(LINE_NUMBER_WIDTH)}\t${line.slice(k * MAX_LINE_LENGTH, (k + 1) * MAX_LINE_LENGTH)}`);
    }
  });
  return out.join("\n");
}

/** "/" → "/", "src" → "/src/", "/src" → "/src/" (deep-agent's validatePath, used by glob and grep). */
function dirPrefix(path: string): string {
  let p = path.startsWith("/") ? path : "/" + path;
  if (!p.endsWith("/")) p += "/";
  return p;
}

function basename(p: string): string {
  const parts = p.split("/");
  return parts[parts.length - 1] ?? "";
}

export interface StateToolContext {
  state: ReplayState;
  /** wall clock for created_at/modified_at (injectable so tests and verify are deterministic) */
  now: () => string;
}

type ToolFn = (args: Record<string, unknown>, ctx: StateToolContext) => string;

const tools: Record<string, ToolFn> = {
  write_todos(args, { state }) {
    const raw = args.todos;
    if (!Array.isArray(raw) || raw.length === 0) throw new BadInput("'todos' must be a non-empty array");
    const todos: TodoItem[] = raw.map((t, i) => {
      if (!t || typeof t !== "object") throw new BadInput(`todos[${i}] must be an object`);
      const o = t as Record<string, unknown>;
      const id = str(o, "id");
      const content = str(o, "content");
      const status = str(o, "status");
      if (content.length > 100) throw new BadInput(`todos[${i}].content must be at most 100 characters`);
      if (!TODO_STATUSES.has(status))
        throw new BadInput(`todos[${i}].status must be one of pending, in_progress, completed, cancelled`);
      return { id, content, status: status as TodoItem["status"] };
    });
    if (bool(args, "merge", true)) {
      const byId = new Map<string, TodoItem>();
      for (const t of state.todos) byId.set(t.id, t);
      for (const t of todos) byId.set(t.id, { ...(byId.get(t.id) ?? {}), ...t });
      state.todos = [...byId.values()];
    } else {
      state.todos = todos;
    }
    const list = state.todos.map((t) => `- [${t.status}] ${t.id}: ${t.content}`).join("\n");
    return `Todo list updated successfully.\n\nCurrent todos:\n${list}`;
  },

  ls(args, { state }) {
    const path = str(args, "path", "/");
    const dir = (path || "/").endsWith("/") ? path || "/" : path + "/";
    const entries: { path: string; dir: boolean; size: number }[] = [];
    const subdirs = new Set<string>();
    for (const [k, fd] of Object.entries(state.files)) {
      if (!k.startsWith(dir)) continue;
      const rel = k.slice(dir.length);
      if (rel.includes("/")) subdirs.add(dir + rel.split("/")[0] + "/");
      else entries.push({ path: k, dir: false, size: joinedLength(fd) });
    }
    for (const d of subdirs) entries.push({ path: d, dir: true, size: 0 });
    entries.sort((a, b) => collator.compare(a.path, b.path));
    if (entries.length === 0) return `No files found in ${path}`;
    return entries
      .map((e) => (e.dir ? `${e.path} (directory)` : e.size ? `${e.path} (${e.size} bytes)` : e.path))
      .join("\n");
  },

  read_file(args, { state }) {
    const p = str(args, "file_path");
    const offset = num(args, "offset", 0);
    const limit = num(args, "limit", 2000);
    const fd = state.files[p];
    if (!fd) return `Error: File '${p}' not found`;
    const text = joined(fd);
    if (text.trim() === "") return "System reminder: File exists but has empty contents";
    const lines = text.split("\n");
    if (offset >= lines.length) return `Error: Line offset ${offset} exceeds file length (${lines.length} lines)`;
    return numberLines(lines.slice(offset, Math.min(offset + limit, lines.length)), offset + 1);
  },

  write_file(args, { state, now }) {
    const p = str(args, "file_path");
    const content = str(args, "content");
    if (p in state.files) {
      return `Cannot write to ${p} because it already exists. Read and then make an edit, or write to a new path.`;
    }
    const t = now();
    state.files[p] = { content: content.split("\n"), created_at: t, modified_at: t };
    return `Successfully wrote to '${p}'`;
  },

  edit_file(args, { state, now }) {
    const p = str(args, "file_path");
    const oldS = str(args, "old_string");
    const newS = str(args, "new_string");
    const all = bool(args, "replace_all", false);
    const fd = state.files[p];
    if (!fd) return `Error: File '${p}' not found`;
    const parts = joined(fd).split(oldS);
    const n = parts.length - 1;
    if (n === 0) return `Error: String not found in file: '${oldS}'`;
    if (n > 1 && !all) {
      return `Error: String '${oldS}' appears ${n} times in file. Use replace_all=true to replace all instances, or provide a more specific string with surrounding context.`;
    }
    state.files[p] = { ...fd, content: parts.join(newS).split("\n"), created_at: fd.created_at, modified_at: now() };
    return `Successfully replaced ${n} occurrence(s) in '${p}'`;
  },

  glob(args, { state }) {
    const pattern = str(args, "pattern");
    const base = dirPrefix(str(args, "path", "/") || "/");
    const hits: [string, string][] = [];
    for (const [fp, fd] of Object.entries(state.files)) {
      if (!fp.startsWith(base)) continue;
      let rel = fp.slice(base.length);
      if (rel.startsWith("/")) rel = rel.slice(1);
      if (!rel) rel = basename(fp);
      if (micromatch.isMatch(rel, pattern, { dot: true, nobrace: false })) hits.push([fp, fd.modified_at]);
    }
    hits.sort((a, b) => collator.compare(b[1], a[1]));
    if (hits.length === 0) return `No files found matching pattern '${pattern}'`;
    return hits.map(([fp]) => fp).join("\n");
  },

  grep(args, { state }) {
    const pattern = str(args, "pattern");
    let re: RegExp;
    try {
      re = new RegExp(pattern);
    } catch (e) {
      return `Invalid regex pattern: ${(e as Error).message}`;
    }
    const base = dirPrefix(str(args, "path", "/") || "/");
    const g = args.glob;
    if (g !== undefined && g !== null && typeof g !== "string") throw new BadInput("'glob' must be a string");
    const lines: string[] = [];
    let current: string | null = null;
    for (const [fp, fd] of Object.entries(state.files)) {
      if (!fp.startsWith(base)) continue;
      if (g && !micromatch.isMatch(basename(fp), g, { dot: true, nobrace: false })) continue;
      fd.content.forEach((line, i) => {
        if (line && re.test(line)) {
          if (fp !== current) {
            current = fp;
            lines.push(`\n${fp}:`);
          }
          lines.push(`  ${i + 1}: ${line}`);
        }
      });
    }
    if (lines.length === 0) return `No matches found for pattern '${pattern}'`;
    return lines.join("\n");
  },
};

export function isStateTool(name: string): boolean {
  return Object.hasOwn(tools, name);
}

/** Run one state tool. Input deep-agent's schema would refuse gives an error result naming the problem. */
export function runStateTool(name: string, input: unknown, ctx: StateToolContext): ToolOutcome {
  const fn = tools[name];
  if (!fn) return { text: `Tool ${name} not found`, isError: true };
  const args = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  try {
    return { text: fn(args, ctx), isError: false };
  } catch (e) {
    if (e instanceof BadInput) return { text: `Invalid input for tool ${name}: ${e.message}`, isError: true };
    throw e;
  }
}

export function emptyState(): ReplayState {
  return { todos: [], files: {} };
}

/** A deep copy, so a replay never mutates the checkpoint it started from. */
export function cloneState(s: { todos?: TodoItem[]; files?: Record<string, FileData> } | undefined): ReplayState {
  return {
    todos: (s?.todos ?? []).map((t) => ({ ...t })),
    files: Object.fromEntries(Object.entries(s?.files ?? {}).map(([k, v]) => [k, { ...v, content: [...v.content] }])),
  };
}
