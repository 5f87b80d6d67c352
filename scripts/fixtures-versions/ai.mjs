// Writes AI SDK chats with the installed `ai` (its own functions and mock models, as useChat persists them: v4
// generateText + appendResponseMessages; v5+ streamText + toUIMessageStream's onFinish) and reads each back with the
// same release: v5+ safeValidateUIMessages then convertToModelMessages; v4 (no validator) convertToCoreMessages and
// its coreMessageSchema, as streamText checks a chat. The writing code is test/peers/scripts/ai-sdk.mjs's.
// Run by scripts/fixtures-versions.mjs in the target's folder: stdin {version, out, versions}; writes <out>/<chat>.json;
// prints the read-back.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const version = input.versions.ai;
const major = Number(version.split(".")[0]);
const libs = { ai: await import("ai"), test: await import("ai/test"), zod: await import("zod") };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

async function writeV4() {
  const { ai, test, zod } = libs;
  if (typeof ai.appendResponseMessages !== "function")
    throw new Error(
      `ai@${version} has no appendResponseMessages (the server-side persistence of useChat came in a later 4.x)`,
    );
  const { z } = zod;
  const at = (n) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));
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
  /** one doGenerate answer per step */
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
  const chat = async (user, steps, extra = {}) => {
    const messages = [{ id: `u${++ids}`, role: "user", content: user, createdAt: at(ids), ...extra.user }];
    if (extra.user?.parts === undefined) messages[0].parts = [{ type: "text", text: user }];
    const result = await ai.generateText({
      model: model(steps),
      tools,
      maxSteps: 5,
      messages: ai.convertToCoreMessages(messages),
      experimental_generateMessageId: () => `a${++ids}`,
      _internal: { currentDate: () => at(30) },
    });
    const out = ai.appendResponseMessages({
      messages,
      responseMessages: result.response.messages,
      _internal: { currentDate: () => at(40) },
    });
    if (extra.annotations) out[out.length - 1].annotations = extra.annotations;
    return JSON.parse(JSON.stringify(out));
  };
  return {
    text: await chat("Hello", [{ text: "Hi! How can I help?" }]),
    tools: await chat("Weather in Paris and Rome?", [
      { toolCalls: [{ toolCallId: "call-1", toolName: "weather", args: { city: "Paris" } }] },
      {
        text: "Paris done, now Rome.",
        toolCalls: [{ toolCallId: "call-2", toolName: "weather", args: { city: "Rome" } }],
      },
      { text: "Paris 15°, Rome 12°." },
    ]),
    "tool-error": await chat("Read /nope", [
      { toolCalls: [{ toolCallId: "call-3", toolName: "fail", args: { path: "/nope" } }] },
      { text: "The file does not exist." },
    ]),
    reasoning: await chat("Think first: 2+2?", [{ reasoning: "2 plus 2 is 4.", text: "4" }]),
    file: await chat("What is in this image?", [{ text: "A single pixel." }], {
      user: {
        experimental_attachments: [
          { name: "pixel.png", contentType: "image/png", url: `data:image/png;base64,${PNG}` },
        ],
      },
    }),
    metadata: await chat("Hello with metadata", [{ text: "Hello back." }], {
      annotations: [{ model: "mock-model", createdAt: "2026-01-01T00:00:50.000Z" }],
    }),
  };
}

async function writeV5plus(major) {
  const { ai, test, zod } = libs;
  const { z } = zod;
  const Mock = major === 5 ? test.MockLanguageModelV2 : test.MockLanguageModelV3;
  const finish = (reason) =>
    major === 5
      ? { type: "finish", finishReason: reason, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }
      : {
          type: "finish",
          finishReason: { unified: reason, raw: reason },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 5, text: 5, reasoning: 0 },
          },
        };
  const tools = {
    weather: ai.tool({
      description: "weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, temperature: city.length * 3 }),
    }),
    fail: ai.tool({
      description: "a tool that fails",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        throw new Error(`ENOENT: no such file ${path}`);
      },
    }),
  };
  const chunksOf = (s, n) => {
    const c = [{ type: "stream-start", warnings: [] }];
    if (s.reasoning) {
      c.push({ type: "reasoning-start", id: `r${n}` });
      c.push({ type: "reasoning-delta", id: `r${n}`, delta: s.reasoning });
      c.push({ type: "reasoning-end", id: `r${n}` });
    }
    if (s.text) {
      c.push({ type: "text-start", id: `t${n}` });
      c.push({ type: "text-delta", id: `t${n}`, delta: s.text });
      c.push({ type: "text-end", id: `t${n}` });
    }
    for (const call of s.toolCalls ?? [])
      c.push({
        type: "tool-call",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.stringify(call.args),
      });
    c.push(finish(s.toolCalls ? "tool-calls" : "stop"));
    return c;
  };
  const model = (steps) => {
    let i = 0;
    return new Mock({
      doStream: async () => {
        const n = i++;
        return { stream: test.convertArrayToReadableStream(chunksOf(steps[n], n)) };
      },
    });
  };
  let ids = 0;
  const chat = async (user, steps, extra = {}) => {
    const messages = [
      { id: `u${++ids}`, role: "user", parts: [{ type: "text", text: user }, ...(extra.userParts ?? [])] },
    ];
    const result = ai.streamText({
      model: model(steps),
      tools,
      stopWhen: ai.stepCountIs(5),
      messages: await ai.convertToModelMessages(messages),
    });
    let done;
    const finished = new Promise((r) => {
      done = r;
    });
    const stream = result.toUIMessageStream({
      originalMessages: messages,
      generateMessageId: () => `a${++ids}`,
      sendReasoning: true,
      messageMetadata: extra.metadata,
      onFinish: ({ messages: all }) => done(all),
    });
    const reader = stream.getReader();
    while (!(await reader.read()).done) {}
    return JSON.parse(JSON.stringify(await finished));
  };
  return {
    text: await chat("Hello", [{ text: "Hi! How can I help?" }]),
    tools: await chat("Weather in Paris and Rome?", [
      { toolCalls: [{ toolCallId: "call-1", toolName: "weather", args: { city: "Paris" } }] },
      {
        text: "Paris done, now Rome.",
        toolCalls: [{ toolCallId: "call-2", toolName: "weather", args: { city: "Rome" } }],
      },
      { text: "Paris 15°, Rome 12°." },
    ]),
    "tool-error": await chat("Read /nope", [
      { toolCalls: [{ toolCallId: "call-3", toolName: "fail", args: { path: "/nope" } }] },
      { text: "The file does not exist." },
    ]),
    reasoning: await chat("Think first: 2+2?", [{ reasoning: "2 plus 2 is 4.", text: "4" }]),
    file: await chat("What is in this image?", [{ text: "A single pixel." }], {
      userParts: [{ type: "file", mediaType: "image/png", filename: "pixel.png", url: `data:image/png;base64,${PNG}` }],
    }),
    metadata: await chat("Hello with metadata", [{ text: "Hello back." }], {
      metadata: ({ part }) =>
        part.type === "start"
          ? { createdAt: 1767225650000, model: "mock-model" }
          : part.type === "finish"
            ? { finishReason: "stop" }
            : undefined,
    }),
  };
}

const chats = major === 4 ? await writeV4() : await writeV5plus(major);
const { ai } = libs;
const readback = { version, major, chats: {} };
for (const [name, messages] of Object.entries(chats)) {
  writeFileSync(path.join(input.out, `${name}.json`), `${JSON.stringify(messages, null, 2)}\n`);
  let r;
  if (major === 4) {
    const model = ai.convertToCoreMessages(messages);
    // coreMessageSchema is exported from 4.2 on (earlier releases check the same inside streamText)
    const bad = ai.coreMessageSchema ? model.findIndex((m) => !ai.coreMessageSchema.safeParse(m).success) : -1;
    r = bad >= 0 ? { ok: false, error: `CoreMessage ${bad} rejected` } : { ok: true, model };
    if (!ai.coreMessageSchema) r.checkedBy = "convertToCoreMessages";
  } else if (typeof ai.safeValidateUIMessages !== "function") {
    // the first 5.0 releases have no UI message validator: convertToModelMessages is all they read a chat with
    r = { ok: true, model: ai.convertToModelMessages(messages), checkedBy: "convertToModelMessages" };
  } else {
    const v = await ai.safeValidateUIMessages({ messages });
    r = v.success
      ? { ok: true, model: await ai.convertToModelMessages(v.data) }
      : { ok: false, error: String(v.error?.message ?? v.error).slice(0, 500) };
  }
  readback.chats[name] = JSON.parse(JSON.stringify(r));
}
process.stdout.write(JSON.stringify(readback));
process.exit(0);
