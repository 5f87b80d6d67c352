/**
 * A migration into PostgreSQL commits its batches without waiting for the WAL flush (synchronous_commit off) and
 * flushes once at its end (Saver.durable). That must stay the migration's own: a later write of the same store
 * object (a library user's save() after migrate(), on a pooled connection the migration used) and `ckpt copy`
 * (insertNew of one record, no durable() after it) commit as PostgreSQL's default says, flushed before they return.
 * A trigger on the table notes the synchronous_commit each row was written under (current_setting, PostgreSQL's own
 * account of the session).
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { migrate } from "../src/engines/ckpt/migrate.js";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const pgdb = pgTestSchemas("ckpt_synccommit");
const root = join(import.meta.dirname, "..");
const base = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);
const doc = (id: string) => JSON.stringify({ ...base, threadId: id }, null, 2);

/** A store in a schema of its own whose rows note the synchronous_commit they were written under. */
async function notedStore(name: string) {
  const schema = pgdb.schema(name);
  const uri = `${PG}?schema=${schema}`;
  const store = await openSaver(uri);
  await pgdb.query(`CREATE TABLE ${schema}.seen (thread_id text, sync text)`);
  await pgdb.query(
    `CREATE FUNCTION ${schema}.note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
      `INSERT INTO ${schema}.seen VALUES (NEW.thread_id, current_setting('synchronous_commit')); RETURN NEW; END $$`,
  );
  await pgdb.query(
    `CREATE TRIGGER note BEFORE INSERT OR UPDATE ON ${schema}.ckpt_checkpoints FOR EACH ROW EXECUTE FUNCTION ${schema}.note()`,
  );
  const seen = async (like: string) =>
    (
      await pgdb.query(`SELECT DISTINCT sync FROM ${schema}.seen WHERE thread_id LIKE $1 ORDER BY sync`, [like])
    ).rows.map((r: { sync: string }) => r.sync);
  return { uri, store, seen };
}

describe("synchronous_commit off is a migration's own", () => {
  it("a save() after migrate() on the same store waits for the flush; the migration's batches did not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-synccommit-"));
    mkdirSync(join(dir, "src"));
    for (let i = 0; i < 60; i++) writeFileSync(join(dir, "src", `m-${i}.json`), doc(`m-${i}`));
    const { store, seen } = await notedStore("lib");
    const source = await openSaver(join(dir, "src"));
    try {
      const s = await migrate(source, store, { batchSize: 10 });
      expect(s.written).toBe(60);
      expect(await seen("m-%")).toEqual(["off"]);
      for (let i = 0; i < 4; i++) await store.save(`a-${i}`, doc(`a-${i}`));
      await Promise.all([0, 1, 2, 3].map((i) => store.save(`b-${i}`, doc(`b-${i}`))));
      await store.saveMany(
        [0, 1, 2, 3].map((i) => ({ namespace: "default", threadId: `c-${i}`, text: doc(`c-${i}`) })),
      );
      expect(await seen("a-%")).toEqual(["on"]);
      expect(await seen("b-%")).toEqual(["on"]);
      expect(await seen("c-%")).toEqual(["on"]);
    } finally {
      await source.close();
      await store.close();
    }
  });

  it("ckpt copy into a PostgreSQL store commits its record as the server's default says", async () => {
    const { uri, store, seen } = await notedStore("copy");
    try {
      await store.save("orig", doc("orig"));
      const r = await runCli(["copy", `${uri}#orig`, `${uri}#copied`], { cwd: tmpdir() });
      expect(r.code, r.err).toBe(0);
      expect(await seen("copied")).toEqual(["on"]);
    } finally {
      await store.close();
    }
  });
});
