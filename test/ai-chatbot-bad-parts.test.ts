/**
 * Issue #42 item 11: a Chat SDK template database whose `Message_v2` row holds `parts` that are not a list (an
 * object, a string, null) — what `validate` rejects, naming the row — is named the same way by every command:
 * `show` (with or without `--format ai-sdk`) refuses the chat naming the row and its problem, never "cannot tell the
 * format" nor a message with its parts dropped; `stats` calls the store a Chat SDK store, not ckpt's own saver;
 * `migrate` rejects those chats (exit 5) naming the row, and verifies only the chat that is whole.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { fillSqliteRows, type Row } from "./helpers/ai-chatbot-db.js";
import { runCli } from "./helpers/cli-io.js";

const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const user = uuid("0000000a", 1);
const at = (s: number) => `2026-02-01T00:00:0${s}.000Z`;
/** chat id → the assistant row's parts (the user row's are a text part) */
const BAD: Record<string, { parts: unknown; row: string; what: string }> = {
  [uuid("0000000c", 1)]: { parts: { type: "text", text: "hi" }, row: uuid("0000000b", 0x21), what: "an object" },
  [uuid("0000000c", 2)]: { parts: "hello", row: uuid("0000000b", 0x22), what: "a string" },
  [uuid("0000000c", 3)]: { parts: null, row: uuid("0000000b", 0x23), what: "null" },
};
const good = uuid("0000000c", 9);
let db: string;
let uri: string;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-chat-parts-"));
  db = join(dir, "chat.db");
  uri = `sqlite:${db}`;
  const rows: Row[] = [["User", { id: user, email: "ada@example.com", password: null }]];
  const chat = (id: string, n: number, parts: unknown, row: string) => {
    rows.push(["Chat", { id, createdAt: at(0), userId: user, title: `chat ${n}`, visibility: "private" }]);
    rows.push([
      "Message_v2",
      {
        id: uuid("0000000b", 0x10 + n),
        chatId: id,
        role: "user",
        parts: [{ type: "text", text: "Weather?" }],
        attachments: [],
        createdAt: at(1),
      },
    ]);
    rows.push(["Message_v2", { id: row, chatId: id, role: "assistant", parts, attachments: [], createdAt: at(2) }]);
  };
  Object.entries(BAD).forEach(([id, b], n) => chat(id, n + 1, b.parts, b.row));
  chat(good, 9, [{ type: "text", text: "Sunny." }], uuid("0000000b", 0x29));
  fillSqliteRows(db, rows);
});

describe("Message_v2 rows whose parts are not a list", () => {
  it("validate names each row (exit 1); the whole chat is valid", async () => {
    const r = await runCli(["validate", uri]);
    expect(r.code, r.out + r.err).toBe(1);
    for (const [id, b] of Object.entries(BAD))
      expect(r.out).toContain(`${uri}#${id}: error /1/parts: expected an array (Message_v2 row ${b.row}, column parts`);
    expect(r.out).toContain(`${uri}#${good}: ok`);
  });

  for (const format of [[], ["--format", "ai-sdk"]])
    it(`show ${format.join(" ")}: exit 3 naming the row and its problem, as validate does`, async () => {
      for (const [id, b] of Object.entries(BAD)) {
        const r = await runCli(["show", `${uri}#${id}`, ...format]);
        expect(r.code, `${b.what}: ${r.out}${r.err}`).toBe(3);
        expect(r.err).toContain(`/1/parts: expected an array (Message_v2 row ${b.row}, column parts`);
        expect(r.err).not.toMatch(/cannot tell the format/);
        expect(r.out).toBe("");
      }
      const ok = await runCli(["show", `${uri}#${good}`, ...format]);
      expect(ok.code, ok.err).toBe(0);
      expect(ok.out).toContain("Sunny.");
    });

  it("stats calls it a Chat SDK store, not ckpt's own saver", async () => {
    const r = await runCli(["stats", uri]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/ckpt's own saver/);
    expect(r.out).toMatch(/a Chat SDK store/);
  });

  it("migrate rejects those chats naming the row (exit 5) and verifies only the whole one", async () => {
    const to = join(mkdtempSync(join(tmpdir(), "ckpt-chat-parts-to-")), "to.db");
    const r = await runCli(["migrate", "--from", uri, "--to", `sqlite:${to}?layout=ai-chatbot`, "--json"]);
    expect(r.code, r.out + r.err).toBe(5);
    const s = JSON.parse(r.out.trim().split("\n").pop()!) as {
      written: number;
      verified: number;
      rejectedRecords: Array<{ threadId: string; reason: string }>;
    };
    expect([s.written, s.verified]).toEqual([1, 1]);
    expect(s.rejectedRecords.map((x) => x.threadId).sort()).toEqual(Object.keys(BAD).sort());
    for (const x of s.rejectedRecords)
      expect(x.reason).toContain(`Message_v2 row ${BAD[x.threadId]!.row}, column parts`);
    const d = new Database(to, { readonly: true });
    const chats = d.prepare(`SELECT DISTINCT "chatId" FROM "Message_v2"`).pluck().all();
    d.close();
    expect(chats).toEqual([good]);
  });
});
