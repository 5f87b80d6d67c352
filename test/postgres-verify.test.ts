/**
 * The PostgreSQL read-back of a migration compares in the database (sha256 of each stored document's UTF-8 against the
 * sha256 of the text written, which a migration's journal has already), so the documents are not sent back: a document the server changed on the way in (a trigger, here)
 * is caught record by record with the hash of what it holds; the others verify.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { migrate } from "../src/engines/ckpt/migrate.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const schema = `ckpt_pgverify_${randomBytes(4).toString("hex")}`;
const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-pgverify-"));

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
  rmSync(dir, { recursive: true, force: true });
});

const base = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);
const doc = (i: number) => JSON.stringify({ ...base, threadId: `t-${i}`, step: i }, null, 2);

describe("postgres read-back", () => {
  it("verifyMany: true where the stored document is the text written, false where it differs or is missing", async () => {
    const s = await openSaver(`${PG}?schema=${schema}&table=direct`);
    try {
      const recs = [0, 1, 2].map((i) => ({ namespace: "n\t1", threadId: `t-${i}`, text: doc(i) }));
      await s.saveMany(recs.slice(0, 2));
      const pg = (await import("pg")).default;
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`UPDATE "${schema}".direct SET doc = doc || ' ' WHERE thread_id = 't-1'`);
      await c.end();
      expect(await s.verifyMany!(recs)).toEqual([true, false, false]);
    } finally {
      await s.close();
    }
  });

  it("verifyMany hashes the UTF-8 the server holds (non-ASCII text verifies) and compares with the hash the caller gives", async () => {
    const s = await openSaver(`${PG}?schema=${schema}&table=hashes`);
    try {
      const text = JSON.stringify({ ...base, threadId: "u", note: "é — ü 😀" }, null, 2);
      const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
      await s.saveMany([{ namespace: "n", threadId: "u", text }]);
      // no hash given: ckpt hashes the text; the right one given: used as is; a wrong one: a mismatch (so it is used)
      expect(await s.verifyMany!([{ namespace: "n", threadId: "u", text }])).toEqual([true]);
      expect(await s.verifyMany!([{ namespace: "n", threadId: "u", text, hash: sha(text) }])).toEqual([true]);
      expect(await s.verifyMany!([{ namespace: "n", threadId: "u", text, hash: sha(`${text} `) }])).toEqual([false]);
    } finally {
      await s.close();
    }
  });

  it("thread ids an array literal must quote (quote, backslash, comma, braces, space, NULL, empty-looking): loadMany, existsMany and verifyMany find each", async () => {
    const s = await openSaver(`${PG}?schema=${schema}&table=tricky`);
    try {
      const ids = ['a"b', "a\\b", "a,b", "{a}", "a b", "NULL", "null", "é-ü", "x:y/z#1", '"', "\\"];
      const recs = ids.map((threadId, i) => ({ namespace: 'n,"1', threadId, text: doc(i) }));
      await s.saveMany(recs.slice(0, -1));
      const missing = recs.length - 1;
      expect(await s.loadMany(recs)).toEqual(recs.map((r, i) => (i === missing ? undefined : r.text)));
      expect(await s.existsMany!(recs)).toEqual(recs.map((_, i) => i !== missing));
      expect(await s.verifyMany!(recs)).toEqual(recs.map((_, i) => i !== missing));
    } finally {
      await s.close();
    }
  });

  it("a migration into a table whose trigger changes two documents: those two are mismatches, the rest verified", async () => {
    const src = join(dir, "src");
    mkdirSync(src);
    for (let i = 0; i < 60; i++) writeFileSync(join(src, `t-${i}.json`), doc(i));
    const uri = `${PG}?schema=${schema}`;
    await (await openSaver(uri)).close(); // creates the table
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    await c.query(`CREATE FUNCTION "${schema}".bend() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.thread_id IN ('t-4', 't-44') THEN NEW.doc := replace(NEW.doc, 'Create a project plan', 'Create a project PLAN'); END IF; RETURN NEW; END $$`);
    await c.query(
      `CREATE TRIGGER bend BEFORE INSERT ON "${schema}".ckpt_checkpoints FOR EACH ROW EXECUTE FUNCTION "${schema}".bend()`,
    );
    await c.end();
    const s = await openSaver(`file:${src}`);
    const t = await openSaver(uri);
    try {
      const r = await migrate(s, t, { batchSize: 25 });
      expect(r.written).toBe(60);
      expect(r.verified).toBe(58);
      expect(r.mismatches.map((m) => m.threadId).sort()).toEqual(["t-4", "t-44"]);
      const sha = (x: string) =>
        createHash("sha256")
          .update(JSON.stringify(JSON.parse(x)))
          .digest("hex");
      expect(r.mismatches.find((m) => m.threadId === "t-4")!.got).toBe(
        sha(doc(4).replace("Create a project plan", "Create a project PLAN")),
      );
    } finally {
      await s.close();
      await t.close();
    }
  });
});
