/**
 * `ckpt export <source…> -o <out>`: every thread of any store, folder or file ckpt reads — the newest checkpoint of
 * each, or every checkpoint with --all-checkpoints — as JSONL (openai-chat, hf-messages, sharegpt, ckpt, audit),
 * Parquet (the same columns) or a Markdown transcript, streamed one thread at a time (engines/export/). What the
 * format cannot carry is reported per kind on stderr; a progress bar on a terminal; the file appears only when the
 * whole export worked.
 */
import { resolve } from "node:path";
import type { Argv } from "yargs";
import { ExitCode, usageError } from "../../base/errors.js";
import { fmtInt, plural, pluralInt } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import { EXPORT_FORMATS, type ExportFormatName } from "../../core/export/types.js";
import type { ExportSource, ExportSummary, ThreadSelection } from "../../engines/export/index.js";
import type { ExportThread } from "../../core/export/types.js";
import { threadFilter, type CommandDef } from "../command.js";
import { decodeText, readStdin, readThread } from "../input.js";
import type { CliIO } from "../io.js";
import type { RedactCounts } from "../../core/scan/redact.js";
import { exportRedaction, REDACT_OPTION, redactedLine } from "../redact.js";

interface Args {
  source: string[];
  output: string;
  as?: ExportFormatName;
  thread?: string[];
  match?: string[];
  since?: string;
  until?: string;
  allCheckpoints: boolean;
  skipUnreadable: boolean;
  namespace?: string[];
  json: boolean;
  redact?: string;
}

/** `--since`/`--until`: an ISO date or time, or a duration back from now (7d, 12h). */
function timeOption(flag: string, v: string | undefined, now: number): number | undefined {
  if (v === undefined) return undefined;
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d|w)$/.test(v.trim())) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(v.trim())!;
    const unit = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[m[2] as "ms"];
    return now - Number(m[1]) * unit;
  }
  const t = Date.parse(v);
  if (Number.isNaN(t))
    throw usageError(`${flag} ${v}: expected a date or time (2026-12-01, 2026-12-01T10:00Z) or a duration (7d, 12h)`);
  return t;
}

/** `exporting [#####-----]  45%  450/1,000 threads · 2,300 rows · 12 MB` (TTY only). */
function progressLine(threads: number, total: number, rows: number, bytes: number, columns: number): string {
  const tail = `${fmtInt(threads)}${total >= threads ? `/${fmtInt(total)}` : ""} ${threads === 1 && !total ? "thread" : "threads"} · ${fmtInt(rows)} rows · ${(bytes / 1e6).toFixed(1)} MB`;
  if (total < threads) return `exporting ${tail}`.slice(0, Math.max(20, columns - 1));
  const frac = Math.min(1, threads / total);
  const width = Math.max(10, Math.min(40, columns - tail.length - 20));
  const done = Math.round(frac * width);
  return `exporting [${"#".repeat(done)}${"-".repeat(width - done)}] ${String(Math.round(frac * 100)).padStart(3)}%  ${tail}`.slice(
    0,
    Math.max(20, columns - 1),
  );
}

/** The summary on stderr: what was written, and what the format could not carry, per kind. */
export function summaryText(s: ExportSummary, checkpoints: boolean): string {
  const what = checkpoints ? "checkpoint" : "thread";
  const lines = [
    `exported ${pluralInt(s.threads, what)} (${pluralInt(s.messages, "message")}) as ${s.as}${s.container === "parquet" ? " (Parquet)" : ""}: ${pluralInt(s.rows, "row")}${s.output ? ` → ${s.output}` : ""}`,
  ];
  for (const u of s.unreadable.slice(0, 10))
    lines.push(`  left out (unreadable): ${printable(u.thread)}: ${printable(u.reason)}`);
  if (s.unreadable.length > 10) lines.push(`  … and ${s.unreadable.length - 10} more unreadable threads left out`);
  if (s.lost.length) {
    lines.push(`${s.as} cannot carry (left out):`);
    for (const l of s.lost)
      lines.push(
        l.count === l.threads && !l.first.includes("#")
          ? `  ${l.what}: ${plural(l.threads, what)} (e.g. ${printable(l.first)})`
          : `  ${l.what}: ${fmtInt(l.count)} in ${plural(l.threads, what)} (e.g. ${printable(l.first)})`,
      );
    if (s.as !== "ckpt") lines.push("  (--as ckpt keeps everything: the canonical checkpoints)");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Every source parsed (and every store opened, read-only) before anything is written, so that a mistyped one fails
 * first: `-` one document on stdin, `<store>#<thread>` one thread, else a store's threads with the selection. `total`
 * counts the threads for the progress bar (on a terminal only: counting costs a query per store).
 */
async function openSources(
  sources: string[],
  args: Args,
  io: CliIO,
  sel: ThreadSelection,
  tty: boolean,
): Promise<{ opened: ExportSource[]; total: number }> {
  const { exportThreadOf, threadCount } = await import("../../engines/export/index.js");
  const { parseInput, parseStore } = await import("../../savers/address.js");
  const { openStore } = await import("../stores.js");
  const { requireCap } = await import("../../engines/index.js");
  const { namespaceOf } = await import("../../savers/types.js");
  let total = 0;
  const opened: ExportSource[] = [];
  for (const spec of sources) {
    if (spec === "-") {
      opened.push(
        (async function* () {
          const text = decodeText(await readStdin(io.stdin), "<stdin>");
          yield exportThreadOf("<stdin>", text, { threadId: "stdin", name: "<stdin>" });
        })(),
      );
      total++;
      continue;
    }
    const input = parseInput(spec, { cwd: io.cwd, env: io.env });
    if (input.kind === "address") {
      const { engine } = await openStore(input.address.store, {
        readOnly: true,
        namespace: input.address.namespace,
        env: io.env,
      });
      const a = input.address;
      opened.push(
        (async function* () {
          const doc = await readThread(engine, a);
          const at = engine.caps.history ? doc.name.slice(doc.name.lastIndexOf("@") + 1) : undefined;
          yield exportThreadOf(engine.uri.redacted, doc.text!, {
            threadId: doc.threadId!,
            namespace: a.namespace,
            name: doc.name,
            ...(at ? { checkpointId: at } : {}),
          });
        })(),
      );
      total++;
      continue;
    }
    const u = input.kind === "store" ? input.store : parseStore(spec, { cwd: io.cwd, env: io.env });
    const { engine } = await openStore(u, { readOnly: true, env: io.env });
    const flagNs = args.namespace?.length === 1 ? args.namespace[0] : undefined;
    const uriNs = namespaceOf(engine.uri, flagNs);
    if (uriNs !== undefined || args.namespace?.length) requireCap(engine, "namespaces");
    const namespaces = uriNs !== undefined ? [uriNs] : args.namespace;
    const s = { ...sel, ...(namespaces ? { namespaces } : {}) };
    // a store's thread count is the bar's total only when each thread is one row of it (a filter's share, or a
    // history's length, is not known beforehand: the bar then counts without a percentage)
    if (tty && !sel.accept && sel.since === undefined && sel.until === undefined && !sel.allCheckpoints)
      total += await threadCount(engine, s);
    opened.push({ engine, select: s });
  }
  return { opened, total };
}

/** Ctrl-C: the export stops after the thread in flight and removes its temp file (exit 130); a second quits. */
function onCtrlC() {
  const controller = new AbortController();
  const interrupt = () => {
    if (controller.signal.aborted) process.exit(ExitCode.INTERRUPTED);
    controller.abort();
  };
  process.on("SIGINT", interrupt);
  return { controller, interrupt };
}

/** The summary: JSON on stdout (--json) or text on stderr, with what --redact replaced. */
function report(
  summary: ExportSummary,
  args: Args,
  io: CliIO,
  redacted: RedactCounts | undefined,
  output: string,
): void {
  if (args.json) io.stdout.write(`${JSON.stringify(redacted ? { ...summary, redacted } : summary, null, 2)}\n`);
  else {
    // the output named as the user named it
    const shown = { ...summary, output: summary.output && output };
    io.stderr.write(summaryText(shown, args.allCheckpoints) + (redacted ? `${redactedLine(redacted)}\n` : ""));
  }
}

export const exportCommand: CommandDef = {
  command: "export <source..>",
  describe: "Export every thread of stores, folders or files as JSONL (chat, training, audit), Parquet or Markdown",
  builder: (y: Argv) =>
    y
      // yargs drops a lone "-" from a variadic positional unless unknown options are kept as arguments;
      // run() turns anything else that looks like an option back into a usage error
      .parserConfiguration({ "unknown-options-as-args": true })
      .positional("source", {
        type: "string",
        array: true,
        default: undefined,
        describe: "stores (sqlite:, postgres://, redis://, file:), folders, files, <store>#<thread>, or - for stdin",
      })
      .option("output", {
        alias: "o",
        type: "string",
        demandOption: true,
        describe: "out.jsonl (or .ndjson), out.parquet, out.md, or - for JSONL on standard output",
      })
      .option("as", {
        type: "string",
        choices: [...EXPORT_FORMATS],
        describe: "the format (default: openai-chat; markdown for .md)",
      })
      .option("thread", { type: "string", array: true, describe: "only these threads" })
      .option("match", { type: "string", array: true, describe: "only threads whose id matches this glob" })
      .option("since", { type: "string", describe: "only checkpoints written since (a date, or a duration: 7d)" })
      .option("until", { type: "string", describe: "only checkpoints written before (a date, or a duration: 1d)" })
      .option("all-checkpoints", {
        type: "boolean",
        default: false,
        describe: "every checkpoint of each thread, oldest first (LangGraph stores keep a history), not the newest",
      })
      .option("namespace", {
        type: "string",
        array: true,
        describe: "ckpt's own stores: namespace(s) to export (default: all)",
      })
      .option("skip-unreadable", {
        type: "boolean",
        default: false,
        describe: "leave out (and name) threads no format reads, instead of stopping with nothing written",
      })
      .option("json", { type: "boolean", default: false, describe: "the summary as JSON on stdout" })
      .option("redact", REDACT_OPTION)
      .example("ckpt export checkpoints.sqlite -o chats.jsonl", "every LangGraph thread as OpenAI chat JSONL")
      .example(
        "ckpt export mastra.db --as hf-messages -o train.parquet",
        "Mastra threads as a Hugging Face messages dataset in Parquet",
      )
      .example("ckpt export checkpoints.sqlite --as audit --all-checkpoints -o audit.jsonl", "an audit trail")
      .example("ckpt export ./runs --match 'support-*' --since 7d -o week.md", "last week's support threads, readable"),
  run: async (args: Args, io: CliIO) => {
    const unknown = args.source.find((s) => s.startsWith("-") && s !== "-");
    if (unknown !== undefined)
      throw usageError(`unknown option '${unknown}' (a file whose name starts with '-' can be given as ./${unknown})`);
    const now = Date.now();
    const since = timeOption("--since", args.since, now);
    const until = timeOption("--until", args.until, now);
    const output = args.output === "" ? "-" : args.output;
    if (output === "-" && args.json) throw usageError("--json prints the summary on stdout: give -o a file with it");
    const { containerOf, exportThreads, formatFor } = await import("../../engines/export/index.js");
    const container = containerOf(output, args.as);
    const as = formatFor(container, args.as);
    const accept = await threadFilter(args);
    const sel = { accept, since, until, allCheckpoints: args.allCheckpoints };
    const sources = args.source.map((s) => (s === "" ? "-" : s));
    if (sources.filter((s) => s === "-").length > 1) throw usageError("standard input (-) can be read once");
    const tty = Boolean(io.stderr.isTTY) && output !== "-";
    const { opened, total } = await openSources(sources, args, io, sel, tty);
    const redaction = await exportRedaction(args.redact);
    let shown = 0;
    const { controller, interrupt } = onCtrlC();
    // a --thread id no source holds is said (a typo exports nothing of it, never silently)
    const seen = new Set<string>();
    const summary = await exportThreads(opened, {
      as,
      // the thread ids asked for seen before --redact replaces any
      transforms: [
        ...(args.thread?.length ? [(t: ExportThread) => (seen.add(t.threadId), t)] : []),
        ...(redaction?.transforms ?? []),
      ],
      inspect: redaction?.inspect,
      signal: controller.signal,
      skipUnreadable: args.skipUnreadable,
      output: output === "-" ? io.stdout : resolve(io.cwd, output),
      onProgress: tty
        ? (p) => {
            const t = Date.now();
            if (t - shown < 100) return;
            shown = t;
            io.stderr.write(`\r\x1b[2K${progressLine(p.threads, total, p.rows, p.bytes, io.stderr.columns ?? 100)}`);
          }
        : undefined,
    }).finally(() => {
      process.off("SIGINT", interrupt);
      if (tty && shown) io.stderr.write("\r\x1b[2K");
    });
    report(summary, args, io, redaction?.counts(), output);
    for (const id of args.thread ?? [])
      if (!seen.has(id))
        io.stderr.write(
          `ckpt export: --thread ${printable(id)}: no source holds it${(since ?? until) ? " (or none of its checkpoints is in --since/--until)" : ""}\n`,
        );
    return 0;
  },
};
