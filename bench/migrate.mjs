// bench/migrate: `ckpt migrate` of N deep-agent checkpoints from a FileSaver folder into Redis, SQLite and PostgreSQL,
// each compared in the same run with two raw baselines that use the same client and store the same bytes ckpt stores
// (Redis: compact JSON, the KeyValueStoreSaver layout; SQLite and PostgreSQL: the document text as given, with the
// row's byte size and write time as ckpt's tables hold them):
//   - raw write: the records already in memory, written with one pipelined SET each (Redis), one transaction of
//     prepared inserts (SQLite), binary COPY FROM STDIN per 500 rows in one transaction (PostgreSQL: ckpt loads new rows with
//     binary COPY too, so the baseline gets the same advantage) — the issue's first baseline;
//   - raw copy: the same, plus reading the same source folder (readdir + readFileSync of every file, and for Redis the
//     compact re-serialization), i.e. the least work any file → store copy does.
// ckpt does more than either: every record is parsed, its format detected and checked against the format's schema,
// conflicts are looked up in the target, and every written record is read back and compared. ckpt runs with one
// writer and, into Redis and PostgreSQL, with JOBS parallel writers (--jobs; default: the CLI's, one per core, 2 to 8). The runs
// are interleaved (ckpt, ckpt --jobs, raw write, raw copy, per target, REPS times, each into a fresh target) and each
// ratio is the median of the per-round ratios, which is robust to load changing on a shared machine. CLUSTER=redis://…
// adds a file → Redis Cluster row. Then peak memory (max RSS of a child process) migrating 10x more.
// Run: npm run build && node bench/migrate.mjs        (N=10000 by default; BIG=100000; REPS=5; JOBS=n)
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { openSaver } from "../dist/savers/index.js";
import { migrate } from "../dist/engines/ckpt/migrate.js";
import { openCheckPool } from "../dist/cli/check-pool.js";
import { from as copyFrom } from "pg-copy-streams";
import { READ_AHEAD } from "../dist/savers/file.js";

// READ_AHEAD=always|never|idle: the folder reader worker (default idle: only when a core is idle, as the CLI runs)
if (process.env.READ_AHEAD) READ_AHEAD.when = process.env.READ_AHEAD;

const N = Number(process.env.N ?? 10_000);
const BIG = Number(process.env.BIG ?? 100_000);
const REPS = Number(process.env.REPS ?? 5);
const JOBS = Number(process.env.JOBS ?? Math.max(2, Math.min(8, availableParallelism()))); // the CLI's default (cli/commands/migrate.ts defaultJobs)
const CLUSTER = process.env.CLUSTER;
const root = join(fileURLToPath(import.meta.url), "..", "..");
const sample = JSON.parse(readFileSync(join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json"), "utf8"));
const run = Math.random().toString(36).slice(2, 8);
const REDIS = "redis://127.0.0.1:6379";
const PG = "postgres://postgres@127.0.0.1:5432/test";
let seq = 0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function makeSource(n) {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-mig-"));
  for (let i = 0; i < n; i++) {
    const id = `thread-${i}`;
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...sample, threadId: id, step: i }, null, 2));
  }
  return dir;
}

/** Read the source as a raw copy would: every file's text keyed by its stem; `compact` for the Redis layout. */
function loadAll(dir, compact) {
  return readdirSync(dir).map((f) => {
    const text = readFileSync(join(dir, f), "utf8");
    return { id: f.slice(0, -5), text: compact ? JSON.stringify(JSON.parse(text)) : text };
  });
}

/** Time `write(records)` alone (records read beforehand) and read + write (the raw copy). */
async function rawPair(src, compact, write) {
  const records = loadAll(src, compact);
  const writeMs = await write(records);
  const t = performance.now();
  const again = loadAll(src, compact);
  const readMs = performance.now() - t;
  const copyMs = readMs + (await write(again));
  return { writeMs, copyMs };
}

async function timeMigrate(src, uriFor, jobs = 1) {
  const source = await openSaver(`file:${src}`);
  const uri = uriFor(++seq);
  const target = await openSaver(uri);
  const writers = [];
  for (let i = 1; i < jobs; i++) writers.push(await openSaver(uri));
  const t = performance.now();
  const s = await migrate(source, target, {
    batchSize: 500,
    worker: process.env.WORKER ?? "auto",
    openCheckPool,
    writers,
  });
  const ms = performance.now() - t;
  for (const x of [source, target, ...writers]) await x.close();
  if (s.written !== N || s.verified !== N)
    throw new Error(`migrate wrote ${s.written}, verified ${s.verified} of ${N}`);
  workerRuns.push(s.checkedInWorker);
  return ms;
}
/** per ckpt run: whether its checks ran in the worker (WORKER=auto starts it only when two cores are idle) */
const workerRuns = [];

async function rawRedis(records, url = REDIS) {
  seq++;
  const { Redis, Cluster } = await import("ioredis");
  const cluster = url !== REDIS;
  const c = cluster ? new Cluster([url], { enableAutoPipelining: true }) : new Redis(url);
  const t = performance.now();
  for (let i = 0; i < records.length; i += 500) {
    const chunk = records.slice(i, i + 500);
    const key = (r) => `bench-raw-${run}-${seq}:default:checkpoints:${r.id}`;
    if (cluster)
      await Promise.all(chunk.map((r) => c.set(key(r), r.text))); // auto-pipelined per node
    else {
      const p = c.pipeline();
      for (const r of chunk) p.set(key(r), r.text);
      await p.exec();
    }
  }
  const ms = performance.now() - t;
  for (const node of cluster ? c.nodes("master") : [c]) {
    let cursor = "0";
    do {
      const [next, ks] = await node.scan(cursor, "MATCH", `bench-*${run}*`, "COUNT", 5000);
      cursor = next;
      await Promise.all(ks.map((k) => c.del(k)));
    } while (cursor !== "0");
  }
  c.disconnect();
  return ms;
}

/** The same row ckpt's SQLite store writes (schema version 2: the document, its UTF-8 size and the write time), as bench/million's raw copy does. */
async function rawSqlite(records, dir) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(join(dir, `raw-${++seq}.db`));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE t (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (namespace, thread_id))",
  );
  const ins = db.prepare("INSERT INTO t VALUES ('default', ?, ?, ?, ?)");
  const t = performance.now();
  db.transaction(() => {
    const now = new Date().toISOString();
    for (const r of records) ins.run(r.id, Buffer.byteLength(r.text), now, r.text);
  })();
  const ms = performance.now() - t;
  db.close();
  return ms;
}

/**
 * Rows in COPY's binary format (PostgreSQL docs, "COPY — Binary Format"): the 19-byte header, then per row a 16-bit
 * field count and each field as a 32-bit length and its bytes (text: UTF-8; integer: 4 bytes big-endian), then the
 * trailer -1. ckpt's saver loads new rows this way, so the raw copy does too (the issue: "give the raw copy the same
 * advantage"). Written here from the format's description, not taken from ckpt's code.
 */
function copyBinaryRows(rows) {
  const parts = [Buffer.from("PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0", "latin1")];
  const field = (buf) => {
    const h = Buffer.allocUnsafe(4);
    h.writeInt32BE(buf.length);
    parts.push(h, buf);
  };
  for (const r of rows) {
    const count = Buffer.allocUnsafe(2);
    count.writeInt16BE(4);
    parts.push(count);
    field(Buffer.from("default"));
    field(Buffer.from(r.id));
    const doc = Buffer.from(r.text);
    field(doc);
    const n = Buffer.allocUnsafe(4);
    n.writeInt32BE(doc.length);
    field(n);
  }
  const end = Buffer.allocUnsafe(2);
  end.writeInt16BE(-1);
  parts.push(end);
  return Buffer.concat(parts);
}

async function rawPostgres(records) {
  seq++;
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const table = `bench_raw_${run}_${seq}`;
  await c.query(
    `CREATE TABLE ${table} (namespace text, thread_id text COLLATE "C", doc text NOT NULL, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, thread_id))`,
  );
  const t = performance.now();
  await c.query("BEGIN");
  for (let i = 0; i < records.length; i += 500) {
    const stream = c.query(copyFrom(`COPY ${table} (namespace, thread_id, doc, bytes) FROM STDIN (FORMAT binary)`));
    const done = new Promise((resolve, reject) => (stream.on("finish", resolve), stream.on("error", reject)));
    stream.end(copyBinaryRows(records.slice(i, i + 500)));
    await done;
  }
  await c.query("COMMIT");
  const ms = performance.now() - t;
  await c.query(`DROP TABLE ${table}`);
  await c.end();
  return ms;
}

/** Peak RSS of a child process (old space capped at 96 MB) migrating `n` checkpoints file → sqlite. */
function peakRss(n) {
  const src = makeSource(n);
  const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-rss-"));
  const code = `
    import { openSaver } from ${JSON.stringify(join(root, "dist", "savers", "index.js"))};
    import { migrate } from ${JSON.stringify(join(root, "dist", "engines", "ckpt", "migrate.js"))};
    const s = await openSaver(${JSON.stringify("file:" + src)});
    const t = await openSaver(${JSON.stringify("sqlite:" + join(dir, "t.db"))});
    const r = await migrate(s, t, { batchSize: 500 });
    await s.close(); await t.close();
    console.log(JSON.stringify({ written: r.written, maxRssKb: process.resourceUsage().maxRSS }));`;
  const t = performance.now();
  // A capped old space (96 MB) proves the live set is bounded: a migration that kept every record would fail here.
  // Without the cap V8 on a 24 GB machine lets garbage pile up and peak RSS measures GC laziness, not retention.
  const out = spawnSync(process.execPath, ["--max-old-space-size=96", "--input-type=module", "-e", code], {
    encoding: "utf8",
  });
  const ms = performance.now() - t;
  rmSync(src, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  if (out.status !== 0) throw new Error(out.stderr);
  return { ...JSON.parse(out.stdout.trim().split("\n").pop()), ms };
}

const src = makeSource(N);
const bytes = loadAll(src, false).reduce((n, r) => n + Buffer.byteLength(r.text), 0);
const work = mkdtempSync(join(tmpdir(), "ckpt-bench-work-"));
const pairs = [
  {
    name: "file → redis",
    uriFor: (k) => `${REDIS}?prefix=bench-ckpt-${run}-${k}:`,
    compact: true,
    raw: (r) => rawRedis(r),
    jobs: true,
  },
  {
    name: "file → sqlite",
    uriFor: (k) => `sqlite:${join(work, `ckpt-${k}.db`)}`,
    compact: false,
    raw: (r) => rawSqlite(r, work),
    jobs: false,
  },
  {
    name: "file → postgres",
    uriFor: (k) => `${PG}?schema=bench_ckpt_${run}_${k}`,
    compact: false,
    raw: rawPostgres,
    jobs: true,
  },
];
if (CLUSTER)
  pairs.push({
    name: "file → redis cluster",
    uriFor: (k) => `${CLUSTER}?cluster=1&prefix=bench-ckpt-${run}-${k}:`,
    compact: true,
    raw: (r) => rawRedis(r, CLUSTER),
    jobs: true,
  });
/** The least work any checked migration does before writing anything: read every source file and JSON.parse it. */
function floorMs() {
  const t = performance.now();
  for (const f of readdirSync(src)) JSON.parse(readFileSync(join(src, f), "utf8"));
  return performance.now() - t;
}
const rounds = Object.fromEntries(pairs.map((p) => [p.name, []]));
const floors = [];
try {
  await timeMigrate(src, () => "memory:bench-warmup"); // warm-up: JIT and module loading, into memory
  for (let i = 0; i < REPS; i++) {
    for (const p of pairs) {
      const one = await timeMigrate(src, p.uriFor);
      const many = p.jobs ? await timeMigrate(src, p.uriFor, JOBS) : undefined;
      const r = await rawPair(src, p.compact, p.raw);
      rounds[p.name].push({ one, many, write: r.writeMs, copy: r.copyMs });
    }
    floors.push(floorMs());
  }
} finally {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const { rows: schemas } = await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [
    `bench_ckpt_${run}_%`,
  ]);
  for (const { nspname } of schemas) await c.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  await c.end();
  await rawRedis([]); // deletes the bench keys of this run
  if (CLUSTER) await rawRedis([], CLUSTER);
  rmSync(src, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
const floor = median(floors);
console.log(
  `${N} checkpoints, ${(bytes / 1e6).toFixed(1)} MB as stored in the folder (2-space JSON); medians of ${REPS} interleaved rounds (ratios: median of per-round ratios)`,
);
console.log(
  `pair                   ckpt (1 writer)  ckpt (--jobs ${JOBS})  raw write  raw copy   ratio to raw copy: 1 writer, --jobs ${JOBS} (target >= 0.6)   to raw write   floor ratio to raw copy`,
);
const result = {
  bench: "migrate",
  checkpoints: N,
  bytes,
  reps: REPS,
  jobs: JOBS,
  floorMs: +floor.toFixed(1),
  pairs: {},
};
const fix = (x, d = 3) => (x === undefined ? undefined : +x.toFixed(d));
for (const p of pairs) {
  const rs = rounds[p.name];
  const one = median(rs.map((r) => r.one));
  const many = p.jobs ? median(rs.map((r) => r.many)) : undefined;
  const write = median(rs.map((r) => r.write));
  const copy = median(rs.map((r) => r.copy));
  const ratioOne = median(rs.map((r) => r.copy / r.one));
  const ratioMany = p.jobs ? median(rs.map((r) => r.copy / r.many)) : undefined;
  // the floor of a checked migration on one thread: the raw copy plus parsing every source document once
  const floorRatio = median(rs.map((r, i) => r.copy / (r.copy + floors[i])));
  console.log(
    `${p.name.padEnd(22)} ${one.toFixed(0).padStart(10)} ms ${many === undefined ? "           -" : `${many.toFixed(0).padStart(10)} ms`} ${write.toFixed(0).padStart(8)} ms ${copy.toFixed(0).padStart(7)} ms ${ratioOne.toFixed(2).padStart(22)}, ${ratioMany === undefined ? "   -" : ratioMany.toFixed(2).padStart(4)} ${(write / one).toFixed(2).padStart(30)} ${floorRatio.toFixed(2).padStart(20)}`,
  );
  result.pairs[p.name] = {
    ckptMs: fix(one, 1),
    ckptJobsMs: fix(many, 1),
    rawWriteMs: fix(write, 1),
    rawCopyMs: fix(copy, 1),
    ratioToRawCopy: fix(ratioOne),
    ratioToRawCopyJobs: fix(ratioMany),
    ratioToRawWrite: fix(write / one),
    floorRatioToRawCopy: fix(floorRatio),
    recordsPerSecond: Math.round((N / one) * 1000),
    recordsPerSecondJobs: many === undefined ? undefined : Math.round((N / many) * 1000),
  };
}
console.log(
  `floor: reading + JSON.parse of the ${N} source files takes ${floor.toFixed(0)} ms; a checked migration on one thread cannot beat raw copy + that`,
);
const inWorker = workerRuns.slice(1).filter(Boolean).length; // the first is the warm-up
console.log(
  `checks in the worker thread in ${inWorker} of ${workerRuns.length - 1} ckpt runs (WORKER=${process.env.WORKER ?? "auto"}; auto: only when two cores are idle, 1-minute load average ≤ cores − 2: ${(await import("node:os")).loadavg()[0].toFixed(1)} now); folder read-ahead: ${READ_AHEAD.when}`,
);
result.checksInWorker = { runs: workerRuns.length - 1, inWorker };
const small = peakRss(N);
const big = peakRss(BIG);
const memRatio = big.maxRssKb / small.maxRssKb;
console.log(
  `peak RSS migrating ${N}: ${(small.maxRssKb / 1024).toFixed(0)} MB; ${BIG}: ${(big.maxRssKb / 1024).toFixed(0)} MB (${(big.ms / 1000).toFixed(1)} s) → ratio ${memRatio.toFixed(2)} (target <= 1.5)`,
);
result.memory = {
  smallMb: +(small.maxRssKb / 1024).toFixed(1),
  bigMb: +(big.maxRssKb / 1024).toFixed(1),
  ratio: +memRatio.toFixed(3),
  bigCheckpoints: BIG,
};
console.log(JSON.stringify(result));
