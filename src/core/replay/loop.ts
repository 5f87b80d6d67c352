/**
 * The headless agent loop: canonical messages in, a provider for the model, a tool registry, execution limits,
 * and a stream of events. Runtime tracking (turn count, token totals, elapsed time, repeated calls) is built fresh
 * from the restored messages on every run, as the seed systems require: nothing of it is read from the checkpoint.
 */
import type {
  AgentMessage,
  AssistantMessage,
  ToolCallContent,
  ToolResultMessage,
  Usage,
} from "../../generated/types.js";
import type { Provider, ToolSpec } from "../../providers/types.js";

export interface Limits {
  maxTurns?: number;
  maxTotalTokens?: number;
  maxDurationMs?: number;
  /** stop when the same tool is called with identical arguments this many times in a row */
  maxConsecutiveIdenticalToolCalls?: number | null;
}

export type ReplayEvent =
  | { type: "turn_start"; turn: number }
  | { type: "message"; message: AgentMessage; index: number }
  | { type: "tool_start"; turn: number; toolCallId: string; toolName: string; arguments: unknown }
  | {
      type: "tool_end";
      turn: number;
      toolCallId: string;
      toolName: string;
      isError: boolean;
      text: string;
      source: ToolSource;
    }
  | { type: "usage"; turn: number; usage: Usage; totalTokens: number }
  | { type: "turn_end"; turn: number; toolCalls: number }
  | { type: "limit"; reason: string }
  | { type: "checkpoint_saved"; target: string; step: number }
  | { type: "divergence"; divergence: unknown }
  | { type: "summary"; summary: unknown };

/** Where a tool result came from: run for real against state, answered from the recording, or unavailable. */
export type ToolSource = "state" | "recorded" | "unavailable" | "denied";

export interface ToolExecution {
  text: string;
  isError: boolean;
  source: ToolSource;
  /** extra canonical fields for the result message (e.g. format ext) */
  ext?: ToolResultMessage["ext"];
}

export interface ToolRegistry {
  specs(): ToolSpec[];
  execute(call: ToolCallContent, turn: number): Promise<ToolExecution>;
}

export interface LoopOptions {
  provider: Provider;
  tools: ToolRegistry;
  limits?: Limits;
  onEvent?: (e: ReplayEvent) => void;
  /** clock for timestamps and the duration limit */
  now?: () => number;
}

export interface LoopResult {
  messages: AgentMessage[];
  turns: number;
  toolCalls: number;
  usage: Required<Pick<Usage, "input" | "output">> & { total: number };
  /** set when a limit stopped the run */
  stopped?: string;
}

export function usageTotal(u: Usage | undefined): number {
  if (!u) return 0;
  return u.totalTokens && u.totalTokens > 0
    ? u.totalTokens
    : u.input + u.output + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
}

export function toolCallsOf(m: AgentMessage): ToolCallContent[] {
  if (m.role !== "assistant" || !Array.isArray((m as AssistantMessage).content)) return [];
  return (m as AssistantMessage).content.filter((c): c is ToolCallContent => c.type === "toolCall");
}

/**
 * Run the loop on `history` (which is not mutated) until the model answers without tool calls or a limit stops it.
 * Returns the new history. When a limit stops the run, a synthetic user message `[Agent stopped: <reason>]` is
 * appended — yoagent's convention — so the saved checkpoint says why it ends there.
 */
export async function runLoop(history: readonly AgentMessage[], opts: LoopOptions): Promise<LoopResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const limits = opts.limits ?? {};
  const messages = [...history];
  const emit = (e: ReplayEvent) => opts.onEvent?.(e);
  const push = (m: AgentMessage) => {
    messages.push(m);
    emit({ type: "message", message: m, index: messages.length - 1 });
  };
  let turns = 0;
  let toolCalls = 0;
  let input = 0;
  let output = 0;
  let total = 0;
  let lastCallKey: string | undefined;
  let identicalRun = 0;

  const stop = (reason: string): LoopResult => {
    emit({ type: "limit", reason });
    push({ role: "user", content: [{ type: "text", text: `[Agent stopped: ${reason}]` }], timestamp: now() });
    return { messages, turns, toolCalls, usage: { input, output, total }, stopped: reason };
  };

  for (;;) {
    if (limits.maxTurns !== undefined && turns >= limits.maxTurns)
      return stop(`max turns (${limits.maxTurns}) reached`);
    if (limits.maxTotalTokens !== undefined && total >= limits.maxTotalTokens) {
      return stop(`max total tokens (${limits.maxTotalTokens}) reached: ${total} used`);
    }
    if (limits.maxDurationMs !== undefined && now() - started >= limits.maxDurationMs) {
      return stop(`max duration (${limits.maxDurationMs} ms) reached`);
    }
    turns++;
    emit({ type: "turn_start", turn: turns });
    const reply = await opts.provider.complete({ messages, tools: opts.tools.specs(), turn: turns });
    push(reply);
    if (reply.usage) {
      input += reply.usage.input;
      output += reply.usage.output;
      total += usageTotal(reply.usage);
      emit({ type: "usage", turn: turns, usage: reply.usage, totalTokens: total });
    }
    const calls = toolCallsOf(reply);
    for (const call of calls) {
      const key = `${call.name}\u0000${JSON.stringify(call.arguments)}`;
      identicalRun = key === lastCallKey ? identicalRun + 1 : 1;
      lastCallKey = key;
      const maxSame = limits.maxConsecutiveIdenticalToolCalls;
      if (maxSame !== undefined && maxSame !== null && identicalRun > maxSame) {
        push({
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: [
            {
              type: "text",
              text: "Not executed: the run was stopped for repeating this call with identical arguments.",
            },
          ],
          isError: true,
          timestamp: now(),
        });
        emit({ type: "turn_end", turn: turns, toolCalls: calls.length });
        return stop(`repeated tool call — ${call.name} called ${identicalRun} times with identical arguments`);
      }
      toolCalls++;
      emit({ type: "tool_start", turn: turns, toolCallId: call.id, toolName: call.name, arguments: call.arguments });
      const r = await opts.tools.execute(call, turns);
      emit({
        type: "tool_end",
        turn: turns,
        toolCallId: call.id,
        toolName: call.name,
        isError: r.isError,
        text: r.text,
        source: r.source,
      });
      const msg: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: r.text }],
        isError: r.isError,
        timestamp: now(),
      };
      if (r.ext) msg.ext = r.ext;
      push(msg);
    }
    emit({ type: "turn_end", turn: turns, toolCalls: calls.length });
    if (calls.length === 0) return { messages, turns, toolCalls, usage: { input, output, total } };
  }
}
