// Conversion throughput on a 100,000-message history, as a ratio to JSON.parse + JSON.stringify of the same
// bytes measured in the same run. Run after `npm run build`: node bench/convert.mjs
// Builds the history from the real yoagent 0.18 sample (user text+image, thinking, tool calls, tool results,
// extension, error and refusal turns), repeated with fresh ids and timestamps. Writes nothing to disk.
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { yoagentHistory } from "./history.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { adapters } = await import(join(root, "dist/formats/index.js"));
const { convertDocument } = await import(join(root, "dist/core/convert.js"));

const N = Number(process.env.BENCH_MESSAGES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const text = JSON.stringify(yoagentHistory(N));
const doc = { name: "bench-history.json", text };
const mb = (Buffer.byteLength(text) / 1e6).toFixed(1);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function time(fn) {
  const ts = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

function built(name) {
  try {
    adapters[name].fromCanonical({ schemaVersion: 1, threadId: "t", step: 0, messages: [], state: {} }, { lossy: [] });
    return true;
  } catch (e) {
    return e?.reason !== "unbuilt-format";
  }
}

const baselineMs = time(() => JSON.stringify(JSON.parse(text)));
const rows = [{ pipeline: "baseline: JSON.parse + JSON.stringify", ms: baselineMs }];
const src = adapters.yoagent;
for (const to of ["deepagent", "phi-core", "yoagent-session"]) {
  if (!built(to)) {
    rows.push({ pipeline: `yoagent → canonical → ${to}`, ms: NaN, note: "adapter not built" });
    continue;
  }
  const dst = adapters[to];
  // adapters only: parse, toCanonical, fromCanonical, serialize
  const ms = time(() => {
    const cp = src.toCanonical(src.parse(doc), doc);
    dst.serialize(dst.fromCanonical(cp, { lossy: [] }));
  });
  rows.push({ pipeline: `yoagent → canonical → ${to}`, ms });
  // what `ckpt convert` does: also checks the source against the native schema + loader rules,
  // the canonical checkpoint, and the written document against the target schema
  const full = time(() => convertDocument(doc, { from: "yoagent", to }));
  rows.push({ pipeline: `ckpt convert yoagent → ${to} (with schema checks)`, ms: full });
}

const perSec = (ms) => (Number.isFinite(ms) ? N / (ms / 1000) : NaN);
console.log(`convert benchmark: ${N.toLocaleString("en")} messages, ${mb} MB yoagent JSON, median of ${RUNS} runs\n`);
console.log("pipeline".padEnd(58) + "ms".padStart(10) + "msg/s".padStart(14) + "ratio".padStart(9));
for (const r of rows) {
  const ratio = Number.isFinite(r.ms) ? (perSec(r.ms) / perSec(baselineMs)).toFixed(3) : "-";
  console.log(
    r.pipeline.padEnd(58) +
      (Number.isFinite(r.ms) ? r.ms.toFixed(0) : "-").padStart(10) +
      (Number.isFinite(r.ms) ? Math.round(perSec(r.ms)).toLocaleString("en") : " " + r.note).padStart(14) +
      ratio.padStart(9),
  );
}
console.log(
  "\nratio = throughput / baseline throughput on the same bytes in this run (1.0 = as fast as JSON.parse+stringify)",
);
console.log(
  JSON.stringify({
    bench: "convert",
    messages: N,
    bytes: Buffer.byteLength(text),
    runs: RUNS,
    baseline: { msPerRun: Math.round(baselineMs), messagesPerSec: Math.round(perSec(baselineMs)) },
    results: rows.slice(1).map((r) => ({
      pipeline: r.pipeline,
      msPerRun: Number.isFinite(r.ms) ? Math.round(r.ms) : null,
      messagesPerSec: Number.isFinite(r.ms) ? Math.round(perSec(r.ms)) : null,
      ratioToBaseline: Number.isFinite(r.ms) ? Number((perSec(r.ms) / perSec(baselineMs)).toFixed(4)) : null,
      ...(r.note ? { note: r.note } : {}),
    })),
  }),
);
