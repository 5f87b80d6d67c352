/**
 * LangGraph stores as older releases left them, and stores missing a table or column:
 * - the SQLite layout of langgraph 0.0.44–0.1.6 (Python's own `langgraph/checkpoint/sqlite.py` at 0.1.6:
 *   `checkpoints(thread_id, thread_ts, parent_ts, checkpoint, metadata)` and no `writes` table, which came in 0.1.7),
 *   with an empty `-wal` committed beside it: every reading command reads it as that release wrote it (the counts the
 *   real LangGraph JS library reads from the same checkpoints), and the folder is left as it was (no `-shm`); a
 *   writing command refuses it (exit 3) naming the release;
 * - every table and column of today's layouts (SQLite written by LangGraph JS, PostgreSQL dumps of the JS and Python
 *   PostgresSaver) and of the 0.1.7 SQLite layout dropped in turn: each command reads the store as the release that
 *   lacked it, or exits 3 naming what is missing — never 70 (a bug) or 4 (a store error).
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { runCli } from "./helpers/cli-io.js";
import { copyFixture, LG_FIXTURES } from "./helpers/langgraph-tuples.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
const folder = (d: string) =>
  readdirSync(d)
    .sort()
    .map((f) => `${f}:${statSync(join(d, f)).size}`);

/** langgraph 0.1.6's DDL (no writes table) and 0.1.7's (with one), filled with set A's JS root-namespace rows. */
function oldStore(file: string, withWrites: boolean): void {
  const w = new Database(file);
  w.pragma("journal_mode = WAL");
  w.exec(`CREATE TABLE IF NOT EXISTS checkpoints (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, parent_ts TEXT,
      checkpoint BLOB, metadata BLOB, PRIMARY KEY (thread_id, thread_ts));`);
  if (withWrites)
    w.exec(`CREATE TABLE IF NOT EXISTS writes (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, task_id TEXT NOT NULL,
      idx INTEGER NOT NULL, channel TEXT NOT NULL, value BLOB, PRIMARY KEY (thread_id, thread_ts, task_id, idx));`);
  w.exec(`ATTACH '${copyFixture("js-a.sqlite")}' AS s;
    INSERT INTO checkpoints SELECT thread_id, checkpoint_id, parent_checkpoint_id, checkpoint, metadata
      FROM s.checkpoints WHERE checkpoint_ns = '';`);
  if (withWrites)
    w.exec(`INSERT INTO writes SELECT thread_id, checkpoint_id, task_id, idx, channel, value FROM s.writes
      WHERE checkpoint_ns = '';`);
  w.exec("DETACH s");
  w.pragma("wal_checkpoint(TRUNCATE)");
  w.close();
}

describe("the SQLite layout of langgraph 0.0.44–0.1.6 (no writes table), an empty -wal beside it", () => {
  const dir = mkdtempSync(join(tmpdir(), "lg-old-"));
  const file = join(dir, "checkpoints.sqlite");
  // what the library reads from the same checkpoint rows: per root-namespace thread, its checkpoints and the head's messages
  const theirs = new Map<string, { checkpoints: number; messages: number | null }>();
  beforeAll(async () => {
    oldStore(file, false);
    writeFileSync(`${file}-wal`, ""); // committed beside it, as a copy of a WAL database often is
    const ref = join(mkdtempSync(join(tmpdir(), "lg-old-ref-")), "js-a.sqlite");
    copyFileSync(join(LG_FIXTURES, "js-a.sqlite"), ref);
    const lib = SqliteSaver.fromConnString(ref);
    for await (const t of lib.list({ configurable: { checkpoint_ns: "" } })) {
      const id = t.config.configurable!.thread_id as string;
      const head = !theirs.has(id); // newest first
      const e = theirs.get(id) ?? { checkpoints: 0, messages: null };
      e.checkpoints++;
      const list = t.checkpoint.channel_values.messages;
      if (head) e.messages = Array.isArray(list) ? list.length : null; // no messages channel (a counter graph)
      theirs.set(id, e);
    }
    lib.db.close();
    expect(theirs.size).toBe(8);
  });

  it("ls, show, log, validate, stats, view, diff and migrate read it as that release wrote it; the folder is left as it was", async () => {
    const before = folder(dir);
    const hash = sha(file);
    expect(before).toEqual([`checkpoints.sqlite:${statSync(file).size}`, "checkpoints.sqlite-wal:0"]);
    const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
    expect(ls.code, ls.err).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; checkpoints: number; messages: number | null }>;
    expect(new Map(rows.map((r) => [r.threadId, { checkpoints: r.checkpoints, messages: r.messages }]))).toEqual(
      theirs,
    );
    expect(folder(dir)).toEqual(before);
    const chat = theirs.get("a-chat-1")!;
    const show = await runCli(["show", `sqlite:${file}#a-chat-1`]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain(`${chat.messages} messages`);
    const log = await runCli(["log", `sqlite:${file}#a-chat-1`, "--json"]);
    expect(log.code, log.err).toBe(0);
    const v = await runCli(["validate", `sqlite:${file}`]);
    expect(v.code, v.out + v.err).toBe(0);
    const stats = await runCli(["stats", `sqlite:${file}`, "--json"]);
    expect(stats.code, stats.err).toBe(0);
    const view = await runCli(["view", `sqlite:${file}#a-chat-1`, "-o", join(mkdtempSync(join(tmpdir(), "v-")), "p")]);
    expect(view.code, view.err).toBe(0);
    // two checkpoints of the thread, named from the rows they were copied from (opening the store here would leave a -shm)
    const src = new Database(copyFixture("js-a.sqlite"), { readonly: true });
    const ids = (
      src
        .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-1' AND checkpoint_ns = '' ORDER BY 1")
        .pluck()
        .all() as string[]
    ).slice(-2);
    src.close();
    const diff = await runCli(["diff", `sqlite:${file}#a-chat-1@${ids[0]}`, `sqlite:${file}#a-chat-1@${ids[1]}`]);
    expect([0, 1]).toContain(diff.code);
    const out = mkdtempSync(join(tmpdir(), "lg-old-to-"));
    const m = await runCli([
      "migrate",
      "--from",
      `sqlite:${file}`,
      "--to",
      `sqlite:${join(out, "new.sqlite")}`,
      "--journal",
      join(out, "j"),
    ]);
    expect(m.code, m.out + m.err).toBe(0);
    const copied = JSON.parse((await runCli(["ls", `sqlite:${join(out, "new.sqlite")}`, "--json"])).out) as typeof rows;
    expect(copied.map((r) => [r.threadId, r.checkpoints, r.messages])).toEqual(
      rows.map((r) => [r.threadId, r.checkpoints, r.messages]),
    );
    expect(folder(dir)).toEqual(before);
    expect(sha(file)).toBe(hash);
  });

  it("a writing command refuses it (exit 3), naming the release that wrote it", async () => {
    const r = await runCli(["prune", `sqlite:${file}`, "--keep-last", "1"]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/langgraph 0\.0\.44–0\.1\.6 .*reads this layout but does not change it/);
    expect(r.err).not.toMatch(/ckpt_checkpoints/);
  });
});

// ---- a table or column dropped in turn --------------------------------------------------------------------------

const COMMANDS = (uri: string, thread: string, out: string): string[][] => [
  ["ls", uri],
  ["show", `${uri}#${thread}`],
  ["log", `${uri}#${thread}`],
  ["validate", uri],
  ["stats", uri],
  ["prune", uri, "--keep-last", "1", "--dry-run"],
  ["migrate", "--from", uri, "--to", `sqlite:${join(out, "to.sqlite")}`, "--journal", join(out, "j")],
  ["view", `${uri}#${thread}`, "-o", join(out, "page.html")],
];

/** Every command on the store: exit 0, or 3 naming what was dropped (`what`: the table or column's name). */
async function everyCommand(
  uri: string,
  thread: string,
  what: string,
  only?: string[],
): Promise<Record<string, number>> {
  const codes: Record<string, number> = {};
  for (const argv of COMMANDS(uri, thread, mkdtempSync(join(tmpdir(), "lg-drop-")))) {
    if (only && !only.includes(argv[0]!)) continue;
    const r = await runCli(argv);
    codes[argv[0]!] = r.code;
    expect([0, 3], `${argv.join(" ")}: ${r.err}`).toContain(r.code);
    if (r.code === 3) {
      expect(r.err + r.out, argv.join(" ")).toContain(what);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  }
  return codes;
}

/** SQLite: drop a table, or rebuild one without a column (SQLite cannot drop a primary-key column). */
function dropSqlite(file: string, table: string, column: string | undefined): void {
  const db = new Database(file);
  if (column === undefined) db.exec(`DROP TABLE ${table}`);
  else {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter(
      (c) => c !== column,
    );
    db.exec(`CREATE TABLE t2 AS SELECT ${cols.join(", ")} FROM ${table}; DROP TABLE ${table};
      ALTER TABLE t2 RENAME TO ${table};`);
  }
  db.close();
}

function sqliteParts(file: string): Array<[string, string | undefined]> {
  const db = new Database(file, { readonly: true });
  const parts: Array<[string, string | undefined]> = [];
  for (const t of db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1")
    .pluck()
    .all() as string[]) {
    parts.push([t, undefined]);
    for (const c of db.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[])
      parts.push([t, c]);
  }
  db.close();
  return parts;
}

describe("a table or column dropped in turn: read as the release that lacked it, or exit 3 naming it", () => {
  const legacy = join(mkdtempSync(join(tmpdir(), "lg-drop-legacy-")), "old.sqlite");
  oldStore(legacy, true);
  for (const [name, src] of [
    ["LangGraph JS SQLite (today's layout)", copyFixture("js-a.sqlite")],
    ["langgraph 0.1.7's SQLite layout", legacy],
  ] as const) {
    it(`${name}: every table and column`, async () => {
      const results: string[] = [];
      for (const [table, column] of sqliteParts(src)) {
        const file = join(mkdtempSync(join(tmpdir(), "lg-drop-")), "s.sqlite");
        copyFileSync(src, file);
        dropSqlite(file, table, column);
        const codes = await everyCommand(`sqlite:${file}`, "a-chat-1", column ?? table);
        results.push(`${table}.${column ?? "*"} ${Object.values(codes).join("")}`);
      }
      // the older release's optional parts read as that release wrote them; everything else is named
      if (src === legacy)
        for (const optional of ["writes.*", "checkpoints.parent_ts", "checkpoints.metadata"])
          expect(results).toContain(`${optional} 00000000`);
      else expect(results.every((r) => r.endsWith(" 33333333"))).toBe(true);
    });
  }

  const pgs = pgTestSchemas("lg_drop");
  it("PostgreSQL (the JS and Python PostgresSaver dumps): every table and column", async () => {
    const schemas: Record<string, string> = {};
    for (const dump of ["js-a.pg.sql", "python-a.pg.sql"]) {
      schemas[dump] = pgs.schema(dump.replace(/\W/g, "_"));
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
        input: readFileSync(join(LG_FIXTURES, dump), "utf8").replace(/__SCHEMA__/g, schemas[dump]!),
        stdio: ["pipe", "ignore", "pipe"],
      });
    }
    const cols = await pgs.query(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1, 2",
      [schemas["js-a.pg.sql"]],
    );
    const variants: Array<{ dump: string; table: string; column?: string }> = [];
    for (const t of [...new Set(cols.rows.map((r) => r.table_name as string))]) {
      variants.push({ dump: "js-a.pg.sql", table: t });
      for (const r of cols.rows.filter((x) => x.table_name === t))
        variants.push({ dump: "js-a.pg.sql", table: t, column: r.column_name });
    }
    // Python's store differs by its migrations 5–9: task_path (9) is optional too
    variants.push({ dump: "python-a.pg.sql", table: "checkpoint_writes", column: "task_path" });
    variants.push({ dump: "python-a.pg.sql", table: "checkpoint_migrations" });
    const results: string[] = [];
    const seen = new Set<string>();
    for (const v of variants) {
      const schema = schemas[v.dump]!;
      // out of ckpt's sight (renamed) for the commands, then back: a table or column by another name is not there
      const hide = v.column
        ? `ALTER TABLE ${schema}.${v.table} RENAME COLUMN ${v.column} TO gone_${v.column}`
        : `ALTER TABLE ${schema}.${v.table} RENAME TO gone_${v.table}`;
      const back = v.column
        ? `ALTER TABLE ${schema}.${v.table} RENAME COLUMN gone_${v.column} TO ${v.column}`
        : `ALTER TABLE ${schema}.gone_${v.table} RENAME TO ${v.table}`;
      await pgs.query(hide);
      try {
        const uri = `${PG}?schema=${schema}`;
        // a damaged schema is refused when it is opened (savers/index.ts openStore), whatever the command: ls says so
        // for every variant, validate and migrate (their own ways of reporting) too for each table's first; a schema
        // read as an older release is read by every command
        const first = !seen.has(`${v.dump} ${v.table}`);
        seen.add(`${v.dump} ${v.table}`);
        const what = v.column ?? v.table;
        const ls = await everyCommand(uri, "a-chat-1", what, ["ls"]);
        const rest = COMMANDS(uri, "", "")
          .map((a) => a[0]!)
          .filter((c) => c !== "ls" && (ls.ls === 0 || (first && (c === "validate" || c === "migrate"))));
        const codes = { ...ls, ...(await everyCommand(uri, "a-chat-1", what, rest)) };
        results.push(`${v.dump} ${v.table}.${v.column ?? "*"} ${Object.values(codes).join("")}`);
      } finally {
        await pgs.query(back);
      }
    }
    expect(results).toContain("js-a.pg.sql checkpoint_migrations.* 00000000");
    expect(results).toContain("js-a.pg.sql checkpoint_migrations.v 00000000");
    expect(results).toContain("python-a.pg.sql checkpoint_migrations.* 00000000");
    expect(results).toContain("python-a.pg.sql checkpoint_writes.task_path 00000000");
    expect(results.filter((r) => !r.endsWith(" 00000000")).every((r) => / 3{1,3}$/.test(r))).toBe(true);
  });
});
