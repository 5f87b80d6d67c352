/**
 * Shared plumbing of the HTTP model providers: POST JSON with a timeout, clear exit-4 errors that never show an API
 * key, and a Server-Sent-Events reader for streamed responses.
 */
import { storeError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";

export interface HttpOptions {
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** POST a JSON body; returns the Response when its status is 2xx, throws CkptError(4) otherwise. */
export async function postJson(
  opts: HttpOptions,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
  keyHint: string,
): Promise<Response> {
  // credentials in the URL (`http://user:secret@host/v1`) go as Basic authentication (fetch refuses a URL holding
  // them) unless the provider sends its own; the URL is only ever shown without them
  const parsed = URL.canParse(opts.baseUrl) ? new URL(opts.baseUrl) : undefined;
  const shown = redactUri(opts.baseUrl);
  if (parsed && (parsed.username || parsed.password)) {
    const auth = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "authorization"))
      headers = { ...headers, authorization: `Basic ${auth.toString("base64")}` };
    parsed.username = "";
    parsed.password = "";
  }
  const url = (parsed ? parsed.href : opts.baseUrl).replace(/\/+$/, "") + path;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 120_000);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await (opts.fetch ?? globalThis.fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: combined,
    });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === "TimeoutError"
        ? `no answer within ${opts.timeoutMs ?? 120_000} ms`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    throw storeError("provider-http", `cannot reach ${shown}: ${why}`);
  }
  if (res.status === 401 || res.status === 403) {
    throw storeError("provider-auth", `authentication failed at ${shown} (HTTP ${res.status}) — check ${keyHint}`);
  }
  if (!res.ok) {
    const text = (await res.text().catch(() => "")).slice(0, 300);
    let msg = text;
    try {
      const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
      msg = (typeof j.error === "string" ? j.error : j.error?.message) ?? j.message ?? text;
    } catch {
      /* not JSON */
    }
    throw storeError("provider-http", `${shown} answered HTTP ${res.status}${msg ? `: ${msg}` : ""}`);
  }
  return res;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Read a text/event-stream body event by event (events may be split across network chunks anywhere). */
export async function* readSse(res: Response, baseUrl: string): AsyncIterable<SseEvent> {
  if (!res.body) throw storeError("provider-http", `malformed response from ${baseUrl}: no body`);
  const decoder = new TextDecoder();
  let buf = "";
  let event: string | undefined;
  let data: string[] = [];
  const reader = res.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    if (done) buf += "\n\n";
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
      if (line === "") {
        if (data.length) yield { event, data: data.join("\n") };
        event = undefined;
        data = [];
      } else if (line.startsWith(":")) {
      } else {
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
        if (field === "data") data.push(val);
        else if (field === "event") event = val;
      }
    }
    if (done) return;
  }
}

export function parseEventJson(data: string, baseUrl: string): Record<string, unknown> {
  try {
    return JSON.parse(data) as Record<string, unknown>;
  } catch {
    throw storeError(
      "provider-http",
      `malformed response from ${baseUrl}: an event is not JSON (${data.slice(0, 80)})`,
    );
  }
}

/** Tool-call arguments arrive as JSON text: parse them, or keep the string when they are not valid JSON. */
export function parseArguments(s: string): unknown {
  if (s.trim() === "") return {};
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
