// bench/migrate: `ckpt migrate` of N deep-agent checkpoints from a FileSaver folder into Redis, SQLite and PostgreSQL,
// each compared in the same run with two raw baselines that use the same client and store the same bytes ckpt stores
// (Redis: compact JSON, the KeyValueStoreSaver layout; SQLite and PostgreSQL: the document text as given):
//   - raw write: the records already in memory, written with one pipelined SET each (Redis), one transaction of
//     prepared inserts (SQLite), multi-row INSERTs in one transaction (PostgreSQL) — the issue's baseline;
//   - raw copy: the same, plus reading the same source folder (readdir + readFileSync of every file, and for Redis the
//     compact re-serialization), i.e. the least work any file → store copy does.
// ckpt does more than either: every record is parsed, its format detected and checked against the format's schema,
// conflicts are looked up in the target, and every written record is read back and compared. Each figure is the
// median of REPS runs, each into a fresh target. Then peak memory (max RSS of a child process) migrating 10x more.
// Run: npm run build && node bench/migrate.mjs        (N=10000 by default; BIG=100000; REPS=3)
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { openSaver } from "../dist/savers/index.js";
import { migrate } from "../dist/core/migrate.js";
import { openCheckPool } from "../dist/cli/check-pool.js";

const N = Number(process.env.N ?? 10_000);
const BIG = Number(process.env.BIG ?? 100_000);
const REPS = Number(process.env.REPS ?? 3);
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

async function timeMigrate(src, uriFor) {
  const source = await openSaver(`file:${src}`);
  const target = await openSaver(uriFor(++seq));
  const t = performance.now();
  const s = await migrate(source, target, { batchSize: 500, worker: process.env.WORKER ?? "auto", openCheckPool });
  const ms = performance.now() - t;
  await source.close();
  await target.close();
  if (s.written !== N || s.verified !== N) throw new Error(`migrate wrote ${s.written}, verified ${s.verified} of ${N}`);
  return ms;
}

async function rawRedis(records) {
  seq++;
  const { Redis } = await import("ioredis");
  const c = new Redis(REDIS);
  const t = performance.now();
  for (let i = 0; i < records.length; i += 500) {
    const p = c.pipeline();
    for (const r of records.slice(i, i + 500)) p.set(`bench-raw-${run}-${seq}:default:checkpoints:${r.id}`, r.text);
    await p.exec();
  }
  const ms = performance.now() - t;
  const keys = [];
  let cursor = "0";
  do {
    const [next, ks] = await c.scan(cursor, "MATCH", `bench-*${run}*`, "COUNT", 5000);
    cursor = next;
    keys.push(...ks);
  } while (cursor !== "0");
  for (let i = 0; i < keys.length; i += 1000) await c.del(...keys.slice(i, i + 1000));
  c.disconnect();
  return ms;
}

async function rawSqlite(records, dir) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(join(dir, `raw-${++seq}.db`));
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (namespace, thread_id))");
  const ins = db.prepare("INSERT INTO t VALUES ('default', ?, ?)");
  const t = performance.now();
  db.transaction(() => {
    for (const r of records) ins.run(r.id, r.text);
  })();
  const ms = performance.now() - t;
  db.close();
  return ms;
}

async function rawPostgres(records) {
  seq++;
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`CREATE TABLE bench_raw_${run}_${seq} (namespace text, thread_id text, doc text, PRIMARY KEY (namespace, thread_id))`);
  const t = performance.now();
  await c.query("BEGIN");
  for (let i = 0; i < records.length; i += 500) {
    const chunk = records.slice(i, i + 500);
    const vals = [];
    const rows = chunk.map((r, k) => (vals.push(r.id, r.text), `('default', $${2 * k + 1}, $${2 * k + 2})`));
    await c.query(`INSERT INTO bench_raw_${run}_${seq} VALUES ${rows.join(",")}`, vals);
  }
  await c.query("COMMIT");
  const ms = performance.now() - t;
  await c.query(`DROP TABLE bench_raw_${run}_${seq}`);
  await c.end();
  return ms;
}

/** Peak RSS of a child process (old space capped at 96 MB) migrating `n` checkpoints file → sqlite. */
function peakRss(n) {
  const src = makeSource(n);
  const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-rss-"));
  const code = `
    import { openSaver } from ${JSON.stringify(join(root, "dist", "savers", "index.js"))};
    import { migrate } from ${JSON.stringify(join(root, "dist", "core", "migrate.js"))};
    const s = await openSaver(${JSON.stringify("file:" + src)});
    const t = await openSaver(${JSON.stringify("sqlite:" + join(dir, "t.db"))});
    const r = await migrate(s, t, { batchSize: 500 });
    await s.close(); await t.close();
    console.log(JSON.stringify({ written: r.written, maxRssKb: process.resourceUsage().maxRSS }));`;
  const t = performance.now();
  // A capped old space (96 MB) proves the live set is bounded: a migration that kept every record would fail here.
  // Without the cap V8 on a 24 GB machine lets garbage pile up and peak RSS measures GC laziness, not retention.
  const out = spawnSync(process.execPath, ["--max-old-space-size=96", "--input-type=module", "-e", code], { encoding: "utf8" });
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
  ["file → redis", (k) => `${REDIS}?prefix=bench-ckpt-${run}-${k}:`, true, rawRedis],
  ["file → sqlite", (k) => `sqlite:${join(work, `ckpt-${k}.db`)}`, false, (r) => rawSqlite(r, work)],
  ["file → postgres", (k) => `${PG}?schema=bench_ckpt_${run}_${k}`, false, rawPostgres],
];
const rows = [];
/** The least work any checked migration does before writing anything: read every source file and JSON.parse it. */
function floorMs() {
  const t = performance.now();
  for (const f of readdirSync(src)) JSON.parse(readFileSync(join(src, f), "utf8"));
  return performance.now() - t;
}
const floors = [];
try {
  await timeMigrate(src, () => "memory:bench-warmup"); // warm-up: JIT and module loading, into memory
  for (const [name, uriFor, compact, write] of pairs) {
    const ckpt = [], rawW = [], rawC = [];
    for (let i = 0; i < REPS; i++) {
      ckpt.push(await timeMigrate(src, uriFor));
      const r = await rawPair(src, compact, write);
      rawW.push(r.writeMs);
      rawC.push(r.copyMs);
      floors.push(floorMs());
    }
    rows.push([name, median(ckpt), median(rawW), median(rawC)]);
  }
} finally {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const { rows: schemas } = await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`bench_ckpt_${run}_%`]);
  for (const { nspname } of schemas) await c.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  const { rows: tables } = await c.query(`SELECT tablename FROM pg_tables WHERE tablename LIKE $1`, [`bench_raw_${run}_%`]);
  for (const { tablename } of tables) await c.query(`DROP TABLE IF EXISTS "${tablename}"`);
  await c.end();
  await rawRedis([]); // deletes the bench keys of this run
  rmSync(src, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
console.log(`${N} checkpoints, ${(bytes / 1e6).toFixed(1)} MB as stored in the folder (2-space JSON); medians of ${REPS} runs`);
console.log("pair               ckpt migrate   raw write   raw copy   ratio to raw write (issue's target >= 0.5)   ratio to raw copy   ckpt records/s");
const floor = median(floors);
const result = { bench: "migrate", checkpoints: N, bytes, reps: REPS, floorMs: +floor.toFixed(1), pairs: {} };
for (const [name, ms, raw, copy] of rows) {
  const ratio = raw / ms;
  const copyRatio = copy / ms;
  console.log(
    `${name.padEnd(18)} ${ms.toFixed(0).padStart(9)} ms ${raw.toFixed(0).padStart(8)} ms ${copy.toFixed(0).padStart(7)} ms ${ratio.toFixed(2).padStart(20)} ${copyRatio.toFixed(2).padStart(32)}   ${Math.round((N / ms) * 1000).toString().padStart(12)}`,
  );
  result.pairs[name] = {
    ckptMs: +ms.toFixed(1), rawWriteMs: +raw.toFixed(1), rawCopyMs: +copy.toFixed(1), ratioToRawWrite: +ratio.toFixed(3), ratioToRawCopy: +copyRatio.toFixed(3),
    floorRatioToRawWrite: +(raw / (floor + raw)).toFixed(3),
  };
}
// The floor of any checked file → store migration: read and parse every source file, then the raw write itself.
console.log(
  `floor: reading + JSON.parse of the ${N} source files takes ${floor.toFixed(0)} ms; that plus the raw write (no schema check, ` +
    `no conflict lookup, no read-back) as a ratio to the raw write: ${rows.map(([name, , raw]) => `${name.slice(7)} ${(raw / (floor + raw)).toFixed(2)}`).join(", ")}`,
);
const small = peakRss(N);
const big = peakRss(BIG);
const memRatio = big.maxRssKb / small.maxRssKb;
console.log(`peak RSS migrating ${N}: ${(small.maxRssKb / 1024).toFixed(0)} MB; ${BIG}: ${(big.maxRssKb / 1024).toFixed(0)} MB (${(big.ms / 1000).toFixed(1)} s) → ratio ${memRatio.toFixed(2)} (target <= 1.5)`);
result.memory = { smallMb: +(small.maxRssKb / 1024).toFixed(1), bigMb: +(big.maxRssKb / 1024).toFixed(1), ratio: +memRatio.toFixed(3), bigCheckpoints: BIG };
console.log(JSON.stringify(result));
