/**
 * Paging through a LangGraph PostgreSQL store's threads (prune, stats) and reading a page's heads: every thread once,
 * in the server's order, whatever the page size, compared with the server's own SELECT DISTINCT … ORDER BY; the
 * heads are exactly each thread's rows. The store's sessions run without JIT (statements on tables with no
 * statistics were compiled, ~0.4 s each).
 */
import { describe, expect, it } from "vitest";
import type { PgLangGraphStore } from "../src/savers/langgraph/postgres/index.js";
import { openLangGraph } from "./helpers/lg-open.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const pgdb = pgTestSchemas("lgpages");
const threads = ["", "a", "A", "a b", "b", "b2", "é", "z", "zz", "~x"];

describe("LangGraph PostgreSQL store: thread pages and heads", () => {
  it("pages of any size give every thread once, in order; heads are each thread's rows", async () => {
    const s = pgdb.schema("p");
    const store = (await openLangGraph(`${PG}?schema=${s}`, { write: true }))!;
    try {
      await store.setup("js");
      // thread i gets i+1 checkpoints, two of them in a second namespace
      for (const [i, t] of threads.entries()) {
        for (let k = 0; k <= i; k++) {
          await pgdb.query(
            `INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint) VALUES ($1, $2, $3, '{}')`,
            [t, k % 3 === 2 ? "sub" : "", `id-${k}`],
          );
        }
      }
      const want = (await pgdb.query(`SELECT DISTINCT thread_id FROM ${s}.checkpoints ORDER BY thread_id`)).rows.map(
        (r) => r.thread_id,
      );
      expect(want).toHaveLength(threads.length);
      for (const size of [1, 2, 3, 7, 10, 50]) {
        const got: string[] = [];
        let after: string | undefined;
        for (let guard = 0; guard < 100; guard++) {
          const page = await store.threadPage(after, size);
          expect(page.length).toBeLessThanOrEqual(size);
          got.push(...page);
          if (page.length < size) break;
          after = page[page.length - 1];
        }
        expect(got, `page size ${size}`).toEqual(want);
      }
      const heads = await store.heads(["b", "", "zz", "no-such"]);
      for (const t of ["b", "", "zz"]) {
        const rows = (
          await pgdb.query(`SELECT checkpoint_ns, checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1`, [t])
        ).rows;
        const keys = (xs: string[][]) => xs.map((x) => JSON.stringify(x)).sort();
        expect(keys(heads.get(t)!.map((h) => [h.ns, h.id])), t).toEqual(
          keys(rows.map((r) => [r.checkpoint_ns, r.checkpoint_id])),
        );
      }
      expect(heads.get("no-such")).toEqual([]);
      expect(
        (await (await (store as PgLangGraphStore).rowPool()).query<{ jit: string }>("SHOW jit")).rows[0]!.jit,
      ).toBe("off");
    } finally {
      await store.close();
    }
  });
});
