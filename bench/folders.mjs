// bench/folders: every seed system's folder as a store (#16). For each layout (deep-agent FileSaver, Swarmer agents,
// phi-core session store, yoagent message arrays, yoagent JSONL sessions, amacs homes) with N threads built from the
// shared samples:
//   - read: `migrate(folder → SQLite)` against a raw copy measured in the same run (readdir, readFileSync of every
//     checkpoint file, one transaction of prepared inserts into the same table shape) — the least work any
//     folder → store copy does; ckpt also classifies every entry, detects and checks each format and verifies;
//   - write: `migrate(SQLite → new folder)` in the system's own layout against a raw write of the same files
//     (writeFileSync of the final bytes, no temp file / fsync / rename); ckpt writes each file atomically
//     (phi-core: under phi-core's flock protocol, one flock(1) child per session).
// Each ratio is the median of REPS interleaved rounds. Then whole-process times of `node bin/ckpt.js migrate`.
// Run: npm run build && node bench/folders.mjs        (N=1000 by default; REPS=3)
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { openSaver } from "../dist/savers/index.js";
import { migrate } from "../dist/engines/ckpt/migrate.js";

const N = Number(process.env.N ?? 1000);
const REPS = Number(process.env.REPS ?? 3);
const root = join(fileURLToPath(import.meta.url), "..", "..");
const F = "/work/shared/formats";
const S = (p) => readFileSync(join(existsDir(F) ? F : join(root, "fixtures"), p), "utf8");
function existsDir(p) {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const LAYOUTS = {
  deepagent: (d, i) =>
    writeFileSync(
      join(d, `t-${i}.json`),
      S("deepagent/generated/checkpoints/explicit-messages-thread.json").replaceAll(
        "explicit-messages-thread",
        `t-${i}`,
      ),
    ),
  swarmer: (d, i) =>
    writeFileSync(
      join(d, `agent_${i}.pkl`),
      S("swarmer/constructed/agent_123456789.pkl").replaceAll("123456789", String(i)),
    ),
  "phi-core-session": (d, i) => {
    writeFileSync(
      join(d, `s-${i}.json`),
      S("phi-core/generated/session.sess-1.v0.10.json").replaceAll("sess-1", `s-${i}`),
    );
    writeFileSync(join(d, `s-${i}.json.lock`), "");
  },
  yoagent: (d, i) => writeFileSync(join(d, `conv-${i}.json`), S("yoagent/generated/save_messages.v0.18.json")),
  "yoagent-session": (d, i) => writeFileSync(join(d, `session-${i}.jsonl`), S("yoagent/generated/session.v0.18.jsonl")),
  amacs: (d, i) => {
    mkdirSync(join(d, `home-${i}`));
    writeFileSync(join(d, `home-${i}`, "agent-chat.org"), S("amacs/generated/agent-chat.org"));
    writeFileSync(join(d, `home-${i}`, "scratchpad.org"), S("amacs/generated/scratchpad.org"));
  },
};

function makeFolder(layout) {
  const d = mkdtempSync(join(tmpdir(), `ckpt-bench-${layout}-`));
  for (let i = 0; i < N; i++) LAYOUTS[layout](d, i);
  return d;
}

/** Every checkpoint file under a folder (relative path → text), as the raw baselines see them. */
function walk(dir, rel = "", out = []) {
  for (const n of readdirSync(join(dir, rel))) {
    const p = rel ? `${rel}/${n}` : n;
    if (statSync(join(dir, p)).isDirectory()) walk(dir, p, out);
    else if (!n.endsWith(".lock")) out.push([p, readFileSync(join(dir, p), "utf8")]);
  }
  return out;
}

function rawCopy(src, dbPath) {
  const db = new Database(dbPath);
  db.exec(
    "CREATE TABLE c (namespace TEXT NOT NULL, thread_id TEXT NOT NULL, bytes INTEGER NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (namespace, thread_id))",
  );
  const ins = db.prepare("INSERT INTO c VALUES ('default', ?, ?, ?, ?)");
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const [p, t] of walk(src)) ins.run(p, Buffer.byteLength(t), now, t);
  })();
  db.close();
}

function rawWrite(files, dir) {
  for (const [p, t] of files) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), t);
  }
}

async function timed(f) {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function migrateOnce(from, to) {
  const s = await openSaver(from, { readOnly: true });
  const t = await openSaver(to);
  try {
    const sum = await migrate(s, t, { worker: "off" });
    if (sum.written !== N || sum.rejected)
      throw new Error(
        `${from} → ${to}: ${JSON.stringify({ written: sum.written, rejected: sum.rejected, ignored: sum.ignored })}`,
      );
  } finally {
    await s.close();
    await t.close();
  }
}

const rows = [];
for (const layout of Object.keys(LAYOUTS)) {
  const src = makeFolder(layout);
  const files = walk(src);
  const read = [];
  const write = [];
  let ckptRead = 0;
  let ckptWrite = 0;
  for (let r = 0; r < REPS; r++) {
    const w = mkdtempSync(join(tmpdir(), "ckpt-bench-w-"));
    const a = await timed(() => migrateOnce(src, `sqlite:${join(w, "a.db")}`));
    const b = await timed(() => rawCopy(src, join(w, "b.db")));
    const c = await timed(() => migrateOnce(`sqlite:${join(w, "a.db")}`, join(w, "out")));
    const d = await timed(() => rawWrite(files, join(w, "raw")));
    read.push(a / b);
    write.push(c / d);
    ckptRead += a / REPS;
    ckptWrite += c / REPS;
    rmSync(w, { recursive: true, force: true });
  }
  // whole process: read side, then write side
  const w = mkdtempSync(join(tmpdir(), "ckpt-bench-p-"));
  const cli = (from, to) => {
    const t = performance.now();
    const p = spawnSync(process.execPath, [join(root, "bin", "ckpt.js"), "migrate", "--from", from, "--to", to, "-q"], {
      cwd: w,
      encoding: "utf8",
    });
    if (p.status !== 0) throw new Error(p.stderr + p.stdout);
    return performance.now() - t;
  };
  const procRead = cli(src, `sqlite:${join(w, "p.db")}`);
  const procWrite = cli(`sqlite:${join(w, "p.db")}`, join(w, "out"));
  rmSync(w, { recursive: true, force: true });
  rmSync(src, { recursive: true, force: true });
  const row = {
    layout,
    n: N,
    readMs: Math.round(ckptRead),
    readVsRawCopy: +median(read).toFixed(2),
    writeMs: Math.round(ckptWrite),
    writeVsRawWrite: +median(write).toFixed(2),
    processReadMs: Math.round(procRead),
    processWriteMs: Math.round(procWrite),
  };
  rows.push(row);
  console.log(
    `${layout.padEnd(17)} read ${row.readMs} ms (${row.readVsRawCopy}x raw copy), write ${row.writeMs} ms (${row.writeVsRawWrite}x raw write); whole process ${row.processReadMs} / ${row.processWriteMs} ms`,
  );
}
console.log(JSON.stringify({ bench: "folders", n: N, reps: REPS, rows }));
