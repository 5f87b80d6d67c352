/**
 * `ckpt migrate --from URI --to URI`: stream every thread from one saver to another (optionally converting the
 * format), verified by content hash, resumable through a journal. Progress on stderr on a TTY; `--json` prints NDJSON
 * progress events and the summary on stdout.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { Argv } from "yargs";
import { CkptError, ExitCode, storeError, usageError } from "../base/errors.js";
import { openCheckPool } from "./check-pool.js";
import { migrate, type ConflictPolicy, type Journal, type MigrateProgress, type MigrateSummary } from "../core/migrate.js";
import { isFormatName, FORMAT_NAMES, type FormatName } from "../formats/index.js";
import type { CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import type { Saver } from "../savers/types.js";
import { writeFilesAtomic } from "./write.js";

interface Args {
  from: string;
  to: string;
  namespace?: string[];
  toNamespace?: string;
  toFormat?: string;
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  rejectFile?: string;
  strict: boolean;
  batchSize: number;
  jobs?: number;
  journal?: string;
  resume: boolean;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  toLibrary?: string;
  thread?: string[];
}

/** Parallel writers when --jobs is not given: a networked store takes several connections' round trips at once. */
export const DEFAULT_JOBS = 4;

/**
 * The extra target connections for `--jobs N` (the first writer is the target itself). Only Redis (one server or a
 * cluster) and PostgreSQL take parallel writers: SQLite has one writer at a time, and the other stores are local.
 */
async function openWriters(uri: string, jobs: number | undefined, env: NodeJS.ProcessEnv): Promise<Saver[]> {
  const { openSaver, parseSaverUri } = await import("../savers/index.js");
  const kind = parseSaverUri(uri, env).kind;
  const parallel = kind === "redis" || kind === "postgres";
  if (jobs !== undefined && jobs > 1 && !parallel) throw usageError(`--jobs ${jobs}: only redis:// and postgres:// targets take parallel writers (${kind} has one writer)`);
  const n = parallel ? (jobs ?? DEFAULT_JOBS) : 1;
  const writers: Saver[] = [];
  try {
    for (let i = 1; i < n; i++) writers.push(await openSaver(uri, { env }));
  } catch (e) {
    await Promise.all(writers.map((w) => w.close().catch(() => undefined)));
    throw e;
  }
  return writers;
}

/** A journal file: one JSON line per committed record, fsynced per batch; removed when the run completes. */
export async function openJournal(path: string, resume: boolean, header: object): Promise<Journal & { close(): Promise<void>; remove(): Promise<void> }> {
  const done = new Set<string>();
  if (existsSync(path)) {
    if (!resume) {
      throw usageError(`an interrupted migration left its journal at ${path}: pass --resume to finish it, or delete the file to start over`);
    }
    for (const line of readFileSync(path, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as { k?: string };
        if (typeof e.k === "string") done.add(e.k);
      } catch {
        // a line cut short by the kill: its batch is simply written again (idempotent)
      }
    }
  }
  const fh = await open(path, "a");
  if (done.size === 0) {
    await fh.write(JSON.stringify({ ckptMigrateJournal: 1, ...header }) + "\n");
    await fh.sync();
  }
  return {
    done,
    async commit(entries) {
      await fh.write(entries.map((e) => JSON.stringify({ k: e.key, h: e.hash })).join("\n") + "\n");
      await fh.sync();
    },
    close: () => fh.close(),
    remove: () => rm(path, { force: true }),
  };
}

const fmtNum = (n: number) => n.toLocaleString("en-US");

function summaryText(s: MigrateSummary, from: string, to: string, verbose = false): string {
  const lines = [
    `${s.dryRun ? "dry run: " : ""}${from} → ${to}`,
    `  read ${fmtNum(s.read)}, ${s.dryRun ? "would write" : "written"} ${fmtNum(s.written)}, skipped ${fmtNum(s.skipped)}` +
      `${s.identical ? ` (${fmtNum(s.identical)} identical)` : ""}${s.resumed ? ` (${fmtNum(s.resumed)} done before the interruption)` : ""}, rejected ${fmtNum(s.rejected)}` +
      `${s.dryRun ? "" : `, verified ${fmtNum(s.verified)}`}${s.ignored ? `, ignored ${fmtNum(s.ignored)} (not checkpoints${verbose ? "" : "; --verbose lists them"})` : ""}`,
    `  ${(s.bytesRead / 1e6).toFixed(2)} MB read${s.dryRun ? `, ${(s.bytesWritten / 1e6).toFixed(2)} MB would be written` : ""} in ${(s.elapsedMs / 1000).toFixed(2)} s: ${fmtNum(Math.round(s.recordsPerSecond))} records/s, ${s.mbPerSecond.toFixed(2)} MB/s${s.writers > 1 ? ` (${s.writers} writers)` : ""}`,
  ];
  for (const c of s.conflicts.slice(0, 20)) lines.push(`  conflict: ${c.namespace}#${c.threadId}: ${c.reason}`);
  if (s.conflicts.length > 20) lines.push(`  … and ${s.conflicts.length - 20} more conflicts`);
  for (const m of s.mismatches.slice(0, 20)) lines.push(`  verification mismatch: ${m.namespace}#${m.threadId}: expected sha256 ${m.expected.slice(0, 12)}…, got ${m.got ? m.got.slice(0, 12) + "…" : "nothing"}`);
  // a reason that names its file (with line:column) already says where
  for (const r of s.rejectedRecords.slice(0, 10)) lines.push(`  rejected: ${r.file && r.reason.startsWith(r.file) ? r.reason : `${r.file ?? `${r.namespace}#${r.threadId}`}: ${r.reason}`}`);
  if (s.rejectedRecords.length > 10) lines.push(`  … and ${s.rejectedRecords.length - 10} more rejected (see --reject-file)`);
  if (verbose) for (const f of s.ignoredFiles) lines.push(`  ignored: ${f.file}: ${f.reason}`);
  if (s.aborted) lines.push(`  stopped: ${s.aborted}`);
  return lines.join("\n") + "\n";
}

/** `migrating [#########-----------]  45%  4,500/10,000 · 1,234 written · 12,345 rec/s · ETA 0:04` (TTY only). */
export function progressLine(p: MigrateProgress, dryRun: boolean, columns: number): string {
  const rate = p.read / Math.max(p.elapsedMs / 1000, 0.001);
  const counts = `${fmtNum(p.written)} ${dryRun ? "to write" : "written"}, ${fmtNum(p.skipped)} skipped, ${fmtNum(p.rejected)} rejected · ${fmtNum(Math.round(rate))} rec/s`;
  const label = dryRun ? "planning" : "migrating";
  if (!p.total) return `${label}: ${fmtNum(p.read)} read, ${counts}`;
  const frac = Math.min(1, p.read / p.total);
  const left = rate > 0 ? Math.max(0, (p.total - p.read) / rate) : 0;
  const eta = `${Math.floor(left / 60)}:${String(Math.round(left % 60)).padStart(2, "0")}`;
  const tail = ` ${String(Math.round(frac * 100)).padStart(3)}%  ${fmtNum(p.read)}/${fmtNum(p.total)} · ${counts} · ETA ${eta}`;
  const width = Math.max(10, Math.min(40, columns - label.length - tail.length - 4));
  const done = Math.round(frac * width);
  return `${label} [${"#".repeat(done)}${"-".repeat(width - done)}]${tail}`.slice(0, Math.max(20, columns - 1));
}

export function exitCodeOf(s: MigrateSummary): number {
  if (s.mismatches.length || s.conflicts.length) return ExitCode.NEGATIVE;
  if (s.rejected) return ExitCode.PARTIAL;
  return ExitCode.OK;
}

export const migrateCommand: CommandDef = {
  command: "migrate",
  describe: "Copy every checkpoint from one saver to another (and convert formats), verified and resumable",
  builder: (y: Argv) =>
    y
      .option("from", { type: "string", demandOption: true, describe: "source saver URI (file:<dir>, sqlite:<path>, redis://…, postgres://…, memory:) or a single file" })
      .option("to", { type: "string", demandOption: true, describe: "target saver URI" })
      .option("namespace", { type: "string", array: true, describe: "source namespace(s) to copy (default: all)" })
      .option("to-namespace", { type: "string", describe: "write into this namespace instead of the source's" })
      .option("to-format", { type: "string", describe: `convert every document: ${FORMAT_NAMES.filter((f) => f !== "amacs").join(", ")}` })
      .option("allow-lossy", { type: "boolean", default: false, describe: "convert even when the target format drops fields" })
      .option("dry-run", { type: "boolean", default: false, describe: "print the plan (counts, conflicts, bytes); write nothing" })
      .option("on-conflict", { choices: ["default", "skip", "overwrite", "fail", "newer"] as const, default: "default" as const, describe: "existing target records: default = skip identical, fail on different" })
      .option("verify", { type: "boolean", default: true, describe: "read every written record back and compare content hashes (--no-verify to skip)" })
      .option("reject-file", { type: "string", describe: "write rejected records here (NDJSON: namespace, threadId, reason)" })
      .option("strict", { type: "boolean", default: false, describe: "stop at the first rejected record" })
      .option("batch-size", { type: "number", default: 200, describe: "records per batch (one pipeline / transaction)" })
      .option("jobs", { alias: "j", type: "number", describe: `parallel writers (connections) for redis:// and postgres:// targets, records sharded by thread id (default ${DEFAULT_JOBS} there, 1 elsewhere)` })
      .option("journal", { type: "string", describe: "journal file (default: .ckpt-migrate-<hash>.journal in the current folder)" })
      .option("resume", { type: "boolean", default: false, describe: "finish an interrupted migration from its journal" })
      .option("to-library", { type: "string", choices: ["python", "js"], describe: "LangGraph stores: convert the history for this library (msgpack ⇄ json, versions)" })
      .option("thread", { type: "string", array: true, describe: "LangGraph stores: copy only these threads" })
      .option("json", { type: "boolean", default: false, describe: "NDJSON progress events and summary on stdout" })
      .option("verbose", { alias: "v", type: "boolean", default: false, describe: "list every source entry that is not a checkpoint (ignored) with its reason" })
      .option("quiet", { alias: "q", type: "boolean", default: false, describe: "no progress, summary only" })
      .example("ckpt migrate --from file:./.checkpoints --to redis://127.0.0.1:6379", "deep-agent FileSaver → KeyValueStoreSaver keys")
      .example("ckpt migrate --from sqlite:ckpt.db --to file:./out --to-format yoagent --allow-lossy", "convert while copying"),
  run: async (args: Args, io: CliIO) => {
    if (args.toFormat !== undefined && !isFormatName(args.toFormat)) throw usageError(`unknown format '${args.toFormat}': expected one of ${FORMAT_NAMES.join(", ")}`);
    if (args.toFormat === "amacs") throw usageError("--to-format amacs: an amacs thread is a folder of org files and cannot be stored in a saver; use ckpt convert");
    if (!Number.isInteger(args.batchSize) || args.batchSize < 1) throw usageError("--batch-size must be a positive integer");
    if (args.jobs !== undefined && (!Number.isInteger(args.jobs) || args.jobs < 1 || args.jobs > 64)) throw usageError("--jobs must be an integer from 1 to 64");
    const { openSaver, redact, parseSaverUri } = await import("../savers/index.js");
    // A ?namespace= on the source picks what to copy, and on the target where to write, unless the flags say otherwise.
    const fromNamespace = parseSaverUri(args.from, io.env).params.get("namespace") ?? undefined;
    const toNamespace = args.toNamespace ?? parseSaverUri(args.to, io.env).params.get("namespace") ?? undefined;
    const from = redact(args.from);
    const to = redact(args.to);
    const { isLangGraphStore, runLangGraphMigrate } = await import("./migrate-langgraph.js");
    // LangGraph stores (checked read-only, before any saver is opened: ckpt's own SQLite saver would add its tables)
    const langgraph = args.toLibrary !== undefined || (await isLangGraphStore(args.from, io.env));
    const source = langgraph ? undefined : await openSaver(args.from, { env: io.env, readOnly: true });
    let target;
    try {
      target = langgraph ? undefined : await openSaver(args.to, { env: io.env });
    } catch (e) {
      await source?.close();
      throw e;
    }
    let writers: Saver[];
    try {
      writers = langgraph ? [] : await openWriters(args.to, args.jobs, io.env);
    } catch (e) {
      await source?.close();
      await target?.close();
      throw e;
    }
    const journalPath = resolve(io.cwd, args.journal ?? `.ckpt-migrate-${createHash("sha1").update(`${args.from}\n${args.to}\n${args.toFormat ?? ""}${args.toLibrary ? `\n${args.toLibrary}` : ""}`).digest("hex").slice(0, 12)}.journal`);
    const journal = args.dryRun ? undefined : await openJournal(journalPath, args.resume, { from, to, startedAt: new Date().toISOString() });
    const tty = Boolean(io.stderr.isTTY) && !args.json && !args.quiet;
    const rejectPath = args.rejectFile ? resolve(io.cwd, args.rejectFile) : undefined;
    if (rejectPath) await rm(rejectPath, { force: true });
    let summary: MigrateSummary;
    try {
      const onProgress = (p: MigrateProgress) => {
        if (args.json) io.stdout.write(JSON.stringify({ type: "progress", ...p }) + "\n");
        else if (tty) io.stderr.write(`\r\x1b[2K${progressLine(p, Boolean(args.dryRun), io.stderr.columns ?? 100)}`);
      };
      summary = langgraph
        ? await runLangGraphMigrate(args, io, { journal, onProgress })
        : await migrate(source!, target!, {
        namespaces: args.namespace ?? (fromNamespace !== undefined ? [fromNamespace] : undefined),
        toNamespace,
        toFormat: args.toFormat as FormatName | undefined,
        allowLossy: args.allowLossy,
        dryRun: args.dryRun,
        onConflict: args.onConflict === "default" ? "auto" : args.onConflict,
        verify: args.verify,
        strict: args.strict,
        batchSize: args.batchSize,
        writers,
        journal,
        openCheckPool,
        onProgress(p) {
          if (args.json) io.stdout.write(JSON.stringify({ type: "progress", ...p }) + "\n");
          else if (tty) io.stderr.write(`\r\x1b[2K${progressLine(p, Boolean(args.dryRun), io.stderr.columns ?? 100)}`);
        },
      });
    } catch (e) {
      await journal?.close();
      const resumeHint = journal ? ` (the journal at ${journalPath} lets --resume finish it)` : "";
      if (e instanceof CkptError) {
        if (e.exitCode !== ExitCode.STORE || !journal) throw e;
        throw new CkptError(e.exitCode, e.reason, `migration stopped: ${e.message}${resumeHint}`, e.place, { cause: e });
      }
      throw storeError("store-io", `migration stopped: ${(e as Error).message}${resumeHint}`);
    } finally {
      await source?.close().catch(() => undefined);
      await target?.close().catch(() => undefined);
      await Promise.all(writers.map((w) => w.close().catch(() => undefined)));
      if (tty) io.stderr.write("\r\x1b[2K");
    }
    if (rejectPath && summary.rejectedRecords.length) {
      await writeFilesAtomic([{ path: rejectPath, text: summary.rejectedRecords.map((r) => JSON.stringify(r)).join("\n") + "\n" }], args.rejectFile!);
    }
    await journal?.close();
    const code = exitCodeOf(summary);
    // A run that ended in order (finished, or stopped on a conflict / --strict reject) needs no resume: drop the
    // journal; re-running is safe because identical records are skipped. Only a crash or kill leaves it behind.
    if (journal) await journal.remove();
    if (args.json) io.stdout.write(JSON.stringify({ type: "summary", from, to, exitCode: code, ...summary }) + "\n");
    else io.stdout.write(summaryText(summary, from, to, args.verbose));
    return code;
  },
};
