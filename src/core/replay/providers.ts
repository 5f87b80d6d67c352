/**
 * Providers that need no network: `recorded` (the checkpoint's own assistant messages, in order) and `script`
 * (a JSON list of replies, for tests and demos). The HTTP providers live in openai.ts and anthropic.ts.
 */
import type { AssistantMessage, Content, Usage } from "../../generated/types.js";
import { CkptError, ExitCode, inputError } from "../../base/errors.js";
import type { Provider, ProviderRequest } from "../../providers/types.js";

/** Answers each turn with the next recorded assistant message; fails clearly when the recording runs out. */
export class RecordedProvider implements Provider {
  readonly name = "recorded";
  private next = 0;
  /** `alreadyUsed`: recorded assistant turns that precede these replies (for the message only) */
  constructor(
    private readonly replies: readonly AssistantMessage[],
    private readonly alreadyUsed = 0,
  ) {}
  get remaining(): number {
    return this.replies.length - this.next;
  }
  async complete(req: ProviderRequest): Promise<AssistantMessage> {
    const r = this.replies[this.next];
    if (!r) {
      throw new CkptError(
        ExitCode.NEGATIVE,
        "recording-exhausted",
        `the recording has no assistant turn for turn ${req.turn} (it holds ${this.replies.length + this.alreadyUsed} assistant message(s), all replayed); use --provider script:<file> or an HTTP provider to go beyond it`,
      );
    }
    this.next++;
    return r;
  }
}

/** One scripted reply: a plain string, or text/content plus tool calls. */
export type ScriptReply =
  | string
  | {
      text?: string;
      content?: Content[];
      toolCalls?: { id?: string; name: string; arguments?: unknown }[];
      usage?: Usage;
      stopReason?: AssistantMessage["stopReason"];
      model?: string;
    };

/** Check a parsed script file; errors name the JSON pointer of the bad reply. */
export function parseScript(value: unknown, file: string): ScriptReply[] {
  if (!Array.isArray(value))
    throw inputError("script", "a script is a JSON array of replies (strings or {text, toolCalls})", {
      file,
      pointer: "",
    });
  value.forEach((r, i) => {
    if (typeof r === "string") return;
    if (!r || typeof r !== "object" || Array.isArray(r)) {
      throw inputError("script", "expected a string or an object {text?, content?, toolCalls?, usage?}", {
        file,
        pointer: `/${i}`,
      });
    }
    const o = r as Record<string, unknown>;
    if (o.text !== undefined && typeof o.text !== "string")
      throw inputError("script", "expected a string", { file, pointer: `/${i}/text` });
    if (o.content !== undefined && !Array.isArray(o.content))
      throw inputError("script", "expected an array of content blocks", { file, pointer: `/${i}/content` });
    if (o.toolCalls !== undefined) {
      if (!Array.isArray(o.toolCalls))
        throw inputError("script", "expected an array of {name, arguments}", { file, pointer: `/${i}/toolCalls` });
      o.toolCalls.forEach((c, k) => {
        if (!c || typeof c !== "object" || typeof (c as { name?: unknown }).name !== "string") {
          throw inputError("script", "expected {name: string, arguments?: any, id?: string}", {
            file,
            pointer: `/${i}/toolCalls/${k}`,
          });
        }
      });
    }
  });
  return value as ScriptReply[];
}

/** Replies from a script, in order; tool call ids default to `call_<turn>_<n>`. */
export class ScriptProvider implements Provider {
  readonly name: string;
  private next = 0;
  constructor(
    private readonly replies: readonly ScriptReply[],
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    this.name = `script:${file}`;
  }
  async complete(req: ProviderRequest): Promise<AssistantMessage> {
    const r = this.replies[this.next];
    if (r === undefined) {
      throw new CkptError(
        ExitCode.NEGATIVE,
        "script-exhausted",
        `${this.name} has ${this.replies.length} replies; the loop asked for reply ${this.next + 1} (turn ${req.turn})`,
      );
    }
    this.next++;
    const o = typeof r === "string" ? { text: r } : r;
    const content: Content[] = [...(o.content ?? [])];
    if (o.text !== undefined) content.push({ type: "text", text: o.text });
    (o.toolCalls ?? []).forEach((c, k) => {
      content.push({
        type: "toolCall",
        id: c.id ?? `call_${req.turn}_${k + 1}`,
        name: c.name,
        arguments: c.arguments ?? {},
      });
    });
    const hasCalls = (o.toolCalls ?? []).length > 0;
    return {
      role: "assistant",
      content,
      stopReason: o.stopReason ?? (hasCalls ? "toolUse" : "stop"),
      model: o.model ?? "script",
      provider: "script",
      usage: o.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: this.now(),
    };
  }
}
