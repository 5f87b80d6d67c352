import { afterAll, beforeAll } from "vitest";
import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL server the tests use (trust auth, database `test`). */
export const PG = "postgres://postgres@127.0.0.1:5432/test";

/**
 * A PostgreSQL connection for one test file and schema names unique to this run (`<prefix>_<run>_<name>`), every
 * one of them dropped after the file's tests. Registers its own beforeAll/afterAll; the tests FAIL, saying how to
 * start the server, when it is not reachable.
 */
export function pgTestSchemas(prefix: string): { schema: (name: string) => string; query: pg.Client["query"] } {
  const run = randomBytes(4).toString("hex");
  const schemas: string[] = [];
  let client: pg.Client | undefined;
  beforeAll(async () => {
    const c = new pg.Client({ connectionString: PG });
    try {
      await c.connect();
    } catch (e) {
      throw new Error(
        `PostgreSQL is not reachable at ${PG} (${(e as Error).message}): start it with 'pg_ctlcluster 15 main start'`,
      );
    }
    client = c;
  });
  afterAll(async () => {
    if (!client) return;
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await client.end();
  });
  return {
    schema: (name) => {
      const s = `${prefix}_${run}_${name}`;
      schemas.push(s);
      return s;
    },
    query: ((...args: Parameters<pg.Client["query"]>) =>
      (client!.query as (...a: unknown[]) => unknown)(...args)) as pg.Client["query"],
  };
}
