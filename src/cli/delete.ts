/**
 * `ckpt delete <uri>#<thread>`: delete one thread. A dry run by default: it says what would go (LangGraph stores:
 * checkpoints of every namespace, pending writes, blobs, bytes; ckpt's own savers: the thread's document); `--yes`
 * deletes, in one transaction (LangGraph: the prune's page transaction with the whole thread planned, so its
 * checkpoints are deleted by id and a checkpoint written after the delete started is left alone).
 */
import type { Argv } from "yargs";
import { inputError, usageError } from "../base/errors.js";
import { plural } from "../base/plural.js";
import { printable } from "../base/printable.js";
import { uuid6Floor } from "../core/prune.js";
import type { LangGraphStore, PruneCounts } from "../savers/langgraph/shared.js";
import type { CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import { storeAt } from "./input.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../savers/types.js";

interface Args {
  address: string;
  yes: boolean;
  json: boolean;
}

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

/** The whole thread planned and deleted (or counted) in one transaction. */
async function deleteLangGraph(store: LangGraphStore, threadId: string, dryRun: boolean): Promise<PruneCounts | null> {
  const heads = (await store.heads([threadId])).get(threadId) ?? [];
  if (heads.length === 0) return null;
  const startMark = await store.pruneStart?.();
  return store.prunePage([threadId], (t, hs) => ({ threadId: t, whole: true, remove: hs, keep: 0 }), {
    startId: uuid6Floor(Date.now()),
    startMark,
    dryRun,
  });
}

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
    const { splitAddress, parseFragment } = await import("../savers/address.js");
    const { store: part, fragment } = splitAddress(args.address);
    if (fragment === undefined) throw usageError(`'${args.address}': name the thread to delete: <store>#<thread>`);
    const at = parseFragment(fragment, args.address);
    if (at.literal !== undefined || at.selector.kind !== "latest")
      throw usageError(`'${args.address}': delete removes a whole thread; name it without @<checkpoint>`);
    const dryRun = !args.yes;
    const { openStore } = await import("./stores.js");
    const uri = storeAt(part, io.cwd);
    // a store that is not there (or holds no tables) is an error, never an empty one created on the spot
    const opened = await openStore(uri, { env: io.env, readOnly: dryRun, existing: true });
    const where = `${opened.uri.redacted}#${printable(at.threadId)}`;
    let out: { thread: string; dryRun: boolean; checkpoints: number; writes: number; blobs: number; bytes: number };
    if (opened.layout === "langgraph") {
      let c: PruneCounts | null;
      try {
        c = await deleteLangGraph(opened.store, at.threadId, dryRun);
      } finally {
        await opened.store.close();
      }
      if (!c) throw inputError("no-thread", `no checkpoint for thread '${printable(at.threadId)}'`, { file: where });
      out = {
        thread: at.threadId,
        dryRun,
        checkpoints: c.checkpoints,
        writes: c.writes + c.orphanWrites,
        blobs: c.blobs,
        bytes: c.bytes,
      };
    } else {
      const saver = opened.saver;
      const ns = namespaceOf(opened.uri, undefined) ?? DEFAULT_NAMESPACE;
      try {
        let bytes: number | undefined;
        for await (const t of saver.list({ namespace: ns })) if (t.threadId === at.threadId) bytes = t.bytes;
        if (bytes === undefined || (!dryRun && !(await saver.delete(at.threadId, ns))))
          throw inputError("no-thread", `no checkpoint for thread '${printable(at.threadId)}'`, { file: where });
        out = { thread: at.threadId, dryRun, checkpoints: 1, writes: 0, blobs: 0, bytes };
      } finally {
        await saver.close();
      }
    }
    if (args.json) io.stdout.write(`${JSON.stringify({ uri: opened.uri.redacted, ...out })}\n`);
    else
      io.stdout.write(
        `${dryRun ? "dry run: " : ""}delete ${where}\n  ${dryRun ? "would delete" : "deleted"} ${plural(out.checkpoints, "checkpoint")}, ${plural(out.writes, "write")}, ${plural(out.blobs, "blob")}: ${mb(out.bytes)} of row data${dryRun ? "\n  run again with --yes to delete" : ""}\n`,
      );
    return 0;
  },
};
