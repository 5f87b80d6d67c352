// bench/floor: the whole-process rows of issue #41, each against a floor measured in the same run. A fresh
// `node bin/ckpt.js …` process and its floor take turns (floor, ckpt, floor, ckpt, …; the first pair warms the page
// cache and is not counted); each figure is the median over the pairs, and each ratio the median of the per-pair
// ratios, so a load change on a shared machine between pairs cancels out. Run after `npm run build`:
//   npm run bench -- floor          (BENCH_RUNS pairs per row, default 11; BENCH_TURNS turns per file, default 10000;
//                                    BENCH_ROWS=diff,convert runs only the rows whose name starts with one of these)
// Rows:
//   - `ckpt validate` of a tiny deep-agent checkpoint (fixtures/deepagent/valid/user_42_session_1.json) vs `node -e 0`;
//   - `ckpt validate a.json`, a 5.4 MB deep-agent checkpoint of 10,000 user/assistant turns (20,000 messages), vs
//     `node` reading and JSON.parse-ing it;
//   - `ckpt diff a.json b.json` (b: an insert near the head, an edit in the middle, a move and 10 appends) vs reading
//     and parsing both;
//   - `ckpt convert a.json -t ckpt -o out.json` vs reading, parsing, JSON.stringify(…, null, 2) and writing it.
// Wall time, CPU time (user + sys) and peak RSS of each process come from GNU time (/usr/bin/time) when it is
// installed; else wall time only. On a loaded machine the CPU-time ratio is the steadier figure: the wall time also
// counts the time a process waited for a core. The load average is printed before and after.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "ckpt.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const TURNS = Number(process.env.BENCH_TURNS ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-floor-"));
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

// Two deep-agent (FileSaver) checkpoints of TURNS user/assistant turns; b has an insert near the head, an edit in
// the middle, a move and 10 appends.
const turns = [];
for (let i = 0; i < TURNS; i++) {
  turns.push({
    role: "user",
    content: `Question ${i}: please look at the section of the report about item ${i} and tell me what changed since last week, in two sentences, and keep the names of the people involved and the dates they gave.`,
  });
  turns.push({
    role: "assistant",
    content: `Answer ${i}: the section on item ${i} now lists three new risks and moves the deadline by one week; the owner asked for a review before Friday, with a copy of the notes sent to the whole team and to the reviewers.`,
  });
}
const a = {
  threadId: "bench-thread",
  step: TURNS,
  messages: turns,
  state: {
    todos: [{ id: "1", content: "Outline the project", status: "in_progress" }],
    files: {
      "/plan.md": {
        content: ["# Plan", "- outline"],
        created_at: "2026-11-22T08:13:51.514Z",
        modified_at: "2026-11-22T08:13:51.514Z",
      },
    },
  },
  createdAt: "2026-11-22T08:13:51.586Z",
  updatedAt: "2026-11-22T08:13:51.586Z",
};
const b = structuredClone(a);
b.messages.splice(3, 0, { role: "user", content: "an inserted question" });
b.messages[TURNS + 1].content += " (edited)";
const [moved] = b.messages.splice(Math.floor(TURNS / 2), 1);
b.messages.splice(Math.floor((TURNS * 3) / 2), 0, moved);
for (let i = 0; i < 10; i++) b.messages.push({ role: i % 2 ? "assistant" : "user", content: `appended ${i}` });
const A = join(dir, "a.json");
const B = join(dir, "b.json");
const OUT = join(dir, "out.json");
writeFileSync(A, JSON.stringify(a, null, 2));
writeFileSync(B, JSON.stringify(b, null, 2));
const small = join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json");
const mb = (readFileSync(A).length / 1e6).toFixed(1);

/** One process: wall ms, and with GNU time its CPU ms and peak RSS (MB). */
function once(args, okCodes) {
  const stats = join(dir, "time.txt");
  const t = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync(gnuTime, ["-o", stats, "-f", "%U %S %M", process.execPath, ...args], {
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        maxBuffer: 64 << 20,
      })
    : spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  let status = r.status;
  let cpu;
  let rss;
  if (gnuTime) {
    const text = readFileSync(stats, "utf8");
    const m = /(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+)\s*$/.exec(text);
    if (m) {
      cpu = (Number(m[1]) + Number(m[2])) * 1000;
      rss = Number(m[3]) / 1024;
    }
    const code = /Command exited with non-zero status (\d+)/.exec(text);
    status = code ? Number(code[1]) : status;
  }
  if (!okCodes.includes(status))
    throw new Error(`${args.join(" ")} exited ${status ?? r.signal}: ${String(r.stderr).slice(0, 500)}`);
  return { wall, cpu, rss };
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

function row(name, args, floorArgs, floorName, target, okCodes = [0]) {
  const xs = [];
  const fs = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const f = once(floorArgs, [0]);
    const x = once(args, okCodes);
    if (i > 0) {
      fs.push(f);
      xs.push(x);
    }
  }
  const med = (list, k) => (list[0][k] === undefined ? undefined : median(list.map((r) => r[k])));
  const ratio = (k) => (xs[0][k] === undefined ? undefined : median(xs.map((x, i) => x[k] / fs[i][k])));
  return {
    name,
    args,
    floorArgs,
    floor: floorName,
    target,
    wallMs: med(xs, "wall"),
    floorWallMs: med(fs, "wall"),
    wallRatio: ratio("wall"),
    cpuMs: med(xs, "cpu"),
    floorCpuMs: med(fs, "cpu"),
    cpuRatio: ratio("cpu"),
    rssMB: med(xs, "rss"),
    floorRssMB: med(fs, "rss"),
  };
}

const only = process.env.BENCH_ROWS?.split(",").filter(Boolean);
const wanted = (name) => !only || only.some((w) => name.startsWith(w));
const load0 = loadavg()[0];
const readParse = (files) =>
  `const fs=require("fs");` +
  files.map((f, k) => `const d${k}=JSON.parse(fs.readFileSync(${JSON.stringify(f)},"utf8"));`).join("");
const rows = [
  ["validate tiny.json", [bin, "validate", small], ["-e", "0"], "node -e 0", 1.3],
  ["validate a.json", [bin, "validate", A], ["-e", readParse([A])], "read + parse", 1.5],
  ["diff a.json b.json", [bin, "diff", A, B], ["-e", readParse([A, B])], "read + parse both", 2, [0, 1]],
  [
    "convert a.json -t ckpt",
    [bin, "convert", A, "-t", "ckpt", "-o", OUT],
    ["-e", `${readParse([A])}fs.writeFileSync(${JSON.stringify(`${OUT}.floor`)},JSON.stringify(d0,null,2))`],
    "read + parse + write",
    1.5,
  ],
]
  .filter(([name]) => wanted(name))
  .map((r) => row(...r));
// Instructions counted by valgrind's callgrind (one run each, when valgrind is installed and BENCH_INSTRUCTIONS is not
// 0): unlike time, unaffected by the load of a shared machine.
function instructions(args) {
  const r = spawnSync("valgrind", ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 256 << 20,
  });
  const m = /Collected : (\d+)/.exec(r.stderr ?? "");
  return m ? Number(m[1]) : undefined;
}
if (process.env.BENCH_INSTRUCTIONS !== "0" && instructions(["-e", "0"]) !== undefined)
  for (const r of rows) {
    r.instructions = instructions(r.args);
    r.floorInstructions = instructions(r.floorArgs);
    r.instructionRatio = r.instructions / r.floorInstructions;
  }
const load1 = loadavg()[0];
rmSync(dir, { recursive: true, force: true });

const f0 = (x) => (x === undefined ? "-" : x.toFixed(0));
const f2 = (x) => (x === undefined ? "-" : x.toFixed(2));
console.log(
  `${cpus().length} cores, Node ${process.versions.node}, load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after; files ${2 * TURNS} messages, ${mb} MB each; medians of ${RUNS} pairs (ratios: median of per-pair ratios)`,
);
console.log(
  `${"row".padEnd(24)}${"floor".padEnd(22)}${"wall ms".padStart(14)}${"ratio".padStart(7)}${"cpu ms".padStart(14)}${"ratio".padStart(7)}${"peak MB".padStart(12)}${"instr M".padStart(14)}${"ratio".padStart(7)}  target`,
);
for (const r of rows)
  console.log(
    `${r.name.padEnd(24)}${r.floor.padEnd(22)}${`${f0(r.wallMs)}/${f0(r.floorWallMs)}`.padStart(14)}${f2(r.wallRatio).padStart(7)}${`${f0(r.cpuMs)}/${f0(r.floorCpuMs)}`.padStart(14)}${f2(r.cpuRatio).padStart(7)}${`${f0(r.rssMB)}/${f0(r.floorRssMB)}`.padStart(12)}${`${f0(r.instructions && r.instructions / 1e6)}/${f0(r.floorInstructions && r.floorInstructions / 1e6)}`.padStart(14)}${f2(r.instructionRatio).padStart(7)}  ≤ ${r.target}×`,
  );
console.log(
  JSON.stringify({
    bench: "floor",
    cores: cpus().length,
    node: process.versions.node,
    load: [Number(load0.toFixed(1)), Number(load1.toFixed(1))],
    messages: 2 * TURNS,
    mbPerFile: Number(mb),
    runs: RUNS,
    rows: rows.map(({ args: _a, floorArgs: _f, ...r }) => r),
  }),
);
