// The Chat SDK template's AI SDK 4 rows, written by AI SDK 4's own functions (stdin JSON {"op":"v4"}):
// each chat as the template saved it then — the user's message (content: its text) and each of generateText's
// response messages (response.messages: assistant rows with content parts, tool rows with tool results) as a row
// of `Message` — with the UI messages AI SDK 4's appendResponseMessages makes of those rows (what the template's own
// migration to Message_v2 read) and the model messages AI SDK 4's convertToCoreMessages gives for them.
// Ids are UUIDs (the template's columns are uuid).
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const requireV4 = createRequire(new URL("../ai-v4/package.json", import.meta.url));
const ai = await import(requireV4.resolve("ai-v4"));
const test = await import(requireV4.resolve("ai-v4/test"));
const { z } = await import(requireV4.resolve("zod"));

const input = JSON.parse(readFileSync(0, "utf8"));
const uuid = (prefix, n) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const at = (n) => new Date(Date.UTC(2025, 2, 1, 0, 0, n));

const tools = {
  weather: ai.tool({
    description: "weather in a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperature: city.length * 3 }),
  }),
  fail: ai.tool({
    description: "a tool whose call the app records as failed",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => ({ error: `ENOENT: no such file ${path}` }),
  }),
};
const model = (steps) => {
  let i = 0;
  return new test.MockLanguageModelV1({
    doGenerate: async () => {
      const s = steps[i++];
      return {
        rawCall: { rawPrompt: null, rawSettings: {} },
        finishReason: s.toolCalls ? "tool-calls" : "stop",
        usage: { promptTokens: 10, completionTokens: 5 },
        text: s.text,
        reasoning: s.reasoning,
        toolCalls: s.toolCalls?.map((c) => ({ toolCallType: "function", ...c, args: JSON.stringify(c.args) })),
      };
    },
  });
};

let ids = 0;
let clock = 0;
/** A chat of turns [user text, model steps]: its Message rows, its UI messages and its model messages. */
async function chat(turns) {
  const rows = [];
  let ui = [];
  for (const [text, steps] of turns) {
    const user = { id: uuid("00000000", ++ids), role: "user", content: text, createdAt: at(++clock) };
    user.parts = [{ type: "text", text }];
    rows.push({ id: user.id, role: "user", content: text, createdAt: user.createdAt.toISOString() });
    const result = await ai.generateText({
      model: model(steps),
      tools,
      maxSteps: 5,
      messages: ai.convertToCoreMessages([...ui, user]),
      experimental_generateMessageId: () => uuid("00000000", ++ids),
    });
    // the template saved every response message with the time it saved them
    const savedAt = at(++clock);
    for (const m of result.response.messages)
      rows.push({ id: m.id, role: m.role, content: m.content, createdAt: savedAt.toISOString() });
    ui = ai.appendResponseMessages({
      messages: [...ui, user],
      responseMessages: result.response.messages,
      _internal: { currentDate: () => savedAt },
    });
  }
  ui = JSON.parse(JSON.stringify(ui));
  return { rows: JSON.parse(JSON.stringify(rows)), ui, core: JSON.parse(JSON.stringify(ai.convertToCoreMessages(ui))) };
}

if (input.op !== "v4") throw new Error(`unknown op ${input.op}`);
const out = {
  text: await chat([["Hello", [{ text: "Hi! How can I help?" }]]]),
  tools: await chat([
    [
      "Weather in Paris and Rome?",
      [
        { toolCalls: [{ toolCallId: "call-1", toolName: "weather", args: { city: "Paris" } }] },
        {
          text: "Paris done, now Rome.",
          toolCalls: [{ toolCallId: "call-2", toolName: "weather", args: { city: "Rome" } }],
        },
        { text: "Paris 15°, Rome 12°." },
      ],
    ],
  ]),
  "tool-error": await chat([
    [
      "Read /nope",
      [
        { toolCalls: [{ toolCallId: "call-3", toolName: "fail", args: { path: "/nope" } }] },
        { text: "The file does not exist." },
      ],
    ],
  ]),
  reasoning: await chat([["Think first: 2+2?", [{ reasoning: "2 plus 2 is 4.", text: "4" }]]]),
  "two-turns": await chat([
    [
      "Weather in Oslo?",
      [{ toolCalls: [{ toolCallId: "call-4", toolName: "weather", args: { city: "Oslo" } }] }, { text: "Oslo 12°." }],
    ],
    ["And tomorrow?", [{ text: "I cannot tell tomorrow's." }]],
  ]),
};
process.stdout.write(JSON.stringify(out));
