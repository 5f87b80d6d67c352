/**
 * Issue #42 item 4: `prune` committing while `migrate --from` reads the same LangGraph SQLite store must leave every
 * migrated thread's history as the store held it before the prune or after it, never with a hole. The interleaving is
 * made deterministic: the migration's source is the real store, and the real `ckpt prune` runs (and commits) right
 * after the first page of the scan was read — in the middle of a thread whose rows span more than one page. The
 * expected histories come from the independent reader (test/helpers/lg-independent.ts) of the store before and after.
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";
import { readSqliteStore } from "./helpers/lg-independent.js";
import { openStore } from "../src/savers/index.js";
import { parseSaverUri } from "../src/savers/uri.js";
import { migrateLangGraph } from "../src/engines/langgraph/migrate.js";
import type { LgCheckpoint } from "../src/formats/langgraph/rows.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");

/** thread → its checkpoint keys (`ns|id`), sorted, as the independent reader finds them. */
function histories(path: string): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const k of readSqliteStore(path).keys()) {
    const [t, ns, id] = k.split("|");
    (by.get(t!) ?? by.set(t!, []).get(t!)!).push(`${ns}|${id}`);
  }
  for (const v of by.values()) v.sort();
  return by;
}

describe("migrate --from a LangGraph SQLite store while prune commits", () => {
  it("every migrated thread is the store's before or after the prune, never a history with a hole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-snap-"));
    const src = join(dir, "src.sqlite");
    copyFileSync(join(fx, "python-c.sqlite"), src);
    const before = histories(src);
    // the first page (16 checkpoints) holds c-chat-1 (10) and the start of c-delta-1 (40)
    expect(before.get("c-chat-1")).toHaveLength(10);
    expect(before.get("c-delta-1")).toHaveLength(40);

    const source = await openStore(parseSaverUri(`sqlite:${src}`), { readOnly: true });
    const target = await openStore(parseSaverUri(`sqlite:${join(dir, "dst.sqlite")}`), { want: "langgraph" });
    if (source.layout !== "langgraph" || target.layout !== "langgraph") throw new Error("not LangGraph stores");
    let pruned: { code: number; out: string; err: string } | undefined;
    const s = source.store;
    const scanning = {
      library: () => s.library(),
      count: () => s.count(),
      async *scanRows(size: number, threads?: (id: string) => boolean): AsyncIterable<LgCheckpoint[]> {
        for await (const page of s.scanRows(size, threads)) {
          yield page;
          // the prune commits between the first page and the second
          pruned ??= await runCli(["prune", `sqlite:${src}`, "--keep-last", "2"], { cwd: dir });
        }
      },
    };
    try {
      const sum = await migrateLangGraph(scanning, target.store, { batchSize: 16 });
      expect(sum.rejected, JSON.stringify(sum.rejectedRecords)).toBe(0);
    } finally {
      await s.close();
      await target.store.close();
    }
    expect(pruned?.code, pruned?.err).toBe(0);
    const after = histories(src);
    expect(after.get("c-delta-1")!.length).toBeLessThan(10); // the prune did commit (2 per namespace)
    const got = histories(join(dir, "dst.sqlite"));
    expect([...got.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [thread, keys] of got) {
      const whole = JSON.stringify(keys) === JSON.stringify(before.get(thread));
      const prunedForm = JSON.stringify(keys) === JSON.stringify(after.get(thread));
      expect(
        whole || prunedForm,
        `${thread}: ${keys.length} checkpoint(s), before ${before.get(thread)?.length}, after ${after.get(thread)?.length}`,
      ).toBe(true);
    }
  });
});
