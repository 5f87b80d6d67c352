/**
 * #40: prune of DeltaChannel threads never drops what a kept checkpoint's rebuild needs (its snapshot and the writes
 * since), says why it keeps more than asked (text and --json), and `--keep-last N` keeps the newest N of each
 * namespace, as LangGraph's `prune(strategy="keep_latest")` is documented to ("retains only the most recent checkpoint
 * per namespace"; its docstring: keep the ancestors back to a snapshot of every delta channel). Proof from the REAL
 * LangGraph JS library: after the prune its getState rebuilds every kept checkpoint as it did before, and its
 * getStateHistory lists exactly the kept ones.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { runCli } from "./helpers/cli-io.js";

type J = Record<string, unknown>;
type Graph = ReturnType<typeof graphOn>;

/** deepagents' file-data reducer as its source states it (a null deletes the path), applied write by write. */
const fileData = (state: Record<string, unknown>, writes: Array<Record<string, unknown>>) => {
  const out = { ...state };
  for (const w of writes) for (const [k, v] of Object.entries(w)) v === null ? delete out[k] : (out[k] = v);
  return out;
};

/** The graph (its channels as the stores were written with them) over a SqliteSaver of `file`. */
function graphOn(file: string, snapshots: { messages: number; files: number }) {
  const saver = SqliteSaver.fromConnString(file);
  const State = Annotation.Root({
    messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: snapshots.messages }),
    files: new DeltaChannel(fileData, { snapshotFrequency: snapshots.files, initialValueFactory: () => ({}) }),
  });
  let n = 0;
  const graph = new StateGraph(State)
    .addNode("agent", (s: { messages: unknown[] }) => {
      n = s.messages.length;
      return {
        messages: [new AIMessage({ id: `a-${n}`, content: `answer ${n}` })],
        files:
          n % 4 === 1 ? { [`/f${n - 2}.md`]: null } : { [`/f${n}.md`]: { content: `file ${n}`, encoding: "utf-8" } },
      };
    })
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  return { graph, close: () => (saver as unknown as { db: { close(): void } }).db.close() };
}

const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");
/** What the library gives at one checkpoint: message ids and the files (sorted). */
const brief = (values: J) => ({
  messages: ((values.messages as Array<{ id?: string }> | undefined) ?? []).map((m) => m.id),
  files: hash(Object.entries((values.files as J | undefined) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
});

/** Every checkpoint of the thread as the library rebuilds it: id → brief (getStateHistory, then getState at each). */
async function rebuilt(g: Graph, thread: string): Promise<Map<string, ReturnType<typeof brief>>> {
  const out = new Map<string, ReturnType<typeof brief>>();
  const cfg = { configurable: { thread_id: thread } };
  for await (const s of g.graph.getStateHistory(cfg)) {
    const id = String(s.config.configurable?.checkpoint_id);
    const at = await g.graph.getState({ configurable: { thread_id: thread, checkpoint_id: id } });
    expect(brief(at.values as J)).toEqual(brief(s.values as J));
    out.set(id, brief(s.values as J));
  }
  return out;
}

let dir: string;
let written: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-prune-delta-"));
  written = join(dir, "written.db");
  const g = graphOn(written, { messages: 4, files: 3 });
  for (const t of ["t-1", "t-2"])
    for (let i = 1; i <= 7; i++)
      await g.graph.invoke(
        { messages: [new HumanMessage({ id: `${t}-h-${i}`, content: `q ${i}` })] },
        { configurable: { thread_id: t } },
      );
  g.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("prune --keep-last on DeltaChannel threads (real LangGraph JS)", () => {
  for (const keep of [1, 3]) {
    it(`--keep-last ${keep}: the newest ${keep} and their delta chains kept, said why; the library rebuilds each as before`, async () => {
      const file = join(dir, `keep-${keep}.db`);
      copyFileSync(written, file);
      const g = graphOn(file, { messages: 4, files: 3 });
      const before = new Map([...(await rebuilt(g, "t-1")), ...(await rebuilt(g, "t-2"))]);
      const dry = await runCli(["prune", `sqlite:${file}`, "--keep-last", String(keep), "--dry-run"]);
      expect(dry.code, dry.err).toBe(0);
      const r = await runCli(["prune", `sqlite:${file}`, "--keep-last", String(keep), "--json"]);
      expect(r.code, r.err).toBe(0);
      const s = JSON.parse(r.out) as J & {
        kept: number;
        checkpoints: number;
        deltaKept: { checkpoints: number; threads: number; chains: Array<J> };
      };
      const after = new Map([...(await rebuilt(g, "t-1")), ...(await rebuilt(g, "t-2"))]);
      g.close();
      // something went, and every checkpoint left reads as it read before
      expect(s.checkpoints).toBeGreaterThan(0);
      expect(after.size).toBe(s.kept);
      expect(before.size).toBe(s.kept + s.checkpoints);
      for (const [id, b] of after) expect(b, id).toEqual(before.get(id));
      // more than asked, and why: each thread's chain back to the snapshot it builds on
      expect(s.kept).toBe(2 * keep + s.deltaKept.checkpoints);
      expect(s.deltaKept.checkpoints).toBeGreaterThan(0);
      for (const c of s.deltaKept.chains) {
        expect(after.has(String(c.reach))).toBe(true);
        expect(after.has(String(c.from))).toBe(true);
        expect(c.asked).toBe(keep);
      }
      const chain = s.deltaKept.chains[0]!;
      expect(dry.out).toContain(
        `kept ${chain.kept} of ${chain.threadId} where ${keep} ${keep === 1 ? "was" : "were"} asked: the delta chain of checkpoint ${chain.from}`,
      );
      expect(dry.out).toMatch(/reaches back to its snapshot at [0-9a-f-]+; (its value is|their values are) rebuilt/);
      expect(dry.out).toMatch(new RegExp(`kept ${s.deltaKept.checkpoints} more checkpoints? than asked in 2 threads`));
      // a second prune finds nothing more to delete
      const again = await runCli(["prune", `sqlite:${file}`, "--keep-last", String(keep), "--json"]);
      expect((JSON.parse(again.out) as { checkpoints: number }).checkpoints).toBe(0);
    });
  }

  it("the deepagents store: --keep-last 1 keeps all 82 (the messages chain has no snapshot yet), says so; the head reads as before", async () => {
    const file = join(dir, "deep.db");
    copyFileSync(join(import.meta.dirname, "../fixtures/versions/deepagents/1.14/store.db"), file);
    const readback = JSON.parse(
      readFileSync(join(import.meta.dirname, "../fixtures/versions/deepagents/1.14/readback.json"), "utf8"),
    ) as { history: Array<{ id: string; messages: string[] }> };
    const r = await runCli(["prune", `sqlite:${file}`, "--keep-last", "1"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("deleted 0 checkpoints");
    expect(r.out).toContain(
      `kept 82 of deep-1 where 1 was asked: the delta chain of checkpoint ${readback.history[0]!.id} (DeltaChannel 'messages', 'files') reaches back to the thread's first checkpoint ${readback.history[readback.history.length - 1]!.id} (no snapshot since)`,
    );
    const g = graphOn(file, { messages: 50, files: 5 });
    const head = await g.graph.getState({ configurable: { thread_id: "deep-1" } });
    g.close();
    expect(brief(head.values as J).messages).toEqual(readback.history[0]!.messages);
  });
});
