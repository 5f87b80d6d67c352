/**
 * "The README's examples all run as written": every `ckpt …` / `npx ckpt …` line of every ```sh block of README.md
 * runs, in README order, through bash in a playground folder that holds the files the examples name (made from the
 * fixtures: before.json, conversation.json, .checkpoints/, checkpoints.sqlite with a thread-1 …), with `ckpt` and
 * `npx ckpt` on PATH as this checkout's bin/ckpt.js. Each line must exit with the code the README documents for it
 * (0 unless listed in EXPECTED_EXIT below, each with its reason).
 *
 * Hosts the README uses as placeholders for the user's own servers are pointed at the local services (listed in
 * SERVICES, each isolated by a per-run key prefix or schema, and cleaned up): PostgreSQL `me@db/app`, Redis
 * 127.0.0.1:6379, the Redis Cluster at 10.0.0.5:7000 (a throwaway local cluster), and the OpenAI / Anthropic model
 * endpoints (a local stub speaking their wire protocols). `--open` runs a recording stand-in for xdg-open, and
 * `view --serve` is asked for its page and then stopped with Ctrl-C.
 *
 * Every ```ts block that imports from "ckpt" is compiled (types stripped by TypeScript) and run with Node in the
 * same playground; "ckpt" resolves to this package itself (package.json "exports", built dist/).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import ts from "typescript";
import Database from "better-sqlite3";
import { startStubLlmServer } from "./helpers/stub-llm-server.js";
import { startRedisCluster, type TestCluster } from "./helpers/redis-cluster.js";
import { runPeer } from "./helpers/peers.js";
import { fillPgRows, fillSqliteRows, type Row } from "./helpers/ai-chatbot-db.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "ckpt.js");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const RUN = randomBytes(4).toString("hex");
const PREFIX = `ckpt-readme-${RUN}:`;
const PG = "postgres://postgres@127.0.0.1:5432/test";
const fx = (p: string) => join(ROOT, "fixtures", p);

/** Exit codes other than 0 that the README documents for an example (matched on the line as written). */
const EXPECTED_EXIT: Array<[RegExp, number, string]> = [
  [/^ckpt diff before\.json after\.json/, 1, "diff: 1 when the two differ (before.json → after.json is an edit)"],
  [
    /^ckpt diff conversation\.json thread\.json/,
    1,
    "diff: a conversation and its deep-agent conversion differ in what the conversion lost",
  ],
  [/^ckpt diff a\.json b\.json/, 1, "diff: a.json and b.json differ"],
  [/^ckpt diff old\.json new\.json/, 1, "diff: old.json and new.json differ"],
  [/^ckpt diff paused\.json finished\.json/, 1, "diff: a paused Agents SDK run and a finished one differ"],
  [
    /^ckpt diff 'postgres:\/\/me@db\/app\?schema=chatbot#/,
    0,
    "diff: a Message chat (read as AI SDK 4) and its Message_v2 rows (AI SDK 6) are the same conversation: they differ only in representation, which diff compares with --verbose",
  ],
  [/^ckpt diff 'checkpoints\.sqlite#thread-1@/, 1, "diff: an older checkpoint against the newest differs"],
  [
    /^ckpt convert sess-1\.json -t yoagent --dry-run/,
    1,
    "convert: a conversion that would drop fields exits 1, --dry-run too (README, convert)",
  ],
];

/** Placeholder hosts of the README → the local services (the test's environment, not part of the examples). */
let SERVICES: Array<[RegExp, string]> = [];

/** Every command line of the ```sh blocks that runs ckpt (a line continued with "\" is joined). */
function shExamples(): string[] {
  const out: string[] = [];
  const blocks = README.split(/^```sh\n/m)
    .slice(1)
    .map((b) => b.slice(0, b.indexOf("\n```")));
  for (const b of blocks) {
    const lines = b.replace(/\\\n\s*/g, " ").split("\n");
    for (const l of lines) if (/(^|[|&;]\s*)(npx )?ckpt /.test(l)) out.push(l.trim());
  }
  return out;
}

/** The ```ts blocks that import from "ckpt". */
function tsExamples(): string[] {
  return README.split(/^```ts\n/m)
    .slice(1)
    .map((b) => b.slice(0, b.indexOf("\n```")))
    .filter((b) => /from "ckpt"/.test(b));
}

let play: string;
let shims: string;
let stub: Awaited<ReturnType<typeof startStubLlmServer>>;
let cluster: TestCluster;

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${shims}:${process.env.PATH}`,
    HOME: play,
    XDG_STATE_HOME: join(play, ".state"),
    NO_COLOR: "1",
    OPENAI_API_KEY: "sk-readme-test",
    ANTHROPIC_API_KEY: "ak-readme-test",
  };
}

function sh(line: string, opts: { serve?: boolean } = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn("bash", ["-o", "pipefail", "-c", line], { cwd: play, env: env(), detached: true });
    let out = "";
    let err = "";
    p.stdout.on("data", async (d: Buffer) => {
      out += d;
      const url = opts.serve ? /http:\/\/127\.0\.0\.1:\d+\//.exec(out)?.[0] : undefined;
      if (url && !out.includes("<fetched>")) {
        out += "<fetched>";
        const page = await fetch(url).then(
          async (r) => `${r.status} ${await r.text()}`,
          (e: Error) => `fetch failed: ${e.message}`,
        );
        out += `\n<page ${page.slice(0, 200)}>\n`;
        process.kill(-p.pid!, "SIGINT");
      }
    });
    p.stderr.on("data", (d: Buffer) => (err += d));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, out, err }));
  });
}

/** The README's Chat SDK chats: 7c9e6679-… (ai@4's generateText rows in Message), 9b2f… (an ai@6 chat in Message_v2). */
let chatbot: Row[] | undefined;
async function chatbotRows(): Promise<Row[]> {
  if (chatbot) return chatbot;
  const user = "3f8a2c1e-5b7d-4e9f-8a6c-1d2e3f4a5b6c";
  const v4 = (
    await runPeer<Record<string, { rows: Array<Record<string, unknown>> }>>("scripts/ai-chatbot.mjs", { op: "v4" })
  ).out.tools!.rows;
  const v6 = JSON.parse(readFileSync(fx("ai-sdk/valid/v6-reasoning.json"), "utf8")) as Array<Record<string, unknown>>;
  const a = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
  const b = "9b2f4c6d-1e3a-4b5c-8d7e-6f5a4b3c2d1e";
  const at = "2025-03-01T00:00:00.000Z";
  chatbot = [
    ["User", { id: user, email: "ada@example.com", password: null }],
    ["Chat", { id: a, createdAt: at, userId: user, title: "Weather", visibility: "private" }],
    ["Chat", { id: b, createdAt: "2026-01-01T00:00:00.000Z", userId: user, title: "Reasoning", visibility: "public" }],
    ...v4.map((r): Row => ["Message", { ...r, chatId: a }]),
    ...v6.map(
      (m, i): Row => [
        "Message_v2",
        {
          id: `9b2f4c6d-0000-4000-8000-00000000000${i}`,
          chatId: b,
          role: m.role,
          parts: m.parts,
          attachments: [],
          createdAt: `2026-01-01T00:00:0${i}.000Z`,
        },
      ],
    ),
  ];
  return chatbot;
}

/** The files the examples name, made from the fixtures. */
async function makePlayground(): Promise<void> {
  play = mkdtempSync(join(tmpdir(), "ckpt-readme-"));
  shims = join(play, ".bin");
  mkdirSync(shims);
  const shim = (name: string, body: string) => {
    writeFileSync(join(shims, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(shims, name), 0o755);
  };
  shim("ckpt", `exec "${process.execPath}" "${BIN}" "$@"`);
  shim(
    "npx",
    `[ "$1" = ckpt ] || { echo "npx: only ckpt here" >&2; exit 127; }; shift; exec "${process.execPath}" "${BIN}" "$@"`,
  );
  shim("npm", `[ "$1" = install ] && exit 0; echo "npm: only install here" >&2; exit 127`);
  shim("xdg-open", `echo "$@" >> "${join(play, ".opened")}"`);
  symlinkSync(join(ROOT, "fixtures"), join(play, "fixtures"));
  const copy = (from: string, to: string) => cpSync(fx(from), join(play, to), { recursive: true });
  // validate
  mkdirSync(join(play, "runs", "2026-11-01"), { recursive: true });
  copy("yoagent/valid/save_messages.v0.18.json", "runs/2026-11-01/run-1.json");
  copy("deepagent/valid/user_42_session_1.json", "runs/run-2.json");
  mkdirSync(join(play, "out"));
  copy("phi-core/valid/save_messages.v0.10.json", "history.json");
  // diff
  copy("deepagent/valid/snapshot-after-run1.json", "before.json");
  copy("deepagent/valid/user_42_session_1.json", "after.json");
  copy("yoagent/valid/save_messages.v0.18.json", "conversation.json");
  // AI SDK chats: one written by ai@4, and a folder of chats of every major (the ai-sdk format's examples)
  copy("ai-sdk/valid/v4-tools.json", "chat.json");
  copy("ai-sdk/valid", "chats");
  copy("diff/ckpt/base.json", "a.json");
  copy("diff/ckpt/after.json", "b.json");
  copy("phi-core/valid/save_messages.v0.10.json", "old.json");
  const phi = JSON.parse(readFileSync(fx("phi-core/valid/save_messages.v0.10.json"), "utf8")) as unknown[];
  writeFileSync(join(play, "new.json"), JSON.stringify(phi.slice(0, -1)));
  copy("phi-core-session/valid/session.sess-1.v0.10.json", "sess-1.json");
  copy("replay/script-done.json", "replies.json");
  // OpenAI Agents SDK run states the real SDK wrote: paused on an approval, then approved and finished
  copy("openai-agents/valid/approval-one.json", "paused.json");
  copy("openai-agents/valid/approved.json", "finished.json");
  // thread.json: the deep-agent conversion of conversation.json (what the convert example writes)
  const conv = await sh("ckpt convert conversation.json -t deepagent --allow-lossy -o thread.json");
  expect(conv.code, conv.err).toBe(0);
  // savers
  copy("savers/deepagent-filesaver", ".checkpoints");
  mkdirSync(join(play, "data", "agents"), { recursive: true });
  copy("swarmer/valid/agent_123456789.pkl", "data/agents/agent_123456789.pkl");
  copy("amacs/valid/agent-home", ".agent");
  // LangGraph: a Python SqliteSaver file whose chat thread is "thread-1"; py.sqlite as Python wrote it
  copy("langgraph/python-a.sqlite", "checkpoints.sqlite");
  copy("langgraph/python-a.sqlite", "py.sqlite");
  const db = new Database(join(play, "checkpoints.sqlite"));
  db.exec(
    "UPDATE checkpoints SET thread_id = 'thread-1' WHERE thread_id = 'a-chat-1'; UPDATE writes SET thread_id = 'thread-1' WHERE thread_id = 'a-chat-1'",
  );
  db.close();
  // a Mastra store the real @mastra/libsql wrote (thread-1 of resource alice, a tool call, working memory)
  const mastra = await runPeer("scripts/mastra-write.mjs", {
    store: { kind: "libsql", file: join(play, "mastra.db") },
    threads: [
      { id: "thread-1", resource: "alice", title: "Weather", turns: [{ user: "Weather in Oslo?", tool: "Oslo" }] },
    ],
    workingMemory: { alice: "# Alice" },
  });
  expect(mastra.out).toHaveLength(1);
  // a Chat SDK template database (SQLite): a chat ai@4 wrote in Message, one ai@6 wrote in Message_v2
  fillSqliteRows(join(play, "chat.db"), await chatbotRows());
  // the user's own ckpt SQLite store an example reads
  const store = await sh("ckpt migrate --from file:.checkpoints --to sqlite:c.db -q");
  expect(store.code, store.err).toBe(0);
}

beforeAll(async () => {
  stub = await startStubLlmServer();
  cluster = await startRedisCluster();
  SERVICES = [
    [/postgres:\/\/me@db\/app\?schema=(\w+)/g, `${PG}?schema=readme_${RUN}_$1`],
    [/redis:\/\/10\.0\.0\.5:7000\?cluster=1/g, `${cluster.url}?cluster=1&prefix=${encodeURIComponent(PREFIX)}`],
    [/redis:\/\/127\.0\.0\.1:6379(?![?\w])/g, `redis://127.0.0.1:6379?prefix=${encodeURIComponent(PREFIX)}`],
    [/openai:http:\/\/127\.0\.0\.1:8080\/v1/g, `openai:${stub.url}/v1`],
    [/anthropic:https:\/\/api\.anthropic\.com/g, `anthropic:${stub.url}`],
  ];
  await makePlayground();
  // the LangGraph PostgresSaver schema the examples read: the same threads as checkpoints.sqlite
  const seed = await sh(`ckpt migrate --from sqlite:checkpoints.sqlite --to '${PG}?schema=readme_${RUN}_public' -q`);
  expect(seed.code, seed.err).toBe(0);
  // the Chat SDK template schema the examples read (the same chats as chat.db)
  {
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    try {
      await fillPgRows((q, a) => c.query(q, a), `readme_${RUN}_chatbot`, await chatbotRows());
    } finally {
      await c.end();
    }
  }
  // the Mastra schema the examples read, as the real @mastra/pg wrote it
  await runPeer("scripts/mastra-write.mjs", {
    store: { kind: "pg", url: PG, schema: `readme_${RUN}_mastra` },
    threads: [{ id: "thread-1", resource: "alice", turns: [{ user: "hi" }] }],
  });
}, 120_000);

afterAll(async () => {
  await stub?.close();
  await cluster?.stop();
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  const keys = await c.keys(`${PREFIX}*`); // test cleanup only
  if (keys.length) await c.del(...keys);
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: PG });
  await p.connect();
  const { rows } = await p.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'readme_${RUN}_%'`,
  );
  for (const r of rows) await p.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  await p.end();
  if (play) rmSync(play, { recursive: true, force: true });
});

describe("README examples run as written", () => {
  const lines = shExamples();

  it("finds the examples (every ```sh block's ckpt lines)", () => {
    expect(lines.length).toBeGreaterThan(40);
    expect(lines).toContain("ckpt validate fixtures/yoagent/valid");
  });

  it.each(lines.map((l, i) => [i + 1, l] as const))(
    "#%i %s",
    async (_n, line) => {
      const expected = EXPECTED_EXIT.find(([re]) => re.test(line))?.[1] ?? 0;
      let cmd = line;
      for (const [re, to] of SERVICES) cmd = cmd.replace(re, to);
      if (line.includes("ckpt replay") && /openai:|anthropic:/.test(line))
        stub.enqueue({ text: "Done.", usage: { input: 10, output: 2 } });
      const r = await sh(cmd, { serve: line.includes("--serve") });
      if (line.includes("--serve")) {
        expect(r.out).toMatch(/<page 200 <!doctype html>/i);
        expect([0, 130]).toContain(r.code);
        return;
      }
      expect(r.code, `${cmd}\n${r.err}${r.out.slice(0, 2000)}`).toBe(expected);
      expect(r.err).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack trace
      if (line.includes("--open")) {
        // the browser is started detached: give the xdg-open stand-in a moment to record its argument
        for (let i = 0; i < 50 && !existsSync(join(play, ".opened")); i++) await new Promise((r) => setTimeout(r, 100));
        expect(readFileSync(join(play, ".opened"), "utf8")).toContain("thread.html");
      }
    },
    60_000,
  );
});

describe("README library examples run as written", () => {
  const blocks = tsExamples();
  it.each(blocks.map((b, i) => [i + 1, b] as const))(
    "```ts block %i",
    async (_n, code) => {
      // the package imports itself by name from inside its own folder (package.json "exports" → dist/)
      const dir = join(ROOT, `.readme-example-${RUN}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `example-${_n}.mjs`);
      writeFileSync(
        file,
        ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
          .outputText,
      );
      try {
        const r = await sh(`"${process.execPath}" "${file}"`);
        expect(r.code, `${code}\n---\n${r.err}`).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
  it('a README without library examples is fine; with them, each one imports from "ckpt"', () => {
    expect(existsSync(join(ROOT, "dist", "index.js")), "npm run build first").toBe(true);
  });
});
