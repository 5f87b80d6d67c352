import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { startStubLlmServer } from "./helpers/stub-llm-server.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { createAnthropicProvider } from "../src/providers/anthropic.js";
import { CkptError } from "../src/base/errors.js";
import type { AgentMessage } from "../src/generated/types.js";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { parseJson } from "../src/base/json.js";
import { validators } from "../src/generated/validators.js";

let stub: Awaited<ReturnType<typeof startStubLlmServer>>;
beforeAll(async () => {
  stub = await startStubLlmServer();
});
afterAll(() => stub.close());

const history: AgentMessage[] = [
  { role: "system", content: [{ type: "text", text: "Be brief." }] },
  { role: "user", content: [{ type: "text", text: "List files" }], timestamp: 1 },
  {
    role: "assistant",
    content: [{ type: "toolCall", id: "t1", name: "ls", arguments: { path: "/" } }],
    stopReason: "toolUse",
    timestamp: 2,
  },
  {
    role: "toolResult",
    toolCallId: "t1",
    toolName: "ls",
    content: [{ type: "text", text: "/a.md (3 bytes)" }],
    isError: false,
    timestamp: 3,
  },
  { role: "note", kind: "ui", data: null },
];
const tools = [{ name: "ls", description: "list", parameters: { type: "object" } }];
const ARGS = '{"file_path":"/a.md","offset":0}';

describe("openai provider against the stub", () => {
  for (const stream of [true, false]) {
    it(`${stream ? "streamed" : "plain"}: reassembles text and tool-call arguments, maps usage, sends the right wire shape`, async () => {
      stub.requests.length = 0;
      stub.enqueue({
        text: "Reading it now.",
        toolCalls: [
          { id: "call_9", name: "read_file", args: ARGS },
          { id: "call_10", name: "ls", args: "{}" },
        ],
        usage: { input: 40, output: 12, cacheRead: stream ? 8 : 0 },
      });
      const p = createOpenAIProvider({ baseUrl: `${stub.url}/v1`, model: "m1", apiKey: "sk-test-123", stream });
      const r = await p.complete({ messages: history, tools, turn: 1 });
      expect(r.content).toEqual([
        { type: "text", text: "Reading it now." },
        { type: "toolCall", id: "call_9", name: "read_file", arguments: { file_path: "/a.md", offset: 0 } },
        { type: "toolCall", id: "call_10", name: "ls", arguments: {} },
      ]);
      expect(r).toMatchObject({
        stopReason: "toolUse",
        provider: "openai",
        model: "stub-model",
        usage: { input: 40, output: 12, cacheRead: stream ? 8 : 0 },
      });
      const req = stub.requests[0]!;
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers.authorization).toBe("Bearer sk-test-123");
      expect(req.body.messages).toEqual([
        { role: "system", content: "Be brief." },
        { role: "user", content: "List files" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "t1", type: "function", function: { name: "ls", arguments: '{"path":"/"}' } }],
        },
        { role: "tool", tool_call_id: "t1", content: "/a.md (3 bytes)" },
      ]);
      expect(req.body.tools).toEqual([
        { type: "function", function: { name: "ls", description: "list", parameters: { type: "object" } } },
      ]);
      expect(Boolean(req.body.stream)).toBe(stream);
    });
  }

  it("401 is exit 4 with a message that does not contain the key; a closed port is exit 4", async () => {
    stub.enqueue({ status: 401, body: '{"error":{"message":"bad key"}}' });
    const p = createOpenAIProvider({ baseUrl: `${stub.url}/v1`, model: "m", apiKey: "sk-secret-999" });
    const e = await p.complete({ messages: history, tools, turn: 1 }).catch((x) => x);
    expect(e).toBeInstanceOf(CkptError);
    expect(e.exitCode).toBe(4);
    expect(e.message).toMatch(/authentication failed .*HTTP 401.*OPENAI_API_KEY/);
    expect(e.message).not.toContain("sk-secret-999");
    const closed = createOpenAIProvider({ baseUrl: "http://127.0.0.1:1/v1", model: "m" });
    const e2 = await closed.complete({ messages: history, tools, turn: 1 }).catch((x) => x);
    expect(e2.exitCode).toBe(4);
    expect(e2.message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1\/v1/);
  });
});

describe("anthropic provider against the stub", () => {
  for (const stream of [true, false]) {
    it(`${stream ? "streamed" : "plain"}: text + tool_use reassembled; system, tool_result blocks and headers on the wire`, async () => {
      stub.requests.length = 0;
      stub.enqueue({
        text: "On it.",
        toolCalls: [{ id: "toolu_1", name: "read_file", args: ARGS }],
        usage: { input: 30, output: 7, cacheRead: 5 },
      });
      const p = createAnthropicProvider({ baseUrl: stub.url, model: "claude-x", apiKey: "ak-test", stream });
      const r = await p.complete({ messages: history, tools, turn: 1 });
      expect(r.content).toEqual([
        { type: "text", text: "On it." },
        { type: "toolCall", id: "toolu_1", name: "read_file", arguments: { file_path: "/a.md", offset: 0 } },
      ]);
      expect(r).toMatchObject({
        stopReason: "toolUse",
        provider: "anthropic",
        model: "stub-claude",
        usage: { input: 30, output: 7, cacheRead: stream ? 5 : 0, totalTokens: 0 },
      });
      const req = stub.requests[0]!;
      expect(req.path).toBe("/v1/messages");
      expect(req.headers["x-api-key"]).toBe("ak-test");
      expect(req.headers["anthropic-version"]).toBe("2023-06-01");
      expect(req.body.system).toBe("Be brief.");
      expect(req.body.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "List files" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: { path: "/" } }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: [{ type: "text", text: "/a.md (3 bytes)" }],
              is_error: false,
            },
          ],
        },
      ]);
      expect(req.body.tools).toEqual([{ name: "ls", description: "list", input_schema: { type: "object" } }]);
    });
  }
});

describe("ckpt replay continue through the HTTP providers", () => {
  function io(env: NodeJS.ProcessEnv): CliIO & { err: () => string } {
    let err = "";
    return {
      stdout: { write: () => true },
      stderr: { write: (s: string) => ((err += s), true) },
      stdin: Readable.from([]),
      env,
      cwd: process.cwd(),
      err: () => err,
    };
  }
  const fixture = join(import.meta.dirname, "..", "fixtures", "replay", "tools.ckpt.json");
  const deepagent = join(import.meta.dirname, "..", "fixtures", "deepagent", "valid", "user_42_session_1.json");

  it("openai: runs the state tool the model asks for and saves a checkpoint ckpt validate accepts", async () => {
    stub.enqueue(
      {
        toolCalls: [{ id: "c1", name: "read_file", args: '{"file_path":"/src/a.ts"}' }],
        usage: { input: 10, output: 3 },
      },
      { text: "It exports a.", usage: { input: 20, output: 4 } },
    );
    const out = join(mkdtempSync(join(tmpdir(), "ckpt-http-")), "next.json");
    const t = io({ OPENAI_API_KEY: "k" });
    expect(
      await main(
        [
          "replay",
          "continue",
          fixture,
          "--prompt",
          "What is in a.ts?",
          "--provider",
          `openai:${stub.url}/v1`,
          "--model",
          "m",
          "-o",
          out,
          "-q",
        ],
        t,
      ),
      t.err(),
    ).toBe(0);
    const cp = parseJson(readFileSync(out, "utf8")) as {
      messages: Array<{ role: string; content: Array<{ text?: string }> }>;
    };
    expect(validators.Checkpoint(cp)).toBe(true);
    const tail = cp.messages.slice(-3);
    expect(tail.map((m) => m.role)).toEqual(["assistant", "toolResult", "assistant"]);
    expect(tail[1]!.content[0]!.text).toBe("     1\texport const a = 1;");
  });

  it("anthropic: continues a deep-agent checkpoint and writes it back as deep-agent", async () => {
    stub.enqueue({ text: "README is next.", usage: { input: 5, output: 4 } });
    const out = join(mkdtempSync(join(tmpdir(), "ckpt-http-")), "next.json");
    const t = io({ ANTHROPIC_API_KEY: "k" });
    expect(
      await main(
        [
          "replay",
          "continue",
          deepagent,
          "--prompt",
          "And now?",
          "--provider",
          `anthropic:${stub.url}`,
          "--model",
          "c",
          "-o",
          out,
          "-q",
        ],
        t,
      ),
      t.err(),
    ).toBe(0);
    const cp = parseJson(readFileSync(out, "utf8")) as Record<string, unknown>;
    expect(validators["formats/deepagent/checkpoint"](cp)).toBe(true);
    expect((cp.messages as unknown[]).slice(-2)).toEqual([
      { role: "user", content: [{ type: "text", text: "And now?" }] },
      { role: "assistant", content: [{ type: "text", text: "README is next." }] },
    ]);
    expect(cp.step).toBe(4);
  });
});
