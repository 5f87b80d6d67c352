// The AI SDK majors (4, 5, 6, 7) as ckpt's tests ask them, one process for a batch of questions (stdin JSON):
//   {"op":"write", "majors":[4,5,6,7]}  → {"4": {"<chat name>": UIMessage[]}, …}: chats written by each major's own
//       functions with its mock models (v4: generateText + appendResponseMessages; v5+: streamText +
//       toUIMessageStream's onFinish, as useChat persists them)
//   {"op":"check", "items":[{"major":5, "messages":…}, …]} → [{"ok":true, "model":ModelMessage[]} |
//       {"ok":false, "error":"…", "path":[…]}]: v5+ safeValidateUIMessages then convertToModelMessages of what it
//       accepted; v4 (which has no validator) convertToCoreMessages, and its CoreMessages checked against
//       coreMessageSchema as streamText and generateText check them
//   {"op":"bench", "major":5, "texts":[…]} → {"validateMs", "convertMs", "valid", "converted"}: the major's own
//       safeValidateUIMessages (JSON.parse included) and validate + convertToModelMessages over every chat text, timed
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const requireV4 = createRequire(new URL("../ai-v4/package.json", import.meta.url));
const load = async (major) => {
  if (major === 4) {
    return {
      ai: await import(requireV4.resolve("ai-v4")),
      test: await import(requireV4.resolve("ai-v4/test")),
      zod: await import(requireV4.resolve("zod")),
    };
  }
  return {
    ai: await import(`ai-v${major}`),
    test: await import(`ai-v${major}/test`),
    zod: await import("zod"),
  };
};

const input = JSON.parse(readFileSync(0, "utf8"));
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// ---- v4 -------------------------------------------------------------------------------------------------

async function writeV4() {
  const { ai, test, zod } = await load(4);
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

// ---- v5, v6, v7 ----------------------------------------------------------------------------------------

async function writeV5plus(major) {
  const { ai, test, zod } = await load(major);
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

// ---- checks --------------------------------------------------------------------------------------------

const describe = (e) => {
  const issues = e?.cause?.issues ?? e?.cause?.errors ?? e?.issues;
  const first = Array.isArray(issues) ? issues[0] : undefined;
  return { error: String(e?.message ?? e).slice(0, 2000), ...(first?.path ? { path: first.path } : {}) };
};

async function check(items) {
  const libs = {};
  const out = [];
  for (const { major, messages } of items) {
    libs[major] ??= await load(major);
    const { ai } = libs[major];
    if (major === 4) {
      // what streamText/generateText do with a chat (standardizePrompt): convertToCoreMessages, then every
      // CoreMessage it made checked against coreMessageSchema
      if (!Array.isArray(messages)) {
        // standardizePrompt's detectPromptType (convertToCoreMessages itself loops over a missing length: [])
        out.push({ ok: false, error: "messages must be an array of CoreMessage or UIMessage" });
        continue;
      }
      try {
        const model = ai.convertToCoreMessages(messages);
        const bad = model.findIndex((m) => !ai.coreMessageSchema.safeParse(m).success);
        if (bad >= 0) {
          const r = ai.coreMessageSchema.safeParse(model[bad]);
          out.push({ ok: false, error: `CoreMessage ${bad}: ${r.error.message.slice(0, 1500)}`, coreMessage: bad });
        } else out.push({ ok: true, model: JSON.parse(JSON.stringify(model)) });
      } catch (e) {
        out.push({ ok: false, ...describe(e) });
      }
      continue;
    }
    const r = await ai.safeValidateUIMessages({ messages });
    if (!r.success) {
      out.push({ ok: false, ...describe(r.error) });
      continue;
    }
    try {
      out.push({ ok: true, model: JSON.parse(JSON.stringify(await ai.convertToModelMessages(r.data))) });
    } catch (e) {
      out.push({ ok: true, modelError: describe(e).error });
    }
  }
  return out;
}

async function bench({ major, texts }) {
  const { ai } = await load(major);
  let valid = 0;
  let t = performance.now();
  for (const text of texts) if ((await ai.safeValidateUIMessages({ messages: JSON.parse(text) })).success) valid++;
  const validateMs = performance.now() - t;
  t = performance.now();
  let converted = 0;
  for (const text of texts) {
    const r = await ai.safeValidateUIMessages({ messages: JSON.parse(text) });
    if (r.success) converted += (await ai.convertToModelMessages(r.data)).length;
  }
  const convertMs = performance.now() - t;
  return { node: process.version, validateMs, convertMs, valid, converted };
}

let result;
if (input.op === "write") {
  result = {};
  for (const major of input.majors) result[major] = major === 4 ? await writeV4() : await writeV5plus(major);
} else if (input.op === "check") result = await check(input.items);
else if (input.op === "bench") result = await bench(input);
else throw new Error(`unknown op ${input.op}`);
process.stdout.write(JSON.stringify(result));
