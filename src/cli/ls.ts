/**
 * `ckpt ls <URI>`: the threads a saver holds, with step, message count, size and update time (`--json` for NDJSON-free
 * machine output: one JSON array).
 */
import type { Argv } from "yargs";
import { stringifyJson } from "../base/json.js";
import { plural } from "../base/plural.js";
import { readCheckpoint } from "../formats/index.js";
import type { CommandDef } from "./command.js";
import type { CliIO } from "./io.js";

interface Row {
  namespace: string;
  threadId: string;
  format: string | null;
  step: number | bigint | null;
  messages: number | null;
  bytes: number;
  updatedAt: string | null;
  error?: string;
}

export const lsCommand: CommandDef = {
  command: "ls <uri>",
  describe: "List the threads in a saver: step, messages, size, updated time",
  builder: (y: Argv) =>
    y
      .positional("uri", { type: "string", describe: "saver URI (file:<dir>, sqlite:<path>, redis://…, postgres://…) or a folder" })
      .option("namespace", { type: "string", array: true, describe: "namespace(s) to list (default: all)" })
      .option("limit", { type: "number", describe: "at most this many threads per namespace" })
      .option("json", { type: "boolean", default: false, describe: "a JSON array of rows" }),
  run: async (args: { uri: string; namespace?: string[]; limit?: number; json: boolean }, io: CliIO) => {
    const { openSaver } = await import("../savers/index.js");
    const saver = await openSaver(args.uri, { env: io.env, readOnly: true });
    const rows: Row[] = [];
    if ((await import("../savers/index.js")).isLangGraphSaver(saver)) return (await import("./ls-langgraph.js")).lsLangGraph(saver, args, io);
    try {
      for (const ns of args.namespace ?? (await saver.namespaces())) {
        for await (const t of saver.list({ namespace: ns, limit: args.limit })) {
          const text = await saver.load(t.threadId, ns);
          const row: Row = { namespace: ns, threadId: t.threadId, format: null, step: null, messages: null, bytes: t.bytes, updatedAt: t.updatedAt ?? null };
          if (text !== undefined) {
            try {
              const { checkpoint, format } = readCheckpoint({ name: `${saver.uri}#${t.threadId}`, text });
              row.format = format;
              row.step = checkpoint.step;
              row.messages = checkpoint.messages.length;
              row.updatedAt = checkpoint.updatedAt ?? row.updatedAt;
            } catch (e) {
              row.error = (e as Error).message;
            }
          }
          rows.push(row);
        }
      }
    } finally {
      await saver.close();
    }
    if (args.json) {
      io.stdout.write(stringifyJson(rows, 2) + "\n");
      return 0;
    }
    if (rows.length === 0) {
      io.stdout.write(`${saver.uri}: no threads\n`);
      return 0;
    }
    const head = ["NAMESPACE", "THREAD", "FORMAT", "STEP", "MESSAGES", "SIZE", "UPDATED"];
    const table = rows.map((r) => [r.namespace, r.threadId, r.format ?? `? (${r.error ?? "unreadable"})`, r.step ?? "-", r.messages ?? "-", `${r.bytes} B`, r.updatedAt ?? "-"].map(String));
    const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i >= 3 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
    io.stdout.write([line(head), ...table.map(line)].join("\n") + `\n${plural(rows.length, "thread")}\n`);
    return 0;
  },
};
