// LangGraph write side: `ckpt migrate` of 200,000 LangGraph checkpoints SQLite → PostgreSQL (whole histories,
// channel values split into checkpoint_blobs as the Python library writes them, journal, read-back verification)
// against raw copies of the same rows with the same clients (better-sqlite3 → pg, keyset pages of 500): one with unnest
// multi-row INSERTs, one with COPY (pg-copy-streams, what ckpt uses for new rows) — the ratio against the COPY copy
// is the headline; all as whole processes; then `ckpt prune --keep-last 1` of the 200,000
// on both stores, with time and bytes freed; peak RSS at 20,000 vs 200,000 checkpoints (flat = bounded by the batch).
// Env: LG_BENCH_N (default 200000), PGURL (default postgres://postgres@127.0.0.1:5432/test).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const N = Number(process.env.LG_BENCH_N ?? 200000);
const PG = process.env.PGURL ?? "postgres://postgres@127.0.0.1:5432/test";
const work = mkdtempSync(join(tmpdir(), "ckpt-lgw-bench-"));
const run = Math.random().toString(16).slice(2, 8);
const client = new pg.Client({ connectionString: PG });
await client.connect();
const schemas = [];

/** A Python-written store (fixtures/langgraph/python-a.sqlite, 60 checkpoints / 91 writes) copied under new thread ids up to n checkpoints. */
function makeStore(n) {
  const f = join(work, `src-${n}.sqlite`);
  copyFileSync(join(root, "fixtures", "langgraph", "python-a.sqlite"), f);
  const db = new Database(f);
  db.pragma("journal_mode = WAL");
  const copies = Math.ceil(n / 60);
  db.exec(
    "CREATE TEMP TABLE c0 AS SELECT * FROM checkpoints; CREATE TEMP TABLE w0 AS SELECT * FROM writes; DELETE FROM checkpoints; DELETE FROM writes;",
  );
  const ic = db.prepare(
    "INSERT INTO checkpoints SELECT thread_id || ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM c0",
  );
  const iw = db.prepare(
    "INSERT INTO writes SELECT thread_id || ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM w0",
  );
  db.transaction(() => {
    for (let i = 0; i < copies; i++) ic.run(`~${i}`), iw.run(`~${i}`);
  })();
  db.exec(
    `DELETE FROM checkpoints WHERE rowid IN (SELECT rowid FROM checkpoints ORDER BY rowid DESC LIMIT ${copies * 60 - n})`,
  );
  db.exec(
    "DELETE FROM writes WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)",
  );
  const rows = db.prepare("SELECT (SELECT count(*) FROM checkpoints) c, (SELECT count(*) FROM writes) w").get();
  db.close();
  return { f, ...rows };
}

/** Whole process, timed, with peak RSS (GNU time). */
function proc(args, label) {
  const t = existsSync("/usr/bin/time");
  const cmd = t ? "/usr/bin/time" : process.execPath;
  const argv = t ? ["-f", "__RSS__ %M", process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { cwd: work, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${label} exited ${r.status}: ${r.stderr}\n${r.stdout.slice(-2000)}`);
  const rss = Number(/__RSS__ (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
  return { ms, rssMb: rss, out: r.stdout };
}

const RAW = `
import Database from "better-sqlite3"; import pg from "pg";
const [file, url, schema] = process.argv.slice(2);
const db = new Database(file, { readonly: true }); const c = new pg.Client({ connectionString: url }); await c.connect();
const S = '"' + schema + '".';
await c.query('CREATE SCHEMA ' + schema);
await c.query('CREATE TABLE ' + S + 'checkpoints (thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, type text, checkpoint bytea, metadata bytea, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))');
await c.query('CREATE TABLE ' + S + 'writes (thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, idx int, channel text, type text, value bytea, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))');
const page = db.prepare("SELECT * FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT 500");
const ws = db.prepare("SELECT * FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) >= (?, ?, ?) AND (thread_id, checkpoint_ns, checkpoint_id) <= (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx");
let after = ["", "", ""];
for (;;) {
  const rows = page.all(...after); if (!rows.length) break;
  const a = rows[0], z = rows[rows.length - 1]; after = [z.thread_id, z.checkpoint_ns, z.checkpoint_id];
  const w = ws.all(a.thread_id, a.checkpoint_ns, a.checkpoint_id, z.thread_id, z.checkpoint_ns, z.checkpoint_id);
  await c.query('BEGIN');
  await c.query('INSERT INTO ' + S + 'checkpoints SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::bytea[])',
    [rows.map(r => r.thread_id), rows.map(r => r.checkpoint_ns), rows.map(r => r.checkpoint_id), rows.map(r => r.parent_checkpoint_id), rows.map(r => r.type), rows.map(r => r.checkpoint), rows.map(r => r.metadata)]);
  if (w.length) await c.query('INSERT INTO ' + S + 'writes SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[])',
    [w.map(r => r.thread_id), w.map(r => r.checkpoint_ns), w.map(r => r.checkpoint_id), w.map(r => r.task_id), w.map(r => r.idx), w.map(r => r.channel), w.map(r => r.type), w.map(r => r.value ?? Buffer.alloc(0))]);
  await c.query('COMMIT');
}
await c.end(); db.close();
`;
writeFileSync(join(work, "raw-copy.mjs"), RAW);
const RAW_COPY = `
import Database from "better-sqlite3"; import pg from "pg"; import { from } from "pg-copy-streams";
const [file, url, schema] = process.argv.slice(2);
const db = new Database(file, { readonly: true }); const c = new pg.Client({ connectionString: url }); await c.connect();
const S = '"' + schema + '".';
await c.query('CREATE SCHEMA ' + schema);
await c.query('CREATE TABLE ' + S + 'checkpoints (thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, type text, checkpoint bytea, metadata bytea, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))');
await c.query('CREATE TABLE ' + S + 'writes (thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, idx int, channel text, type text, value bytea, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))');
const page = db.prepare("SELECT * FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT 500");
const ws = db.prepare("SELECT * FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) >= (?, ?, ?) AND (thread_id, checkpoint_ns, checkpoint_id) <= (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx");
const t = (v) => (v === null ? "\\\\N" : String(v).replace(/[\\\\\\n\\r\\t]/g, (x) => (x === "\\\\" ? "\\\\\\\\" : x === "\\n" ? "\\\\n" : x === "\\r" ? "\\\\r" : "\\\\t")));
const b = (v) => (v === null ? "\\\\N" : "\\\\\\\\x" + Buffer.from(v).toString("hex"));
const copy = async (target, text) => { const st = c.query(from("COPY " + target + " FROM STDIN")); await new Promise((res, rej) => { st.on("finish", res); st.on("error", rej); st.end(text); }); };
let after = ["", "", ""];
for (;;) {
  const rows = page.all(...after); if (!rows.length) break;
  const a = rows[0], z = rows[rows.length - 1]; after = [z.thread_id, z.checkpoint_ns, z.checkpoint_id];
  const w = ws.all(a.thread_id, a.checkpoint_ns, a.checkpoint_id, z.thread_id, z.checkpoint_ns, z.checkpoint_id);
  await c.query('BEGIN');
  await copy(S + 'checkpoints', rows.map((r) => [t(r.thread_id), t(r.checkpoint_ns), t(r.checkpoint_id), t(r.parent_checkpoint_id), t(r.type), b(r.checkpoint), b(r.metadata)].join("\\t") + "\\n").join(""));
  if (w.length) await copy(S + 'writes', w.map((r) => [t(r.thread_id), t(r.checkpoint_ns), t(r.checkpoint_id), t(r.task_id), r.idx, t(r.channel), t(r.type), b(r.value ?? Buffer.alloc(0))].join("\\t") + "\\n").join(""));
  await c.query('COMMIT');
}
await c.end(); db.close();
`;
writeFileSync(join(work, "raw-copy-copy.mjs"), RAW_COPY);

// resolve better-sqlite3 / pg from the project
spawnSync("ln", ["-s", join(root, "node_modules"), join(work, "node_modules")]);

const ckpt = join(root, "bin", "ckpt.js");
const schema = (n) => (schemas.push(`lgbench_${run}_${n}`), `lgbench_${run}_${n}`);
const report = {};
try {
  for (const n of [Math.round(N / 10), N]) {
    const src = makeStore(n);
    console.log(
      `store: ${src.c.toLocaleString()} checkpoints, ${src.w.toLocaleString()} writes (Python-written rows, msgpack)`,
    );
    const raw = proc([join(work, "raw-copy.mjs"), src.f, PG, schema(`raw${n}`)], "raw copy");
    const rawCopy = proc([join(work, "raw-copy-copy.mjs"), src.f, PG, schema(`rawc${n}`)], "raw copy (COPY)");
    const sVer = schema(`v${n}`);
    const ver = proc(
      [
        ckpt,
        "migrate",
        "--from",
        `sqlite:${src.f}`,
        "--to",
        `${PG}?schema=${sVer}`,
        "--batch-size",
        "500",
        "--json",
        "--journal",
        join(work, `j${n}`),
      ],
      "ckpt migrate",
    );
    const sNo = schema(`nv${n}`);
    const nov = proc(
      [
        ckpt,
        "migrate",
        "--from",
        `sqlite:${src.f}`,
        "--to",
        `${PG}?schema=${sNo}`,
        "--batch-size",
        "500",
        "--no-verify",
        "--json",
        "--journal",
        join(work, `k${n}`),
      ],
      "ckpt migrate --no-verify",
    );
    const sum = JSON.parse(ver.out.trim().split("\n").pop());
    if (sum.written !== n || sum.verified !== n)
      throw new Error(`migrate wrote ${sum.written}, verified ${sum.verified} of ${n}`);
    const r = {
      n,
      rawMs: Math.round(raw.ms),
      rawCopyMs: Math.round(rawCopy.ms),
      ckptMs: Math.round(ver.ms),
      ckptNoVerifyMs: Math.round(nov.ms),
      ratio: +(rawCopy.ms / ver.ms).toFixed(2),
      ratioVsInsert: +(raw.ms / ver.ms).toFixed(2),
      ratioNoVerify: +(rawCopy.ms / nov.ms).toFixed(2),
      rawRssMb: Math.round(raw.rssMb),
      ckptRssMb: Math.round(ver.rssMb),
    };
    console.log(
      `migrate ${n.toLocaleString()} SQLite → PostgreSQL: raw copy ${(rawCopy.ms / 1000).toFixed(1)} s with COPY, ${(raw.ms / 1000).toFixed(1)} s with INSERT; ckpt ${(ver.ms / 1000).toFixed(1)} s (ratio ${r.ratio} vs the COPY copy, ${r.ratioVsInsert} vs the INSERT copy), --no-verify ${(nov.ms / 1000).toFixed(1)} s (ratio ${r.ratioNoVerify}); peak RSS raw ${r.rawRssMb} MB, ckpt ${r.ckptRssMb} MB`,
    );
    // prune to --keep-last 1 on both stores
    const pSql = proc([ckpt, "prune", `sqlite:${src.f}`, "--keep-last", "1", "--json"], "prune sqlite");
    const pPg = proc([ckpt, "prune", `${PG}?schema=${sVer}`, "--keep-last", "1", "--json"], "prune pg");
    // the same prune of the --no-verify copy with V8's heap capped (old space 64 MB, semi-space 1 MB): it completes only if what prune keeps
    // is bounded, and its peak RSS is then what prune needs, not how far V8 lets garbage grow on a 24 GB machine
    const pCap = proc(
      [
        "--max-old-space-size=64",
        "--max-semi-space-size=1",
        ckpt,
        "prune",
        `${PG}?schema=${sNo}`,
        "--keep-last",
        "1",
        "--json",
      ],
      "prune pg (capped heap)",
    );
    const js = JSON.parse(pSql.out),
      jp = JSON.parse(pPg.out),
      jc = JSON.parse(pCap.out);
    if (jc.checkpoints !== jp.checkpoints || jc.blobs !== jp.blobs)
      throw new Error(
        `capped prune deleted ${jc.checkpoints} checkpoints / ${jc.blobs} blobs, uncapped ${jp.checkpoints} / ${jp.blobs}`,
      );
    Object.assign(r, {
      pruneSqliteMs: Math.round(pSql.ms),
      pruneSqliteDeleted: js.checkpoints,
      pruneSqliteMb: +(js.bytes / 1e6).toFixed(1),
      prunePgMs: Math.round(pPg.ms),
      prunePgDeleted: jp.checkpoints,
      prunePgMb: +(jp.bytes / 1e6).toFixed(1),
      prunePgBlobs: jp.blobs,
      pruneRssMb: Math.round(Math.max(pSql.rssMb, pPg.rssMb)),
      pruneRssSqliteMb: Math.round(pSql.rssMb),
      pruneRssPgMb: Math.round(pPg.rssMb),
      pruneRssPgCappedMb: Math.round(pCap.rssMb),
    });
    console.log(
      `prune --keep-last 1: SQLite ${(pSql.ms / 1000).toFixed(1)} s, ${js.checkpoints.toLocaleString()} checkpoints + ${js.writes.toLocaleString()} writes, ${(js.bytes / 1e6).toFixed(1)} MB freed; PostgreSQL ${(pPg.ms / 1000).toFixed(1)} s, ${jp.checkpoints.toLocaleString()} checkpoints + ${jp.writes.toLocaleString()} writes + ${jp.blobs.toLocaleString()} blobs, ${(jp.bytes / 1e6).toFixed(1)} MB freed; peak RSS SQLite ${r.pruneRssSqliteMb} MB, PostgreSQL ${r.pruneRssPgMb} MB (${r.pruneRssPgCappedMb} MB with V8's heap capped: old space 64 MB, semi-space 1 MB, ${(pCap.ms / 1000).toFixed(1)} s)`,
    );
    report[n] = r;
  }
} finally {
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
  rmSync(work, { recursive: true, force: true });
}
const big = report[N],
  small = report[Math.round(N / 10)];
console.log(
  JSON.stringify({
    bench: "langgraph-write",
    checkpoints: N,
    migrateRatio: big.ratio,
    migrateRatioVsInsert: big.ratioVsInsert,
    migrateRatioNoVerify: big.ratioNoVerify,
    rawMs: big.rawMs,
    rawCopyMs: big.rawCopyMs,
    ckptMs: big.ckptMs,
    ckptRssMb: { [small.n]: small.ckptRssMb, [N]: big.ckptRssMb },
    pruneSqliteMs: big.pruneSqliteMs,
    pruneSqliteMb: big.pruneSqliteMb,
    prunePgMs: big.prunePgMs,
    prunePgMb: big.prunePgMb,
    pruneRssMb: { [small.n]: small.pruneRssMb, [N]: big.pruneRssMb },
    pruneRssByStoreMb: Object.fromEntries(
      ["Sqlite", "Pg", "PgCapped"].map((k) => [k, { [small.n]: small[`pruneRss${k}Mb`], [N]: big[`pruneRss${k}Mb`] }]),
    ),
  }),
);
