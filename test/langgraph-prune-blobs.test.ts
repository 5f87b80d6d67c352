/**
 * #27 item 4: a PostgreSQL prune never deletes a blob a writer committed before its checkpoint row (Python's
 * autocommit order: blobs, then the checkpoint), once the prune has started. Blobs carry no checkpoint id, so the
 * start-time guard orphan writes have (checkpoint id below the start) is, for blobs, the transactions running when the
 * prune started: a blob row written by one of them or a later one is not an orphan to this prune. Orphan blobs written
 * before the start still go.
 */
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { planThread, uuid6Floor } from "../src/core/prune.js";
import { openStore, parseSaverUri } from "../src/savers/index.js";
import { chatApp, closeSaver, human, pgSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const pgs = pgTestSchemas("ckpt_prune_blobs");
let client: pg.Client | undefined;
afterAll(async () => {
  await client?.end();
});

describe("#27 item 4: PostgreSQL prune and a writer that commits the blob first", () => {
  it("a blob committed after the prune started survives it; an orphan blob from before the start is deleted", async () => {
    const schema = pgs.schema("race");
    // a real LangGraph JS history: one thread, several checkpoints
    const saver = pgSaver(PG, schema);
    await saver.setup();
    const app = chatApp(saver);
    const cfg = { configurable: { thread_id: "t-1" } };
    await app.invoke(human("alpha"), cfg);
    await app.invoke(human("beta"), cfg);
    const cfg2 = { configurable: { thread_id: "t-2" } };
    await app.invoke(human("gamma"), cfg2);
    await app.invoke(human("delta"), cfg2);
    await closeSaver(saver);
    client = new pg.Client({ connectionString: PG });
    await client.connect();
    const blob = (version: string, thread = "t-1") =>
      client!.query(
        `INSERT INTO ${schema}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ($2, '', 'messages', $1, 'json', '\\x5b5d')`,
        [version, thread],
      );
    const has = async (version: string) =>
      (await client!.query(`SELECT 1 FROM ${schema}.checkpoint_blobs WHERE version = $1`, [version])).rowCount === 1;
    // blob rows of a thread no checkpoint names (what the prune reports as kept when it leaves them)
    const orphansLeft = async (thread: string) =>
      (
        await client!.query(
          `SELECT count(*)::int AS n FROM ${schema}.checkpoint_blobs bl WHERE bl.thread_id = $1 AND NOT EXISTS (SELECT 1 FROM ${schema}.checkpoints c
             WHERE c.thread_id = bl.thread_id AND c.checkpoint_ns = bl.checkpoint_ns AND c.checkpoint->'channel_versions'->>bl.channel = bl.version)`,
          [thread],
        )
      ).rows[0].n as number;
    // an orphan from an earlier crash: the prune's to clean up
    await blob("1000001");

    const opened = await openStore(parseSaverUri(`${PG}?schema=${schema}`), {});
    if (opened.layout !== "langgraph") throw new Error("expected a LangGraph store");
    const store = opened.store;
    try {
      const mark = await store.pruneStart?.(); // the prune starts …
      const now = Date.now();
      await blob("1000002"); // … and a writer commits a blob whose checkpoint row is not written yet
      const counts = await store.prunePage(["t-1"], (t, heads) => planThread(t, heads, { keepLast: 1, now }), {
        startId: uuid6Floor(now),
        startMark: mark?.mark,
        dryRun: false,
      });
      expect(counts.checkpoints).toBeGreaterThan(0); // the prune did prune
      expect(await has("1000002"), "the blob committed after the prune started").toBe(true);
      // the orphan from before the start goes, unless a transaction older than it was open on the server when the
      // prune started (another session, another test file): then it is kept too, and counted
      if (!mark?.heldBy) expect(await has("1000001"), "the orphan blob from before the start").toBe(false);
      expect(counts.blobsKept, "every orphan left is counted as kept").toBe(await orphansLeft("t-1"));
      expect(counts.blobsKept).toBeGreaterThanOrEqual(1);
      // the library's prune (what `ckpt prune` runs) takes the mark itself: a blob a writer commits while the prune
      // runs (here: just before its page is carried out) stays
      const { prune } = await import("../src/core/prune-run.js");
      const racing = {
        ...store,
        prunePage: async (...a: Parameters<typeof store.prunePage>) => {
          await blob("1000003", "t-2");
          return store.prunePage(...a);
        },
      };
      const summary = await prune(racing, { keepLast: 1, now: Date.now() });
      expect(summary.checkpoints).toBeGreaterThan(0); // t-2's older checkpoints went
      expect(await has("1000003"), "the blob committed while `prune` ran").toBe(true);
      expect(summary.blobsKept).toBe(await orphansLeft("t-2"));
      expect(summary.notes?.join("\n")).toMatch(/kept \d+ orphan blobs? \(no remaining checkpoint names/);
    } finally {
      await store.close();
    }
  }, 60_000);
});
