/**
 * #37: a foreign SQLite store missing a table or column — as an older release of its library wrote it (Mastra before
 * 0.10 had no `mastra_resources` and no `mastra_messages.resourceId`), or damaged — is never an internal error
 * (exit 70): every command reads it as the version that lacked the part, or refuses it with exit 3 naming what is
 * missing. Each table and each column of Mastra's memory tables, the Chat SDK template's chat tables and the Agents
 * SDK's SQLiteSession tables is dropped in turn from a store with a thread in it, and ls, show, log, validate, stats,
 * view and migrate run on it; and a Mastra PostgreSQL schema without each part older `@mastra/pg` releases lacked.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillSqliteRows } from "./helpers/ai-chatbot-db.js";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const ROOT = join(import.meta.dirname, "..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-optional-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Layout {
  name: string;
  /** make the store at `file` */
  make(file: string): void;
  /** a thread in it */
  thread: string;
  /** the URI of the store */
  uri(file: string): string;
  tables: string[];
  /** parts whose absence is a version of the library: every command must read the store (exit 0) */
  optional: string[];
}

const mastra: Layout = {
  name: "mastra",
  make: (file) => copyFileSync(join(ROOT, "fixtures/versions/mastra/1.71/store.db"), file),
  thread: "trip-1",
  uri: (f) => `sqlite:${f}`,
  tables: ["mastra_threads", "mastra_messages", "mastra_resources"],
  optional: [
    "mastra_resources",
    "mastra_messages.resourceId",
    "mastra_messages.type",
    "mastra_threads.metadata",
    "mastra_threads.title",
    "mastra_resources.workingMemory",
    "mastra_resources.metadata",
  ],
};

const chatbot: Layout = {
  name: "ai-chatbot",
  make(file) {
    const u = "00000000-0000-4000-8000-000000000001";
    const c = "00000000-0000-4000-8000-0000000000c1";
    fillSqliteRows(file, [
      ["User", { id: u, email: "a@example.com", password: null }],
      ["Chat", { id: c, createdAt: "2026-01-01T00:00:00.000Z", userId: u, title: "Hello", visibility: "private" }],
      [
        "Message_v2",
        {
          id: "00000000-0000-4000-8000-0000000000m1",
          chatId: c,
          role: "user",
          parts: [{ type: "text", text: "hi" }],
          attachments: [],
          createdAt: "2026-01-01T00:00:01.000Z",
        },
      ],
      [
        "Message_v2",
        {
          id: "00000000-0000-4000-8000-0000000000m2",
          chatId: c,
          role: "assistant",
          parts: [{ type: "text", text: "hello" }],
          attachments: [],
          createdAt: "2026-01-01T00:00:02.000Z",
        },
      ],
    ]);
  },
  thread: "00000000-0000-4000-8000-0000000000c1",
  uri: (f) => `sqlite:${f}?layout=ai-chatbot`,
  tables: ["User", "Chat", "Message", "Message_v2"],
  optional: ["Message", "Message_v2.attachments", "Chat.visibility", "User"],
};

const session: Layout = {
  name: "openai-agents-session",
  make(file) {
    const db = new Database(file);
    db.exec(`CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE);
      CREATE INDEX idx_agent_messages_session_id ON agent_messages (session_id, id);`);
    db.prepare("INSERT INTO agent_sessions (session_id) VALUES ('s1')").run();
    const ins = db.prepare("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', ?)");
    ins.run(JSON.stringify({ role: "user", content: "hi" }));
    ins.run(
      JSON.stringify({
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "hello", annotations: [] }],
      }),
    );
    db.close();
  },
  thread: "s1",
  uri: (f) => `sqlite:${f}`,
  tables: ["agent_sessions", "agent_messages"],
  optional: ["agent_sessions", "agent_sessions.created_at", "agent_sessions.updated_at", "agent_messages.created_at"],
};

/** Drop a table, or a column (with the indexes over its table first: SQLite will not drop an indexed column). */
function drop(file: string, what: string): void {
  const db = new Database(file);
  const [table, column] = what.split(".") as [string, string | undefined];
  db.pragma("foreign_keys = OFF");
  if (column === undefined) db.exec(`DROP TABLE "${table}"`);
  else {
    const idx = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
      .pluck()
      .all(table) as string[];
    for (const i of idx) db.exec(`DROP INDEX "${i}"`);
    db.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
  }
  db.close();
}

/** Every column of every table of a fresh store of the layout. */
function partsOf(l: Layout): string[] {
  const file = join(dir, `${l.name}-probe.db`);
  l.make(file);
  const db = new Database(file, { readonly: true });
  const out: string[] = [];
  for (const t of l.tables) {
    out.push(t);
    for (const c of db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(t) as string[])
      out.push(`${t}.${c}`);
  }
  db.close();
  return out;
}

const COMMANDS = (uri: string, thread: string, out: string): string[][] => [
  ["ls", uri],
  ["show", `${uri}#${thread}`],
  ["log", `${uri}#${thread}`],
  ["validate", uri],
  ["stats", uri],
  ["view", `${uri}#${thread}`, "-o", join(out, "page.html")],
  ["migrate", "--from", uri, "--to", `sqlite:${join(out, "copy.db")}`, "--to-format", "ckpt"],
];

describe.each([mastra, chatbot, session])("$name: each table and column dropped in turn", (l) => {
  it("never exits 70; an optional part read as the version that lacked it, a required one refused with exit 3 naming it", async () => {
    const problems: string[] = [];
    const parts = partsOf(l);
    expect(parts.length).toBeGreaterThan(6);
    for (const what of parts) {
      const file = join(dir, `${l.name}-${what}.db`);
      l.make(file);
      try {
        drop(file, what);
      } catch {
        continue; // SQLite cannot drop it (a primary key): no store can lack it
      }
      const out = mkdtempSync(join(dir, "out-"));
      const uri = l.uri(file);
      for (const argv of COMMANDS(uri, l.thread, out)) {
        const r = await runCli(argv);
        const say = `${what} dropped: ckpt ${argv[0]} → ${r.code} ${(r.err || r.out).slice(0, 300)}`;
        if (r.code === 70 || /internal error| {4}at /.test(r.err)) problems.push(say);
        else if (l.optional.includes(what)) {
          if (r.code !== 0) problems.push(say);
        } else if (r.code !== 0) {
          const [table, column] = what.split(".") as [string, string | undefined];
          // refused: exit 3 naming the table or column
          if (r.code !== 3 || !`${r.err}${r.out}`.includes(column ?? table)) problems.push(say);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("Mastra PostgreSQL: each optional table and column an older @mastra/pg lacked, dropped in turn", () => {
  const pgs = pgTestSchemas("ckpt_optional");
  const DROPS = [
    "mastra_resources",
    "mastra_messages.resourceId",
    "mastra_messages.createdAtZ",
    "mastra_threads.createdAtZ",
    "mastra_threads.updatedAtZ",
    "mastra_resources.createdAtZ",
    "mastra_threads.metadata",
  ];
  it("every command reads the schema (exit 0), never exit 70", async () => {
    const problems: string[] = [];
    for (const [k, what] of DROPS.entries()) {
      const schema = pgs.schema(`d${k}`);
      const uri = `${PG}?schema=${schema}`;
      const fixture = join(dir, `pg-src-${k}.db`);
      copyFileSync(join(ROOT, "fixtures/versions/mastra/1.71/store.db"), fixture);
      const m = await runCli(["migrate", "--from", `sqlite:${fixture}`, "--to", `${uri}&layout=mastra`]);
      expect(m.code, m.err).toBe(0);
      const [table, column] = what.split(".") as [string, string | undefined];
      await pgs.query(
        column === undefined
          ? `DROP TABLE "${schema}"."${table}"`
          : `ALTER TABLE "${schema}"."${table}" DROP COLUMN "${column}"`,
      );
      const out = mkdtempSync(join(dir, "pg-out-"));
      for (const argv of COMMANDS(uri, "trip-1", out)) {
        const r = await runCli(argv);
        if (r.code !== 0)
          problems.push(`${what} dropped: ckpt ${argv[0]} → ${r.code} ${(r.err || r.out).slice(0, 300)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
