/**
 * `ckpt view`'s rendering: pure functions from canonical checkpoints (one, two, a history) or a page of a store's
 * thread list to one self-contained HTML page. No I/O: callers read the inputs and write the page.
 */
import type { Checkpoint } from "../generated/types.js";
import { diffCheckpoints } from "../core/diff/index.js";
import { checkpointView, MessagePool } from "./model.js";
import { markChanged, ValuePool } from "./langgraph.js";
import { renderPage, type HistoryItem, type PageData, type StoreListing } from "./page.js";
import type { LangGraphView } from "./langgraph.js";

export { renderPage, pagePolicy, type PageData, type HistoryItem, type StoreListing } from "./page.js";
export { escapeHtml, jsonForScript } from "./escape.js";
export { renderMarkdown } from "./markdown.js";
export type { BlockView, MessageView, CheckpointView, StateView } from "./model.js";
export type { ChannelView, LangGraphView, TaskView, WriteView } from "./langgraph.js";

export interface PageOptions {
  /** the page title (default: "thread <id>") */
  title?: string;
  /** where it came from: file name or redacted URI, shown in the metadata */
  source?: string;
  /** link back to the store browser (served pages) */
  back?: string;
}

/** One checkpoint → its page. */
export function renderCheckpointPage(cp: Checkpoint, opts: PageOptions = {}): string {
  const pool = new MessagePool();
  const values = new ValuePool();
  const view = checkpointView(cp, pool, { values });
  if (view.lg) delete view.lg.versions;
  const data: PageData = {
    kind: "checkpoint",
    title: opts.title ?? `thread ${cp.threadId}`,
    pool: pool.pool,
    ...(values.vals.length ? { vals: values.vals } : {}),
    checkpoints: [view],
    ...common(opts),
  };
  return renderPage(data);
}

/** Two checkpoints → the page of their semantic diff (the same change records as `ckpt diff`), with both transcripts. */
export function renderDiffPage(
  a: Checkpoint,
  b: Checkpoint,
  opts: PageOptions & { names?: [string, string]; ignore?: string[]; ignoreVolatile?: boolean } = {},
): string {
  const pool = new MessagePool();
  const values = new ValuePool();
  const views = [checkpointView(a, pool, { dedupe: true, values }), checkpointView(b, pool, { dedupe: true, values })];
  for (const v of views) if (v.lg) delete v.lg.versions;
  const diff = diffCheckpoints(a, b, { ignore: opts.ignore, ignoreVolatile: opts.ignoreVolatile });
  const names = opts.names ?? [`thread ${a.threadId}`, `thread ${b.threadId}`];
  const data: PageData = {
    kind: "diff",
    title: opts.title ?? `diff: ${names[0]} → ${names[1]}`,
    pool: pool.pool,
    ...(values.vals.length ? { vals: values.vals } : {}),
    checkpoints: views,
    diff,
    sides: names,
    ...common(opts),
  };
  return renderPage(data);
}

/** One checkpoint of a thread's history, as the timeline lists it. */
export interface HistoryEntry {
  id: string;
  /** the checkpoint this one follows (LangGraph parent): its diff is taken from there when it is in the list */
  parentId?: string;
  step: number;
  /** the node (or source) that wrote it */
  node?: string;
  /** ISO 8601 */
  time?: string;
  checkpoint: Checkpoint;
}

/**
 * A thread's history (oldest first) → a page with a timeline: each entry shows its checkpoint and the diff from
 * the entry before it. Messages repeated along the history are carried once.
 */
export function renderHistoryPage(
  entries: readonly HistoryEntry[],
  opts: PageOptions & { selected?: string; omitted?: number } = {},
): string {
  const pool = new MessagePool();
  const values = new ValuePool();
  const views = entries.map((e) =>
    checkpointView(e.checkpoint, pool, {
      dedupe: true,
      values,
      meta: { checkpoint: e.id, ...(e.parentId ? { parent: e.parentId } : {}), ...(e.node ? { node: e.node } : {}) },
    }),
  );
  const index = new Map(entries.map((e, i) => [e.id, i]));
  const parents = entries.map((e) => (e.parentId !== undefined ? index.get(e.parentId) : undefined));
  views.forEach((v, i) => v.lg && markChanged(v.lg, parents[i] !== undefined ? views[parents[i]]!.lg : undefined));
  const history: HistoryItem[] = entries.map((e, i) => {
    // from the parent when it is listed (a forked thread's checkpoints are not one line), else the one before
    const parent = parents[i];
    const from = parent ?? i - 1;
    const lg = views[i]!.lg;
    return {
      id: e.id,
      step: e.step,
      ...(e.node ? { node: e.node } : {}),
      ...(e.time ? { time: e.time } : {}),
      ...(parent !== undefined ? { parent } : {}),
      ...(from >= 0 ? { from, diff: diffCheckpoints(entries[from]!.checkpoint, e.checkpoint) } : {}),
      ...(lg ? timelineMarks(lg) : {}),
    };
  });
  for (const v of views) if (v.lg) delete v.lg.versions;
  const threadId = entries[entries.length - 1]?.checkpoint.threadId ?? "";
  const start = opts.selected !== undefined ? index.get(opts.selected) : undefined;
  const data: PageData = {
    kind: "history",
    title: opts.title ?? `thread ${threadId} — history`,
    pool: pool.pool,
    ...(values.vals.length ? { vals: values.vals } : {}),
    checkpoints: views,
    history,
    ...(start !== undefined ? { start } : {}),
    ...(opts.omitted ? { omitted: opts.omitted } : {}),
    ...common(opts),
  };
  return renderPage(data);
}

/** A page of a store's thread list (the served store browser). */
export function renderStorePage(listing: StoreListing, opts: PageOptions = {}): string {
  const data: PageData = {
    kind: "store",
    title: opts.title ?? "ckpt store",
    pool: [],
    checkpoints: [],
    store: listing,
    ...common(opts),
  };
  return renderPage(data);
}

/** What the timeline says of a LangGraph checkpoint: its source, the channels its step changed, interrupts, resumes. */
function timelineMarks(lg: LangGraphView): Partial<HistoryItem> {
  const changed = lg.channels.filter((c) => c.changed && c.kind !== "plumbing").map((c) => c.name);
  const interrupt = lg.interrupts.length
    ? lg.interrupts.every((i) => i.resumed)
      ? ("resumed" as const)
      : ("pending" as const)
    : undefined;
  const error = lg.tasks.some((t) => t.writes.some((w) => w.kind === "error"));
  return {
    ...(lg.source ? { source: lg.source } : {}),
    ...(changed.length ? { changed } : {}),
    ...(interrupt ? { interrupt } : {}),
    ...(lg.resumes.length && !interrupt ? { resumed: true } : {}),
    ...(error ? { error: true } : {}),
  };
}

function common(opts: PageOptions): Partial<PageData> {
  return { ...(opts.source ? { source: opts.source } : {}), ...(opts.back ? { back: opts.back } : {}) };
}
