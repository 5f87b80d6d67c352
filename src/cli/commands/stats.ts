/**
 * `ckpt stats <uri>`: where a store's bytes are, with a one-line answer on top. LangGraph stores (SQLite and
 * PostgreSQL, Python- or JS-written): bytes per table, checkpoints vs metadata vs writes vs blobs, per channel, per
 * message class, message bytes repeated across checkpoints, top threads, growth per day (core/langgraph/stats.ts). ckpt's own
 * savers: bytes per namespace, per format, per day, top threads (core/saver-stats.ts). Mastra stores: the memory
 * tables, contents by role, part type and tool, resources with working memory, top threads (core/mastra/stats.ts).
 * Read-only and streamed;
 * `--json` prints the report (schemas/StatsReport.json).
 */
import type { Argv } from "yargs";
import { intOption, threadFilter, type CommandDef } from "../command.js";
import type { CliIO } from "../io.js";
import { namespaceOf } from "../../savers/types.js";
import { openStore } from "../stores.js";

interface Args {
  uri: string;
  top: number;
  thread?: string[];
  match?: string[];
  namespace?: string[];
  json: boolean;
  allowlist: boolean;
}

export const statsCommand: CommandDef = {
  command: "stats <uri>",
  describe:
    "Where a store's bytes are: tables, channels, message classes, repeated payload, top threads, growth per day",
  builder: (y: Argv) =>
    y
      .positional("uri", {
        type: "string",
        describe: "store URI: sqlite:<path>, postgres://…?schema= (LangGraph or ckpt's own), redis://…, file:<dir>",
      })
      .option("top", { type: "number", default: 10, describe: "how many threads, channels and days to list" })
      .option("thread", { type: "string", array: true, describe: "only these threads" })
      .option("match", { type: "string", array: true, describe: "only threads whose id matches this glob" })
      .option("namespace", {
        type: "string",
        array: true,
        describe: "ckpt's own savers: namespace(s) to measure (default: all)",
      })
      .option("json", { type: "boolean", default: false, describe: "the report as JSON (schemas/StatsReport.json)" })
      .option("allowlist", {
        type: "boolean",
        default: false,
        describe:
          "LangGraph (Python) stores: print a ready allowed_msgpack_modules value for the classes outside strict mode's default allowlist (with --json: the [module, name] pairs)",
      })
      .example("ckpt stats checkpoints.sqlite", "why is my LangGraph database this big?")
      .example(
        "ckpt stats 'postgres://localhost/app?schema=public' --top 20",
        "a LangGraph PostgreSQL store: top 20 threads, channels and days",
      )
      .example("ckpt stats sqlite:checkpoints.db --match 'user-42-*' --json", "only some threads, as JSON")
      .example(
        "ckpt stats checkpoints.sqlite --allowlist",
        "the allowed_msgpack_modules LangGraph's strict msgpack mode needs for this store",
      )
      .example(
        "ckpt stats redis://127.0.0.1:6379 --namespace prod",
        "ckpt's own Redis store: bytes per format and thread",
      ),
  run: async (args: Args, io: CliIO) => {
    intOption(args.top, "--top");
    const { parseStore } = await import("../../savers/address.js");
    const uri = parseStore(args.uri, { cwd: io.cwd, env: io.env });
    const filter = await threadFilter(args);
    const { engine } = await openStore(uri, { readOnly: true, env: io.env });
    const { requireCap } = await import("../../engines/index.js");
    if (args.allowlist) requireCap(engine, "msgpack", "--allowlist audits a LangGraph store's msgpack values");
    if (args.namespace?.length)
      requireCap(
        engine,
        "namespaces",
        engine.caps.subgraphs
          ? "a LangGraph store's threads are measured with every checkpoint namespace"
          : "--namespace",
      );
    const flagNs = args.namespace?.length === 1 ? args.namespace[0] : undefined;
    const uriNs = namespaceOf(engine.uri, flagNs);
    const r = await engine.stats({
      top: args.top,
      namespaces: uriNs !== undefined ? [uriNs] : args.namespace,
      thread: args.thread,
      match: args.match,
      accept: filter,
    });
    await engine.close();
    const { renderLgStats, renderSaverStats, renderAllowlist, renderMastraStats } = await import("../render/stats.js");
    if (args.allowlist && r.kind === "langgraph") {
      const a = r.msgpackAudit;
      const pairs = a.types.filter((t) => !t.allowed && t.ext !== 3).map((t) => [t.module, t.name]);
      io.stdout.write(args.json ? `${JSON.stringify(pairs)}\n` : renderAllowlist(a));
      if (a.encrypted || a.unscannable)
        io.stderr.write(
          `ckpt stats: the list may be incomplete: ${a.encrypted} encrypted and ${a.unscannable} damaged values were not scanned\n`,
        );
      return 0;
    }
    io.stdout.write(
      args.json
        ? JSON.stringify(r, null, 2) + "\n"
        : r.kind === "langgraph"
          ? renderLgStats(r, args.top)
          : r.kind === "mastra"
            ? renderMastraStats(r)
            : renderSaverStats(r, engine.statsLabel),
    );
    return 0;
  },
};
