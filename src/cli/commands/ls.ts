/**
 * `ckpt ls <URI>`: the threads a store holds — one row per thread, in the columns its layout lists (the engine's
 * listing: engines/<layout>/), streamed as a table or (`--json`) one JSON array. `ckpt ls <store>#<thread>` lists a
 * thread's checkpoint namespaces, in a layout that has them (LangGraph's subgraphs).
 */
import { existsSync } from "node:fs";
import type { Argv } from "yargs";
import { usageError } from "../../base/errors.js";
import { stringifyJson } from "../../base/json.js";
import type { Engine, Listing } from "../../engines/types.js";
import { namespaceOf } from "../../savers/types.js";
import { intOption, type CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import { openStore } from "../stores.js";
import { streamTable } from "../render/table.js";

/** A listing as the user asked for it: a JSON array (2-space indented), or a table streamed with the line under it. */
async function printListing(l: Listing, json: boolean, io: CliIO): Promise<number> {
  let n = 0;
  if (json) {
    let buf = "[";
    for await (const r of l.rows) {
      // as JSON.stringify(rows, null, 2) prints the array, a row at a time
      buf += (n++ ? ",\n" : "\n") + stringifyJson(l.json(r), 2).replace(/^/gm, "  ");
      if (buf.length > 65536) io.stdout.write(buf), (buf = "");
    }
    io.stdout.write(`${buf}${n ? "\n]\n" : "]\n"}`);
    return 0;
  }
  // widths from the first rows (streamed: memory stays bounded)
  const table = streamTable(l.head, l.right, (text) => io.stdout.write(text));
  for await (const r of l.rows) table.row(l.cells(r));
  table.end();
  io.stdout.write(`${await l.footer(table.count)}\n`);
  return 0;
}

export const lsCommand: CommandDef = {
  command: "ls <uri>",
  describe: "List the threads in a saver: step, messages, size, updated time",
  builder: (y: Argv) =>
    y
      .positional("uri", {
        type: "string",
        describe: "saver URI (file:<dir>, sqlite:<path>, redis://…, postgres://…) or a folder",
      })
      .option("namespace", {
        type: "string",
        array: true,
        describe: "namespace(s) to list, when the URI has no ?namespace= (default: all)",
      })
      .option("limit", { type: "number", describe: "at most this many threads per namespace" })
      .option("json", { type: "boolean", default: false, describe: "a JSON array of rows" })
      .example("ckpt ls ./.checkpoints", "a deep-agent FileSaver folder")
      .example("ckpt ls sqlite:./ckpt.db --json", "every thread of a SQLite store, as JSON")
      .example("ckpt ls 'redis://127.0.0.1:6379?namespace=prod' --limit 20", "one namespace of a Redis store")
      .example("ckpt ls postgres://localhost/app --namespace a --namespace b", "two namespaces of a PostgreSQL store"),
  run: async (args: { uri: string; namespace?: string[]; limit?: number; json: boolean }, io: CliIO) => {
    // one namespace rule for every command: the URI's ?namespace=, else --namespace, else every namespace
    intOption(args.limit, "--limit");
    const flagNs = args.namespace?.length === 1 ? args.namespace[0] : undefined;
    const { parseStore, parseTarget } = await import("../../savers/address.js");
    const where = { cwd: io.cwd, env: io.env };
    // `<store>#<thread>`: the thread's checkpoint namespaces (the root graph and its subgraphs), where a layout has them
    const target = parseTarget(args.uri, where);
    // (only a SQLite file that exists or a PostgreSQL database can hold them; anything else is the usage error below)
    const s = target.threadId !== undefined ? target.store : undefined;
    if (s && ((s.kind === "sqlite" && existsSync(s.location)) || s.kind === "postgres")) {
      const { engine } = await openStore(s, { readOnly: true, env: io.env });
      if (engine.caps.subgraphs && "threadNamespaces" in engine) {
        const ns = namespaceOf(s, flagNs);
        if (ns === undefined && args.namespace && args.namespace.length > 1)
          throw usageError("a thread's namespaces: give at most one --namespace");
        const lg = engine as Engine & { threadNamespaces(t: string, ns?: string): Promise<Listing> };
        return printListing(await lg.threadNamespaces(target.threadId!, ns), args.json, io);
      }
      await engine.close();
    }
    // parsed once; a thread that is no LangGraph thread is named where the store is expected: a usage error
    const u = target.threadId === undefined ? target.store : parseStore(args.uri, where);
    const uriNs = namespaceOf(u, flagNs);
    if (uriNs !== undefined && args.namespace && args.namespace.length > 1)
      throw usageError(
        `namespace given twice: '${uriNs}' in the URI and --namespace ${args.namespace.join(" ")}; keep one`,
      );
    const { engine } = await openStore(u, { readOnly: true, env: io.env });
    const { requireCap } = await import("../../engines/index.js");
    if (uriNs !== undefined || args.namespace?.length) requireCap(engine, "namespaces");
    const listing = await engine.listing({
      namespaces: uriNs !== undefined ? [uriNs] : args.namespace,
      limit: args.limit,
    });
    return printListing(listing, args.json, io);
  },
};
