/**
 * `ckpt export` as a library: `exportThreads(sources, options)` reads every thread of any store, folder or file ckpt
 * reads and writes it in a format training, evaluation and audit tools take. One pipeline, one thread at a time:
 *
 *   source threads (storeThreads: a store's threads, read into the canonical model)
 *     → transforms (each `ExportThread` → `ExportThread`: redaction plugs in here)
 *     → the format's rows (core/export: openai-chat, hf-messages, sharegpt, ckpt, audit, markdown)
 *     → inspect (each row, before it is written: a check that throws stops the export, nothing written)
 *     → the writer (JSONL, Parquet, Markdown; a file appears only when everything worked)
 *
 * Memory stays flat: one thread's checkpoint and one Parquet row group at a time.
 */
import { CkptError, ExitCode, usageError } from "../../base/errors.js";
import { exportFormats } from "../../core/export/index.js";
import {
  EXPORT_FORMATS,
  ExportLoss,
  type ExportFormatName,
  type ExportThread,
  type LossKind,
} from "../../core/export/types.js";
import { type OpenOptions, openStore, parseSaverUri } from "../../savers/index.js";
import { engineOf } from "../index.js";
import type { Engine } from "../types.js";
import { storeThreads, type ThreadSelection } from "./threads.js";
import { type Container, openWriter, type TextOut } from "./writers.js";

export { exportThreadOf, inWindow, storeThreads, threadCount, type ThreadSelection } from "./threads.js";
export type { Container, TextOut } from "./writers.js";

/** A step between reading a thread and writing it: gives the thread to write (redaction, a filter of messages, …). */
export type ExportTransform = (t: ExportThread) => ExportThread | Promise<ExportThread>;

export interface ExportOptions extends ThreadSelection {
  /** the format (default: markdown for a `.md` output, else openai-chat) */
  as?: ExportFormatName;
  /**
   * where: a file path (`.jsonl`/`.ndjson`, `.parquet`, `.md`: written atomically), or a stream of text (JSONL, or
   * Markdown with `as: "markdown"`)
   */
  output: string | TextOut;
  /** applied to each thread in order, before its rows are made */
  transforms?: ExportTransform[];
  /** sees each row before it is written; throwing stops the export and nothing is written to a file */
  inspect?: (row: unknown, t: ExportThread) => void | Promise<void>;
  /** called after each thread is written */
  onProgress?: (p: ExportProgress) => void;
  /**
   * a thread whose document no format reads is left out and named in the summary (`unreadable`) instead of stopping
   * the export (an input error, exit 3, nothing written)
   */
  skipUnreadable?: boolean;
  /** stops the export between two threads (Ctrl-C): a CkptError, exit 130, and nothing written to a file */
  signal?: AbortSignal;
  /** how stores named by URI are opened (`aesKey`, `env`); always read-only */
  open?: Omit<OpenOptions, "readOnly">;
}

export interface ExportProgress {
  threads: number;
  rows: number;
  bytes: number;
}

/** What an export wrote, and what its format could not carry (per kind, as `convert` reports a conversion's loss). */
export interface ExportSummary {
  as: ExportFormatName;
  container: Container;
  /** the file written, or null for a stream */
  output: string | null;
  /** threads (checkpoints, with allCheckpoints) exported */
  threads: number;
  /** canonical messages in them */
  messages: number;
  /** rows written (JSONL lines, Parquet rows, Markdown transcripts) */
  rows: number;
  bytes: number;
  lost: LossKind[];
  /** threads left out because no format reads them (skipUnreadable), with the reason */
  unreadable: Array<{ thread: string; reason: string }>;
}

/**
 * What `exportThreads` reads: store URIs or paths (opened read-only), opened engines (with a selection of their own:
 * `{ engine, select }`, else the options'), or threads already read.
 */
export type ExportSource =
  | string
  | Engine
  | { engine: Engine; select: ThreadSelection }
  | AsyncIterable<ExportThread>
  | Iterable<ExportThread>;

/** The container an output's name says: `.parquet`, `.md`/`.markdown`, else JSONL (`.jsonl`, `.ndjson`, `-`). */
export function containerOf(output: string | TextOut, as?: ExportFormatName): Container {
  if (typeof output !== "string" || output === "-") return as === "markdown" ? "markdown" : "jsonl";
  const ext = /\.([a-z0-9]+)$/i.exec(output)?.[1]?.toLowerCase();
  if (ext === "parquet") return "parquet";
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  throw usageError(
    `-o ${output}: name the output by what it holds: .jsonl (or .ndjson), .parquet or .md, or - for standard output`,
  );
}

/** The format an export writes: `as` checked against the container (Markdown only into .md or a stream). */
export function formatFor(container: Container, as: ExportFormatName | undefined): ExportFormatName {
  if (as !== undefined && !(EXPORT_FORMATS as readonly string[]).includes(as))
    throw usageError(`--as ${as}: expected one of ${EXPORT_FORMATS.join(", ")}`);
  if (container === "markdown") {
    if (as !== undefined && as !== "markdown")
      throw usageError(`--as ${as} is written as JSONL or Parquet: a .md output is a Markdown transcript`);
    return "markdown";
  }
  if (as === "markdown") throw usageError("--as markdown is written to a .md file (or - for standard output)");
  return as ?? "openai-chat";
}

/** Each source's threads in turn; stores opened here are closed when their threads are read (or the export stops). */
async function* threadsOf(sources: ExportSource[], o: ExportOptions): AsyncGenerator<ExportThread> {
  for (const s of sources) {
    if (typeof s === "string") {
      const u = parseSaverUri(s, o.open?.env);
      const engine = await engineOf(await openStore(u, { ...o.open, readOnly: true }));
      try {
        yield* storeThreads(engine, u.redacted, o);
      } finally {
        await engine.close();
      }
    } else if ("saver" in s && "caps" in s) yield* storeThreads(s, s.uri.redacted, o);
    else if ("engine" in s && "select" in s)
      yield* storeThreads(s.engine, s.engine.uri.redacted, { ...s.select, onUnreadable: o.onUnreadable });
    else yield* s as AsyncIterable<ExportThread>;
  }
}

/**
 * Export every thread of `sources` (the newest checkpoint of each, or every one with `allCheckpoints`) into
 * `options.output` in `options.as`. A file is written atomically: on any error nothing is left at its path.
 */
export async function exportThreads(
  sources: ExportSource | ExportSource[],
  options: ExportOptions,
): Promise<ExportSummary> {
  const list = Array.isArray(sources) ? sources : [sources];
  const container = containerOf(options.output, options.as);
  const as = formatFor(container, options.as);
  const format = exportFormats[as];
  const loss = new ExportLoss();
  const writer = await openWriter(options.output, container, format);
  const summary: ExportSummary = {
    as,
    container,
    output: typeof options.output === "string" ? options.output : null,
    threads: 0,
    messages: 0,
    rows: 0,
    bytes: 0,
    lost: [],
    unreadable: [],
  };
  const onUnreadable = options.skipUnreadable
    ? (thread: string, e: CkptError) => summary.unreadable.push({ thread, reason: e.message })
    : undefined;
  try {
    for await (let t of threadsOf(list, { ...options, onUnreadable })) {
      if (options.signal?.aborted)
        throw new CkptError(ExitCode.INTERRUPTED, "interrupted", "interrupted: nothing was written");
      for (const f of options.transforms ?? []) t = await f(t);
      for (const row of format.rows(t, loss)) {
        await options.inspect?.(row, t);
        await writer.add(row);
        summary.rows++;
      }
      summary.threads++;
      summary.messages += t.checkpoint.messages.length;
      options.onProgress?.({ threads: summary.threads, rows: summary.rows, bytes: writer.bytes });
    }
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  summary.bytes = writer.bytes;
  summary.lost = loss.list();
  return summary;
}
