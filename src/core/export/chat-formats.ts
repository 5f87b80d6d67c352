/**
 * The conversation formats of `ckpt export`, one row per conversation:
 * - openai-chat: `{"messages": [...]}` as OpenAI's chat fine-tuning and most evaluation tools take it — `role`,
 *   `content` (text), an assistant's `tool_calls` (`id`, `type: "function"`, `function: {name, arguments}` with the
 *   arguments as a JSON string) and `tool` messages with `tool_call_id`;
 * - hf-messages: the conversational `messages` of Hugging Face datasets and TRL (chat templates' tool calling: the
 *   arguments as an object, a tool message's `name`), with `tools` (the functions it called) where it called any;
 * - sharegpt: `{"conversations": [{"from", "value"}], "system"?, "tools"?}` with the roles human, gpt,
 *   function_call (its value the call as JSON) and observation (the tool's result), as LLaMA-Factory reads it.
 */
import type { ColumnType, ExportFormat, ExportLoss, ExportThread } from "./types.js";
import { argumentsText, chatTurns, type Turn, threadLabel, toolNames } from "./turns.js";

const S = "string" as const;

/** Whether the turns make a conversation: one without any message is no training example (left out, counted). */
function conversation(turns: readonly Turn[], t: ExportThread, loss: ExportLoss): boolean {
  if (turns.length) return true;
  loss.add("empty", "threads without a chat message (no row written)", threadLabel(t));
  return false;
}

// ------------------------------------------------------------------------------------------------ openai-chat

type OpenAIMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

function openAIMessage(t: Turn): OpenAIMessage {
  if (t.role === "tool") return { role: "tool", tool_call_id: t.callId, content: t.text };
  if (t.role !== "assistant") return { role: t.role, content: t.text };
  if (!t.calls.length) return { role: "assistant", content: t.text ?? "" };
  return {
    role: "assistant",
    content: t.text,
    tool_calls: t.calls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: argumentsText(c.args) },
    })),
  };
}

const TOOL_CALL: ColumnType = {
  struct: [
    ["id", S],
    ["type", S],
    [
      "function",
      {
        struct: [
          ["name", S],
          ["arguments", S],
        ],
      },
    ],
  ],
};

export const openAIChat: ExportFormat = {
  name: "openai-chat",
  row: "conversation",
  rows(t: ExportThread, loss: ExportLoss) {
    const turns = chatTurns(t, loss);
    return conversation(turns, t, loss) ? [{ messages: turns.map(openAIMessage) }] : [];
  },
  columns: [
    [
      "messages",
      {
        list: {
          struct: [
            ["role", S],
            ["content", S],
            ["tool_calls", { list: TOOL_CALL }],
            ["tool_call_id", S],
          ],
        },
      },
    ],
  ],
};

// ------------------------------------------------------------------------------------------------ hf-messages

type HfMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string;
      tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: unknown } }>;
    }
  | { role: "tool"; name: string; tool_call_id: string; content: string };

function hfMessage(t: Turn): HfMessage {
  if (t.role === "tool") return { role: "tool", name: t.name, tool_call_id: t.callId, content: t.text };
  if (t.role !== "assistant") return { role: t.role, content: t.text };
  const m: HfMessage = { role: "assistant", content: t.text ?? "" };
  if (t.calls.length)
    m.tool_calls = t.calls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: hfArguments(c.args) },
    }));
  return m;
}

/** Chat templates render `arguments` as an object: a JSON text the store kept is parsed back into one. */
function hfArguments(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

export const hfMessages: ExportFormat = {
  name: "hf-messages",
  row: "conversation",
  rows(t, loss) {
    const turns = chatTurns(t, loss);
    if (!conversation(turns, t, loss)) return [];
    const names = toolNames(turns);
    const row: { messages: HfMessage[]; tools?: unknown[] } = { messages: turns.map(hfMessage) };
    // the checkpoint keeps the calls, not the tools' declarations: each function by name
    if (names.length) row.tools = names.map((name) => ({ type: "function", function: { name } }));
    return [row];
  },
  columns: [
    [
      "messages",
      {
        list: {
          struct: [
            ["role", S],
            ["content", S],
            ["tool_calls", { list: TOOL_CALL }],
            ["name", S],
            ["tool_call_id", S],
          ],
        },
      },
    ],
    [
      "tools",
      {
        list: {
          struct: [
            ["type", S],
            ["function", { struct: [["name", S]] }],
          ],
        },
      },
    ],
  ],
  flatten(row) {
    // Parquet holds one type per column: the arguments, whose shape varies per tool, as JSON text
    const r = row as { messages: HfMessage[]; tools?: unknown[] };
    return {
      messages: r.messages.map((m) =>
        m.role === "assistant" && m.tool_calls
          ? {
              ...m,
              tool_calls: m.tool_calls.map((c) => ({
                ...c,
                function: { name: c.function.name, arguments: argumentsText(c.function.arguments) },
              })),
            }
          : m,
      ),
      tools: r.tools ?? null,
    };
  },
};

// ------------------------------------------------------------------------------------------------ sharegpt

interface ShareGptTurn {
  from: "human" | "gpt" | "function_call" | "observation";
  value: string;
}

const USER_SIDE = new Set(["human", "observation"]);

/**
 * The turns in the order LLaMA-Factory's ShareGPT reader accepts (data/converter.py, SharegptDatasetConverter): a
 * user-side turn (human, observation) at every even position, an assistant-side one (gpt, function_call) at every
 * odd one, and an even count — it skips any other example whole. Two user messages in a row, or two assistant texts,
 * are joined (a blank line between), a tool call right after an assistant text takes its place (the text counted, as
 * beside a call in one message); the rest that cannot stand where it is is left out and counted: assistant turns
 * before the first user turn, a turn of the same side as the one before it that cannot be joined to it, and a last
 * turn the assistant did not answer.
 */
function alternating(
  items: Array<ShareGptTurn & { index: number }>,
  t: ExportThread,
  loss: ExportLoss,
): ShareGptTurn[] {
  const label = threadLabel(t);
  const out: Array<ShareGptTurn & { index: number }> = [];
  for (const it of items) {
    const userSide = USER_SIDE.has(it.from);
    if (userSide === (out.length % 2 === 0)) out.push(it);
    else if (out.length === 0)
      loss.add(
        "sharegpt-lead",
        "assistant turns before the first user turn (ShareGPT starts with the user)",
        label,
        it.index,
      );
    else if (out.at(-1)!.from === it.from && (it.from === "human" || it.from === "gpt"))
      out[out.length - 1] = { ...out.at(-1)!, value: `${out.at(-1)!.value}\n\n${it.value}` };
    else if (it.from === "function_call" && out.at(-1)!.from === "gpt") {
      // a call in a message of its own after the text: one turn, as text beside a call in one message is (the call
      // stands, and with it the observation that follows; the text is counted)
      loss.add(
        "sharegpt-call-text",
        "assistant texts said beside a tool call (the call is kept)",
        label,
        out.at(-1)!.index,
      );
      out[out.length - 1] = it;
    } else
      loss.add(
        "sharegpt-order",
        "turns following one of the same side that ShareGPT cannot hold there (a user message right after a tool's result, a text after a tool call)",
        label,
        it.index,
      );
  }
  if (out.length % 2 === 1)
    loss.add(
      "sharegpt-unanswered",
      "last turns the assistant did not answer (ShareGPT ends with the assistant)",
      label,
      out.pop()!.index,
    );
  return out.map(({ from, value }) => ({ from, value }));
}

export const shareGpt: ExportFormat = {
  name: "sharegpt",
  row: "conversation",
  rows(t, loss) {
    const turns = chatTurns(t, loss);
    if (!conversation(turns, t, loss)) return [];
    const system: string[] = [];
    const items: Array<ShareGptTurn & { index: number }> = [];
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i]!;
      const index = turn.index;
      if (turn.role === "system") system.push(turn.text);
      else if (turn.role === "user") items.push({ from: "human", value: turn.text, index });
      else if (turn.role === "assistant") {
        if (turn.calls.length) {
          // one assistant-side turn: the calls (LLaMA-Factory's function_call holds the calls alone)
          if (turn.text)
            loss.add(
              "sharegpt-call-text",
              "assistant texts said beside a tool call (the call is kept)",
              threadLabel(t),
              index,
            );
          const calls = turn.calls.map((c) => ({ name: c.name, arguments: hfArguments(c.args) }));
          items.push({ from: "function_call", value: JSON.stringify(calls.length === 1 ? calls[0] : calls), index });
        } else if (turn.text) items.push({ from: "gpt", value: turn.text, index });
      } else {
        // the results of one step's calls, one observation (several: a JSON array of their texts, in call order)
        const results = [turn.text];
        while (turns[i + 1]?.role === "tool") results.push((turns[++i] as { text: string }).text);
        items.push({ from: "observation", value: results.length === 1 ? results[0]! : JSON.stringify(results), index });
      }
    }
    const conversations = alternating(items, t, loss);
    if (conversations.length === 0) {
      loss.add("empty", "threads without a chat message (no row written)", threadLabel(t));
      return [];
    }
    const names = toolNames(turns);
    const row: { conversations: ShareGptTurn[]; system?: string; tools?: string } = { conversations };
    if (system.length) row.system = system.join("\n\n");
    if (names.length) row.tools = JSON.stringify(names.map((name) => ({ name })));
    return [row];
  },
  columns: [
    [
      "conversations",
      {
        list: {
          struct: [
            ["from", S],
            ["value", S],
          ],
        },
      },
    ],
    ["system", S],
    ["tools", S],
  ],
};
