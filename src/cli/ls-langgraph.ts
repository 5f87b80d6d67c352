/**
 * `ckpt ls` of a LangGraph store: one row per thread (root-namespace checkpoints, newest step, messages of the newest
 * checkpoint, stored bytes incl. writes and blobs, last update, subgraph namespaces), printed as the store streams
 * them: memory does not grow with the number of threads or checkpoints.
 */
import { plural } from "../base/plural.js";
import type { LangGraphSaver } from "../savers/index.js";
import type { LgThreadSummary } from "../formats/langgraph/types.js";
import type { CliIO } from "./io.js";

const HEAD = ["THREAD", "CHECKPOINTS", "STEP", "MESSAGES", "SIZE", "UPDATED", "SUBGRAPHS", "WRITER"];

function cells(t: LgThreadSummary): string[] {
  return [
    t.threadId,
    String(t.checkpoints),
    t.newestStep === null ? "-" : String(t.newestStep),
    t.messages === null ? "-" : String(t.messages),
    `${t.bytes} B`,
    t.updatedAt ?? "-",
    t.namespaces ? `${t.namespaces} ns, ${t.subgraphCheckpoints} cp` : "-",
    t.library,
  ];
}

export async function lsLangGraph(
  saver: LangGraphSaver,
  args: { limit?: number; json: boolean },
  io: CliIO,
): Promise<number> {
  let n = 0;
  try {
    const threads = saver.langgraph.threads({ limit: args.limit });
    if (args.json) {
      io.stdout.write("[");
      for await (const t of threads)
        io.stdout.write((n++ ? ",\n" : "\n") + JSON.stringify({ layout: "langgraph", ...t }));
      io.stdout.write(n ? "\n]\n" : "]\n");
      return 0;
    }
    // fixed widths (streamed: the longest id is unknown up front); a longer thread id just pushes its row
    const widths = [24, 11, 5, 8, 12, 32, 14, 7];
    const line = (c: string[]) =>
      c
        .map((x, i) => (i >= 1 && i <= 4 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd() + "\n";
    let buf = "";
    for await (const t of threads) {
      if (n++ === 0) buf += line(HEAD);
      buf += line(cells(t));
      if (buf.length > 65536) io.stdout.write(buf), (buf = "");
    }
    io.stdout.write(
      buf +
        (n ? `${plural(n, "thread")} (LangGraph ${saver.langgraph.info.store} store)\n` : `${saver.uri}: no threads\n`),
    );
    return 0;
  } finally {
    await saver.close();
  }
}
