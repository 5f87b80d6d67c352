/**
 * `ckpt migrate --from URI --to URI`: stream every thread from one saver to another (optionally converting the
 * format), verified by content hash, resumable through a journal. Progress on stderr on a TTY; `--json` prints NDJSON
 * progress events and the summary on stdout.
 */
import { printable } from "../../base/printable.js";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeSync } from "node:fs";
import { mkdir, open, rm, type FileHandle } from "node:fs/promises";
import { availableParallelism, homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Argv } from "yargs";
import { CkptError, ExitCode, storeError, usageError } from "../../base/errors.js";
import { openCheckPool } from "../check-pool.js";
import { redactText, redactUri } from "../../base/redact.js";
import {
  type ConflictPolicy,
  type Journal,
  type MigrateProgress,
  migrateExitCode,
  type MigrateSummary,
} from "../../core/migrate/types.js";
import { isFormatName, FORMAT_NAMES } from "../../formats/index.js";
import { aiSdkMajor } from "../../formats/ai-sdk.js";
import { intOption, type CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import type { RedactCounts } from "../../core/scan/redact.js";
import { REDACT_OPTION, redactKinds, redactedLine, redactingSaver } from "../redact.js";
import type { Saver } from "../../savers/types.js";
import { writeFileAtomic } from "../../base/atomic.js";
import { fmtInt } from "../../base/plural.js";
import { namespaceOf } from "../../savers/types.js";
import { atCwd } from "../../savers/address.js";
import type { SaverUri } from "../../savers/uri.js";
import { requireCap } from "../../engines/index.js";
import {
  layoutBeforeOpen,
  refuseBeforeOpen,
  refuseOpened,
  runRoute,
  targetWant,
} from "../../engines/migrate-endpoints.js";
import { openStore, type OpenedWithEngine } from "../stores.js";
import { uriOfLayout } from "../../savers/layout-uri.js";

interface Args {
  redact?: string;
  from: string;
  to: string;
  namespace?: string[];
  toNamespace?: string;
  toFormat?: string;
  /** --ai-sdk-version, or the N of --to-format ai-sdk@N */
  aiSdkVersion?: string;
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  rejectFile?: string;
  strict: boolean;
  batchSize: number;
  journal?: string;
  resume: boolean;
  json: boolean;
  quiet: boolean;
  jobs?: number;
  verbose: boolean;
  toLibrary?: string;
  thread?: string[];
}

/**
 * Parallel writers when --jobs is not given: one per core the process may use, 2 to 8. Each writer's lookups, writes
 * and read-backs overlap with the others' round trips, but the records are read, checked and encoded on this
 * machine's cores: measured on 2 cores, 4 writers were no faster than 2 (bench/migrate).
 */
export const defaultJobs = () => Math.max(2, Math.min(8, availableParallelism()));

/**
 * The extra target connections for `--jobs N` (the first writer is the target itself), where the target's engine
 * takes parallel writers (Redis, PostgreSQL); `--jobs` elsewhere was refused before (engines/migrate-endpoints.ts).
 */
async function openWriters(
  target: OpenedWithEngine,
  jobs: number | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Saver[]> {
  const n = target.engine.caps.parallelWriters ? (jobs ?? defaultJobs()) : 1;
  const writers: Saver[] = [];
  // the target's layout is decided (opening it asked the database for its tables): the others open that layout
  // without asking again (a PostgreSQL store: one connection each, not three)
  const uri = uriOfLayout(target);
  try {
    for (let i = 1; i < n; i++) writers.push((await openStore(uri, { readOnly: false, env })).saver);
  } catch (e) {
    await Promise.all(writers.map((w) => w.close().catch(() => undefined)));
    throw e;
  }
  return writers;
}

type FileJournal = Journal & { path: string; committed(): number; close(): Promise<void>; remove(): Promise<void> };

/**
 * Where journals live: `$XDG_STATE_HOME/ckpt/`, else `~/.local/state/ckpt/` — a per-user state folder, never the
 * current folder (which may be read-only, or shared). The name is a hash of the run's source, target and format.
 */
export function journalPathFor(
  args: Pick<Args, "from" | "to" | "toFormat" | "journal" | "toLibrary" | "aiSdkVersion">,
  io: CliIO,
): string {
  if (args.journal) return resolve(io.cwd, args.journal);
  const state =
    io.env.XDG_STATE_HOME && isAbsolute(io.env.XDG_STATE_HOME)
      ? io.env.XDG_STATE_HOME
      : join(io.env.HOME || homedir(), ".local", "state");
  const hash = createHash("sha1")
    .update(
      `${args.from}\n${args.to}\n${args.toFormat ?? ""}${args.aiSdkVersion ? `@${args.aiSdkVersion}` : ""}${args.toLibrary ? `\n${args.toLibrary}` : ""}`,
    )
    .digest("hex")
    .slice(0, 12);
  return join(state, "ckpt", `migrate-${hash}.journal`);
}

/** Whether process `pid` is alive (EPERM: it is, under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Take the journal's lock, `<journal>.lock` holding this process's id, created exclusively: two runs of one migration
 * share one journal, and the second must not take the first's live journal for an interrupted one. A lock whose
 * process is gone (a kill -9, a crash) is taken over. The lock goes when the run ends; the release function says so.
 */
async function lockJournal(path: string): Promise<() => Promise<void>> {
  const lock = `${path}.lock`;
  const failed = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    return storeError(
      "journal",
      `cannot write the migration journal: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (e as Error).message} (set XDG_STATE_HOME or pass --journal <file>)`,
      { file: lock },
      e,
    );
  };
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (e) {
    throw failed(e);
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await open(lock, "wx");
      await fh.write(`${process.pid}\n`);
      await fh.close();
      return () => rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw failed(e);
    }
    let pid = Number.NaN;
    try {
      pid = Number.parseInt(readFileSync(lock, "utf8"), 10);
    } catch {
      // removed meanwhile: try again
    }
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
      throw storeError(
        "journal-locked",
        `another migration (pid ${pid}) is running with the journal at ${path}: wait for it to finish (it removes the journal), or stop it (Ctrl-C) and finish with --resume`,
        { file: path },
      );
    // the process that held it is gone: its lock is stale
    await rm(lock, { force: true });
  }
}

/** An interrupted run's journal blocks a fresh run (checked before any store is opened). */
function checkJournal(path: string, resume: boolean): void {
  if (existsSync(path) && !resume) {
    throw usageError(
      `an interrupted migration left its journal at ${path}: pass --resume to finish it, or delete the file to start over`,
    );
  }
}

/**
 * A journal file: one JSON line per committed record, appended after the target committed the batch. Created (with
 * its folder) before anything is written; a folder or file that cannot be written is a store error (exit 4) naming
 * the path.
 * The appends are not fsynced. The journal's one promise is never to name a record the target does not hold: a
 * written line is in the kernel the moment `write` returns, so it survives a kill, a crash of ckpt or Ctrl-C; after a
 * power loss it may lose its tail, and those records are simply checked and written again (identical ones skipped).
 * Forcing each batch's line to disk would not make the promise safer (the target's own durability is what decides it)
 * and cost a disk flush per batch: ~4 ms each here, 0.2 s of a 10,000-record migration in batches of 200.
 */
async function openJournal(path: string, resume: boolean, header: object): Promise<FileJournal> {
  const done = new Set<string>();
  if (resume && existsSync(path)) {
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
  let fh: FileHandle;
  try {
    await mkdir(dirname(path), { recursive: true });
    fh = await open(path, "a");
    if (done.size === 0) {
      await fh.write(JSON.stringify({ ckptMigrateJournal: 1, ...header }) + "\n");
      await fh.sync();
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw storeError(
      "journal",
      `cannot write the migration journal: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (e as Error).message} (set XDG_STATE_HOME or pass --journal <file>)`,
      { file: path },
    );
  }
  let committed = 0;
  return {
    path,
    done,
    committed: () => committed + done.size,
    // appended synchronously: a batch's lines (~20 KB) go into the page cache in microseconds, while a write on the
    // thread pool hands each one to another thread and back (on a busy machine the main thread then waited ~2.8 ms
    // per batch to run again: 280 ms of a 10,000-record migration's wall time, 20 ms of its CPU)
    async commit(entries) {
      let text = "";
      for (const e of entries) text += `${JSON.stringify({ k: e.key, h: e.hash })}\n`;
      const data = Buffer.from(text);
      for (let at = 0; at < data.length; ) at += writeSync(fh.fd, data, at);
      committed += entries.length;
    },
    close: () => fh.close(),
    remove: () => rm(path, { force: true }),
  };
}

const fmtNum = fmtInt;

/** A thread id for a summary line: a very long one (the reason it was rejected, often) is cut, with its length. */
const shortId = (id: string) => (id.length > 64 ? `${id.slice(0, 48)}… (${fmtNum(id.length)} characters)` : id);

/** A document migration's mismatch carries content hashes (shown cut to 12 digits); a LangGraph one says what it compared. */
export function mismatchText(m: { expected: string; got: string | null }): string {
  const hash = (h: string) => /^[0-9a-f]{64}$/.test(h);
  if (!hash(m.expected)) return `expected ${m.expected}, got ${m.got ?? "nothing"}`;
  return `expected sha256 ${m.expected.slice(0, 12)}…, got ${m.got ? (hash(m.got) ? `${m.got.slice(0, 12)}…` : m.got) : "nothing"}`;
}

function summaryText(s: MigrateSummary, from: string, to: string, verbose = false): string {
  const lines = [
    `${s.dryRun ? "dry run: " : ""}${from} → ${to}`,
    `  read ${fmtNum(s.read)}, ${s.dryRun ? "would write" : "written"} ${fmtNum(s.written)}, skipped ${fmtNum(s.skipped)}` +
      `${s.identical ? ` (${fmtNum(s.identical)} identical)` : ""}${s.resumed ? ` (${fmtNum(s.resumed)} done before the interruption)` : ""}, rejected ${fmtNum(s.rejected)}` +
      `${s.dryRun ? "" : `, verified ${fmtNum(s.verified)}`}${s.ignored ? `, ignored ${fmtNum(s.ignored)} (not checkpoints${verbose ? "" : "; --verbose lists them"})` : ""}`,
    `  ${(s.bytesRead / 1e6).toFixed(2)} MB read${s.dryRun ? `, ${(s.bytesWritten / 1e6).toFixed(2)} MB would be written` : ""} in ${(s.elapsedMs / 1000).toFixed(2)} s: ${fmtNum(Math.round(s.recordsPerSecond))} records/s, ${s.mbPerSecond.toFixed(2)} MB/s${s.writers > 1 ? ` (${s.writers} writers)` : ""}`,
  ];
  if (s.figures) lines.push(`  ${s.figures}`);
  if (s.journalMissing)
    lines.push(
      `  the journal named ${fmtNum(s.journalMissing)} record(s) the target no longer held (restarted empty, restored?): written again`,
    );
  for (const a of s.altered?.slice(0, 10) ?? [])
    lines.push(`  altered: ${a.namespace ? `${a.namespace}#` : ""}${a.threadId}: ${a.what}`);
  if ((s.altered?.length ?? 0) > 10) lines.push(`  … and ${s.altered!.length - 10} more altered (see --json)`);
  for (const c of s.conflicts.slice(0, 20)) lines.push(`  conflict: ${c.namespace}#${c.threadId}: ${c.reason}`);
  if (s.conflicts.length > 20) lines.push(`  … and ${s.conflicts.length - 20} more conflicts`);
  for (const m of s.mismatches.slice(0, 20))
    lines.push(`  verification mismatch: ${m.namespace}#${m.threadId}: ${mismatchText(m)}`);
  // a reason that names its file (with line:column) already says where
  for (const r of s.rejectedRecords.slice(0, 10))
    lines.push(
      `  rejected: ${r.file && r.reason.startsWith(r.file) ? r.reason : `${r.file ?? `${r.namespace}#${shortId(r.threadId)}`}: ${r.reason}`}`,
    );
  if (s.rejectedRecords.length > 10)
    lines.push(`  … and ${s.rejectedRecords.length - 10} more rejected (see --reject-file)`);
  if (verbose) for (const f of s.ignoredFiles) lines.push(`  ignored: ${f.file}: ${f.reason}`);
  if (s.aborted) lines.push(`  stopped: ${s.aborted}`);
  // thread ids and file names come from the stores: their control characters are shown, never acted on
  return lines.map((l) => printable(l)).join("\n") + "\n";
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

export const migrateCommand: CommandDef = {
  command: "migrate",
  describe: "Copy every checkpoint from one saver to another (and convert formats), verified and resumable",
  builder: (y: Argv) =>
    y
      .option("from", {
        type: "string",
        demandOption: true,
        describe: "source saver URI (file:<dir>, sqlite:<path>, redis://…, postgres://…, memory:) or a single file",
      })
      .option("to", { type: "string", demandOption: true, describe: "target saver URI" })
      .option("namespace", {
        type: "string",
        array: true,
        describe: "source namespace(s) to copy, when --from has no ?namespace= (default: all)",
      })
      .option("to-namespace", {
        type: "string",
        describe: "write into this namespace instead of the source's, when --to has no ?namespace=",
      })
      .option("to-format", {
        type: "string",
        describe: `convert every document: ${FORMAT_NAMES.filter((f) => f !== "amacs").join(", ")} (ai-sdk@N: AI SDK chats of major N)`,
      })
      .option("ai-sdk-version", {
        type: "string",
        choices: ["4", "5", "6", "7"],
        describe: "--to-format ai-sdk: the AI SDK major to write (default: each chat's own, else 7)",
      })
      .option("allow-lossy", {
        type: "boolean",
        default: false,
        describe: "convert even when the target format drops fields",
      })
      .option("dry-run", {
        type: "boolean",
        default: false,
        describe: "print the plan (counts, conflicts, bytes); write nothing",
      })
      .option("on-conflict", {
        choices: ["default", "skip", "overwrite", "fail", "newer"] as const,
        default: "default" as const,
        describe: "existing target records: default = skip identical, fail on different",
      })
      .option("verify", {
        type: "boolean",
        default: true,
        describe: "read every written record back and compare content hashes (--no-verify to skip)",
      })
      .option("reject-file", {
        type: "string",
        describe: "write rejected records here (NDJSON: namespace, threadId, reason)",
      })
      .option("strict", { type: "boolean", default: false, describe: "stop at the first rejected record" })
      .option("batch-size", {
        type: "number",
        default: 200,
        describe: "records per batch (one pipeline / transaction)",
      })
      .option("journal", {
        type: "string",
        describe: "journal file (default: $XDG_STATE_HOME/ckpt/migrate-<hash>.journal, else ~/.local/state/ckpt/…)",
      })
      .option("resume", {
        type: "boolean",
        default: false,
        describe: "finish an interrupted migration from its journal",
      })
      .option("to-library", {
        type: "string",
        choices: ["python", "js"],
        describe:
          "LangGraph stores: convert the history for this library (msgpack ⇄ json, versions); into a LangGraph store: the encoding to write (default: the store's, else js)",
      })
      .option("thread", { type: "string", array: true, describe: "LangGraph stores: copy only these threads" })
      .option("json", { type: "boolean", default: false, describe: "NDJSON progress events and summary on stdout" })
      .option("jobs", {
        alias: "j",
        type: "number",
        describe: `parallel writers (connections) for redis:// and postgres:// targets, records sharded by thread id (default: one per core, 2 to 8, there; 1 elsewhere)`,
      })
      .option("verbose", {
        alias: "v",
        type: "boolean",
        default: false,
        describe: "list every source entry that is not a checkpoint (ignored) with its reason",
      })
      .option("quiet", { alias: "q", type: "boolean", default: false, describe: "no progress, summary only" })
      .option("redact", REDACT_OPTION)
      .example(
        "ckpt migrate --from file:./.checkpoints --to redis://127.0.0.1:6379",
        "deep-agent FileSaver → KeyValueStoreSaver keys",
      )
      .example(
        "ckpt migrate --from sqlite:ckpt.db --to file:./out --to-format yoagent --allow-lossy",
        "convert while copying",
      )
      .example(
        "ckpt migrate --from file:./threads --to sqlite:checkpoints.db --to-format langgraph --allow-lossy",
        "every thread (any format) → a LangGraph thread that LangGraph JS continues",
      ),
  run: (args: Args, io: CliIO) =>
    runMigrate({ ...args, from: atCwd(args.from, io.cwd), to: atCwd(args.to, io.cwd) }, io),
};

function checkArgs(args: Args): void {
  const at = args.toFormat?.indexOf("@") ?? -1;
  if (args.toFormat !== undefined && at >= 0) {
    const major = aiSdkMajor(args.toFormat.slice(at + 1));
    if (args.toFormat.slice(0, at) !== "ai-sdk")
      throw usageError(`--to-format ${args.toFormat}: only ai-sdk takes a version (ai-sdk@4 … ai-sdk@7)`);
    if (args.aiSdkVersion !== undefined && args.aiSdkVersion !== major)
      throw usageError(`--to-format ${args.toFormat} and --ai-sdk-version ${args.aiSdkVersion} disagree`);
    args.toFormat = "ai-sdk";
    args.aiSdkVersion = major;
  }
  if (args.aiSdkVersion !== undefined && args.toFormat !== "ai-sdk")
    throw usageError(`--ai-sdk-version ${args.aiSdkVersion} goes with --to-format ai-sdk`);
  if (args.toFormat !== undefined && !isFormatName(args.toFormat))
    throw usageError(`unknown format '${args.toFormat}': expected one of ${FORMAT_NAMES.join(", ")}`);
  if (args.toFormat === "amacs")
    throw usageError(
      "--to-format amacs: an amacs thread is a folder of org files and cannot be stored in a saver; use ckpt convert",
    );
  intOption(args.batchSize, "--batch-size");
  intOption(args.jobs, "--jobs", 1, 64);
}

/** Ctrl-C: the first stops the run after the batch in flight (then exit 130 with what was written); a second quits. */
function onInterrupt(io: CliIO, controller: AbortController): () => void {
  const handler = () => {
    if (controller.signal.aborted) process.exit(ExitCode.INTERRUPTED);
    controller.abort();
    io.stderr.write("\ninterrupted: finishing the batch in flight (Ctrl-C again to quit at once)…\n");
  };
  process.on("SIGINT", handler);
  return () => void process.off("SIGINT", handler);
}

/** The source and target of a run, opened with their engines (savers/index.ts decides each one's layout). */
interface Ends {
  source: OpenedWithEngine;
  target: OpenedWithEngine;
  writers: Saver[];
}

/** Open the target (after the journal: a journal that cannot be written stops the run before the target exists). */
async function openTarget(args: Args, io: CliIO, source: OpenedWithEngine, to: SaverUri): Promise<Ends> {
  const target = await openStore(to, {
    readOnly: false,
    env: io.env,
    want: targetWant(args, source.layout, to),
    dryRun: args.dryRun,
  });
  requireCap(target.engine, "write", "migrate --to");
  await refuseOpened(args, source.engine, target.engine, to);
  return { source, target, writers: await openWriters(target, args.jobs, io.env) };
}

/** The two stores of a run, parsed once, with their namespaces (the one rule: the URI's, else the flag's). */
interface Parsed {
  fromU: SaverUri;
  toU: SaverUri;
  fromNs?: string;
  toNs?: string;
}

async function runMigrate(args: Args, io: CliIO): Promise<number> {
  checkArgs(args);
  // each address parsed once, here (before the journal is locked); each store opened once, its layout decided there
  const { parseSaverUri } = await import("../../savers/uri.js");
  const fromU = parseSaverUri(args.from, io.env);
  const toU = parseSaverUri(args.to, io.env);
  // one namespace rule: the URI's ?namespace=, else the flag (both, disagreeing, is a usage error)
  const fromNs = namespaceOf(fromU, args.namespace?.length === 1 ? args.namespace[0] : undefined);
  if (fromNs !== undefined && (args.namespace?.length ?? 0) > 1)
    throw usageError(
      `namespace given twice: '${fromNs}' in --from and --namespace ${args.namespace!.join(" ")}; keep one`,
    );
  const parsed: Parsed = { fromU, toU, fromNs, toNs: namespaceOf(toU, args.toNamespace) };
  const journalPath = journalPathFor(args, io);
  if (args.dryRun) return migrateLocked(args, io, journalPath, parsed);
  const unlock = await lockJournal(journalPath);
  try {
    return await migrateLocked(args, io, journalPath, parsed);
  } finally {
    await unlock();
  }
}

/** The run, once the journal is locked (a dry run keeps no journal). */
async function migrateLocked(args: Args, io: CliIO, journalPath: string, p: Parsed): Promise<number> {
  const { fromU, toU, fromNs, toNs } = p;
  const from = redactUri(args.from);
  const to = redactUri(args.to);
  if (!args.dryRun) checkJournal(journalPath, args.resume);
  const source = await openStore(fromU, { readOnly: true, env: io.env });
  const kinds = await redactKinds(args.redact);
  const redacted: RedactCounts = {};
  const unscanned = { values: 0 };
  // the options the target's route cannot honour, refused before the target is created when its layout is known
  // already: asked for (a LangGraph history, --to-format langgraph, --to-library) or the only one its kind holds
  const routeArgs = { ...args, toNamespace: toNs, namespace: fromNs !== undefined ? [fromNs] : args.namespace };
  const known = layoutBeforeOpen(toU, targetWant(args, source.layout, toU), source.layout);
  if (known) await refuseBeforeOpen(routeArgs, source.engine, known, toU);
  // the journal before the target: a journal that cannot be written stops the run before the target is created
  const journal = args.dryRun
    ? undefined
    : await openJournal(journalPath, args.resume, { from, to, startedAt: new Date().toISOString() });
  let ends: Ends;
  try {
    ends = await openTarget(routeArgs, io, source, toU);
  } catch (e) {
    // a target that cannot be opened leaves no journal behind to block the next run (unless it holds records)
    await journal?.close();
    if (journal && journal.committed() === 0) await journal.remove();
    throw e;
  }
  if (kinds) {
    // what is written (and verified) never held the findings: a LangGraph history's rows are rewritten as they are
    // read (core/langgraph/redact-rows.ts), any other store's documents read through the redactor
    const { redactingRows } = await import("../../core/langgraph/redact-rows.js");
    const s = ends.source as { saver: Saver; store?: Parameters<typeof redactingRows>[0] };
    if (source.engine.caps.history && s.store) s.store = redactingRows(s.store, kinds, redacted, unscanned);
    else s.saver = redactingSaver(s.saver, kinds, redacted);
  }
  if (journal && !args.quiet && !args.json)
    io.stderr.write(`journal: ${journal.path} (removed when the migration finishes)\n`);
  const tty = Boolean(io.stderr.isTTY) && !args.json && !args.quiet;
  const rejectPath = args.rejectFile ? resolve(io.cwd, args.rejectFile) : undefined;
  if (rejectPath) await rm(rejectPath, { force: true });
  const controller = new AbortController();
  const stopListening = onInterrupt(io, controller);
  let summary: MigrateSummary;
  try {
    const onProgress = (p: MigrateProgress) => {
      if (args.json) io.stdout.write(JSON.stringify({ type: "progress", ...p }) + "\n");
      else if (tty) io.stderr.write(`\r\x1b[2K${progressLine(p, Boolean(args.dryRun), io.stderr.columns ?? 100)}`);
    };
    summary = await runRoute(ends.source.engine, ends.target.engine, routeArgs, {
      journal,
      // without a progress line to draw or events to write, no progress (nor the source counted for its total first)
      ...(args.json || tty ? { onProgress } : {}),
      signal: controller.signal,
      namespaces: routeArgs.namespace?.length ? routeArgs.namespace : undefined,
      toNamespace: toNs,
      writers: ends.writers,
      openCheckPool,
    });
  } catch (e) {
    throw await stopped(e, journal);
  } finally {
    stopListening();
    await ends.source.saver.close().catch(() => undefined);
    await ends.target.saver.close().catch(() => undefined);
    await Promise.all(ends.writers.map((w) => w.close().catch(() => undefined)));
    if (tty) io.stderr.write("\r\x1b[2K");
  }
  if (kinds && !args.json) io.stderr.write(`${redactedLine(redacted, unscanned.values)}\n`);
  return finish(summary, { args, io, from, to, journal, rejectPath });
}

/** The error a run that stopped on a failure ends with; the journal is kept only when it has records to resume. */
async function stopped(e: unknown, journal: FileJournal | undefined): Promise<CkptError> {
  await journal?.close();
  if (journal && journal.committed() === 0) await journal.remove(); // nothing written: nothing to resume
  const keep = journal && journal.committed() > 0;
  const resumeHint = keep ? ` (the journal at ${journal.path} lets --resume finish it)` : "";
  if (e instanceof CkptError) {
    if (e.exitCode !== ExitCode.STORE || !keep) return e;
    return new CkptError(e.exitCode, e.reason, `migration stopped: ${e.message}${resumeHint}`, e.place, { cause: e });
  }
  return storeError("store-io", `migration stopped: ${redactText((e as Error).message)}${resumeHint}`, undefined, e);
}

async function finish(
  summary: MigrateSummary,
  c: { args: Args; io: CliIO; from: string; to: string; journal?: FileJournal; rejectPath?: string },
): Promise<number> {
  const { args, io, from, to, journal } = c;
  if (c.rejectPath && summary.rejectedRecords.length) {
    await writeFileAtomic(c.rejectPath, summary.rejectedRecords.map((r) => JSON.stringify(r)).join("\n") + "\n");
  }
  await journal?.close();
  let code = migrateExitCode(summary);
  // A run that ended in order (finished, or stopped on a conflict / --strict reject) needs no resume: drop the
  // journal; re-running is safe because identical records are skipped. An interrupted run (Ctrl-C) or a crash
  // keeps it, for --resume.
  if (summary.interrupted) code = ExitCode.INTERRUPTED;
  else if (journal) await journal.remove();
  if (args.json)
    io.stdout.write(
      JSON.stringify({
        type: "summary",
        from,
        to,
        exitCode: code,
        ...(summary.interrupted && journal ? { journal: journal.path } : {}),
        ...summary,
      }) + "\n",
    );
  else io.stdout.write(summaryText(summary, from, to, args.verbose));
  if (summary.interrupted) {
    const resume =
      journal && journal.committed() > 0
        ? `the journal at ${journal.path} lets the same command with --resume finish it`
        : "nothing was written yet: run the same command again";
    io.stderr.write(
      `ckpt: interrupted: ${fmtNum(summary.written)} record(s) ${args.dryRun ? "planned" : "written and journaled"}, ${fmtNum(summary.read)} read; ${args.dryRun ? "nothing was written" : resume}\n`,
    );
    if (journal && journal.committed() === 0) await journal.remove();
  }
  return code;
}
