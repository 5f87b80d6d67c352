/**
 * `ckpt copy <uri>#<thread>[@<checkpoint>] <uri>#<new-thread>`: a LangGraph thread's whole history (or, with
 * `@<checkpoint>`, its history up to and including that checkpoint: a fork for time travel) under a new thread id,
 * in the same store or another LangGraph store (SQLite ⇄ PostgreSQL), with pending writes and blobs, written and
 * verified by the migrate engine (core/langgraph/copy.ts). Into one of ckpt's own stores the checkpoint (the newest,
 * or the one named) is saved as the new thread's document. A new thread that exists is refused (exit 2) unless
 * `--overwrite` (which deletes it first); `--dry-run` says what would be written and writes nothing.
 */
import type { Argv } from "yargs";
import { usageError } from "../../base/errors.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import { redactUri } from "../../base/redact.js";
import type { CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import type { RedactCounts } from "../../core/scan/redact.js";
import { REDACT_OPTION, redactKinds, redactText, redactedLine } from "../redact.js";

interface Args {
  from: string;
  to: string;
  overwrite: boolean;
  dryRun: boolean;
  json: boolean;
  redact?: string;
}

interface Copied {
  from: string;
  to: string;
  dryRun: boolean;
  /** the fork point, when one was named */
  upTo?: string;
  checkpoints: number;
  writes: number;
  /** the new thread existed and was replaced (--overwrite) */
  replaced: boolean;
}

async function parseEnds(args: Args, io: CliIO) {
  const { splitAddress, parseAddress, parseTarget } = await import("../../savers/address.js");
  if (splitAddress(args.from).fragment === undefined)
    throw usageError(`'${redactUri(args.from)}': name the thread to copy: <store>#<thread>[@<checkpoint>]`);
  if (!splitAddress(args.to).fragment)
    throw usageError(`'${redactUri(args.to)}': name the new thread: <store>#<new-thread>`);
  const where = { cwd: io.cwd, env: io.env };
  const from = parseAddress(args.from, where);
  const to = parseTarget(args.to, where);
  return { from, to, newThread: to.threadId! };
}

export const copyCommand: CommandDef = {
  command: "copy <from> <to>",
  describe: "Copy a thread (or its history up to a checkpoint: a fork) into a new thread id, in this store or another",
  builder: (y: Argv) =>
    y
      .positional("from", { type: "string", describe: "<store>#<thread>[@<checkpoint>]: the thread (and fork point)" })
      .positional("to", { type: "string", describe: "<store>#<new-thread>: where it goes (the same store or another)" })
      .option("overwrite", { type: "boolean", default: false, describe: "replace the new thread when it exists" })
      .option("dry-run", { type: "boolean", default: false, describe: "say what would be written; write nothing" })
      .option("json", { type: "boolean", default: false, describe: "what was (or would be) copied, as JSON" })
      .option("redact", REDACT_OPTION)
      .example("ckpt copy sqlite:cp.sqlite#t1 sqlite:cp.sqlite#t1-copy", "the whole history under a new id")
      .example("ckpt copy sqlite:cp.sqlite#t1@1f0a2b sqlite:cp.sqlite#t1-fork", "a fork at checkpoint 1f0a2b…"),
  run: async (args: Args, io: CliIO) => {
    const { from, to, newThread } = await parseEnds(args, io);
    const kinds = await redactKinds(args.redact);
    const { openStore } = await import("../stores.js");
    const { loadAddress } = await import("../../savers/address.js");
    const source = (await openStore(from.store, { env: io.env, readOnly: true })).engine;
    const label = `${source.uri.redacted}#${printable(from.threadId)}`;
    const forked = from.literal !== undefined || from.selector.kind !== "latest";
    const doc = await loadAddress(source.saver, from, label);
    const target = (
      await openStore(to.store, {
        env: io.env,
        readOnly: false,
        want: source.copiesAs,
        dryRun: args.dryRun,
      })
    ).engine;
    const { requireCap } = await import("../../engines/index.js");
    const { threadTakenError } = await import("../../engines/copy.js");
    requireCap(target, "copy");
    // said at once when the thread is there; the write checks again in the step that writes (another run may take it)
    const there = await target.hasThread(newThread, target.namespaceFor(undefined));
    if (there && !args.overwrite) throw threadTakenError(target.uri.redacted, newThread);
    const upTo = forked ? doc.checkpointId : undefined;
    let text = doc.text;
    const counts: RedactCounts = {};
    const unscanned = { values: 0 };
    // a LangGraph history is copied as its rows: the engine rewrites each row's payloads (core/langgraph/redact-rows.ts)
    if (kinds && !target.caps.history) {
      const r = new (await import("../../core/scan/redact.js")).Redactor(kinds);
      text = await redactText(text, r);
      Object.assign(counts, r.counts);
    }
    const copied = await target.copyIn!({
      source,
      threadId: from.threadId,
      text,
      upTo,
      to: newThread,
      dryRun: args.dryRun,
      overwrite: args.overwrite,
      ...(kinds ? { redact: { kinds, counts, unscanned } } : {}),
    });
    if (kinds) io.stderr.write(`${redactedLine(counts, unscanned.values)}\n`);
    const c: Copied = {
      from: args.from,
      to: newThread,
      dryRun: args.dryRun,
      ...(upTo !== undefined ? { upTo } : {}),
      ...copied,
    };
    if (args.json) io.stdout.write(`${JSON.stringify(c)}\n`);
    else
      io.stdout.write(
        `${args.dryRun ? "dry run: " : ""}copy ${label}${c.upTo ? `@${c.upTo}` : ""} → ${target.uri.redacted}#${printable(newThread)}\n  ${args.dryRun ? "would write" : "wrote"} ${plural(c.checkpoints, "checkpoint")}, ${plural(c.writes, "pending write")}${c.replaced ? ` (${args.dryRun ? "would replace" : "replaced"} the thread that was there)` : ""}\n`,
      );
    return 0;
  },
};
