/**
 * `ckpt stats` of a store read as documents (ckpt's own savers, folders, and the layouts whose Saver view is all
 * stats reads): bytes per namespace, per format, per day, top threads (core/saver-stats.ts), a page of threads at a
 * time.
 */
import { createSaverStats } from "../core/saver-stats.js";
import type { SaverStatsReport } from "../generated/types.js";
import type { Saver } from "../savers/types.js";
import type { StatsOptions } from "./types.js";

export async function saverStats(saver: Saver, o: StatsOptions): Promise<SaverStatsReport> {
  const t0 = performance.now();
  const acc = createSaverStats({ top: o.top, uri: saver.uri, filter: { threads: o.thread, match: o.match } });
  for (const ns of o.namespaces ?? (await saver.namespaces())) {
    let page: Array<{ threadId: string; bytes: number; updatedAt?: string }> = [];
    const flush = async () => {
      const texts = await saver.loadMany(page.map((t) => ({ namespace: ns, threadId: t.threadId })));
      page.forEach((t, i) =>
        acc.add({ namespace: ns, threadId: t.threadId, bytes: t.bytes, updatedAt: t.updatedAt, text: texts[i] }),
      );
      page = [];
    };
    for await (const t of saver.list({ namespace: ns })) {
      if (o.accept && !o.accept(t.threadId)) continue;
      page.push(t);
      if (page.length >= 200) await flush();
    }
    if (page.length) await flush();
  }
  return acc.report(performance.now() - t0);
}
