/**
 * #37: `validate --format ai-sdk --ai-sdk-version N` answers what the real major N answers (ai@5–7
 * `safeValidateUIMessages`; ai@4 `convertToCoreMessages` and its `coreMessageSchema`, as streamText checks a chat) on
 * every JSON file of ../shared/formats/ (other systems' documents: every major rejects them, and ckpt must say
 * "invalid", exit 1, never "cannot read", exit 3), the AI SDK fixtures, the version fixtures and near misses of the
 * newer shape given to ai@4. A chat saved inside an object (`{id, messages}`) is given to the SDK as its messages;
 * detection names it `ai-sdk` (and `{sessionId, items}` of Agents SDK items `openai-agents-items`), never "cannot tell
 * the format". One peer process answers every question.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { validateDocument } from "../src/core/document.js";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";

const ROOT = join(import.meta.dirname, "..");
const SHARED = "/work/shared/formats";
const MAJORS = [4, 5, 6, 7] as const;

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return jsonFiles(p);
    return n.endsWith(".json") && !n.endsWith(".expect.json") ? [p] : [];
  });
}

/** What an app hands the SDK: the messages of an object that holds them, else the value. */
const messagesOf = (v: unknown) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Array.isArray((v as { messages?: unknown }).messages)
    ? (v as { messages: unknown[] }).messages
    : v;

const PNG = "data:image/png;base64,AAAA";
const NEAR_MISSES: Array<[string, unknown]> = [
  ["a v5 user text part whose text is a number", [{ id: "u1", role: "user", parts: [{ type: "text", text: 5 }] }]],
  ["a v5 user text part without text", [{ id: "u1", role: "user", parts: [{ type: "text" }] }]],
  [
    "a v5 user file part of an image",
    [{ id: "u1", role: "user", parts: [{ type: "file", mediaType: "image/png", url: PNG }] }],
  ],
  [
    "a v5 assistant file part of an image",
    [
      { id: "u1", role: "user", parts: [{ type: "text", text: "draw" }] },
      { id: "a1", role: "assistant", parts: [{ type: "file", mediaType: "image/png", url: PNG }] },
    ],
  ],
  ["a v5 assistant text part without text", [{ id: "a1", role: "assistant", parts: [{ type: "text" }] }]],
  ["a v4 system message with an array content", [{ id: "s1", role: "system", content: [{ type: "text", text: "x" }] }]],
  ["a v4 user message whose content is a number", [{ id: "u1", role: "user", content: 5 }]],
  ["a JSON object", { a: 1 }],
  [
    "a chat saved with its id",
    { id: "c1", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }] },
  ],
  ["null", null],
  ["an array of numbers", [1, 2]],
];

interface Case {
  what: string;
  text: string;
  major: number;
}
let cases: Case[];
let verdicts: Array<{ ok: boolean; error?: string }>;

beforeAll(async () => {
  const files = [
    ...jsonFiles(SHARED),
    ...jsonFiles(join(ROOT, "fixtures/ai-sdk")),
    ...jsonFiles(join(ROOT, "fixtures/versions/ai")),
  ];
  const docs: Array<[string, string]> = files.map((f) => [relative(ROOT, f), readFileSync(f, "utf8")]);
  for (const [what, v] of NEAR_MISSES) docs.push([what, JSON.stringify(v)]);
  cases = [];
  for (const [what, text] of docs) {
    try {
      JSON.parse(text);
    } catch {
      continue; // not JSON (a JSONL session, a file cut short): no question for the SDK
    }
    for (const major of MAJORS) cases.push({ what, text, major });
  }
  const items = cases.map((c) => ({ major: c.major, messages: messagesOf(JSON.parse(c.text)) }));
  verdicts = (
    await runPeer<Array<{ ok: boolean; error?: string }>>(
      "scripts/ai-sdk.mjs",
      { op: "check", items },
      { timeoutMs: 300_000 },
    )
  ).out;
}, 600_000);

describe("validate --format ai-sdk --ai-sdk-version N equals the real major N", () => {
  it("on every JSON file of ../shared/formats, the AI SDK and version fixtures, and near misses", () => {
    expect(cases.length).toBeGreaterThan(30 * 4);
    const disagree: string[] = [];
    cases.forEach((c, i) => {
      const r = validateDocument({ name: "chat.json", text: c.text }, { format: `ai-sdk@${c.major}` });
      const mine = r.fatal ? `unreadable (${r.fatal.message})` : r.valid ? "valid" : "invalid";
      const theirs = verdicts[i]!.ok ? "valid" : "invalid";
      if (mine !== theirs)
        disagree.push(`ai@${c.major} ${c.what}: sdk ${theirs} (${verdicts[i]!.error?.slice(0, 120)}), ckpt ${mine}`);
    });
    expect(disagree).toEqual([]);
  });

  it("a JSON object named as a chat is invalid (exit 1) with the reason, not unreadable", async () => {
    const r = await runCli(["validate", "-", "--format", "ai-sdk", "--ai-sdk-version", "4"], { stdin: '{"a": 1}' });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/expected an array/);
    const s = await runCli(["show", "-", "--format", "ai-sdk"], { stdin: '{"a": 1}' });
    expect(s.code).toBe(3);
    expect(s.err).toMatch(/expected a JSON array of AI SDK UI messages/);
  });

  it("detects chats saved as {id, messages} and sessions saved as {sessionId, items}", async () => {
    const chat = JSON.stringify(
      { id: "c7", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: 7 }] }] },
      null,
      2,
    );
    const v = await runCli(["validate", "-"], { stdin: chat });
    expect(v.code).toBe(1);
    // the pointer and the line are the file's, not the list's
    expect(v.out).toMatch(/<stdin>:10:\d+: error \/messages\/0\/parts\/0\/text: expected a string/);
    const ok = JSON.stringify({
      id: "c8",
      title: "t",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
    });
    const show = await runCli(["show", "-"], { stdin: ok });
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/^thread c8 — ai-sdk/);
    const items = JSON.stringify({
      sessionId: "s1",
      items: [
        { type: "message", role: "user", content: "hi" },
        { type: "function_call", callId: "c1", name: "get", arguments: "{}" },
        {
          type: "function_call_result",
          callId: "c1",
          name: "get",
          status: "completed",
          output: { type: "text", text: "ok" },
        },
      ],
    });
    const s = await runCli(["validate", "-", "-r", "json"], { stdin: items });
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).files[0].format).toBe("openai-agents-items");
    const shown = await runCli(["show", "-"], { stdin: items });
    expect(shown.out).toMatch(/^thread s1 — openai-agents-items/);
  });
});
