// The LangGraph bench store (bench/langgraph.mjs writes the same one, under the same name): BENCH_LG_THREADS threads ×
// 20 checkpoints in the LangGraph JS SQLite layout, the tables created by the real SqliteSaver, rows in its `json`
// serde with LangChain lc:1 messages (human → AI with a tool call → tool result → AI answer). Shared by benches that
// read it (bench/search.mjs); kept out of bench/run.mjs's list by living in bench/lib/.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(join(import.meta.dirname, "..", "..", "package.json"));
export const PER = 20;

let idCounter = 0;
const T0 = 0x1f1e7000000000; // uuid6 timestamp-ish prefix; ids sort in creation order
function uuid6(step) {
  const h = (T0 + idCounter++).toString(16).padStart(15, "0");
  const cs = step < 0 ? "ffff" : (((((step >>> 8) | 0x80) & 0xff) << 8) | (step & 0xff)).toString(16).padStart(4, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-6${h.slice(12, 15)}-${cs}-${(idCounter * 7919).toString(16).padStart(12, "0").slice(-12)}`;
}
const lc = (cls, kwargs) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs });
const META = { versions: { "@langchain/core": "1.4.0" } };
export function message(t, i) {
  const turn = Math.floor(i / 4);
  const id = `msg-${t}-${i}`;
  switch (i % 4) {
    case 0:
      return lc("HumanMessage", {
        content: `Thread ${t} turn ${turn}: what is the weather in city number ${turn + (t % 97)}, and should I bring an umbrella?`,
        additional_kwargs: {},
        response_metadata: {},
        id,
      });
    case 1:
      return lc("AIMessage", {
        content: "",
        tool_calls: [
          {
            id: `call_${t}_${turn}`,
            name: "get_weather",
            args: { city: `City ${turn + (t % 97)}`, unit: "celsius" },
            type: "tool_call",
          },
        ],
        invalid_tool_calls: [],
        usage_metadata: { input_tokens: 120 + i * 30, output_tokens: 24, total_tokens: 144 + i * 30 },
        response_metadata: { model_name: "gpt-4o-mini", finish_reason: "tool_calls" },
        additional_kwargs: {},
        id,
      });
    case 2:
      return lc("ToolMessage", {
        content: `{"temp": ${(t * 7 + i) % 35}, "rain": ${i % 3 === 0}, "wind_kmh": ${(t + i) % 40}}`,
        tool_call_id: `call_${t}_${turn}`,
        name: "get_weather",
        status: "success",
        metadata: META,
        additional_kwargs: {},
        response_metadata: {},
        id,
      });
    default:
      return lc("AIMessage", {
        content: `It is ${(t * 7 + i) % 35} °C in City ${turn + (t % 97)}${i % 3 === 0 ? " with rain: take an umbrella." : ", dry: no umbrella needed."} Anything else?`,
        tool_calls: [],
        invalid_tool_calls: [],
        usage_metadata: { input_tokens: 200 + i * 30, output_tokens: 31, total_tokens: 231 + i * 30 },
        response_metadata: { model_name: "gpt-4o-mini", finish_reason: "stop" },
        additional_kwargs: {},
        id,
      });
  }
}

/**
 * The 20 checkpoints of a thread: step -1 input, then one message per step (agent/tools alternating). `deltaEvery`:
 * the same thread with `messages` a DeltaChannel (LangGraph ≥ 1.2, JS layout): no list in the checkpoints except a
 * `delta_snapshot` every `deltaEvery` updates, `counters_since_delta_snapshot` in the metadata; the writes as before.
 */
export function* threadRows(t, deltaEvery = 0) {
  let parent = null;
  const msgs = [];
  for (let k = 0; k < PER; k++) {
    const step = k - 1;
    const id = uuid6(step);
    const ts = new Date(Date.UTC(2026, 10, 1) + t * 60_000 + k * 1000).toISOString();
    if (k > 0) msgs.push(message(t, k - 1));
    const v = k + 1;
    const channel_values =
      k === 0
        ? { __start__: { messages: [message(t, 0)] } }
        : { messages: [...msgs], [`branch:to:${k % 2 ? "tools" : "agent"}`]: null };
    const channel_versions =
      k === 0 ? { __start__: 1 } : { __start__: 2, messages: v, [`branch:to:${k % 2 ? "tools" : "agent"}`]: v };
    const versions_seen = {
      __input__: {},
      __start__: { __start__: 1 },
      ...(k > 1 ? { agent: { "branch:to:agent": v - 1 }, tools: { "branch:to:tools": v - 2 } } : {}),
    };
    const metadata = { source: k === 0 ? "input" : "loop", step, parents: {} };
    if (deltaEvery > 0 && k > 0) {
      // k updates of the messages channel so far: a snapshot when they reach a multiple of deltaEvery
      if (k % deltaEvery === 0)
        channel_values.messages = { lc: 2, type: "delta_snapshot", value: channel_values.messages };
      else {
        delete channel_values.messages;
        metadata.counters_since_delta_snapshot = { messages: [k % deltaEvery, k % deltaEvery] };
      }
      metadata.delta_writes_versioned = true;
    } else if (deltaEvery > 0) metadata.counters_since_delta_snapshot = { messages: [0, 1] };
    const checkpoint = { v: 4, id, ts, channel_values, channel_versions, versions_seen };
    const next = k + 1 < PER ? message(t, k) : null;
    const writes = next
      ? [
          { task: `task-${t}-${k}`, idx: 0, channel: "messages", value: [next] },
          { task: `task-${t}-${k}`, idx: 1, channel: `branch:to:${k % 2 ? "agent" : "tools"}`, value: null },
        ]
      : [];
    yield { thread: `thread-${String(t).padStart(6, "0")}`, id, parent, checkpoint, metadata, writes };
    parent = id;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// generation

export async function makeSqlite(threads, file, deltaEvery = 0) {
  if (existsSync(file)) return;
  const { SqliteSaver } = require("@langchain/langgraph-checkpoint-sqlite");
  const saver = SqliteSaver.fromConnString(file + ".tmp");
  await saver.getTuple({ configurable: { thread_id: "none" } }); // the library creates its tables
  const db = saver.db;
  const insC = db.prepare(
    "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, 'json', ?, ?)",
  );
  const insW = db.prepare(
    "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, '', ?, ?, ?, ?, 'json', ?)",
  );
  const tx = db.transaction((from, to) => {
    for (let t = from; t < to; t++) {
      for (const r of threadRows(t, deltaEvery)) {
        insC.run(
          r.thread,
          r.id,
          r.parent,
          Buffer.from(JSON.stringify(r.checkpoint)),
          Buffer.from(JSON.stringify(r.metadata)),
        );
        for (const w of r.writes)
          insW.run(r.thread, r.id, w.task, w.idx, w.channel, Buffer.from(JSON.stringify(w.value)));
      }
    }
  });
  for (let t = 0; t < threads; t += 500) tx(t, Math.min(threads, t + 500));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  spawnSync("mv", [file + ".tmp", file]);
  spawnSync("rm", ["-f", file + ".tmp-wal", file + ".tmp-shm"]);
}

/** The same threads in the LangGraph JS PostgresSaver layout (tables from its setup(), values split into
 * checkpoint_blobs as the JS saver writes them), in `schema` of `base`; kept between runs (a `bench_done` table marks it). */
export async function makePg(threads, schema, deltaEvery = 0, base = "postgres://postgres@127.0.0.1:5432/test") {
  const pg = require("pg");
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  const done = await c.query(
    "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'bench_done'",
    [schema],
  );
  if (done.rowCount) return c.end();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const { PostgresSaver } = require("@langchain/langgraph-checkpoint-postgres");
  const saver = PostgresSaver.fromConnString(base, { schema });
  await saver.setup(); // the library's migrations 0-4
  await saver.end();
  const S = `"${schema}"`;
  const flush = async (table, cols, rows) => {
    if (!rows.length) return;
    const vals = [];
    const ph = rows.map((r, i) => `(${r.map((_, j) => `$${i * r.length + j + 1}`).join(", ")})`);
    for (const r of rows) vals.push(...r);
    await c.query(`INSERT INTO ${S}.${table} (${cols}) VALUES ${ph.join(", ")}`, vals);
  };
  for (let t = 0; t < threads; t += 50) {
    const cps = [];
    const blobs = [];
    const ws = [];
    for (let u = t; u < Math.min(threads, t + 50); u++) {
      for (const r of threadRows(u, deltaEvery)) {
        const { channel_values, ...rest } = r.checkpoint; // JS PostgresSaver: every value to a blob row
        cps.push([r.thread, "", r.id, r.parent, JSON.stringify(rest), JSON.stringify(r.metadata)]);
        for (const [ch, v] of Object.entries(r.checkpoint.channel_versions)) {
          if (ch === "__start__" && v === 2) continue; // written by the step -1 → 0 transition below
          blobs.push([
            r.thread,
            "",
            ch,
            String(v),
            ch in channel_values ? "json" : "empty",
            ch in channel_values ? Buffer.from(JSON.stringify(channel_values[ch])) : null,
          ]);
        }
        if (r.checkpoint.channel_versions.__start__ === 2 && r.metadata.step === 0)
          blobs.push([r.thread, "", "__start__", "2", "empty", null]);
        for (const w of r.writes)
          ws.push([r.thread, "", r.id, w.task, w.idx, w.channel, "json", Buffer.from(JSON.stringify(w.value))]);
      }
    }
    for (let i = 0; i < cps.length; i += 500)
      await flush(
        "checkpoints",
        "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata",
        cps.slice(i, i + 500),
      );
    for (let i = 0; i < blobs.length; i += 1000)
      await flush(
        "checkpoint_blobs",
        "thread_id, checkpoint_ns, channel, version, type, blob",
        blobs.slice(i, i + 1000),
      );
    for (let i = 0; i < ws.length; i += 1000)
      await flush(
        "checkpoint_writes",
        "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob",
        ws.slice(i, i + 1000),
      );
  }
  await c.query(
    `ANALYZE ${S}.checkpoints; ANALYZE ${S}.checkpoint_blobs; ANALYZE ${S}.checkpoint_writes; CREATE TABLE ${S}.bench_done (x int)`,
  );
  await c.end();
}
