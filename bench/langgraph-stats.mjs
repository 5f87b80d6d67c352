// `ckpt stats` on the LangGraph bench store (bench/langgraph.mjs writes it: 10,000 threads × 20 checkpoints = 200,000
// checkpoints in the JS layout, ~1 GB SQLite; PostgreSQL schema lgbench_10000 when present), whole processes, against
// raw baselines in the same run with the same client library: (a) read every checkpoint and write row and add up the
// payload lengths, (b) the same plus JSON.parse of every payload (what any decoding reader pays at least).
// Time and peak RSS (GNU time), median of BENCH_RUNS (3). Run after `npm run build` and `node bench/langgraph.mjs`.
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIR = process.env.BENCH_LG_DIR ?? join(tmpdir(), "ckpt-bench-langgraph");
const THREADS = Number(process.env.BENCH_LG_THREADS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PG = process.env.BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const store = join(DIR, `js-${THREADS}.sqlite`);
if (!existsSync(store)) {
  console.error(`no bench store at ${store}: run node bench/langgraph.mjs first`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), "ckpt-stats-bench-"));
const raw = join(work, "raw.mjs");
writeFileSync(
  raw,
  `import { createRequire } from "node:module";
const require = createRequire(${JSON.stringify(join(root, "package.json"))});
const Database = require("better-sqlite3");
const [file, parse] = process.argv.slice(2);
const db = new Database(file, { readonly: true });
let bytes = 0, rows = 0;
for (const r of db.prepare("SELECT checkpoint, metadata FROM checkpoints").iterate()) {
  bytes += r.checkpoint.length + r.metadata.length; rows++;
  if (parse === "1") JSON.parse(r.checkpoint.toString("utf8"));
}
for (const r of db.prepare("SELECT value FROM writes").iterate()) {
  bytes += r.value ? r.value.length : 0; rows++;
  if (parse === "1" && r.value) JSON.parse(r.value.toString("utf8"));
}
console.log(rows, bytes);`,
);

function proc(args) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "__RSS__ %M", process.execPath, ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { ms, rss: Number(/__RSS__ (\d+)/.exec(r.stderr)[1]) / 1024, out: r.stdout };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function measure(label, args) {
  const runs = Array.from({ length: RUNS }, () => proc(args));
  return {
    label,
    s: median(runs.map((r) => r.ms)) / 1000,
    rssMb: Math.max(...runs.map((r) => r.rss)),
    out: runs[0].out,
  };
}

const results = [
  measure("raw: read rows + sum lengths", [raw, store, "0"]),
  measure("raw: read rows + JSON.parse", [raw, store, "1"]),
  measure("ckpt stats (SQLite)", [join(root, "bin", "ckpt.js"), "stats", store, "--json"]),
];
const pgSchema = `lgbench_${THREADS}`;
const check = spawnSync("psql", ["-X", "-tAq", PG, "-c", `SELECT to_regclass('${pgSchema}.checkpoints') IS NOT NULL`], {
  encoding: "utf8",
});
if (check.stdout.trim() === "t")
  results.push(
    measure("ckpt stats (PostgreSQL)", [join(root, "bin", "ckpt.js"), "stats", `${PG}?schema=${pgSchema}`, "--json"]),
  );

const stats = JSON.parse(results[2].out);
console.log(
  `store: ${store} — ${stats.totals.checkpoints.toLocaleString("en-US")} checkpoints, ${stats.totals.writes.toLocaleString("en-US")} writes, ${(stats.totals.payloadBytes / 1e6).toFixed(0)} MB payload`,
);
console.log(`median of ${RUNS} runs, whole processes; peak RSS = max over runs`);
for (const r of results)
  console.log(
    `${r.label.padEnd(32)} ${r.s.toFixed(2).padStart(7)} s  ${r.rssMb.toFixed(0).padStart(5)} MB  ×${(r.s / results[1].s).toFixed(2)} of raw+parse`,
  );
console.log(JSON.stringify(Object.fromEntries(results.map((r) => [r.label, { s: r.s, rssMb: r.rssMb }]))));
