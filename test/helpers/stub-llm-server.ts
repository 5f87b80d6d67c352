/**
 * A local stub LLM server on 127.0.0.1 speaking the real wire protocols: OpenAI chat completions
 * (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`), as JSON or as SSE streams split
 * at awkward places (tool-call arguments over several deltas, events over several TCP writes).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubReply {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; args: string }>;
  usage?: { input: number; output: number; cacheRead?: number };
  /** answer with this HTTP status and body instead */
  status?: number;
  body?: string;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Write SSE text in small uneven pieces so that clients must reassemble events across reads. */
async function writeChunked(res: ServerResponse, text: string): Promise<void> {
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const n = [7, 3, 19, 1, 11][k++ % 5]!;
    res.write(text.slice(i, i + n));
    i += n;
    if (k % 4 === 0) await sleep(1);
  }
}

function openaiStream(r: StubReply): string {
  const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  let s = ev({
    id: "c1",
    object: "chat.completion.chunk",
    model: "stub-model",
    choices: [{ index: 0, delta: { role: "assistant" } }],
  });
  if (r.text)
    for (const piece of r.text.match(/.{1,4}/gs) ?? []) s += ev({ choices: [{ index: 0, delta: { content: piece } }] });
  (r.toolCalls ?? []).forEach((c, idx) => {
    s += ev({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index: idx, id: c.id, type: "function", function: { name: c.name, arguments: "" } }],
          },
        },
      ],
    });
    for (const piece of c.args.match(/.{1,5}/gs) ?? [])
      s += ev({ choices: [{ index: 0, delta: { tool_calls: [{ index: idx, function: { arguments: piece } }] } }] });
  });
  s += ev({ choices: [{ index: 0, delta: {}, finish_reason: r.toolCalls?.length ? "tool_calls" : "stop" }] });
  const u = r.usage ?? { input: 0, output: 0 };
  s += ev({
    choices: [],
    usage: {
      prompt_tokens: u.input + (u.cacheRead ?? 0),
      completion_tokens: u.output,
      total_tokens: u.input + (u.cacheRead ?? 0) + u.output,
      prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    },
  });
  return s + "data: [DONE]\n\n";
}

function openaiJson(r: StubReply): unknown {
  const u = r.usage ?? { input: 0, output: 0 };
  return {
    id: "c1",
    object: "chat.completion",
    model: "stub-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: r.text ?? null,
          tool_calls: r.toolCalls?.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.args },
          })),
        },
        finish_reason: r.toolCalls?.length ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
  };
}

function anthropicStream(r: StubReply): string {
  const ev = (type: string, o: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`;
  const u = r.usage ?? { input: 0, output: 0 };
  let s = ev("message_start", {
    message: {
      id: "m1",
      type: "message",
      role: "assistant",
      model: "stub-claude",
      content: [],
      usage: {
        input_tokens: u.input,
        output_tokens: 1,
        cache_read_input_tokens: u.cacheRead ?? 0,
        cache_creation_input_tokens: 0,
      },
    },
  });
  s += ev("ping", {});
  let idx = 0;
  if (r.text) {
    s += ev("content_block_start", { index: idx, content_block: { type: "text", text: "" } });
    for (const piece of r.text.match(/.{1,4}/gs) ?? [])
      s += ev("content_block_delta", { index: idx, delta: { type: "text_delta", text: piece } });
    s += ev("content_block_stop", { index: idx++ });
  }
  for (const c of r.toolCalls ?? []) {
    s += ev("content_block_start", {
      index: idx,
      content_block: { type: "tool_use", id: c.id, name: c.name, input: {} },
    });
    for (const piece of c.args.match(/.{1,5}/gs) ?? [])
      s += ev("content_block_delta", { index: idx, delta: { type: "input_json_delta", partial_json: piece } });
    s += ev("content_block_stop", { index: idx++ });
  }
  s += ev("message_delta", {
    delta: { stop_reason: r.toolCalls?.length ? "tool_use" : "end_turn" },
    usage: { output_tokens: u.output },
  });
  return s + ev("message_stop", {});
}

function anthropicJson(r: StubReply): unknown {
  const u = r.usage ?? { input: 0, output: 0 };
  const content: unknown[] = [];
  if (r.text) content.push({ type: "text", text: r.text });
  for (const c of r.toolCalls ?? [])
    content.push({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.args) });
  return {
    id: "m1",
    type: "message",
    role: "assistant",
    model: "stub-claude",
    content,
    stop_reason: r.toolCalls?.length ? "tool_use" : "end_turn",
    usage: { input_tokens: u.input, output_tokens: u.output },
  };
}

export async function startStubLlmServer() {
  const queue: StubReply[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    const body = JSON.parse(raw || "{}") as Record<string, unknown>;
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const r = queue.shift();
    if (!r) {
      res
        .writeHead(500, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "stub: no reply queued" } }));
      return;
    }
    if (r.status) {
      res.writeHead(r.status, { "content-type": "application/json" }).end(r.body ?? "");
      return;
    }
    const openai = req.url === "/v1/chat/completions";
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      await writeChunked(res, openai ? openaiStream(r) : anthropicStream(r));
      res.end();
    } else {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(openai ? openaiJson(r) : anthropicJson(r)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...r: StubReply[]) => queue.push(...r),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
