/**
 * Reading an SQLite store never changes it, and that includes its folder. A read-only connection to a WAL database
 * makes `-wal` and `-shm` files beside it and cannot remove them itself; they must be gone again after every reading
 * command (ckpt's own store: `ckpt ls sqlite:store.db` used to leave both), after a library caller that never called
 * close() exits, and files a writer in another process is using must never be removed under it.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSaver } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const LG_SAMPLE = join(ROOT, "fixtures", "langgraph", "python-a.sqlite");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "ckpt-side-files-"));
  dirs.push(d);
  return d;
};

/** ckpt's own SQLite store, written by ckpt (WAL mode) from the deep-agent fixtures and closed: just store.db. */
async function ownStore(): Promise<string> {
  const file = join(fresh(), "store.db");
  const r = await runCli([
    "migrate",
    "--from",
    `file:${join(ROOT, "fixtures", "deepagent", "valid")}`,
    "--to",
    `sqlite:${file}`,
    "--journal",
    join(fresh(), "j"),
    "-q",
  ]);
  expect(r.code, r.err).toBe(5); // one fixture is a second file of a thread: rejected (exit 5), the other four written
  expect(readFileSync(file).subarray(18, 20)).toEqual(Buffer.from([2, 2])); // header bytes 18-19 = 2: a WAL database
  expect(readdirSync(join(file, ".."))).toEqual(["store.db"]);
  return file;
}

function langGraphStore(): string {
  const file = join(fresh(), "lg.sqlite");
  copyFileSync(LG_SAMPLE, file);
  return file;
}

describe("SQLite side files", () => {
  it("every reading command over ckpt's own WAL store leaves the file and its folder as they were", async () => {
    const file = await ownStore();
    const before = sha(file);
    const out = fresh();
    const uri = `sqlite:${file}`;
    const runs: string[][] = [
      ["ls", uri],
      ["show", `${uri}#all-variants`],
      ["validate", `${uri}#all-variants`],
      ["diff", `${uri}#all-variants`, `${uri}#explicit-messages-thread`],
      ["convert", `${uri}#all-variants`, "-t", "yoagent", "--allow-lossy", "-o", join(out, "a.json")],
      ["migrate", "--from", uri, "--to", `file:${join(out, "copy")}`, "--journal", join(out, "j"), "-q"],
    ];
    for (const argv of runs) {
      const r = await runCli(argv);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBeLessThanOrEqual(argv[0] === "convert" ? 2 : 1); // diff: 1 = different; convert: 2 = lossy, allowed
      expect(readdirSync(join(file, "..")), argv.join(" ")).toEqual(["store.db"]);
      expect(sha(file), argv.join(" ")).toBe(before);
    }
  });

  for (const kind of ["ckpt's own store", "a LangGraph store"]) {
    it(`${kind}: a library caller that reads and exits without close() leaves no side files`, async () => {
      const file = kind === "a LangGraph store" ? langGraphStore() : await ownStore();
      const name = file.split("/").pop()!;
      const before = sha(file);
      const code = `
        import { openSaver } from ${JSON.stringify(join(ROOT, "dist", "savers", "index.js"))};
        import { readdirSync } from "node:fs";
        const s = await openSaver(${JSON.stringify(`sqlite:${file}`)}, { readOnly: true });
        let n = 0;
        for await (const t of s.list()) n++;
        console.log(JSON.stringify({ threads: n, during: readdirSync(${JSON.stringify(join(file, ".."))}) }));
        // no close()`;
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      const seen = JSON.parse(r.stdout.trim()) as { threads: number; during: string[] };
      expect(seen.threads).toBeGreaterThan(0);
      expect(seen.during).toContain(`${name}-wal`); // the read did make them: the check below is not vacuous
      expect(readdirSync(join(file, ".."))).toEqual([name]);
      expect(sha(file)).toBe(before);
    });
  }

  it("side files a writer in another process is using stay in place when a reader that opened first closes", async () => {
    const file = langGraphStore();
    const reader = await openSaver(`sqlite:${file}`, { readOnly: true });
    let n = 0;
    for await (const t of reader.list()) n += t.threadId ? 1 : 0;
    expect(n).toBeGreaterThan(0);
    expect(existsSync(file + "-wal")).toBe(true);
    const code = `
      const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
      const db = new Database(${JSON.stringify(file)});
      db.prepare("SELECT count(*) FROM checkpoints").get();
      process.stdout.write("ready\\n");
      process.stdin.on("data", () => {
        db.prepare("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES ('w', '', 'c', 't', 0, 'x', 'json', '1')").run();
        process.stdout.write("written\\n");
      });`;
    const writer = spawn(process.execPath, ["-e", code], { stdio: ["pipe", "pipe", "inherit"] });
    try {
      const said = (word: string) =>
        new Promise<void>((resolve, reject) => {
          writer.stdout.on("data", (d: Buffer) => d.toString().includes(word) && resolve());
          writer.on("exit", (c) => reject(new Error(`writer exited ${c}`)));
        });
      await said("ready");
      const inode = { wal: statSync(file + "-wal").ino, shm: statSync(file + "-shm").ino };
      await reader.close(); // the reader made the files, but the writer holds them now: SQLite must not let them go
      expect(existsSync(file + "-wal") && statSync(file + "-wal").ino).toBe(inode.wal);
      expect(existsSync(file + "-shm") && statSync(file + "-shm").ino).toBe(inode.shm);
      writer.stdin.write("go\n");
      await said("written");
      // a new connection sees the writer's commit: it went into the WAL every connection shares
      const db = new Database(file, { readonly: true });
      expect((db.prepare("SELECT count(*) AS n FROM writes WHERE thread_id = 'w'").get() as { n: number }).n).toBe(1);
      db.close();
    } finally {
      writer.kill();
    }
  });
});

/**
 * A database committed with its `-wal` beside it (no `-shm`: no connection open), the tables only in the WAL: written
 * with better-sqlite3 in WAL mode and copied before any checkpoint. Every reading command reads it and leaves the folder
 * as it was: the same two files, the same bytes, no `-shm`.
 */
describe("a database committed with its -wal beside it", () => {
  function walPair(): { file: string; threads: number } {
    const src = new Database(LG_SAMPLE, { readonly: true });
    const ddl = src.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").pluck().all();
    const threads = src.prepare("SELECT count(DISTINCT thread_id) FROM checkpoints").pluck().get() as number;
    src.close();
    const writeDir = fresh();
    const w = new Database(join(writeDir, "lg.sqlite"));
    w.pragma("journal_mode = WAL");
    w.pragma("wal_autocheckpoint = 0");
    for (const sql of ddl) w.exec(sql as string);
    w.exec(`ATTACH '${LG_SAMPLE}' AS a`);
    for (const t of ["checkpoints", "writes"]) w.exec(`INSERT INTO main.${t} SELECT * FROM a.${t}`);
    w.exec("DETACH a");
    const dir = fresh();
    copyFileSync(join(writeDir, "lg.sqlite"), join(dir, "lg.sqlite"));
    copyFileSync(join(writeDir, "lg.sqlite-wal"), join(dir, "lg.sqlite-wal"));
    w.close();
    // the tables are only in the WAL: the database file alone has none
    const alone = fresh();
    copyFileSync(join(dir, "lg.sqlite"), join(alone, "lg.sqlite"));
    const bare = new Database(join(alone, "lg.sqlite"), { readonly: true });
    expect(bare.prepare("SELECT count(*) FROM sqlite_master").pluck().get()).toBe(0);
    bare.close();
    return { file: join(dir, "lg.sqlite"), threads };
  }

  it("ls, show, log, validate and stats read it and leave the folder byte for byte as it was (no -shm)", async () => {
    const { file, threads } = walPair();
    const dir = join(file, "..");
    const before = [sha(file), sha(`${file}-wal`)];
    const ls = await runCli(["ls", file, "--json"]);
    expect(ls.code, ls.err).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string }>;
    expect(rows.length).toBe(threads);
    for (const argv of [
      ["show", `${file}#${rows[0]!.threadId}`],
      ["log", `${file}#${rows[0]!.threadId}`],
      ["validate", file],
      ["stats", file],
    ]) {
      const r = await runCli(argv);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBeLessThan(2);
      expect(readdirSync(dir).sort(), argv[0]).toEqual(["lg.sqlite", "lg.sqlite-wal"]);
    }
    expect([sha(file), sha(`${file}-wal`)]).toEqual(before);
  });

  it("stats counts the WAL's bytes (text and --json)", async () => {
    const { file } = walPair();
    const wal = statSync(`${file}-wal`).size;
    expect(wal).toBeGreaterThan(statSync(file).size); // the rows are in the WAL
    const j = await runCli(["stats", file, "--json"]);
    expect(j.code, j.err).toBe(0);
    expect(JSON.parse(j.out).files).toEqual([
      { file: "lg.sqlite", bytes: statSync(file).size },
      { file: "lg.sqlite-wal", bytes: wal },
    ]);
    const t = await runCli(["stats", file]);
    expect(t.out).toMatch(/^files +lg\.sqlite .* · lg\.sqlite-wal .*not yet checkpointed/m);
  });
});
