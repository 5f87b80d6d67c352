/**
 * What a LangGraph page shows beyond the transcript, read from a canonical checkpoint that came from LangGraph (its
 * `ext.langgraph`, see formats/langgraph/adapter.ts): every channel (name, version, value made readable, whether
 * this step updated it), the nodes scheduled next, the pending writes grouped by task (interrupts, resumes, errors
 * named as such), and the checkpoint's own facts (id, parent, namespace, source, raw step). Values go into a pool
 * shared by the page's checkpoints: a channel at the same version, or an equal write, is carried once.
 */
import type { Checkpoint } from "../generated/types.js";
import { isPlumbing } from "../formats/langgraph/adapter.js";
import {
  interruptOf,
  isLc2Constructor,
  isLcMessage,
  isRecord,
  lcClass,
  NULL_TASK_ID,
  type LgPendingWrite,
  type LgVersion,
} from "../formats/langgraph/types.js";

export interface ChannelView {
  name: string;
  /** "messages": the transcript's channel (count only); "plumbing": trigger and internal channels */
  kind: "messages" | "state" | "plumbing";
  /** the channel version, as text */
  version?: string;
  /** index into PageData.vals; absent when the checkpoint stores no value for the channel */
  v?: number;
  /** messages channel: how many messages */
  count?: number;
  /** this checkpoint's step updated the channel (its version moved from the parent's, or `updated_channels`) */
  changed?: boolean;
}

export interface WriteView {
  channel: string;
  /** what the channel means: an interrupt raised, a resume value, an error, a trigger of the next node, a value */
  kind: "interrupt" | "resume" | "error" | "trigger" | "scheduled" | "write";
  /** index into PageData.vals */
  v: number;
}

export interface TaskView {
  task: string;
  /** the node the task runs, when the store tells (one task and one node scheduled, or Python's task_path) */
  node?: string;
  writes: WriteView[];
}

export interface LangGraphView {
  id?: string;
  parent?: string;
  namespace: string;
  source?: string;
  /** metadata.step as stored (-1 for the input checkpoint) */
  step?: number;
  library?: string;
  /** the nodes this checkpoint schedules (LangGraph's `next`) */
  next: string[];
  channels: ChannelView[];
  tasks: TaskView[];
  /** interrupts raised at this checkpoint and whether a resume answers them */
  interrupts: Array<{ task: string; id?: string; v: number; resumed: boolean }>;
  /** resume values written at this checkpoint */
  resumes: number[];
  /** channel versions, to mark what the next checkpoint changed (dropped from the page) */
  versions?: Record<string, LgVersion>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isRecord(v) ? v : {});

/** Values shown on the page, deduplicated: by (channel, version) without hashing, else by their JSON text. */
export class ValuePool {
  readonly vals: unknown[] = [];
  private byKey = new Map<string, number>();
  private byVersion = new Map<string, number>();

  add(value: unknown, channel?: string, version?: LgVersion): number {
    const vk = channel !== undefined && version !== undefined ? `${channel}\u0000${String(version)}` : undefined;
    const known = vk !== undefined ? this.byVersion.get(vk) : undefined;
    if (known !== undefined) return known;
    const shown = readable(value);
    // JSON.stringify, not a key-sorted form: equal values decoded by one reader list their keys in the same order
    const key = JSON.stringify(shown) ?? "undefined";
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.vals.length;
      this.vals.push(shown);
      this.byKey.set(key, i);
    }
    if (vk !== undefined) this.byVersion.set(vk, i);
    return i;
  }
}

/** The text of a LangChain message's content (string, or the text parts of a content list). */
function contentText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c))
    return c
      .map((p) => (typeof p === "string" ? p : isRecord(p) && typeof p.text === "string" ? p.text : ""))
      .filter(Boolean)
      .join("\n");
  return "";
}

/**
 * A decoded LangGraph value as a reader wants to see it: LangChain messages as `{HumanMessage: text}` (tool calls
 * named), Python/JS constructor records as `{UUID: "…"}`-like objects, bytes as their size; the rest as it is.
 */
export function readable(v: unknown, depth = 0): unknown {
  if (depth > 40) return "…";
  if (Array.isArray(v)) return v.map((x) => readable(x, depth + 1));
  if (!isRecord(v)) return v;
  if (isLcMessage(v)) {
    const k = v.kwargs;
    const out: Obj = { [lcClass(v)]: contentText(k.content) };
    if (Array.isArray(k.tool_calls) && k.tool_calls.length)
      out.tool_calls = k.tool_calls.map((c) => (isRecord(c) ? { name: c.name, args: readable(c.args, depth + 1) } : c));
    if (typeof k.tool_call_id === "string") out.tool_call_id = k.tool_call_id;
    if (typeof k.name === "string" && k.name) out.name = k.name;
    return out;
  }
  if (v.lc === 2 && v.type === "delta_snapshot") return readable(v.value, depth + 1);
  if (isLc2Constructor(v)) {
    const name = v.id[v.id.length - 1]!;
    if (name === "Uint8Array" && Array.isArray(v.args[0])) return `<${v.args[0].length} bytes>`;
    const i = name === "Interrupt" ? interruptOf(v) : undefined;
    if (i) return { Interrupt: readable(i.value, depth + 1), ...(i.id ? { id: i.id } : {}) };
    const args = Array.isArray(v.args) ? v.args : [];
    const kwargs = obj(v.kwargs);
    const inner =
      Object.keys(kwargs).length > 0
        ? readable(kwargs, depth + 1)
        : args.length === 1
          ? readable(args[0], depth + 1)
          : readable(args, depth + 1);
    return { [name]: inner };
  }
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) out[k] = readable(x, depth + 1);
  return out;
}

const compareVersions = (a: LgVersion, b: LgVersion): number =>
  typeof a === "number" && typeof b === "number"
    ? Math.sign(a - b)
    : String(a) < String(b)
      ? -1
      : +(String(a) > String(b));

/**
 * The nodes a checkpoint schedules, as LangGraph finds them: a node's trigger channel (`branch:to:<node>`, or
 * `__start__`) holds a value and its version is newer than the one the node has seen.
 */
function nextNodes(
  versions: Record<string, LgVersion>,
  seen: Record<string, unknown>,
  values: Record<string, unknown>,
): string[] {
  const out: string[] = [];
  for (const [ch, ver] of Object.entries(versions)) {
    if (!(ch in values)) continue;
    const node =
      ch === "__start__" ? "__start__" : ch.startsWith("branch:to:") ? ch.slice("branch:to:".length) : undefined;
    if (node === undefined) continue;
    const saw = obj(seen[node])[ch] as LgVersion | undefined;
    if (saw === undefined || compareVersions(ver, saw) > 0) out.push(node);
  }
  return out;
}

function writeKind(channel: string): WriteView["kind"] {
  if (channel === "__interrupt__") return "interrupt";
  if (channel === "__resume__") return "resume";
  if (channel === "__error__") return "error";
  if (channel === "__scheduled__") return "scheduled";
  if (channel.startsWith("branch:") || channel.startsWith("start:") || channel.startsWith("join:")) return "trigger";
  return "write";
}

/** Python PostgreSQL's task_path ("~__pregel_pull, approve") names the node of a pulled task. */
function nodeOfPath(path: string | undefined): string | undefined {
  const m = path ? /__pregel_pull'?,\s*'?([^',)]+)/.exec(path) : null;
  return m?.[1];
}

/** The LangGraph part of a checkpoint's view; undefined for checkpoints of other formats. */
export function langGraphView(cp: Checkpoint, pool: ValuePool): LangGraphView | undefined {
  const lg = (cp.ext as Obj | undefined)?.langgraph;
  if (!isRecord(lg)) return undefined;
  const tuple = obj(lg.tuple);
  const layout = obj(lg._layout);
  const book = obj(layout.store);
  const bookCp = obj(book.checkpoint);
  const restCp = obj(tuple.checkpoint);
  const plumbingValues = obj(restCp.channel_values);
  const versions = obj(bookCp.channel_versions) as Record<string, LgVersion>;
  const seen = obj(bookCp.versions_seen);
  const updated = Array.isArray(bookCp.updated_channels) ? new Set(bookCp.updated_channels as string[]) : undefined;
  const state = (cp.state ?? {}) as Obj;
  const channelKeys = Array.isArray(layout.channelKeys) ? (layout.channelKeys as string[]) : [];
  const names = [...new Set([...channelKeys, ...Object.keys(state), ...Object.keys(versions)])];
  const v = typeof restCp.v === "number" ? restCp.v : 4;
  const channels: ChannelView[] = names.map((name) => {
    const version = versions[name];
    const c: ChannelView = {
      name,
      kind: isPlumbing(name, { v, versions_seen: seen as never }) ? "plumbing" : "state",
      ...(version !== undefined ? { version: String(version) } : {}),
      ...(updated ? { changed: updated.has(name) } : {}),
    };
    if (name === "messages" && !(name in state) && !(name in plumbingValues)) {
      c.kind = "messages";
      c.count = cp.messages.length;
    } else if (name in state) c.v = pool.add(state[name], name, version);
    else if (name in plumbingValues) c.v = pool.add(plumbingValues[name], name, version);
    return c;
  });
  const writes = Array.isArray(tuple.pendingWrites) ? (tuple.pendingWrites as LgPendingWrite[]) : [];
  const next = nextNodes(versions, seen, plumbingValues);
  const byTask = new Map<string, TaskView>();
  for (const w of writes) {
    let t = byTask.get(w.taskId);
    if (!t) {
      const node = nodeOfPath(w.taskPath);
      t = { task: w.taskId, ...(node ? { node } : {}), writes: [] };
      byTask.set(w.taskId, t);
    }
    t.writes.push({ channel: w.channel, kind: writeKind(w.channel), v: pool.add(w.value) });
  }
  const tasks = [...byTask.values()];
  const real = tasks.filter((t) => t.task !== NULL_TASK_ID);
  if (real.length === 1 && next.length === 1 && real[0]!.node === undefined) real[0]!.node = next[0];
  const resumedTasks = new Set(writes.filter((w) => w.channel === "__resume__").map((w) => w.taskId));
  const interrupts: LangGraphView["interrupts"] = [];
  for (const w of writes) {
    if (w.channel !== "__interrupt__") continue;
    for (const x of Array.isArray(w.value) ? w.value : [w.value]) {
      const i = interruptOf(x);
      interrupts.push({
        task: w.taskId,
        ...(i?.id ? { id: i.id } : {}),
        v: pool.add(i ? i.value : x),
        resumed: resumedTasks.has(w.taskId) || resumedTasks.has(NULL_TASK_ID),
      });
    }
  }
  // a NULL-task resume repeats the per-task ones (Python writes both): show each distinct value once
  const resumes = [
    ...new Set(
      writes
        .filter((w) => w.channel === "__resume__")
        .map((w) => pool.add(Array.isArray(w.value) && w.value.length === 1 ? w.value[0] : w.value)),
    ),
  ];
  const md = obj(tuple.metadata);
  return {
    ...(typeof book.checkpointId === "string" ? { id: book.checkpointId } : {}),
    ...(typeof book.parentId === "string" ? { parent: book.parentId } : {}),
    namespace: typeof tuple.namespace === "string" ? tuple.namespace : "",
    ...(typeof md.source === "string" ? { source: md.source } : {}),
    ...(typeof book.step === "number" ? { step: book.step } : {}),
    ...(typeof book.library === "string" ? { library: book.library } : {}),
    next,
    channels,
    tasks,
    interrupts,
    resumes,
    versions,
  };
}

/** Mark the channels whose version moved from the parent's (when the checkpoint does not list `updated_channels`). */
export function markChanged(view: LangGraphView, parent: LangGraphView | undefined): void {
  const before = parent?.versions ?? {};
  for (const c of view.channels) {
    if (c.changed !== undefined) continue;
    const was = before[c.name];
    c.changed = c.version !== undefined && (was === undefined || String(was) !== c.version);
  }
}
