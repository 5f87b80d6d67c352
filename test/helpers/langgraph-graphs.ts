/**
 * Small LangGraph JS graphs run with the REAL library and a deterministic fake chat model (no network), to write
 * real checkpoint stores for the tests: a tool-calling chat, a human-in-the-loop interrupt, a subgraph.
 */
import { z } from "zod";
import {
  Command,
  END,
  interrupt,
  MessagesAnnotation,
  START,
  StateGraph,
  type BaseCheckpointSaver,
} from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";

const lookup = tool(async ({ q }: { q: string }) => `found ${q.length} items for ${q}`, {
  name: "lookup",
  description: "fake lookup",
  schema: z.object({ q: z.string() }),
});

/** Human text → one tool call per comma-separated part; after tool results → a text answer. */
class ScriptedModel extends BaseChatModel {
  n = 0;
  _llmType() {
    return "scripted";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages[messages.length - 1]!;
    const msg =
      last.getType() === "human"
        ? new AIMessage({
            content: "",
            tool_calls: String(last.content)
              .split(",")
              .map((q) => ({
                id: `tc_${++this.n}`,
                name: "lookup",
                args: { q: q.trim() },
                type: "tool_call" as const,
              })),
          })
        : new AIMessage({ content: `done: ${String(last.content)}` });
    msg.usage_metadata = { input_tokens: messages.length * 3, output_tokens: 5, total_tokens: messages.length * 3 + 5 };
    msg.response_metadata = { model_name: "scripted" };
    return { generations: [{ message: msg, text: String(msg.content) }] };
  }
}

export async function writeGraphs(saver: BaseCheckpointSaver): Promise<void> {
  const model = new ScriptedModel({});
  const chat = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([lookup]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  const cfg = (id: string) => ({ configurable: { thread_id: id } });
  await chat.invoke({ messages: [new HumanMessage("weather")] }, cfg("t-chat"));
  await chat.invoke({ messages: [new HumanMessage("paris, rome")] }, cfg("t-chat"));
  const hitl = new StateGraph(MessagesAnnotation)
    .addNode("ask", (s) => ({
      messages: [new AIMessage(`ok? ${JSON.stringify(interrupt({ question: "approve?" }))} ${s.messages.length}`)],
    }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: saver });
  await hitl.invoke({ messages: [new HumanMessage("do it")] }, cfg("t-hitl"));
  await hitl.invoke({ messages: [new HumanMessage("do it")] }, cfg("t-hitl-done"));
  await hitl.invoke(new Command({ resume: "yes" }), cfg("t-hitl-done"));
  const inner = new StateGraph(MessagesAnnotation)
    .addNode("gather", () => ({ messages: [new AIMessage("gathered")] }))
    .addEdge(START, "gather")
    .addEdge("gather", END)
    .compile();
  const outer = new StateGraph(MessagesAnnotation)
    .addNode("plan", () => ({ messages: [new AIMessage("plan")] }))
    .addNode("research", inner)
    .addEdge(START, "plan")
    .addEdge("plan", "research")
    .addEdge("research", END)
    .compile({ checkpointer: saver });
  await outer.invoke({ messages: [new HumanMessage("topic")] }, cfg("t-sub"));
}
