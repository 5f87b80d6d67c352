// The floor of bench/search.mjs as a whole process, to be timed like the `ckpt search` process it is compared with:
// `node` starts, loads better-sqlite3 (the client library ckpt reads SQLite with) and reads the newest root checkpoint
// of every thread with its pending writes, one query each, every payload JSON.parse'd and every message's text looked
// at for the pattern; it prints nothing. CommonJS, like bin/ckpt.js (no ES module loader started).
//   node bench/lib/search-floor.cjs <pattern> <store.sqlite>   → stdout: "<threads> <hits>"
// With --print <source> it also writes what `ckpt search --json` writes for each matching message: the same JSON
// Lines, byte for byte (bench/search.mjs compares them) — the thread, checkpoint, message index, role, a snippet of 40
// characters each side of the first match, its offsets and the count — each line encoded straight into a 1 MiB buffer
// and written in 64 KiB slices, the least a program that prints those lines does; "<threads> <hits>" goes to stderr.
//   node bench/lib/search-floor.cjs <pattern> <store.sqlite> --print <source>
// bench/search.mjs also runs searchFloor in its own process (the in-process floor, no process start).
"use strict";
const { join } = require("node:path");
const Database = require(join(__dirname, "..", "..", "node_modules", "better-sqlite3"));

const ROLES = { HumanMessage: "user", AIMessage: "assistant", ToolMessage: "tool", SystemMessage: "system" };

/** A printer of matches as `ckpt search --json` prints them (a literal, case-sensitive pattern; no line breaks). */
function printer(source, pattern) {
  const fs = require("node:fs");
  let b = Buffer.allocUnsafe(1 << 20);
  let start = 0;
  let n = 0;
  const flush = () => {
    if (n > start) fs.writeSync(1, b, start, n - start);
    start = n;
  };
  const line = (s) => {
    if (n + s.length * 3 > b.length) flush(), (b = Buffer.allocUnsafe(1 << 20)), (start = n = 0);
    n += b.write(s, n);
  };
  let head = "";
  return {
    checkpoint(thread, id) {
      head = `{"source":${JSON.stringify(source)},"thread":${JSON.stringify(thread)},"checkpoint":${JSON.stringify(id)},"format":"langgraph"`;
    },
    hit(index, m, text, at) {
      let count = 1;
      for (let j = text.indexOf(pattern, at + pattern.length); j >= 0; j = text.indexOf(pattern, j + pattern.length))
        count++;
      const from = Math.max(0, at - 40);
      const to = Math.min(text.length, at + pattern.length + 40);
      const pre = (from > 0 ? "…" : "") + text.slice(from, at);
      const snippet = pre + text.slice(at, to) + (to < text.length ? "…" : "");
      line(
        `${head},"message":${index},"role":"${ROLES[m.id[2]]}","field":"text","snippet":${JSON.stringify(snippet)},"match":[${pre.length},${pre.length + pattern.length}],"count":${count}}\n`,
      );
      if (n - start > 65536) flush();
    },
    end: flush,
  };
}

/** Read and parse what search looks at; count the messages whose text holds `pattern` (and print them: `print`). */
function searchFloor(file, pattern, print) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const td = new TextDecoder();
  const heads =
    "SELECT thread_id, max(checkpoint_id) AS id FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id";
  let threads = 0;
  let hits = 0;
  const look = (m, i) => {
    const c = m?.kwargs?.content;
    if (typeof c !== "string") return;
    const at = c.indexOf(pattern);
    if (at < 0) return;
    hits++;
    if (print && i !== undefined) print.hit(i, m, c, at);
  };
  for (const r of db
    .prepare(
      `SELECT c.thread_id, c.checkpoint_id, c.checkpoint, c.metadata FROM checkpoints c JOIN (${heads}) h ON c.thread_id = h.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = h.id`,
    )
    .iterate()) {
    const cp = JSON.parse(td.decode(r.checkpoint));
    JSON.parse(td.decode(r.metadata));
    print?.checkpoint(r.thread_id, r.checkpoint_id);
    const ms = cp.channel_values?.messages ?? [];
    for (let i = 0; i < ms.length; i++) look(ms[i], i);
    threads++;
  }
  for (const r of db
    .prepare(
      `SELECT w.value FROM writes w JOIN (${heads}) h ON w.thread_id = h.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = h.id`,
    )
    .iterate()) {
    const v = JSON.parse(td.decode(r.value));
    if (Array.isArray(v)) for (const m of v) look(m);
  }
  print?.end();
  db.close();
  return { threads, hits };
}

module.exports = { searchFloor };
if (require.main === module) {
  const [pattern, file, flag, source] = process.argv.slice(2);
  const print = flag === "--print" ? printer(source, pattern) : undefined;
  const { threads, hits } = searchFloor(file, pattern, print);
  require("node:fs").writeSync(print ? 2 : 1, `${threads} ${hits}\n`);
}
