// Writes a deepagents (JS) store as Python deepagents on langgraph >= 1.2 writes it: a real createDeepAgent agent
// (its filesystem tools write_file, edit_file, delete, its middleware) driven by a scripted chat model over many
// turns, saved by the SqliteSaver; its `files` and `messages` channels are DeltaChannels, as Python deepagents declares
// them (`files: DeltaChannel(_file_data_delta_reducer)`, `messages: DeltaChannel(_messages_delta_reducer)`): the JS
// agent's channels are swapped for @langchain/langgraph's DeltaChannel with deepagents' own reducer (filesValue's,
// applied write by write, which is what Python's batch reducer does) and messagesDeltaReducer. Reads it back through the
// graph (getState, getStateHistory). Run by scripts/fixtures-versions.mjs in the target's folder: stdin
// {version, out, versions}; writes <out>/store.db; prints the read-back.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const { createDeepAgent, filesValue } = await import("deepagents");
const { DeltaChannel, messagesDeltaReducer } = await import("@langchain/langgraph");
const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
const { BaseChatModel } = await import("@langchain/core/language_models/chat_models");
const { AIMessage, HumanMessage } = await import("@langchain/core/messages");

/** Each turn: the tool calls the model makes for the user's request (none: it answers at once). */
const file = (n) => `/notes/${n}.md`;
const TURNS = [];
for (let i = 1; i <= 12; i++) {
  const calls = [];
  if (i % 3 === 1) {
    // two files at once: parallel tool calls, two writes to `files` in one step
    calls.push(["write_file", { file_path: file(`a${i}`), content: `# a${i}\nfirst line ${i}\nsecond line ${i}` }]);
    calls.push(["write_file", { file_path: file(`b${i}`), content: `# b${i}\nonly line ${i}` }]);
  } else if (i % 3 === 2) {
    calls.push([
      "edit_file",
      { file_path: file(`a${i - 1}`), old_string: `first line ${i - 1}`, new_string: `edited in turn ${i}` },
    ]);
  } else if (i % 6 === 0) {
    calls.push(["delete", { file_path: file(`b${i - 2}`) }]);
  } else {
    calls.push(["write_file", { file_path: file(`a${i - 2}`), content: `# a${i - 2}\nrewritten in turn ${i}` }]);
  }
  if (i === 9) calls.length = 0; // a turn without tools
  TURNS.push(calls);
}

let turn = 0;
let callId = 0;
let aiId = 0;
class ScriptedModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const last = messages[messages.length - 1];
    const plan = TURNS[turn - 1] ?? [];
    const message =
      last._getType() === "human" && plan.length
        ? new AIMessage({
            id: `ai-${++aiId}`,
            content: "",
            tool_calls: plan.map(([name, args]) => ({ id: `call-${++callId}`, name, args, type: "tool_call" })),
          })
        : new AIMessage({ id: `ai-${++aiId}`, content: `Done with turn ${turn}.` });
    return { generations: [{ message, text: String(message.content) }] };
  }
}

const saver = SqliteSaver.fromConnString(path.join(input.out, "store.db"));
const agent = createDeepAgent({ model: new ScriptedModel({}), checkpointer: saver });
const graph = agent.graph;
const fileData = filesValue.reducer;
graph.channels.files = new DeltaChannel((state, writes) => writes.reduce((acc, w) => fileData(acc, w), state), {
  snapshotFrequency: 5,
  initialValueFactory: () => ({}),
});
graph.channels.messages = new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 50 });

const cfg = { configurable: { thread_id: "deep-1" }, recursionLimit: 100 };
for (turn = 1; turn <= TURNS.length; turn++)
  await agent.invoke(
    { messages: [new HumanMessage({ id: `human-${turn}`, content: `Turn ${turn}: work on the notes.` })] },
    cfg,
  );

const plain = (m) => ({
  type: m._getType(),
  id: m.id ?? null,
  content: m.content,
  ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
  ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
});
const sorted = (o) =>
  Object.fromEntries(
    Object.keys(o ?? {})
      .sort()
      .map((k) => [k, o[k]]),
  );
const hash = (v) => createHash("sha256").update(JSON.stringify(v)).digest("hex");
const state = await graph.getState(cfg);
const history = [];
for await (const s of graph.getStateHistory(cfg)) {
  const files = sorted(s.values.files);
  history.push({
    id: s.config.configurable.checkpoint_id,
    messages: (s.values.messages ?? []).map((m) => m.id),
    files: Object.keys(files),
    filesSha256: hash(files),
  });
}
const out = {
  threads: [
    {
      id: "deep-1",
      messages: state.values.messages.map(plain),
      files: sorted(state.values.files),
      checkpoints: history.length,
      next: state.next,
    },
  ],
  history,
  channels: { files: { snapshotFrequency: 5 }, messages: { snapshotFrequency: 50 } },
};
process.stdout.write(JSON.stringify(out));
process.exit(0);
