/**
 * `ckpt delete` of one thread of a Mastra LibSQL store written by the real @mastra/* with semantic recall on (so
 * LibSQLVector's `memory_messages_<dims>` rows and their DiskANN index exist): afterwards Mastra's own reads
 * (getThreadById, recall, a vector query filtered by the thread) find nothing of it, every other thread reads back
 * unchanged (a vector query over the whole index still finds theirs), and no row of any table names it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli-io.js";
import { runPeer } from "../helpers/peers.js";

const VICTIM = "thread-erase-9b7e";
const threads = [
  { id: "thread-keep-a", resource: "res-1", turns: ["my cat is called Tom", "Tom likes fish"] },
  { id: VICTIM, resource: "res-1", turns: ["my dog is called Rex", "Rex barks at night"] },
  { id: "thread-keep-b", resource: "res-2", turns: ["plan a trip to Oslo"] },
];
interface ReadBack {
  threads: Record<string, { resourceId: string; messages: unknown[] } | null>;
  vectors: Record<string, { all: string[]; byThread: Record<string, number> }>;
}

function tablesNaming(file: string, id: string): string[] {
  const db = new Database(file, { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const hits = names.filter((t) =>
    (db.prepare(`SELECT * FROM "${t}"`).all() as unknown[]).some((r) =>
      JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString("latin1") : v)).includes(id),
    ),
  );
  db.close();
  return hits;
}

describe("ckpt delete: a Mastra LibSQL thread with semantic recall", () => {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-mastra-erase-"));
  const file = join(dir, "mastra.db");
  let before: ReadBack;
  beforeAll(async () => {
    before = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "write", file, threads })).out;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("removes the thread, its messages and its vector rows; Mastra reads nothing of it, the rest unchanged", async () => {
    const index = Object.keys(before.vectors)[0]!;
    expect(index).toMatch(/^memory_messages_\d+$/);
    expect(before.vectors[index]!.byThread[VICTIM]).toBeGreaterThan(0);
    expect(before.threads[VICTIM]!.messages.length).toBeGreaterThan(0);
    expect(tablesNaming(file, VICTIM)).toEqual(expect.arrayContaining(["mastra_threads", "mastra_messages", index]));

    const dry = await runCli(["delete", `sqlite:${file}#${VICTIM}`, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const planned = JSON.parse(dry.out) as { tables: Array<{ table: string; rows: number }> };
    const rows = Object.fromEntries(planned.tables.map((t) => [t.table, t.rows]));
    expect(rows).toMatchObject({
      mastra_threads: 1,
      mastra_messages: before.threads[VICTIM]!.messages.length,
      [index]: before.vectors[index]!.byThread[VICTIM],
    });
    // the vector index libSQL built (read from the file): the report says its other nodes keep neighbour copies
    const vecIndex = new Database(file, { readonly: true })
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE '%libsql_vector_idx%'",
      )
      .pluck()
      .get(index) as string;
    expect(vecIndex).toBeTruthy();
    const note = expect.stringMatching(
      new RegExp(
        `${vecIndex}.*copies of its embeddings.*VACUUM does not remove them.*DROP INDEX "${vecIndex}"; CREATE INDEX`,
      ),
    );
    expect((planned as { notes?: string[] }).notes).toEqual([note]);
    const text = await runCli(["delete", `sqlite:${file}#${VICTIM}`]);
    expect(text.out).toMatch(
      new RegExp(`note: ${index}: .*${vecIndex}_shadow would be deleted.*VACUUM does not remove them`),
    );
    const real = await runCli(["delete", `sqlite:${file}#${VICTIM}`, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(planned.tables);
    expect(JSON.parse(real.out).notes).toEqual([note]);

    const after = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "read", file, threads })).out;
    expect(after.threads[VICTIM]).toBeNull();
    expect(after.vectors[index]!.byThread[VICTIM]).toBe(0);
    for (const t of threads.filter((x) => x.id !== VICTIM)) {
      expect(after.threads[t.id]).toEqual(before.threads[t.id]);
      expect(after.vectors[index]!.byThread[t.id]).toBe(before.vectors[index]!.byThread[t.id]);
    }
    expect(after.vectors[index]!.all).toEqual(before.vectors[index]!.all.filter((t) => t !== VICTIM));
    expect(tablesNaming(file, VICTIM)).toEqual([]);
  }, 120_000);
});
