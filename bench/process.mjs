// Whole-process speed: what a user waits for at the terminal. Each figure is the median wall time of a fresh
// `node bin/ckpt.js …` process, against floors measured in the same run:
//   - big files: `node` starting, reading both files and JSON.parse-ing them (the least any tool can do);
//   - cold start: `node -e 0`.
// Targets (issue #13): diff / convert / validate of one big file ≤ 3× the floor; `ckpt validate small.json` ≤ 1.5× `node -e 0`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { yoagentHistory, yoagentSample } from "./history.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "ckpt.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const N = Number(process.env.BENCH_MESSAGES ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-process-"));

// Two yoagent save_messages() files of N messages built from the real sample, the second with an edit, an insert and
// an append, so the diff has work to do.
const sample = yoagentSample();
const a = yoagentHistory(N, sample);
const b = structuredClone(a);
const mid = b.findIndex((m, i) => i > N / 2 && m.role === "user" && typeof m.content?.[0]?.text === "string");
if (mid >= 0) b[mid].content[0].text += " (edited)";
b.splice(5, 0, { role: "user", content: [{ type: "text", text: "an inserted question" }], timestamp: 1 });
b.push({ role: "user", content: [{ type: "text", text: "one more" }], timestamp: 2 });
const A = join(dir, "a.json"), B = join(dir, "b.json"), S = join(dir, "small.json"), OUT = join(dir, "out.json");
writeFileSync(A, JSON.stringify(a, null, 2));
writeFileSync(B, JSON.stringify(b, null, 2));
writeFileSync(S, JSON.stringify(sample, null, 2));
const mb = (readFileSync(A).length / 1e6).toFixed(1);

function time(args, okCodes = [0]) {
  const xs = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", maxBuffer: 256 << 20 });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (!okCodes.includes(r.status)) throw new Error(`${args.join(" ")} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 500)}`);
    if (i > 0) xs.push(ms); // the first run warms the page cache
  }
  return xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
}

const floor2 = time(["-e", `const fs=require("fs");JSON.parse(fs.readFileSync(${JSON.stringify(A)},"utf8"));JSON.parse(fs.readFileSync(${JSON.stringify(B)},"utf8"))`]);
const floor1 = time(["-e", `JSON.parse(require("fs").readFileSync(${JSON.stringify(A)},"utf8"))`]);
const node0 = time(["-e", "0"]);
const rows = [
  ["diff a b (2 files)", time([bin, "diff", A, B], [0, 1]), floor2, 3],
  ["convert a -t deepagent --allow-lossy", time([bin, "convert", A, "-t", "deepagent", "--allow-lossy", "-o", OUT]), floor1, 3],
  ["validate a", time([bin, "validate", A], [0, 1]), floor1, 3],
  ["validate small (cold start)", time([bin, "validate", S]), node0, 1.5],
];
console.log(`files: ${N} messages, ${mb} MB each; median of ${RUNS} runs`);
console.log(`floors: node -e 0 ${node0.toFixed(0)} ms; read+parse 1 file ${floor1.toFixed(0)} ms; 2 files ${floor2.toFixed(0)} ms`);
const report = {};
for (const [name, ms, floor, target] of rows) {
  const ratio = ms / floor;
  console.log(`${name.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}× floor (target ≤ ${target}×) ${ratio <= target ? "ok" : "MISSED"}`);
  report[name] = { ms: Math.round(ms), floorMs: Math.round(floor), ratio: Number(ratio.toFixed(2)), target };
}
// Wall time on a shared 2-core machine swings with load; instructions counted by callgrind do not. Cold start in
// instructions, when valgrind is installed.
function instructions(args) {
  const r = spawnSync("valgrind", ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], maxBuffer: 256 << 20 });
  const m = /Collected : (\d+)/.exec(r.stderr ?? "");
  return m ? Number(m[1]) : undefined;
}
const floorArgs = {
  2: ["-e", `const fs=require("fs");JSON.parse(fs.readFileSync(${JSON.stringify(A)},"utf8"));JSON.parse(fs.readFileSync(${JSON.stringify(B)},"utf8"))`],
  1: ["-e", `JSON.parse(require("fs").readFileSync(${JSON.stringify(A)},"utf8"))`],
  0: ["-e", "0"],
};
const counted = [
  ["diff a b (2 files)", [bin, "diff", A, B], 2, 3],
  ["convert a -t deepagent --allow-lossy", [bin, "convert", A, "-t", "deepagent", "--allow-lossy", "-o", OUT], 1, 3],
  ["validate a", [bin, "validate", A], 1, 3],
  ["validate small (cold start)", [bin, "validate", S], 0, 1.5],
];
if (process.env.BENCH_INSTRUCTIONS !== "0" && instructions(["-e", "0"])) {
  const floors = {};
  for (const k of [0, 1, 2]) floors[k] = instructions(floorArgs[k]);
  console.log(`instructions (callgrind; steady under load): floors node -e 0 ${(floors[0] / 1e6).toFixed(0)} M, 1 file ${(floors[1] / 1e6).toFixed(0)} M, 2 files ${(floors[2] / 1e6).toFixed(0)} M`);
  for (const [name, args, f, target] of counted) {
    const n = instructions(args);
    const ratio = n / floors[f];
    console.log(`${name.padEnd(38)} ${(n / 1e6).toFixed(0).padStart(6)} M  ${ratio.toFixed(2)}× floor (target ≤ ${target}×) ${ratio <= target ? "ok" : "MISSED"}`);
    report[name].instructions = n;
    report[name].instructionRatio = Number(ratio.toFixed(2));
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ bench: "process", messages: N, mbPerFile: Number(mb), ...report }));
