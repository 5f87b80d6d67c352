/**
 * The PostgreSQL saver's batched lookup (a migration's conflict lookup, loadMany) is a point lookup per id whatever the
 * planner's statistics: a table being loaded has none (autovacuum has not come by; here it is off), and a lookup
 * planned from none (`thread_id = ANY($2)`, as it was) scanned the whole namespace, a cost that grew with the table
 * (35 ms per lookup at 100,000 rows against 3 ms). So the saver never has to ANALYZE while it writes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { openSaver } from "../src/savers/index.js";
import { lookupSql } from "../src/savers/postgres.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const schema = `ckpt_plan_${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

describe("postgres saver: lookups on a table without statistics", () => {
  it("after 20,000 rows written and never analyzed, a lookup of 500 ids probes the key's index per id", async () => {
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    const s = await openSaver(`${PG}?schema=${schema}`);
    try {
      const T = `"${schema}".ckpt_checkpoints`;
      await c.query(`ALTER TABLE ${T} SET (autovacuum_enabled = false)`);
      const doc = (i: number) => JSON.stringify({ threadId: `t-${i}`, pad: "x".repeat(900) });
      for (let i = 0; i < 20_000; i += 500)
        await s.saveMany(
          Array.from({ length: 500 }, (_, k) => ({ namespace: "default", threadId: `t-${i + k}`, text: doc(i + k) })),
        );
      const stats = await c.query(
        `SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'ckpt_checkpoints'`,
        [schema],
      );
      expect(stats.rows[0]).toEqual({ last_analyze: null, last_autoanalyze: null });
      const ids = Array.from({ length: 500 }, (_, i) => `t-${i * 37}`);
      const plan = (await c.query(`EXPLAIN ${lookupSql(T)}`, ["default", ids])).rows
        .map((r) => r["QUERY PLAN"] as string)
        .join("\n");
      // each id is in the index condition; the table is never read whole
      expect(plan).toMatch(/Index Cond: \(\(namespace = 'default'::text\) AND \(thread_id = k\.id\)\)/);
      expect(plan).not.toMatch(/Seq Scan on ckpt_checkpoints/);
      // missing ids, a repeated id and another namespace come back in place
      const keys = [...ids.slice(0, 3), "t-missing", ids[1]!].map((threadId) => ({ namespace: "default", threadId }));
      keys.push({ namespace: "other", threadId: "t-0" });
      expect(await s.loadMany(keys)).toEqual([doc(0), doc(37), doc(74), undefined, doc(37), undefined]);
    } finally {
      await s.close();
      await c.end();
    }
  }, 60_000);
});
