/**
 * `ckpt replay [verify|continue|resume] <input>`: load a checkpoint (any format, a file or `uri#thread`) into the
 * headless agent loop and run it. Transcript on stderr (stdout carries the new checkpoint when no -o/--save-to is
 * given); `--json` prints NDJSON events on stdout instead.
 */
import { plural } from "../../base/plural.js";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { Checkpoint } from "../../generated/types.js";
import { ExitCode, inputError, usageError } from "../../base/errors.js";
import { redactText } from "../../base/redact.js";
import { parseJson } from "../../base/json.js";
import { FORMAT_CHOICES, getAdapter, readCheckpoint, type FormatName } from "../../formats/index.js";
import type { LossyNote } from "../../formats/types.js";
import type { Limits, ReplayEvent } from "../../core/replay/loop.js";
import type { Provider } from "../../providers/types.js";
import { RecordedProvider, ScriptProvider, parseScript } from "../../core/replay/providers.js";
import { continueCheckpoint, resumeCheckpoint, verifyCheckpoint, type VerifyResult } from "../../core/replay/replay.js";
import { cloneState, type ReplayState } from "../../core/replay/state-tools.js";
import { intOption, type CommandDef } from "../command.js";
import { NAMESPACE_OPTION, readSource } from "../input.js";
import { type Input, namesStore, parseInput, parseTarget } from "../../savers/address.js";
import type { CliIO } from "../io.js";
import { writeFilesAtomic } from "../../base/atomic.js";

const MODES = ["verify", "continue", "resume"] as const;
type Mode = (typeof MODES)[number];

interface Args {
  first: string;
  second?: string;
  format?: string;
  provider?: string;
  model?: string;
  prompt?: string;
  decision?: "approve" | "deny";
  reason?: string;
  initialState?: string;
  stateTools: "auto" | "on" | "off";
  maxTurns?: number;
  maxTokens?: number;
  maxDuration?: string;
  limits?: string;
  output?: string;
  saveTo?: string;
  json: boolean;
  quiet: boolean;
  namespace?: string;
}

/** "90", "90s", "1500ms", "2m", "1h" → milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) throw usageError(`--max-duration '${s}': expected a number of seconds or a value like 1500ms, 90s, 2m, 1h`);
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  return Math.round(n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!);
}

/** Read a yoagent ExecutionLimits JSON file into loop limits. */
export function limitsFromExecutionLimits(v: unknown, file: string): Limits {
  const o = v as Record<string, unknown>;
  const bad = (pointer: string, what: string) => inputError("limits", `expected ${what}`, { file, pointer });
  if (!o || typeof o !== "object" || Array.isArray(o))
    throw bad("", "a yoagent ExecutionLimits object {max_turns, max_total_tokens, max_duration}");
  const int = (k: string) => {
    const x = o[k];
    if (typeof x === "bigint") return Number.MAX_SAFE_INTEGER; // usize::MAX and friends: effectively unlimited
    if (typeof x !== "number" || !Number.isInteger(x) || x < 0) throw bad(`/${k}`, "a non-negative integer");
    return x;
  };
  const d = o.max_duration as Record<string, unknown> | undefined;
  if (!d || typeof d !== "object" || typeof d.secs !== "number" || typeof d.nanos !== "number") {
    throw bad("/max_duration", '{"secs": u64, "nanos": u32} (a std::time::Duration)');
  }
  const same = o.max_consecutive_identical_tool_calls;
  return {
    maxTurns: int("max_turns"),
    maxTotalTokens: int("max_total_tokens"),
    maxDurationMs: d.secs * 1000 + Math.floor(d.nanos / 1e6),
    maxConsecutiveIdenticalToolCalls:
      same === undefined || same === null ? null : int("max_consecutive_identical_tool_calls"),
  };
}

async function makeProvider(spec: string | undefined, args: Args, io: CliIO, cp: Checkpoint): Promise<Provider> {
  if (!spec) throw usageError("this mode needs --provider script:<file>, openai:<base-url> or anthropic:<base-url>");
  if (spec === "recorded") {
    // continue/resume run past the end of the recording: the recorded provider has nothing left to answer with
    return new RecordedProvider([], cp.messages.filter((m) => m.role === "assistant").length);
  }
  const i = spec.indexOf(":");
  const kind = i < 0 ? spec : spec.slice(0, i);
  const rest = i < 0 ? "" : spec.slice(i + 1);
  if (kind === "script") {
    if (!rest) throw usageError("--provider script:<file>: name the script file");
    const text = await readFile(resolve(io.cwd, rest), "utf8").catch((e: NodeJS.ErrnoException) => {
      throw inputError(
        e.code === "ENOENT" ? "missing" : "unreadable",
        e.code === "ENOENT" ? "no such file" : e.message,
        { file: rest },
        e,
      );
    });
    return new ScriptProvider(parseScript(parseJson(text, { file: rest }), rest), rest);
  }
  if (kind === "openai" || kind === "anthropic") {
    if (!/^https?:\/\//.test(rest))
      throw usageError(
        `--provider ${kind}:<base-url>: expected an http(s) URL, e.g. ${kind}:http://127.0.0.1:8080${kind === "openai" ? "/v1" : ""}`,
      );
    const model = args.model ?? io.env.CKPT_MODEL;
    if (!model) throw usageError(`--provider ${kind}: name the model with --model (or CKPT_MODEL)`);
    if (kind === "openai") {
      const { createOpenAIProvider } = await import("../../providers/openai.js");
      return createOpenAIProvider({ baseUrl: rest, model, apiKey: io.env.OPENAI_API_KEY });
    }
    const { createAnthropicProvider } = await import("../../providers/anthropic.js");
    return createAnthropicProvider({ baseUrl: rest, model, apiKey: io.env.ANTHROPIC_API_KEY });
  }
  throw usageError(
    `unknown provider '${redactText(spec)}': expected recorded, script:<file>, openai:<base-url> or anthropic:<base-url>`,
  );
}

async function readInitialState(spec: string, io: CliIO): Promise<ReplayState> {
  const doc = await readSource(parseInput(spec, { cwd: io.cwd, env: io.env }), {
    stdin: () => io.stdin,
    cwd: io.cwd,
    env: io.env,
  });
  if (doc.text !== undefined) {
    const v = parseJson(doc.text, { file: doc.name }) as Record<string, unknown>;
    if (v && typeof v === "object" && !Array.isArray(v) && !("messages" in v) && ("todos" in v || "files" in v)) {
      return cloneState(v as unknown as ReplayState);
    }
  }
  return cloneState(readCheckpoint(doc).checkpoint.state as ReplayState);
}

/** --state-tools: on/off as asked; auto leaves it to the library's one default (defaultStateTools: by the checkpoint's origin). */
function stateToolsOn(setting: Args["stateTools"]): boolean | undefined {
  return setting === "on" ? true : setting === "off" ? false : undefined;
}

function transcriptLine(e: ReplayEvent): string | undefined {
  const clip = (s: string, n = 160) => (s.length > n ? s.slice(0, n - 1) + "…" : s).replace(/\n/g, "⏎");
  switch (e.type) {
    case "turn_start":
      return `── turn ${e.turn}`;
    case "message": {
      const m = e.message as { role: string; content?: unknown };
      if (m.role === "toolResult") return undefined; // shown by tool_end
      const parts = Array.isArray(m.content)
        ? (m.content as Array<{ type: string; text?: string; thinking?: string; name?: string }>)
            .filter((c) => c.type === "text" || c.type === "thinking")
            .map((c) => (c.type === "text" ? c.text : `(thinking) ${c.thinking}`))
            .join(" ")
        : "";
      if (parts) return `${m.role}: ${clip(parts)}`;
      // an assistant turn without text or tool calls (an error, a refusal) still shows, with why it stopped
      const a = m as { stopReason?: string; errorMessage?: string; content?: Array<{ type: string }> };
      if (m.role !== "assistant" || a.content?.some((c) => c.type === "toolCall")) return undefined;
      const why = [
        a.stopReason && a.stopReason !== "stop" ? a.stopReason : "",
        a.errorMessage ? clip(a.errorMessage, 120) : "",
      ]
        .filter(Boolean)
        .join(": ");
      return `assistant: (no text${why ? `; ${why}` : ""})`;
    }
    case "tool_start":
      return `  → ${e.toolName}(${clip(JSON.stringify(e.arguments) ?? "", 120)})`;
    case "tool_end":
      return `  ← ${e.toolName}${e.isError ? " [error]" : ""} [${e.source}]: ${clip(e.text, 120)}`;
    case "limit":
      return `stopped: ${e.reason}`;
    default:
      return undefined;
  }
}

export const replayCommand: CommandDef = {
  command: "replay <first> [second]",
  describe: "Run a checkpoint through a headless agent loop: verify (default), continue, resume",
  builder: (y: Argv) =>
    y
      .positional("first", { type: "string", describe: "mode (verify | continue | resume) or the input" })
      .positional("second", {
        type: "string",
        describe: "the input (file, - for stdin, or <saver-uri>#<threadId>) when a mode is named",
      })
      .option("format", {
        alias: "f",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "input format (default: detected)",
      })
      .option("provider", {
        type: "string",
        describe: "recorded | script:<file> | openai:<base-url> | anthropic:<base-url>",
      })
      .option("model", { type: "string", describe: "model id for HTTP providers" })
      .option("prompt", { type: "string", describe: "continue: the user message to append" })
      .option("decision", {
        choices: ["approve", "deny"] as const,
        describe: "resume: answer to the pending tool call",
      })
      .option("reason", { type: "string", describe: "resume --decision deny: the reason given to the model" })
      .option("initial-state", {
        type: "string",
        describe: "verify: start from this state (a checkpoint or {todos, files})",
      })
      .option("state-tools", {
        choices: ["auto", "on", "off"] as const,
        default: "auto" as const,
        describe:
          "run deep-agent state tools for real (auto: for histories from deep-agent or ckpt, by the checkpoint's origin; the library's default too)",
      })
      .option("max-turns", { type: "number", describe: "stop after this many assistant turns" })
      .option("max-tokens", { type: "number", describe: "stop when the run's total tokens reach this" })
      .option("max-duration", { type: "string", describe: "stop after this long (90s, 2m, 1500ms)" })
      .option("limits", { type: "string", describe: "a yoagent ExecutionLimits JSON file" })
      .option("output", {
        alias: "o",
        type: "string",
        describe: "write the new checkpoint here (in the input's format)",
      })
      .option("save-to", {
        type: "string",
        describe: "save the new checkpoint to a saver URI (thread = the checkpoint's threadId, or uri#thread)",
      })
      .option("json", { type: "boolean", default: false, describe: "NDJSON events on stdout" })
      .option("namespace", NAMESPACE_OPTION)
      .option("quiet", { alias: "q", type: "boolean", default: false, describe: "no transcript" })
      .example("ckpt replay fixtures/replay/tools.ckpt.json", "verify every recorded tool result and the final state")
      .example(
        "ckpt replay continue thread.json --prompt 'next?' --provider script:replies.json -o out.json",
        "add a user message and run the agent on, the model's replies scripted; the new checkpoint to out.json",
      )
      .example(
        "ckpt replay resume thread.json --decision deny --reason 'not now' --provider openai:http://127.0.0.1:8080/v1 --model m -o out.json",
        "deny the pending tool call and run on with an OpenAI-compatible server",
      ),
  run: async (args: Args, io: CliIO) => {
    let mode: Mode = "verify";
    // yargs-parser reads a lone "-" positional as an empty string: that is the stdin spelling
    if (args.second === "") args.second = "-";
    if (args.first === "") args.first = "-";
    let input = args.first;
    if ((MODES as readonly string[]).includes(args.first)) {
      mode = args.first as Mode;
      if (!args.second) throw usageError(`replay ${mode}: name the input checkpoint`);
      input = args.second;
    } else if (args.second) {
      throw usageError(`unexpected '${args.second}': the mode comes first (verify, continue, resume)`);
    }
    if (mode === "continue" && args.prompt === undefined) throw usageError("replay continue needs --prompt");
    if (mode === "resume" && !args.decision) throw usageError("replay resume needs --decision approve|deny");
    if (mode === "verify" && (args.prompt !== undefined || args.decision))
      throw usageError("--prompt and --decision go with the continue and resume modes");
    if (mode !== "verify" && args.initialState) throw usageError("--initial-state goes with verify");
    if (mode === "verify") {
      // verify replays the recorded turns and writes nothing: these would be silently ignored
      const ignored = (
        [
          ["provider", "--provider"],
          ["model", "--model"],
          ["maxTurns", "--max-turns"],
          ["maxTokens", "--max-tokens"],
          ["maxDuration", "--max-duration"],
          ["limits", "--limits"],
          ["output", "-o/--output"],
          ["saveTo", "--save-to"],
          ["reason", "--reason"],
        ] as const
      ).filter(([k]) => args[k] !== undefined);
      if (ignored.length)
        throw usageError(
          `${ignored.map(([, f]) => f).join(", ")}: only with continue or resume (verify replays the recorded turns and writes no checkpoint)`,
        );
    }
    if (args.json && mode !== "verify" && !args.output && !args.saveTo)
      throw usageError("--json prints events on stdout: write the checkpoint with -o or --save-to");

    const parsed = parseInput(input, { cwd: io.cwd, env: io.env, namespace: args.namespace });
    const doc = await readSource(parsed, { stdin: () => io.stdin, cwd: io.cwd, env: io.env });
    const { checkpoint: cp, format } = readCheckpoint(doc, args.format);
    const stateTools = stateToolsOn(args.stateTools);
    const events: ReplayEvent[] = [];
    const onEvent = (e: ReplayEvent) => {
      if (args.json) io.stdout.write(JSON.stringify(e, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) + "\n");
      else if (!args.quiet) {
        const line = transcriptLine(e);
        if (line) io.stderr.write(line + "\n");
      }
      events.push(e);
    };

    if (mode === "verify") {
      const initialState = args.initialState ? await readInitialState(args.initialState, io) : undefined;
      const r = await verifyCheckpoint(cp, {
        initialState,
        stateTools,
        onEvent: args.quiet && !args.json ? undefined : onEvent,
      });
      report(r, doc.name, io, args);
      return r.ok ? ExitCode.OK : ExitCode.NEGATIVE;
    }

    const limits: Limits = {};
    if (args.limits) {
      const text = await readFile(resolve(io.cwd, args.limits), "utf8").catch((e: Error) => {
        throw inputError("unreadable", e.message, { file: args.limits }, e);
      });
      Object.assign(limits, limitsFromExecutionLimits(parseJson(text, { file: args.limits }), args.limits));
    }
    if (intOption(args.maxTurns, "--max-turns", 0) !== undefined) limits.maxTurns = args.maxTurns;
    if (intOption(args.maxTokens, "--max-tokens", 0) !== undefined) limits.maxTotalTokens = args.maxTokens;
    if (args.maxDuration !== undefined) limits.maxDurationMs = parseDuration(args.maxDuration);

    const provider = await makeProvider(args.provider, args, io, cp);
    const t0 = performance.now();
    const outcome =
      mode === "continue"
        ? await continueCheckpoint(cp, args.prompt!, { provider, limits, stateTools, onEvent })
        : await resumeCheckpoint(cp, {
            provider,
            limits,
            stateTools,
            onEvent,
            decision: args.decision!,
            reason: args.reason,
          });
    const where = await save(outcome.checkpoint, format, parsed, args, io);
    onEvent({ type: "checkpoint_saved", target: where, step: outcome.checkpoint.step });
    const r = outcome.result;
    const summary = {
      mode,
      turns: r.turns,
      toolCalls: r.toolCalls,
      tokens: { input: r.usage.input, output: r.usage.output, total: r.usage.total },
      durationMs: Math.round(performance.now() - t0),
      stopped: r.stopped ?? null,
      saved: where,
    };
    if (args.json) onEvent({ type: "summary", summary });
    else if (!args.quiet || r.stopped) {
      io.stderr.write(
        `${r.stopped ? `stopped by a limit: ${r.stopped}; ` : ""}${plural(r.turns, "turn")}, ${plural(r.toolCalls, "tool call")}, ${r.usage.total} tokens, ${summary.durationMs} ms; checkpoint saved to ${where}\n`,
      );
    }
    return r.stopped ? ExitCode.NEGATIVE : ExitCode.OK;
  },
};

function report(r: VerifyResult, name: string, io: CliIO, args: Args): void {
  if (args.json) {
    if (r.divergence) io.stdout.write(JSON.stringify({ type: "divergence", divergence: r.divergence }) + "\n");
    io.stdout.write(
      JSON.stringify({
        type: "summary",
        summary: { mode: "verify", file: name, ...r, divergence: r.divergence ?? null },
      }) + "\n",
    );
    return;
  }
  const counts = `${plural(r.turns, "turn")}, ${plural(r.toolCalls, "tool call")} (${r.stateToolCalls} run against state, ${r.recordedToolCalls} from the recording${r.unavailableToolCalls ? `, ${r.unavailableToolCalls} unavailable` : ""}), ${r.durationMs.toFixed(1)} ms`;
  if (r.divergence) {
    const d = r.divergence;
    const what =
      d.kind === "tool-result"
        ? `tool result of ${d.toolName} (${d.toolCallId}) differs`
        : d.kind === "tool-error-flag"
          ? `tool result of ${d.toolName} (${d.toolCallId}) differs in isError`
          : d.kind === "final-todos"
            ? "final todos differ"
            : "final files differ";
    io.stdout.write(
      `${name}: diverged at step ${d.step}, ${d.messageIndex >= 0 ? `message ${d.messageIndex} ` : ""}(${d.pointer}): ${what}\n${d.diff}`,
    );
    io.stdout.write(`${counts}\n`);
    return;
  }
  for (const n of r.notes) if (!args.quiet) io.stderr.write(`note: ${n}\n`);
  io.stdout.write(`${name}: replay matched: ${counts}${r.stateChecked ? "; final state matches" : ""}\n`);
}

async function save(cp: Checkpoint, format: FormatName, input: Input, args: Args, io: CliIO): Promise<string> {
  const adapter = getAdapter(format);
  const lossy: LossyNote[] = [];
  const native = adapter.fromCanonical(cp, { lossy });
  const ser = adapter.serialize(native);
  for (const n of lossy) io.stderr.write(`warning: ${format} cannot carry ${n.pointer} (${n.field}): ${n.reason}\n`);
  if (args.saveTo) {
    const to = namesStore(args.saveTo) ? parseTarget(args.saveTo, { cwd: io.cwd, env: io.env }) : undefined;
    if (!to || to.bare)
      throw usageError(
        `--save-to '${args.saveTo}': expected a saver URI (memory:, file:, sqlite:, redis://, postgres://)`,
      );
    if (!("text" in ser)) throw usageError(`--save-to: ${format} is a multi-file format; use -o <dir>`);
    const { threadId } = to;
    const { openStore } = await import("../stores.js");
    const saver = (await openStore(to.store, { readOnly: false, env: io.env })).saver;
    try {
      await saver.save(threadId ?? cp.threadId, ser.text);
    } finally {
      await saver.close();
    }
    return `${saver.uri}#${threadId ?? cp.threadId}`;
  }
  if (args.output) {
    const target = resolve(io.cwd, args.output);
    if (input.kind === "path" && input.path === target)
      throw usageError(`refusing to overwrite the input ${input.spec}: choose another -o`);
    if ("text" in ser) await writeFilesAtomic([{ path: target, text: ser.text }]);
    else await writeFilesAtomic(Object.entries(ser.files).map(([n, text]) => ({ path: join(target, n), text })));
    return args.output;
  }
  if (!("text" in ser)) throw usageError(`${format} is a multi-file format: write it with -o <dir>`);
  io.stdout.write(ser.text.endsWith("\n") ? ser.text : ser.text + "\n");
  return "stdout";
}
