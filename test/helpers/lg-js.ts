/**
 * The real LangGraph JS libraries for tests: the chat graph of the shared samples (agent with a deterministic fake
 * model ⇄ ToolNode) compiled on a real SqliteSaver / PostgresSaver, and a library-side view of a store's history.
 */
import { z } from "zod";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

const search = tool(async ({ query }: { query: string }) => `${query.split(/\s+/).length} hits for '${query}'`, {
  name: "search",
  description: "Look something up (deterministic fake).",
  schema: z.object({ query: z.string() }),
});

/** No network: a new human message → one search call per ';' part; after tool results → "Answer: …". */
class FakeChatModel extends BaseChatModel {
  calls = 0;
  _llmType() {
    return "fake-tool-caller";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages[messages.length - 1]!;
    const n = messages.length;
    let msg: AIMessage;
    if (last.getType() === "human") {
      const tool_calls = String(last.content)
        .split(";")
        .map((q) => ({
          id: `call_t${String(++this.calls).padStart(3, "0")}`,
          name: "search",
          args: { query: q.trim() },
          type: "tool_call" as const,
        }));
      msg = new AIMessage({ content: "", tool_calls });
    } else {
      const results: string[] = [];
      for (let i = n - 1; i >= 0 && messages[i]!.getType() === "tool"; i--)
        results.unshift(String(messages[i]!.content));
      msg = new AIMessage({ content: `Answer: ${results.join("; ")}` });
    }
    msg.usage_metadata = { input_tokens: 10 * n, output_tokens: 7, total_tokens: 10 * n + 7 };
    msg.response_metadata = { model_name: "fake-tool-caller" };
    return { generations: [{ message: msg, text: String(msg.content) }] };
  }
}

export function chatApp(saver: BaseCheckpointSaver) {
  const model = new FakeChatModel({});
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([search]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
}

export const human = (text: string) => ({ messages: [new HumanMessage({ content: text })] });

export function sqliteSaver(path: string): SqliteSaver {
  return SqliteSaver.fromConnString(path);
}

export function pgSaver(url: string, schema: string): PostgresSaver {
  return PostgresSaver.fromConnString(url, { schema });
}

export async function closeSaver(s: BaseCheckpointSaver): Promise<void> {
  if (s instanceof SqliteSaver) s.db.close();
  else if (s instanceof PostgresSaver) await s.end();
}

/** What the library lists: per checkpoint (thread|ns|id) its parent, metadata, channel values and pending writes, as JSON. */
export async function jsHistory(
  saver: BaseCheckpointSaver,
  opts: { versionedOnly?: boolean } = {},
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const t of saver.list({})) {
    const c = t.config.configurable!;
    const cp = t.checkpoint;
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(cp.channel_values))
      if (!opts.versionedOnly || k in cp.channel_versions) values[k] = v;
    out.set(
      `${c.thread_id}|${c.checkpoint_ns ?? ""}|${c.checkpoint_id}`,
      JSON.stringify(
        sortKeys({
          parent: t.parentConfig?.configurable?.checkpoint_id ?? null,
          metadata: t.metadata,
          values: JSON.parse(JSON.stringify(values)),
          versions: cp.channel_versions,
          seen: cp.versions_seen,
          writes: (t.pendingWrites ?? [])
            .map((w) => JSON.parse(JSON.stringify(w)))
            .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
        }),
      ),
    );
  }
  return out;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}
