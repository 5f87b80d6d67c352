/**
 * One long LangGraph thread written by the real JS library (@langchain/langgraph-checkpoint-sqlite's SqliteSaver
 * `put` / `putWrites`, in one transaction for speed): checkpoint i at step i - 1 (the first is the input, step -1),
 * each the child of the one before, with a `messages` channel growing by one message per checkpoint and a pending
 * write on every tenth. What a copy must give back: `n` checkpoints, newest step n - 2.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { RunnableConfig } from "@langchain/core/runnables";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";

export async function writeLongThread(file: string, threadId: string, n: number): Promise<{ ids: string[] }> {
  const saver = SqliteSaver.fromConnString(file);
  const ids: string[] = [];
  try {
    // set up by the library, then every put in one transaction (the library's statements, committed once)
    await saver.getTuple({ configurable: { thread_id: "none" } });
    saver.db.exec("BEGIN");
    let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    const messages: string[] = [];
    for (let i = 0; i < n; i++) {
      const cp = emptyCheckpoint();
      cp.id = uuid6(i);
      messages.push(`message ${i}`);
      cp.channel_values = { messages: [...messages.slice(-3)], count: i };
      cp.channel_versions = { messages: i + 1, count: i + 1 };
      config = await saver.put(config, cp, { source: i === 0 ? "input" : "loop", step: i - 1, parents: {} });
      ids.push(cp.id);
      if (i % 10 === 0) await saver.putWrites(config, [["messages", `pending ${i}`]], `task-${i}`);
    }
    saver.db.exec("COMMIT");
  } finally {
    saver.db.close();
  }
  return { ids };
}
