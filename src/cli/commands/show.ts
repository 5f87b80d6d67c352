/**
 * `ckpt show <file | uri#threadId>`: a readable transcript of one checkpoint — roles, text, tool calls and results,
 * todos, files, scratchpad notes — or, with `--json`, the canonical checkpoint.
 */
import { printable, printableDeep } from "../../base/printable.js";
import type { Argv } from "yargs";
import type {
  AssistantMessage,
  Checkpoint,
  Content,
  SystemMessage,
  ToolResultMessage,
  UserMessage,
} from "../../generated/types.js";
import { stringifyJson } from "../../base/json.js";
import { plural } from "../../base/plural.js";
import { tableTime } from "../../base/time.js";
import { FORMAT_CHOICES, readCheckpoint } from "../../formats/index.js";
import { toolDenial, toolState } from "../../view/model.js";
import { isFileData } from "../../formats/langgraph/delta.js";
import type { CommandDef } from "../command.js";
import { NAMESPACE_OPTION, readSource } from "../input.js";
import { useColor, type CliIO } from "../io.js";
import { REDACT_OPTION, redactKinds, redactedLine } from "../redact.js";
import { unreadableLine, warnUnreadable } from "../unreadable.js";

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max - 1) + "…" : s);

/** One content block as a transcript line (an AI SDK tool part with its state: output-available, …). */
function blockLine(c: Content, max: number, dim: (s: string) => string, bold: (s: string) => string): string {
  switch (c.type) {
    case "text":
      return clip(c.text, max);
    case "thinking":
      return dim(`(thinking) ${clip(c.thinking, max)}`);
    case "toolCall": {
      const state = toolState(c).state;
      // a denied approval: its reason, what the model is told instead of the tool's output
      const denial = toolDenial(c);
      const denied =
        denial === undefined
          ? ""
          : (state === "output-denied" ? "" : dim(", denied")) +
            (denial ? `: ${clip(denial, max)}` : dim(" (no reason given)"));
      return `→ ${bold(c.name)}(${clip(stringifyJson(c.arguments) ?? "", max)}) ${dim(`[${c.id}]`)}${state ? dim(` ${state}`) : ""}${denied}`;
    }
    case "image":
      return dim(`[image ${c.mimeType}${c.url ? " " + c.url : ""}]`);
    case "file":
      return dim(`[file ${c.filename ?? ""} ${c.mimeType}]`);
    default:
      return "";
  }
}

export function renderTranscript(
  doc: Checkpoint,
  format: string,
  opts: { color: boolean; full: boolean; chalk?: import("chalk").ChalkInstance },
): string {
  // every string of the document as it is, its control characters escaped (never acting on the terminal)
  const cp = printableDeep(doc);
  const k = opts.chalk;
  const dim = (s: string) => (k ? k.dim(s) : s);
  const bold = (s: string) => (k ? k.bold(s) : s);
  const max = opts.full ? Infinity : 600;
  const out: string[] = [];
  out.push(
    bold(`thread ${printable(doc.threadId)}`) +
      dim(
        ` — ${format}, step ${cp.step}, ${plural(cp.messages.length, "message")}${cp.updatedAt ? `, updated ${tableTime(cp.updatedAt)}` : ""}`,
      ),
  );
  const block = (c: Content) => blockLine(c, max, dim, bold);
  cp.messages.forEach((m, i) => {
    const n = dim(`#${i}`);
    if (m.role === "toolResult") {
      const r = m as ToolResultMessage;
      const text = r.content.map(block).join("\n");
      out.push(
        `${n} ${bold("tool")} ${r.toolName}${r.isError ? (k ? k.red(" [error]") : " [error]") : ""} ${dim(`[${r.toolCallId}]`)}\n${indent(text)}`,
      );
    } else if (m.role === "user" || m.role === "assistant" || m.role === "system") {
      const msg = m as UserMessage | AssistantMessage | SystemMessage;
      const who = msg.role === "assistant" && msg.model ? `assistant (${msg.model})` : msg.role;
      const lines = msg.content.map(block).filter(Boolean);
      // a turn that did not end normally says how it ended (a failed turn often has no text at all)
      const a = msg as AssistantMessage;
      if (a.role === "assistant" && a.stopReason && !["stop", "toolUse"].includes(a.stopReason)) {
        const why = `[stopped: ${a.stopReason}]${a.errorMessage ? ` ${a.errorMessage}` : ""}`;
        lines.push(k && a.stopReason === "error" ? k.red(why) : why);
      }
      out.push(`${n} ${bold(who)}\n${indent(lines.join("\n"))}`);
    } else {
      out.push(
        `${n} ${dim(`${m.role}/${(m as { kind: string }).kind}`)} ${clip(stringifyJson((m as { data: unknown }).data) ?? "null", 200)}`,
      );
    }
  });
  const todos = cp.state.todos ?? [];
  if (todos.length) {
    out.push(bold("todos"));
    for (const t of todos) out.push(`  [${t.status}] ${t.id}: ${t.content}`);
  }
  const files = Object.entries(cp.state.files ?? langGraphFiles(cp) ?? {});
  if (files.length) {
    out.push(bold("files"));
    for (const [p, f] of files) {
      const lines = Array.isArray(f.content) ? f.content.length : String(f.content).split("\n").length;
      const facts = [plural(lines, "line"), ...(f.modified_at ? [`modified ${f.modified_at}`] : [])];
      out.push(`  ${p} ${dim(`(${facts.join(", ")})`)}`);
    }
  }
  for (const note of cp.state.scratchpad ?? [])
    out.push(
      `${bold("note")} ${note.heading} ${dim(`[thread ${note.thread ?? "global"}, tick ${note.tick ?? "-"}]`)}\n${indent(clip(note.content, max))}`,
    );
  // Mastra's working memory: the resource's, shown with it
  const wm = cp.state.workingMemory as { resource?: unknown; text?: unknown } | undefined;
  const shownWm = typeof wm?.text === "string" && typeof wm.resource === "string";
  if (shownWm)
    out.push(`${bold(`working memory (resource ${wm.resource as string})`)}\n${indent(clip(wm.text as string, max))}`);
  // other state (LangGraph channels such as counters or lists): one line each
  const other = Object.entries(cp.state).filter(
    ([k]) => !["todos", "files", "scratchpad", "contexts", ...(shownWm ? ["workingMemory"] : [])].includes(k),
  );
  if (other.length) {
    out.push(bold("state"));
    for (const [k, v] of other) out.push(`  ${k}: ${clip(stringifyJson(v) ?? "null", opts.full ? Infinity : 200)}`);
  }
  if (cp.interrupt?.toolCall.toolName === "interrupt" && cp.origin?.format === "langgraph") {
    // a LangGraph interrupt() value, not a tool call
    out.push(
      bold("pending interrupt: ") +
        `${clip(stringifyJson(cp.interrupt.toolCall.args) ?? "null", max)} ${dim(`[${cp.interrupt.toolCall.toolCallId}]`)}`,
    );
  } else if (cp.interrupt) {
    // several approvals pending at once (an Agents SDK run paused on two tool calls): each on its own line
    const all = Array.isArray(cp.interrupt.approvals)
      ? (cp.interrupt.approvals as (typeof cp.interrupt.toolCall)[])
      : [];
    for (const tc of all.length > 1 ? all : [cp.interrupt.toolCall])
      out.push(bold("pending approval: ") + `${tc.toolName} [${tc.toolCallId}] at step ${cp.interrupt.step}`);
  }
  return out.join("\n") + "\n";
}

/**
 * A LangGraph thread's deepagents `files` channel in the shape the canonical state does not take (FileData v2: content
 * as one string, with `encoding` or `mimeType`), kept in `ext.langgraph`: shown as the files they are.
 */
function langGraphFiles(cp: Checkpoint): Record<string, { content: unknown; modified_at?: string }> | undefined {
  const lg = cp.ext?.langgraph as { tuple?: { checkpoint?: { channel_values?: Record<string, unknown> } } } | undefined;
  const files = lg?.tuple?.checkpoint?.channel_values?.files;
  if (typeof files !== "object" || files === null || Array.isArray(files) || !Object.values(files).every(isFileData))
    return undefined;
  return files as Record<string, { content: unknown; modified_at?: string }>;
}

const indent = (s: string) =>
  s
    .split("\n")
    .map((l) => "    " + l)
    .join("\n");

export const showCommand: CommandDef = {
  command: "show <input>",
  describe: "Print a readable transcript of one checkpoint (a file, - or <saver-uri>#<threadId>)",
  builder: (y: Argv) =>
    y
      .positional("input", { type: "string", describe: "file, folder (amacs), - for stdin, or <saver-uri>#<threadId>" })
      .option("format", {
        alias: "f",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "input format (default: detected)",
      })
      .option("full", { type: "boolean", default: false, describe: "do not shorten long texts" })
      .option("json", { type: "boolean", default: false, describe: "print the canonical checkpoint as JSON" })
      .option("namespace", NAMESPACE_OPTION)
      .option("redact", REDACT_OPTION)
      .example("ckpt show fixtures/yoagent/valid/save_messages.v0.18.json", "a file (format detected)")
      .example("ckpt show sqlite:./ckpt.db#thread-1 --full", "one thread of a store, long texts not shortened")
      .example(
        "ckpt show 'redis://127.0.0.1:6379#user-2' --namespace prod",
        "a thread in another namespace (or ?namespace=prod)",
      )
      .example("cat thread.json | ckpt show - --format deepagent --json", "stdin, as the canonical checkpoint in JSON")
      .example("ckpt show mastra.db#trip-1 --redact=secrets,email", "keys, tokens and e-mail addresses replaced"),
  run: async (
    args: { input: string; format?: string; full: boolean; json: boolean; namespace?: string; redact?: string },
    io: CliIO,
  ) => {
    const kinds = await redactKinds(args.redact);
    // yargs-parser reads a lone "-" positional as an empty string: that is the stdin spelling
    const input = args.input === "" ? "-" : args.input;
    const { parseInput } = await import("../../savers/address.js");
    const parsed = parseInput(input, { cwd: io.cwd, env: io.env, namespace: args.namespace });
    const doc = await readSource(parsed, { stdin: () => io.stdin, cwd: io.cwd, env: io.env, rowsMustRead: true });
    const read = readCheckpoint(doc, args.format);
    const { format } = read;
    let checkpoint = read.checkpoint;
    if (kinds) {
      // every string of the checkpoint (its thread id too), one redactor: one placeholder per value
      const { Redactor } = await import("../../core/scan/redact.js");
      const r = new Redactor(kinds);
      checkpoint = await r.value(checkpoint);
      io.stderr.write(`${redactedLine(r.counts)}\n`);
    }
    // a part that could not be read: shown without it, said on stderr, named in the output (--json: in ext)
    const unreadable = warnUnreadable(io, doc.name, checkpoint, "shown without it");
    if (args.json) {
      io.stdout.write(stringifyJson(checkpoint, 2) + "\n");
      return 0;
    }
    const color = useColor(io);
    const chalk = color ? new (await import("chalk")).Chalk({ level: 1 }) : undefined;
    io.stdout.write(renderTranscript(checkpoint, format, { color, full: args.full, chalk }));
    if (unreadable.length) {
      const mark = (s: string) => (chalk ? chalk.red(s) : s);
      io.stdout.write(`${mark("unreadable")}\n${unreadable.map((p) => `  ${unreadableLine(p)}\n`).join("")}`);
    }
    return 0;
  },
};
