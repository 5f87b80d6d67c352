// LangGraph stores: `ckpt ls` / `ckpt log` / the streaming reader on big stores, against raw baselines measured in the
// same run. Run after `npm run build`:   node bench/langgraph.mjs
// Stores (cached under $BENCH_LG_DIR, default <tmp>/ckpt-bench-langgraph; delete it to regenerate):
//   BENCH_LG_THREADS (10,000) threads × 20 checkpoints, plus a 1/10 store for the memory check, written in the
//   LangGraph JS layout: the tables are created by the real savers (@langchain/langgraph-checkpoint-sqlite's
//   SqliteSaver, -postgres's PostgresSaver.setup()), rows in their `json` serde with LangChain lc:1 messages
//   (human → AI with a tool call → tool result → AI answer, usage and response metadata), PG values in
//   checkpoint_blobs (+ `empty` rows) exactly as the JS PostgresSaver splits them. SQLite and PostgreSQL
//   (schema lgbench_<n>, kept between runs; BENCH_LG_PG=0 skips PostgreSQL). Each store has a DeltaChannel twin (the
//   same threads, `messages` a DeltaChannel with a snapshot every BENCH_LG_DELTA_EVERY updates, default 100 as in
//   LangGraph JS: none in a 20-checkpoint thread, so every read rebuilds the list from the writes; 0 skips them).
// Measures:
//   1. `node bin/ckpt.js ls <store>` whole process (target ≤ 2 s on SQLite at 10,000 threads).
//   2. decode throughput: the reader's scan (every checkpoint with its writes and blobs, decoded to tuples) vs the
//      raw baseline (SELECT every row with the same client library + JSON.parse of every payload) → ratio.
//   3. `ckpt validate <store>` whole store (whole process) against the raw decode of the same run (target ≥ 0.5).
//   4. peak RSS (whole process, /proc maxRSS via resourceUsage) of `ckpt ls`, `ckpt validate` and of a full scan at
//      20,000 vs 200,000 checkpoints (target ≤ 1.5×).
//   5. DeltaChannel stores: `ls` against the floor of what a rebuild of the heads must read (every root checkpoint's
//      chain facts and every messages write, parsed), and `validate` against the raw decode of the list-stored twin.
// `ckpt ls` runs 3 times per store (median wall time reported, with its CPU time: user + system of the process).
// BENCH_LG_SCAN=0 skips the in-process reader scan (decode throughput only; validate covers the same reads).
// Prints a table and, last, one line of JSON.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const THREADS = Number(process.env.BENCH_LG_THREADS ?? 10_000);
const PER = 20;
const DIR = process.env.BENCH_LG_DIR ?? join(tmpdir(), "ckpt-bench-langgraph");
const PG_BASE = process.env.BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const WITH_PG = process.env.BENCH_LG_PG !== "0";
mkdirSync(DIR, { recursive: true });

// ---------------------------------------------------------------------------------------------------------------
// realistic content in the JS serde's form

let idCounter = 0;
const T0 = 0x1f1e7000000000; // uuid6 timestamp-ish prefix; ids sort in creation order
function uuid6(step) {
  const h = (T0 + idCounter++).toString(16).padStart(15, "0");
  const cs = step < 0 ? "ffff" : (((((step >>> 8) | 0x80) & 0xff) << 8) | (step & 0xff)).toString(16).padStart(4, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-6${h.slice(12, 15)}-${cs}-${(idCounter * 7919).toString(16).padStart(12, "0").slice(-12)}`;
}
const lc = (cls, kwargs) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs });
const META = { versions: { "@langchain/core": "1.4.0" } };
function message(t, i) {
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
function* threadRows(t, deltaEvery = 0) {
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

async function makeSqlite(threads, file, deltaEvery = 0) {
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

async function makePg(threads, schema, deltaEvery = 0) {
  const pg = require("pg");
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  const done = await c.query(
    "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'bench_done'",
    [schema],
  );
  if (done.rowCount) return c.end();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const { PostgresSaver } = require("@langchain/langgraph-checkpoint-postgres");
  const saver = PostgresSaver.fromConnString(PG_BASE, { schema });
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

// ---------------------------------------------------------------------------------------------------------------
// measuring

/** A whole ckpt process: wall time and peak RSS (KiB), via a preloaded exit hook. */
function ckpt(args) {
  const hook = join(DIR, "rss-hook.cjs");
  writeFileSync(
    hook,
    "process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeSync(2, `\\n@@maxrss ${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}\\n`); });",
  );
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--require", hook, join(root, "bin/ckpt.js"), ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  const m = /@@maxrss (\d+) (\d+)/.exec(r.stderr);
  return {
    ms,
    rss: Number(m?.[1] ?? NaN),
    cpuMs: Number(m?.[2] ?? NaN) / 1000,
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr.replace(/\n@@maxrss \d+ \d+\n/, ""),
  };
}

/** The reader's full scan in a child process (what validate/migrate stream): seconds, checkpoints, peak RSS. */
function scanChild(uri) {
  const code = `
    const { parseSaverUri } = await import(${JSON.stringify(join(root, "dist/savers/uri.js"))});
    const { openStore } = await import(${JSON.stringify(join(root, "dist/savers/index.js"))});
    const r = (await openStore(parseSaverUri(process.argv[1]), { readOnly: true })).store;
    const t0 = performance.now(); let n = 0, w = 0, bad = 0;
    for await (const b of r.scan({ batchSize: 500 })) for (const t of b) { n++; w += t.pendingWrites.length; bad += t.issues.length; }
    const s = (performance.now() - t0) / 1000; await r.close();
    console.log(JSON.stringify({ s, n, w, bad, rss: process.resourceUsage().maxRSS }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code, uri], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop());
}

/** Raw baseline: every row selected with the same client, every payload JSON.parse'd (no tuple building). */
function rawSqlite(file) {
  const Database = require("better-sqlite3");
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const t0 = performance.now();
  let n = 0;
  const td = new TextDecoder();
  for (const r of db
    .prepare("SELECT checkpoint, metadata FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id")
    .iterate()) {
    JSON.parse(td.decode(r.checkpoint));
    JSON.parse(td.decode(r.metadata));
    n++;
  }
  for (const r of db.prepare("SELECT value FROM writes").iterate()) JSON.parse(td.decode(r.value));
  const s = (performance.now() - t0) / 1000;
  db.close();
  return { s, n };
}

/**
 * The floor under `ls` of a DeltaChannel store: what any rebuild of the heads' message counts has to read — every
 * root checkpoint's (id, parent, whether it stores `messages`) and every `messages` write since the snapshot (in these
 * stores: all of them, as a 20-checkpoint thread has no snapshot), each write JSON.parse'd. Nothing else: no replay,
 * no output, no process start.
 */
function deltaFloorSqlite(file) {
  const Database = require("better-sqlite3");
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const t0 = performance.now();
  for (const _ of db
    .prepare(
      "SELECT thread_id, checkpoint_id, parent_checkpoint_id, json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS t FROM checkpoints WHERE checkpoint_ns = ''",
    )
    .iterate());
  const td = new TextDecoder();
  for (const r of db.prepare("SELECT value FROM writes WHERE channel = 'messages' AND checkpoint_ns = ''").iterate())
    JSON.parse(td.decode(r.value));
  const s = (performance.now() - t0) / 1000;
  db.close();
  return s;
}

async function deltaFloorPg(schema) {
  const pg = require("pg");
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  const S = `"${schema}"`;
  const td = new TextDecoder();
  const t0 = performance.now();
  await c.query(
    `SELECT thread_id, checkpoint_id, parent_checkpoint_id, (checkpoint -> 'channel_values') ? 'messages' AS inline FROM ${S}.checkpoints WHERE checkpoint_ns = ''`,
  );
  // keyset pages of writes, as the reader pages
  let last;
  for (;;) {
    const { rows } = await c.query(
      `SELECT thread_id, checkpoint_id, task_id, idx, blob FROM ${S}.checkpoint_writes WHERE channel = 'messages' AND checkpoint_ns = ''${last ? " AND (thread_id, checkpoint_id, task_id, idx) > ($1, $2, $3, $4)" : ""} ORDER BY thread_id, checkpoint_id, task_id, idx LIMIT 5000`,
      last ? [last.thread_id, last.checkpoint_id, last.task_id, last.idx] : [],
    );
    if (!rows.length) break;
    for (const r of rows) JSON.parse(td.decode(r.blob));
    last = rows[rows.length - 1];
  }
  const s = (performance.now() - t0) / 1000;
  await c.end();
  return s;
}

async function rawPg(schema) {
  const pg = require("pg");
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  const S = `"${schema}"`;
  const t0 = performance.now();
  let n = 0;
  const td = new TextDecoder();
  // keyset pages like the reader (no cursor dependency): checkpoints (JSONB parsed by pg), blobs, writes
  for (const [table, key, payload] of [
    ["checkpoints", "thread_id, checkpoint_ns, checkpoint_id", "checkpoint, metadata"],
    ["checkpoint_blobs", "thread_id, checkpoint_ns, channel, version", "blob"],
    ["checkpoint_writes", "thread_id, checkpoint_ns, checkpoint_id, task_id, idx", "blob"],
  ]) {
    const cols = key.split(", ");
    let last;
    for (;;) {
      const where = last ? `WHERE (${key}) > (${cols.map((_, i) => `$${i + 1}`).join(", ")})` : "";
      const rows = (
        await c.query(
          `SELECT ${key}, ${payload} FROM ${S}.${table} ${where} ORDER BY ${key} LIMIT 2000`,
          last ? cols.map((k) => last[k]) : [],
        )
      ).rows;
      if (!rows.length) break;
      for (const r of rows) {
        if (r.blob) JSON.parse(td.decode(r.blob));
        if (table === "checkpoints") n++;
      }
      last = rows[rows.length - 1];
    }
  }
  const s = (performance.now() - t0) / 1000;
  await c.end();
  return { s, n };
}

// ---------------------------------------------------------------------------------------------------------------

const results = {};
const small = Math.max(1, Math.floor(THREADS / 10));
const sqliteBig = join(DIR, `js-${THREADS}.sqlite`);
const sqliteSmall = join(DIR, `js-${small}.sqlite`);
let g0 = performance.now();
await makeSqlite(THREADS, sqliteBig);
await makeSqlite(small, sqliteSmall);
console.log(
  `SQLite stores ready (${((performance.now() - g0) / 1000).toFixed(1)} s): ${THREADS}×${PER} and ${small}×${PER} checkpoints`,
);
const stores = [["sqlite", `sqlite:${sqliteBig}`, `sqlite:${sqliteSmall}`, () => rawSqlite(sqliteBig)]];
// the same threads with a DeltaChannel: BENCH_LG_DELTA_EVERY updates between snapshots (LangGraph JS's default is
// 100, Python's 1000: a 20-checkpoint thread then has no snapshot and every read rebuilds it from its writes)
const DELTA_EVERY = Number(process.env.BENCH_LG_DELTA_EVERY ?? 100);
if (DELTA_EVERY > 0) {
  const deltaBig = join(DIR, `js-delta${DELTA_EVERY}-${THREADS}.sqlite`);
  const deltaSmall = join(DIR, `js-delta${DELTA_EVERY}-${small}.sqlite`);
  await makeSqlite(THREADS, deltaBig, DELTA_EVERY);
  await makeSqlite(small, deltaSmall, DELTA_EVERY);
  stores.push([
    "sqlite-delta",
    `sqlite:${deltaBig}`,
    `sqlite:${deltaSmall}`,
    () => rawSqlite(deltaBig),
    () => deltaFloorSqlite(deltaBig),
    "sqlite",
  ]);
}
if (WITH_PG) {
  g0 = performance.now();
  await makePg(THREADS, `lgbench_${THREADS}`);
  await makePg(small, `lgbench_${small}`);
  console.log(`PostgreSQL schemas ready (${((performance.now() - g0) / 1000).toFixed(1)} s)`);
  stores.push([
    "postgres",
    `${PG_BASE}?schema=lgbench_${THREADS}`,
    `${PG_BASE}?schema=lgbench_${small}`,
    () => rawPg(`lgbench_${THREADS}`),
  ]);
  if (DELTA_EVERY > 0) {
    await makePg(THREADS, `lgbench_delta${DELTA_EVERY}_${THREADS}`, DELTA_EVERY);
    await makePg(small, `lgbench_delta${DELTA_EVERY}_${small}`, DELTA_EVERY);
    stores.push([
      "postgres-delta",
      `${PG_BASE}?schema=lgbench_delta${DELTA_EVERY}_${THREADS}`,
      `${PG_BASE}?schema=lgbench_delta${DELTA_EVERY}_${small}`,
      () => rawPg(`lgbench_delta${DELTA_EVERY}_${THREADS}`),
      () => deltaFloorPg(`lgbench_delta${DELTA_EVERY}_${THREADS}`),
      "postgres",
    ]);
  }
}

const rows = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const WITH_SCAN = process.env.BENCH_LG_SCAN !== "0";
for (const [kind, big, smallUri, raw, floor, twin] of stores) {
  const lsRuns = [0, 1, 2].map(() => ckpt(["ls", big]));
  const ls = lsRuns.find((r) => r.ms === median(lsRuns.map((x) => x.ms)));
  if (ls.status !== 0) throw new Error(`ckpt ls failed: ${ls.stderr}`);
  const listed = Number(/(\d+) threads?\b/.exec(ls.stdout)?.[1]);
  const lsSmall = ckpt(["ls", smallUri]);
  const log = ckpt(["log", `${big}#thread-000042`]);
  const base = await raw();
  const scan = WITH_SCAN ? scanChild(big) : undefined;
  const scanSmall = WITH_SCAN ? scanChild(smallUri) : undefined;
  const val = ckpt(["validate", big]);
  const valSmall = ckpt(["validate", smallUri]);
  const validateOk = val.status === 0 || val.status === 1 ? val.ms / 1000 : null;
  const checked = Number(/(\d+) checkpoints/.exec(val.stdout)?.[1] ?? base.n);
  const r = {
    store: kind,
    threads: listed,
    checkpoints: checked,
    lsSeconds: +(ls.ms / 1000).toFixed(2),
    lsSecondsAll: lsRuns.map((x) => +(x.ms / 1000).toFixed(2)),
    lsCpuSeconds: +(ls.cpuMs / 1000).toFixed(2),
    logSeconds: +(log.ms / 1000).toFixed(2),
    rawDecodePerSec: Math.round(base.n / base.s),
    ...(scan
      ? { scanDecodePerSec: Math.round(scan.n / scan.s), scanVsRaw: +(scan.n / scan.s / (base.n / base.s)).toFixed(2) }
      : {}),
    validateSeconds: validateOk === null ? null : +validateOk.toFixed(2),
    validateVsRaw: validateOk === null ? null : +(checked / validateOk / (base.n / base.s)).toFixed(2),
    lsRssRatio: +(ls.rss / lsSmall.rss).toFixed(2),
    validateRssRatio: +(val.rss / valSmall.rss).toFixed(2),
    ...(scan
      ? {
          scanRssRatio: +(scan.rss / scanSmall.rss).toFixed(2),
          scanRssMiB: [+(scanSmall.rss / 1024).toFixed(0), +(scan.rss / 1024).toFixed(0)],
        }
      : {}),
    lsRssMiB: [+(lsSmall.rss / 1024).toFixed(0), +(ls.rss / 1024).toFixed(0)],
    validateRssMiB: [+(valSmall.rss / 1024).toFixed(0), +(val.rss / 1024).toFixed(0)],
    decodeIssues: scan?.bad ?? null,
  };
  if (floor) {
    // a DeltaChannel store: ls against the floor of what its rebuild reads; validate against the raw decode of its
    // twin (the same conversations stored as lists, measured above): the same messages reach the validator
    const f = await floor();
    r.deltaFloorSeconds = +f.toFixed(2);
    r.lsVsDeltaFloor = +(ls.ms / 1000 / f).toFixed(2);
    const t = results[twin];
    if (t && validateOk !== null) r.validateVsTwinRaw = +(checked / validateOk / t.rawDecodePerSec).toFixed(2);
  }
  if (validateOk === null)
    r.validateNote = `exit ${val.status}: ${(val.stderr.trim() || val.stdout.trim()).split("\n")[0].slice(0, 160)}`;
  results[kind] = r;
  rows.push(r);
}

console.log(
  "\nstore     threads  checkpoints  ls wall (s, median of 3)  ls CPU (s)  log (s)  raw decode/s  scan/raw  validate (s)  validate/raw  RSS ls 20k→200k  RSS validate 20k→200k  RSS scan 20k→200k",
);
for (const r of rows) {
  console.log(
    [
      r.store.padEnd(8),
      String(r.threads).padStart(8),
      String(r.checkpoints).padStart(12),
      `${r.lsSeconds.toFixed(2)} [${r.lsSecondsAll.join(", ")}]`.padStart(25),
      r.lsCpuSeconds.toFixed(2).padStart(11),
      r.logSeconds.toFixed(2).padStart(8),
      String(r.rawDecodePerSec).padStart(13),
      String(r.scanVsRaw ?? "-").padStart(9),
      String(r.validateSeconds ?? "n/a").padStart(13),
      String(r.validateVsRaw ?? "n/a").padStart(13),
      `${r.lsRssMiB[0]}→${r.lsRssMiB[1]} MiB (${r.lsRssRatio}×)`.padStart(17),
      `${r.validateRssMiB[0]}→${r.validateRssMiB[1]} MiB (${r.validateRssRatio}×)`.padStart(22),
      (r.scanRssMiB ? `${r.scanRssMiB[0]}→${r.scanRssMiB[1]} MiB (${r.scanRssRatio}×)` : "-").padStart(19),
    ].join(" "),
  );
  if (r.validateNote) console.log(`  validate n/a on ${r.store}: ${r.validateNote}`);
  if (r.deltaFloorSeconds !== undefined)
    console.log(
      `  ${r.store}: ls ${r.lsSeconds} s = ${r.lsVsDeltaFloor}× the floor of its rebuild reads (${r.deltaFloorSeconds} s: chain facts + every messages write parsed); validate vs the raw decode of its list-stored twin: ${r.validateVsTwinRaw ?? "n/a"}`,
    );
}
const sq = results.sqlite;
const all = Object.values(results);
console.log(
  `\ntargets: ls ≤ 2 s on SQLite: ${sq.lsSeconds <= 2 ? "met" : "NOT met"} (${sq.lsSeconds} s wall, ${sq.lsCpuSeconds} s CPU); validate ≥ 0.5 of raw: ${all.every((r) => r.validateVsRaw >= 0.5) ? "met" : "NOT met"} (${all.map((r) => `${r.store} ${r.validateVsRaw}`).join(", ")}); peak RSS 200k ≤ 1.5× 20k: ls ${all.every((r) => r.lsRssRatio <= 1.5) ? "met" : "NOT met"}, validate ${all.every((r) => r.validateRssRatio <= 1.5) ? "met" : "NOT met"}${WITH_SCAN ? `, scan ${all.every((r) => r.scanRssRatio <= 1.5) ? "met" : "NOT met"}` : ""}`,
);
console.log(
  JSON.stringify({ bench: "langgraph", ...Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v])) }),
);
