/**
 * `ckpt log <store>#<thread>`: a thread's checkpoint history, newest first — id, parent, step, source, time, the
 * node(s) that wrote it, message count, stored size (`--json`: a JSON array). LangGraph stores keep every checkpoint;
 * ckpt's own stores keep one per thread, so their history has one entry. Streams: rows are printed as they are read.
 */
import { plural } from "../../base/plural.js";
import type { Argv } from "yargs";
import { usageError } from "../../base/errors.js";
import type { LgHistoryEntry } from "../../formats/langgraph/types.js";
import { intOption, type CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import { noThreadError } from "../input.js";
import { streamTable, tableTime } from "../render/table.js";

const HEAD = ["CHECKPOINT", "PARENT", "STEP", "SOURCE", "TIME", "NODE", "MESSAGES", "SIZE", "PENDING"];
/** Printed under the table when a PENDING cell carries the mark. */
export const INTERRUPT_LEGEND =
  "! an interrupt was raised at this checkpoint (an __interrupt__ pending write; ckpt view shows whether a resume answered it)";

function cells(e: LgHistoryEntry): string[] {
  return [
    e.checkpointId,
    e.parentId ?? "-",
    e.step === null ? "-" : String(e.step),
    e.source ?? "-",
    tableTime(e.ts),
    e.nodes.length ? e.nodes.join(",") : "-",
    e.messages === null ? "-" : String(e.messages),
    `${e.bytes} B`,
    e.pendingWrites ? `${e.pendingWrites}${e.interrupted ? " !" : ""}` : "-",
  ];
}

const RIGHT = new Set([2, 6, 7]);

export const logCommand: CommandDef = {
  command: "log <address>",
  describe: "History of a thread, newest first: id, parent, step, source, time, node, messages, size",
  builder: (y: Argv) =>
    y
      .positional("address", {
        type: "string",
        describe: "<store-uri>#<thread> (a LangGraph SQLite/PostgreSQL store, or any ckpt store)",
      })
      .option("namespace", {
        type: "string",
        describe:
          "LangGraph stores: the checkpoint_ns (default: the root graph, ''); ckpt's stores: the namespace, when the URI has no ?namespace= (default: 'default')",
      })
      .option("limit", { type: "number", describe: "at most this many checkpoints" })
      .option("json", { type: "boolean", default: false, describe: "a JSON array of entries" })
      .example("ckpt log checkpoints.sqlite#thread-1", "every checkpoint of a LangGraph thread")
      .example("ckpt show 'checkpoints.sqlite#thread-1@~2'", "then look at one (also @<id prefix>, @latest)"),
  run: async (args: { address: string; namespace?: string; limit?: number; json: boolean }, io: CliIO) => {
    intOption(args.limit, "--limit");
    const { parseAddress, settleAddress } = await import("../../savers/address.js");
    const given = parseAddress(args.address, { env: io.env, cwd: io.cwd });
    const { openStore } = await import("../stores.js");
    const { historyOf } = await import("../../savers/address.js");
    const { engine } = await openStore(given.store, { readOnly: true, env: io.env });
    const saver = engine.saver;
    // the engine's namespace rule (ckpt's stores: the URI's ?namespace=, else --namespace, else 'default'; a
    // LangGraph store: --namespace is the checkpoint namespace, else the root graph)
    const namespace = engine.namespaceFor(args.namespace);
    // a thread id holding '@' (user@cafe) is the thread when the part before the '@' names none
    const a = await settleAddress(saver, given, namespace).catch(async (e) => {
      await saver.close();
      throw e;
    });
    if (
      a.selector.kind !== "latest" ||
      // '@latest' named (a selector split off the thread, and the thread is not the whole fragment)
      (a === given && given.literal !== undefined)
    ) {
      await saver.close();
      throw usageError(`'${args.address}': ckpt log takes <store>#<thread> (the whole history), not one checkpoint`);
    }
    let n = 0;
    let buf = "";
    const flush = (force = false) => {
      if (force || buf.length > 65536) io.stdout.write(buf), (buf = "");
    };
    // widths from the first rows, then streamed
    const table = streamTable(HEAD, RIGHT, (text) => {
      buf += text;
      flush();
    });
    let marked = false;
    try {
      const limit = args.limit ?? Infinity;
      if (args.json) buf += "[";
      for await (const e of historyOf(saver, a.threadId, namespace)) {
        if (n >= limit) break;
        if (args.json) buf += (n ? ",\n" : "\n") + JSON.stringify(e);
        else table.row(cells(e));
        marked ||= e.interrupted && e.pendingWrites > 0;
        n++;
        flush();
      }
      table.end();
      if (n === 0 && !engine.caps.history) throw await noThreadError(saver, a.threadId, namespace!);
    } finally {
      await saver.close();
    }
    if (args.json) buf += n ? "\n]\n" : "]\n";
    else if (n === 0) {
      flush(true);
      const { inputError } = await import("../../base/errors.js");
      throw inputError("no-thread", `no checkpoint for thread '${a.threadId}'`, { file: a.store.redacted });
    } else
      buf += `${plural(n, "checkpoint")}
${
  marked
    ? `${INTERRUPT_LEGEND}
`
    : ""
}`;
    flush(true);
    return 0;
  },
};
