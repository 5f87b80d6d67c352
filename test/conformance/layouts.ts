/**
 * One builder per store layout ckpt reads or writes, for the engine conformance suite: each `build()` makes a fresh,
 * isolated store (its own temp file, PostgreSQL schema or Redis prefix) written by the layout's own library, and
 * returns its URI, what that library itself says the store holds (never what ckpt reads from it), and a cleanup.
 * `empty()` gives a fresh store of the layout with nothing in it, for writing into it.
 */
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { openSaver } from "../../src/savers/index.js";
import { fillPgRows, fillSqliteRows, type Row } from "../helpers/ai-chatbot-db.js";
import { writeGraphs } from "../helpers/langgraph-graphs.js";
import { closeSaver, pgSaver, sqliteSaver } from "../helpers/lg-js.js";
import { type MastraThreadBack, writeMastra } from "../helpers/mastra.js";
import { runPeer } from "../helpers/peers.js";
import { PG } from "../helpers/pg-schemas.js";
import { deleteRedisKeys } from "../helpers/redis-keys.js";

export const REDIS = process.env.CKPT_TEST_REDIS ?? "redis://127.0.0.1:6379";
export { PG };
const ROOT = join(import.meta.dirname, "..", "..");

/**
 * What was said in a conversation, in order: user turns and the assistant's text, each tool call (its id, tool name
 * and arguments) and each tool result (the id of its call).
 */
export type Turn = ["user" | "assistant", string] | ["call", string, string, unknown] | ["result", string];
export type Said = Turn[];

export interface ExpectedThread {
  id: string;
  /** how many messages (rows, items) the writing library reports for the thread */
  messages: number;
  /** what was said, from the writer's own messages */
  said: Said;
  /** the ids of the thread's checkpoints, newest first (layouts that keep a history) */
  history?: string[];
}

export interface Built {
  uri: string;
  threads: ExpectedThread[];
  cleanup(): Promise<void>;
}

export interface Layout {
  /** the row name in the report */
  name: string;
  /** the layout ckpt should detect (`layout` of ls --json rows) */
  layout: string;
  /** the writer's store holds tool calls and results (the show test compares them too) */
  toolCalls?: boolean;
  /** the format `migrate --to-format` converts documents into for this layout (undefined: documents as they are) */
  format?: string;
  /** a fresh store written by the layout's own library */
  build(): Promise<Built>;
  /** a fresh store of this layout holding nothing (undefined: the layout has no empty form ckpt could write into) */
  empty?(): Promise<{ uri: string; cleanup(): Promise<void> }>;
}

const run = randomBytes(3).toString("hex");
let seq = 0;
const unique = (p: string) => `${p}_${run}_${++seq}`;
const tempDir = (p: string) => mkdtempSync(join(tmpdir(), `ckpt-conf-${p}-`));
const rmDir = (d: string) => async () => rmSync(d, { recursive: true, force: true });

async function pgQuery(sql: string, args?: unknown[]): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  try {
    return await c.query(sql, args);
  } finally {
    await c.end();
  }
}
const dropSchema = (s: string) => async () => void (await pgQuery(`DROP SCHEMA IF EXISTS "${s}" CASCADE`));

/** `f` run once; every later call gets the first call's promise. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/**
 * Stores a layout's library writes once per test file, then copied for each build: the library's own bytes in a new
 * file (SQLite) or its own rows in a new schema with the same table definitions (PostgreSQL), so that a test that
 * changes its store gets a fresh one without running the library (or its Node 22 peer) again. The template goes when
 * the last copy's cleanup runs.
 */
function fileTemplate(
  name: string,
  file: string,
  write: (file: string) => Promise<ExpectedThread[]>,
): () => Promise<{ file: string; threads: ExpectedThread[]; cleanup(): Promise<void> }> {
  const template = once(async () => {
    const d = tempDir(`${name}-template`);
    return { dir: d, threads: await write(join(d, file)) };
  });
  let live = 0;
  return async () => {
    const t = await template();
    const d = tempDir(name);
    copyFileSync(join(t.dir, file), join(d, file));
    live++;
    return {
      file: join(d, file),
      threads: structuredClone(t.threads),
      cleanup: async () => {
        rmSync(d, { recursive: true, force: true });
        if (--live === 0) rmSync(t.dir, { recursive: true, force: true });
      },
    };
  };
}

function schemaTemplate(
  name: string,
  write: (schema: string) => Promise<ExpectedThread[]>,
): () => Promise<{ schema: string; threads: ExpectedThread[]; cleanup(): Promise<void> }> {
  const template = once(async () => {
    const s = unique(`${name}_template`);
    return { schema: s, threads: await write(s) };
  });
  let live = 0;
  return async () => {
    const t = await template();
    const s = unique(name);
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    try {
      const tables = await c.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
        [t.schema],
      );
      await c.query("BEGIN");
      await c.query(`CREATE SCHEMA "${s}"`);
      for (const { t: table } of tables.rows) {
        await c.query(`CREATE TABLE "${s}"."${table}" (LIKE "${t.schema}"."${table}" INCLUDING ALL)`);
        await c.query(`INSERT INTO "${s}"."${table}" SELECT * FROM "${t.schema}"."${table}"`);
      }
      await c.query("COMMIT");
    } finally {
      await c.end();
    }
    live++;
    return {
      schema: s,
      threads: structuredClone(t.threads),
      cleanup: async () => {
        await dropSchema(s)();
        if (--live === 0) await dropSchema(t.schema)();
      },
    };
  };
}

/* ---------------------------------------------------------------- ckpt's own savers and deep-agent's folder */

/** deep-agent FileSaver documents (written by deepagentsdk's own FileSaver, fixtures/savers/deepagent-filesaver) */
const FOLDER = join(ROOT, "fixtures/savers/deepagent-filesaver");
type DeepAgentDoc = { threadId: string; messages: Array<{ role: string; content: unknown }> };
function deepAgentDocs(): Array<{ file: string; text: string; doc: DeepAgentDoc }> {
  return readdirSync(FOLDER)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const text = readFileSync(join(FOLDER, f), "utf8");
      return { file: f, text, doc: JSON.parse(text) as DeepAgentDoc };
    });
}
function saidOfDeepAgent(doc: DeepAgentDoc): Said {
  type Part = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown };
  const out: Said = [];
  for (const m of doc.messages) {
    const parts: Part[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Part[]);
    for (const p of parts) {
      if (p.type === "text" && p.text && (m.role === "user" || m.role === "assistant")) out.push([m.role, p.text]);
      else if (p.type === "tool-call") out.push(["call", p.toolCallId!, p.toolName!, p.input]);
      else if (p.type === "tool-result") out.push(["result", p.toolCallId!]);
    }
  }
  return out;
}
const expectedOfDeepAgent = (doc: DeepAgentDoc): ExpectedThread => ({
  id: doc.threadId,
  messages: doc.messages.length,
  said: saidOfDeepAgent(doc),
});

/** ckpt's own saver at `uri`, filled through its own API (save), the documents as the saver loads them back. */
async function ckptSaverStore(uri: string, cleanup: () => Promise<void>): Promise<Built> {
  const s = await openSaver(uri);
  const threads: ExpectedThread[] = [];
  try {
    for (const { doc, text } of deepAgentDocs()) await s.save(doc.threadId, text);
    // a third thread, so that deleting one leaves more than one
    const third = { ...deepAgentDocs()[0]!.doc, threadId: "third" };
    await s.save("third", JSON.stringify(third));
    for await (const t of s.list()) threads.push(expectedOfDeepAgent(JSON.parse((await s.load(t.threadId))!)));
  } finally {
    await s.close();
  }
  return { uri, threads, cleanup };
}

export const memory: Layout = {
  name: "memory",
  layout: "ckpt",
  build: () => {
    const uri = `memory:${unique("conf")}`;
    return ckptSaverStore(uri, async () => {
      const s = await openSaver(uri);
      for await (const t of s.list()) await s.delete(t.threadId);
      await s.close();
    });
  },
  empty: async () => ({ uri: `memory:${unique("conf-empty")}`, cleanup: async () => undefined }),
};

export const sqlite: Layout = {
  name: "sqlite",
  layout: "ckpt",
  build: () => {
    const d = tempDir("sqlite");
    return ckptSaverStore(`sqlite:${join(d, "ckpt.db")}`, rmDir(d));
  },
  empty: async () => {
    const d = tempDir("sqlite-empty");
    return { uri: `sqlite:${join(d, "ckpt.db")}`, cleanup: rmDir(d) };
  },
};

export const redis: Layout = {
  name: "redis",
  layout: "ckpt",
  build: () => {
    const prefix = `${unique("ckpt-conf")}:`;
    return ckptSaverStore(`${REDIS}?prefix=${encodeURIComponent(prefix)}`, () => deleteRedisKeys(prefix, REDIS));
  },
  empty: async () => {
    const prefix = `${unique("ckpt-conf-empty")}:`;
    return { uri: `${REDIS}?prefix=${encodeURIComponent(prefix)}`, cleanup: () => deleteRedisKeys(prefix, REDIS) };
  },
};

export const postgres: Layout = {
  name: "postgres",
  layout: "ckpt",
  build: () => {
    const s = unique("ckpt_conf");
    return ckptSaverStore(`${PG}?schema=${s}`, dropSchema(s));
  },
  empty: async () => {
    const s = unique("ckpt_conf_empty");
    return { uri: `${PG}?schema=${s}`, cleanup: dropSchema(s) };
  },
};

/** A folder of deep-agent FileSaver files, as deepagentsdk's FileSaver wrote them (copied byte for byte). */
export const folder: Layout = {
  name: "folder (deep-agent)",
  layout: "folder",
  build: async () => {
    const d = tempDir("folder");
    const threads: ExpectedThread[] = [];
    for (const { file, doc } of deepAgentDocs()) {
      copyFileSync(join(FOLDER, file), join(d, file));
      threads.push(expectedOfDeepAgent(doc));
    }
    return { uri: `file:${d}`, threads, cleanup: rmDir(d) };
  },
  empty: async () => {
    const d = tempDir("folder-empty");
    mkdirSync(join(d, "out"));
    return { uri: `file:${join(d, "out")}`, cleanup: rmDir(d) };
  },
};

/* ---------------------------------------------------------------- LangGraph (the real JS savers) */

type LcMessage = {
  getType(): string;
  content: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
  tool_call_id?: string;
};
const lcText = (c: unknown) =>
  typeof c === "string"
    ? c
    : (c as Array<{ type: string; text?: string }>)
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("");

/** What the library's own list() says: per root thread its checkpoints (newest first) and the latest messages. */
async function langGraphExpected(saver: BaseCheckpointSaver): Promise<ExpectedThread[]> {
  const byThread = new Map<string, ExpectedThread>();
  for await (const t of saver.list({})) {
    const c = t.config.configurable!;
    if ((c.checkpoint_ns ?? "") !== "") continue;
    const id = String(c.thread_id);
    let e = byThread.get(id);
    if (!e) {
      // list() gives each thread's checkpoints newest first: the first one holds the latest messages
      const msgs = (t.checkpoint.channel_values.messages ?? []) as LcMessage[];
      const said: Said = [];
      for (const m of msgs) {
        const role = m.getType() === "human" ? "user" : m.getType() === "ai" ? "assistant" : undefined;
        const text = lcText(m.content);
        if (role && text) said.push([role, text]);
        for (const c of m.tool_calls ?? []) said.push(["call", c.id!, c.name, c.args]);
        if (m.getType() === "tool") said.push(["result", m.tool_call_id!]);
      }
      e = { id, messages: msgs.length, said, history: [] };
      byThread.set(id, e);
    }
    e.history!.push(String(c.checkpoint_id));
  }
  return [...byThread.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

const langgraphSqliteStore = fileTemplate("lg", "checkpoints.sqlite", async (file) => {
  const saver = sqliteSaver(file);
  try {
    await writeGraphs(saver);
    return await langGraphExpected(saver);
  } finally {
    await closeSaver(saver);
  }
});

const langgraphPgStore = schemaTemplate("lg_conf", async (s) => {
  const saver = pgSaver(PG, s);
  try {
    await saver.setup();
    await writeGraphs(saver);
    return await langGraphExpected(saver);
  } finally {
    await closeSaver(saver);
  }
});

export const langgraphSqlite: Layout = {
  name: "langgraph-sqlite",
  layout: "langgraph",
  format: "langgraph",
  toolCalls: true,
  build: async () => {
    const b = await langgraphSqliteStore();
    return { uri: `sqlite:${b.file}`, threads: b.threads, cleanup: b.cleanup };
  },
  empty: async () => {
    // an empty store set up by the library itself (its tables, no rows)
    const d = tempDir("lg-empty");
    const file = join(d, "checkpoints.sqlite");
    const saver = sqliteSaver(file);
    await saver.getTuple({ configurable: { thread_id: "none" } });
    await closeSaver(saver);
    return { uri: `sqlite:${file}`, cleanup: rmDir(d) };
  },
};

export const langgraphPostgres: Layout = {
  name: "langgraph-postgres",
  layout: "langgraph",
  format: "langgraph",
  toolCalls: true,
  build: async () => {
    const b = await langgraphPgStore();
    return { uri: `${PG}?schema=${b.schema}`, threads: b.threads, cleanup: b.cleanup };
  },
  empty: async () => {
    const s = unique("lg_conf_empty");
    const saver = pgSaver(PG, s);
    await saver.setup();
    await closeSaver(saver);
    return { uri: `${PG}?schema=${s}`, cleanup: dropSchema(s) };
  },
};

/* ---------------------------------------------------------------- Mastra (the real packages, Node 22) */

/** A small spec (the full one is test/helpers/mastra.ts MASTRA_SPEC): two resources, a tool call, working memory. */
const MASTRA_CONF_SPEC = {
  threads: [
    {
      id: "trip-1",
      resource: "alice",
      title: "Trip planning",
      turns: [
        { user: "Weather in Paris?", tool: "Paris" },
        { user: "Thanks!", answer: "Pack sunglasses." },
      ],
    },
    { id: "bob-1", resource: "bob", title: "Bob's thread", turns: [{ user: "hello", answer: "Hello, Bob." }] },
    { id: "bob-2", resource: "bob", turns: [{ user: "Weather in Lima?", tool: "Lima" }] },
  ],
  workingMemory: { alice: "# Alice\n- Likes: sunny places" },
};

function mastraExpected(back: MastraThreadBack[]): ExpectedThread[] {
  type Part = {
    type: string;
    text?: string;
    toolInvocation?: { toolCallId: string; toolName: string; args: unknown; state: string };
  };
  return back
    .map((t) => {
      const said: Said = [];
      for (const m of t.messages) {
        if (m.role !== "user" && m.role !== "assistant") continue;
        const parts = (m.content.parts ?? []) as Part[];
        if (m.role === "user" && typeof m.content.content === "string") {
          said.push(["user", m.content.content]);
          continue;
        }
        for (const p of parts) {
          if (p.type === "text" && p.text) said.push([m.role, p.text]);
          else if (p.type === "tool-invocation") {
            const c = p.toolInvocation!;
            said.push(["call", c.toolCallId, c.toolName, c.args]);
            if (c.state === "result") said.push(["result", c.toolCallId]);
          }
        }
      }
      return { id: t.id, messages: t.messages.length, said };
    })
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

// writeMastra checkpoints LibSQL's WAL into the file: the file alone is the whole store
const mastraLibsqlStore = fileTemplate("mastra", "mastra.db", async (file) =>
  mastraExpected(await writeMastra({ kind: "libsql", file }, MASTRA_CONF_SPEC)),
);
const mastraPgStore = schemaTemplate("mastra_conf", async (schema) =>
  mastraExpected(await writeMastra({ kind: "pg", url: PG, schema }, MASTRA_CONF_SPEC)),
);

export const mastraLibsql: Layout = {
  name: "mastra-libsql",
  layout: "mastra",
  format: "mastra",
  toolCalls: true,
  build: async () => {
    const b = await mastraLibsqlStore();
    return { uri: `sqlite:${b.file}`, threads: b.threads, cleanup: b.cleanup };
  },
  empty: async () => {
    const d = tempDir("mastra-empty");
    return { uri: `sqlite:${join(d, "mastra.db")}?layout=mastra`, cleanup: rmDir(d) };
  },
};

export const mastraPostgres: Layout = {
  name: "mastra-postgres",
  layout: "mastra",
  format: "mastra",
  toolCalls: true,
  build: async () => {
    const b = await mastraPgStore();
    return { uri: `${PG}?schema=${b.schema}`, threads: b.threads, cleanup: b.cleanup };
  },
  empty: async () => {
    const s = unique("mastra_conf_empty");
    return { uri: `${PG}?schema=${s}&layout=mastra`, cleanup: dropSchema(s) };
  },
};

/* ---------------------------------------------------------------- the Chat SDK template's tables (ai@6 chats) */

type UiMessage = {
  id: string;
  role: string;
  parts: Array<{ type: string; text?: string; toolCallId?: string; input?: unknown; state?: string }>;
};
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** Chats written by the AI SDK major the template pins (ai@6: test/peers/scripts/ai-sdk.mjs), a row per UI message. */
const chatbotRows = once(async (): Promise<{ rows: Row[]; threads: ExpectedThread[] }> => {
  const chats = (
    await runPeer<Record<string, Record<string, UiMessage[]>>>("scripts/ai-sdk.mjs", {
      op: "write",
      majors: [6],
    })
  ).out["6"]!;
  const user = uuid("0000000a", 1);
  const rows: Row[] = [["User", { id: user, email: "ada@example.com", password: null }]];
  const threads: ExpectedThread[] = [];
  let n = 0;
  let msg = 0;
  for (const name of ["text", "tools", "reasoning"]) {
    const messages = chats[name]!;
    const id = uuid("0000000c", ++n);
    rows.push([
      "Chat",
      {
        id,
        title: `v6 ${name}`,
        userId: user,
        visibility: "private",
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
      },
    ]);
    messages.forEach((m, i) =>
      rows.push([
        "Message_v2",
        {
          id: uuid("0000000e", ++msg),
          chatId: id,
          role: m.role,
          parts: m.parts,
          attachments: [],
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, n, i)).toISOString(),
        },
      ]),
    );
    const said: Said = [];
    for (const m of messages)
      for (const p of m.parts) {
        if (p.type === "text" && p.text && (m.role === "user" || m.role === "assistant")) said.push([m.role, p.text]);
        else if (p.type.startsWith("tool-")) {
          said.push(["call", p.toolCallId!, p.type.slice("tool-".length), p.input]);
          if (p.state === "output-available" || p.state === "output-error") said.push(["result", p.toolCallId!]);
        }
      }
    threads.push({ id, messages: messages.length, said });
  }
  return { rows, threads };
});

export const aiChatbotSqlite: Layout = {
  name: "ai-chatbot-sqlite",
  layout: "ai-chatbot",
  format: "ai-sdk",
  toolCalls: true,
  build: async () => {
    const d = tempDir("chatbot");
    const file = join(d, "chat.db");
    const { rows, threads } = structuredClone(await chatbotRows());
    fillSqliteRows(file, rows);
    return { uri: `sqlite:${file}`, threads, cleanup: rmDir(d) };
  },
  empty: async () => {
    const d = tempDir("chatbot-empty");
    const file = join(d, "chat.db");
    fillSqliteRows(file, [["User", { id: uuid("0000000a", 1), email: "ada@example.com", password: null }]]);
    return { uri: `sqlite:${file}`, cleanup: rmDir(d) };
  },
};

export const aiChatbotPostgres: Layout = {
  name: "ai-chatbot-postgres",
  layout: "ai-chatbot",
  format: "ai-sdk",
  toolCalls: true,
  build: async () => {
    const s = unique("chatbot_conf");
    const { rows, threads } = structuredClone(await chatbotRows());
    await fillPgRows(pgQuery, s, rows);
    return { uri: `${PG}?schema=${s}`, threads, cleanup: dropSchema(s) };
  },
  empty: async () => {
    const s = unique("chatbot_conf_empty");
    await fillPgRows(pgQuery, s, [["User", { id: uuid("0000000a", 1), email: "ada@example.com", password: null }]]);
    return { uri: `${PG}?schema=${s}`, cleanup: dropSchema(s) };
  },
};

/* ---------------------------------------------------------------- the Agents SDK's SQLiteSession */

type Obj = Record<string, unknown>;

/** The text Python's `json.dumps(value)` writes (default separators ", " and ": ", ensure_ascii). */
function pyDumps(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v as Obj)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${pyDumps(k)}: ${pyDumps(x)}`)
      .join(", ")}}`;
  if (typeof v === "string")
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return JSON.stringify(v);
}

/** SQLiteSession's tables (sqlite_session.py `_create_schema_for_connection`). */
function sessionDb(file: string): Database.Database {
  const db = new Database(file);
  db.exec(`CREATE TABLE IF NOT EXISTS agent_sessions (session_id TEXT PRIMARY KEY,
      created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`);
  db.exec(`CREATE TABLE IF NOT EXISTS agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
      message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE)`);
  db.exec("CREATE INDEX IF NOT EXISTS idx_agent_messages_session_id ON agent_messages (session_id, id)");
  return db;
}

/**
 * Sessions as Python's SQLiteSession stores them: conversations the real JS SDK ran with a scripted model
 * (test/peers/scripts/openai-python-session.mjs), their Responses API input items (what `to_input_list()` gives),
 * one `json.dumps(item)` row each (see test/openai-agents-session.test.ts).
 */
const sessionConversations = once(
  async () =>
    (
      await runPeer<Record<string, { items: Obj[]; responses: Obj[] }>>("scripts/openai-python-session.mjs", {
        op: "write",
      })
    ).out,
);

export const openaiSession: Layout = {
  name: "openai-agents-session",
  layout: "openai-agents-session",
  format: "openai-agents-session",
  toolCalls: true,
  build: async () => {
    const sdk = await sessionConversations();
    const d = tempDir("oa-session");
    const file = join(d, "sessions.db");
    const db = sessionDb(file);
    const threads: ExpectedThread[] = [];
    for (const name of ["handoff", "math", "trip"]) {
      const c = sdk[name]!;
      db.transaction(() => {
        db.prepare("INSERT INTO agent_sessions (session_id) VALUES (?)").run(name);
        const ins = db.prepare("INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)");
        for (const item of c.responses) ins.run(name, pyDumps(item));
      })();
      const said: Said = [];
      for (const it of c.items) {
        if (it.role === "user") said.push(["user", String(it.content)]);
        else if (it.role === "assistant" && it.type === "message")
          said.push(["assistant", (it.content as Obj[]).map((x) => x.text).join("")]);
        else if (it.type === "function_call")
          said.push(["call", String(it.callId), String(it.name), JSON.parse(String(it.arguments))]);
        else if (it.type === "function_call_result") said.push(["result", String(it.callId)]);
      }
      threads.push({ id: name, messages: c.responses.length, said });
    }
    db.close();
    return { uri: `sqlite:${file}`, threads, cleanup: rmDir(d) };
  },
};

export const LAYOUTS: Layout[] = [
  memory,
  sqlite,
  redis,
  postgres,
  folder,
  langgraphSqlite,
  langgraphPostgres,
  mastraLibsql,
  mastraPostgres,
  aiChatbotSqlite,
  aiChatbotPostgres,
  openaiSession,
];
