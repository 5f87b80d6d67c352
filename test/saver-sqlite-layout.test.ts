/**
 * The SQLite saver's on-disk layout: what README documents (schema version 2), the in-place upgrade of a version 1
 * database (the earlier WITHOUT ROWID table), and refusal of a newer version. The databases are built here with
 * better-sqlite3 directly, from the DDL written in the README / the v1 source, not through the saver.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSaver } from "../src/savers/index.js";
import { CkptError } from "../src/base/errors.js";

const dir = mkdtempSync(join(tmpdir(), "ckpt-sqlite-layout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const V1_DDL = `CREATE TABLE ckpt_meta (key TEXT PRIMARY KEY, value TEXT);
  CREATE TABLE ckpt_checkpoints (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, doc TEXT NOT NULL,
    bytes INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (namespace, thread_id)) WITHOUT ROWID;
  INSERT INTO ckpt_meta (key, value) VALUES ('schema_version', '1');`;

describe("sqlite saver layout", () => {
  it("creates schema version 2: a rowid table with a unique (namespace, thread_id) and the document last", async () => {
    const path = join(dir, "fresh.db");
    const s = await openSaver(`sqlite:${path}`);
    await s.save("t1", '{"threadId":"t1","step":1}');
    await s.close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare("SELECT value FROM ckpt_meta WHERE key = 'schema_version'").pluck().get()).toBe("2");
      const cols = db.prepare("SELECT name FROM pragma_table_info('ckpt_checkpoints') ORDER BY cid").pluck().all();
      expect(cols).toEqual(["namespace", "thread_id", "bytes", "updated_at", "doc"]);
      const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'ckpt_checkpoints'").pluck().get() as string;
      expect(sql).not.toMatch(/WITHOUT ROWID/i);
      expect(sql).toMatch(/UNIQUE \(namespace, thread_id\)/);
      const row = db.prepare("SELECT namespace, thread_id, bytes, doc FROM ckpt_checkpoints").get();
      expect(row).toEqual({ namespace: "default", thread_id: "t1", bytes: 26, doc: '{"threadId":"t1","step":1}' });
    } finally {
      db.close();
    }
  });

  it("upgrades a version 1 database in place, keeping every row", async () => {
    const path = join(dir, "v1.db");
    const db = new Database(path);
    db.exec(V1_DDL);
    const ins = db.prepare("INSERT INTO ckpt_checkpoints VALUES (?, ?, ?, ?, ?)");
    ins.run("default", "a", '{"threadId":"a","step":1}', 25, "2026-01-01T00:00:00.000Z");
    ins.run("default", "b:c", '{"threadId":"b:c","step":2}', 27, "2026-01-02T00:00:00.000Z");
    ins.run("other", "a", '{"threadId":"a","step":3}', 25, "2026-01-03T00:00:00.000Z");
    db.close();

    const s = await openSaver(`sqlite:${path}`);
    expect(await s.load("a")).toBe('{"threadId":"a","step":1}');
    expect(await s.load("b:c")).toBe('{"threadId":"b:c","step":2}');
    expect(await s.load("a", "other")).toBe('{"threadId":"a","step":3}');
    const listed = [];
    for await (const t of s.list()) listed.push(t);
    expect(listed).toEqual([
      { namespace: "default", threadId: "a", bytes: 25, updatedAt: "2026-01-01T00:00:00.000Z" },
      { namespace: "default", threadId: "b:c", bytes: 27, updatedAt: "2026-01-02T00:00:00.000Z" },
    ]);
    await s.save("a", '{"threadId":"a","step":9}'); // upsert works on the new unique key
    expect(await s.load("a")).toBe('{"threadId":"a","step":9}');
    await s.close();

    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare("SELECT value FROM ckpt_meta WHERE key = 'schema_version'").pluck().get()).toBe("2");
      expect(check.prepare("SELECT count(*) FROM ckpt_checkpoints").pluck().get()).toBe(3);
      expect(check.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ckpt_checkpoints_v1'").pluck().get()).toBe(
        0,
      );
    } finally {
      check.close();
    }
    // opening again is a no-op
    const again = await openSaver(`sqlite:${path}`);
    expect(await again.load("b:c")).toBe('{"threadId":"b:c","step":2}');
    await again.close();
  });

  it("refuses a database written by a newer ckpt (exit 4), leaving it untouched", async () => {
    const path = join(dir, "v9.db");
    const db = new Database(path);
    db.exec(
      "CREATE TABLE ckpt_meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO ckpt_meta VALUES ('schema_version', '9');",
    );
    db.close();
    const err = await openSaver(`sqlite:${path}`).catch((e) => e);
    expect(err).toBeInstanceOf(CkptError);
    expect(err.exitCode).toBe(4);
    expect(err.message).toMatch(/schema version 9 is newer than this ckpt supports \(2\)/);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ckpt_checkpoints'").pluck().get()).toBe(0);
    } finally {
      check.close();
    }
  });
});
