// The floor of bench/search.mjs as a whole process, to be timed like the `ckpt search` process it is compared with:
// `node` starts, loads better-sqlite3 (the client library ckpt reads SQLite with) and reads the newest root checkpoint
// of every thread with its pending writes, one query each, every payload JSON.parse'd and every message's text looked
// at for the pattern; it prints nothing. CommonJS, like bin/ckpt.js (no ES module loader started).
//   node bench/lib/search-floor.cjs <pattern> <store.sqlite>   → stdout: "<threads> <hits>"
// bench/search.mjs also runs searchFloor in its own process (the in-process floor, no process start).
"use strict";
const { join } = require("node:path");
const Database = require(join(__dirname, "..", "..", "node_modules", "better-sqlite3"));

/** Read and parse what search looks at; count the messages whose text holds `pattern`. */
function searchFloor(file, pattern) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const td = new TextDecoder();
  const heads =
    "SELECT thread_id, max(checkpoint_id) AS id FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id";
  let threads = 0;
  let hits = 0;
  const look = (m) => {
    const c = m?.kwargs?.content;
    if (typeof c === "string" && c.includes(pattern)) hits++;
  };
  for (const r of db
    .prepare(
      `SELECT c.checkpoint, c.metadata FROM checkpoints c JOIN (${heads}) h ON c.thread_id = h.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = h.id`,
    )
    .iterate()) {
    const cp = JSON.parse(td.decode(r.checkpoint));
    JSON.parse(td.decode(r.metadata));
    for (const m of cp.channel_values?.messages ?? []) look(m);
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
  db.close();
  return { threads, hits };
}

module.exports = { searchFloor };
if (require.main === module) {
  const [pattern, file] = process.argv.slice(2);
  const { threads, hits } = searchFloor(file, pattern);
  process.stdout.write(`${threads} ${hits}\n`);
}
