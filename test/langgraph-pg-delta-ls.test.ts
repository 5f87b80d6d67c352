/**
 * #41: `ls` of a PostgreSQL store whose `messages` is a DeltaChannel reads a page of heads' parent chains together —
 * by key range for threads with few checkpoints, by the recursive query for long ones (savers/langgraph/postgres/
 * chains.ts). Threads written here by the REAL LangGraph JS library (DeltaChannel + messagesDeltaReducer, PostgresSaver):
 * snapshots in the chain (a blob row the walk stops at), none at all, a fork (checkpoints off the head's chain in the
 * thread's range), a message replaced, removed, everything removed, and one thread longer than the range reads take.
 * Every thread's MESSAGES must be what the library's own getState() gives at its head — as `ls` counts them, and as
 * search reads them (a page of heads' chains read together, savers/langgraph/delta.ts pageChains).
 */
import { describe, expect, it } from "vitest";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { RANGE_MAX } from "../src/savers/langgraph/postgres/chains.js";
import { connections, connectReadOnly, inspectPgSchema } from "../src/savers/langgraph/postgres/connect.js";
import { readerOf } from "../src/savers/langgraph/postgres/read.js";
import { ident } from "../src/savers/langgraph/sql.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { cliIO, runCli } from "./helpers/cli-io.js";

const pgs = pgTestSchemas("lgdls");

/** A graph over `saver` whose messages channel snapshots every `every` updates; "edit", "forget", "reset" inputs reshape. */
function graphOf(saver: PostgresSaver, every: number) {
  const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: every }) });
  let turn = 0;
  return new StateGraph(State)
    .addNode("agent", (s: { messages: Array<{ id?: string; content: unknown }> }) => {
      turn++;
      const text = String(s.messages[s.messages.length - 1]!.content);
      if (text === "edit") return { messages: [new AIMessage({ id: "a-1", content: "answer one, edited" })] };
      if (text === "forget")
        return { messages: [new RemoveMessage({ id: "h-2" }), new AIMessage({ id: `a-${turn}`, content: "forgot" })] };
      if (text === "reset")
        return {
          messages: [new RemoveMessage({ id: "__remove_all__" }), new AIMessage({ id: `a-${turn}`, content: "fresh" })],
        };
      return { messages: [new AIMessage({ id: `a-${turn}`, content: `answer ${turn}` })] };
    })
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
}

describe("ls of a PostgreSQL DeltaChannel store (real LangGraph JS)", () => {
  it("every thread's message count equals getState() at its head: snapshots, none, a fork, removals, a long thread", async () => {
    const schema = pgs.schema("ls");
    const saver = PostgresSaver.fromConnString(PG, { schema });
    await saver.setup();
    const expected = new Map<string, number>();
    const contents = new Map<string, unknown[]>();
    const run = async (thread: string, every: number, inputs: string[], fork = false) => {
      const graph = graphOf(saver, every);
      const cfg = { configurable: { thread_id: thread } };
      let n = 0;
      for (const x of inputs) await graph.invoke({ messages: [new HumanMessage({ id: `h-${++n}`, content: x })] }, cfg);
      if (fork) {
        // one more turn from the checkpoint that ended the 3rd turn: the head's chain leaves the later checkpoints out
        const history = [];
        for await (const s of graph.getStateHistory(cfg)) history.push(s);
        const third = history.filter((s) => s.metadata?.source === "loop" && s.next.length === 0).reverse()[2]!;
        await graph.invoke({ messages: [new HumanMessage({ id: "h-fork", content: "fork" })] }, third.config);
      }
      const head = ((await graph.getState(cfg)).values as { messages: Array<{ content: unknown }> }).messages;
      expected.set(thread, head.length);
      contents.set(
        thread,
        head.map((m) => m.content),
      );
    };
    const shaped = ["one", "two", "three", "edit", "four", "forget", "five", "reset", "six", "seven"];
    await run("t-snap", 3, shaped);
    await run("t-nosnap", 1000, shaped);
    await run("t-fork", 1000, shaped, true);
    await run("t-fork-snap", 2, shaped, true);
    await run("t-short", 1000, ["one"]);
    // longer than RANGE_MAX root checkpoints (three a turn): read by the recursive query
    const turns = Math.ceil((RANGE_MAX + 3) / 3);
    await run(
      "t-long",
      1000,
      Array.from({ length: turns }, (_, i) => (i === 5 ? "forget" : `turn ${i}`)),
    );
    // a byte order mark before one write's JSON (read as text by the server for ls, as bytes elsewhere): the library's
    // own reading (TextDecoder) drops it, and so must ls
    const bom = (
      await pgs.query<{ checkpoint_id: string; task_id: string; idx: number; blob: Buffer }>(
        `UPDATE ${schema}.checkpoint_writes SET blob = '\\xefbbbf'::bytea || blob
       WHERE (thread_id, checkpoint_id, task_id, idx) = (SELECT thread_id, checkpoint_id, task_id, idx FROM ${schema}.checkpoint_writes
         WHERE thread_id = 't-nosnap' AND channel = 'messages' ORDER BY checkpoint_id LIMIT 1 OFFSET 3)
       RETURNING checkpoint_id, task_id, idx, blob`,
      )
    ).rows[0]!;
    expect([...bom.blob.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const reread = graphOf(saver, 1000);
    const cfg = { configurable: { thread_id: "t-nosnap" } };
    expected.set("t-nosnap", ((await reread.getState(cfg)).values as { messages: unknown[] }).messages.length);
    await saver.end();

    const r = await runCli(["ls", `${PG}?schema=${schema}`, "--json"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe("");
    const rows = JSON.parse(r.out) as Array<{
      threadId?: string;
      thread?: string;
      checkpoints: number;
      messages: number;
    }>;
    const got = new Map(rows.map((x) => [x.threadId ?? x.thread!, x.messages]));
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
    const long = rows.find((x) => (x.threadId ?? x.thread) === "t-long")!;
    expect(long.checkpoints).toBeGreaterThan(RANGE_MAX);

    // the count above would be right even if ls kept the mark (the write would not parse, and ls would rebuild the
    // head the slow way, whose bytes TextDecoder reads): the chain read ls counts from must itself give the text
    // without it, as TextDecoder does
    const ro = await connectReadOnly(PG, PG);
    const info = (await inspectPgSchema(ro, schema)).langgraph!;
    const inner = readerOf(connections({ url: PG, uri: PG, schema }, { ro }), `${ident(schema)}.`, info, PG, undefined);
    const head = (
      await pgs.query<{ id: string }>(
        `SELECT max(checkpoint_id) AS id FROM ${schema}.checkpoints WHERE thread_id = 't-nosnap' AND checkpoint_ns = ''`,
      )
    ).rows[0]!.id;
    // with the other threads: a page of heads is read by key range (one thread alone would be too)
    const starts = [...expected.keys()]
      .filter((t) => t !== "t-long")
      .map((t) => ({ threadId: t, fromId: t === "t-nosnap" ? head : "none", checkpoints: 1 }));
    const chain = (await inner.deltaChains!(starts, "", "messages", 1000)).get("t-nosnap")!;
    const w = chain
      .find((c) => c.checkpointId === bom.checkpoint_id)
      ?.writes.find((x) => x.task_id === bom.task_id && x.idx === bom.idx);
    expect(typeof w?.value).toBe("string");
    expect(w!.value).toBe(new TextDecoder().decode(bom.blob));
    expect((w!.value as string).charCodeAt(0)).not.toBe(0xfeff);
    await inner.close();
    await ro.end();

    // search's reading of every thread (the heads of a page together, their parent chains in one round trip per
    // channel: delta.ts pageChains): each thread's messages are getState()'s, and the checkpoint is show's
    const { readConversations } = await import("../src/cli/conversations.js");
    const read = new Map<string, unknown>();
    for await (const c of readConversations([`${PG}?schema=${schema}`], cliIO(), {})) {
      expect(c.ok, c.ok ? "" : c.error.format()).toBe(true);
      if (!c.ok) continue;
      const texts = c.value.checkpoint.messages.map((m) =>
        ((m as { content: Array<{ type: string; text?: string }> }).content ?? [])
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join(""),
      );
      expect(texts, c.value.threadId).toEqual(contents.get(c.value.threadId));
      read.set(c.value.threadId, JSON.parse(JSON.stringify(c.value.checkpoint)));
    }
    expect([...read.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [thread, cp] of read) {
      const shown = await runCli(["show", `${PG}?schema=${schema}#${thread}`, "--json"]);
      expect(cp, thread).toEqual(JSON.parse(shown.out));
    }
  }, 120_000);
});
