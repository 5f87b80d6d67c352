// `ckpt search` on the 200k-checkpoint LangGraph store (BENCH_LG_THREADS, default 10,000 threads × 20 checkpoints,
// bench/lib/langgraph-store.mjs: the store bench/langgraph.mjs writes, cached under $BENCH_LG_DIR, default
// <tmp>/ckpt-bench-langgraph) against the floor of reading and decoding what it searches: the newest root checkpoint of
// every thread with its pending writes, selected with the same client library (better-sqlite3) in one query each,
// every payload JSON.parse'd, and every message's text looked at for the pattern — no canonical model, no output.
// `ckpt search` is timed as a whole process, so the floor is too (bench/lib/search-floor.cjs: `node` starts, loads
// better-sqlite3, reads, decodes, looks; the same process-start costs on both sides); the same floor measured inside
// this process (no start, better-sqlite3 already loaded) is printed beside it, the figure earlier runs reported.
// The ratio is floor time / ckpt time (1.0: ckpt costs nothing over the floor; target ≥ 0.8); floor and ckpt take
// turns. Two patterns: a rare one (one thread's user turns) and a common one (a word of every user turn and every
// answer, 90,000 hits printed as JSON Lines to /dev/null: output the reading floor does not write). The common one is
// also measured against a second floor that does print them (search-floor.cjs --print: the same 27 MB, checked byte
// for byte against ckpt's before the runs), the least any program that reads, decodes and prints those matches does.
// Run after `npm run build`: node bench/search.mjs   (BENCH_RUNS=3 runs each, median)
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";
import { makeSqlite, PER } from "./lib/langgraph-store.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const THREADS = Number(process.env.BENCH_LG_THREADS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DIR = process.env.BENCH_LG_DIR ?? join(tmpdir(), "ckpt-bench-langgraph");
mkdirSync(DIR, { recursive: true });
const file = join(DIR, `js-${THREADS}.sqlite`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const g0 = performance.now();
await makeSqlite(THREADS, file);
console.log(`store ready (${((performance.now() - g0) / 1000).toFixed(1)} s): ${THREADS}×${PER} checkpoints, ${file}`);

/** The floor in this process: bench/lib/search-floor.cjs's reads and parses, without a process start. */
function floor(pattern) {
  const { searchFloor } = require(join(root, "bench", "lib", "search-floor.cjs"));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { threads, hits } = searchFloor(file, pattern);
  const c = process.cpuUsage(c0);
  return { s: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, threads, hits };
}

const hook = join(DIR, "search-rss-hook.cjs");
writeFileSync(
  hook,
  "process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeSync(2, `\\n@@rss ${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}\\n`); });",
);

/** A whole `node` process (its output to /dev/null): wall seconds, CPU seconds and peak RSS (KiB). */
function proc(script, args) {
  const out = openSync("/dev/null", "w");
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--require", hook, script, ...args], {
    stdio: ["ignore", out, "pipe"],
    encoding: "utf8",
  });
  closeSync(out);
  const s = (performance.now() - t0) / 1000;
  const m = /@@rss (\d+) (\d+)/.exec(r.stderr);
  return { s, cpu: Number(m?.[2] ?? NaN) / 1e6, status: r.status, rss: Number(m?.[1] ?? NaN), err: r.stderr };
}
const ckpt = (args) => proc(join(root, "bin/ckpt.js"), args);
const floorProcess = (pattern, print) =>
  proc(join(root, "bench/lib/search-floor.cjs"), [pattern, file, ...(print ? ["--print", `sqlite:${file}`] : [])]);

const cases = [
  { name: "rare", pattern: "Thread 4242 turn", args: [] },
  { name: "common", pattern: "umbrella", args: ["--json"], print: true },
];

/** The printing floor writes what ckpt writes, byte for byte (else it would not be the floor of that output). */
function samePrint(pattern, args) {
  const out = (script, a) => {
    const r = spawnSync(process.execPath, [script, ...a], { encoding: "buffer", maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`${script} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const a = out(join(root, "bench/lib/search-floor.cjs"), [pattern, file, "--print", `sqlite:${file}`]);
  const b = out(join(root, "bin/ckpt.js"), ["search", pattern, `sqlite:${file}`, ...args]);
  if (!a.equals(b))
    throw new Error(`the printing floor's output (${a.length} bytes) is not ckpt's (${b.length} bytes)`);
  return a.length;
}
const rows = [];
const load0 = loadavg();
for (const c of cases) {
  const inProcess = [];
  const floors = [];
  const printing = [];
  const runs = [];
  let f;
  const bytes = c.print ? samePrint(c.pattern, c.args) : 0;
  for (let i = 0; i < RUNS; i++) {
    f = floor(c.pattern);
    inProcess.push(f.s);
    const fp = floorProcess(c.pattern);
    if (fp.status !== 0) throw new Error(`the floor exited ${fp.status}: ${fp.err}`);
    floors.push(fp);
    if (c.print) {
      const pp = floorProcess(c.pattern, true);
      if (pp.status !== 0) throw new Error(`the printing floor exited ${pp.status}: ${pp.err}`);
      printing.push(pp);
    }
    const r = ckpt(["search", c.pattern, `sqlite:${file}`, ...c.args]);
    if (r.status !== 0) throw new Error(`ckpt search exited ${r.status}: ${r.err}`);
    runs.push(r);
  }
  const fl = median(floors.map((r) => r.s));
  const ck = median(runs.map((r) => r.s));
  const flCpu = median(floors.map((r) => r.cpu));
  const ckCpu = median(runs.map((r) => r.cpu));
  rows.push({
    case: c.name,
    pattern: c.pattern,
    threads: f.threads,
    inProcessFloorS: +median(inProcess).toFixed(3),
    floorS: +fl.toFixed(3),
    ckptS: +ck.toFixed(3),
    ratio: +(fl / ck).toFixed(2),
    floorCpuS: +flCpu.toFixed(3),
    ckptCpuS: +ckCpu.toFixed(3),
    cpuRatio: +(flCpu / ckCpu).toFixed(2),
    rssMiB: +(Math.max(...runs.map((r) => r.rss)) / 1024).toFixed(0),
    ...(c.print
      ? {
          outputBytes: bytes,
          printFloorS: +median(printing.map((r) => r.s)).toFixed(3),
          printRatio: +(median(printing.map((r) => r.s)) / ck).toFixed(2),
          printFloorCpuS: +median(printing.map((r) => r.cpu)).toFixed(3),
          printCpuRatio: +(median(printing.map((r) => r.cpu)) / ckCpu).toFixed(2),
        }
      : {}),
  });
}
const load = `load average ${load0.map((x) => x.toFixed(2)).join(" ")} → ${loadavg()
  .map((x) => x.toFixed(2))
  .join(" ")}`;
console.log(
  "case    pattern            threads  in-process floor s  floor s   ckpt s   ratio   floor cpu s   ckpt cpu s   cpu ratio   peak RSS",
);
for (const r of rows)
  console.log(
    `${r.case.padEnd(7)} ${JSON.stringify(r.pattern).padEnd(18)} ${String(r.threads).padStart(7)} ${r.inProcessFloorS.toFixed(3).padStart(19)} ${r.floorS.toFixed(3).padStart(8)} ${r.ckptS.toFixed(3).padStart(8)} ${r.ratio.toFixed(2).padStart(7)} ${r.floorCpuS.toFixed(3).padStart(13)} ${r.ckptCpuS.toFixed(3).padStart(12)} ${r.cpuRatio.toFixed(2).padStart(11)} ${String(r.rssMiB).padStart(7)} MiB`,
  );
for (const r of rows.filter((r) => r.printFloorS !== undefined))
  console.log(
    `${r.case}: against the floor that also prints the same ${(r.outputBytes / 1e6).toFixed(1)} MB: floor ${r.printFloorS.toFixed(3)} s (cpu ${r.printFloorCpuS.toFixed(3)} s), ratio ${r.printRatio.toFixed(2)} (cpu ${r.printCpuRatio.toFixed(2)})`,
  );
console.log(load);
console.log(JSON.stringify({ bench: "search", threads: THREADS, checkpoints: THREADS * PER, load, results: rows }));
