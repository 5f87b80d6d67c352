/**
 * `ckpt view`: one self-contained HTML page of a checkpoint (`ckpt view <file | uri#thread>`), of the diff of two
 * (`--diff <a> <b>`), or a local read-only server browsing a whole store (`--serve [uri]`). Rendering is
 * src/view/ (pure); this module reads the inputs, writes the page atomically and runs the server.
 */
import { spawn } from "node:child_process";
import { basename, resolve } from "node:path";
import type { Argv } from "yargs";
import { ExitCode, usageError } from "../../base/errors.js";
import { FORMAT_CHOICES } from "../../formats/index.js";
import { intOption, type CommandDef } from "../command.js";
import { NAMESPACE_OPTION, openAddress, readThread } from "../input.js";
import type { Address } from "../../savers/address.js";
import type { Engine } from "../../engines/types.js";
import type { CliIO } from "../io.js";
import type { Redactor } from "../../core/scan/redact.js";
import { REDACT_OPTION, redactKinds, redactedLine } from "../redact.js";
import { warnUnreadable } from "../unreadable.js";
import { writeFilesAtomic } from "../../base/atomic.js";
import { type Loaded, loadInput, loaded, type ViewArgs } from "./view-input.js";

export type { Loaded, ViewArgs } from "./view-input.js";

/** Where the page goes without -o: `<input name>.html` in the current folder (a store's thread, stdin: `thread-<id>`). */
function defaultOutput(name: string | undefined, threadId: string): string {
  const base =
    name === undefined
      ? `thread-${threadId}`
      : basename(name.replace(/[\\/]+$/, "")).replace(/\.(json|jsonl|pkl|org)$/i, "");
  return `${base.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120) || "checkpoint"}.html`;
}

/** Open a written page in the desktop's browser (best effort: a failure is reported, not fatal). */
function openInBrowser(path: string, io: CliIO): void {
  const [cmd, args] =
    process.platform === "darwin"
      ? ["open", [path]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", path]]
        : ["xdg-open", [path]];
  try {
    const child = spawn(cmd, args as string[], { detached: true, stdio: "ignore" });
    child.on("error", (e) =>
      io.stderr.write(`ckpt: could not open a browser (${cmd}: ${e.message}); open ${path} yourself\n`),
    );
    child.unref();
  } catch (e) {
    io.stderr.write(`ckpt: could not open a browser (${(e as Error).message}); open ${path} yourself\n`);
  }
}

/** `name`: the input a page is named after without -o (undefined: a store's thread or stdin, named by its thread id). */
async function writePage(
  html: string,
  name: string | undefined,
  threadId: string,
  args: ViewArgs,
  io: CliIO,
): Promise<number> {
  if (args.output === "-") {
    io.stdout.write(html);
    return ExitCode.OK;
  }
  const out = resolve(io.cwd, args.output ?? defaultOutput(name, threadId));
  await writeFilesAtomic([{ path: out, text: html }]);
  io.stdout.write(`${out} (${Buffer.byteLength(html)} bytes)\n`);
  if (args.open) openInBrowser(out, io);
  return ExitCode.OK;
}

/**
 * A thread of a store that keeps a history (LangGraph: `<store>#<thread>[@<checkpoint>]`) → its history page, opened
 * at the addressed checkpoint (found by its id: each checkpoint of the page is loaded once, by the history); undefined
 * for a store that keeps one checkpoint per thread (its thread is a checkpoint page).
 */
export async function threadHistoryPage(
  engine: Engine,
  given: Address,
  args: Pick<ViewArgs, "title" | "historyLimit">,
  redactor?: Redactor,
): Promise<{ html: string; threadId: string; unreadable: Array<{ id: string; line: string }> } | undefined> {
  const { keepsHistory } = await import("../../engines/langgraph/index.js");
  if (!keepsHistory(engine)) return undefined;
  const { locateAddress } = await import("../../savers/address.js");
  const saver = engine.saver;
  // the history of the namespace the checkpoint is in (given, the root graph, or where @<id> was found)
  const { threadId, checkpointId, namespace } = await locateAddress(saver, given, saver.uri);
  const { readHistory } = await import("./view-history.js");
  const h = await readHistory(saver, threadId, saver.uri, args.historyLimit, namespace);
  // every checkpoint of the thread through one redactor: a value has one placeholder on the whole timeline
  if (redactor) for (const e of h.entries) e.checkpoint = await redactor.value(e.checkpoint);
  const { renderHistoryPage } = await import("../../view/index.js");
  const label = `${saver.uri}#${threadId}${namespace ? ` (namespace '${namespace}')` : ""}`;
  const html = renderHistoryPage(h.entries, {
    title: args.title ?? `${label} — history`,
    source: label,
    selected: checkpointId,
    omitted: h.omitted,
  });
  return { html, threadId, unreadable: h.unreadable };
}

/** `historyPage` of what the user typed: undefined for anything but a store's thread (files, folders, '-'). */
export async function historyPage(
  spec: string,
  args: Pick<ViewArgs, "title" | "historyLimit" | "namespace">,
  io: CliIO,
): Promise<{ html: string; threadId: string; unreadable: Array<{ id: string; line: string }> } | undefined> {
  const { parseInput } = await import("../../savers/address.js");
  const input = parseInput(spec, { cwd: io.cwd, env: io.env, namespace: args.namespace });
  if (input.kind !== "address") return undefined;
  const engine = await openAddress(input.address, io.env);
  try {
    return await threadHistoryPage(engine, input.address, args);
  } finally {
    await engine.close();
  }
}

export const viewCommand: CommandDef = {
  command: "view [inputs..]",
  describe:
    "Look at a checkpoint, a diff or a whole store in the browser: one self-contained HTML page, or a local server",
  builder: (y: Argv) =>
    y
      .positional("inputs", {
        type: "string",
        array: true,
        describe:
          "file, amacs folder, '-' for stdin, or <saver-uri>#<threadId> (two with --diff; a saver URI or file with --serve)",
      })
      .option("output", {
        alias: "o",
        type: "string",
        describe: "write the page here ('-' for stdout; default <input name>.html)",
      })
      .option("open", { type: "boolean", default: false, describe: "open the written page in the default browser" })
      .option("diff", {
        type: "boolean",
        default: false,
        describe: "the page of the semantic diff of two checkpoints (as ckpt diff)",
      })
      .option("serve", {
        type: "boolean",
        default: false,
        describe: "serve pages on 127.0.0.1 (read-only): a store's threads, paged, or one file",
      })
      .option("port", { type: "number", describe: "port for --serve (default: a free one)" })
      .option("host", { type: "string", default: "127.0.0.1", hidden: true })
      .option("format", {
        alias: "F",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "input format (detected when omitted)",
      })
      .option("namespace", NAMESPACE_OPTION)
      .option("title", { type: "string", describe: "page title" })
      .option("redact", REDACT_OPTION)
      .option("history-limit", {
        type: "number",
        describe: "LangGraph threads: at most this many of the newest checkpoints on the timeline (default 300)",
      })
      .example("ckpt view thread.json --open", "write thread.html and open it")
      .example("ckpt view --diff before.json after.json -o diff.html", "the diff of two checkpoints as a page")
      .example(
        "ckpt view 'checkpoints.sqlite#thread-1@~2'",
        "a LangGraph thread's timeline, opened two checkpoints back",
      )
      .example(
        "ckpt view --serve sqlite:./checkpoints.db",
        "browse every thread of a store at http://127.0.0.1:<port>/",
      ),
  run: async (args: ViewArgs, io: CliIO) => {
    const inputs = (args.inputs ?? []).map((s) => ((s as unknown) === "" ? "-" : String(s)));
    intOption(args.port, "--port", 0, 65535);
    intOption(args.historyLimit, "--history-limit");
    const { parseInput } = await import("../../savers/address.js");
    // each input parsed once, here; relative paths from the command's folder
    const parse = (spec: string) => parseInput(spec, { cwd: io.cwd, env: io.env, namespace: args.namespace });
    if (args.serve) {
      if (args.diff) throw usageError("--serve and --diff cannot be combined");
      if (args.output !== undefined) throw usageError("--serve writes no file: leave out -o");
      if (inputs.length > 1) throw usageError("--serve takes at most one saver URI or file");
      if (args.redact !== undefined)
        throw usageError("--redact writes redacted pages: leave out --serve (or export the store with --redact first)");
      const { serve } = await import("./view-serve.js");
      return serve(parse(inputs[0] ?? "file:."), args, io);
    }
    if (args.port !== undefined) throw usageError("--port needs --serve");
    const kinds = await redactKinds(args.redact);
    const redactor = kinds && new (await import("../../core/scan/redact.js")).Redactor(kinds);
    const redact = async (x: Loaded): Promise<Loaded> =>
      redactor ? { ...x, checkpoint: await redactor.value(x.checkpoint) } : x;
    const said = () => redactor && io.stderr.write(`${redactedLine(redactor.counts)}\n`);
    const { renderCheckpointPage, renderDiffPage } = await import("../../view/index.js");
    if (args.diff) {
      if (inputs.length !== 2) throw usageError(`--diff needs two checkpoints, got ${inputs.length}`);
      if (inputs[0] === "-" && inputs[1] === "-") throw usageError("only one of the two inputs can be '-' (stdin)");
      const [ia, ib] = [parse(inputs[0]!), parse(inputs[1]!)];
      const a = await redact(await loadInput(ia, io, args.format));
      const b = await redact(await loadInput(ib, io, args.format));
      said();
      for (const side of [a, b]) warnUnreadable(io, side.name, side.checkpoint, "the page shows it as unreadable");
      const html = renderDiffPage(a.checkpoint, b.checkpoint, {
        names: [a.name, b.name],
        ...(args.title ? { title: args.title } : {}),
        source: `${a.name} → ${b.name}`,
      });
      const name = ia.kind === "address" || ib.kind === "address" ? undefined : `${ia.spec}-vs-${basename(ib.spec)}`;
      return writePage(html, name, b.checkpoint.threadId, args, io);
    }
    if (inputs.length !== 1)
      throw usageError(
        inputs.length === 0
          ? "name a checkpoint to view (a file, a folder, '-' or <saver-uri>#<threadId>)"
          : `one checkpoint at a time (use --diff for two), got ${inputs.length}`,
      );
    const input = parse(inputs[0]!);
    let x: Loaded;
    if (input.kind === "address") {
      // the store opened once: a thread with a history is its history page, any other is its checkpoint's page
      const engine = await openAddress(input.address, io.env);
      try {
        const hist = await threadHistoryPage(engine, input.address, args, redactor);
        if (hist) {
          said();
          const n = hist.unreadable.length;
          if (n)
            io.stderr.write(
              `ckpt: warning: ${engine.saver.uri}#${hist.threadId}: ${n === 1 ? "a checkpoint" : `${n} checkpoints`} of the page cannot be read whole (first, ${hist.unreadable[0]!.id}: ${hist.unreadable[0]!.line}); the page marks ${n === 1 ? "it" : "them"}\n`,
            );
          return writePage(hist.html, undefined, hist.threadId, args, io);
        }
        x = loaded(await readThread(engine, input.address), args.format);
      } finally {
        await engine.close();
      }
    } else x = await loadInput(input, io, args.format);
    x = await redact(x);
    said();
    warnUnreadable(io, x.name, x.checkpoint, "the page shows it as unreadable");
    const html = renderCheckpointPage(x.checkpoint, {
      title: args.title ?? `${x.name} — thread ${x.checkpoint.threadId}`,
      source: x.name,
    });
    const name = input.kind === "address" || input.kind === "stdin" ? undefined : input.spec;
    return writePage(html, name, x.checkpoint.threadId, args, io);
  },
};
