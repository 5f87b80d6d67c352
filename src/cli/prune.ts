/**
 * `ckpt prune <uri>`: delete old checkpoints. LangGraph stores: `--keep-last N` per thread and namespace,
 * `--older-than`, `--idle-for` (whole threads), thread filters; kept checkpoints keep their writes, blobs and delta
 * ancestors; orphan writes and blobs go. Planned from a page of threads at a time and carried out in one
 * transaction per page, deleting planned ids only, so an app writing meanwhile loses nothing. ckpt's own savers (one
 * checkpoint per thread): `--idle-for` and thread filters delete whole threads. `--dry-run` changes nothing.
 */
import { printable } from "../base/printable.js";
import { plural } from "../base/plural.js";
import type { Argv } from "yargs";
import { usageError } from "../base/errors.js";
import {
  parseDuration,
  planThread,
  uuid6Floor,
  type PruneCriteria,
  type PruneHead,
  type ThreadPlan,
} from "../core/prune.js";
import type { LangGraphStore, PruneCounts } from "../savers/langgraph/shared.js";
import { updatedAtOf } from "../savers/common.js";
import type { Saver, ThreadInfo } from "../savers/types.js";
import { intOption, threadFilter, type CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import { storeAt } from "./input.js";

interface Args {
  uri: string;
  keepLast?: number;
  olderThan?: string;
  idleFor?: string;
  thread?: string[];
  match?: string[];
  dryRun: boolean;
  batchSize: number;
  json: boolean;
}

interface Summary extends PruneCounts {
  dryRun: boolean;
  /** the prune's start (ISO): only checkpoints written before it are candidates; later ones are never touched */
  startedAt: string;
  threads: number;
  wholeThreads: number;
  kept: number;
  /** `--idle-for` on ckpt's own savers: threads kept because neither the store nor the document says when they changed */
  unknownTime?: number;
  elapsedMs: number;
}

/** One thread's part of a dry run's listing. */
interface PlanEntry {
  threadId: string;
  whole: boolean;
  checkpoints: Array<{ ns: string; id: string }>;
}

/**
 * The output: a dry run's listing is written as each page is planned (held nowhere, so memory stays bounded by the
 * batch), the summary at the end. Text: a header line, a line per thread, the totals. JSON: one object, `plans`
 * (dry run only) before the totals.
 */
interface Output {
  plan(p: PlanEntry): void;
  end(s: Summary): void;
}

function output(io: CliIO, args: Args, uri: string): Output {
  const w = args.dryRun ? "would delete" : "deleted";
  let n = 0;
  // the head goes out with the first line, so an error before anything was planned leaves stdout empty
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    if (args.json) io.stdout.write(`{"uri":${JSON.stringify(uri)}${args.dryRun ? ',"plans":[' : ""}`);
    else io.stdout.write(`${args.dryRun ? "dry run: " : ""}prune ${uri}\n`);
  };
  if (args.json)
    return {
      plan: (p) => (start(), void io.stdout.write((n++ ? "," : "") + JSON.stringify(p))),
      end: (s) => (start(), void io.stdout.write(`${args.dryRun ? "]" : ""},${JSON.stringify(s).slice(1)}\n`)),
    };
  return {
    plan: (p) => {
      start();
      const byNs = new Map<string, number>();
      for (const c of p.checkpoints) byNs.set(c.ns, (byNs.get(c.ns) ?? 0) + 1);
      io.stdout.write(
        `  ${w} ${printable(p.threadId)}${p.whole ? " (whole thread)" : ""}: ${[...byNs].map(([ns, k]) => `${plural(k, "checkpoint")}${ns ? ` in ${printable(ns)}` : ""}`).join(", ")}\n`,
      );
    },
    end: (s) => {
      start();
      io.stdout.write(
        [
          `  ${plural(s.threads, "thread")} examined; ${w} ${plural(s.checkpoints, "checkpoint")}${s.wholeThreads ? ` (${plural(s.wholeThreads, "whole thread")})` : ""}, ${plural(s.writes, "write")}, ${plural(s.orphanWrites, "orphan write")}, ${plural(s.blobs, "blob")}; kept ${plural(s.kept, "checkpoint")}`,
          `  ${s.dryRun ? "would free" : "freed"} ${mb(s.bytes)} of row data in ${(s.elapsedMs / 1000).toFixed(2)} s`,
          ...(s.unknownTime
            ? [
                `  kept ${plural(s.unknownTime, "thread")} whose last update is unknown (neither the store nor the document has an update time)`,
              ]
            : []),
        ].join("\n") + "\n",
      );
    },
  };
}

function criteria(args: Args, filtered: boolean): PruneCriteria {
  intOption(args.keepLast, "--keep-last");
  const c: PruneCriteria = {
    keepLast: args.keepLast,
    olderThanMs: args.olderThan === undefined ? undefined : parseDuration("--older-than", args.olderThan),
    idleForMs: args.idleFor === undefined ? undefined : parseDuration("--idle-for", args.idleFor),
    now: Date.now(),
  };
  if (c.keepLast === undefined && c.olderThanMs === undefined && c.idleForMs === undefined) {
    if (!filtered)
      throw usageError(
        "name what to prune: --keep-last N, --older-than <duration>, --idle-for <duration>, or --thread/--match to delete whole threads",
      );
    c.wholeThreads = true;
  }
  return c;
}

async function pruneLangGraph(
  args: Args,
  store: LangGraphStore,
  filter: ((t: string) => boolean) | undefined,
  out: Output,
): Promise<Summary> {
  criteria(args, filter !== undefined); // usage errors before the store is asked anything
  // PostgreSQL's blobs carry no checkpoint id: they are dated by the transactions running when the prune starts
  // (marked first, so that nothing written after the start time below is older than the mark)
  const startMark = await store.pruneStart?.();
  const c = criteria(args, filter !== undefined);
  const t0 = performance.now();
  const startId = uuid6Floor(c.now);
  const s: Summary = {
    dryRun: args.dryRun,
    startedAt: new Date(c.now).toISOString(),
    threads: 0,
    wholeThreads: 0,
    kept: 0,
    checkpoints: 0,
    writes: 0,
    orphanWrites: 0,
    blobs: 0,
    bytes: 0,
    elapsedMs: 0,
  };
  const plan = (t: string, heads: PruneHead[]): ThreadPlan => {
    const p = planThread(t, heads, c);
    s.threads++;
    s.kept += p.keep;
    if (p.whole) s.wholeThreads++;
    if (args.dryRun && (p.remove.length || p.whole))
      out.plan({ threadId: p.threadId, whole: p.whole, checkpoints: p.remove.map((h) => ({ ns: h.ns, id: h.id })) });
    return p;
  };
  try {
    let after: string | undefined;
    for (;;) {
      const page = await store.threadPage(after, args.batchSize);
      if (page.length === 0) break;
      after = page[page.length - 1];
      const threads = filter ? page.filter(filter) : page;
      if (threads.length === 0) continue;
      const counts = await store.prunePage(threads, plan, { startId, startMark, dryRun: args.dryRun });
      for (const k of ["checkpoints", "writes", "orphanWrites", "blobs", "bytes"] as const) s[k] += counts[k];
    }
  } finally {
    await store.close();
  }
  s.elapsedMs = performance.now() - t0;
  return s;
}

/** Fill in the update time of `threads` the store's listing has none for, from each document's `updatedAt`. */
async function updateTimes(saver: Saver, namespace: string, threads: ThreadInfo[]): Promise<void> {
  const missing = threads.filter((t) => t.updatedAt === undefined);
  for (let i = 0; i < missing.length; i += 200) {
    const part = missing.slice(i, i + 200);
    const texts = await saver.loadMany(part.map((t) => ({ namespace, threadId: t.threadId })));
    part.forEach((t, k) => {
      const at = texts[k] === undefined ? undefined : updatedAtOf(texts[k]!);
      if (at !== undefined && Number.isFinite(Date.parse(at))) t.updatedAt = at;
    });
  }
}

/** ckpt's own savers: one document per thread; idle (by update time) or filtered threads are deleted whole. */
async function pruneSaver(
  args: Args,
  saver: Saver,
  filter: ((t: string) => boolean) | undefined,
  out: Output,
): Promise<Summary> {
  if (args.keepLast !== undefined || args.olderThan !== undefined)
    throw usageError(
      "--keep-last and --older-than apply to LangGraph stores (many checkpoints per thread); ckpt's own savers keep one per thread: use --idle-for or --thread/--match",
    );
  const c = criteria(args, filter !== undefined);
  const t0 = performance.now();
  const s: Summary = {
    dryRun: args.dryRun,
    startedAt: new Date(c.now).toISOString(),
    threads: 0,
    wholeThreads: 0,
    kept: 0,
    checkpoints: 0,
    writes: 0,
    orphanWrites: 0,
    blobs: 0,
    bytes: 0,
    elapsedMs: 0,
  };
  try {
    for (const ns of await saver.namespaces()) {
      const doomed: Array<{ threadId: string; bytes: number }> = [];
      const listed: ThreadInfo[] = [];
      for await (const t of saver.list({ namespace: ns })) if (!filter || filter(t.threadId)) listed.push(t);
      // a store that keeps no update time (Redis): the document's own updatedAt, read in batches
      if (c.idleForMs !== undefined) await updateTimes(saver, ns, listed);
      for (const t of listed) {
        s.threads++;
        const updated = t.updatedAt ? Date.parse(t.updatedAt) : NaN;
        const idle = c.idleForMs !== undefined && Number.isFinite(updated) && c.now - updated > c.idleForMs;
        if ((c.wholeThreads || idle) && !(Number.isFinite(updated) && updated > c.now))
          doomed.push({ threadId: t.threadId, bytes: t.bytes });
        else {
          s.kept++;
          // never silently: a thread whose age is unknown is kept, and counted as such
          if (c.idleForMs !== undefined && !c.wholeThreads && !Number.isFinite(updated))
            s.unknownTime = (s.unknownTime ?? 0) + 1;
        }
      }
      for (const d of doomed) {
        if (args.dryRun) out.plan({ threadId: d.threadId, whole: true, checkpoints: [{ ns, id: d.threadId }] });
        if (!args.dryRun) {
          if (!(await saver.delete(d.threadId, ns))) continue;
        }
        s.wholeThreads++;
        s.checkpoints++;
        s.bytes += d.bytes;
      }
    }
  } finally {
    await saver.close();
  }
  s.elapsedMs = performance.now() - t0;
  return s;
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

export const pruneCommand: CommandDef = {
  command: "prune <uri>",
  describe:
    "Delete old checkpoints (LangGraph: keep the newest N, older than, idle threads); --dry-run lists what would go",
  builder: (y: Argv) =>
    y
      .positional("uri", {
        type: "string",
        describe: "store URI: sqlite:<path>, postgres://…?schema= (LangGraph or ckpt's own), redis://…, file:<dir>",
      })
      .option("keep-last", {
        type: "number",
        describe: "LangGraph: keep the newest N checkpoints of every thread and namespace",
      })
      .option("older-than", {
        type: "string",
        describe: "LangGraph: delete checkpoints older than this (e.g. 30d); the newest of each namespace stays",
      })
      .option("idle-for", {
        type: "string",
        describe: "delete whole threads whose newest checkpoint is older than this (e.g. 90d)",
      })
      .option("thread", { type: "string", array: true, describe: "only these threads (alone: delete them whole)" })
      .option("match", {
        type: "string",
        array: true,
        describe: "only threads whose id matches this glob (alone: delete them whole)",
      })
      .option("dry-run", {
        type: "boolean",
        default: false,
        describe: "list what would go and the bytes it frees; change nothing",
      })
      .option("batch-size", { type: "number", default: 200, describe: "threads per transaction" })
      .option("json", {
        type: "boolean",
        default: false,
        describe: "the summary (and with --dry-run the plan) as JSON",
      })
      .example(
        "ckpt prune sqlite:checkpoints.db --keep-last 2 --dry-run",
        "what keeping the newest 2 checkpoints per thread would free",
      )
      .example("ckpt prune 'postgres://…?schema=public' --idle-for 90d", "delete threads nobody touched for 90 days"),
  run: async (args: Args, io: CliIO) => {
    intOption(args.batchSize, "--batch-size");
    args.uri = storeAt(args.uri, io.cwd);
    const filter = await threadFilter(args);
    const { openStore } = await import("./stores.js");
    const opened = await openStore(args.uri, { env: io.env, readOnly: args.dryRun });
    const out = output(io, args, opened.uri.redacted);
    out.end(
      opened.layout === "langgraph"
        ? await pruneLangGraph(args, opened.store, filter, out)
        : await pruneSaver(args, opened.saver, filter, out),
    );
    return 0;
  },
};
