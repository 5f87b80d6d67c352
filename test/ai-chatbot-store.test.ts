/**
 * #30: the Chat SDK template's tables (vercel/ai-chatbot, lib/db) as a store layout (`ai-chatbot`) of postgres://
 * and sqlite:. The PostgreSQL database is built from the template's DDL as its Drizzle migrations (0000-0008) leave
 * it, in a schema unique to the run; the SQLite one holds the same tables with SQLite types (the template ships
 * PostgreSQL only). `Message` is filled with chats AI SDK 4's own functions wrote (generateText's response
 * messages, saved a row each as the template did then: test/peers/scripts/ai-chatbot.mjs), `Message_v2` with chats
 * written by the AI SDK major the template pins today (ai 6.0.x: test/peers/scripts/ai-sdk.mjs), a row per UI
 * message as its saveMessages writes them. What ckpt reads is checked against the real majors: a Message chat's
 * messages are those AI SDK 4's appendResponseMessages makes of its rows, a Message_v2 chat is accepted by ai@6's
 * validateUIMessages with the model messages of the chat that was written.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { fillPgRows, fillSqliteRows, JSON_COLUMNS, pgDdl, SQLITE_DDL } from "./helpers/ai-chatbot-db.js";
import { openSaver } from "../src/savers/index.js";
import { normalize } from "./helpers/ai-sdk-model.js";

type J = Record<string, unknown>;
interface V4Chat {
  rows: Array<{ id: string; role: string; content: unknown; createdAt: string }>;
  ui: J[];
  core: unknown[];
}
interface Verdict {
  ok: boolean;
  error?: string;
  model?: unknown[];
}

const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const USERS = [
  { id: uuid("0000000a", 1), email: "ada@example.com" },
  { id: uuid("0000000a", 2), email: "bob@example.com" },
];

interface Chat {
  id: string;
  title: string;
  userId: string;
  visibility: string;
  createdAt: string;
}
const v4Chats: Record<string, V4Chat & { chat: Chat }> = {};
const v6Chats: Record<
  string,
  {
    chat: Chat;
    messages: J[];
    rows: Array<J & { id: string; role: string; parts: unknown; createdAt: string }>;
    model: unknown[];
  }
> = {};

/** Every row to insert: [table, columns] in order. */
function rowsToInsert(): Array<[string, J]> {
  const out: Array<[string, J]> = USERS.map((u) => ["User", { ...u, password: null }]);
  for (const c of [...Object.values(v4Chats), ...Object.values(v6Chats)]) out.push(["Chat", { ...c.chat }]);
  for (const c of Object.values(v4Chats))
    for (const r of c.rows)
      out.push(["Message", { id: r.id, chatId: c.chat.id, role: r.role, content: r.content, createdAt: r.createdAt }]);
  for (const c of Object.values(v6Chats)) for (const r of c.rows) out.push(["Message_v2", r]);
  return out;
}
function fillSqlite(file: string): void {
  fillSqliteRows(file, rowsToInsert());
}

async function fillPg(query: ReturnType<typeof pgTestSchemas>["query"], s: string): Promise<void> {
  await fillPgRows(query, s, rowsToInsert());
}

const schemas = pgTestSchemas("ckpt_chatbot");
let dir: string;
let file: string;
let schema: string;
const uriOf = (b: "sqlite" | "pg") => (b === "sqlite" ? `sqlite:${file}` : `${PG}?schema=${schema}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-chatbot-"));
  file = join(dir, "chatbot.db");
  const [v4, v6] = await Promise.all([
    runPeer<Record<string, V4Chat>>("scripts/ai-chatbot.mjs", { op: "v4" }),
    runPeer<Record<string, Record<string, J[]>>>("scripts/ai-sdk.mjs", { op: "write", majors: [6] }),
  ]);
  let n = 0;
  let msg = 0;
  for (const [name, c] of Object.entries(v4.out)) {
    n++;
    const chat = {
      id: uuid("0000000c", n),
      title: `v4 ${name}`,
      userId: USERS[n % 2]!.id,
      visibility: "private",
      createdAt: c.rows[0]!.createdAt,
    };
    v4Chats[name] = { ...c, chat };
  }
  // Message_v2: the template's saveMessages — a row per UI message (uuid ids), parts as written, attachments []
  for (const [name, messages] of Object.entries(v6.out["6"]!)) {
    n++;
    const chat = {
      id: uuid("0000000c", n),
      title: `v6 ${name}`,
      userId: USERS[n % 2]!.id,
      visibility: n % 3 ? "private" : "public",
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
    };
    const withIds = messages.map((m): J => ({ ...m, id: uuid("0000000e", ++msg) }));
    const rows = withIds.map((m, i) => ({
      id: String(m.id),
      chatId: chat.id,
      role: String(m.role),
      parts: m.parts,
      attachments: [],
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, n, i)).toISOString(),
    }));
    v6Chats[name] = { chat, messages: withIds, rows, model: [] };
  }
  const checked = await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
    op: "check",
    items: Object.values(v6Chats).map((c) => ({ major: 6, messages: c.messages })),
  });
  Object.values(v6Chats).forEach((c, i) => {
    expect(checked.out[i]!.ok, checked.out[i]!.error).toBe(true);
    c.model = checked.out[i]!.model!;
  });
  schema = schemas.schema("src");
  fillSqlite(file);
  await fillPg(schemas.query, schema);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqliteBytes = () => readFileSync(file).toString("base64");

/** The store's document of each chat, as show/validate read it (the saver view). */
async function documents(uri: string, ids: string[]): Promise<J[][]> {
  const saver = await openSaver(uri, { readOnly: true });
  try {
    const out: J[][] = [];
    for (const id of ids) out.push(JSON.parse((await saver.load(id))!) as J[]);
    return out;
  } finally {
    await saver.close();
  }
}

describe.each(["sqlite", "pg"] as const)("a Chat SDK template database (%s)", (backend) => {
  it("ls lists every chat with its title, user, visibility and its rows in Message and Message_v2", async () => {
    const before = backend === "sqlite" ? sqliteBytes() : "";
    const r = await runCli(["ls", uriOf(backend), "--json"]);
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(r.out) as Array<J>;
    const all = [...Object.values(v4Chats), ...Object.values(v6Chats)];
    expect(rows.map((x) => x.id).sort()).toEqual(all.map((c) => c.chat.id).sort());
    for (const c of Object.values(v4Chats)) {
      const row = rows.find((x) => x.id === c.chat.id)!;
      expect(row).toMatchObject({
        layout: "ai-chatbot",
        title: c.chat.title,
        userId: c.chat.userId,
        visibility: "private",
      });
      expect(row.email).toBe(USERS.find((u) => u.id === c.chat.userId)!.email);
      expect([row.messages, row.messagesV2]).toEqual([c.rows.length, 0]);
      expect(row.createdAt).toBe(c.chat.createdAt);
    }
    for (const c of Object.values(v6Chats)) {
      const row = rows.find((x) => x.id === c.chat.id)!;
      expect([row.messages, row.messagesV2, row.visibility]).toEqual([0, c.rows.length, c.chat.visibility]);
    }
    const text = await runCli(["ls", uriOf(backend)]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(`${all.length} chats (Chat SDK template`);
    expect(text.out).toContain("bob@example.com");
    if (backend === "sqlite") expect(sqliteBytes()).toBe(before); // reading never writes
  });

  it("a Message chat reads as the UI messages AI SDK 4's appendResponseMessages makes of its rows", async () => {
    const docs = await documents(
      uriOf(backend),
      Object.values(v4Chats).map((c) => c.chat.id),
    );
    Object.values(v4Chats).forEach((c, i) => expect(docs[i]).toEqual(c.ui));
  });

  it("show --json of a chat is its canonical checkpoint through the ai-sdk format (v4 for Message, v5+ for Message_v2)", async () => {
    for (const c of [...Object.values(v4Chats), ...Object.values(v6Chats)]) {
      const r = await runCli(["show", `${uriOf(backend)}#${c.chat.id}`, "--json"]);
      expect(r.code, r.err).toBe(0);
      const cp = JSON.parse(r.out) as { threadId: string; origin: { format: string; version: string }; messages: J[] };
      expect(cp.threadId).toBe(c.chat.id);
      expect(cp.origin.format).toBe("ai-sdk");
      expect(cp.origin.version === "4").toBe("ui" in c);
      // one canonical message per model message the chat's own major gives
      expect(cp.messages.length).toBe("ui" in c ? (c as V4Chat).core.length : (c as { model: unknown[] }).model.length);
    }
  });

  it("a Message_v2 chat reads as the template's reader gives it, which ai@6 accepts with the written chat's model messages", async () => {
    const docs = await documents(
      uriOf(backend),
      Object.values(v6Chats).map((c) => c.chat.id),
    );
    Object.values(v6Chats).forEach((c, i) =>
      // the template's convertToUIMessages: {id, role, parts, metadata: {createdAt}} per row, by createdAt
      expect(docs[i]).toEqual(
        c.rows.map((row) => ({ id: row.id, role: row.role, parts: row.parts, metadata: { createdAt: row.createdAt } })),
      ),
    );
    const checked = await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
      op: "check",
      items: docs.map((messages) => ({ major: 6, messages })),
    });
    Object.values(v6Chats).forEach((c, i) => {
      expect(checked.out[i]!.ok, checked.out[i]!.error).toBe(true);
      expect(checked.out[i]!.model).toEqual(c.model);
    });
  });

  it("show renders a chat: its text, tool calls with their results", async () => {
    const c = v4Chats.tools!;
    const r = await runCli(["show", `${uriOf(backend)}#${c.chat.id}`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("Weather in Paris and Rome?");
    expect(r.out).toContain("weather");
    expect(r.out).toContain("Paris 15°, Rome 12°.");
  });

  it("validate: every chat of the store is valid (exit 0), each by its own major", async () => {
    const r = await runCli(["validate", uriOf(backend), "--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const rep = JSON.parse(r.out) as { files: Array<{ file: string; valid: boolean; formatVersion?: string }> };
    expect(rep.files).toHaveLength(Object.keys(v4Chats).length + Object.keys(v6Chats).length);
    for (const c of Object.values(v4Chats))
      expect(rep.files.find((f) => f.file.endsWith(`#${c.chat.id}`))).toMatchObject({
        valid: true,
        formatVersion: "4",
      });
    for (const c of Object.values(v6Chats))
      expect(rep.files.find((f) => f.file.endsWith(`#${c.chat.id}`))?.valid).toBe(true);
  });
});

describe.each(["sqlite", "pg"] as const)("damaged rows in a Chat SDK template database (%s)", (backend) => {
  const chatId = uuid("0000000d", 1);
  const user = uuid("0000000d", 2);
  const noOutput = uuid("0000000d", 3);
  const orphanTool = uuid("0000000d", 4);
  const notJson = uuid("0000000d", 5);
  const v4Chat = uuid("0000000d", 6);
  const lossyChat = uuid("0000000d", 9);
  const imageRow = uuid("0000000d", 10);
  let uri: string;
  let where: string;

  beforeAll(async () => {
    const at = "2026-02-01T00:00:00.000Z";
    const rows: Array<[string, J]> = [
      ["User", { id: USERS[0]!.id, email: USERS[0]!.email, password: null }],
      ["Chat", { id: chatId, createdAt: at, userId: USERS[0]!.id, title: "damaged", visibility: "private" }],
      ["Chat", { id: v4Chat, createdAt: at, userId: USERS[0]!.id, title: "damaged v4", visibility: "private" }],
      [
        "Message_v2",
        { id: user, chatId, role: "user", parts: [{ type: "text", text: "Weather?" }], attachments: [], createdAt: at },
      ],
      [
        "Message_v2",
        {
          id: noOutput,
          chatId,
          role: "assistant",
          parts: [{ type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Oslo" } }],
          attachments: [],
          createdAt: "2026-02-01T00:00:01.000Z",
        },
      ],
      ["Message", { id: uuid("0000000d", 7), chatId: v4Chat, role: "user", content: "Hi", createdAt: at }],
      [
        "Message",
        {
          id: uuid("0000000d", 8),
          chatId: v4Chat,
          role: "assistant",
          content: [{ type: "text", text: "Hello" }],
          createdAt: at,
        },
      ],
      ["Chat", { id: lossyChat, createdAt: at, userId: USERS[0]!.id, title: "an image", visibility: "public" }],
      [
        "Message",
        {
          id: imageRow,
          chatId: lossyChat,
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", image: "iVBORw0KGgo=", mimeType: "image/png" },
          ],
          createdAt: at,
        },
      ],
      [
        "Message",
        {
          id: uuid("0000000d", 11),
          chatId: lossyChat,
          role: "assistant",
          content: [{ type: "text", text: "A pixel." }],
          createdAt: "2026-02-01T00:00:01.000Z",
        },
      ],
      [
        "Message",
        {
          id: orphanTool,
          chatId: v4Chat,
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "nobody", toolName: "weather", result: 1 }],
          createdAt: "2026-02-01T00:00:01.000Z",
        },
      ],
    ];
    if (backend === "sqlite") {
      const f = join(dir, "damaged.db");
      const db = new Database(f);
      db.exec(SQLITE_DDL);
      for (const [t, r] of rows) {
        const cols = Object.keys(r);
        db.prepare(
          `INSERT INTO "${t}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
        ).run(...cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(r[c]) : r[c])));
      }
      // SQLite holds any text in a JSON column: a parts value that is not JSON
      db.prepare(
        `INSERT INTO "Message_v2" VALUES (?, ?, 'assistant', '[{"type": "text"', '[]', '2026-02-01T00:00:02.000Z')`,
      ).run(notJson, chatId);
      db.close();
      uri = `sqlite:${f}`;
      where = f;
    } else {
      const s = schemas.schema("damaged");
      await schemas.query(pgDdl(s));
      for (const [t, r] of rows) {
        const cols = Object.keys(r);
        await schemas.query(
          `INSERT INTO "${s}"."${t}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
          cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(r[c]) : r[c])),
        );
      }
      uri = `${PG}?schema=${s}`;
      where = s;
    }
  });

  it("validate flags each damaged row by table, row id and JSON pointer (exit 1)", async () => {
    const r = await runCli(["validate", uri, "--json"]);
    expect(r.code, r.out + r.err).toBe(1);
    const rep = JSON.parse(r.out) as { files: Array<{ file: string; valid: boolean; issues: Array<J> }> };
    const v2 = rep.files.find((f) => f.file.endsWith(`#${chatId}`))!;
    expect(v2.valid).toBe(false);
    const missing = v2.issues.find((i) => String(i.pointer).startsWith("/1/parts/0"))!;
    expect(missing.severity).toBe("error");
    expect(missing.message).toContain(`Message_v2 row ${noOutput}, column parts at /0`);
    if (backend === "sqlite") {
      const bad = v2.issues.find((i) => i.rule === "store/ai-chatbot-row")!;
      expect(bad).toMatchObject({ severity: "error", pointer: "/2/parts" });
      expect(bad.message).toContain(`Message_v2 row ${notJson}, column parts: not JSON`);
    }
    const v4 = rep.files.find((f) => f.file.endsWith(`#${v4Chat}`))!;
    expect(v4.valid).toBe(false);
    const orphan = v4.issues.find((i) => i.rule === "store/ai-chatbot-row")!;
    expect(orphan.message).toContain(`Message row ${orphanTool}`);
    expect(orphan.message).toContain("'nobody'");
    // one chat, named by its id: the same findings
    const one = await runCli(["validate", `${uri}#${chatId}`, "--json"]);
    expect(one.code, one.out + one.err).toBe(1);
    const only = (JSON.parse(one.out) as { files: Array<{ issues: J[] }> }).files[0]!;
    expect(only.issues.map((i) => i.message)).toEqual(v2.issues.map((i) => i.message));
    // a part AI SDK 4's UI messages have no place for (an image in a user's content): a warning on its row
    const image = rep.files.find((f) => f.file.endsWith(`#${lossyChat}`))!;
    expect(image.issues.find((i) => i.rule === "store/ai-chatbot-row")).toMatchObject({ severity: "warning" });
  });

  it("migrate refuses what cannot be converted (named), and takes the lossy chat only with --allow-lossy", async () => {
    const before = await dump(backend, where);
    const r = await runCli(["migrate", "--from", uri, "--to", uri, "--json"]);
    expect(r.code, r.out + r.err).toBe(5);
    const sum = JSON.parse(r.out.trim().split("\n").pop()!) as {
      rejectedRecords: Array<{ threadId: string; reason: string }>;
    };
    const why = (id: string) => sum.rejectedRecords.find((x) => x.threadId === id)?.reason;
    expect(why(lossyChat)).toContain(`Message row ${imageRow}`);
    expect(why(lossyChat)).toContain("--allow-lossy");
    expect(why(v4Chat)).toContain(`Message row ${orphanTool}`);
    if (backend === "sqlite") expect(why(chatId)).toContain(`Message_v2 row ${notJson}`);
    expect(await dump(backend, where)).toBe(before); // nothing written: each chat was rejected or already there
    const lossy = await runCli(["migrate", "--from", uri, "--to", uri, "--allow-lossy", "--json"]);
    expect(lossy.code, lossy.out + lossy.err).toBe(5); // the orphan tool result is still refused
    const after = JSON.parse(lossy.out.trim().split("\n").pop()!) as {
      written: number;
      rejectedRecords: Array<{ threadId: string }>;
    };
    expect(after.written).toBe(1);
    expect(after.rejectedRecords.map((x) => x.threadId)).not.toContain(lossyChat);
    const loaded = await templateLoads(backend, where, lossyChat);
    expect(loaded.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(loaded[0]!.parts).toEqual([{ type: "text", text: "What is this?" }]);
  });
});

describe.each(["sqlite", "pg"] as const)(
  "ckpt migrate in place: Message chats into the same database's Message_v2 (%s)",
  (backend) => {
    let uri: string;
    let where: string;
    beforeAll(async () => {
      if (backend === "sqlite") {
        where = join(dir, "in-place.db");
        fillSqlite(where);
        uri = `sqlite:${where}`;
      } else {
        where = schemas.schema("inplace");
        await fillPg(schemas.query, where);
        uri = `${PG}?schema=${where}`;
      }
    });

    it("writes only chats with no Message_v2 rows; Message, Chat, User and the existing Message_v2 rows stay as they were", async () => {
      const before = JSON.parse(await dump(backend, where)) as unknown[][];
      const r = await runCli(["migrate", "--from", uri, "--to", uri, "--json"]);
      expect(r.code, r.out + r.err).toBe(0);
      const sum = JSON.parse(r.out.trim().split("\n").pop()!) as { written: number; identical: number };
      expect([sum.written, sum.identical]).toEqual([Object.keys(v4Chats).length, Object.keys(v6Chats).length]);
      const after = JSON.parse(await dump(backend, where)) as unknown[][];
      expect(after.slice(0, 3)).toEqual(before.slice(0, 3)); // User, Chat, Message
      expect(after[3]!.slice(0, before[3]!.length)).toEqual(before[3]); // the Message_v2 rows that were there
      const v4 = Object.values(v4Chats);
      const loaded: J[][] = [];
      for (const c of v4) loaded.push(await templateLoads(backend, where, c.chat.id));
      const checked = await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
        op: "check",
        items: loaded.map((messages) => ({ major: 6, messages })),
      });
      v4.forEach((c, i) => {
        expect(checked.out[i]!.ok, checked.out[i]!.error).toBe(true);
        expect(normalize(checked.out[i]!.model!)).toEqual(normalize(c.core));
      });
      // the chats now read from Message_v2 (the template's reader), and the store still validates
      const ls = JSON.parse((await runCli(["ls", uri, "--json"])).out) as J[];
      for (const c of v4)
        expect(ls.find((x) => x.id === c.chat.id)).toMatchObject({ messages: c.rows.length, messagesV2: c.ui.length });
      const v = await runCli(["validate", uri]);
      expect(v.code, v.out + v.err).toBe(0);
    });

    it("a chat whose target rows differ from what the migration would write is a conflict, left alone (exit 1)", async () => {
      let other: string;
      let otherWhere: string;
      if (backend === "sqlite") {
        otherWhere = join(dir, "conflict.db");
        other = `sqlite:${otherWhere}?layout=ai-chatbot`;
      } else {
        otherWhere = schemas.schema("conflict");
        other = `${PG}?schema=${otherWhere}&layout=ai-chatbot`;
      }
      expect((await runCli(["migrate", "--from", uri, "--to", other])).code).toBe(0);
      const c = v4Chats.text!;
      const row = (await templateLoads(backend, otherWhere, c.chat.id))[1]!;
      const edited = JSON.stringify([{ type: "text", text: "edited by the app" }]);
      if (backend === "sqlite") {
        const db = new Database(otherWhere);
        db.prepare(`UPDATE "Message_v2" SET "parts" = ? WHERE "id" = ?`).run(edited, row.id);
        db.close();
      } else
        await schemas.query(`UPDATE "${otherWhere}"."Message_v2" SET "parts" = $1 WHERE "id" = $2`, [edited, row.id]);
      const before = await dump(backend, otherWhere);
      const r = await runCli(["migrate", "--from", uri, "--to", other, "--json"]);
      expect(r.code, r.out + r.err).toBe(1);
      const sum = JSON.parse(r.out.trim().split("\n").pop()!) as {
        written: number;
        identical: number;
        conflicts: Array<{ threadId: string }>;
      };
      expect([sum.written, sum.identical]).toEqual([0, Object.keys(v4Chats).length + Object.keys(v6Chats).length - 1]);
      expect(sum.conflicts.map((x) => x.threadId)).toEqual([c.chat.id]);
      expect(await dump(backend, otherWhere)).toBe(before);
    });
  },
);

/** Every row of the template's chat tables, as stored (the source must not change). */
async function dump(backend: "sqlite" | "pg", where: string): Promise<string> {
  const tables = ["User", "Chat", "Message", "Message_v2"];
  if (backend === "sqlite") {
    const db = new Database(where, { readonly: true });
    try {
      return JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()));
    } finally {
      db.close();
    }
  }
  const out: unknown[] = [];
  for (const t of tables)
    out.push((await schemas.query(`SELECT row_to_json(x)::text AS j FROM "${where}"."${t}" x ORDER BY ctid`)).rows);
  return JSON.stringify(out);
}

/**
 * A chat's Message_v2 rows loaded the way the template loads them — getMessagesByChatId (rows by chatId ordered by
 * createdAt ascending) then convertToUIMessages ({id, role, parts, metadata: {createdAt}}) — read here with plain
 * SQL, apart from ckpt.
 */
async function templateLoads(backend: "sqlite" | "pg", where: string, chatId: string): Promise<J[]> {
  let rows: Array<{ id: string; role: string; parts: string | unknown; createdAt: string | Date }>;
  if (backend === "sqlite") {
    const db = new Database(where, { readonly: true });
    rows = db
      .prepare(`SELECT * FROM "Message_v2" WHERE "chatId" = ? ORDER BY "createdAt" ASC`)
      .all(chatId) as typeof rows;
    db.close();
  } else
    rows = (
      await schemas.query(
        `SELECT "id", "role", "parts", to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt" FROM "${where}"."Message_v2" WHERE "chatId" = $1 ORDER BY "createdAt" ASC`,
        [chatId],
      )
    ).rows;
  return rows.map((r) => ({
    id: r.id,
    role: r.role,
    parts: typeof r.parts === "string" ? JSON.parse(r.parts) : r.parts,
    metadata: { createdAt: new Date(r.createdAt).toISOString() },
  }));
}

describe.each(["sqlite", "pg"] as const)("ckpt migrate: every Message chat into Message_v2 (%s)", (backend) => {
  let target: string;
  let targetWhere: string;
  let sourceWhere: string;
  beforeAll(() => {
    sourceWhere = backend === "sqlite" ? file : schema;
    if (backend === "sqlite") {
      targetWhere = join(dir, "target.db");
      target = `sqlite:${targetWhere}?layout=ai-chatbot`;
    } else {
      targetWhere = schemas.schema("target");
      target = `${PG}?schema=${targetWhere}&layout=ai-chatbot`;
    }
  });

  it("--dry-run plans every chat and writes nothing", async () => {
    const before = await dump(backend, sourceWhere);
    const r = await runCli(["migrate", "--from", uriOf(backend), "--to", target, "--dry-run", "--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const s = JSON.parse(r.out.trim().split("\n").pop()!) as { summary?: J } & J;
    const sum = (s.summary ?? s) as { written: number; chatbotRows: { converted: number } };
    expect(sum.written).toBe(Object.keys(v4Chats).length + Object.keys(v6Chats).length);
    expect(sum.chatbotRows.converted).toBe(Object.keys(v4Chats).length);
    if (backend === "sqlite") expect(() => readFileSync(targetWhere)).toThrow();
    else
      expect(
        (
          await schemas.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1", [
            targetWhere,
          ])
        ).rows[0].n,
      ).toBe(0);
    expect(await dump(backend, sourceWhere)).toBe(before);
  });

  it("into a new store: every chat in Message_v2 loads as the template loads it, ai@6 accepts it, and gives ai@4's model messages", async () => {
    const before = await dump(backend, sourceWhere);
    const r = await runCli(["migrate", "--from", uriOf(backend), "--to", target]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out + r.err).toContain(`${Object.keys(v4Chats).length} of the chats converted from Message`);
    expect(await dump(backend, sourceWhere)).toBe(before); // the source untouched
    const v4 = Object.values(v4Chats);
    const loaded: J[][] = [];
    for (const c of v4) loaded.push(await templateLoads(backend, targetWhere, c.chat.id));
    const checked = await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
      op: "check",
      items: loaded.map((messages) => ({ major: 6, messages })),
    });
    v4.forEach((c, i) => {
      expect(loaded[i]!.length).toBe(c.ui.length);
      expect(checked.out[i]!.ok, checked.out[i]!.error).toBe(true);
      // model messages equal up to representation (test/helpers/ai-sdk-model.ts: args ↔ input, result ↔ output)
      expect(normalize(checked.out[i]!.model!)).toEqual(normalize(c.core));
      // ids and times are the source's: the user's row id and the first response row's
      expect(loaded[i]!.map((m) => m.id)).toEqual(c.ui.map((m) => m.id));
    });
    // Message_v2 chats copied as they were
    for (const c of Object.values(v6Chats))
      expect(await templateLoads(backend, targetWhere, c.chat.id)).toEqual(
        c.rows.map((row) => ({ id: row.id, role: row.role, parts: row.parts, metadata: { createdAt: row.createdAt } })),
      );
    // diff: a Message chat against its Message_v2 rows
    const bare = target.replace(/[?&]layout=ai-chatbot/, "");
    const d = await runCli([
      "diff",
      `${uriOf(backend)}#${v4Chats.tools!.chat.id}`,
      `${bare}#${v4Chats.tools!.chat.id}`,
    ]);
    // the same conversation: 6 messages each side, identical as the user sees it (exit 0, #38 item 13); with --verbose
    // only the representation differs (the key order the ai-sdk format keeps for writing back, the major read: 4 from
    // Message, 5+ from Message_v2)
    expect(d.code, d.out + d.err).toBe(0);
    expect(d.out).toMatch(/6 messages\)\n\+\+\+ b: .*6 messages\)/);
    expect(d.out).toMatch(/note: versions differ \(ai-sdk 4 vs \d\)/);
    expect(d.out).toContain("Identical.");
    const dv = await runCli([
      "diff",
      `${uriOf(backend)}#${v4Chats.tools!.chat.id}`,
      `${bare}#${v4Chats.tools!.chat.id}`,
      "--verbose",
    ]);
    expect(dv.code, dv.err).toBe(1);
    const changed = dv.out.split("\n").filter((l) => /^\s+\/\S+: /.test(l));
    expect(changed.length).toBeGreaterThan(0);
    for (const l of changed)
      expect(l.trim()).toMatch(/^\/(messages\/\d+\/ext\/ai-sdk\/order: added|origin\/version: "4" → "5")/);
    // users and chats went with them
    const ls = JSON.parse((await runCli(["ls", target.replace(/[?&]layout=ai-chatbot/, ""), "--json"])).out) as J[];
    expect(ls.map((x) => [x.id, x.title, x.email, x.messages]).sort()).toEqual(
      [...v4, ...Object.values(v6Chats)]
        .map((c) => [c.chat.id, c.chat.title, USERS.find((u) => u.id === c.chat.userId)!.email, 0])
        .sort(),
    );
    // again: every chat is there already, identical
    const again = await runCli(["migrate", "--from", uriOf(backend), "--to", target, "--json"]);
    expect(again.code, again.out + again.err).toBe(0);
    const s = JSON.parse(again.out.trim().split("\n").pop()!) as J;
    const sum = (s.summary ?? s) as { written: number; identical: number };
    expect([sum.written, sum.identical]).toEqual([0, v4.length + Object.keys(v6Chats).length]);
  });
});
