/**
 * `ckpt export` of the LangGraph, Mastra, AI SDK and Agents SDK samples (fixtures/, fixtures/versions/,
 * ../shared/formats/) into every format: each JSONL line checked against its format's own rules (written here from
 * the formats' documentation, not from ckpt's code), the Parquet files read back by DuckDB (an independent reader),
 * thread and message counts equal to `ckpt ls`, and the conversations equal to what the real libraries read back
 * (Mastra's Memory, the AI SDK's UI messages as stored).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exportThreads } from "../src/index.js";
import { fillSqliteRows, type Row } from "./helpers/ai-chatbot-db.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = resolve(import.meta.dirname, "..");
const F = join(ROOT, "fixtures");
const SHARED = [join(ROOT, "..", "shared", "formats"), "/work/shared/formats"].find((p) => existsSync(p));

/** The samples, per system: each a store, folder or file ckpt reads. */
const SAMPLES: Record<string, string[]> = {
  langgraph: [
    join(F, "langgraph/python-a.sqlite"),
    join(F, "langgraph/js-a.sqlite"),
    join(F, "langgraph/python-v4-human-in-the-loop.sqlite"),
    join(F, "versions/langgraph/1.7/store.db"),
    join(F, "versions/langgraph/0.2/store.db"),
    ...(SHARED ? [join(SHARED, "langgraph/from-repo/python-v4-chat.sqlite")] : []),
  ],
  mastra: [
    ...readdirSync(join(F, "versions/mastra")).map((v) => join(F, "versions/mastra", v, "store.db")),
    join(F, "mastra/valid"),
  ],
  "ai-sdk": [join(F, "ai-sdk/valid"), ...readdirSync(join(F, "versions/ai")).map((v) => join(F, "versions/ai", v))],
  "agents-sdk": [
    join(F, "openai-agents/valid"),
    join(F, "openai-agents-session/valid"),
    ...readdirSync(join(F, "versions/openai-agents")).map((v) => join(F, "versions/openai-agents", v)),
  ],
  ...(SHARED ? { shared: ["yoagent", "deepagent", "phi-core", "swarmer"].map((f) => join(SHARED, f)) } : {}),
};
const JSONL_FORMATS = ["openai-chat", "hf-messages", "sharegpt", "ckpt", "audit"] as const;
/** Options per sample set: ../shared/formats holds a document no format reads (ls lists it with "?"), left out. */
const OPTIONS: Record<string, string[]> = { shared: ["--skip-unreadable"] };

let dir: string;
let duck: Awaited<ReturnType<DuckDBInstance["connect"]>>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-export-"));
  duck = await (await DuckDBInstance.create(":memory:")).connect();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], stdin?: string) => runCli(argv, { cwd: dir, stdin });
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const keysIn = (o: Record<string, unknown>, allowed: string[]) =>
  expect(Object.keys(o).filter((k) => !allowed.includes(k))).toEqual([]);

// ------------------------------------------------------------------------------------------------ format rules

/**
 * OpenAI chat fine-tuning lines: `{"messages": [...]}`; roles system, user, assistant, tool; an assistant's
 * `tool_calls` each `{id, type: "function", function: {name, arguments}}` with the arguments a string of JSON; a
 * `tool` message answers an earlier call by `tool_call_id`; every call is answered.
 */
function checkOpenAIChat(row: Record<string, unknown>): void {
  keysIn(row, ["messages"]);
  const messages = row.messages as Array<Record<string, unknown>>;
  expect(Array.isArray(messages) && messages.length > 0).toBe(true);
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    expect(["system", "user", "assistant", "tool"]).toContain(m.role);
    // the chat API's order: an assistant's calls are answered by tool messages right after it, before anything else
    if (m.role !== "tool") expect([...open]).toEqual([]);
    if (m.role === "system" || m.role === "user") {
      keysIn(m, ["role", "content"]);
      expect(typeof m.content).toBe("string");
    } else if (m.role === "assistant") {
      keysIn(m, ["role", "content", "tool_calls"]);
      expect(m.content === null || typeof m.content === "string").toBe(true);
      if (m.tool_calls === undefined) expect(typeof m.content).toBe("string");
      else {
        const calls = m.tool_calls as Array<Record<string, unknown>>;
        expect(calls.length).toBeGreaterThan(0);
        for (const c of calls) {
          keysIn(c, ["id", "type", "function"]);
          expect(typeof c.id === "string" && c.id !== "").toBe(true);
          expect(c.type).toBe("function");
          const f = c.function as Record<string, unknown>;
          keysIn(f, ["name", "arguments"]);
          expect(typeof f.name === "string" && f.name !== "").toBe(true);
          expect(typeof f.arguments).toBe("string");
          expect(() => JSON.parse(f.arguments as string)).not.toThrow();
          expect(open.has(c.id as string) || answered.has(c.id as string)).toBe(false);
          open.add(c.id as string);
        }
      }
    } else {
      keysIn(m, ["role", "tool_call_id", "content"]);
      expect(typeof m.content).toBe("string");
      expect(open.has(m.tool_call_id as string)).toBe(true);
      open.delete(m.tool_call_id as string);
      answered.add(m.tool_call_id as string);
    }
  }
  expect([...open]).toEqual([]);
}

/**
 * Hugging Face / TRL conversational rows: `messages` with role and string content; an assistant's tool calls as chat
 * templates take them (`function.arguments` an object, not a string), a tool message with the tool's `name`; `tools`
 * (functions by name) exactly when the conversation called one.
 */
function checkHfMessages(row: Record<string, unknown>): void {
  keysIn(row, ["messages", "tools"]);
  const messages = row.messages as Array<Record<string, unknown>>;
  expect(messages.length).toBeGreaterThan(0);
  const called = new Set<string>();
  const ids = new Set<string>();
  for (const m of messages) {
    expect(["system", "user", "assistant", "tool"]).toContain(m.role);
    expect(typeof m.content).toBe("string");
    if (m.role === "assistant" && m.tool_calls) {
      for (const c of m.tool_calls as Array<Record<string, unknown>>) {
        const f = c.function as Record<string, unknown>;
        expect(c.type).toBe("function");
        expect(typeof f.name).toBe("string");
        expect(typeof f.arguments).not.toBe("string");
        called.add(f.name as string);
        ids.add(c.id as string);
      }
    }
    if (m.role === "tool") {
      expect(typeof m.name).toBe("string");
      expect(called.has(m.name as string)).toBe(true);
      expect(ids.has(m.tool_call_id as string)).toBe(true);
    }
  }
  if (called.size === 0) expect(row.tools).toBeUndefined();
  else {
    const tools = row.tools as Array<{ type: string; function: { name: string } }>;
    expect(tools.every((t) => t.type === "function")).toBe(true);
    expect(new Set(tools.map((t) => t.function.name))).toEqual(called);
  }
}

/**
 * ShareGPT as LLaMA-Factory reads it (src/llamafactory/data/converter.py, SharegptDatasetConverter, read at 02e2fb3):
 * `conversations` of `{from, value}` with a user-side tag (human, observation) at every even position and an
 * assistant-side one (gpt, function_call) at every odd one, and an even count, else it skips the example whole;
 * function_call a JSON call (name and arguments, or a list of them); `system` and `tools` (a JSON array) as strings.
 */
function checkShareGpt(row: Record<string, unknown>): void {
  keysIn(row, ["conversations", "system", "tools"]);
  const turns = row.conversations as Array<Record<string, unknown>>;
  expect(turns.length).toBeGreaterThan(0);
  expect(turns.length % 2, "an even count of turns").toBe(0);
  turns.forEach((t, i) => {
    keysIn(t, ["from", "value"]);
    expect(i % 2 === 0 ? ["human", "observation"] : ["gpt", "function_call"], `turn ${i}`).toContain(t.from);
    expect(typeof t.value).toBe("string");
    if (t.from === "function_call") {
      const v = JSON.parse(t.value as string) as unknown;
      for (const c of Array.isArray(v) ? v : [v]) {
        expect(typeof (c as { name: unknown }).name).toBe("string");
        expect((c as object) && "arguments" in (c as object)).toBe(true);
      }
    }
    if (t.from === "observation") expect(turns[i - 1]?.from).toBe("function_call");
  });
  if (row.system !== undefined) expect(typeof row.system).toBe("string");
  if (row.tools !== undefined) expect(Array.isArray(JSON.parse(row.tools as string))).toBe(true);
}

const AUDIT_KEYS = ["source", "thread", "checkpoint", "message", "time", "event", "role", "tool", "call_id", "status"];
/** Audit rows: one event each, with its thread, time, role, tool and a short one-line text. */
function checkAudit(row: Record<string, unknown>): void {
  expect(Object.keys(row)).toEqual([...AUDIT_KEYS, "text"]);
  expect(["message", "tool_call", "tool_result", "approval", "interrupt", "answer", "app_message"]).toContain(
    row.event,
  );
  expect(typeof row.thread).toBe("string");
  expect(row.time === null || !Number.isNaN(Date.parse(row.time as string))).toBe(true);
  expect(typeof row.text === "string" && (row.text as string).length <= 200 && !/\n/.test(row.text as string)).toBe(
    true,
  );
  if (row.event !== "message" && row.event !== "app_message") expect(typeof row.tool).toBe("string");
  if (row.event === "tool_result") expect(["ok", "error"]).toContain(row.status);
}

/** ckpt lines: canonical checkpoints (the Checkpoint schema's required fields). */
function checkCkpt(row: Record<string, unknown>): void {
  expect(row.schemaVersion).toBe(1);
  expect(typeof row.threadId).toBe("string");
  expect(Array.isArray(row.messages)).toBe(true);
  expect(isObj(row.state)).toBe(true);
}

const CHECK: Record<(typeof JSONL_FORMATS)[number], (row: Record<string, unknown>) => void> = {
  "openai-chat": checkOpenAIChat,
  "hf-messages": checkHfMessages,
  sharegpt: checkShareGpt,
  ckpt: checkCkpt,
  audit: checkAudit,
};

// ------------------------------------------------------------------------------------------------ the samples

interface LsRow {
  threadId: string;
  error?: string;
  messages: number | null;
  namespace?: string;
  layout?: string;
}
const lsOf = async (source: string): Promise<LsRow[]> => {
  const r = await run(["ls", source, "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as LsRow[];
};

describe.each(Object.entries(SAMPLES))("export of the %s samples", (system, given) => {
  const base = (f: string) => join(dir, `${system}-${f}`);
  const sources = [...given, ...(OPTIONS[system] ?? [])];

  test.each(JSONL_FORMATS)("--as %s: every line follows the format's rules", async (as) => {
    const out = base(`${as}.jsonl`);
    const r = await run(["export", ...sources, "--as", as, "-o", out]);
    expect(r.code, r.err).toBe(0);
    const rows = lines(out);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) CHECK[as](row);
  });

  test(".md: a transcript per thread, each message under its role", async () => {
    const md = base("transcripts.md");
    const r = await run(["export", ...sources, "-o", md, "--json"]);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out) as { threads: number; messages: number; as: string };
    expect(summary.as).toBe("markdown");
    const text = readFileSync(md, "utf8");
    expect(text.match(/^## /gm)?.length).toBe(summary.threads);
    expect(text.match(/^### \d+ · /gm)?.length ?? 0).toBe(summary.messages);
  });

  test("thread and message counts equal ckpt ls", async () => {
    for (const source of given) {
      // ls lists a document no format reads with its error (left out of the export, named in its summary)
      const all = await lsOf(source);
      const ls = all.filter((row) => row.error === undefined);
      const out = base("counts.jsonl");
      const r = await run(["export", source, ...(OPTIONS[system] ?? []), "--as", "ckpt", "-o", out, "--json"]);
      expect(r.code, r.err).toBe(0);
      const summary = JSON.parse(r.out) as { threads: number; messages: number; unreadable: unknown[] };
      expect(summary.unreadable.length).toBeLessThanOrEqual(all.length - ls.length);
      const rows = lines(out);
      expect(rows.length, source).toBe(ls.length);
      expect(summary.threads).toBe(ls.length);
      // Mastra's ls counts its message rows; the canonical messages split a row's tool calls and results apart
      if (ls.every((row) => row.layout !== "mastra")) {
        const counts = (xs: number[]) => [...xs].sort((a, b) => a - b);
        expect(counts(rows.map((row) => (row.messages as unknown[]).length)), source).toEqual(
          counts(ls.map((row) => row.messages ?? 0)),
        );
        expect(summary.messages).toBe(ls.reduce((n, row) => n + (row.messages ?? 0), 0));
      }
      // the conversation formats: a row per thread that has a message (the others counted as left out)
      const chat = await run(["export", source, ...(OPTIONS[system] ?? []), "-o", base("counts-chat.jsonl"), "--json"]);
      const c = JSON.parse(chat.out) as { threads: number; rows: number; lost: Array<{ kind: string; count: number }> };
      const empty = c.lost.find((l) => l.kind === "empty")?.count ?? 0;
      expect(c.threads).toBe(ls.length);
      expect(c.rows + empty).toBe(ls.length);
      // (a thread with only app messages has no chat message either)
      expect(empty).toBeGreaterThanOrEqual(rows.filter((row) => (row.messages as unknown[]).length === 0).length);
    }
  });

  test.each([...JSONL_FORMATS])("--as %s into Parquet: DuckDB reads the same rows back", async (as) => {
    const jsonl = base(`pq-${as}.jsonl`);
    const parquet = base(`pq-${as}.parquet`);
    expect((await run(["export", ...sources, "--as", as, "-o", jsonl])).code).toBe(0);
    const r = await run(["export", ...sources, "--as", as, "-o", parquet]);
    expect(r.code, r.err).toBe(0);
    const read = await duck.runAndReadAll(`SELECT * FROM read_parquet('${parquet.replace(/'/g, "''")}')`);
    const got = read.getRowObjectsJS().map((row) => noNulls(row));
    const want = lines(jsonl).map((row) => noNulls(flattened(as, row)));
    expect(got).toEqual(want);
  });
});

/** A JSONL row as its Parquet columns hold it (the documented flattening: varying shapes as JSON text). */
function flattened(as: string, row: Record<string, unknown>): Record<string, unknown> {
  if (as === "hf-messages")
    return {
      messages: (row.messages as Array<Record<string, unknown>>).map((m) =>
        m.tool_calls
          ? {
              ...m,
              tool_calls: (m.tool_calls as Array<{ function: { name: string; arguments: unknown } }>).map((c) => ({
                ...c,
                function: { name: c.function.name, arguments: JSON.stringify(c.function.arguments) },
              })),
            }
          : m,
      ),
      tools: row.tools,
    };
  if (as === "ckpt") {
    const j = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
    const cp = row as Record<string, unknown> & { origin?: { format?: string } };
    return {
      threadId: cp.threadId,
      step: cp.step,
      createdAt: cp.createdAt,
      updatedAt: cp.updatedAt,
      format: cp.origin?.format,
      messages: (cp.messages as unknown[]).map((m) => JSON.stringify(m)),
      state: j(cp.state),
      interrupt: j(cp.interrupt),
      origin: j(cp.origin),
      ext: j(cp.ext),
    };
  }
  return row;
}

/** A value without its null / undefined members (Parquet's missing struct fields read back as NULL), bigints as numbers. */
function noNulls(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(noNulls);
  if (!isObj(v)) return v;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) o[k] = noNulls(x);
  return o;
}

// ------------------------------------------------------------------------------------------------ the libraries' read-back

/** A Mastra read-back message's texts and tool invocations (format 1: content + toolInvocations; 2: parts). */
function mastraParts(m: Record<string, unknown>) {
  const texts: string[] = [];
  const calls: Array<{ toolCallId: string; toolName: string; args: unknown; result: unknown }> = [];
  const c = m.content;
  if (typeof c === "string") {
    if (c) texts.push(c);
    for (const t of (m.toolInvocations as typeof calls | undefined) ?? []) calls.push(t);
  } else if (isObj(c)) {
    for (const p of (c.parts as Array<Record<string, unknown>>) ?? []) {
      if (p.type === "text" && p.text) texts.push(p.text as string);
      if (p.type === "tool-invocation") calls.push(p.toolInvocation as (typeof calls)[number]);
    }
  } else if (Array.isArray(c)) {
    for (const p of c as Array<Record<string, unknown>>) {
      if (p.type === "text" && p.text) texts.push(p.text as string);
      if (p.type === "tool-call")
        calls.push({ toolCallId: p.toolCallId as string, toolName: p.toolName as string, args: p.args, result: null });
    }
  }
  return { texts, calls };
}

test("Mastra (every release's sample): the openai-chat conversations hold what Mastra's Memory reads back", async () => {
  for (const v of readdirSync(join(F, "versions/mastra"))) {
    const store = join(F, "versions/mastra", v, "store.db");
    const out = join(dir, `mastra-${v}.jsonl`);
    const r = await run(["export", store, "--as", "hf-messages", "-o", out]);
    expect(r.code, r.err).toBe(0);
    const readback = JSON.parse(readFileSync(join(F, "versions/mastra", v, "readback.json"), "utf8")) as {
      threads: Array<{ id: string; messages: Array<Record<string, unknown>> }>;
    };
    const exported = lines(out);
    // threads in ls order (ids sorted): match each by its texts
    for (const t of readback.threads) {
      const texts: string[] = [];
      const calls: ReturnType<typeof mastraParts>["calls"] = [];
      for (const m of t.messages) {
        const p = mastraParts(m);
        texts.push(...p.texts);
        calls.push(...p.calls.filter((c) => c.toolCallId));
      }
      const row = exported.find((e) =>
        (e.messages as Array<{ role: string; content: string }>)
          .filter((m) => m.role !== "tool" && m.content)
          .map((m) => m.content)
          .join("\n")
          .startsWith(texts[0] ?? ""),
      );
      expect(row, `${v} ${t.id}`).toBeDefined();
      const ms = row!.messages as Array<Record<string, unknown>>;
      expect(
        ms.filter((m) => m.role !== "tool" && m.role !== "system" && m.content).map((m) => m.content),
        `${v} ${t.id}`,
      ).toEqual(texts);
      for (const c of calls) {
        const call = ms
          .flatMap((m) => (m.tool_calls as Array<Record<string, unknown>> | undefined) ?? [])
          .find((x) => x.id === c.toolCallId) as { function: { name: string; arguments: unknown } } | undefined;
        expect(call?.function.name, `${v} ${t.id} ${c.toolCallId}`).toBe(c.toolName);
        expect(call?.function.arguments).toEqual(c.args);
        const result = ms.find((m) => m.role === "tool" && m.tool_call_id === c.toolCallId);
        if (c.result !== null && c.result !== undefined)
          expect(typeof c.result === "string" ? result?.content : JSON.parse(result?.content as string)).toEqual(
            c.result,
          );
      }
    }
  }
});

test("AI SDK chats: each UI message's text parts and tool parts are in the openai-chat conversation", async () => {
  const folder = join(F, "versions/ai/5.0");
  const out = join(dir, "ai5.jsonl");
  const r = await run(["export", folder, "-o", out, "--thread", "tools", "--thread", "text"]);
  expect(r.code, r.err).toBe(0);
  const rows = lines(out);
  expect(rows).toHaveLength(2);
  for (const [i, name] of ["text", "tools"].entries()) {
    const ui = JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as Array<{
      role: string;
      parts: Array<Record<string, unknown>>;
    }>;
    const ms = rows[i]!.messages as Array<Record<string, unknown>>;
    const texts = ui.flatMap((m) => m.parts.filter((p) => p.type === "text").map((p) => p.text));
    expect(ms.filter((m) => m.role !== "tool" && m.content).map((m) => m.content)).toEqual(texts);
    for (const p of ui.flatMap((m) => m.parts).filter((p) => String(p.type).startsWith("tool-"))) {
      const call = ms
        .flatMap((m) => (m.tool_calls as Array<Record<string, unknown>> | undefined) ?? [])
        .find((c) => c.id === p.toolCallId) as { function: { name: string; arguments: string } };
      expect(call.function.name).toBe(String(p.type).slice(5));
      expect(JSON.parse(call.function.arguments)).toEqual(p.input);
      const result = ms.find((m) => m.role === "tool" && m.tool_call_id === p.toolCallId);
      expect(JSON.parse(result!.content as string)).toEqual(p.output);
    }
  }
});

// ------------------------------------------------------------------------------------------------ selection, outputs, errors

describe("selection and outputs", () => {
  const lg = join(F, "langgraph/python-a.sqlite");

  test("--all-checkpoints: one row per checkpoint of the root graph (ckpt ls counts them), oldest first", async () => {
    const ls = await lsOf(lg);
    const total = ls.reduce((n, t) => n + (t as unknown as { checkpoints: number }).checkpoints, 0);
    const out = join(dir, "all.jsonl");
    const r = await run(["export", lg, "--as", "audit", "--all-checkpoints", "-o", join(dir, "all-audit.jsonl")]);
    expect(r.code, r.err).toBe(0);
    expect((await run(["export", lg, "--as", "ckpt", "--all-checkpoints", "-o", out])).code).toBe(0);
    const rows = lines(out);
    expect(rows).toHaveLength(total);
    const steps = rows.filter((x) => x.threadId === "a-chat-1").map((x) => x.step as number);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    // an interrupt raised at a checkpoint and the answer the resume gave are audit events of it; one still pending too
    const audit = lines(join(dir, "all-audit.jsonl"));
    const hitl2 = audit.filter((e) => e.thread === "a-hitl-2" && e.message === null);
    expect(hitl2.map((e) => [e.event, e.status, e.text])).toEqual([
      ["interrupt", "answered", '{"question":"Approve this action?","action":"Proposed: Cancel order 77"}'],
      ["answer", null, "yes"],
    ]);
    const hitl1 = audit.filter((e) => e.thread === "a-hitl-1" && e.event === "interrupt");
    expect(hitl1.map((e) => e.status)).toEqual(["pending"]);
  });

  test("--thread, --match, --since, --until choose threads", async () => {
    const ids = async (...a: string[]) => {
      const out = join(dir, "sel.jsonl");
      const r = await run(["export", lg, "--as", "ckpt", "-o", out, ...a]);
      expect(r.code, r.err).toBe(0);
      return lines(out).map((x) => x.threadId);
    };
    expect(await ids("--thread", "a-chat-2")).toEqual(["a-chat-2"]);
    const typo = await run(["export", lg, "-o", join(dir, "sel.jsonl"), "--thread", "a-chat-9"]);
    expect(typo.err).toContain("--thread a-chat-9: no source holds it");
    expect(await ids("--match", "a-hitl-*")).toEqual(["a-hitl-1", "a-hitl-2"]);
    expect(await ids("--since", "2026-11-23T08:43:38.040Z")).toEqual(["a-edited-1", "a-forked-1", "a-hitl-2"]);
    expect(await ids("--until", "2026-11-23T08:43:37.960Z")).toEqual(["a-chat-1"]);
    expect((await run(["export", lg, "-o", join(dir, "x.jsonl"), "--since", "yesterday-ish"])).code).toBe(2);
  });

  test("-o names a file from the command's folder", async () => {
    const r = await run(["export", lg, "-o", "relative.jsonl"]);
    expect(r.code, r.err).toBe(0);
    expect(lines(join(dir, "relative.jsonl"))).toHaveLength(7);
  });

  test("- writes JSONL to stdout (the same bytes as the file); .md a transcript per thread", async () => {
    const file = join(dir, "same.jsonl");
    expect((await run(["export", lg, "-o", file])).code).toBe(0);
    const r = await run(["export", lg, "-o", "-"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(readFileSync(file, "utf8"));
    const md = join(dir, "t.md");
    expect((await run(["export", lg, "-o", md])).code).toBe(0);
    const text = readFileSync(md, "utf8");
    expect(text.match(/^## /gm)).toHaveLength((await lsOf(lg)).length);
    expect(text).toContain("**→ search**");
  });

  test("a source that cannot be read: exit 3, nothing written, an earlier file left as it was", async () => {
    const bad = mkdtempSync(join(dir, "bad-"));
    writeFileSync(join(bad, "a.json"), readFileSync(join(F, "ai-sdk/valid/v5-tools.json")));
    writeFileSync(join(bad, "b.json"), '{"messages": [');
    const out = join(dir, "kept.jsonl");
    writeFileSync(out, "before\n");
    for (const o of [out, join(dir, "kept.parquet")]) {
      const r = await run(["export", bad, "-o", o]);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/#b:1:15: invalid JSON/);
      expect(r.err).toMatch(/--skip-unreadable/);
    }
    expect(readFileSync(out, "utf8")).toBe("before\n");
    expect(existsSync(join(dir, "kept.parquet"))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("ckpt-tmp"))).toEqual([]);
  });

  test("--skip-unreadable: the others written, each left-out thread named (stderr and --json)", async () => {
    const bad = mkdtempSync(join(dir, "skip-"));
    writeFileSync(join(bad, "a.json"), readFileSync(join(F, "ai-sdk/valid/v5-tools.json")));
    writeFileSync(join(bad, "b.json"), '{"messages": [');
    const out = join(dir, "skip.parquet");
    const r = await run(["export", bad, "-o", out, "--skip-unreadable"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/left out \(unreadable\): .*#b: invalid JSON/);
    const read = await duck.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet('${out}')`);
    expect(read.getRowObjectsJS()).toEqual([{ n: 1 }]);
    const j = await run(["export", bad, "-o", join(dir, "skip.jsonl"), "--skip-unreadable", "--json"]);
    const summary = JSON.parse(j.out) as { threads: number; unreadable: Array<{ thread: string; reason: string }> };
    expect(summary.threads).toBe(1);
    expect(summary.unreadable.map((u) => u.thread.split("#")[1])).toEqual(["b"]);
  });

  test("usage errors: exit 2", async () => {
    expect((await run(["export", lg, "-o", join(dir, "x.csv")])).code).toBe(2);
    expect((await run(["export", lg, "-o", join(dir, "x.md"), "--as", "audit"])).code).toBe(2);
    expect((await run(["export", lg, "-o", join(dir, "x.jsonl"), "--as", "markdown"])).code).toBe(2);
    expect((await run(["export", join(dir, "missing.sqlite"), "-o", join(dir, "x.jsonl")])).code).toBe(3);
  });

  test("a progress bar on a terminal's stderr (none when it is not one), cleared before the summary", async () => {
    const { cliIO } = await import("./helpers/cli-io.js");
    const { main } = await import("../src/cli/main.js");
    const io = cliIO({ cwd: dir });
    Object.assign(io.stderr, { isTTY: true, columns: 80 });
    expect(await main(["export", lg, "-o", join(dir, "tty.jsonl")], io)).toBe(0);
    expect(io.err()).toMatch(/\r\x1b\[2Kexporting \[[#-]+\] +\d+% +\d+\/8 threads/);
    expect(io.err()).toMatch(/\r\x1b\[2Kexported 8 threads/);
    expect((await run(["export", lg, "-o", join(dir, "tty.jsonl")])).err).not.toContain("exporting");
    // a filter's share of the store is not known beforehand: counts without a percentage
    const filtered = cliIO({ cwd: dir });
    Object.assign(filtered.stderr, { isTTY: true, columns: 80 });
    expect(await main(["export", lg, "--match", "a-chat-*", "-o", join(dir, "tty.jsonl")], filtered)).toBe(0);
    expect(filtered.err()).toMatch(/\r\x1b\[2Kexporting 1 thread · \d+ rows/);
    expect(filtered.err()).not.toMatch(/%/);
  });

  test("stdin is one document", async () => {
    const r = await run(["export", "-", "-o", "-"], readFileSync(join(F, "ai-sdk/valid/v5-tools.json"), "utf8"));
    expect(r.code, r.err).toBe(0);
    checkOpenAIChat(JSON.parse(r.out));
  });
});

describe("the other store layouts", () => {
  test("an Agents SDK SQLiteSession store: each session's items as a conversation (function calls paired)", async () => {
    const doc = JSON.parse(readFileSync(join(F, "openai-agents-session/valid/math.json"), "utf8")) as {
      rows: Record<string, { createdAt: string; item: Record<string, unknown> }>;
    };
    const file = join(dir, "session.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL,
      created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE)`);
    const items = Object.values(doc.rows).map((r) => r.item);
    for (const sid of ["math", "math-2"]) {
      db.prepare("INSERT INTO agent_sessions (session_id) VALUES (?)").run(sid);
      for (const it of items)
        db.prepare("INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)").run(sid, JSON.stringify(it));
    }
    db.close();
    const out = join(dir, "session.jsonl");
    const r = await run(["export", file, "-o", out]);
    expect(r.code, r.err).toBe(0);
    const rows = lines(out);
    expect(rows).toHaveLength(2);
    for (const row of rows) checkOpenAIChat(row);
    // the session's own items: each function call and its output, by call_id
    const ms = rows[0]!.messages as Array<Record<string, unknown>>;
    for (const it of items.filter((i) => i.type === "function_call")) {
      const call = ms
        .flatMap((m) => (m.tool_calls as Array<Record<string, unknown>>) ?? [])
        .find((c) => c.id === it.call_id);
      expect(call).toEqual({ id: it.call_id, type: "function", function: { name: it.name, arguments: it.arguments } });
      const output = items.find((i) => i.type === "function_call_output" && i.call_id === it.call_id)!;
      expect(ms.find((m) => m.tool_call_id === it.call_id)?.content).toBe(output.output);
    }
    expect(ms[0]).toEqual({ role: "user", content: items[0]!.content });
  });

  test("a Chat SDK template database: each chat's UI messages (AI SDK 5 parts) as a conversation", async () => {
    const ui = JSON.parse(readFileSync(join(F, "versions/ai/5.0/tools.json"), "utf8")) as Array<{
      id: string;
      role: string;
      parts: Array<Record<string, unknown>>;
    }>;
    const file = join(dir, "chat.db");
    const user = "00000000-0000-4000-8000-000000000001";
    const chat = "00000000-0000-4000-8000-000000000002";
    fillSqliteRows(file, [
      ["User", { id: user, email: "a@example.com", password: null }],
      [
        "Chat",
        { id: chat, createdAt: "2026-12-01T10:00:00.000Z", userId: user, title: "Weather", visibility: "private" },
      ],
      ...ui.map(
        (m, i): Row => [
          "Message_v2",
          {
            id: `00000000-0000-4000-8000-00000000010${i}`,
            chatId: chat,
            role: m.role,
            parts: m.parts,
            attachments: [],
            createdAt: `2026-12-01T10:00:0${i}.000Z`,
          },
        ],
      ),
    ]);
    const out = join(dir, "chat.jsonl");
    const r = await run(["export", file, "-o", out]);
    expect(r.code, r.err).toBe(0);
    const rows = lines(out);
    expect(rows).toHaveLength(1);
    checkOpenAIChat(rows[0]!);
    const ms = rows[0]!.messages as Array<Record<string, unknown>>;
    const texts = ui.flatMap((m) => m.parts.filter((p) => p.type === "text").map((p) => p.text));
    expect(ms.filter((m) => m.role !== "tool" && m.content).map((m) => m.content)).toEqual(texts);
    const calls = ui.flatMap((m) => m.parts).filter((p) => String(p.type).startsWith("tool-"));
    expect(ms.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content as string))).toEqual(
      calls.map((p) => p.output),
    );
  });
});

test("a tool result the store keeps after another message is moved up to right after its call (and counted)", async () => {
  const text = (t: string) => [{ type: "text" as const, text: t }];
  const thread = {
    source: "memory",
    threadId: "t1",
    format: "ckpt",
    checkpoint: {
      schemaVersion: 1 as const,
      threadId: "t1",
      step: 2,
      state: {},
      messages: [
        { role: "user" as const, content: text("refund order 7") },
        {
          role: "assistant" as const,
          content: [{ type: "toolCall" as const, id: "c1", name: "refund", arguments: { order: 7 } }],
        },
        { role: "user" as const, content: text("and be quick") },
        { role: "toolResult" as const, toolCallId: "c1", toolName: "refund", content: text("done"), isError: false },
        { role: "assistant" as const, content: text("Refunded.") },
      ],
    },
  };
  let out = "";
  const s = await exportThreads([[thread]], { output: { write: (t: string) => (out += t) } });
  const row = JSON.parse(out) as Record<string, unknown>;
  checkOpenAIChat(row);
  expect((row.messages as Array<{ role: string }>).map((m) => m.role)).toEqual([
    "user",
    "assistant",
    "tool",
    "user",
    "assistant",
  ]);
  expect(s.lost).toEqual([{ kind: "moved-result", what: expect.any(String), count: 1, threads: 1, first: "t1#3" }]);
});

test("library: exportThreads with a transform plugged in between reading and writing", async () => {
  let out = "";
  const summary = await exportThreads(join(F, "versions/mastra/1.71/store.db"), {
    as: "openai-chat",
    output: { write: (s: string) => (out += s) },
    transforms: [
      (t) => ({
        ...t,
        checkpoint: {
          ...t.checkpoint,
          messages: t.checkpoint.messages.map((m) =>
            "content" in m && Array.isArray(m.content)
              ? {
                  ...m,
                  content: m.content.map((c) => (c.type === "text" ? { ...c, text: c.text.toUpperCase() } : c)),
                }
              : m,
          ),
        },
      }),
    ],
  });
  expect(summary.threads).toBe(3);
  expect(out).toContain('"content":"PACK SUNGLASSES."');
  expect(out).not.toContain("Pack sunglasses.");
});
