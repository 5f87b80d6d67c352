/**
 * `ckpt delete <store>#<chatId>` on the Chat SDK template's tables (SQLite; PostgreSQL: test/conformance/ai-chatbot):
 * the SQL the template's getChatById / getMessagesByChatId / getVotesByChatId run finds nothing of the chat after it,
 * the other chat reads back unchanged, and no row of any table names the id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillSqliteRows } from "../helpers/ai-chatbot-db.js";
import { runCli } from "../helpers/cli-io.js";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const U = "33333333-3333-4333-8333-333333333333";
const at = "2025-01-01T00:00:00.000Z";

describe("ckpt delete: Chat SDK template (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-aic-del-"));
  const file = join(dir, "chat.db");
  const template = (db: Database.Database, id: string) => ({
    chat: db.prepare('SELECT * FROM "Chat" WHERE "id" = ?').all(id),
    messages: db.prepare('SELECT * FROM "Message_v2" WHERE "chatId" = ? ORDER BY "createdAt" ASC').all(id),
    votes: db.prepare('SELECT * FROM "Vote_v2" WHERE "chatId" = ?').all(id),
    streams: db.prepare('SELECT * FROM "Stream" WHERE "chatId" = ?').all(id),
  });
  beforeAll(() => {
    const msg = (id: string, chatId: string, text: string) =>
      ["Message_v2", { id, chatId, role: "user", parts: [{ type: "text", text }], attachments: [], createdAt: at }] as [
        string,
        Record<string, unknown>,
      ];
    fillSqliteRows(file, [
      ["User", { id: U, email: "u@example.com" }],
      ["Chat", { id: A, createdAt: at, userId: U, title: "a", visibility: "private" }],
      ["Chat", { id: B, createdAt: at, userId: U, title: "b", visibility: "private" }],
      msg("a1000000-0000-4000-8000-000000000001", A, "hello a"),
      msg("a1000000-0000-4000-8000-000000000002", A, "again a"),
      msg("b1000000-0000-4000-8000-000000000001", B, "hello b"),
      ["Vote_v2", { chatId: A, messageId: "a1000000-0000-4000-8000-000000000001", isUpvoted: 1 }],
      ["Vote_v2", { chatId: B, messageId: "b1000000-0000-4000-8000-000000000001", isUpvoted: 0 }],
    ]);
    const db = new Database(file);
    db.exec(
      'CREATE TABLE "Stream" ("id" text PRIMARY KEY NOT NULL, "chatId" text NOT NULL, "createdAt" text NOT NULL)',
    );
    db.prepare('INSERT INTO "Stream" VALUES (?, ?, ?)').run("s1", A, at);
    db.prepare('INSERT INTO "Stream" VALUES (?, ?, ?)').run("s2", B, at);
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("removes the chat and every row naming it; the template's queries find nothing, the other chat unchanged", async () => {
    const db = new Database(file, { readonly: true });
    const otherBefore = template(db, B);
    const dry = await runCli(["delete", `sqlite:${file}#${A}`, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const planned = JSON.parse(dry.out) as { dryRun: boolean; tables: Array<{ table: string; rows: number }> };
    expect(planned.dryRun).toBe(true);
    expect(Object.fromEntries(planned.tables.map((t) => [t.table, t.rows]))).toEqual({
      Chat: 1,
      Message: 0,
      Message_v2: 2,
      Vote_v2: 1,
      Stream: 1,
    });
    expect(template(db, A).messages).toHaveLength(2);
    const real = await runCli(["delete", `sqlite:${file}#${A}`, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(planned.tables);
    expect(template(db, A)).toEqual({ chat: [], messages: [], votes: [], streams: [] });
    expect(template(db, B)).toEqual(otherBefore);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    for (const t of tables) {
      const cols = db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(t) as string[];
      const where = cols.map((c) => `CAST("${c}" AS TEXT) LIKE '%' || ? || '%'`).join(" OR ");
      expect(
        db
          .prepare(`SELECT count(*) FROM "${t}" WHERE ${where}`)
          .pluck()
          .get(...cols.map(() => A)),
        t,
      ).toBe(0);
    }
    db.close();
    expect((await runCli(["delete", `sqlite:${file}#${A}`])).code).toBe(3);
  });
});
