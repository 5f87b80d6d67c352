/**
 * `ckpt delete <uri>#<thread>`: delete one thread; `ckpt delete <uri> --resource|--user|--match|--where`: erase
 * everything of one owner (engines' `eraseOwner`, the criteria a layout erases by in `erasesBy`). A dry run by default: it says what would go (LangGraph stores:
 * checkpoints of every namespace, pending writes, blobs, bytes; ckpt's own savers: the thread's document); `--yes`
 * deletes, in one transaction (LangGraph: the prune's page transaction with the whole thread planned, so its
 * checkpoints are deleted by id and a checkpoint written after the delete started is left alone).
 */
import type { Argv } from "yargs";
import { inputError, usageError } from "../../base/errors.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import type { CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import type { Engine, Owner } from "../../engines/types.js";

interface Args {
  address: string;
  yes: boolean;
  json: boolean;
  resource?: string;
  user?: string;
  match?: string[];
  where?: string[];
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

export const deleteCommand: CommandDef = {
  command: "delete <address>",
  describe:
    "Delete one thread (every row of it), or erase everything of one user (--resource, --user, --match, --where); a dry run unless --yes",
  builder: (y: Argv) =>
    y
      .positional("address", {
        type: "string",
        describe: "<store>#<thread>: the thread to delete; <store> with --resource, --user, --match or --where",
      })
      .option("resource", {
        type: "string",
        describe:
          "Mastra: erase the resource: its row (working memory), every thread of it and every row of those, every row naming it",
      })
      .option("user", {
        type: "string",
        describe:
          "Chat SDK template: erase the user: their chats with every row of them, their documents and suggestions, and the User row itself",
      })
      .option("match", {
        type: "string",
        array: true,
        describe: "LangGraph: erase every thread whose id matches this glob",
      })
      .option("where", {
        type: "string",
        array: true,
        describe: "LangGraph: erase every thread with a checkpoint whose metadata has key=value (e.g. user_id=42)",
      })
      .option("yes", { type: "boolean", default: false, describe: "delete (without it: say what would go)" })
      .option("json", {
        type: "boolean",
        default: false,
        describe: "what went (or would go) as JSON: with an owner, an erasure record (criteria, time, threads, tables)",
      })
      .example("ckpt delete sqlite:checkpoints.sqlite#thread-1", "what deleting thread-1 would remove")
      .example("ckpt delete sqlite:checkpoints.sqlite#thread-1 --yes", "delete it")
      .example(
        "ckpt delete sqlite:mastra.db --resource user-42 --yes --json",
        "erase a Mastra resource, keep the record",
      )
      .example(
        "ckpt delete sqlite:checkpoints.sqlite --where user_id=42",
        "what erasing user 42's LangGraph threads would remove",
      ),
  run: async (args: Args, io: CliIO) => {
    const { splitAddress, parseAddress } = await import("../../savers/address.js");
    const owner = ownerOf(args);
    if (owner) return eraseOwner(args, owner, io);
    if (splitAddress(args.address).fragment === undefined)
      throw usageError(
        `'${args.address}': name the thread to delete: <store>#<thread>, or whose data to erase: --resource, --user, --match, --where`,
      );
    const at = parseAddress(args.address, { cwd: io.cwd, env: io.env });
    if (at.literal !== undefined || at.selector.kind !== "latest")
      throw usageError(`'${args.address}': delete removes a whole thread; name it without @<checkpoint>`);
    const dryRun = !args.yes;
    const { openStore } = await import("../stores.js");
    // a store that is not there (or holds no tables) is an error, never an empty one created on the spot
    const { engine } = await openStore(at.store, { env: io.env, readOnly: dryRun, existing: true });
    const { requireCap } = await import("../../engines/index.js");
    requireCap(engine, "delete");
    const where = `${engine.uri.redacted}#${printable(at.threadId)}`;
    const c = await engine.deleteThread!(at.threadId, dryRun);
    await engine.close();
    if (!c) throw inputError("no-thread", `no checkpoint for thread '${printable(at.threadId)}'`, { file: where });
    const out = { thread: at.threadId, dryRun, ...c };
    if (args.json) io.stdout.write(`${JSON.stringify({ uri: engine.uri.redacted, ...out })}\n`);
    else if ("tables" in c) {
      const rows = c.tables.reduce((n, t) => n + t.rows, 0);
      const w = Math.max(...c.tables.map((t) => t.table.length));
      io.stdout.write(
        `${dryRun ? "dry run: " : ""}delete ${where}\n  ${dryRun ? "would delete" : "deleted"} ${plural(rows, "row")}:\n${c.tables.map((t) => `    ${t.table.padEnd(w)}  ${t.rows}\n`).join("")}${(c.notes ?? []).map((n) => `  note: ${n}\n`).join("")}${dryRun ? "  run again with --yes to delete\n" : ""}`,
      );
    } else
      io.stdout.write(
        `${dryRun ? "dry run: " : ""}delete ${where}\n  ${dryRun ? "would delete" : "deleted"} ${plural(c.checkpoints, "checkpoint")}, ${plural(c.writes, "write")}, ${plural(c.blobs, "blob")}: ${mb(c.bytes)} of row data\n${(c.notes ?? []).map((n) => `  note: ${n}\n`).join("")}${dryRun ? "  run again with --yes to delete\n" : ""}`,
      );
    return 0;
  },
};

/** The owner criteria given, checked (`--where key=value`); undefined: none (a thread is deleted). */
function ownerOf(args: Args): Owner | undefined {
  const o: Owner = {};
  if (args.resource !== undefined) o.resource = String(args.resource);
  if (args.user !== undefined) o.user = String(args.user);
  if (args.match?.length) o.match = args.match.map(String);
  if (args.where?.length)
    o.where = args.where.map((w) => {
      const i = String(w).indexOf("=");
      if (i <= 0) throw usageError(`--where ${w}: expected key=value (a checkpoint metadata key and its value)`);
      return { key: String(w).slice(0, i), value: String(w).slice(i + 1) };
    });
  return Object.keys(o).length ? o : undefined;
}

/** `ckpt delete <store> --resource|--user|--match|--where`: an erasure, and its record. */
async function eraseOwner(args: Args, owner: Owner, io: CliIO): Promise<number> {
  const { splitAddress, parseStore } = await import("../../savers/address.js");
  if (splitAddress(args.address).fragment !== undefined)
    throw usageError(
      `'${args.address}': name the store alone with ${Object.keys(owner)
        .map((k) => `--${k}`)
        .join(", ")} (a thread is deleted with <store>#<thread> and no criteria)`,
    );
  const uri = parseStore(args.address, { cwd: io.cwd, env: io.env });
  const dryRun = !args.yes;
  const at = new Date().toISOString();
  const { openStore } = await import("../stores.js");
  const { engine } = await openStore(uri, { env: io.env, readOnly: dryRun, existing: true });
  const { requireCap, requireErasure } = await import("../../engines/index.js");
  try {
    requireCap(engine, "delete");
    requireErasure(engine, owner);
  } catch (e) {
    await engine.close();
    throw e;
  }
  const where = engine.uri.redacted;
  let c: Awaited<ReturnType<NonNullable<Engine["eraseOwner"]>>>;
  try {
    c = await engine.eraseOwner!(owner, dryRun);
  } finally {
    await engine.close();
  }
  const said = describeOwner(owner);
  if (!c) throw inputError("no-owner", `nothing in the store belongs to ${said}`, { file: where });
  if (args.json) {
    io.stdout.write(
      `${JSON.stringify({ uri: where, dryRun, criteria: owner, at, threads: c.threads ?? [], tables: c.tables, ...(c.kept ? { kept: c.kept } : {}), ...(c.notes ? { notes: c.notes } : {}) })}\n`,
    );
    return 0;
  }
  const rows = c.tables.reduce((n, t) => n + t.rows, 0);
  const w = Math.max(...c.tables.map((t) => t.table.length));
  const threads = c.threads ?? [];
  io.stdout.write(
    `${dryRun ? "dry run: " : ""}erase ${said} in ${where} (${at})\n  ${plural(threads.length, "thread")}${threads.length ? `: ${threads.map((t) => printable(t)).join(", ")}` : ""}\n  ${dryRun ? "would delete" : "deleted"} ${plural(rows, "row")}:\n${c.tables.map((t) => `    ${t.table.padEnd(w)}  ${t.rows}\n`).join("")}${(c.notes ?? []).map((n) => `  note: ${n}\n`).join("")}${dryRun ? "  run again with --yes to delete\n" : ""}`,
  );
  return 0;
}

/** The criteria in words: "resource 'alice'", "threads matching 'user-*' with metadata user_id=42". */
function describeOwner(o: Owner): string {
  const parts = [
    ...(o.resource !== undefined ? [`resource '${printable(o.resource)}'`] : []),
    ...(o.user !== undefined ? [`user '${printable(o.user)}'`] : []),
    ...(o.match ? [`threads matching ${o.match.map((m) => `'${printable(m)}'`).join(" or ")}`] : []),
    ...(o.where
      ? [`threads with metadata ${o.where.map((x) => `${printable(x.key)}=${printable(x.value)}`).join(" and ")}`]
      : []),
  ];
  return parts.join(", ");
}
