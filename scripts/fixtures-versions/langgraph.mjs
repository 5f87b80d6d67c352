// Writes a LangGraph JS checkpoint store (SqliteSaver of @langchain/langgraph-checkpoint-sqlite) with the installed
// @langchain/langgraph: a graph whose agent node asks for a tool call, an interrupt before the tool node (the
// approval), resumed, the tool's result and a final answer; then a second thread through a subgraph. Reads it back
// through the graph (getState, getStateHistory). Run by scripts/fixtures-versions.mjs in the target's folder: stdin
// {version, out, versions}; writes <out>/store.db; prints the read-back.
import { readFileSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const { StateGraph, Annotation, messagesStateReducer, START, END } = await import("@langchain/langgraph");
const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
const { AIMessage, HumanMessage, ToolMessage } = await import("@langchain/core/messages");

const saver = SqliteSaver.fromConnString(path.join(input.out, "store.db"));
const State = Annotation.Root({
  messages: Annotation({ reducer: messagesStateReducer, default: () => [] }),
});

const agent = async (s) => {
  const last = s.messages[s.messages.length - 1];
  if (last._getType() === "tool")
    return { messages: [new AIMessage({ id: "ai-2", content: "It is sunny in Paris." })] };
  return {
    messages: [
      new AIMessage({
        id: "ai-1",
        content: "",
        tool_calls: [{ id: "call-1", name: "weather", args: { city: "Paris" }, type: "tool_call" }],
      }),
    ],
  };
};
const tools = async (s) => {
  const call = s.messages[s.messages.length - 1].tool_calls[0];
  return {
    messages: [new ToolMessage({ id: "tool-1", tool_call_id: call.id, name: call.name, content: "sunny in Paris" })],
  };
};
const graph = new StateGraph(State)
  .addNode("agent", agent)
  .addNode("tools", tools)
  .addEdge(START, "agent")
  .addConditionalEdges("agent", (s) => (s.messages[s.messages.length - 1].tool_calls?.length ? "tools" : END))
  .addEdge("tools", "agent")
  .compile({ checkpointer: saver, interruptBefore: ["tools"] });

const trip = { configurable: { thread_id: "trip-1" } };
await graph.invoke({ messages: [new HumanMessage({ id: "human-1", content: "Weather in Paris?" })] }, trip);
const paused = await graph.getState(trip);
await graph.invoke(null, trip); // approved: the tool runs, the agent answers

// a subgraph: its own node answers, inside the parent's node
const inner = new StateGraph(State)
  .addNode("answer", async () => ({ messages: [new AIMessage({ id: "ai-sub", content: "Hello from the subgraph." })] }))
  .addEdge(START, "answer")
  .addEdge("answer", END)
  .compile();
const outer = new StateGraph(State)
  .addNode("sub", inner)
  .addEdge(START, "sub")
  .addEdge("sub", END)
  .compile({ checkpointer: saver });
const hello = { configurable: { thread_id: "sub-1" } };
await outer.invoke({ messages: [new HumanMessage({ id: "human-2", content: "hello" })] }, hello);

const plain = (m) => ({
  type: m._getType(),
  id: m.id ?? null,
  content: m.content,
  ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
  ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
});
const out = { threads: [] };
for (const [g, cfg] of [
  [graph, trip],
  [outer, hello],
]) {
  const state = await g.getState(cfg);
  let history = 0;
  for await (const _ of g.getStateHistory(cfg)) history++;
  out.threads.push({
    id: cfg.configurable.thread_id,
    messages: state.values.messages.map(plain),
    checkpoints: history,
    next: state.next,
  });
}
out.paused = { next: paused.next, messages: paused.values.messages.map(plain) };
process.stdout.write(JSON.stringify(out));
process.exit(0);
