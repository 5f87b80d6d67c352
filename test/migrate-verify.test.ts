/**
 * The read-back check of a migration into SQLite (compared in SQL on the stored bytes, then read back only where they
 * differ): a store that changes what was written is caught, record by record, with the hash of what it holds; one
 * that only re-spaces the JSON holds the same content and passes. The stores are changed behind the saver's back by
 * SQLite triggers that run inside its own INSERT.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSaver } from "../src/savers/index.js";
import { migrate } from "../src/engines/ckpt/migrate.js";

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-verify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = JSON.parse(
  readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
);
const src = join(dir, "src");
const texts = new Map<string, string>();
mkdirSync(src);
for (let i = 0; i < 30; i++) {
  const t = JSON.stringify({ ...base, threadId: `t-${i}`, step: i }, null, 2);
  texts.set(`t-${i}`, t);
  writeFileSync(join(src, `t-${i}.json`), t);
}

/** A SQLite target whose INSERTs of the threads `which` pass through `change` (an SQL expression of `doc`). */
async function target(name: string, which: string, change: string): Promise<string> {
  const path = join(dir, `${name}.db`);
  const s = await openSaver(`sqlite:${path}`);
  await s.close(); // creates the tables
  const db = new Database(path);
  db.exec(`CREATE TRIGGER bend AFTER INSERT ON ckpt_checkpoints WHEN NEW.thread_id IN (${which}) BEGIN
    UPDATE ckpt_checkpoints SET doc = ${change} WHERE rowid = NEW.rowid; END`);
  db.close();
  return `sqlite:${path}`;
}

describe("migrate read-back into SQLite", () => {
  it("a store that changed two documents: exactly those two are mismatches, with the hash of what it holds", async () => {
    const uri = await target(
      "changed",
      "'t-3', 't-17'",
      "replace(doc, 'Create a project plan', 'Create a project PLAN')",
    );
    const s = await openSaver(`file:${src}`);
    const t = await openSaver(uri);
    try {
      const r = await migrate(s, t, { batchSize: 8 });
      expect(r.written).toBe(30);
      expect(r.verified).toBe(28);
      expect(r.mismatches.map((m) => m.threadId).sort()).toEqual(["t-17", "t-3"]);
      const held = texts.get("t-3")!.replace("Create a project plan", "Create a project PLAN");
      const sha = (x: string) =>
        createHash("sha256")
          .update(JSON.stringify(JSON.parse(x)))
          .digest("hex");
      const m3 = r.mismatches.find((m) => m.threadId === "t-3")!;
      expect(m3.got).toBe(sha(held));
      expect(m3.expected).toBe(sha(texts.get("t-3")!));
    } finally {
      await s.close();
      await t.close();
    }
  });

  it("a store that only re-spaced a document holds the same content: verified, no mismatch", async () => {
    const uri = await target("spaced", "'t-5'", "replace(doc, char(10) || '  ', char(10) || '    ')");
    const s = await openSaver(`file:${src}`);
    const t = await openSaver(uri);
    try {
      const r = await migrate(s, t, { batchSize: 8 });
      expect(r.mismatches).toEqual([]);
      expect(r.verified).toBe(30);
      expect(await t.load("t-5")).not.toBe(texts.get("t-5")); // it really is stored differently
    } finally {
      await s.close();
      await t.close();
    }
  });
});
