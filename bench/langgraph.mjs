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
import { mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";
import { makePg as makePgAt, makeSqlite, PER } from "./lib/langgraph-store.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const THREADS = Number(process.env.BENCH_LG_THREADS ?? 10_000);
const DIR = process.env.BENCH_LG_DIR ?? join(tmpdir(), "ckpt-bench-langgraph");
const PG_BASE = process.env.BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const WITH_PG = process.env.BENCH_LG_PG !== "0";
mkdirSync(DIR, { recursive: true });
const makePg = (threads, schema, deltaEvery = 0) => makePgAt(threads, schema, deltaEvery, PG_BASE);

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
