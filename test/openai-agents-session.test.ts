/**
 * The OpenAI Agents SDK for Python's SQLiteSession as a `sqlite:` layout (`openai-agents-session`), and Responses API
 * item lists (`openai-responses-items`). Python cannot run here, so the rows are what Python's session would store,
 * made by the real JS SDK (test/peers/scripts/openai-python-session.mjs): conversations run with a scripted model into
 * a MemorySession, whose items the SDK's own converter `getInputItems` turns into the Responses API input items it
 * sends — the shape Python's `to_input_list()` gives and `SQLiteSession.add_items` stores. The tables are created with
 * SQLiteSession's DDL and each row holds the text `json.dumps(item)` writes (", " and ": " separators, non-ASCII
 * escaped). What ckpt reads back is checked against the SDK's own items and final outputs.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { convertCheckpoint, convertDocument } from "../src/core/convert.js";
import type { AgentMessage, Checkpoint, ToolResultMessage } from "../src/generated/types.js";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";

type Obj = Record<string, unknown>;
interface Conversation {
  /** the SDK's own session items (AgentInputItem[]) */
  items: Obj[];
  /** getInputItems(items): the Responses API input items */
  responses: Obj[];
  finalOutputs: string[];
}
const NAMES = ["math", "trip", "handoff"] as const;
let sdk: Record<(typeof NAMES)[number], Conversation>;
let dir: string;

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

/** SQLiteSession's tables (sqlite_session.py `_create_schema_for_connection`) with the given names. */
function sessionDb(file: string, sessions = "agent_sessions", messages = "agent_messages"): Database.Database {
  const db = new Database(file);
  db.exec(`CREATE TABLE IF NOT EXISTS ${sessions} (
      session_id TEXT PRIMARY KEY,
      created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
    )`);
  db.exec(`CREATE TABLE IF NOT EXISTS ${messages} (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      message_data TEXT NOT NULL,
      created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      FOREIGN KEY (session_id) REFERENCES ${sessions} (session_id) ON DELETE CASCADE
    )`);
  db.exec(`CREATE INDEX IF NOT EXISTS idx_${messages}_session_id ON ${messages} (session_id, id)`);
  return db;
}

/** SQLiteSession.add_items: the session row, one json.dumps(item) row per item, updated_at. */
function addItems(db: Database.Database, sessionId: string, texts: string[], t = ["agent_sessions", "agent_messages"]) {
  db.transaction(() => {
    db.prepare(`INSERT OR IGNORE INTO ${t[0]} (session_id) VALUES (?)`).run(sessionId);
    const ins = db.prepare(`INSERT INTO ${t[1]} (session_id, message_data) VALUES (?, ?)`);
    for (const text of texts) ins.run(sessionId, text);
    db.prepare(`UPDATE ${t[0]} SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?`).run(sessionId);
  })();
}

const dirState = () =>
  readdirSync(dir)
    .sort()
    .map(
      (f) =>
        `${f}:${createHash("sha256")
          .update(readFileSync(join(dir, f)))
          .digest("hex")}`,
    );

beforeAll(async () => {
  sdk = (await runPeer<typeof sdk>("scripts/openai-python-session.mjs", { op: "write" })).out;
  dir = mkdtempSync(join(tmpdir(), "ckpt-oa-session-"));
  const db = sessionDb(join(dir, "sessions.db"));
  // a session's turns are added run by run, as the Python runner does (one add_items per turn)
  for (const name of NAMES) {
    const texts = sdk[name].responses.map(pyDumps);
    const cut = texts.findIndex((t, i) => i > 0 && t.startsWith('{"role": "user"'));
    if (cut > 0) {
      addItems(db, name, texts.slice(0, cut));
      addItems(db, name, texts.slice(cut));
    } else addItems(db, name, texts);
  }
  db.close();
  const custom = sessionDb(join(dir, "custom.db"), "chat_sessions", "chat_items");
  addItems(custom, "math", sdk.math.responses.map(pyDumps), ["chat_sessions", "chat_items"]);
  custom.close();
  const damaged = sessionDb(join(dir, "damaged.db"));
  const [first, call, _output, ...rest] = sdk.math.responses;
  const { call_id: _drop, ...callWithoutId } = call as Obj;
  addItems(damaged, "math", [
    pyDumps(first),
    pyDumps(callWithoutId),
    '{"type": "function_call_output", "call_id": "call_a1", "output": "5"',
    "42",
    ...rest.map(pyDumps),
  ]);
  // a session that is valid but for one row the SDK skips
  addItems(damaged, "skips", [pyDumps(first), '{"type": "message"', pyDumps(rest[1])]);
  damaged.close();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A conversation as a flat list of what was said, from the SDK's own items. */
function sdkSteps(items: Obj[]): unknown[][] {
  const out: unknown[][] = [];
  for (const it of items) {
    if (it.role === "user") out.push(["user", it.content]);
    else if (it.type === "reasoning") for (const c of it.content as Obj[]) out.push(["thinking", c.text]);
    else if (it.type === "function_call") out.push(["call", it.callId, it.name, JSON.parse(String(it.arguments))]);
    else if (it.type === "function_call_result") out.push(["result", it.callId, (it.output as Obj).text]);
    else if (it.role === "assistant") for (const c of it.content as Obj[]) out.push(["text", c.text]);
    else throw new Error(`unexpected SDK item ${JSON.stringify(it)}`);
  }
  return out;
}

/** The same from a canonical checkpoint. */
function ckptSteps(messages: AgentMessage[]): unknown[][] {
  const out: unknown[][] = [];
  for (const m of messages) {
    const content = (m as { content?: Obj[] }).content ?? [];
    if (m.role === "user") out.push(["user", content.map((c) => c.text).join("")]);
    else if (m.role === "toolResult") {
      const r = m as ToolResultMessage;
      out.push(["result", r.toolCallId, content.map((c) => c.text).join(""), r.toolName]);
    } else if (m.role === "assistant")
      for (const c of content)
        if (c.type === "thinking") out.push(["thinking", c.thinking]);
        else if (c.type === "toolCall") out.push(["call", c.id, c.name, c.arguments]);
        else out.push(["text", c.text]);
    else out.push([m.role]);
  }
  return out;
}

describe("SQLiteSession tables written as Python's session writes them", () => {
  it("the SDK ran what the script asked (its own answers are not empty)", () => {
    expect(sdk.math.finalOutputs).toEqual(["2 + 3 = 5.", "10 + 7 = 17."]);
    expect(sdk.trip.items.some((i) => i.type === "reasoning")).toBe(true);
    expect(sdk.handoff.finalOutputs).toEqual(["Specialist here: it will rain in Oslo."]);
    // the rows hold Responses API items (snake_case), not the JS SDK's own items
    expect(sdk.math.responses.some((i) => i.type === "function_call_output" && typeof i.call_id === "string")).toBe(
      true,
    );
  });

  it("ls lists every session with its item count and times; reading writes nothing", async () => {
    const before = dirState();
    const r = await runCli(["ls", `sqlite:${join(dir, "sessions.db")}`, "--json"]);
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(r.out) as Array<{ sessionId: string; items: number; createdAt: string; layout: string }>;
    expect(rows.map((s) => s.sessionId)).toEqual([...NAMES].sort());
    for (const s of rows) {
      expect(s.layout).toBe("openai-agents-session");
      expect(s.items).toBe(sdk[s.sessionId as (typeof NAMES)[number]].responses.length);
      expect(Number.isNaN(Date.parse(s.createdAt))).toBe(false);
    }
    const text = await runCli(["ls", `sqlite:${join(dir, "sessions.db")}`]);
    expect(text.out).toMatch(/^SESSION\s+ITEMS\s+SIZE\s+CREATED\s+UPDATED/);
    expect(text.out).toContain("3 sessions (Agents SDK SQLiteSession:");
    expect(dirState()).toEqual(before);
  });

  it.each(NAMES)("show --json of session %s gives the conversation the SDK ran, in order", async (name) => {
    const before = dirState();
    const r = await runCli(["show", `sqlite:${join(dir, "sessions.db")}#${name}`, "--json"]);
    expect(r.code, r.err).toBe(0);
    const cp = JSON.parse(r.out) as Checkpoint;
    expect(cp.threadId).toBe(name);
    const steps = ckptSteps(cp.messages);
    // tool results carry the name of their call, which Responses items do not (ckpt finds it from the call)
    const names = new Map(sdk[name].items.filter((i) => i.type === "function_call").map((i) => [i.callId, i.name]));
    expect(steps.map((s) => (s[0] === "result" ? s.slice(0, 3) : s))).toEqual(sdkSteps(sdk[name].items));
    for (const s of steps.filter((x) => x[0] === "result")) expect(s[3]).toBe(names.get(s[1]));
    const last = [...steps].reverse().find((s) => s[0] === "text");
    expect(last?.[1]).toBe(sdk[name].finalOutputs.at(-1));
    expect(dirState()).toEqual(before);
  });

  it("custom table names (?sessions_table=&messages_table=) read the same session", async () => {
    const base = `sqlite:${join(dir, "custom.db")}`;
    const plain = await runCli(["ls", base]);
    expect(plain.code).not.toBe(0); // not SQLiteSession's default tables: not detected
    const uri = `${base}?layout=openai-agents-session&sessions_table=chat_sessions&messages_table=chat_items`;
    const r = await runCli(["show", `${uri}#math`, "--json"]);
    expect(r.code, r.err).toBe(0);
    expect(ckptSteps((JSON.parse(r.out) as Checkpoint).messages).map((s) => s.slice(0, 4))).toEqual(
      ckptSteps(
        (JSON.parse((await runCli(["show", `sqlite:${join(dir, "sessions.db")}#math`, "--json"])).out) as Checkpoint)
          .messages,
      ).map((s) => s.slice(0, 4)),
    );
    const bad = await runCli(["ls", `${base}?layout=openai-agents-session&messages_table=chat-items`]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("messages_table=chat-items");
  });

  it("validate exits 0 on the SDK's sessions", async () => {
    const r = await runCli(["validate", `sqlite:${join(dir, "sessions.db")}`]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("3 valid, 0 invalid");
  });

  it("validate flags damaged rows with their row id: not JSON, not an item, an item without its call id", async () => {
    const before = dirState();
    const r = await runCli(["validate", `sqlite:${join(dir, "damaged.db")}#math`, "--json"]);
    expect(r.code).toBe(1);
    const issues = (JSON.parse(r.out) as { files: Array<{ issues: Array<{ pointer: string; message: string }> }> })
      .files[0]!.issues;
    const at = (p: string) => issues.filter((i) => i.pointer === p || i.pointer.startsWith(`${p}/`));
    expect(
      at("/rows/2/item")
        .map((i) => i.message)
        .join("\n"),
    ).toContain("call_id");
    expect(at("/rows/3/text")[0]?.message).toMatch(/^agent_messages row 3: message_data is not JSON/);
    expect(at("/rows/4/item").map((i) => i.message)).toContainEqual(
      expect.stringMatching(/^agent_messages row 4: message_data is JSON but not a Responses API item/),
    );
    expect(issues.every((i) => /^\/rows\/[234]\//.test(i.pointer))).toBe(true);
    // show gives what the SDK's get_items gives: the row that is not JSON left out
    const s = await runCli(["show", `sqlite:${join(dir, "damaged.db")}#math`, "--json"]);
    expect(s.code, s.err).toBe(0);
    expect(ckptSteps((JSON.parse(s.out) as Checkpoint).messages).filter((x) => x[0] === "result")).toHaveLength(1);
    expect(dirState()).toEqual(before);
    // migrated into another format: the damaged session is rejected as invalid, and the row the SDK skips is
    // reported lost, not dropped without a word
    const out = join(dir, "migrated");
    const m = await runCli([
      "migrate",
      "--from",
      `sqlite:${join(dir, "damaged.db")}`,
      "--to",
      `file:${out}`,
      "--to-format",
      "openai-responses-items",
    ]);
    expect(m.code).not.toBe(0);
    expect(m.out, m.out + m.err).toMatch(
      /rejected: default#math: .*\/rows\/2\/item: not a valid openai-agents-session/,
    );
    expect(m.out, m.out + m.err).toMatch(/rejected: default#skips: .*\/ext\/openai-agents-session\/unreadable/);
    rmSync(out, { recursive: true, force: true });
    expect(dirState()).toEqual(before);
  });
});

describe("Responses API items: ckpt's conversion against the SDK's own converter", () => {
  it.each(NAMES)("%s: the SDK's items → canonical → Responses items equal getInputItems of them", (name) => {
    const viaItems = convertDocument(
      { name: `${name}.json`, text: JSON.stringify(sdk[name].items) },
      { from: "openai-agents-items", to: "openai-responses-items" },
    );
    expect(viaItems.native).toEqual(sdk[name].responses);
  });

  it.each(NAMES)(
    "%s: written new from the canonical messages alone, the items are getInputItems' but for ids",
    (name) => {
      const cp = convertDocument(
        { name: `${name}.json`, text: JSON.stringify(sdk[name].items) },
        { from: "openai-agents-items", to: "ckpt" },
      ).checkpoint;
      const bare = { ...cp, messages: cp.messages.map((m) => ({ ...m, ext: undefined })) } as Checkpoint;
      const r = convertCheckpoint(bare, "openai-responses-items");
      const noIds = (l: Obj[]) => l.map(({ id: _id, ...rest }) => rest);
      expect(r.native).toEqual(noIds(sdk[name].responses));
    },
  );

  it("a list of Responses items is detected as such, validates, and reads back unchanged", async () => {
    const file = join(dir, "trip-items.json");
    writeFileSync(file, `[${sdk.trip.responses.map(pyDumps).join(", ")}]`);
    const v = await runCli(["validate", file, "--json"]);
    expect(v.code, v.out).toBe(0);
    expect(v.out).toContain('"openai-responses-items"');
    const back = convertDocument({ name: file, text: readFileSync(file, "utf8") }, { to: "openai-responses-items" });
    expect(back.native).toEqual(sdk.trip.responses);
    // and into the JS SDK's own item list: the same conversation
    const js = convertDocument({ name: file, text: readFileSync(file, "utf8") }, { to: "openai-agents-items" });
    expect(ckptSteps(js.checkpoint.messages).map((s) => (s[0] === "result" ? s.slice(0, 3) : s))).toEqual(
      sdkSteps(sdk.trip.items),
    );
  });
});

describe("the Responses items schema", () => {
  it("is what scripts/openai-responses-schema.mjs derives from the installed openai package's declarations", () => {
    const root = join(import.meta.dirname, "..");
    // throws (exit 1, naming the file) when the committed schema is stale
    execFileSync(process.execPath, [join(root, "scripts/openai-responses-schema.mjs"), "--check"], { cwd: root });
    const schema = JSON.parse(readFileSync(join(root, "schemas/formats/openai-agents/responses-items.json"), "utf8"));
    const types = schema.$defs.Item.properties.type.enum as unknown[];
    // every item type the SDK's converter produced here is one the union knows
    for (const c of Object.values(sdk)) for (const it of c.responses) expect(types).toContain(it.type ?? null);
  }, 60_000);
});
