// bench/million: `ckpt migrate` of 1,000,000 deep-agent checkpoints (a FileSaver folder) into SQLite and PostgreSQL,
// as whole processes (node bin/ckpt.js): the time, the peak RSS (/usr/bin/time %M: the process with its check worker)
// against the same command on 10,000 checkpoints (target: ≤ 1.5×), and a run killed (SIGKILL) at a random point of its
// journal (10–90% of the records committed) and
// finished with --resume, after which the target must hold exactly the source (every document byte for byte, nothing
// more). Baseline in the same run: a raw copy of the same files into the same store (read every file, write the
// bytes in one transaction per 5,000 with the same client; PostgreSQL with binary COPY, as ckpt's saver), no checks. The memory floor: a
// process that only streams the folder (opendir, readFileSync and JSON.parse of every file, nothing kept), its peak
// RSS at 10,000 and at 1,000,000 files — what V8 alone does with the same garbage, whatever ckpt keeps.
// Run: npm run build && node bench/million.mjs     (M=1000000, SMALL=10000, TARGETS=sqlite,postgres, SEED=…, FLOOR=0 skips the floor)
// The source folder is kept in $TMPDIR/ckpt-million-<M> between runs (about 1 GB for a million); KEEP=0 removes it.
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  opendirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const M = Number(process.env.M ?? 1_000_000);
const SMALL = Number(process.env.SMALL ?? 10_000);
const TARGETS = (process.env.TARGETS ?? "sqlite,postgres").split(",");
let seed = Number(process.env.SEED ?? Date.now() % 100000);
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const root = join(fileURLToPath(import.meta.url), "..", "..");
const ckpt = join(root, "bin", "ckpt.js");
const PG = "postgres://postgres@127.0.0.1:5432/test";
const run = Math.random().toString(36).slice(2, 8);
const sample = JSON.parse(readFileSync(join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "ckpt-million-work-"));
const textOf = (i) => JSON.stringify({ ...sample, threadId: `thread-${i}`, step: i }, null, 2);

function source(n) {
  const dir = join(tmpdir(), `ckpt-million-${n}`);
  if (existsSync(join(dir, ".complete"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const t = performance.now();
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `thread-${i}.json`), textOf(i));
  writeFileSync(join(dir, ".complete"), ""); // not *.json: not a checkpoint
  console.log(`wrote ${n} source files in ${((performance.now() - t) / 1000).toFixed(0)} s (${dir})`);
  return dir;
}

let k = 0;
const targetUri = (kind) =>
  kind === "sqlite" ? `sqlite:${join(work, `t-${++k}.db`)}` : `${PG}?schema=bench_million_${run}_${++k}`;

/** One whole `ckpt migrate` process under /usr/bin/time: wall seconds and peak RSS in MB. */
function timed(args) {
  const r = spawnSync("/usr/bin/time", ["-f", "%M %e", process.execPath, ckpt, ...args], {
    cwd: work,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`ckpt ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const [kb, secs] = r.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { secs, rssMb: kb / 1024, out: r.stdout };
}

/** Records the journal names so far (one JSON line per committed record after its header line), read from `offset` on. */
function journalLines(path, state) {
  let fd;
  try {
    fd = openSync(path, "r");
  } catch {
    return state.lines;
  }
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, state.offset)) > 0; state.offset += n) {
      for (let i = 0; i < n; i++) if (buf[i] === 10) state.lines++;
    }
  } finally {
    closeSync(fd);
  }
  return state.lines;
}

/**
 * Kill a run (SIGKILL) once its journal names `atRecords` committed records — a point in the migration's own progress,
 * so the kill always lands mid-run whatever the machine's speed — then finish it with --resume; the resume's wall time.
 */
async function killAndResume(args, atRecords) {
  const journal = args[args.indexOf("--journal") + 1];
  const child = spawn(process.execPath, [ckpt, ...args], { cwd: work, stdio: "ignore" });
  const t = performance.now();
  let exitedOnItsOwn = true;
  const exited = new Promise((r) => child.on("exit", r));
  const state = { offset: 0, lines: 0 };
  const poll = setInterval(() => {
    if (journalLines(journal, state) - 1 >= atRecords) {
      exitedOnItsOwn = false;
      child.kill("SIGKILL");
      clearInterval(poll);
    }
  }, 50);
  await exited;
  clearInterval(poll);
  const killedAtSecs = (performance.now() - t) / 1000;
  const committedAtKill = Math.max(0, journalLines(journal, state) - 1);
  const killedMidRun = !exitedOnItsOwn && existsSync(journal);
  const resumed = timed([...args, ...(killedMidRun ? ["--resume"] : [])]);
  return {
    killedMidRun,
    killedAtSecs,
    committedAtKill,
    resumeSecs: resumed.secs,
    summary: resumed.out.trim().split("\n").slice(1, 2).join("").trim(),
  };
}

/** The target holds exactly the source: every thread once, each document the source file's bytes. */
async function identical(uri, src, n) {
  const { openSaver } = await import("../dist/savers/index.js");
  const s = await openSaver(uri);
  const seen = new Set();
  let bad = 0;
  let namespaces;
  try {
    namespaces = await s.namespaces();
    for await (const batch of s.scan({ namespace: "default", batchSize: 5000 })) {
      for (const r of batch) {
        if (seen.has(r.threadId)) bad++;
        seen.add(r.threadId);
        if (r.text !== readFileSync(join(src, `${r.threadId}.json`), "utf8")) bad++;
      }
    }
  } finally {
    await s.close();
  }
  return bad === 0 && seen.size === n && namespaces.join() === "default";
}

/**
 * The source's file names in the folder's own order (opendir, what ckpt's scan and any copying tool see), in groups of
 * `size`. The order matters at this size: rows inserted in hash order land all over the table's index, where names in
 * numeric order ("thread-0", "thread-1", …) would mostly append.
 */
function* inFolderOrder(dir, size) {
  const h = opendirSync(dir, { bufferSize: 256 });
  let names = [];
  try {
    for (let d = h.readSync(); d !== null; d = h.readSync()) {
      if (!d.name.endsWith(".json")) continue;
      names.push(d.name);
      if (names.length >= size) {
        yield names;
        names = [];
      }
    }
  } finally {
    h.closeSync();
  }
  if (names.length) yield names;
}

/** The raw copy: read every file in the folder's order, write its bytes, 5,000 per transaction, same client; no checks. */
async function rawCopy(kind, src, _n) {
  const t = performance.now();
  if (kind === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(work, `raw-${++k}.db`));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(
      "CREATE TABLE t (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (namespace, thread_id))",
    );
    const ins = db.prepare("INSERT INTO t VALUES ('default', ?, ?, ?, ?)");
    const tx = db.transaction((names) => {
      const now = new Date().toISOString();
      for (const name of names) {
        const text = readFileSync(join(src, name), "utf8");
        ins.run(name.slice(0, -5), Buffer.byteLength(text), now, text);
      }
    });
    for (const names of inFolderOrder(src, 5000)) tx(names);
    db.close();
  } else {
    const pg = (await import("pg")).default;
    const { from } = await import("pg-copy-streams");
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    const table = `bench_million_raw_${run}_${++k}`;
    await c.query(
      `CREATE TABLE ${table} (namespace text, thread_id text COLLATE "C", doc text NOT NULL, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, thread_id))`,
    );
    // COPY's binary format, as ckpt's saver loads new rows (PostgreSQL docs, "COPY — Binary Format"): a header, per row
    // a 16-bit field count and each field as a 32-bit length and its bytes (text: UTF-8; integer: 4 bytes), a trailer
    const field = (buf) => {
      const h = Buffer.allocUnsafe(4);
      h.writeInt32BE(buf.length);
      return [h, buf];
    };
    const int2 = (n) => {
      const b = Buffer.allocUnsafe(2);
      b.writeInt16BE(n);
      return b;
    };
    const int4 = (n) => {
      const b = Buffer.allocUnsafe(4);
      b.writeInt32BE(n);
      return b;
    };
    for (const names of inFolderOrder(src, 5000)) {
      await c.query("BEGIN");
      const stream = c.query(from(`COPY ${table} (namespace, thread_id, doc, bytes) FROM STDIN (FORMAT binary)`));
      const done = new Promise((res, rej) => (stream.on("finish", res), stream.on("error", rej)));
      stream.write(Buffer.from("PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0", "latin1"));
      for (const name of names) {
        const doc = readFileSync(join(src, name));
        stream.write(
          Buffer.concat([
            int2(4),
            ...field(Buffer.from("default")),
            ...field(Buffer.from(name.slice(0, -5))),
            ...field(doc),
            ...field(int4(doc.length)),
          ]),
        );
      }
      stream.write(int2(-1));
      stream.end();
      await done;
      await c.query("COMMIT");
    }
    await c.query(`DROP TABLE ${table}`);
    await c.end();
  }
  return (performance.now() - t) / 1000;
}

async function dropPg() {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const { rows } = await c.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE $1", [`bench_million_${run}_%`]);
  for (const { nspname } of rows) await c.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await c.end();
}

/** Peak RSS (MB) of a process that streams `dir` (read + JSON.parse of every file) and keeps nothing. */
function floorRss(dir) {
  const code = `import { opendirSync, readFileSync } from "node:fs";
    const h = opendirSync(${JSON.stringify(dir)}, { bufferSize: 256 });
    for (let d = h.readSync(); d !== null; d = h.readSync()) if (d.name.endsWith(".json")) JSON.parse(readFileSync(${JSON.stringify(dir)} + "/" + d.name, "utf8"));
    h.closeSync();`;
  const r = spawnSync("/usr/bin/time", ["-f", "%M %e", process.execPath, "--input-type=module", "-e", code], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stderr.trim().split("\n").pop().split(" ")[0]) / 1024;
}

const result = { bench: "million", checkpoints: M, small: SMALL, seed, targets: {} };
const big = source(M);
const small = source(SMALL);
if (process.env.FLOOR !== "0") {
  const fs = floorRss(small);
  const fb = floorRss(big);
  result.floor = { smallMb: +fs.toFixed(0), bigMb: +fb.toFixed(0), ratio: +(fb / fs).toFixed(2) };
  console.log(
    `memory floor (stream + JSON.parse only, nothing kept): peak RSS ${fs.toFixed(0)} MB for ${SMALL.toLocaleString("en-US")}, ${fb.toFixed(0)} MB for ${M.toLocaleString("en-US")} → ${(fb / fs).toFixed(2)}×`,
  );
}
try {
  for (const kind of TARGETS) {
    const smallRun = timed(["migrate", "--from", `file:${small}`, "--to", targetUri(kind), "-q"]);
    const bigRun = timed(["migrate", "--from", `file:${big}`, "--to", targetUri(kind), "-q"]);
    const rawSecs = await rawCopy(kind, big, M);
    const uri = targetUri(kind);
    const journal = join(work, `kill-${k}.journal`);
    const at = Math.floor(M * (0.1 + 0.8 * rand())); // committed records at the kill: 10–90% of the run
    const kr = await killAndResume(["migrate", "--from", `file:${big}`, "--to", uri, "--journal", journal, "-q"], at);
    const same = await identical(uri, big, M);
    const r = {
      secs: bigRun.secs,
      recordsPerSecond: Math.round(M / bigRun.secs),
      rawCopySecs: +rawSecs.toFixed(1),
      ratioToRawCopy: +(rawSecs / bigRun.secs).toFixed(3),
      peakRssMb: +bigRun.rssMb.toFixed(0),
      smallPeakRssMb: +smallRun.rssMb.toFixed(0),
      rssRatio: +(bigRun.rssMb / smallRun.rssMb).toFixed(2),
      killAfterRecords: at,
      killedAtSecs: +kr.killedAtSecs.toFixed(1),
      committedAtKill: kr.committedAtKill,
      killedMidRun: kr.killedMidRun,
      resumeSecs: kr.resumeSecs,
      identicalAfterResume: same,
    };
    result.targets[kind] = r;
    console.log(
      `file → ${kind}: ${M.toLocaleString("en-US")} in ${r.secs.toFixed(1)} s (${r.recordsPerSecond.toLocaleString("en-US")}/s; raw copy ${r.rawCopySecs} s → ratio ${r.ratioToRawCopy}), ` +
        `peak RSS ${r.peakRssMb} MB vs ${r.smallPeakRssMb} MB for ${SMALL.toLocaleString("en-US")} → ${r.rssRatio}× (target ≤ 1.5); ` +
        `killed at ${r.killedAtSecs} s with ${kr.committedAtKill.toLocaleString("en-US")} committed${kr.killedMidRun ? "" : " (NOT mid-run: it finished first)"}, --resume ${r.resumeSecs} s (${kr.summary}) → ${same ? "identical" : "NOT IDENTICAL"}`,
    );
  }
} finally {
  await dropPg();
  rmSync(work, { recursive: true, force: true });
  if (process.env.KEEP === "0") for (const d of [big, small]) rmSync(d, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
if (Object.values(result.targets).some((t) => !t.identicalAfterResume || !t.killedMidRun)) process.exitCode = 1;
