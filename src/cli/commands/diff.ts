/**
 * `ckpt diff <a> <b>`: a semantic diff of two checkpoints of any formats, compared in the canonical model.
 * Exit codes like diff(1): 0 identical, 1 different, 2 usage, 3 input error, 4 store error.
 */
import type { CommandDef } from "../command.js";
import { useColor, type CliIO } from "../io.js";
import { NAMESPACE_OPTION, readSource } from "../input.js";
import { unreadableLine, warnUnreadable } from "../unreadable.js";
import { ExitCode, inputError, usageError } from "../../base/errors.js";
import { hasLongDigitRun, jsonLocator, stringifyJson, toPlainNumbers } from "../../base/json.js";
import { getValidator } from "../../schema/validate.js";
import type { Checkpoint } from "../../generated/types.js";
import type { SourceDoc } from "../../formats/types.js";
import { diffCheckpoints, VOLATILE_GLOBS } from "../../core/diff/index.js";
import { FORMAT_CHOICES, readNative, schemaFor, type FormatAdapter } from "../../formats/index.js";
import { renderJson, renderMarkdown, renderText, type SideInfo } from "../render/diff.js";

const OUTPUTS = ["text", "json", "json-patch", "markdown"] as const;

interface Args {
  a: string;
  b: string;
  ignore?: string[];
  ignoreVolatile: boolean;
  stat: boolean;
  quiet: boolean;
  json: boolean;
  reporter?: Output;
  /** the input format, as in every other command; an output name here is the deprecated spelling of --reporter */
  format?: string;
  inputFormat?: string;
  namespace?: string;
  verbose: boolean;
}

type Output = (typeof OUTPUTS)[number];
const isOutput = (v: string | undefined): v is Output => (OUTPUTS as readonly string[]).includes(v ?? "");

export const diffCommand: CommandDef = {
  command: "diff <a> <b>",
  describe: "Show what changed between two checkpoints (any formats): messages, state, usage",
  builder: (y) =>
    y
      .positional("a", {
        type: "string",
        describe: "first checkpoint: file, amacs folder, '-' for stdin, or <saver-uri>#<threadId>",
      })
      .positional("b", { type: "string", describe: "second checkpoint (same forms)" })
      .option("ignore", {
        type: "string",
        array: true,
        describe:
          "leave out values whose canonical pointer matches this glob (repeatable): '*' one segment, '**' any, e.g. /messages/*/timestamp, /state/files/**",
      })
      .option("ignore-volatile", {
        type: "boolean",
        default: false,
        describe: `ignore timestamps, createdAt/updatedAt, usage and file times (${VOLATILE_GLOBS.join(" ")})`,
      })
      .option("stat", { type: "boolean", default: false, describe: "print the summary only" })
      .option("verbose", {
        type: "boolean",
        default: false,
        describe:
          "also compare origin and ext (each format's bookkeeping) when the formats or their versions differ, e.g. an AI SDK 4 chat and its AI SDK 6 conversion",
      })
      .option("quiet", {
        alias: "q",
        type: "boolean",
        default: false,
        describe: "print nothing; the exit code says whether they differ",
      })
      .option("json", { type: "boolean", default: false, describe: "change records as JSON (same as --reporter json)" })
      .option("namespace", NAMESPACE_OPTION)
      .option("reporter", {
        alias: "r",
        type: "string",
        choices: [...OUTPUTS],
        describe: "output: text (default), json, json-patch (RFC 6902 from canonical a to canonical b), markdown",
      })
      // the choices include the output names only so that old scripts' `--format json` still parse (deprecated)
      .option("format", {
        alias: "f",
        type: "string",
        choices: [...FORMAT_CHOICES, ...OUTPUTS],
        describe: `format of both inputs, as in validate/convert/show/replay (detected when omitted). Formerly the output: an output name (${OUTPUTS.join(", ")}) still works as --reporter, with a warning`,
      })
      .option("input-format", {
        alias: "F",
        type: "string",
        choices: [...FORMAT_CHOICES],
        describe: "same as --format (the input format)",
      })
      .example("ckpt diff before.json after.json", "what changed between two saves")
      .example(
        "ckpt diff conversation.json thread.json --ignore-volatile",
        "compare a yoagent history with a deep-agent checkpoint, ignoring times and usage",
      )
      .example("ckpt diff a.json b.json --reporter markdown > comment.md", "a pull-request comment")
      .example("ckpt diff a.json b.json --reporter json-patch", "an RFC 6902 patch from canonical a to canonical b")
      .example(
        "ckpt diff old.json new.json --format phi-core",
        "read both inputs as phi-core (a snake_case array fits yoagent < 0.13 too)",
      ),
  run: async (args: Args, io: CliIO) => {
    // yargs-parser reads a lone "-" positional as an empty string: that is the stdin spelling
    for (const k of ["a", "b"] as const)
      if ((args[k] as unknown) === "" || (args[k] as unknown) === true) args[k] = "-";
    // yargs still calls the handler after reporting a missing positional (main prints that usage error)
    if (typeof args.a !== "string" || typeof args.b !== "string") return ExitCode.USAGE;
    if (args.a === "-" && args.b === "-") throw usageError("only one of the two inputs can be '-' (stdin)");
    const { output, inputFormat } = outputAndInput(args, io);
    if (args.stat && output === "json-patch") throw usageError("--stat has no meaning with --reporter json-patch");

    const read = async (spec: string) => {
      const { parseInput } = await import("../../savers/address.js");
      const parsed = parseInput(spec, { cwd: io.cwd, env: io.env, namespace: args.namespace });
      const doc = await readSource(parsed, { stdin: () => io.stdin, cwd: io.cwd, env: io.env });
      const n = readNative(doc, inputFormat);
      const valid = nativeValid(n.adapter, n.native, n.doc);
      const checkpoint = n.adapter.toCanonical(n.native, n.doc);
      if (!valid) checkCanonical(checkpoint, doc, n.format);
      const unreadable = warnUnreadable(io, doc.name, checkpoint, "compared without it");
      return { doc, checkpoint, format: n.format, unreadable };
    };
    const ra = await read(args.a);
    const rb = await read(args.b);
    const d = diffCheckpoints(ra.checkpoint, rb.checkpoint, {
      ignore: (args.ignore ?? []).map(String),
      ignoreVolatile: args.ignoreVolatile,
      patch: output === "json-patch" && !args.quiet,
      bookkeeping: args.verbose,
    });
    const code = d.identical ? ExitCode.OK : ExitCode.NEGATIVE;
    if (args.quiet) return code;
    const side = (r: typeof ra): SideInfo => ({
      name: r.doc.name,
      format: r.format,
      threadId: String(r.checkpoint.threadId),
      ...(r.checkpoint.origin?.threadIdFrom ? { threadIdFrom: r.checkpoint.origin.threadIdFrom } : {}),
      messages: r.checkpoint.messages.length,
      ...(r.unreadable.length ? { unreadable: r.unreadable } : {}),
    });
    for (const [k, r] of [
      ["a", ra],
      ["b", rb],
    ] as const)
      for (const p of r.unreadable) d.notes.push(`${k}: ${unreadableLine(p)}; compared without it`);
    const a = side(ra);
    const b = side(rb);
    if (output === "json-patch") io.stdout.write(stringifyJson(d.patch ?? [], 2) + "\n");
    else if (output === "json") io.stdout.write(renderJson(d, a, b, { stat: args.stat }));
    else if (output === "markdown") io.stdout.write(renderMarkdown(d, a, b, { stat: args.stat }));
    else io.stdout.write(renderText(d, a, b, { color: useColor(io), stat: args.stat }));
    return code;
  },
};

/**
 * `--format` is the input format, as in validate, convert, show and replay; the output is `--reporter` (or `--json`).
 * `--format <output name>` — what it meant before — still selects the output, with a one-line warning.
 */
function outputAndInput(args: Args, io: CliIO): { output: Output; inputFormat?: string } {
  let reporter = args.reporter;
  let inputFormat = args.inputFormat;
  if (isOutput(args.format)) {
    io.stderr.write(
      `ckpt diff: --format ${args.format} is deprecated for the output: use --reporter ${args.format} (--format names the input format, as in the other commands)\n`,
    );
    if (reporter && reporter !== args.format)
      throw usageError(
        `--format ${args.format} (the deprecated output spelling) conflicts with --reporter ${reporter}`,
      );
    reporter = args.format;
  } else if (args.format !== undefined) {
    if (inputFormat && inputFormat !== args.format)
      throw usageError(`--format ${args.format} conflicts with --input-format ${inputFormat}`);
    inputFormat = args.format;
  }
  if (args.json && reporter && reporter !== "json") throw usageError(`--json conflicts with --reporter ${reporter}`);
  return { output: args.json ? "json" : (reporter ?? "text"), inputFormat };
}

/**
 * The native document fits its format's schema: then its canonical form is a valid checkpoint (the
 * formats-conformance tests check every adapter's output) and is not validated again, as in convert. Checking the
 * native document costs about half of checking the canonical one (no ext/layout objects, smaller validators).
 */
function nativeValid(adapter: FormatAdapter, native: unknown, doc: SourceDoc): boolean {
  const validate = getValidator(schemaFor(adapter, native));
  // a bigint can only come from a run of 16+ digits in the source: without one there is nothing to walk for
  return validate?.(doc.text !== undefined && !hasLongDigitRun(doc.text) ? native : toPlainNumbers(native)) === true;
}

/**
 * The diff works on canonical checkpoints: refuse one that is not (exit 3), naming the place. Asked only when the
 * native document does not fit its format's schema: the error is the canonical one, as before. For a ckpt document
 * the pointer is into the file itself and gets a line:column.
 */
function checkCanonical(cp: Checkpoint, doc: SourceDoc, format: string): void {
  const validate = getValidator("Checkpoint")!;
  // a bigint can only come from a run of 16+ digits in the source: without one there is nothing to walk for
  if (validate(doc.text !== undefined && !hasLongDigitRun(doc.text) ? cp : toPlainNumbers(cp))) return;
  const e = validate.errors![0]!;
  const pointer = e.instancePath;
  const params = e.params as Record<string, unknown>;
  let expected = e.message ?? "a valid value";
  if (e.keyword === "type") expected = `${String(params.type)}`;
  else if (e.keyword === "enum")
    expected = `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  else if (e.keyword === "const") expected = JSON.stringify(params.allowedValue);
  else if (e.keyword === "required")
    expected = `a '${(e.params as { missingProperty: string }).missingProperty}' property`;
  else if (e.keyword === "additionalProperties")
    expected = `no property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
  const place = format === "ckpt" && doc.text !== undefined ? jsonLocator(doc.text).locate(pointer) : undefined;
  throw inputError(
    `schema/${e.keyword}`,
    format === "ckpt"
      ? `not a valid ckpt checkpoint: expected ${expected}`
      : `its ${format} content does not map to a valid checkpoint at canonical ${pointer || "/"}: expected ${expected}`,
    {
      file: doc.name,
      ...(format === "ckpt" ? { pointer } : {}),
      ...(place ? { line: place.line, column: place.column } : {}),
    },
  );
}
