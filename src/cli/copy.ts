/**
 * `ckpt copy <uri>#<thread>[@<checkpoint>] <uri>#<new-thread>`: a LangGraph thread's whole history (or, with
 * `@<checkpoint>`, its history up to and including that checkpoint: a fork for time travel) under a new thread id,
 * in the same store or another LangGraph store (SQLite ⇄ PostgreSQL), with pending writes and blobs, written and
 * verified by the migrate engine (core/langgraph/copy.ts). Into one of ckpt's own stores the checkpoint (the newest,
 * or the one named) is saved as the new thread's document. A new thread that exists is refused (exit 2) unless
 * `--overwrite` (which deletes it first); `--dry-run` says what would be written and writes nothing.
 */
import type { Argv } from "yargs";
import { storeError, usageError } from "../base/errors.js";
import { plural } from "../base/plural.js";
import { printable } from "../base/printable.js";
import { uuid6Floor } from "../core/prune.js";
import type { LangGraphStore } from "../savers/langgraph/shared.js";
import type { CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import { storeAt } from "./input.js";
import type { OpenedStore } from "../savers/index.js";

interface Args {
  from: string;
  to: string;
  overwrite: boolean;
  dryRun: boolean;
  json: boolean;
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

/** Delete every row of `threadId` (the prune's page transaction with the whole thread planned). */
async function deleteThread(store: LangGraphStore, threadId: string): Promise<void> {
  const startMark = await store.pruneStart?.();
  await store.prunePage([threadId], (t, hs) => ({ threadId: t, whole: true, remove: hs, keep: 0 }), {
    startId: uuid6Floor(Date.now()),
    startMark,
    dryRun: false,
  });
}

async function existing(target: OpenedStore, threadId: string): Promise<boolean> {
  if (target.layout === "langgraph")
    return (await target.store.hasLayout()) && ((await target.store.heads([threadId])).get(threadId) ?? []).length > 0;
  return (await target.saver.load(threadId)) !== undefined;
}

/** LangGraph → LangGraph: the rows (all, or the fork's), renamed, through the migrate engine. */
async function copyRows(source: LangGraphStore, target: LangGraphStore, c: Copied, threadId: string): Promise<void> {
  const { threadRows, forkRows, copySource } = await import("../core/langgraph/copy.js");
  const all = await threadRows(source, threadId);
  const rows = c.upTo ? forkRows(all, c.upTo) : all;
  c.checkpoints = rows.length;
  c.writes = rows.reduce((n, r) => n + r.writes.length, 0);
  if (c.dryRun) return;
  if (c.replaced) await deleteThread(target, c.to);
  const { migrateLangGraph } = await import("../engines/langgraph/migrate.js");
  const s = await migrateLangGraph(
    copySource(rows, c.to, () => source.library()),
    target,
    { verify: true },
  );
  const bad = s.mismatches.length + s.rejectedRecords.length + s.conflicts.length;
  if (bad || s.aborted)
    throw storeError(
      "copy-failed",
      `copy into ${target.uri}#${c.to}: ${s.aborted ?? `${bad} checkpoint(s) not written as read (mismatch, rejected or conflict)`}`,
    );
}

/** A document under its new thread id (a LangGraph tuple document and ckpt's own name it in `threadId`). */
function renamedDocument(text: string, threadId: string): string {
  const doc = JSON.parse(text) as Record<string, unknown>;
  if (typeof doc.threadId === "string") doc.threadId = threadId;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

async function parseEnds(args: Args) {
  const { splitAddress, parseFragment } = await import("../savers/address.js");
  const from = splitAddress(args.from);
  const to = splitAddress(args.to);
  if (from.fragment === undefined)
    throw usageError(`'${args.from}': name the thread to copy: <store>#<thread>[@<checkpoint>]`);
  if (to.fragment === undefined || to.fragment === "")
    throw usageError(`'${args.to}': name the new thread: <store>#<new-thread>`);
  const at = parseFragment(from.fragment, args.from);
  const newThread = decodeURIComponent(to.fragment);
  return { from, to, at, newThread };
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
      .example("ckpt copy sqlite:cp.sqlite#t1 sqlite:cp.sqlite#t1-copy", "the whole history under a new id")
      .example("ckpt copy sqlite:cp.sqlite#t1@1f0a2b sqlite:cp.sqlite#t1-fork", "a fork at checkpoint 1f0a2b…"),
  run: async (args: Args, io: CliIO) => {
    const { from, to, at, newThread } = await parseEnds(args);
    const { openStore } = await import("./stores.js");
    const { loadAddress } = await import("../savers/address.js");
    const source = await openStore(storeAt(from.store, io.cwd), { env: io.env, readOnly: true });
    const label = `${source.uri.redacted}#${printable(at.threadId)}`;
    const forked = at.literal !== undefined || at.selector.kind !== "latest";
    const doc = await loadAddress(source.saver, { store: source.uri, ...at }, label);
    const c: Copied = {
      from: args.from,
      to: newThread,
      dryRun: args.dryRun,
      ...(forked ? { upTo: doc.checkpointId } : {}),
      checkpoints: 1,
      writes: 0,
      replaced: false,
    };
    const target = await openStore(storeAt(to.store, io.cwd), {
      env: io.env,
      readOnly: false,
      want: source.layout === "langgraph" ? "langgraph" : "ckpt",
      dryRun: args.dryRun,
    });
    if (target.layout === "langgraph" && source.layout !== "langgraph")
      throw usageError(
        `${target.uri.redacted} is a LangGraph store and ${source.uri.redacted} is not: a document becomes a LangGraph thread with ckpt migrate --to-format langgraph`,
      );
    if (await existing(target, newThread)) {
      if (!args.overwrite)
        throw usageError(
          `${target.uri.redacted}#${printable(newThread)} exists: name another thread, or --overwrite to replace it`,
        );
      c.replaced = true;
    }
    if (source.layout === "langgraph" && target.layout === "langgraph")
      await copyRows(source.store, target.store, c, at.threadId);
    else if (!args.dryRun) await target.saver.save(newThread, renamedDocument(doc.text, newThread));
    if (args.json) io.stdout.write(`${JSON.stringify(c)}\n`);
    else
      io.stdout.write(
        `${args.dryRun ? "dry run: " : ""}copy ${label}${c.upTo ? `@${c.upTo}` : ""} → ${target.uri.redacted}#${printable(newThread)}\n  ${args.dryRun ? "would write" : "wrote"} ${plural(c.checkpoints, "checkpoint")}, ${plural(c.writes, "pending write")}${c.replaced ? ` (${args.dryRun ? "would replace" : "replaced"} the thread that was there)` : ""}\n`,
      );
    return 0;
  },
};
