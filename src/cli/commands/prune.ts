/**
 * `ckpt prune <uri>`: delete old checkpoints. LangGraph stores: `--keep-last N` per thread and namespace,
 * `--older-than`, `--idle-for` (whole threads), thread filters; kept checkpoints keep their writes, blobs and delta
 * ancestors; orphan writes and blobs go. Planned from a page of threads at a time and carried out in one
 * transaction per page, deleting planned ids only, so an app writing meanwhile loses nothing. ckpt's own savers (one
 * checkpoint per thread): `--idle-for` and thread filters delete whole threads. `--dry-run` changes nothing.
 */
import { printable } from "../../base/printable.js";
import { plural } from "../../base/plural.js";
import type { Argv } from "yargs";
import { usageError } from "../../base/errors.js";
import { parseDuration, type PruneCriteria } from "../../core/prune.js";
import type { PrunePlanEntry, PruneSummary, VacuumSummary } from "../../core/prune-run.js";
import { intOption, threadFilter, type CommandDef } from "../command.js";
import type { CliIO } from "../io.js";

interface Args {
  uri: string;
  keepLast?: number;
  olderThan?: string;
  idleFor?: string;
  thread?: string[];
  match?: string[];
  dryRun: boolean;
  vacuum: boolean;
  batchSize: number;
  json: boolean;
}

/**
 * The output: a dry run's listing is written as each page is planned (held nowhere, so memory stays bounded by the
 * batch), the summary at the end. Text: a header line, a line per thread, the totals. JSON: one object, `plans`
 * (dry run only) before the totals.
 */
interface Output {
  plan(p: PrunePlanEntry): void;
  end(s: PruneSummary): void;
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
      if (p.rows) {
        io.stdout.write(
          `  ${w} ${printable(p.threadId)}${p.whole ? " (whole thread)" : ""}: ${p.rows.map((r) => `${r.table} ${r.rows}`).join(", ")}\n`,
        );
        return;
      }
      const byNs = new Map<string, number>();
      for (const c of p.checkpoints) byNs.set(c.ns, (byNs.get(c.ns) ?? 0) + 1);
      io.stdout.write(
        `  ${w} ${printable(p.threadId)}${p.whole ? " (whole thread)" : ""}: ${[...byNs].map(([ns, k]) => `${plural(k, "checkpoint")}${ns ? ` in ${printable(ns)}` : ""}`).join(", ")}\n`,
      );
    },
    end: (s) => {
      start();
      const rows = s.tables?.reduce((n, t) => n + t.rows, 0);
      io.stdout.write(
        [
          s.tables
            ? `  ${plural(s.threads, "thread")} examined; ${w} ${plural(rows!, "row")}${s.wholeThreads ? ` (${plural(s.wholeThreads, "whole thread")})` : ""}${s.tables.length ? `: ${s.tables.map((t) => `${t.table} ${t.rows}`).join(", ")}` : ""}; kept ${plural(s.kept, "thread")}`
            : `  ${plural(s.threads, "thread")} examined; ${w} ${plural(s.checkpoints, "checkpoint")}${s.wholeThreads ? ` (${plural(s.wholeThreads, "whole thread")})` : ""}, ${plural(s.writes, "write")}, ${plural(s.orphanWrites, "orphan write")}, ${plural(s.blobs, "blob")}; kept ${plural(s.kept, "checkpoint")}`,
          s.tables
            ? `  in ${(s.elapsedMs / 1000).toFixed(2)} s`
            : `  ${s.dryRun ? "would free" : "freed"} ${mb(s.bytes)} of row data in ${(s.elapsedMs / 1000).toFixed(2)} s`,
          ...(s.notes ?? []).map((n) => `  note: ${n}`),
          ...(s.vacuum ? [vacuumLine(s.vacuum, s.dryRun)] : []),
          ...(s.vacuumFailed !== undefined
            ? ["  vacuum: failed after the prune committed (the deletions above stand; nothing was given back)"]
            : []),
          ...deltaLines(s, w),
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

/** Why more was kept than asked: each DeltaChannel chain that reaches back past the checkpoints the criteria kept. */
function deltaLines(s: PruneSummary, w: string): string[] {
  const d = s.deltaKept;
  if (!d) return [];
  const shown = d.chains.slice(0, 10).map((k) => {
    const where = `${printable(k.threadId)}${k.ns ? ` (namespace ${printable(k.ns)})` : ""}`;
    const channels = k.channels.length
      ? ` (DeltaChannel ${k.channels.map((c) => `'${printable(c)}'`).join(", ")})`
      : "";
    const back = k.snapshot
      ? `its snapshot at ${k.reach}`
      : `the thread's first checkpoint ${k.reach} (no snapshot since)`;
    return `  kept ${k.kept} of ${where} where ${k.asked} ${k.asked === 1 ? "was" : "were"} asked: the delta chain of checkpoint ${k.from}${channels} reaches back to ${back}; ${k.channels.length > 1 ? "their values are" : "its value is"} rebuilt from there and the writes since`;
  });
  const listed = new Set(d.chains.slice(0, 10).map((k) => k.threadId)).size;
  const more = d.threads - listed;
  return [
    `  kept ${plural(d.checkpoints, "more checkpoint")} than asked in ${plural(d.threads, "thread")}: DeltaChannel values are rebuilt from their snapshot and the writes since, which ${w === "deleted" ? "were" : "would be"} lost with them`,
    ...shown,
    ...(more > 0 ? [`  … and ${plural(more, "more thread")} (--json lists ${d.chains.length} chains)`] : []),
  ];
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

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

function vacuumLine(v: VacuumSummary, dryRun: boolean): string {
  const parts = v.parts.map((p) =>
    dryRun ? `${p.name} ${mb(p.before)}` : `${p.name} ${mb(p.before)} → ${mb(p.after)}`,
  );
  if (dryRun)
    return `  would vacuum after the prune (${parts.join(", ")}): it would give back about ${mb(v.given)}${v.parts.length > 1 ? " to PostgreSQL (free space inside the tables; only VACUUM FULL shrinks the files)" : ""}`;
  return `  vacuum: gave back ${mb(v.given)} (${parts.join(", ")})${v.fullNeeded ? "; VACUUM keeps the freed space inside the tables for new rows: only VACUUM FULL (which locks the tables while it rewrites them) would shrink the files" : ""}`;
}

export const pruneCommand: CommandDef = {
  command: "prune <uri>",
  describe:
    "Delete old checkpoints, messages, items or idle threads (keep the newest N, older than, idle for); --dry-run lists what would go",
  builder: (y: Argv) =>
    y
      .positional("uri", {
        type: "string",
        describe:
          "store URI: sqlite:<path>, postgres://…?schema= (LangGraph, Mastra, Chat SDK template, SQLiteSession or ckpt's own), redis://…, file:<dir>",
      })
      .option("keep-last", {
        type: "number",
        describe:
          "keep the newest N checkpoints of every thread and namespace (LangGraph), messages of every thread (Mastra: the thread, its metadata and working memory stay), items of every session (SQLiteSession)",
      })
      .option("older-than", {
        type: "string",
        describe:
          "delete checkpoints (LangGraph), messages (Mastra) or items (SQLiteSession) older than this (e.g. 30d); the newest of each thread stays",
      })
      .option("idle-for", {
        type: "string",
        describe: "delete whole threads (chats, sessions) whose last update is older than this (e.g. 90d)",
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
      .option("vacuum", {
        type: "boolean",
        default: false,
        describe:
          "give the space back after the prune (SQLite VACUUM, the WAL checkpointed; PostgreSQL VACUUM of the layout's tables), sizes before and after",
      })
      .option("batch-size", {
        type: "number",
        default: 200,
        describe:
          "threads per transaction (LangGraph; Mastra, Chat SDK, SQLiteSession: per page read, one transaction a thread)",
      })
      .option("json", {
        type: "boolean",
        default: false,
        describe: "the summary (and with --dry-run the plan) as JSON",
      })
      .example(
        "ckpt prune sqlite:checkpoints.db --keep-last 2 --dry-run",
        "what keeping the newest 2 checkpoints per thread would free",
      )
      .example(
        "ckpt prune sqlite:checkpoints.db --keep-last 1 --vacuum",
        "keep the newest checkpoint per thread and shrink the file",
      )
      .example("ckpt prune 'postgres://…?schema=public' --idle-for 90d", "delete threads nobody touched for 90 days"),
  run: async (args: Args, io: CliIO) => {
    intOption(args.batchSize, "--batch-size");
    const { parseStore } = await import("../../savers/address.js");
    const uri = parseStore(args.uri, { cwd: io.cwd, env: io.env });
    const filter = await threadFilter(args);
    const { openStore } = await import("../stores.js");
    // a store to prune must exist and hold a layout's tables: never one created (or set up) to be pruned
    const { engine } = await openStore(uri, { env: io.env, readOnly: args.dryRun, existing: true });
    const { requireCap } = await import("../../engines/index.js");
    requireCap(engine, "prune");
    const out = output(io, args, engine.uri.redacted);
    const c = criteria(args, filter !== undefined);
    const o = {
      dryRun: args.dryRun,
      batchSize: args.batchSize,
      filter,
      onPlan: args.dryRun ? out.plan : undefined,
      vacuum: args.vacuum,
    };
    const { VacuumError } = await import("../../core/prune-run.js");
    try {
      out.end(await engine.prune!(c, o));
    } catch (e) {
      // the prune committed and the vacuum after it failed: what was deleted first, then the vacuum's error
      if (e instanceof VacuumError) out.end(e.summary);
      throw e;
    }
    return 0;
  },
};
