/**
 * #37: a deepagents store whose `files` and `messages` channels are DeltaChannels (as Python deepagents declares them on
 * langgraph >= 1.2: `files` with deepagents' file-data reducer, a null deleting a path) reads right. The store is
 * fixtures/versions/deepagents/1.14/store.db, written by the real deepagents JS agent (createDeepAgent: its
 * write_file, edit_file and delete tools, parallel tool calls, 12 turns) through LangGraph JS's SqliteSaver, its
 * channels swapped for DeltaChannels with deepagents' own reducer (scripts/fixtures-versions/deepagents.mjs); the
 * expected values are what the graph read back (readback.json: getState, and every checkpoint of getStateHistory).
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJson } from "../src/formats/langgraph/serde.js";
import { replayDelta } from "../src/formats/langgraph/delta.js";
import { openLangGraph } from "./helpers/lg-open.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { Annotation, DeltaChannel, END, messagesDeltaReducer, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { runCli } from "./helpers/cli-io.js";

const DIR = join(import.meta.dirname, "../fixtures/versions/deepagents/1.14");
type J = Record<string, unknown>;
interface Readback {
  threads: Array<{ id: string; messages: J[]; files: Record<string, J>; checkpoints: number }>;
  history: Array<{ id: string; messages: string[]; files: string[]; filesSha256: string }>;
}
const readback = JSON.parse(readFileSync(join(DIR, "readback.json"), "utf8")) as Readback;
const head = readback.threads[0]!;
const sorted = (o: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    Object.keys(o ?? {})
      .sort()
      .map((k) => [k, o![k]]),
  );
const sha = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");

let tmp: string;
let store: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "ckpt-deepagents-"));
  store = join(tmp, "store.db");
  copyFileSync(join(DIR, "store.db"), store);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("a deepagents store (DeltaChannel files and messages)", () => {
  it("validate passes (exit 0): deepagents' reducers are known, nothing is reported as the store's fault", async () => {
    const v = await runCli(["validate", `sqlite:${store}`]);
    expect(v.out).not.toMatch(/delta-replay|cannot be rebuilt/);
    expect(v.code).toBe(0);
  });

  it("show prints the messages and the files as getState gives them", async () => {
    const r = await runCli(["show", `sqlite:${store}#${head.id}`]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${head.messages.length} messages`);
    for (const m of head.messages) if (typeof m.content === "string" && m.content) expect(r.out).toContain(m.content);
    const files = r.out.slice(r.out.indexOf("\nfiles\n"));
    for (const [path, f] of Object.entries(head.files)) {
      const lines = String(f.content).split("\n").length;
      expect(files).toContain(`${path} (${lines} line${lines === 1 ? "" : "s"}, modified ${String(f.modified_at)})`);
    }
    expect(files.split("\n").filter((l) => l.startsWith("  /")).length).toBe(Object.keys(head.files).length);
    // --json: the messages in order, and the files channel exactly as the library rebuilds it
    const j = await runCli(["show", `sqlite:${store}#${head.id}`, "--json"]);
    const cp = JSON.parse(j.out) as J & { messages: J[]; ext: { langgraph: { tuple: { checkpoint: J } } } };
    expect(cp.messages.length).toBe(head.messages.length);
    const cv = cp.ext.langgraph.tuple.checkpoint.channel_values as J;
    expect(sorted(cv.files as J)).toEqual(head.files);
  });

  it("every checkpoint's messages and files equal getStateHistory's (a lookup per checkpoint, and a whole scan)", async () => {
    const reader = (await openLangGraph(`sqlite:${store}`))!;
    try {
      const brief = (t: { checkpoint: { channel_values: J } }) => {
        const msgs = (t.checkpoint.channel_values.messages as unknown[] | undefined) ?? [];
        const files = sorted(t.checkpoint.channel_values.files as J | undefined);
        return {
          messages: msgs.map((m) => (decodeJson(JSON.stringify(m)) as { kwargs: { id: string } }).kwargs.id),
          files: Object.keys(files),
          filesSha256: sha(files),
        };
      };
      const want = readback.history.map(({ id, ...rest }) => [id, rest] as const);
      for (const [id, expected] of want) {
        const t = (await reader.getTuple(head.id, "", id))!;
        expect(t.issues.filter((i) => i.fatal)).toEqual([]);
        expect(brief(t), id).toEqual(expected);
      }
      const scanned = new Map<string, ReturnType<typeof brief>>();
      for await (const batch of reader.scan()) for (const t of batch) scanned.set(t.checkpointId, brief(t));
      expect(want.filter(([id, e]) => JSON.stringify(scanned.get(id)) !== JSON.stringify(e))).toEqual([]);
      expect(want.length).toBe(head.checkpoints);
      // the store does exercise the reducer: a file deleted (oldest first, a checkpoint with fewer files than the one
      // before it), and files snapshots partway (the rebuild starts from one)
      const counts = readback.history.map((h) => h.files.length).reverse();
      expect(counts.some((n, i) => i > 0 && n < counts[i - 1]!)).toBe(true);
      const snapshots = [];
      for await (const batch of reader.scan())
        for (const t of batch) if (t.delta?.files?.from === "snapshot") snapshots.push(t);
      expect(snapshots.length).toBeGreaterThan(1);
    } finally {
      await reader.close();
    }
  });

  it("deepagents' messages reducer resets on remove-all in a Python store too (deepagents/_messages_reducer.py)", () => {
    const msg = (id: string) => ({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "HumanMessage"],
      kwargs: { id, content: id },
    });
    const removeAll = {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "RemoveMessage"],
      kwargs: { id: "__remove_all__", content: "" },
    };
    const ids = (r: ReturnType<typeof replayDelta>) =>
      "value" in r ? (r.value as Array<{ kwargs: { id: string } }>).map((m) => m.kwargs.id) : r.reason;
    // langgraph 1.2.12's own reducer ignores it; deepagents' (a thread with a delta `files` channel) resets
    expect(ids(replayDelta([msg("a")], [[removeAll, msg("b")]], { library: "python" }))).toEqual(["a", "b"]);
    expect(ids(replayDelta([msg("a")], [[removeAll, msg("b")]], { library: "python", deepagents: true }))).toEqual([
      "b",
    ]);
    // the file-data reducer: writes merged in order, a null deleting a path; other dict writes are not guessed at
    const f = (c: string) => ({ content: c, encoding: "utf-8", created_at: "t", modified_at: "t" });
    expect(replayDelta({ "/a": f("1") }, [{ "/b": f("2") }, { "/a": null }], "python")).toEqual({
      value: { "/b": f("2") },
    });
    expect(replayDelta({ n: 1 }, [{ n: 2 }], "python")).toHaveProperty("reason");
  });
});

// ---- the same channels in PostgreSQL: LangGraph JS's PostgresSaver (snapshots in checkpoint_blobs) ----------------

const pgs = pgTestSchemas("deepdelta");

describe("deepagents' channels in a PostgresSaver store (real LangGraph JS)", () => {
  it("validate passes; show prints the messages and the files getState gives, at the head and at every checkpoint", async () => {
    const schema = pgs.schema("pg");
    const saver = PostgresSaver.fromConnString(PG, { schema });
    await saver.setup();
    // deepagents' file-data reducer as its source states it (a null deletes the path), write by write
    const fileData = (state: Record<string, unknown>, writes: Array<Record<string, unknown>>) => {
      const out = { ...state };
      for (const w of writes) for (const [k, v] of Object.entries(w)) v === null ? delete out[k] : (out[k] = v);
      return out;
    };
    const State = Annotation.Root({
      messages: new DeltaChannel(messagesDeltaReducer, { snapshotFrequency: 50 }),
      files: new DeltaChannel(fileData, { snapshotFrequency: 3, initialValueFactory: () => ({}) }),
    });
    const graph = new StateGraph(State)
      .addNode("agent", (s: { messages: unknown[] }) => {
        const n = s.messages.length;
        const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
        return {
          messages: [new AIMessage({ id: `a-${n}`, content: `wrote note ${n}` })],
          files:
            n % 4 === 1
              ? { [`/notes/${n - 2}.md`]: null }
              : { [`/notes/${n}.md`]: { content: `# ${n}\nline`, encoding: "utf-8", created_at: at, modified_at: at } },
        };
      })
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: saver });
    const cfg = { configurable: { thread_id: "pg-1" } };
    for (let i = 1; i <= 8; i++)
      await graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: `turn ${i}` })] }, cfg);
    const history: Array<{ id: string; files: J }> = [];
    for await (const s of graph.getStateHistory(cfg))
      history.push({
        id: String(s.config.configurable?.checkpoint_id),
        files: (s.values as { files?: J }).files ?? {},
      });
    const head = (await graph.getState(cfg)).values as { messages: Array<{ content: string }>; files: J };
    await saver.end();

    // files were deleted on the way (oldest first: a checkpoint with fewer files than the one before it)
    const counts = history.map((h) => Object.keys(h.files).length).reverse();
    expect(counts.some((n, i) => i > 0 && n < counts[i - 1]!)).toBe(true);
    const uri = `${PG}?schema=${schema}`;
    const v = await runCli(["validate", uri]);
    expect(v.code, v.out).toBe(0);
    const r = await runCli(["show", `${uri}#pg-1`]);
    expect(r.code, r.err).toBe(0);
    for (const m of head.messages) expect(r.out).toContain(m.content);
    expect(Object.keys(head.files).length).toBeGreaterThan(0);
    for (const p of Object.keys(head.files)) expect(r.out).toContain(`  ${p} (2 lines, modified 2026-01-01T`);
    expect(r.out.split("\n").filter((l) => l.startsWith("  /notes/")).length).toBe(Object.keys(head.files).length);
    const reader = (await openLangGraph(uri))!;
    try {
      for (const h of history) {
        const t = (await reader.getTuple("pg-1", "", h.id))!;
        expect(t.issues.filter((i) => i.fatal)).toEqual([]);
        expect(sorted(t.checkpoint.channel_values.files as J | undefined), h.id).toEqual(sorted(h.files));
      }
    } finally {
      await reader.close();
    }
  });
});
