/**
 * `anthropic:<base-url>` — the Anthropic Messages API (`POST <base-url>/v1/messages`), streamed (SSE) or not, with
 * tool use, thinking blocks and cache usage.
 */
import type { AgentMessage, AssistantMessage, Content, Message, ToolResultMessage } from "../generated/types.js";
import { storeError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import type { Provider, ProviderRequest } from "./types.js";
import { parseArguments, parseEventJson, postJson, readSse, type HttpOptions } from "./http.js";

export interface AnthropicOptions extends HttpOptions {
  model: string;
  apiKey?: string;
  maxTokens?: number;
  stream?: boolean;
}

type Obj = Record<string, unknown>;

function block(c: Content): Obj | undefined {
  switch (c.type) {
    case "text":
      return { type: "text", text: c.text };
    case "image":
      return c.url !== undefined
        ? { type: "image", source: { type: "url", url: c.url } }
        : { type: "image", source: { type: "base64", media_type: c.mimeType, data: c.data } };
    case "thinking":
      return c.signature !== undefined ? { type: "thinking", thinking: c.thinking, signature: c.signature } : undefined; // unsigned thinking cannot be sent back
    case "toolCall":
      return { type: "tool_use", id: c.id, name: c.name, input: c.arguments ?? {} };
    default:
      return undefined;
  }
}

/** Canonical history → Anthropic `system` + alternating user/assistant messages (tool results are user turns). */
export function toAnthropic(messages: AgentMessage[]): { system?: string; messages: Obj[] } {
  const system: string[] = [];
  const out: Array<{ role: string; content: Obj[] }> = [];
  const push = (role: string, content: Obj[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const am of messages) {
    const m = am as Message; // extension messages (any other role) fall through every branch: never sent
    if (m.role === "system")
      system.push(
        m.content
          .filter((c) => c.type === "text")
          .map((c) => (c as { text: string }).text)
          .join("\n"),
      );
    else if (m.role === "user" || m.role === "assistant")
      push(
        m.role,
        m.content.map(block).filter((b): b is Obj => b !== undefined),
      );
    else if (m.role === "toolResult") {
      const r = m as ToolResultMessage;
      push("user", [
        {
          type: "tool_result",
          tool_use_id: r.toolCallId,
          content: r.content.map(block).filter((b): b is Obj => b !== undefined),
          is_error: r.isError,
        },
      ]);
    }
  }
  return { system: system.length ? system.join("\n\n") : undefined, messages: out };
}

const STOP: Record<string, AssistantMessage["stopReason"]> = {
  end_turn: "stop",
  max_tokens: "length",
  tool_use: "toolUse",
  refusal: "refusal",
  stop_sequence: "stop",
  pause_turn: "paused",
};

interface Block {
  type: string;
  text: string;
  id?: string;
  name?: string;
  signature?: string;
}

/** What one response carries, gathered from a stream or a whole body. */
interface Collected {
  model: string;
  stop?: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  blocks: Block[];
}

function takeUsage(c: Collected, u: Obj | undefined): void {
  if (!u) return;
  if (u.input_tokens !== undefined) c.usage.input = Number(u.input_tokens);
  if (u.output_tokens !== undefined) c.usage.output = Number(u.output_tokens);
  if (u.cache_read_input_tokens !== undefined) c.usage.cacheRead = Number(u.cache_read_input_tokens);
  if (u.cache_creation_input_tokens !== undefined) c.usage.cacheWrite = Number(u.cache_creation_input_tokens);
}

function requestBody(opts: AnthropicOptions, req: ProviderRequest, stream: boolean): Obj {
  const { system, messages } = toAnthropic(req.messages);
  const body: Obj = { model: opts.model, max_tokens: opts.maxTokens ?? 4096, messages };
  if (system) body.system = system;
  if (req.tools.length)
    body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (stream) body.stream = true;
  return body;
}

/** One server-sent event of the Messages stream into `c`. */
function takeEvent(c: Collected, e: Obj, baseUrl: string): void {
  switch (e.type) {
    case "message_start": {
      const msg = (e.message ?? {}) as Obj;
      if (typeof msg.model === "string") c.model = msg.model;
      takeUsage(c, msg.usage as Obj | undefined);
      break;
    }
    case "content_block_start": {
      const b = (e.content_block ?? {}) as Obj;
      c.blocks[Number(e.index)] = {
        type: String(b.type),
        text: typeof b.text === "string" ? b.text : typeof b.thinking === "string" ? b.thinking : "",
        id: b.id as string | undefined,
        name: b.name as string | undefined,
      };
      break;
    }
    case "content_block_delta": {
      const d = (e.delta ?? {}) as Obj;
      const b = c.blocks[Number(e.index)];
      if (!b)
        throw storeError(
          "provider-http",
          `malformed response from ${baseUrl}: a delta for a block that was not started`,
        );
      if (d.type === "text_delta") b.text += String(d.text);
      else if (d.type === "input_json_delta") b.text += String(d.partial_json);
      else if (d.type === "thinking_delta") b.text += String(d.thinking);
      else if (d.type === "signature_delta") b.signature = (b.signature ?? "") + String(d.signature);
      break;
    }
    case "message_delta":
      c.stop = ((e.delta ?? {}) as Obj).stop_reason as string | undefined;
      takeUsage(c, e.usage as Obj | undefined);
      break;
    case "error":
      throw storeError("provider-http", `${baseUrl} streamed an error: ${JSON.stringify(e.error).slice(0, 300)}`);
    default:
      break; // ping, content_block_stop, message_stop
  }
}

/** A whole (non-streamed) Messages response into `c`. */
function takeBody(c: Collected, j: Obj): void {
  if (typeof j.model === "string") c.model = j.model;
  c.stop = j.stop_reason as string | undefined;
  takeUsage(c, j.usage as Obj | undefined);
  for (const b of (j.content as Obj[] | undefined) ?? []) {
    c.blocks.push({
      type: String(b.type),
      text: b.type === "tool_use" ? JSON.stringify(b.input ?? {}) : String(b.text ?? b.thinking ?? ""),
      id: b.id as string | undefined,
      name: b.name as string | undefined,
      signature: b.signature as string | undefined,
    });
  }
}

function toAssistant(c: Collected): AssistantMessage {
  const content: Content[] = [];
  for (const b of c.blocks) {
    if (!b) continue;
    if (b.type === "text") content.push({ type: "text", text: b.text });
    else if (b.type === "thinking")
      content.push(
        b.signature !== undefined
          ? { type: "thinking", thinking: b.text, signature: b.signature }
          : { type: "thinking", thinking: b.text },
      );
    else if (b.type === "tool_use")
      content.push({ type: "toolCall", id: String(b.id), name: String(b.name), arguments: parseArguments(b.text) });
  }
  return {
    role: "assistant",
    content,
    stopReason:
      (c.stop ? STOP[c.stop] : undefined) ?? (content.some((x) => x.type === "toolCall") ? "toolUse" : "stop"),
    model: c.model,
    provider: "anthropic",
    // Anthropic reports no total: 0, as yoagent records it
    usage: { ...c.usage, totalTokens: 0 },
    timestamp: Date.now(),
  };
}

export function createAnthropicProvider(opts: AnthropicOptions): Provider {
  const stream = opts.stream ?? true;
  const shown = redactUri(opts.baseUrl); // in names and messages: never a password in the URL
  return {
    name: `anthropic:${shown}`,
    async complete(req: ProviderRequest): Promise<AssistantMessage> {
      const headers: Record<string, string> = { "anthropic-version": "2023-06-01" };
      if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
      const res = await postJson(
        opts,
        "/v1/messages",
        headers,
        requestBody(opts, req, stream),
        req.signal,
        "ANTHROPIC_API_KEY",
      );
      const c: Collected = {
        model: opts.model,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        blocks: [],
      };
      if (stream) {
        for await (const ev of readSse(res, shown)) takeEvent(c, parseEventJson(ev.data, shown), shown);
      } else {
        const j = (await res.json().catch(() => {
          throw storeError("provider-http", `malformed response from ${shown}: not JSON`);
        })) as Obj;
        takeBody(c, j);
      }
      return toAssistant(c);
    },
  };
}
