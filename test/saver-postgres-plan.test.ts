/**
 * A table the PostgreSQL saver is loading keeps its planner statistics current (ANALYZE after the first 2,000 rows it
 * writes, then each time that doubles), so that the batched lookup a migration makes twice per batch (conflicts,
 * read-back: `thread_id = ANY($2)`) stays an index lookup. Without statistics PostgreSQL plans it as a scan of the
 * whole namespace, a cost that grows with the table (a migration of N rows then costs O(N²); measured 120 ms per
 * lookup at 100,000 rows against 2 ms). The table here has autovacuum off, so only the saver can have analyzed it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { openSaver } from "../src/savers/index.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const schema = `ckpt_plan_${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

describe("postgres saver: planner statistics while loading", () => {
  it("after 5,000 rows written in batches, a lookup of 50 ids is an index scan on both columns of the key", async () => {
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    const s = await openSaver(`${PG}?schema=${schema}`);
    try {
      await c.query(`ALTER TABLE "${schema}".ckpt_checkpoints SET (autovacuum_enabled = false)`);
      const doc = (i: number) => JSON.stringify({ threadId: `t-${i}`, pad: "x".repeat(900) });
      for (let i = 0; i < 5000; i += 500) await s.saveMany(Array.from({ length: 500 }, (_, k) => ({ namespace: "default", threadId: `t-${i + k}`, text: doc(i + k) })));
      const analyzed = await c.query(`SELECT last_analyze FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'ckpt_checkpoints'`, [schema]);
      expect(analyzed.rows[0].last_analyze).not.toBeNull();
      const ids = Array.from({ length: 50 }, (_, i) => `t-${i * 97}`);
      const plan = (await c.query(`EXPLAIN SELECT thread_id, doc FROM "${schema}".ckpt_checkpoints WHERE namespace = $1 AND thread_id = ANY($2::text[])`, ["default", ids])).rows.map((r) => r["QUERY PLAN"] as string);
      // the ids are in the index condition, not a filter over every row of the namespace
      expect(plan.join("\n")).toMatch(/Index Cond: \(\(namespace = 'default'::text\) AND \(thread_id = ANY/);
      expect(plan.join("\n")).not.toMatch(/Filter: \(thread_id = ANY/);
      expect(await s.loadMany(ids.map((threadId) => ({ namespace: "default", threadId })))).toEqual(ids.map((id) => doc(Number(id.slice(2)))));
    } finally {
      await s.close();
      await c.end();
    }
  }, 60_000);
});
