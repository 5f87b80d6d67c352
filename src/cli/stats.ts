/**
 * `ckpt stats <uri>`: where a store's bytes are, with a one-line answer on top. LangGraph stores (SQLite and
 * PostgreSQL, Python- or JS-written): bytes per table, checkpoints vs metadata vs writes vs blobs, per channel, per
 * message class, message bytes repeated across checkpoints, top threads, growth per day (core/langgraph/stats.ts). ckpt's own
 * savers: bytes per namespace, per format, per day, top threads (core/saver-stats.ts). Mastra stores: the memory
 * tables, contents by role, part type and tool, resources with working memory, top threads (core/mastra-stats.ts).
 * Read-only and streamed;
 * `--json` prints the report (schemas/StatsReport.json).
 */
import type { Argv } from "yargs";
import { usageError } from "../base/errors.js";
import type { LangGraphStatsReport, MastraStatsReport, SaverStatsReport } from "../generated/types.js";
import { intOption, threadFilter, type CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import { namespaceOf } from "../savers/types.js";
import { storeAt } from "./input.js";
import type { LangGraphStore } from "../savers/langgraph/shared.js";
import type { OpenedStore } from "../savers/index.js";
import { openStore } from "./stores.js";

interface Args {
  uri: string;
  top: number;
  thread?: string[];
  match?: string[];
  namespace?: string[];
  json: boolean;
  allowlist: boolean;
}

/** A LangGraph store's report: its rows a page of threads at a time, then its tables' sizes. */
async function statsLangGraph(
  args: Args,
  src: LangGraphStore,
  filter: ((t: string) => boolean) | undefined,
): Promise<LangGraphStatsReport> {
  const { createLgStats } = await import("../core/langgraph/stats.js");
  const t0 = performance.now();
  const acc = createLgStats({
    top: args.top,
    store: src.kind,
    uri: src.uri,
    storedMethod: src.storedMethod,
    filter: { threads: args.thread, match: args.match },
  });
  // only --thread: those ids are looked up directly; with --match every thread id is read and filtered
  const only = args.thread?.length && !args.match?.length ? args.thread : undefined;
  for await (const batch of src.rows({ accept: filter, only })) acc.add(batch);
  const report = acc.report(await src.tables(), performance.now() - t0);
  const files = src.files?.();
  return files ? { ...report, files } : report;
}

async function statsSaver(
  args: Args,
  opened: OpenedStore,
  filter: ((t: string) => boolean) | undefined,
): Promise<SaverStatsReport> {
  const flagNs = args.namespace?.length === 1 ? args.namespace[0] : undefined;
  const uriNs = namespaceOf(opened.uri, flagNs);
  const saver = opened.saver;
  const { createSaverStats } = await import("../core/saver-stats.js");
  const t0 = performance.now();
  const acc = createSaverStats({ top: args.top, uri: saver.uri, filter: { threads: args.thread, match: args.match } });
  try {
    for (const ns of uriNs !== undefined ? [uriNs] : (args.namespace ?? (await saver.namespaces()))) {
      let page: Array<{ threadId: string; bytes: number; updatedAt?: string }> = [];
      const flush = async () => {
        const texts = await saver.loadMany(page.map((t) => ({ namespace: ns, threadId: t.threadId })));
        page.forEach((t, i) =>
          acc.add({ namespace: ns, threadId: t.threadId, bytes: t.bytes, updatedAt: t.updatedAt, text: texts[i] }),
        );
        page = [];
      };
      for await (const t of saver.list({ namespace: ns })) {
        if (filter && !filter(t.threadId)) continue;
        page.push(t);
        if (page.length >= 200) await flush();
      }
      if (page.length) await flush();
    }
  } finally {
    await saver.close();
  }
  return acc.report(performance.now() - t0);
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
    args.uri = storeAt(args.uri, io.cwd);
    const filter = await threadFilter(args);
    const opened = await openStore(args.uri, { readOnly: true, env: io.env });
    let r: LangGraphStatsReport | SaverStatsReport | MastraStatsReport;
    try {
      if (opened.layout === "mastra" && (args.namespace?.length || args.allowlist))
        throw usageError(
          args.allowlist
            ? "--allowlist audits a LangGraph store's msgpack values; a Mastra store holds JSON"
            : "--namespace applies to ckpt's own savers; a Mastra store's threads belong to resources",
        );
      if (args.allowlist && opened.layout !== "langgraph")
        throw usageError(
          "--allowlist audits a LangGraph store's msgpack values; ckpt's own savers store no Python classes",
        );
      if (opened.layout === "langgraph" && args.namespace?.length)
        throw usageError(
          "--namespace applies to ckpt's own savers; a LangGraph store's threads are measured with every checkpoint namespace",
        );
      r =
        opened.layout === "langgraph"
          ? await statsLangGraph(args, opened.store, filter)
          : opened.layout === "mastra"
            ? await (await import("../core/mastra-stats.js")).mastraStats(opened.store, {
                top: args.top,
                accept: filter,
                filter: { threads: args.thread, match: args.match },
              })
            : await statsSaver(args, opened, filter);
    } finally {
      await opened.saver.close();
    }
    const { renderLgStats, renderSaverStats, renderAllowlist, renderMastraStats } = await import("./stats-render.js");
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
            : renderSaverStats(r),
    );
    return 0;
  },
};
