/**
 * Across agents, with the real LangGraph JS: every seed format's thread converted into a LangGraph store
 * (`ckpt convert -t langgraph -o <store>#<thread>`, `ckpt migrate --to <LangGraph store>`) is loaded by a
 * StateGraph(MessagesAnnotation) compiled on the real SqliteSaver / PostgresSaver — `getState` gives the source's
 * messages (roles, text, tool calls, tool results, usage) — and one more `invoke` with a fake chat model adds a
 * checkpoint and a message. `--to-library python` rows decode with the independent msgpack decoder as Python's
 * (ext 5 messages, padded string versions). And back: a LangGraph thread (newest or `@id`) → every seed format, its
 * messages as LangGraph JS's own getState gives them, lossy fields reported.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import Database from "better-sqlite3";
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { BaseMessage } from "@langchain/core/messages";
import { main } from "../src/cli/main.js";
import { readCheckpoint } from "../src/formats/index.js";
import type { AgentMessage } from "../src/generated/types.js";
import { cliIO } from "./helpers/cli-io.js";
import { closeSaver, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { unpack, type Ext } from "./helpers/lg-independent.js";

const root = join(import.meta.dirname, "..");
const fx = join(root, "fixtures");
const PG = "postgres://postgres@127.0.0.1:5432/test";
const run = randomBytes(4).toString("hex");
const schemas: string[] = [];
let client: pg.Client;
const work = mkdtempSync(join(tmpdir(), "lg-across-"));

beforeAll(async () => {
  client = new pg.Client({ connectionString: PG });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG} (${(e as Error).message}): start it with 'pg_ctlcluster 15 main start'`,
    );
  }
});
afterAll(async () => {
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

async function ckpt(...argv: string[]) {
  const io = cliIO({ cwd: work });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** A one-node chat graph on `saver` whose model answers from a list. */
function app(saver: BaseCheckpointSaver, answer: string) {
  const model = new FakeListChatModel({ responses: [answer] });
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
}

const ROLE: Record<string, string> = { user: "human", assistant: "ai", toolResult: "tool", system: "system" };
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .filter((b) => b?.type === "text")
          .map((b) => b.text)
          .join("")
      : "";

/** What a conversation says, from canonical messages (LLM messages only: extension messages have no LangChain form). */
function fromCanonical(ms: AgentMessage[]) {
  return ms
    .filter((m) => m.role in ROLE)
    .map((m) => {
      const c = (
        m as { content: Array<{ type: string; text?: string; id?: string; name?: string; arguments?: unknown }> }
      ).content;
      return {
        type: ROLE[m.role],
        text: c
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join(""),
        calls: c.filter((b) => b.type === "toolCall").map((b) => [b.id, b.name, b.arguments ?? {}]),
        callId: m.role === "toolResult" ? (m as { toolCallId: string }).toolCallId : undefined,
        output: m.role === "assistant" ? (m as { usage?: { output: number } }).usage?.output : undefined,
      };
    });
}

/** The same, from the messages LangGraph JS loaded. */
function fromLangChain(ms: BaseMessage[]) {
  return ms.map((m) => {
    const ai = m as BaseMessage & {
      tool_calls?: Array<{ id: string; name: string; args: unknown }>;
      usage_metadata?: { output_tokens: number };
      tool_call_id?: string;
    };
    return {
      type: m.getType(),
      text: textOf(m.content),
      calls: (ai.tool_calls ?? []).map((c) => [c.id, c.name, c.args]),
      callId: m.getType() === "tool" ? ai.tool_call_id : undefined,
      output: m.getType() === "ai" ? ai.usage_metadata?.output_tokens : undefined,
    };
  });
}

/** A document as ckpt reads it (a file, or a folder for amacs). */
function sourceMessages(path: string) {
  const text = statSync(path).isDirectory() ? undefined : readFileSync(path, "utf8");
  if (text === undefined) {
    // amacs: the home folder's org files, as ckpt reads a folder
    const files: Record<string, string> = {};
    for (const f of readdirSync(path))
      if (statSync(join(path, f)).isFile()) files[f] = readFileSync(join(path, f), "utf8");
    return readCheckpoint({ name: path, files } as never).checkpoint.messages;
  }
  return readCheckpoint({ name: path, text }).checkpoint.messages;
}

const SAMPLES: Array<[string, string]> = [
  ["yoagent", "yoagent/valid/save_messages.v0.18.json"],
  ["yoagent-session", "yoagent-session/valid/session.v0.18.jsonl"],
  ["phi-core", "phi-core/valid/save_messages.v0.10.json"],
  ["phi-core-session", "phi-core-session/valid/session.sess-1.v0.10.json"],
  ["swarmer", "swarmer/valid/agent_123456789.pkl"],
  ["deepagent", "deepagent/valid/user_42_session_1.json"],
  ["amacs", "amacs/valid/agent-home"],
];

describe("seed format → LangGraph thread that LangGraph JS loads and continues", () => {
  for (const [format, rel] of SAMPLES) {
    it(`${format}: convert into SQLite; getState gives the source's messages; invoke adds a checkpoint and a message`, async () => {
      const db = join(work, `${format}.db`);
      const r = await ckpt(
        "convert",
        join(fx, rel),
        "-t",
        "langgraph",
        "-o",
        `sqlite:${db}#t-${format}`,
        "--allow-lossy",
      );
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/read back and verified/);
      const saver = sqliteSaver(db);
      try {
        const g = app(saver, "continuing");
        const cfg = { configurable: { thread_id: `t-${format}` } };
        const state = await g.getState(cfg);
        const expected = fromCanonical(sourceMessages(join(fx, rel)));
        expect(expected.length).toBeGreaterThan(0);
        expect(fromLangChain(state.values.messages)).toEqual(expected);
        const out = await g.invoke({ messages: [{ role: "user", content: "and now?" }] }, cfg);
        expect(out.messages).toHaveLength(expected.length + 2);
        expect(out.messages.at(-1)!.content).toBe("continuing");
        let n = 0;
        for await (const _ of saver.list(cfg)) n++;
        expect(n).toBeGreaterThan(1);
      } finally {
        await closeSaver(saver);
      }
    });
  }

  it("into PostgreSQL (JS layout, blobs split as the JS saver does): the real PostgresSaver loads and continues", async () => {
    const s = `lgacross_${run}`;
    schemas.push(s);
    const src = join(fx, "swarmer/valid/agent_123456789.pkl");
    const r = await ckpt("convert", src, "-t", "langgraph", "-o", `${PG}?schema=${s}#swarm-1`, "--allow-lossy");
    expect(r.code, r.err).toBe(0);
    expect((await client.query(`SELECT max(v) AS v FROM "${s}".checkpoint_migrations`)).rows[0].v).toBe(4);
    const saver = pgSaver(PG, s);
    try {
      const g = app(saver, "pg continues");
      const cfg = { configurable: { thread_id: "swarm-1" } };
      const expected = fromCanonical(sourceMessages(src));
      expect(fromLangChain((await g.getState(cfg)).values.messages)).toEqual(expected);
      const out = await g.invoke({ messages: [{ role: "user", content: "more" }] }, cfg);
      expect(out.messages).toHaveLength(expected.length + 2);
    } finally {
      await closeSaver(saver);
    }
  });

  it("--to-library python: msgpack rows with ext 5 messages and padded string versions (independent decoder)", async () => {
    const db = join(work, "py.db");
    const src = join(fx, "yoagent/valid/save_messages.v0.18.json");
    const r = await ckpt(
      "convert",
      src,
      "-t",
      "langgraph",
      "-o",
      `sqlite:${db}#py-1`,
      "--to-library",
      "python",
      "--allow-lossy",
    );
    expect(r.code, r.err).toBe(0);
    const d = new Database(db, { readonly: true });
    const row = d.prepare("SELECT type, checkpoint, metadata FROM checkpoints WHERE thread_id = 'py-1'").get() as {
      type: string;
      checkpoint: Buffer;
      metadata: Buffer;
    };
    d.close();
    expect(row.type).toBe("msgpack");
    const cp = unpack(row.checkpoint) as {
      channel_versions: Record<string, unknown>;
      channel_values: { messages: Ext[] };
    };
    // Python's f"{n:032}.{0.0:016}"
    for (const v of Object.values(cp.channel_versions)) expect(v).toMatch(/^\d{32}\.0{14}\.0$/);
    const classes = cp.channel_values.messages.map((m) =>
      m.ext === 5 ? (m.payload as unknown[]).slice(0, 2).join(".") : "?",
    );
    const want = fromCanonical(sourceMessages(src)).map(
      (m) =>
        ({
          human: "langchain_core.messages.human.HumanMessage",
          ai: "langchain_core.messages.ai.AIMessage",
          tool: "langchain_core.messages.tool.ToolMessage",
          system: "langchain_core.messages.system.SystemMessage",
        })[m.type!],
    );
    expect(classes).toEqual(want);
    expect(JSON.parse(row.metadata.toString("utf8"))).toMatchObject({ source: "update" });
  });

  it("a thread the store already holds is refused (exit 1, nothing written); a lossy conversion needs --allow-lossy", async () => {
    const db = join(work, "taken.db");
    copyFileSync(join(fx, "langgraph", "js-a.sqlite"), db);
    const before = readFileSync(db);
    const r = await ckpt(
      "convert",
      join(fx, "swarmer/valid/agent_123456789.pkl"),
      "-t",
      "langgraph",
      "-o",
      `sqlite:${db}#a-chat-1`,
      "--allow-lossy",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/thread 'a-chat-1' already has 10 checkpoints .*nothing written/);
    expect(readFileSync(db).equals(before)).toBe(true);
    const lossy = await ckpt(
      "convert",
      join(fx, "yoagent/valid/save_messages.v0.18.json"),
      "-t",
      "langgraph",
      "-o",
      `sqlite:${join(work, "lossy.db")}#x`,
    );
    expect(lossy.code).toBe(1);
    expect(lossy.err).toMatch(/would drop .*timestamp/s);
    expect(
      (
        await ckpt(
          "convert",
          join(fx, "swarmer/valid/agent_123456789.pkl"),
          "-t",
          "yoagent",
          "-o",
          `sqlite:${join(work, "x.db")}#x`,
        )
      ).code,
    ).toBe(2);
  });

  it("a database holding ckpt's own tables is not turned into a LangGraph store (convert: exit 2, unchanged)", async () => {
    const db = join(work, "own.db");
    expect(
      (
        await ckpt(
          "migrate",
          "--from",
          `file:${join(fx, "savers", "deepagent-filesaver")}`,
          "--to",
          `sqlite:${db}`,
          "-q",
        )
      ).code,
    ).toBe(0);
    const before = readFileSync(db);
    const r = await ckpt(
      "convert",
      join(fx, "swarmer/valid/agent_123456789.pkl"),
      "-t",
      "langgraph",
      "-o",
      `sqlite:${db}#x`,
      "--allow-lossy",
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/holds ckpt's own tables/);
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it("ckpt migrate --from <folder store> --to <sqlite> --to-format langgraph: every thread; a re-run skips them as identical", async () => {
    const dir = join(work, "deep");
    mkdirSync(dir);
    for (const f of ["user_42_session_1.json", "explicit-messages-thread.json"])
      cpSync(join(fx, "deepagent/valid", f), join(dir, f));
    const db = join(work, "migrated.db");
    const r = await ckpt(
      "migrate",
      "--from",
      `file:${dir}`,
      "--to",
      `sqlite:${db}`,
      "--to-format",
      "langgraph",
      "--allow-lossy",
      "--json",
      "--quiet",
    );
    expect(r.code, r.err + r.out).toBe(0);
    const summary = JSON.parse(r.out.trim().split("\n").at(-1)!);
    expect([summary.written, summary.verified, summary.rejected]).toEqual([2, 2, 0]);
    const saver = sqliteSaver(db);
    try {
      for (const f of ["user_42_session_1.json", "explicit-messages-thread.json"]) {
        const doc = JSON.parse(readFileSync(join(dir, f), "utf8"));
        const state = await app(saver, "x").getState({ configurable: { thread_id: doc.threadId } });
        expect(fromLangChain(state.values.messages)).toEqual(fromCanonical(sourceMessages(join(dir, f))));
      }
    } finally {
      await closeSaver(saver);
    }
    const again = await ckpt(
      "migrate",
      "--from",
      `file:${dir}`,
      "--to",
      `sqlite:${db}`,
      "--allow-lossy",
      "--json",
      "--quiet",
    );
    const s2 = JSON.parse(again.out.trim().split("\n").at(-1)!);
    expect([again.code, s2.written, s2.identical]).toEqual([0, 0, 2]);
  });
});

describe("ckpt migrate into a LangGraph PostgreSQL schema named by ?layout=langgraph", () => {
  it("every thread of a folder store; the real PostgresSaver loads each and continues one", async () => {
    const s = `lgacross_${run}_m`;
    schemas.push(s);
    const dir = join(fx, "savers", "deepagent-filesaver");
    const r = await ckpt(
      "migrate",
      "--from",
      `file:${dir}`,
      "--to",
      `${PG}?schema=${s}&layout=langgraph`,
      "--allow-lossy",
      "--json",
      "--quiet",
    );
    expect(r.code, r.err + r.out).toBe(0);
    const summary = JSON.parse(r.out.trim().split("\n").at(-1)!);
    expect([summary.written, summary.verified, summary.rejected]).toEqual([2, 2, 0]);
    const saver = pgSaver(PG, s);
    try {
      for (const f of readdirSync(dir).filter((x) => x.endsWith(".json"))) {
        const threadId = JSON.parse(readFileSync(join(dir, f), "utf8")).threadId as string;
        const g = app(saver, "pg migrate continues");
        const cfg = { configurable: { thread_id: threadId } };
        const expected = fromCanonical(sourceMessages(join(dir, f)));
        expect(fromLangChain((await g.getState(cfg)).values.messages)).toEqual(expected);
        const out = await g.invoke({ messages: [{ role: "user", content: "next" }] }, cfg);
        expect(out.messages).toHaveLength(expected.length + 2);
      }
    } finally {
      await closeSaver(saver);
    }
  });
});

describe("LangGraph thread → every seed format", () => {
  const store = () => {
    const f = join(work, `js-a-${randomBytes(3).toString("hex")}.sqlite`);
    copyFileSync(join(fx, "langgraph", "js-a.sqlite"), f);
    return f;
  };
  for (const [format] of SAMPLES) {
    it(`a-chat-1 (newest, and @<older id>) → ${format}: the messages LangGraph JS's getState gives`, async () => {
      const f = store();
      const saver = sqliteSaver(f);
      const cfg = { configurable: { thread_id: "a-chat-1" } };
      let older: { id: string; messages: BaseMessage[] } | undefined;
      let newest: BaseMessage[] = [];
      try {
        const g = app(saver, "");
        newest = (await g.getState(cfg)).values.messages;
        for await (const s of g.getStateHistory(cfg)) {
          if (s.values.messages?.length && s.values.messages.length < newest.length - 2) {
            older = { id: s.config.configurable!.checkpoint_id as string, messages: s.values.messages };
            break;
          }
        }
      } finally {
        await closeSaver(saver);
      }
      for (const [addr, want] of [
        [`${f}#a-chat-1`, newest],
        [`${f}#a-chat-1@${older!.id}`, older!.messages],
      ] as const) {
        const outDir = join(work, `${format}-${randomBytes(3).toString("hex")}`);
        mkdirSync(outDir);
        const out = format === "amacs" ? outDir : join(outDir, "out");
        const refused = await ckpt("convert", addr, "-t", format, "-o", out);
        expect(refused.code).toBe(1); // LangGraph ids and bookkeeping have no place in a seed format: listed
        expect(refused.err).toMatch(/would drop \d+ fields?/);
        const r = await ckpt("convert", addr, "-t", format, "-o", out, "--allow-lossy", "--verbose");
        expect(r.code, r.err).toBe(0);
        expect(r.err).toMatch(/dropped \d+ fields?:/);
        const got = fromCanonical(sourceMessages(out)).map(({ output: _o, ...m }) => m);
        const exp = fromLangChain(want).map(({ output: _o, ...m }) => m);
        if (format === "amacs") {
          // amacs keeps prompts and replies only: every tool message is reported dropped, the prompts survive
          expect(got.filter((m) => m.type === "human")).toEqual(exp.filter((m) => m.type === "human"));
          const tools = exp.map((m, i) => (m.type === "tool" ? i : -1)).filter((i) => i >= 0);
          for (const i of tools) expect(r.err).toContain(`/messages/${i}: amacs has no tool results`);
        } else expect(got).toEqual(exp);
      }
    });
  }
});
