/**
 * `export --as sharegpt` keeps the turn order LLaMA-Factory's ShareGPT reader accepts (src/llamafactory/data/
 * converter.py, SharegptDatasetConverter, read at 02e2fb3: user-side tags human/observation at even positions,
 * gpt/function_call at odd ones, an even count — any other example is skipped whole), and counts what it had to leave
 * out. The conversation below has every case a store holds that the plain mapping would break: an assistant greeting
 * before the user, two user messages in a row, text said beside a tool call, a user message right after a tool's
 * result, and a last user message with no answer.
 */
import { describe, expect, test } from "vitest";
import { shareGpt } from "../src/core/export/chat-formats.js";
import { ExportLoss, type ExportThread } from "../src/core/export/types.js";
import type { Checkpoint } from "../src/generated/types.js";

const text = (t: string) => [{ type: "text", text: t }];
const messages = [
  { role: "assistant", content: text("Hello! How can I help?") },
  { role: "user", content: text("What's the weather") },
  { role: "user", content: text("in Paris?") },
  {
    role: "assistant",
    content: [...text("Let me check."), { type: "toolCall", id: "c1", name: "weather", arguments: { city: "Paris" } }],
  },
  { role: "toolResult", toolCallId: "c1", toolName: "weather", content: text("18°C, sunny"), isError: false },
  { role: "user", content: text("Also Rome?") },
  { role: "assistant", content: text("It is 18°C and sunny in Paris.") },
  { role: "assistant", content: text("Rome: I'd have to check.") },
  { role: "user", content: text("Thanks") },
];

function thread(): ExportThread {
  const checkpoint = { schemaVersion: 1, threadId: "t1", messages, state: {} } as unknown as Checkpoint;
  return { source: "test", threadId: "t1", format: "ckpt", checkpoint };
}

describe("sharegpt turn order", () => {
  test("alternates user-side and assistant-side turns, even count; what cannot stand is counted", () => {
    const loss = new ExportLoss();
    const [row] = shareGpt.rows(thread(), loss) as Array<{ conversations: Array<{ from: string; value: string }> }>;
    expect(row!.conversations).toEqual([
      { from: "human", value: "What's the weather\n\nin Paris?" },
      { from: "function_call", value: JSON.stringify({ name: "weather", arguments: { city: "Paris" } }) },
      { from: "observation", value: "18°C, sunny" },
      { from: "gpt", value: "It is 18°C and sunny in Paris.\n\nRome: I'd have to check." },
    ]);
    const kinds = Object.fromEntries(loss.list().map((k) => [k.kind, k.count]));
    expect(kinds).toEqual({
      "sharegpt-lead": 1,
      "sharegpt-call-text": 1,
      "sharegpt-order": 1,
      "sharegpt-unanswered": 1,
    });
  });

  test("a tool call in a message of its own after the assistant's text: the call is kept, not its result alone", () => {
    // the same turn as text beside a call in one message (the case above): the call and its result stand, the text is
    // counted. Keeping the text and leaving out the call made the result an observation no function_call asked for.
    const loss = new ExportLoss();
    const t = thread();
    (t.checkpoint as unknown as { messages: unknown[] }).messages = [
      { role: "user", content: text("Weather in Paris?") },
      { role: "assistant", content: text("Let me check.") },
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "weather", arguments: { city: "Paris" } }] },
      { role: "toolResult", toolCallId: "c1", toolName: "weather", content: text("18°C, sunny"), isError: false },
      { role: "assistant", content: text("18°C and sunny.") },
    ];
    const [row] = shareGpt.rows(t, loss) as Array<{ conversations: Array<{ from: string; value: string }> }>;
    expect(row!.conversations).toEqual([
      { from: "human", value: "Weather in Paris?" },
      { from: "function_call", value: JSON.stringify({ name: "weather", arguments: { city: "Paris" } }) },
      { from: "observation", value: "18°C, sunny" },
      { from: "gpt", value: "18°C and sunny." },
    ]);
    expect(loss.list().map((k) => [k.kind, k.count])).toEqual([["sharegpt-call-text", 1]]);
  });

  test("a thread of one unanswered user message gives no row, counted as empty", () => {
    const loss = new ExportLoss();
    const t = thread();
    (t.checkpoint as unknown as { messages: unknown[] }).messages = [{ role: "user", content: text("hi") }];
    expect(shareGpt.rows(t, loss)).toEqual([]);
    expect(loss.list().map((k) => k.kind)).toEqual(["sharegpt-unanswered", "empty"]);
  });
});
