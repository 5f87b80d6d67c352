/**
 * `ckpt search <pattern> <source…>`: grep over conversations. Every message of every thread of what is named (files,
 * folders, stores, threads) whose text matches a literal (`-i`: case-insensitive) or `--regex`; `--in tools,state`
 * searches tool arguments and results and the state too. A LangGraph thread's newest checkpoint unless
 * `--all-checkpoints`. One line per match: the thread (`<store>#<thread>@<checkpoint>`), the message's index as
 * `ckpt show` numbers it, its role, and a snippet with the match highlighted (colour only on a terminal).
 *
 * Exit: 0 something matched, 1 nothing did (grep's convention), 2 usage, 3 or 4 when a source could not be read
 * (named on stderr; the other sources are searched all the same — a search that could not read everything is not
 * called a plain "not found").
 */
import type { Argv } from "yargs";
import { usageError, type CkptError } from "../../base/errors.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import type { SearchHit, SearchQuery, SearchScope } from "../../core/search.js";
import type { CommandDef } from "../command.js";
import { type Conversation, conversationLabel } from "../conversations.js";
import { type CliIO, lineWriter, useColor } from "../io.js";

interface Args {
  pattern: string;
  sources: string[];
  regex: boolean;
  ignoreCase: boolean;
  in?: string[];
  role?: string[];
  tool?: string[];
  json: boolean;
  filesWithMatches: boolean;
  allCheckpoints: boolean;
  namespace?: string;
  format?: string;
}

const SCOPES: readonly SearchScope[] = ["messages", "tools", "state"];

const list = (v: string[] | undefined) =>
  (v ?? [])
    .flatMap((x) => String(x).split(","))
    .map((x) => x.trim())
    .filter(Boolean);

/** The query the flags ask for; a bad `--in` or regular expression is a usage error. */
function queryOf(a: Args): SearchQuery {
  const scopes = list(a.in).flatMap((s): string[] => (s === "all" ? [...SCOPES] : [s]));
  for (const s of scopes)
    if (!(SCOPES as readonly string[]).includes(s))
      throw usageError(`--in ${s}: expected messages, tools, state or all (a comma-separated list)`);
  if (a.pattern === "") throw usageError("the pattern is empty: give the text to look for");
  return {
    pattern: a.pattern,
    regex: a.regex,
    ignoreCase: a.ignoreCase,
    in: scopes as SearchScope[],
    roles: list(a.role),
    tools: list(a.tool),
  };
}

/** One hit as a line: `<thread> #<message> <role>[ <tool>]: <snippet>`. */
function hitLine(label: string, h: SearchHit, paint: ((s: string) => string) | undefined, dim: (s: string) => string) {
  const where =
    h.message !== undefined
      ? `#${h.message} ${h.role}${h.field === "thinking" ? " (thinking)" : ""}${h.tool ? ` ${h.field === "toolCall" ? "→ " : ""}${printable(h.tool)}` : ""}`
      : `state.${printable(h.key ?? "")}`;
  const [s, e] = h.match;
  const pre = printable(h.snippet.slice(0, s));
  const hit = printable(h.snippet.slice(s, e));
  const post = printable(h.snippet.slice(e));
  return `${dim(printable(label))} ${where}: ${pre}${paint ? paint(hit) : hit}${post}\n`;
}

/** The conversation's keys of a JSON Lines hit, as JSON without its closing brace (an undefined one left out). */
const jsonHead = (c: Conversation) =>
  JSON.stringify({
    source: c.source,
    thread: c.threadId,
    checkpoint: c.checkpointId || undefined,
    namespace: c.namespace || undefined,
    format: c.format,
  }).slice(0, -1);

/** a string as JSON, the few that recur (roles, fields) looked up rather than written again for every hit */
const quoted = new Map<string, string>();
const quote = (s: string) => {
  let q = quoted.get(s);
  if (q === undefined) {
    q = JSON.stringify(s);
    if (quoted.size < 64) quoted.set(s, q);
  }
  return q;
};

/**
 * One hit as a JSON Lines line: the conversation's keys, then the hit's in this order (an undefined one left out).
 * The message index, offsets and count are integers, written as JSON writes them.
 */
const jsonLine = (head: string, h: SearchHit) =>
  `${head}${h.message !== undefined ? `,"message":${h.message}` : ""},"role":${quote(h.role)},"field":${quote(h.field)}${h.tool !== undefined ? `,"tool":${quote(h.tool)}` : ""}${h.key !== undefined ? `,"key":${JSON.stringify(h.key)}` : ""},"snippet":${JSON.stringify(h.snippet)},"match":[${h.match[0]},${h.match[1]}],"count":${h.count}}\n`;

export const searchCommand: CommandDef = {
  command: "search <pattern> <sources..>",
  describe: "Find messages (and tool calls, results, state) matching a text or a regular expression, like grep",
  builder: (y: Argv) =>
    y
      .positional("pattern", { type: "string", describe: "the text to find (a regular expression with --regex)" })
      .positional("sources", {
        type: "string",
        array: true,
        describe: "files, folders, globs, - , stores (every thread) or <store>#<thread>",
      })
      .option("regex", {
        alias: "E",
        type: "boolean",
        default: false,
        describe: "the pattern is a regular expression (JavaScript syntax)",
      })
      .option("ignore-case", {
        alias: "i",
        type: "boolean",
        default: false,
        describe: "match upper and lower case alike",
      })
      .option("in", {
        type: "string",
        array: true,
        describe:
          "also search tool arguments and results (tools), the state (state), or all; messages are always searched",
      })
      .option("role", {
        type: "string",
        array: true,
        describe: "only messages of these roles (user, assistant, system, tool)",
      })
      .option("tool", {
        type: "string",
        array: true,
        describe: "only calls and results of these tools (implies --in tools)",
      })
      .option("files-with-matches", {
        alias: "l",
        type: "boolean",
        default: false,
        describe: "print each matching thread once, nothing else",
      })
      .option("all-checkpoints", {
        type: "boolean",
        default: false,
        describe: "every checkpoint of a LangGraph thread (default: the newest)",
      })
      .option("json", { type: "boolean", default: false, describe: "one JSON object per match (JSON Lines)" })
      .option("namespace", {
        type: "string",
        describe: "the namespace of a store that has them (default: every namespace)",
      })
      .option("format", { alias: "f", type: "string", describe: "input format of files (default: detected)" })
      .example(
        "ckpt search 'refund' sqlite:./checkpoints.db",
        "every thread of a LangGraph store: its newest checkpoint",
      )
      .example(
        "ckpt search -i --regex 'order #\\d+' ./chats/ --role user",
        "what users wrote, in a folder of AI SDK chats",
      )
      .example(
        "ckpt search 'api.example.com' mastra.db --in tools --tool fetch_url --json",
        "a tool's calls, as JSON Lines",
      )
      .example("ckpt search -l 'timeout' postgres://localhost/app", "only the ids of the threads that mention it"),
  run: async (args: Args, io: CliIO) => {
    const q = queryOf(args);
    const { compileMatcher, prefilterOf, searchCheckpoint } = await import("../../core/search.js");
    let matcher;
    try {
      matcher = compileMatcher(q);
    } catch (e) {
      throw usageError(`--regex ${JSON.stringify(args.pattern)}: ${(e as Error).message}`);
    }
    const { readConversations } = await import("../conversations.js");
    const color = !args.json && useColor(io);
    const chalk = color ? new (await import("chalk")).Chalk({ level: 1 }) : undefined;
    const paint = chalk ? (s: string) => chalk.bold.red(s) : undefined;
    const dim = chalk ? (s: string) => chalk.magenta(s) : (s: string) => s;
    let found = 0;
    let skipped = 0;
    let failed: CkptError | undefined;
    const out = lineWriter(io.stdout);
    const listed = new Set<string>();
    const reads = readConversations(args.sources, io, {
      allCheckpoints: args.allCheckpoints,
      namespace: args.namespace,
      format: args.format,
      prefilter: prefilterOf(q),
      messagesOnly: !q.in?.includes("state"),
      passedOver: () => void skipped++,
    });
    for await (const r of reads) {
      if (!r.ok) {
        failed ??= r.error;
        out.flush();
        io.stderr.write(`ckpt search: ${printable(r.error.format(), true)}\n`);
        continue;
      }
      const c: Conversation = r.value;
      const hits = searchCheckpoint(c.checkpoint, q, matcher);
      if (hits.length === 0) continue;
      found += hits.length;
      const label = conversationLabel(c);
      if (args.filesWithMatches) {
        // each thread once (every checkpoint of it may match)
        const thread = conversationLabel({ ...c, checkpointId: undefined });
        if (!listed.has(thread))
          out.line(
            args.json ? `${JSON.stringify({ source: c.source, thread: c.threadId })}\n` : `${printable(thread)}\n`,
          );
        listed.add(thread);
      } else if (args.json) {
        const head = jsonHead(c);
        for (const h of hits) out.line(jsonLine(head, h));
      } else for (const h of hits) out.line(hitLine(label, h, paint, dim));
      // what a conversation found goes out once 64 KiB are waiting (a terminal sees matches as they come)
      if (out.pending() > 65536) out.flush();
    }
    out.flush();
    if (skipped)
      io.stderr.write(`ckpt search: ${plural(skipped, "file")} in the folders named not read: not conversations\n`);
    if (failed) return failed.exitCode;
    return found ? 0 : 1;
  },
};
