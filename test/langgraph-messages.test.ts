/**
 * LangChain messages ⇄ canonical (src/formats/langgraph/messages.ts) against the real @langchain/core classes:
 * the records are what LangGraph JS's own serde writes for the library's messages; the expected canonical messages
 * are written by hand from LangChain's field meanings; records written back load in @langchain/core as equal messages.
 */
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  HumanMessageChunk,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { load } from "@langchain/core/load";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../src/generated/types.js";
import { messageFromCanonical, messageToCanonical } from "../src/formats/langgraph/messages.js";
import type { LossyNote } from "../src/formats/types.js";
import { stripLayout } from "../src/core/diff/ignore.js";

const serde = new JsonPlusSerializer();
/** The lc:1 record LangGraph JS stores for a message (its `json` serde), parsed. */
async function recordOf(m: BaseMessage): Promise<Record<string, unknown>> {
  const [type, bytes] = await serde.dumpsTyped(m);
  expect(type).toBe("json");
  return JSON.parse(new TextDecoder().decode(bytes));
}
/** The canonical message without ext (what the hand-derived expectations describe). */
function plain(m: unknown): unknown {
  const strip = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(strip);
    if (x && typeof x === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(x)) if (k !== "ext") o[k] = strip(v);
      return o;
    }
    return x;
  };
  return strip(m);
}
async function roundTrip(
  m: BaseMessage,
): Promise<{ canonical: unknown; back: unknown; record: unknown; lossy: LossyNote[] }> {
  const record = await recordOf(m);
  const canonical = messageToCanonical(record);
  const lossy: LossyNote[] = [];
  const back = messageFromCanonical(canonical, "/messages/0", lossy);
  return { canonical, back, record, lossy };
}
async function loadBack(record: unknown): Promise<BaseMessage> {
  return (await load(JSON.stringify(record))) as BaseMessage;
}

describe("LangChain messages → canonical (hand-derived expectations)", () => {
  it("HumanMessage with string content", async () => {
    const { canonical, back, record } = await roundTrip(new HumanMessage({ content: "hello", id: "h1" }));
    expect(plain(canonical)).toEqual({ role: "user", content: [{ type: "text", text: "hello" }] });
    expect(back).toEqual(record);
  });

  it("AIMessage with tool calls, invalid tool calls, usage with cache details, response metadata", async () => {
    const msg = new AIMessage({
      content: "Let me check.",
      id: "ai-1",
      tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }],
      invalid_tool_calls: [
        { id: "call_2", name: "broken", args: "{oops", error: "bad json", type: "invalid_tool_call" },
      ],
      usage_metadata: {
        input_tokens: 120,
        output_tokens: 30,
        total_tokens: 150,
        input_token_details: { cache_read: 100, cache_creation: 5 },
        output_token_details: { reasoning: 12 },
      },
      response_metadata: { model_name: "gpt-test", model_provider: "openai", finish_reason: "tool_calls" },
    });
    const { canonical, back, record, lossy } = await roundTrip(msg);
    expect(plain(canonical)).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Let me check." },
        { type: "toolCall", id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
      ],
      // 120 input tokens of which 100 cache reads and 5 cache writes → 15 non-cached
      usage: { input: 15, output: 30, cacheRead: 100, cacheWrite: 5, totalTokens: 150, reasoning: 12 },
      model: "gpt-test",
      provider: "openai",
      stopReason: "toolUse",
    });
    expect(back).toEqual(record);
    expect(lossy).toEqual([]);
    const loaded = await loadBack(back);
    expect(loaded).toBeInstanceOf(AIMessage);
    expect((loaded as AIMessage).tool_calls).toEqual(msg.tool_calls);
    expect((loaded as AIMessage).invalid_tool_calls).toEqual(msg.invalid_tool_calls);
    expect((loaded as AIMessage).usage_metadata).toEqual(msg.usage_metadata);
    expect(loaded.content).toEqual(msg.content);
  });

  it("ToolMessage: status error → isError, artifact kept", async () => {
    const msg = new ToolMessage({
      content: "boom",
      tool_call_id: "call_1",
      name: "get_weather",
      status: "error",
      artifact: { trace: [1, 2] },
    });
    const { canonical, back, record } = await roundTrip(msg);
    expect(plain(canonical)).toEqual({
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "get_weather",
      content: [{ type: "text", text: "boom" }],
      isError: true,
    });
    expect(back).toEqual(record);
    const loaded = (await loadBack(back)) as ToolMessage;
    expect(loaded).toBeInstanceOf(ToolMessage);
    expect(loaded.status).toBe("error");
    expect(loaded.artifact).toEqual({ trace: [1, 2] });
    expect(loaded.tool_call_id).toBe("call_1");
  });

  it("ToolMessage without status is a success", async () => {
    const { canonical, back, record } = await roundTrip(new ToolMessage({ content: "ok", tool_call_id: "c9" }));
    expect(plain(canonical)).toEqual({
      role: "toolResult",
      toolCallId: "c9",
      toolName: "",
      content: [{ type: "text", text: "ok" }],
      isError: false,
    });
    expect(back).toEqual(record);
  });

  it("SystemMessage and content blocks (text, data-URL image, Anthropic thinking, an unknown block)", async () => {
    const sys = await roundTrip(new SystemMessage("be brief"));
    expect(plain(sys.canonical)).toEqual({ role: "system", content: [{ type: "text", text: "be brief" }] });
    expect(sys.back).toEqual(sys.record);
    const blocks = [
      { type: "text", text: "look at this" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
      { type: "custom_widget", payload: { a: 1 } },
      { type: "image_url", image_url: "https://example.com/cat.png" },
    ];
    const user = await roundTrip(new HumanMessage({ content: blocks }));
    expect(plain(user.canonical)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look at this" },
        { type: "image", data: "iVBORw0K", mimeType: "image/png" },
        { type: "image", url: "https://example.com/cat.png", mimeType: "" },
      ],
    });
    expect(user.back).toEqual(user.record);
    expect((await loadBack(user.back)).content).toEqual(blocks);
    const ai = await roundTrip(
      new AIMessage({
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "text", text: "42" },
        ],
      }),
    );
    expect(plain(ai.canonical)).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "42" },
      ],
    });
    expect(ai.back).toEqual(ai.record);
  });

  it("chunks keep their class; RemoveMessage and ChatMessage ride along as extension messages", async () => {
    const chunk = await roundTrip(
      new AIMessageChunk({
        content: "par",
        id: "c1",
        tool_call_chunks: [{ id: "call_9", name: "f", args: '{"a":1}', index: 0, type: "tool_call_chunk" }],
      }),
    );
    expect(plain(chunk.canonical)).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "par" },
        { type: "toolCall", id: "call_9", name: "f", arguments: { a: 1 } },
      ],
    });
    expect(chunk.back).toEqual(chunk.record);
    expect(await loadBack(chunk.back)).toBeInstanceOf(AIMessageChunk);
    const hc = await roundTrip(new HumanMessageChunk({ content: "x" }));
    expect(hc.back).toEqual(hc.record);
    expect(await loadBack(hc.back)).toBeInstanceOf(HumanMessageChunk);
    const rm = await roundTrip(new RemoveMessage({ id: "h1" }));
    expect(plain(rm.canonical)).toEqual({ role: "langgraph", kind: "RemoveMessage", data: rm.record });
    expect(rm.back).toEqual(rm.record);
    expect(await loadBack(rm.back)).toBeInstanceOf(RemoveMessage);
    const chat = await roundTrip(new ChatMessage({ content: "c", role: "critic" }));
    expect(plain(chat.canonical)).toEqual({ role: "langgraph", kind: "ChatMessage", data: chat.record });
  });

  it("a record whose class is a name every object inherits (toString, constructor) is no message class", () => {
    // not a class @langchain/core loads as a message: kept whole as an extension message, written back unchanged
    for (const cls of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      const record = { lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs: { content: "x" } };
      const canonical = messageToCanonical(record);
      expect(plain(canonical)).toEqual({ role: "langgraph", kind: cls, data: record });
      expect(messageFromCanonical(canonical, "/messages/0", [])).toEqual(record);
    }
  });

  it("a Python-normalized record (kwargs from model_dump, ids, names) round-trips exactly, key order included", () => {
    const record = {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "AIMessage"],
      kwargs: {
        content: "",
        additional_kwargs: {},
        response_metadata: { model_name: "fake-tool-caller" },
        id: "lc_run--1-0",
        tool_calls: [{ name: "search", args: { query: "q" }, id: "call_001", type: "tool_call" }],
        invalid_tool_calls: [],
        usage_metadata: { input_tokens: 10, output_tokens: 7, total_tokens: 17 },
      },
    };
    const c = messageToCanonical(record);
    expect(plain(c)).toEqual({
      role: "assistant",
      content: [{ type: "toolCall", id: "call_001", name: "search", arguments: { query: "q" } }],
      usage: { input: 10, output: 7, totalTokens: 17 },
      model: "fake-tool-caller",
    });
    const back = messageFromCanonical(c, "", []);
    expect(JSON.stringify(back)).toBe(JSON.stringify(record));
  });
});

describe("canonical → LangChain (messages from other formats)", () => {
  it("fresh messages load in @langchain/core as the classes and fields they describe", async () => {
    const lossy: LossyNote[] = [];
    const user = messageFromCanonical(
      { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 5 },
      "/messages/0",
      lossy,
    );
    const ai = messageFromCanonical(
      {
        role: "assistant",
        content: [
          { type: "text", text: "calling" },
          { type: "toolCall", id: "t1", name: "ls", arguments: { path: "/" } },
        ],
        usage: { input: 3, output: 4, cacheRead: 2 },
        model: "m1",
        stopReason: "toolUse",
      },
      "/messages/1",
      lossy,
    );
    const tool = messageFromCanonical(
      {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "ls",
        content: [{ type: "text", text: "a.txt" }],
        isError: false,
      },
      "/messages/2",
      lossy,
    );
    expect(lossy).toEqual([
      { pointer: "/messages/0/timestamp", field: "timestamp", reason: "LangChain messages have no timestamps" },
    ]);
    const u = await loadBack(user);
    expect(u).toBeInstanceOf(HumanMessage);
    expect(u.content).toBe("hi"); // plain text of another format's message is a string, as LangChain writes it
    const a = (await loadBack(ai)) as AIMessage;
    expect(a).toBeInstanceOf(AIMessage);
    expect(a.content).toBe("calling");
    expect(a.tool_calls).toEqual([{ id: "t1", name: "ls", args: { path: "/" }, type: "tool_call" }]);
    expect(a.usage_metadata).toEqual({
      input_tokens: 5,
      output_tokens: 4,
      total_tokens: 9,
      input_token_details: { cache_read: 2 },
    });
    expect(a.response_metadata).toEqual({ model_name: "m1", finish_reason: "tool_calls" });
    const t = (await loadBack(tool)) as ToolMessage;
    expect(t).toBeInstanceOf(ToolMessage);
    expect([t.tool_call_id, t.name, t.status]).toEqual(["t1", "ls", "success"]);
    // and reading them back gives the canonical messages again (layout records aside)
    expect(plain(stripLayout({ messages: [messageToCanonical(ai)] }))).toEqual({
      messages: [
        {
          role: "assistant",
          content: [
            { type: "text", text: "calling" },
            { type: "toolCall", id: "t1", name: "ls", arguments: { path: "/" } },
          ],
          usage: { input: 3, output: 4, cacheRead: 2, totalTokens: 9 },
          model: "m1",
          stopReason: "toolUse",
        },
      ],
    });
  });
});

describe("stop reasons into LangChain messages", () => {
  // every canonical stop reason (from the schema itself): either it comes back from the LangChain message as it went
  // in, or the conversion says it is lost — never silently dropped (error, aborted, paused … used to vanish)
  const reasons = (
    JSON.parse(readFileSync(join(import.meta.dirname, "..", "schemas", "StopReason.json"), "utf8")) as {
      enum: string[];
    }
  ).enum;
  it.each(reasons)("'%s' round-trips or is reported lossy", (stopReason) => {
    const m = { role: "assistant", content: [{ type: "text", text: "hi" }], stopReason } as unknown as AgentMessage;
    const lossy: LossyNote[] = [];
    const lc = messageFromCanonical(m, "/messages/0", lossy);
    const back = messageToCanonical(lc) as { stopReason?: string };
    const noted = lossy.some((n) => n.pointer === "/messages/0/stopReason");
    expect(
      back.stopReason === stopReason || noted,
      `${stopReason}: back ${back.stopReason}, notes ${JSON.stringify(lossy)}`,
    ).toBe(true);
    // and a note only where something is really lost
    if (back.stopReason === stopReason) expect(noted).toBe(false);
  });
});
