// bench/floor-stores: the store rows of issue #41 as whole processes (`node bin/ckpt.js …`), each against a floor
// measured in the same run as a whole `node` process too (same client library, process start included), the two taking
// turns (floor, ckpt, floor, ckpt, …; each ratio the median of the per-pair ratios); then the throughput of `export`,
// `prune` and `copy` on the 200,000-checkpoint LangGraph store. Run after `npm run build`:
//   npm run bench -- floor-stores        (BENCH_RUNS pairs per row, default 3; BENCH_PG base URL)
//   BENCH_ROWS=migrate,delta,sqlite      only these rows (comma-separated; default all, and the throughput only then)
// Rows:
//   - `ckpt migrate --from file:<10,000 deep-agent files> --to postgres://…?schema=…` (checked, verified, the CLI's
//     default --jobs) vs a raw copy: read every file, binary COPY FROM STDIN per 500 rows in one transaction (the
//     bytes as given, as bench/migrate.mjs's raw copy); ratio = raw time / ckpt time (target ≥ 0.7); beside it a
//     second floor, the least a checked and verified copy does: read + JSON.parse + the same compiled schema check +
//     the same binary COPY + each batch read back and compared (its ratio printed on the line below the row);
//   - `ckpt ls` of the 10,000-thread DeltaChannel store on PostgreSQL (bench/langgraph.mjs's store: no snapshot in a
//     20-checkpoint thread, so every head is rebuilt from its writes) vs the reads of that rebuild (every root
//     checkpoint's chain facts and every `messages` write, keyset pages of 5,000, each parsed);
//   - `ckpt ls` of the 200,000-checkpoint LangGraph SQLite store (10,000 threads × 20) with a cold page cache
//     (`sync; echo 3 > /proc/sys/vm/drop_caches` before every process, when we may: as root) vs the least an `ls` with
//     these columns reads: each thread's count and newest id (the primary-key index), the newest checkpoint and its
//     metadata (parsed) and the size of its writes, with the same client (better-sqlite3);
//   - throughput on a copy of that store: `export` of every thread (newest checkpoint) and of every checkpoint
//     (--all-checkpoints), `prune --keep-last 1`, `copy` of one thread (20 checkpoints) within the store; with
//     BENCH_TP_MILLION=1 the same on a 1,000,000-checkpoint store (50,000 threads, ~5 GB; BENCH_ROWS=throughput: this part alone).
// Wall time, CPU time and peak RSS per process from GNU time (/usr/bin/time). The load average is printed.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makePg, makeSqlite } from "./lib/langgraph-store.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "ckpt.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PG = process.env.BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const LG_DIR = process.env.BENCH_LG_DIR ?? join(tmpdir(), "ckpt-bench-langgraph");
const THREADS = 10_000;
const ONLY = process.env.BENCH_ROWS ? new Set(process.env.BENCH_ROWS.split(",").map((x) => x.trim())) : undefined;
const wants = (name) => ONLY === undefined || ONLY.has(name);
const N = 10_000; // deep-agent files migrated
const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-floor-stores-"));
const run = Math.random().toString(36).slice(2, 8);
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const nodeModules = join(root, "node_modules");
mkdirSync(LG_DIR, { recursive: true });

/** Drop the page cache (root only); false when we may not. */
function dropCaches() {
  spawnSync("sync");
  try {
    writeFileSync("/proc/sys/vm/drop_caches", "3");
    return true;
  } catch {
    return false;
  }
}

/** One process: wall ms, CPU ms, peak RSS MB, stdout. */
function once(args, { cold = false, okCodes = [0] } = {}) {
  if (cold) dropCaches();
  const stats = join(dir, "time.txt");
  const t = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync(gnuTime, ["-o", stats, "-f", "%U %S %M", process.execPath, ...args], {
        encoding: "utf8",
        maxBuffer: 256 << 20,
      })
    : spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 256 << 20 });
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
  return { wall, cpu, rss, stdout: r.stdout };
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/**
 * Interleaved pairs; `before(i)` prepares each process (a fresh target). ratio: floor/ckpt when `higherBetter`.
 * `o.floor2` ({ args, name }): a second floor run in each turn too (floor, second floor, ckpt), reported beside the first.
 */
function row(name, ckptArgs, floorArgs, floorName, target, o = {}) {
  const xs = [];
  const fs = [];
  const f2s = [];
  const loads = [];
  for (let i = 0; i < RUNS; i++) {
    loads.push(loadavg()[0]);
    const fArgs = typeof floorArgs === "function" ? floorArgs(i) : floorArgs;
    const cArgs = typeof ckptArgs === "function" ? ckptArgs(i) : ckptArgs;
    fs.push(once(fArgs, o));
    if (o.floor2) f2s.push(once(o.floor2.args(i), o));
    xs.push(once(cArgs, o));
  }
  const med = (list, k) => (list[0][k] === undefined ? undefined : median(list.map((r) => r[k])));
  const ratioTo = (floors, k) =>
    xs[0][k] === undefined
      ? undefined
      : median(xs.map((x, i) => (o.higherBetter ? floors[i][k] / x[k] : x[k] / floors[i][k])));
  const ratio = (k) => ratioTo(fs, k);
  const second = o.floor2 && {
    floor2: o.floor2.name,
    floor2WallMs: med(f2s, "wall"),
    floor2CpuMs: med(f2s, "cpu"),
    floor2RssMB: med(f2s, "rss"),
    wallRatio2: ratioTo(f2s, "wall"),
    cpuRatio2: ratioTo(f2s, "cpu"),
    allFloor2WallMs: f2s.map((x) => Math.round(x.wall)),
  };
  return {
    ...second,
    name,
    floor: floorName,
    target: `${o.higherBetter ? "≥" : "≤"} ${target}`,
    cold: o.cold ?? false,
    load: +median(loads).toFixed(1),
    wallMs: med(xs, "wall"),
    floorWallMs: med(fs, "wall"),
    wallRatio: ratio("wall"),
    cpuMs: med(xs, "cpu"),
    floorCpuMs: med(fs, "cpu"),
    cpuRatio: ratio("cpu"),
    rssMB: med(xs, "rss"),
    floorRssMB: med(fs, "rss"),
    met: o.higherBetter ? ratio("wall") >= target : ratio("wall") <= target,
    allWallMs: xs.map((x) => Math.round(x.wall)),
    allFloorWallMs: fs.map((x) => Math.round(x.wall)),
  };
}

// ---------------------------------------------------------------------------------------------------------- stores
const coldOk = dropCaches();
const sqlite200k = join(LG_DIR, `js-${THREADS}.sqlite`); // bench/langgraph.mjs's store, same name
if (wants("sqlite")) await makeSqlite(THREADS, sqlite200k);
const deltaSchema = `lgbench_delta100_${THREADS}`; // bench/langgraph.mjs's DeltaChannel store, same name
if (wants("delta")) await makePg(THREADS, deltaSchema, 100, PG);
const sample = JSON.parse(readFileSync(join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json"), "utf8"));
const src = join(dir, "src");
mkdirSync(src);
for (let i = 0; wants("migrate") && i < N; i++)
  writeFileSync(
    join(src, `thread-${i}.json`),
    JSON.stringify({ ...sample, threadId: `thread-${i}`, step: i }, null, 2),
  );

// ---------------------------------------------------------------------------------------------------------- floors
const script = (name, text) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
// raw copy into PostgreSQL: read every file, binary COPY per 500 rows in one transaction (format from the PostgreSQL
// docs, "COPY — Binary Format"), into a table shaped like ckpt's (namespace, thread id, document, its byte size)
const rawCopy = script(
  "raw-copy.cjs",
  `const { readdirSync, readFileSync } = require("fs");
const { join } = require("path");
const pg = require(${JSON.stringify(join(nodeModules, "pg"))});
const { from } = require(${JSON.stringify(join(nodeModules, "pg-copy-streams"))});
(async () => {
  const [dir, table] = process.argv.slice(2);
  const c = new pg.Client({ connectionString: ${JSON.stringify(PG)} });
  await c.connect();
  await c.query(\`CREATE TABLE \${table} (namespace text, thread_id text COLLATE "C", doc text NOT NULL, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, thread_id))\`);
  const files = readdirSync(dir);
  await c.query("BEGIN");
  for (let i = 0; i < files.length; i += 500) {
    const parts = [Buffer.from("PGCOPY\\n\\xff\\r\\n\\0\\0\\0\\0\\0\\0\\0\\0\\0", "latin1")];
    const field = (b) => { const h = Buffer.allocUnsafe(4); h.writeInt32BE(b.length); parts.push(h, b); };
    for (const f of files.slice(i, i + 500)) {
      const doc = readFileSync(join(dir, f));
      const n = Buffer.allocUnsafe(2); n.writeInt16BE(4); parts.push(n);
      field(Buffer.from("default")); field(Buffer.from(f.slice(0, -5))); field(doc);
      const b = Buffer.allocUnsafe(4); b.writeInt32BE(doc.length); field(b);
    }
    const end = Buffer.allocUnsafe(2); end.writeInt16BE(-1); parts.push(end);
    const s = c.query(from(\`COPY \${table} (namespace, thread_id, doc, bytes) FROM STDIN (FORMAT binary)\`));
    const done = new Promise((ok, ko) => (s.on("finish", ok), s.on("error", ko)));
    s.end(Buffer.concat(parts));
    await done;
  }
  await c.query("COMMIT");
  await c.end();
})();`,
);
// the least any checked and verified copy does (#41): read every file, JSON.parse, the same compiled schema check as
// ckpt's (the deep-agent validator of dist/generated/validators/), binary COPY per 500 rows in one transaction, then
// each batch read back and compared with the text written — no detection, no journal, no conflict lookup
const checkedCopy = script(
  "checked-copy.cjs",
  `const { readdirSync, readFileSync } = require("fs");
const { join } = require("path");
const pg = require(${JSON.stringify(join(nodeModules, "pg"))});
const { from } = require(${JSON.stringify(join(nodeModules, "pg-copy-streams"))});
const { v_formats_deepagent_checkpoint: valid } = require(${JSON.stringify(join(root, "dist", "generated", "validators", "formats-deepagent.cjs"))});
(async () => {
  const [dir, table] = process.argv.slice(2);
  const c = new pg.Client({ connectionString: ${JSON.stringify(PG)} });
  await c.connect();
  await c.query(\`CREATE TABLE \${table} (namespace text, thread_id text COLLATE "C", doc text NOT NULL, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, thread_id))\`);
  const files = readdirSync(dir);
  await c.query("BEGIN");
  let bad = 0;
  for (let i = 0; i < files.length; i += 500) {
    const parts = [Buffer.from("PGCOPY\\n\\xff\\r\\n\\0\\0\\0\\0\\0\\0\\0\\0\\0", "latin1")];
    const field = (b) => { const h = Buffer.allocUnsafe(4); h.writeInt32BE(b.length); parts.push(h, b); };
    const ids = [];
    const texts = [];
    for (const f of files.slice(i, i + 500)) {
      const text = readFileSync(join(dir, f), "utf8");
      if (!valid(JSON.parse(text))) throw new Error(f + ": not a deep-agent checkpoint");
      const doc = Buffer.from(text);
      const id = f.slice(0, -5);
      ids.push(id);
      texts.push(text);
      const n = Buffer.allocUnsafe(2); n.writeInt16BE(4); parts.push(n);
      field(Buffer.from("default")); field(Buffer.from(id)); field(doc);
      const b = Buffer.allocUnsafe(4); b.writeInt32BE(doc.length); field(b);
    }
    const end = Buffer.allocUnsafe(2); end.writeInt16BE(-1); parts.push(end);
    const s = c.query(from(\`COPY \${table} (namespace, thread_id, doc, bytes) FROM STDIN (FORMAT binary)\`));
    const done = new Promise((ok, ko) => (s.on("finish", ok), s.on("error", ko)));
    s.end(Buffer.concat(parts));
    await done;
    const { rows } = await c.query(\`SELECT k.n, (SELECT doc FROM \${table} WHERE namespace = 'default' AND thread_id = k.id) AS doc FROM unnest($1::text[]) WITH ORDINALITY AS k(id, n)\`, [ids]);
    for (const r of rows) if (r.doc !== texts[Number(r.n) - 1]) bad++;
  }
  await c.query("COMMIT");
  await c.end();
  if (bad) throw new Error(bad + " rows read back differently");
})();`,
);
// the reads of a DeltaChannel ls's rebuild (bench/langgraph.mjs's deltaFloorPg, as a process)
const deltaFloor = script(
  "delta-floor.cjs",
  `const pg = require(${JSON.stringify(join(nodeModules, "pg"))});
(async () => {
  const c = new pg.Client({ connectionString: ${JSON.stringify(PG)} });
  await c.connect();
  const S = '"${deltaSchema}"';
  const td = new TextDecoder();
  await c.query(\`SELECT thread_id, checkpoint_id, parent_checkpoint_id, (checkpoint -> 'channel_values') ? 'messages' AS inline FROM \${S}.checkpoints WHERE checkpoint_ns = ''\`);
  let last;
  for (;;) {
    const { rows } = await c.query(
      \`SELECT thread_id, checkpoint_id, task_id, idx, blob FROM \${S}.checkpoint_writes WHERE channel = 'messages' AND checkpoint_ns = ''\${last ? " AND (thread_id, checkpoint_id, task_id, idx) > ($1, $2, $3, $4)" : ""} ORDER BY thread_id, checkpoint_id, task_id, idx LIMIT 5000\`,
      last ? [last.thread_id, last.checkpoint_id, last.task_id, last.idx] : []);
    if (!rows.length) break;
    for (const r of rows) JSON.parse(td.decode(r.blob));
    last = rows[rows.length - 1];
  }
  await c.end();
})();`,
);
// the least an ls with ckpt's columns reads of a LangGraph SQLite store
const lsFloor = script(
  "ls-floor.cjs",
  `const Database = require(${JSON.stringify(join(nodeModules, "better-sqlite3"))});
const db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
const heads = db.prepare("SELECT thread_id, count(*) AS n, max(checkpoint_id) AS top FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id").all();
const one = db.prepare("SELECT checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
const w = db.prepare("SELECT ifnull(sum(length(value)), 0) FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?").pluck();
const td = new TextDecoder();
let m = 0;
for (const h of heads) {
  const r = one.get(h.thread_id, h.top);
  m += JSON.parse(td.decode(r.checkpoint)).channel_values.messages?.length ?? 0;
  JSON.parse(td.decode(r.metadata));
  m += w.get(h.thread_id, h.top);
}
process.stdout.write(heads.length + " " + m + "\\n");`,
);

// ---------------------------------------------------------------------------------------------------------- rows
const load0 = loadavg()[0];
const rows = [];
const cleanup = [];
try {
  if (wants("migrate"))
    rows.push(
      row(
        `migrate ${N} → PostgreSQL, checked + verified`,
        (i) => {
          const schema = `bench_fs_${run}_${i}`;
          cleanup.push(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          return [
            bin,
            "migrate",
            "--from",
            `file:${src}`,
            "--to",
            `${PG}?schema=${schema}`,
            "--journal",
            join(dir, `j${i}`),
          ];
        },
        (i) => {
          const table = `bench_fs_raw_${run}_${i}`;
          cleanup.push(`DROP TABLE IF EXISTS ${table}`);
          return [rawCopy, src, table];
        },
        "raw binary COPY",
        0.7,
        {
          higherBetter: true,
          floor2: {
            name: "checked + verified COPY",
            args: (i) => {
              const table = `bench_fs_checked_${run}_${i}`;
              cleanup.push(`DROP TABLE IF EXISTS ${table}`);
              return [checkedCopy, src, table];
            },
          },
        },
      ),
    );
  if (wants("delta"))
    rows.push(
      row(
        "ls 10k-thread DeltaChannel store, PostgreSQL",
        [bin, "ls", `${PG}?schema=${deltaSchema}`],
        [deltaFloor],
        "the rebuild's reads",
        1.6,
      ),
    );
  if (wants("sqlite"))
    rows.push(
      row(
        `ls 200k-checkpoint LangGraph SQLite store${coldOk ? ", cold cache" : ""}`,
        [bin, "ls", `sqlite:${sqlite200k}`],
        [lsFloor, sqlite200k],
        "heads + their writes read",
        1,
        { cold: coldOk },
      ),
    );
  // the ≤ 1 s target is absolute: met only when ckpt's wall time is within it
  if (wants("sqlite")) {
    rows[rows.length - 1].met = rows[rows.length - 1].wallMs <= 1000;
    rows[rows.length - 1].target = "≤ 1 s";
  }
} finally {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  for (const q of cleanup) await c.query(q);
  await c.end();
}

// ---------------------------------------------------------------------------------------------------------- throughput
// On the 200k store always (the table's store), and on a 1,000,000-checkpoint one (50,000 threads × 20, ~5 GB, made
// once under $BENCH_LG_DIR) with BENCH_TP_MILLION=1; BENCH_ROWS=throughput runs this part alone.
const tp = [];
const through = (name, args, units, unitName, bytes) => {
  const load = loadavg()[0];
  const r = once(args);
  const mb = typeof bytes === "function" ? bytes() : bytes;
  tp.push({
    name,
    load: +load.toFixed(1),
    wallMs: Math.round(r.wall),
    cpuMs: r.cpu === undefined ? undefined : Math.round(r.cpu),
    rssMB: r.rss === undefined ? undefined : Math.round(r.rss),
    units,
    unitName,
    perSecond: Math.round(units / (r.wall / 1000)),
    mb: +mb.toFixed(1),
    mbPerSecond: +(mb / (r.wall / 1000)).toFixed(1),
  });
  return r;
};
const k = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** export (newest, every checkpoint), copy of one thread, prune on a copy of the store of `threads` × 20 checkpoints. */
async function throughputOn(threads, file) {
  await makeSqlite(threads, file);
  const mbOf = statSync(file).size / 1e6;
  const work = join(dir, "work.sqlite");
  const out = join(dir, "out.jsonl");
  const size = (f) => () => statSync(f).size / 1e6;
  const at = `${k(threads * 20)} store, ${mbOf.toFixed(0)} MB`;
  through(
    `export ${k(threads)} threads (newest checkpoint) → JSONL [${at}]`,
    [bin, "export", `sqlite:${file}`, "-o", out],
    threads,
    "threads",
    size(out),
  );
  through(
    `export ${k(threads * 20)} checkpoints (--all-checkpoints, audit) → JSONL [${at}]`,
    [bin, "export", `sqlite:${file}`, "--as", "audit", "--all-checkpoints", "-o", out],
    threads * 20,
    "checkpoints",
    size(out),
  );
  rmSync(out, { force: true });
  copyFileSync(file, work);
  const copies = 20;
  const t0 = tp.length;
  for (let c = 0; c < copies; c++)
    through(
      `copy one thread (20 checkpoints + writes) within the store [${at}]`,
      [bin, "copy", `sqlite:${work}#thread-${String(c * 37).padStart(6, "0")}`, `sqlite:${work}#copy-${c}`],
      20,
      "checkpoints",
      0,
    );
  const copyRuns = tp.splice(t0);
  const mid = copyRuns.find((r) => r.wallMs === median(copyRuns.map((x) => x.wallMs)));
  tp.push({ ...mid, name: mid.name.replace(" [", ` (median of ${copies} processes) [`) });
  through(
    `prune --keep-last 1 (${k(threads)} threads) [${at}]`,
    [bin, "prune", `sqlite:${work}`, "--keep-last", "1"],
    threads * 19 + copies * 19,
    "checkpoints deleted",
    mbOf,
  );
  rmSync(work, { force: true });
}
if (ONLY === undefined || ONLY.has("throughput")) {
  await throughputOn(THREADS, sqlite200k);
  if (process.env.BENCH_TP_MILLION === "1") await throughputOn(50_000, join(LG_DIR, "js-50000.sqlite"));
}
const load1 = loadavg()[0];
rmSync(dir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------------------- report
const f0 = (x) => (x === undefined ? "-" : x.toFixed(0));
const f2 = (x) => (x === undefined ? "-" : x.toFixed(2));
console.log(
  `${cpus().length} cores, Node ${process.versions.node}, load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after; ${RUNS} interleaved pairs per row${coldOk ? "; page cache dropped before every process of the cold row" : "; could not drop the page cache (not root): the 'cold' row ran warm"}`,
);
console.log(
  `${"row".padEnd(48)}${"floor".padEnd(28)}${"wall ms".padStart(14)}${"ratio".padStart(7)}${"cpu ms".padStart(14)}${"ratio".padStart(7)}${"peak MB".padStart(12)}${"load".padStart(6)}  target  met`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(48)}${r.floor.padEnd(28)}${`${f0(r.wallMs)}/${f0(r.floorWallMs)}`.padStart(14)}${f2(r.wallRatio).padStart(7)}${`${f0(r.cpuMs)}/${f0(r.floorCpuMs)}`.padStart(14)}${f2(r.cpuRatio).padStart(7)}${`${f0(r.rssMB)}/${f0(r.floorRssMB)}`.padStart(12)}${r.load.toFixed(1).padStart(6)}  ${r.target}  ${r.met ? "yes" : "no"}`,
  );
  // the second floor of the row (migrate: the least a checked and verified copy does), same columns
  if (r.floor2)
    console.log(
      `${"  the same".padEnd(48)}${r.floor2.padEnd(28)}${`${f0(r.wallMs)}/${f0(r.floor2WallMs)}`.padStart(14)}${f2(r.wallRatio2).padStart(7)}${`${f0(r.cpuMs)}/${f0(r.floor2CpuMs)}`.padStart(14)}${f2(r.cpuRatio2).padStart(7)}${`${f0(r.rssMB)}/${f0(r.floor2RssMB)}`.padStart(12)}`,
    );
}
if (tp.length)
  console.log(
    `\nthroughput on the LangGraph SQLite stores (10,000 or 50,000 threads × 20 checkpoints), one process each`,
  );
for (const r of tp)
  console.log(
    `${r.name.padEnd(70)} ${String(r.wallMs).padStart(7)} ms  ${String(r.perSecond).padStart(8)} ${r.unitName}/s  ${r.mb ? `${r.mbPerSecond} MB/s (${r.mb} MB)` : ""}  peak ${r.rssMB} MB  load ${r.load}`,
  );
console.log(
  JSON.stringify({
    bench: "floor-stores",
    cores: cpus().length,
    node: process.versions.node,
    load: [+load0.toFixed(1), +load1.toFixed(1)],
    runs: RUNS,
    cold: coldOk,
    rows,
    throughput: tp,
  }),
);
