/**
 * `ckpt convert <in> -t langgraph -o <LangGraph store>[#thread]`: one thread of any format written into a LangGraph
 * SQLite or PostgreSQL store as a new LangGraph thread (one checkpoint, LangChain messages; core/lg-convert.ts), in the
 * JS library's encoding unless `--to-library python` (or the store's own library when it already holds threads). The
 * store is set up as that library's setup() would; the thread must not exist there yet; the row is read back and
 * compared with what was written.
 */
import { ExitCode, usageError } from "../base/errors.js";
import { plural } from "../base/plural.js";
import type { SourceDoc } from "../formats/types.js";
import type { CliIO } from "./io.js";
import { splitThreadRef, SQLITE_PATH_REF } from "./input.js";

/** Whether `-o` names a LangGraph store (a sqlite:/postgres:// URI, or a *.db / *.sqlite path) rather than a file. */
export function isStoreOutput(output: string | undefined): boolean {
  if (output === undefined) return false;
  return (
    /^(sqlite:|postgres(ql)?:\/\/)/i.test(output) || SQLITE_PATH_REF.test(output) || /\.(sqlite3?|db)$/i.test(output)
  );
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

export async function convertIntoLangGraph(doc: SourceDoc, args: StoreConvertArgs, io: CliIO): Promise<number> {
  const { parseLibrary } = await import("./migrate-langgraph.js");
  const { documentToRow, threadTaken } = await import("../core/lg-convert.js");
  const { redactUri: redact } = await import("../base/redact.js");
  const ref = splitThreadRef(args.output);
  if (ref.threadId === "") throw usageError(`-o ${args.output}: the thread id after '#' is empty`);
  const asked = parseLibrary(args.toLibrary);
  const uri = /^(sqlite:|postgres(ql)?:\/\/)/i.test(ref.uri) ? ref.uri : `sqlite:${ref.uri}`;
  const { keyOf } = await import("../savers/langgraph/shared.js");
  const { openStore } = await import("./stores.js");
  // an empty store is set up as a LangGraph store; a dry run into a SQLite file that does not exist yet plans against
  // an empty one and creates nothing
  const opened = await openStore(uri, { readOnly: false, env: io.env, want: "langgraph", dryRun: args.dryRun });
  if (opened.layout !== "langgraph") {
    await opened.saver.close();
    throw usageError(
      `-o ${redact(uri)} holds ckpt's own tables: a LangGraph thread goes into a LangGraph store of its own (another database file or ?schema=)`,
    );
  }
  const store = opened.store;
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
      const { groupLossy } = await import("./convert.js");
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
