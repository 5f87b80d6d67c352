// `ckpt validate` performance, as ratios to baselines measured in the same run. Run after `npm run build`:
//   node bench/validate.mjs
// 1. Throughput: a >= 50 MB set of checkpoint files in a temp dir (canonical ckpt checkpoints and yoagent
//    message files, built from the real yoagent 0.18 / pre-0.13 samples repeated with fresh ids and
//    timestamps) validated by the library path (read + parse + native schema + adapter lints + generic
//    lints) vs reading + bare JSON.parse of the same files. Target ratio >= 0.6.
// 2. Cold start: `node bin/ckpt.js validate one.json` vs `node -e 0`, median of BENCH_COLD_RUNS (>= 10). Target <= 3.
// 3. Informational: the same ratio for the other JSON formats (BENCH_FORMAT_MB each, 0 to skip).
// Prints a table and, last, one line of JSON. Removes its temp dir.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { adapters } = await import(join(root, "dist/formats/index.js"));
const { validateDocument } = await import(join(root, "dist/core/document.js"));
const { readSource } = await import(join(root, "dist/cli/input.js"));

const TARGET_MB = Number(process.env.BENCH_MB ?? 60);
const FILE_MB = 0.5;
const RUNS = Number(process.env.BENCH_RUNS ?? 5); // interleaved baseline/ckpt runs; the median damps load spikes on a shared machine
const COLD_RUNS = Math.max(10, Number(process.env.BENCH_COLD_RUNS ?? 15));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Messages from a sample, repeated `round` times with fresh tool-call ids and increasing timestamps. */
function grow(sample, bytes) {
  const out = [];
  let size = 2;
  for (let round = 0; size < bytes; round++) {
    for (const m of sample) {
      const c = structuredClone(m);
      if (typeof c.timestamp === "number") c.timestamp += round * 100_000;
      for (const k of ["toolCallId", "tool_call_id"]) if (typeof c[k] === "string") c[k] = `${c[k]}-${round}`;
      if (Array.isArray(c.content))
        for (const b of c.content)
          if (b && typeof b === "object" && typeof b.id === "string") b.id = `${b.id}-${round}`;
      out.push(c);
      size += JSON.stringify(c).length + 1;
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-validate-"));
try {
  const modern = JSON.parse(readFileSync(join(root, "fixtures/yoagent/valid/save_messages.v0.18.json"), "utf8"));
  const legacy = JSON.parse(
    readFileSync(join(root, "fixtures/yoagent/valid/save_messages.legacy-pre-0.13.json"), "utf8"),
  );
  const yo = adapters.yoagent;
  let total = 0;
  let n = 0;
  while (total < TARGET_MB * 1e6) {
    let text;
    if (n % 3 === 0) {
      // canonical checkpoint, 2-space JSON as ckpt writes it
      const msgs = grow(modern, FILE_MB * 1e6 * 0.6);
      const cp = yo.toCanonical(msgs, { name: `t${n}.json` });
      text = JSON.stringify({ ...cp, threadId: `thread-${n}`, step: n }, null, 2) + "\n";
    } else if (n % 3 === 1) {
      text = JSON.stringify(grow(modern, FILE_MB * 1e6));
    } else {
      text = JSON.stringify(grow(legacy, FILE_MB * 1e6), null, 2);
    }
    writeFileSync(join(dir, `cp-${String(n).padStart(4, "0")}.json`), text);
    total += Buffer.byteLength(text);
    n++;
  }
  const files = readdirSync(dir)
    .filter((f) => f.startsWith("cp-"))
    .map((f) => join(dir, f));
  const mb = total / 1e6;

  // sanity: every generated file validates without errors
  for (const f of files.slice(0, 3)) {
    const r = validateDocument(await readSource(f, { stdin: process.stdin }));
    if (!r.valid || r.fatal)
      throw new Error(`bench data does not validate: ${f}: ${JSON.stringify(r.fatal ?? r.issues.slice(0, 3))}`);
  }

  const baseline = [];
  const library = [];
  let sink = 0;
  const runBaseline = () => {
    const t = performance.now();
    for (const f of files) sink += JSON.parse(readFileSync(f, "utf8")) ? 1 : 0;
    baseline.push(performance.now() - t);
  };
  const runLibrary = async () => {
    const t = performance.now();
    let errors = 0;
    for (const f of files) {
      const r = validateDocument(await readSource(f, { stdin: process.stdin }));
      errors += r.issues.length + (r.fatal ? 1 : 0);
    }
    library.push(performance.now() - t);
    if (errors)
      throw new Error(`${errors} issues in the bench data (it must be clean so the run measures the common path)`);
  };
  // Each run measures both back to back, in alternating order (neither always pays the other's garbage); the
  // ratio is the median of the per-run ratios, so a load change on a shared machine between runs cancels out.
  for (let run = 0; run < RUNS; run++) {
    if (run % 2 === 0) {
      runBaseline();
      await runLibrary();
    } else {
      await runLibrary();
      runBaseline();
    }
  }
  const baseMBs = mb / (median(baseline) / 1000);
  const libMBs = mb / (median(library) / 1000);
  const ratio = median(baseline.map((b, i) => b / library[i]));

  // 3. Informational, not part of the target: the other formats, each as BENCH_FORMAT_MB of documents converted
  //    from the same conversation (ckpt's own converters), validated the same way; baseline JSON.parse of each
  //    file (of each line for JSONL). amacs (org text) has no JSON.parse baseline and is left out.
  const FORMAT_MB = Number(process.env.BENCH_FORMAT_MB ?? 3);
  const byFormat = [];
  if (FORMAT_MB > 0) {
    const cp0 = { ...yo.toCanonical(grow(modern, FILE_MB * 1e6), { name: "t.json" }), threadId: "thread-0" };
    for (const [format, ext] of [
      ["yoagent-session", ".jsonl"],
      ["phi-core", ".json"],
      ["phi-core-session", ".json"],
      ["deepagent", ".json"],
      ["swarmer", ".pkl"],
    ]) {
      const a = adapters[format];
      const { text } = a.serialize(a.fromCanonical(cp0, { lossy: [] }));
      const fdir = join(dir, format);
      mkdirSync(fdir);
      const ffiles = [];
      for (let k = 0, size = 0; size < FORMAT_MB * 1e6; k++, size += text.length) {
        const f = join(fdir, format === "swarmer" ? `agent_${k}.pkl` : `f${k}${ext}`);
        writeFileSync(f, text);
        ffiles.push(f);
      }
      const list = ffiles;
      const fmb = (list.length * Buffer.byteLength(text)) / 1e6;
      const first = validateDocument(await readSource(list[0], { stdin: process.stdin }));
      if (first.format !== format || first.issues.length || first.fatal)
        throw new Error(
          `${format} bench data: ${first.format} ${JSON.stringify(first.fatal ?? first.issues.slice(0, 3))}`,
        );
      const jsonl = ext === ".jsonl";
      const b = [];
      const v = [];
      for (let run = 0; run < RUNS; run++) {
        let t = performance.now();
        for (const f of list) {
          const body = readFileSync(f, "utf8");
          if (jsonl) for (const line of body.split("\n")) sink += line.trim() ? (JSON.parse(line) ? 1 : 0) : 0;
          else sink += JSON.parse(body) ? 1 : 0;
        }
        b.push(performance.now() - t);
        t = performance.now();
        for (const f of list) validateDocument(await readSource(f, { stdin: process.stdin }));
        v.push(performance.now() - t);
      }
      byFormat.push({
        format,
        mb: +fmb.toFixed(1),
        baselineMBs: +(fmb / (median(b) / 1000)).toFixed(1),
        validateMBs: +(fmb / (median(v) / 1000)).toFixed(1),
        ratio: +median(b.map((x, i) => x / v[i])).toFixed(2),
      });
    }
  }

  // cold start
  // one.json: a real checkpoint (yoagent 0.18's own save_messages output)
  const one = join(dir, "one.json");
  writeFileSync(one, readFileSync(join(root, "fixtures/yoagent/valid/save_messages.v0.18.json")));
  const time = (args) => {
    const t = performance.now();
    try {
      execFileSync(process.execPath, args, { stdio: "ignore", cwd: root });
    } catch (e) {
      if (e.status !== 0 && e.status !== 1) throw e;
    }
    return performance.now() - t;
  };
  const nodeRuns = [];
  const ckptRuns = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    nodeRuns.push(time(["-e", "0"]));
    ckptRuns.push(time([join(root, "bin/ckpt.js"), "validate", one]));
  }
  const oneKB = Buffer.byteLength(readFileSync(one)) / 1000;
  const nodeMs = median(nodeRuns);
  const ckptMs = median(ckptRuns);

  const rows = [
    ["data set", `${files.length} files, ${mb.toFixed(1)} MB (ckpt + yoagent >=0.13 + yoagent <0.13)`],
    ["baseline: read + JSON.parse", `${baseMBs.toFixed(1)} MB/s (median of ${RUNS})`],
    ["ckpt: read + parse + schema + lints", `${libMBs.toFixed(1)} MB/s (median of ${RUNS})`],
    ["throughput ratio (target >= 0.6)", `${ratio.toFixed(2)} (median of the ${RUNS} runs' ratios)`],
    ["node -e 0", `${nodeMs.toFixed(0)} ms (median of ${COLD_RUNS})`],
    [`ckpt validate one.json (${oneKB.toFixed(0)} kB)`, `${ckptMs.toFixed(0)} ms (median of ${COLD_RUNS})`],
    ["cold-start ratio (target <= 3)", (ckptMs / nodeMs).toFixed(2)],
  ];
  for (const f of byFormat)
    rows.push([
      `  other formats (info): ${f.format}, ${f.mb} MB`,
      `${f.validateMBs} MB/s vs ${f.baselineMBs} MB/s JSON.parse: ratio ${f.ratio.toFixed(2)}`,
    ]);
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log("ckpt validate benchmark");
  for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
  console.log(
    JSON.stringify({
      bench: "validate",
      files: files.length,
      mb: +mb.toFixed(1),
      baselineMBs: +baseMBs.toFixed(1),
      validateMBs: +libMBs.toFixed(1),
      throughputRatio: +ratio.toFixed(3),
      nodeColdMs: +nodeMs.toFixed(1),
      ckptColdMs: +ckptMs.toFixed(1),
      coldStartRatio: +(ckptMs / nodeMs).toFixed(3),
      otherFormats: byFormat,
      sink,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
