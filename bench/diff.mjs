// ckpt diff vs jsondiffpatch (objectHash by message id — the same ids ckpt uses) on the same data in the same run:
// 1,000 / 5,000 / 20,000 messages; scenarios: an insertion near the head, an edit in the middle, a moved message,
// appends, and all four at once. Run after `npm run build`: node bench/diff.mjs
// Messages come from the real yoagent 0.18 sample read into the canonical model, repeated with fresh tool-call
// ids and timestamps. jsondiffpatch runs in a worker with a time cap (BENCH_CAP_MS, default 40 s); a capped run is
// reported as "> cap" and its ratio as a lower bound. Writes nothing to disk.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { readCheckpoint } = await import(join(root, "dist/formats/index.js"));
const { diffCheckpoints } = await import(join(root, "dist/core/diff/index.js"));

const SIZES = (process.env.BENCH_SIZES ?? "1000,5000,20000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CAP_MS = Number(process.env.BENCH_CAP_MS ?? 40_000);
const samplePath = join(root, "fixtures/yoagent/valid/save_messages.v0.18.json");
const sample = readCheckpoint({ name: samplePath, text: readFileSync(samplePath, "utf8") }).checkpoint;

function checkpoint(n) {
  const messages = [];
  for (let round = 0; messages.length < n; round++) {
    for (const m of sample.messages) {
      if (messages.length >= n) break;
      const c = structuredClone(m);
      if (typeof c.timestamp === "number") c.timestamp += round * 100_000;
      if (c.role === "toolResult") c.toolCallId = `${c.toolCallId}-${round}`;
      if (Array.isArray(c.content)) for (const b of c.content) if (b.type === "toolCall") b.id = `${b.id}-${round}`;
      // an explicit id per message (phi-core nodeId), used by both tools: ckpt keys on it, jsondiffpatch's objectHash too
      c.ext = { ...(c.ext ?? {}), "phi-core": { nodeId: messages.length } };
      messages.push(c);
    }
  }
  return { ...structuredClone(sample), threadId: "bench", messages };
}

const fresh = (id, text) => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: 1,
  ext: { "phi-core": { nodeId: id } },
});
const scenarios = {
  "insert near head": (b) => b.messages.splice(3, 0, fresh(1e9, "an inserted question")),
  "edit in middle": (b) => {
    const m = b.messages.find(
      (x, i) => i >= b.messages.length / 2 && x.role === "user" && x.content[0]?.type === "text",
    );
    m.content[0].text += " (edited)";
  },
  "move one": (b) => {
    const [m] = b.messages.splice(Math.floor(b.messages.length / 4), 1);
    b.messages.splice(Math.floor((b.messages.length * 3) / 4), 0, m);
  },
  "append 10": (b) => {
    for (let i = 0; i < 10; i++) b.messages.push(fresh(1e9 + 1 + i, `appended ${i}`));
  },
};
scenarios["all four"] = (b) => {
  for (const k of ["edit in middle", "move one", "insert near head", "append 10"]) scenarios[k](b);
};

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

function timeCkpt(a, b) {
  for (let i = 0; i < WARMUP; i++) diffCheckpoints(a, b); // steady state: the first runs include JIT compilation
  const ts = [];
  let r;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    r = diffCheckpoints(a, b);
    ts.push(performance.now() - t0);
  }
  return { ms: median(ts), summary: r.summary.text };
}

const workerSrc = `
const { parentPort, workerData } = require("node:worker_threads");
import(workerData.jdp).then((jdp) => {
  const dp = jdp.create({ objectHash: (o, i) => (o && o.ext && o.ext["phi-core"] ? "n" + o.ext["phi-core"].nodeId : "$$index:" + i) });
  const t0 = performance.now();
  const delta = dp.diff(workerData.a, workerData.b);
  parentPort.postMessage({ ms: performance.now() - t0, changed: delta !== undefined });
});`;
const jdpUrl = new URL("../node_modules/jsondiffpatch/lib/index.js", import.meta.url).href;

function timeJdp(a, b) {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerSrc, { eval: true, workerData: { a, b, jdp: jdpUrl } });
    const timer = setTimeout(() => {
      w.terminate();
      resolve({ ms: CAP_MS, capped: true });
    }, CAP_MS);
    w.once("message", (m) => {
      clearTimeout(timer);
      w.terminate();
      resolve(m);
    });
    w.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const rows = [];
for (const n of SIZES) {
  const a = checkpoint(n);
  for (const [name, edit] of Object.entries(scenarios)) {
    const b = structuredClone(a);
    edit(b);
    const ck = timeCkpt(a, b);
    const jd = await timeJdp(a, b);
    rows.push({
      messages: n,
      scenario: name,
      ckptMs: +ck.ms.toFixed(2),
      jsondiffpatchMs: +jd.ms.toFixed(1),
      capped: Boolean(jd.capped),
      ratio: +(jd.ms / ck.ms).toFixed(1),
      summary: ck.summary,
    });
  }
}

const pad = (s, w) => String(s).padStart(w);
console.log(
  `ckpt diff vs jsondiffpatch (objectHash by id) — ckpt: median of ${RUNS} runs after ${WARMUP} warm-up runs; jsondiffpatch: one run in a fresh worker (cap ${CAP_MS / 1000} s)\n`,
);
console.log(
  `${"messages".padEnd(9)}${"scenario".padEnd(18)}${pad("ckpt ms", 10)}${pad("jdp ms", 12)}${pad("ratio", 10)}  ckpt summary`,
);
for (const r of rows) {
  console.log(
    `${String(r.messages).padEnd(9)}${r.scenario.padEnd(18)}${pad(r.ckptMs.toFixed(2), 10)}${pad((r.capped ? ">" : "") + r.jsondiffpatchMs.toFixed(1), 12)}${pad((r.capped ? ">" : "") + r.ratio + "x", 10)}  ${r.summary}`,
  );
}
const big = rows.filter((r) => r.messages === Math.max(...SIZES));
const worstMs = Math.max(...big.map((r) => r.ckptMs));
const minRatio = Math.min(...big.map((r) => r.ratio));
console.log(
  `\nlargest size: worst ckpt ${worstMs.toFixed(2)} ms (target ≤ 100 ms), smallest speed-up ${minRatio}x (target ≥ 50x)`,
);
console.log(
  JSON.stringify({
    bench: "diff",
    runs: RUNS,
    warmup: WARMUP,
    capMs: CAP_MS,
    rows,
    largest: { messages: Math.max(...SIZES), worstCkptMs: worstMs, minRatio },
  }),
);
