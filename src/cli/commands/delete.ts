/**
 * `ckpt delete <uri>#<thread>`: delete one thread. A dry run by default: it says what would go (LangGraph stores:
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

interface Args {
  address: string;
  yes: boolean;
  json: boolean;
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

export const deleteCommand: CommandDef = {
  command: "delete <address>",
  describe: "Delete one thread (all its checkpoints, writes and blobs); a dry run unless --yes",
  builder: (y: Argv) =>
    y
      .positional("address", { type: "string", describe: "<store>#<thread>: the thread to delete" })
      .option("yes", { type: "boolean", default: false, describe: "delete (without it: say what would go)" })
      .option("json", { type: "boolean", default: false, describe: "what went (or would go) as JSON" })
      .example("ckpt delete sqlite:checkpoints.sqlite#thread-1", "what deleting thread-1 would remove")
      .example("ckpt delete sqlite:checkpoints.sqlite#thread-1 --yes", "delete it"),
  run: async (args: Args, io: CliIO) => {
    const { splitAddress, parseAddress } = await import("../../savers/address.js");
    if (splitAddress(args.address).fragment === undefined)
      throw usageError(`'${args.address}': name the thread to delete: <store>#<thread>`);
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
        `${dryRun ? "dry run: " : ""}delete ${where}\n  ${dryRun ? "would delete" : "deleted"} ${plural(c.checkpoints, "checkpoint")}, ${plural(c.writes, "write")}, ${plural(c.blobs, "blob")}: ${mb(c.bytes)} of row data${dryRun ? "\n  run again with --yes to delete" : ""}\n`,
      );
    return 0;
  },
};
