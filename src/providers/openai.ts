/**
 * `openai:<base-url>` — OpenAI-compatible chat completions (`POST <base-url>/chat/completions`), streamed (SSE) or
 * not, with tool calls. Works with OpenAI and local servers such as llama.cpp, vLLM or Ollama (base URL ending in /v1).
 */
import type { AgentMessage, AssistantMessage, Content, Message, ToolResultMessage, Usage } from "../generated/types.js";
import { storeError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import type { Provider, ProviderRequest } from "./types.js";
import { parseArguments, parseEventJson, postJson, readSse, type HttpOptions } from "./http.js";

export interface OpenAIOptions extends HttpOptions {
  model: string;
  apiKey?: string;
  stream?: boolean;
}

type Obj = Record<string, unknown>;

const textOf = (content: Content[]) =>
  content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");

/** Canonical history → OpenAI chat messages. Extension messages are never sent; thinking is not sent back. */
export function toOpenAIMessages(messages: AgentMessage[]): Obj[] {
  const out: Obj[] = [];
  for (const am of messages) {
    const m = am as Message; // extension messages (any other role) fall through every branch: never sent
    if (m.role === "system") out.push({ role: "system", content: textOf(m.content) });
    else if (m.role === "user") {
      const hasImage = m.content.some((c) => c.type === "image");
      out.push({
        role: "user",
        content: hasImage
          ? m.content.flatMap((c): Obj[] =>
              c.type === "text"
                ? [{ type: "text", text: c.text }]
                : c.type === "image"
                  ? [{ type: "image_url", image_url: { url: c.url ?? `data:${c.mimeType};base64,${c.data}` } }]
                  : [],
            )
          : textOf(m.content),
      });
    } else if (m.role === "assistant") {
      const calls = m.content.filter((c) => c.type === "toolCall") as Array<{
        id: string;
        name: string;
        arguments: unknown;
      }>;
      const msg: Obj = { role: "assistant", content: textOf(m.content) || null };
      if (calls.length) {
        msg.tool_calls = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: {
            name: c.name,
            arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
          },
        }));
      }
      out.push(msg);
    } else if (m.role === "toolResult") {
      const r = m as ToolResultMessage;
      out.push({ role: "tool", tool_call_id: r.toolCallId, content: textOf(r.content) });
    }
  }
  return out;
}

const STOP: Record<string, AssistantMessage["stopReason"]> = {
  stop: "stop",
  length: "length",
  tool_calls: "toolUse",
  function_call: "toolUse",
  content_filter: "refusal",
};

function usageOf(u: Obj | undefined): Usage {
  const prompt = Number(u?.prompt_tokens ?? 0);
  const cached = Number((u?.prompt_tokens_details as Obj | undefined)?.cached_tokens ?? 0);
  const completion = Number(u?.completion_tokens ?? 0);
  return {
    input: prompt - cached,
    output: completion,
    cacheRead: cached,
    cacheWrite: 0,
    totalTokens: Number(u?.total_tokens ?? prompt + completion),
  };
}

export function createOpenAIProvider(opts: OpenAIOptions): Provider {
  const stream = opts.stream ?? true;
  const shown = redactUri(opts.baseUrl); // in names and messages: never a password in the URL
  return {
    name: `openai:${shown}`,
    async complete(req: ProviderRequest): Promise<AssistantMessage> {
      const body: Obj = { model: opts.model, messages: toOpenAIMessages(req.messages) };
      if (req.tools.length)
        body.tools = req.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }));
      if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
      const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
      const res = await postJson(opts, "/chat/completions", headers, body, req.signal, "OPENAI_API_KEY");
      let text = "";
      let model = opts.model;
      let finish: string | undefined;
      let usage: Obj | undefined;
      const calls: Array<{ id: string; name: string; args: string }> = [];
      if (stream) {
        for await (const ev of readSse(res, shown)) {
          if (ev.data === "[DONE]") break;
          const chunk = parseEventJson(ev.data, shown);
          if (chunk.error)
            throw storeError(
              "provider-http",
              `${shown} streamed an error: ${JSON.stringify(chunk.error).slice(0, 300)}`,
            );
          if (typeof chunk.model === "string") model = chunk.model;
          if (chunk.usage) usage = chunk.usage as Obj;
          for (const choice of (chunk.choices as Obj[] | undefined) ?? []) {
            const delta = (choice.delta ?? {}) as Obj;
            if (typeof delta.content === "string") text += delta.content;
            for (const tc of (delta.tool_calls as Obj[] | undefined) ?? []) {
              const i = Number(tc.index ?? calls.length);
              const fn = (tc.function ?? {}) as Obj;
              const slot = (calls[i] ??= { id: "", name: "", args: "" });
              if (typeof tc.id === "string") slot.id = tc.id;
              if (typeof fn.name === "string") slot.name += fn.name;
              if (typeof fn.arguments === "string") slot.args += fn.arguments;
            }
            if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
          }
        }
      } else {
        const j = (await res.json().catch(() => {
          throw storeError("provider-http", `malformed response from ${shown}: not JSON`);
        })) as Obj;
        const choice = ((j.choices as Obj[] | undefined) ?? [])[0];
        if (!choice) throw storeError("provider-http", `malformed response from ${shown}: no choices`);
        const msg = (choice.message ?? {}) as Obj;
        text = typeof msg.content === "string" ? msg.content : "";
        for (const tc of (msg.tool_calls as Obj[] | undefined) ?? []) {
          const fn = (tc.function ?? {}) as Obj;
          calls.push({
            id: String(tc.id),
            name: String(fn.name),
            args: typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
          });
        }
        finish = choice.finish_reason as string | undefined;
        if (typeof j.model === "string") model = j.model;
        usage = j.usage as Obj | undefined;
      }
      const content: Content[] = [];
      if (text) content.push({ type: "text", text });
      calls.forEach((c, i) =>
        content.push({
          type: "toolCall",
          id: c.id || `call_${req.turn}_${i + 1}`,
          name: c.name,
          arguments: parseArguments(c.args),
        }),
      );
      return {
        role: "assistant",
        content,
        stopReason: (finish ? STOP[finish] : undefined) ?? (calls.length ? "toolUse" : "stop"),
        model,
        provider: "openai",
        usage: usageOf(usage),
        timestamp: Date.now(),
      };
    },
  };
}
