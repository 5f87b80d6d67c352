/**
 * `ckpt convert <input> --to-format <name> [-o out]`: convert one checkpoint between formats through the
 * canonical model. Refuses (exit 1) when the target would drop information, unless --allow-lossy; the list
 * of what is dropped is printed either way (text on stderr, or `--json` on stdout).
 */
import { realpath, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { CommandDef } from "../command.js";
import { REDACT_OPTION, redactDoc, redactKinds, redactedLine } from "../redact.js";
import type { CliIO } from "../io.js";
import { writeFilesAtomic } from "../../base/atomic.js";
import { NAMESPACE_OPTION, readSource } from "../input.js";
import { type Input, namesStore, parseInput, parseTarget, type Target as StoreTarget } from "../../savers/address.js";
import { ExitCode, usageError } from "../../base/errors.js";
import { convertDocument, type ConvertResult } from "../../core/convert.js";
import { LossLog, messageIndexOf } from "../../formats/loss.js";
import type { LossyNote, SourceDoc } from "../../formats/types.js";
import { FORMAT_CHOICES, getAdapter, splitFormat } from "../../formats/index.js";
import { aiSdkMajor } from "../../formats/ai-sdk.js";
import { yoagentRelease, yoagentWantsSnake } from "../../formats/yoagent.js";
import { plural, pluralInt } from "../../base/plural.js";

/** Targets with a single on-disk version: --format-version would do nothing there, so it is refused. */
const VERSIONLESS = new Set(["ckpt", "phi-core", "phi-core-session", "swarmer"]);

/** A usage error unless `version` names a version of `to` that ckpt writes (before anything is read). */
function checkFormatVersion(to: string, version: string): void {
  if (VERSIONLESS.has(to)) throw usageError(`--format-version ${version}: ${to} has one format version only`);
  if (to === "yoagent" || to === "yoagent-session") {
    const snake = yoagentWantsSnake(version); // refuses releases ckpt does not know
    const v = version.trim();
    if (to === "yoagent-session" && /\d+\.\d+/.test(v) && !/^[<>]/.test(v) && yoagentRelease(v) < 11)
      throw usageError(`yoagent ${version} has no sessions (JSONL session trees were added in 0.11.0)`);
    void snake;
    return;
  }
  if (to === "ai-sdk") {
    aiSdkMajor(version); // refuses a major ckpt does not know
    return;
  }
  const known: Record<string, string[]> = { deepagent: ["ai-v6"], amacs: ["v4", "v3"] };
  if (!known[to]) throw usageError(`--format-version ${version}: ${to} has one format version only`);
  if (!known[to].includes(version))
    throw usageError(`unknown ${to} version '${version}': expected ${known[to].join(" or ")}`);
}

interface Args {
  input: string;
  toFormat: string;
  format?: string;
  formatVersion?: string;
  output?: string;
  allowLossy: boolean;
  dryRun: boolean;
  json: boolean;
  namespace?: string;
  verbose: boolean;
  redact?: string;
  toLibrary?: string;
  aiSdkVersion?: string;
}

/** `-t ai-sdk@5`, `--ai-sdk-version 5` and `--format-version 5` name one target version: they must agree. */
function targetVersion(args: Args): { to: string; version?: string } {
  const named = splitFormat(args.toFormat);
  const given = [named.version, args.aiSdkVersion, args.formatVersion].filter((v) => v !== undefined) as string[];
  if (args.aiSdkVersion !== undefined && named.name !== "ai-sdk")
    throw usageError(`--ai-sdk-version ${args.aiSdkVersion} goes with --to-format ai-sdk, not ${args.toFormat}`);
  if (new Set(given.map((v) => (named.name === "ai-sdk" ? aiSdkMajor(v) : v))).size > 1)
    throw usageError(`the target version is named twice, differently: ${given.join(", ")}`);
  return given.length > 0 ? { to: named.name, version: given[0] } : { to: named.name };
}

export const convertCommand: CommandDef = {
  command: "convert <input>",
  describe: "Convert a checkpoint to another format (through the canonical model)",
  builder: (y) =>
    y
      .positional("input", { type: "string", describe: "file, amacs folder, '-' for stdin, or <saver-uri>#<threadId>" })
      .option("to-format", {
        alias: "t",
        type: "string",
        choices: [...FORMAT_CHOICES],
        demandOption: true,
        describe: "target format (ai-sdk@N: an AI SDK chat of major N)",
      })
      .option("format", {
        alias: "f",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "source format (detected when omitted; ai-sdk@N reads an AI SDK chat as major N)",
      })
      .option("ai-sdk-version", {
        type: "string",
        choices: ["4", "5", "6", "7"],
        describe: "--to-format ai-sdk: the AI SDK major to write (default: the source chat's, else 7)",
      })
      .option("format-version", {
        type: "string",
        describe: "target version, e.g. yoagent '<0.13' (or 0.12) for the old snake_case spelling; default: current",
      })
      .option("output", {
        alias: "o",
        type: "string",
        describe:
          "output file (a folder for amacs, or an existing folder to write <threadId><ext> into); stdout when omitted",
      })
      .option("allow-lossy", {
        type: "boolean",
        default: false,
        describe: "convert even when the target cannot carry everything (the dropped fields are listed)",
      })
      .option("dry-run", {
        type: "boolean",
        default: false,
        describe: "report what would be written and dropped; write nothing",
      })
      .option("json", {
        type: "boolean",
        default: false,
        describe: "machine-readable report on stdout (needs -o or --dry-run)",
      })
      .option("namespace", NAMESPACE_OPTION)
      .option("redact", REDACT_OPTION)
      .option("verbose", {
        alias: "v",
        type: "boolean",
        default: false,
        describe: "list every dropped field (by default a field dropped on many messages is one line)",
      })
      .option("to-library", {
        type: "string",
        choices: ["js", "python"],
        describe:
          "-t langgraph into a LangGraph store (-o sqlite:<path>#<thread> or postgres://…?schema=…#<thread>): the library whose encoding to write (default: the store's, else js)",
      })
      .example(
        "ckpt convert conversation.json --to-format deepagent -o thread.json",
        "yoagent history → deep-agent checkpoint",
      )
      .example(
        "ckpt convert conversation.json -t yoagent --format-version 0.12 -o old.json",
        "write the < 0.13 spelling",
      )
      .example("ckpt convert sess-1.json -t yoagent --dry-run", "list what a conversion would drop")
      .example(
        "ckpt convert conversation.json -t langgraph -o 'sqlite:checkpoints.db#support-42'",
        "a yoagent history → a new LangGraph thread that LangGraph JS loads and continues",
      )
      .example(
        "ckpt convert 'checkpoints.db#support-42' -t yoagent --allow-lossy -o out.json",
        "the newest checkpoint of a LangGraph thread → yoagent (add @<id> for another)",
      ),
  run: async (args: Args, io: CliIO) => {
    // yargs-parser reads a lone "-" positional as an empty string: that is the stdin spelling
    if ((args.input as unknown) === "" || (args.input as unknown) === true) args.input = "-";
    if (args.json && !args.output && !args.dryRun)
      throw usageError("--json needs -o/--output or --dry-run: stdout carries the converted document otherwise");
    const named = targetVersion(args);
    args.toFormat = named.to;
    args.formatVersion = named.version;
    if (args.formatVersion !== undefined) checkFormatVersion(args.toFormat, args.formatVersion);
    const into = storeOutput(args.output, io);
    const intoStore = into !== undefined;
    if (intoStore && args.toFormat !== "langgraph")
      throw usageError(
        `-o ${args.output} is a store: convert writes LangGraph threads into stores (-t langgraph); use ckpt migrate --to-format ${args.toFormat} for ckpt's own savers`,
      );
    if (args.toLibrary !== undefined && !intoStore)
      throw usageError(
        "--to-library applies to -t langgraph into a LangGraph store (-o sqlite:<path>#<thread> or postgres://…#<thread>)",
      );
    const input = parseInput(args.input, { cwd: io.cwd, env: io.env, namespace: args.namespace });
    let doc = await readSource(input, { stdin: () => io.stdin, cwd: io.cwd, env: io.env });
    const kinds = await redactKinds(args.redact);
    if (kinds) {
      // the document as read, its findings replaced: what is converted and written never held them
      const r = new (await import("../../core/scan/redact.js")).Redactor(kinds);
      doc = await redactDoc(doc, r);
      io.stderr.write(`${redactedLine(r.counts)}\n`);
    }
    if (into) return convertIntoLangGraph(doc, into, { ...args, output: args.output! }, io);
    const r = convertDocument(doc, { from: args.format, to: args.toFormat, version: args.formatVersion });
    const refused = r.lossLog.length > 0 && !args.allowLossy;
    let target: string | undefined;
    if (!refused && !args.dryRun) {
      if (args.output) target = await writeOutput(r, input, args, io);
      else if ("text" in r.output) {
        // exact bytes when redirected (the system's own layout); a final newline only for a terminal
        const t = r.output.text;
        io.stdout.write(io.stdout.isTTY && !t.endsWith("\n") ? t + "\n" : t);
      } else throw usageError(`${r.to} is written as a folder of files: give -o <folder>`);
    }
    if (args.json) {
      io.stdout.write(
        JSON.stringify(
          {
            ok: !refused,
            input: doc.name,
            from: { format: r.from, ...(r.fromVersion ? { version: r.fromVersion } : {}) },
            to: {
              format: r.to,
              ...((r.toVersion ?? args.formatVersion) ? { version: r.toVersion ?? args.formatVersion } : {}),
            },
            output: target ?? null,
            dryRun: args.dryRun,
            messages: r.checkpoint.messages.length,
            lossy: r.lossy,
          },
          null,
          2,
        ) + "\n",
      );
    } else {
      reportText(r, doc.name, target, refused, args, io);
    }
    return refused ? ExitCode.NEGATIVE : ExitCode.OK;
  },
};

function reportText(
  r: ConvertResult,
  input: string,
  target: string | undefined,
  refused: boolean,
  args: Args,
  io: CliIO,
) {
  const err = io.stderr;
  const head = `${r.from}${r.fromVersion ? ` ${r.fromVersion}` : ""} → ${r.to}${r.toVersion ? ` ${r.toVersion}` : ""}`;
  const log = r.lossLog;
  const fields = count(log.length, "field");
  if (refused)
    err.write(
      `ckpt: ${input}: converting ${head} would drop ${fields} (nothing written; --allow-lossy converts anyway):\n`,
    );
  else if (log.length) err.write(`ckpt: ${input}: ${head}: dropped ${fields}:\n`);
  if (args.verbose) for (let k = 0; k < log.length; k++) err.write(`  ${log.pointerOf(k)}: ${log.reasonOf(k)}\n`);
  else {
    const groups = groupLossy(log);
    for (const g of groups)
      err.write(
        g.count === 1 ? `  ${g.first}: ${g.reason}\n` : `  ${g.pattern}: ${g.reason} (${g.where}, e.g. ${g.first})\n`,
      );
    if (groups.length < log.length) err.write(`  (--verbose lists every field, --json gives the list as data)\n`);
  }
  if (!refused && (target || args.dryRun)) {
    err.write(
      `${args.dryRun ? "would convert" : "converted"} ${input} (${head}, ${count(r.checkpoint.messages.length, "message")})${target ? ` → ${target}` : ""}\n`,
    );
  }
}

/** One line of the loss report: the notes with the same reason at the same field of different messages/blocks. */
export interface LossyGroup {
  /** the pointer with its array indices as `*`, e.g. /messages/*\/usage */
  pattern: string;
  reason: string;
  count: number;
  /** the first pointer of the group */
  first: string;
  /** "on 20,000 messages", or "3 fields on 2 messages" */
  where: string;
}

/**
 * The loss notes summarized per field and reason, in the order of their first note: a 20,000-message history
 * dropping every timestamp is one line, not 20,000 (--verbose or --json lists each).
 */
export function groupLossy(notes: ReadonlyArray<LossyNote> | LossLog): LossyGroup[] {
  // A group is a reason and a pattern: a pointer with its all-digit segments as *. Notes come in pointer order, so
  // the notes of one message are adjacent and counting distinct messages needs only the last one seen. A note is
  // matched against its reason's groups in place: a whole pointer by the literal parts of a group's pattern
  // (compared natively, no pattern string built per note); a note a LossLog keeps in parts (message N and the rest
  // of its pointer) by the pattern of that rest, worked out once per distinct rest ("/model" is one string shared by
  // 8,000 notes). The loop runs once per note (60,000 for a long history, in a process that runs it once): it is kept
  // small, with the rare new group in a function of its own, so that V8 optimizes it early and cheaply.
  const byReason = new Map<string, NoteGroup[]>();
  const groups: NoteGroup[] = [];
  const count1 = (g: NoteGroup, m: number) => {
    g.count++;
    if (m >= 0 && m !== g.last) {
      g.messages++;
      g.last = m;
    }
  };
  if (notes instanceof LossLog && !notes.holdsNotes) {
    const tailPatterns = new Map<string, string>();
    for (let k = 0; k < notes.length; k++) {
      const m = notes.messageOf(k);
      const tail = notes.tailOf(k);
      const reason = notes.reasonOf(k);
      const ofReason = byReason.get(reason);
      let g: NoteGroup | undefined;
      if (m >= 0) {
        let tp = tailPatterns.get(tail);
        if (tp === undefined) tailPatterns.set(tail, (tp = tail.replace(INDEX, "/*")));
        if (ofReason !== undefined) g = groupOfTail(ofReason, tp);
      } else if (ofReason !== undefined) g = groupFitting(ofReason, tail);
      count1(g ?? newGroup(notes.pointerOf(k), reason, ofReason, byReason, groups), m);
    }
  } else {
    const list = notes instanceof LossLog ? notes.notes() : notes;
    for (let k = 0; k < list.length; k++) {
      const n = list[k]!;
      const p = n.pointer;
      const ofReason = byReason.get(n.reason);
      const g =
        (ofReason !== undefined ? groupFitting(ofReason, p) : undefined) ??
        newGroup(p, n.reason, ofReason, byReason, groups);
      count1(g, messageIndexOf(p));
    }
  }
  return groups.map((g) => ({
    pattern: g.pattern,
    reason: g.reason,
    count: g.count,
    first: g.first,
    where:
      g.messages === g.count
        ? `on ${count(g.count, "message")}`
        : `${count(g.count, "field")}${g.messages ? ` on ${count(g.messages, "message")}` : ""}`,
  }));
}

/** A group of groupLossy while it counts: its pattern's literal parts, the messages it names and the last one seen. */
interface NoteGroup {
  pattern: string;
  parts: string[];
  /** the pattern after "/messages/*" when it starts so ("" or "/…"): what a note on a message must have */
  tail: string | undefined;
  reason: string;
  count: number;
  first: string;
  messages: number;
  last: number;
}

function groupFitting(ofReason: readonly NoteGroup[], pointer: string): NoteGroup | undefined {
  for (let i = 0; i < ofReason.length; i++) if (fitsParts(pointer, ofReason[i]!.parts)) return ofReason[i];
  return undefined;
}

/** The group whose pattern is "/messages/*" and then `tailPattern`. */
function groupOfTail(ofReason: readonly NoteGroup[], tailPattern: string): NoteGroup | undefined {
  for (let i = 0; i < ofReason.length; i++) if (ofReason[i]!.tail === tailPattern) return ofReason[i];
  return undefined;
}

function newGroup(
  pointer: string,
  reason: string,
  ofReason: NoteGroup[] | undefined,
  byReason: Map<string, NoteGroup[]>,
  groups: NoteGroup[],
): NoteGroup {
  const pattern = pointer.replace(INDEX, "/*");
  const tail =
    pattern.startsWith("/messages/*") && (pattern.length === 11 || pattern.charCodeAt(11) === 47)
      ? pattern.slice(11)
      : undefined;
  const g: NoteGroup = {
    pattern,
    parts: partsOf(pattern),
    tail,
    reason,
    count: 0,
    first: pointer,
    messages: 0,
    last: -1,
  };
  if (ofReason) ofReason.push(g);
  else byReason.set(reason, [g]);
  groups.push(g);
  return g;
}

/**
 * `pointer.replace(INDEX, "/*") === pattern`, without building the string: a `*` segment of the pattern stands for
 * an all-digit segment of the pointer (or a literal `*`, which the replacement keeps), every other character is itself.
 */
export function fitsPattern(pointer: string, pattern: string): boolean {
  return fitsParts(pointer, partsOf(pattern));
}

/** A pattern's literal text between its `*` segments: "/messages/*\/usage" → ["/messages/", "/usage"]. */
function partsOf(pattern: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let j = pattern.indexOf("*", 1); j >= 0; j = pattern.indexOf("*", j + 1)) {
    if (pattern.charCodeAt(j - 1) !== 47 || (j + 1 < pattern.length && pattern.charCodeAt(j + 1) !== 47)) continue;
    parts.push(pattern.slice(from, j));
    from = j + 1;
  }
  parts.push(pattern.slice(from));
  return parts;
}

/** The literal parts in order (startsWith), each `*` between two parts one all-digit segment or a literal `*`. */
function fitsParts(pointer: string, parts: readonly string[]): boolean {
  let i = 0;
  for (let k = 0; ; k++) {
    const part = parts[k]!;
    if (!pointer.startsWith(part, i)) return false;
    i += part.length;
    if (k === parts.length - 1) return i === pointer.length;
    let e = i;
    let digits = true;
    while (e < pointer.length && pointer.charCodeAt(e) !== 47) {
      const d = pointer.charCodeAt(e);
      if (d < 48 || d > 57) digits = false;
      e++;
    }
    if (!(e > i && digits) && !(e === i + 1 && pointer.charCodeAt(i) === 42)) return false;
    i = e;
  }
}

const INDEX = /\/\d+(?=\/|$)/g;

/** "20,000 messages" */
const count = pluralInt;

/** Where to write, refusing to overwrite the input; then an atomic write (temp file + rename). */
async function writeOutput(r: ConvertResult, input: Input, args: Args, io: CliIO): Promise<string> {
  const out = resolve(io.cwd, args.output!);
  const inputPath =
    input.kind === "path" ? input.path : input.kind === "store" ? resolve(io.cwd, input.store.location) : undefined;
  const files: Record<string, string> = {};
  let base = out;
  const isDir = await stat(out).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if ("files" in r.output) {
    Object.assign(files, r.output.files);
  } else if (isDir) {
    const ext = getAdapter(r.to).extensions[0] ?? ".json";
    const name = (r.checkpoint.threadId || "checkpoint").replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
    files[name + ext] = r.output.text;
  } else {
    base = dirname(out);
    files[out.slice(base.length + 1)] = (r.output as { text: string }).text;
  }
  const targets = Object.entries(files).map(([name, text]) => ({ path: join(base, name), text }));
  if (inputPath) {
    const inReal = await realpath(inputPath).catch(() => inputPath);
    for (const t of targets) {
      const outReal = await realpath(t.path).catch(() => t.path);
      if (outReal === inReal || outReal.startsWith(inReal + "/"))
        throw usageError(`refusing to overwrite the input ${args.input}: choose another -o`);
    }
  }
  await writeFilesAtomic(targets); // every file to a temp name first, then renamed: no partial output
  return "files" in r.output || !isDir ? args.output! : join(args.output!, Object.keys(files)[0]!);
}

// ------------------------------------------------------------------------------------------------ into a LangGraph store

/**
 * Into a store: `ckpt convert <in> -t langgraph -o <LangGraph store>[#thread]`: one thread of any format written into a LangGraph
 * SQLite or PostgreSQL store as a new LangGraph thread (one checkpoint, LangChain messages; core/langgraph/convert.ts), in the
 * JS library's encoding unless `--to-library python` (or the store's own library when it already holds threads). The
 * store is set up as that library's setup() would; the thread must not exist there yet; the row is read back and
 * compared with what was written.
 */
/** The store `-o` names when it names a LangGraph store (a sqlite:/postgres:// URI, or a *.db / *.sqlite path), else undefined (a file). */
function storeOutput(output: string | undefined, io: CliIO): StoreTarget | undefined {
  const t = output !== undefined && namesStore(output) ? parseTarget(output, { cwd: io.cwd, env: io.env }) : undefined;
  return t && (t.store.kind === "sqlite" || t.store.kind === "postgres") ? t : undefined;
}

export interface StoreConvertArgs {
  input: string;
  output: string;
  format?: string;
  toLibrary?: string;
  allowLossy: boolean;
  dryRun: boolean;
  json: boolean;
  verbose: boolean;
}

export async function convertIntoLangGraph(
  doc: SourceDoc,
  ref: StoreTarget,
  args: StoreConvertArgs,
  io: CliIO,
): Promise<number> {
  const { parseLibrary } = await import("../../engines/langgraph/migrate.js");
  const { documentToRow, threadTaken } = await import("../../core/langgraph/convert.js");
  const { redactUri: redact } = await import("../../base/redact.js");
  if (ref.threadId === "") throw usageError(`-o ${args.output}: the thread id after '#' is empty`);
  const asked = parseLibrary(args.toLibrary);
  const { keyOf } = await import("../../savers/langgraph/shared.js");
  const { openStore } = await import("../stores.js");
  // an empty store is set up as a LangGraph store; a dry run into a SQLite file that does not exist yet plans against
  // an empty one and creates nothing
  const { engine } = await openStore(ref.store, {
    readOnly: false,
    env: io.env,
    want: "langgraph",
    dryRun: args.dryRun,
  });
  // the store as the user named it (a bare path: as an sqlite: URI)
  const uri = ref.bare ? `sqlite:${ref.store.raw}` : ref.store.raw;
  const { keepsHistory } = await import("../../engines/langgraph/index.js");
  if (!keepsHistory(engine)) {
    await engine.close();
    throw usageError(
      `-o ${redact(uri)} holds ${engine.holds}: a LangGraph thread goes into a LangGraph store of its own (another database file or ?schema=)`,
    );
  }
  const store = engine.store;
  try {
    const had = await store.hasLayout();
    const library = asked ?? (had ? await store.library() : undefined) ?? "js";
    const c = documentToRow(doc, { from: args.format, threadId: ref.threadId, library, now: Date.now() });
    const target = `${redact(uri)}#${c.row.threadId}@${c.row.id}`;
    const head = `${c.from} → langgraph (${library})`;
    const refused = c.lossy.length > 0 && !args.allowLossy;
    const taken = had ? threadTaken(c.row, (await store.heads([c.row.threadId])).get(c.row.threadId)) : undefined;
    let written = false;
    let verified = false;
    if (!refused && !taken && !args.dryRun) {
      if (!had) await store.setup(library);
      const form = store.stagedForm(c.row, library);
      await store.write([c.row], { library, overwrite: false });
      written = true;
      const back = (await store.readBack([c.row])).get(keyOf(c.row));
      verified = back !== undefined && store.sameForm(back, form);
    }
    if (args.json) {
      io.stdout.write(
        JSON.stringify(
          {
            ok: !refused && !taken && (args.dryRun || verified),
            input: doc.name,
            from: { format: c.from },
            to: { format: "langgraph", library },
            output: target,
            dryRun: args.dryRun,
            written,
            verified,
            messages: c.messages,
            lossy: c.lossy,
            ...(taken ? { conflict: taken } : {}),
          },
          null,
          2,
        ) + "\n",
      );
    }
    const err = io.stderr;
    if (refused)
      err.write(
        `ckpt: ${doc.name}: converting ${head} would drop ${plural(c.lossy.length, "field")} (nothing written; --allow-lossy converts anyway):\n`,
      );
    else if (c.lossy.length) err.write(`ckpt: ${doc.name}: ${head}: dropped ${plural(c.lossy.length, "field")}:\n`);
    if (args.verbose) for (const n of c.lossy) err.write(`  ${n.pointer}: ${n.reason}\n`);
    else {
      // one line per field dropped on many messages, as convert reports it
      const groups = groupLossy(c.lossy);
      for (const g of groups)
        err.write(
          g.count === 1 ? `  ${g.first}: ${g.reason}\n` : `  ${g.pattern}: ${g.reason} (${g.where}, e.g. ${g.first})\n`,
        );
      if (groups.length < c.lossy.length) err.write(`  (--verbose lists every field, --json gives the list as data)\n`);
    }
    if (taken) err.write(`ckpt: ${redact(uri)}: ${taken}; nothing written\n`);
    if (refused || taken) return ExitCode.NEGATIVE;
    if (written && !verified) {
      err.write(`ckpt: ${target}: the rows read back differ from the rows written\n`);
      return ExitCode.NEGATIVE;
    }
    if (!args.json)
      err.write(
        `${args.dryRun ? "would convert" : "converted"} ${doc.name} (${head}, ${plural(c.messages, "message")}) → ${target}${written ? " (read back and verified)" : ""}\n`,
      );
    return ExitCode.OK;
  } finally {
    await store.close();
  }
}
