/**
 * `main(argv, io)` is part of the library: a caller gives it an io whose `cwd` is the folder the command runs in.
 * Files were read from io.cwd, but relative store paths (sqlite:x.db, x.db#thread, file:folder, a bare folder) were
 * opened from the process's folder: `ls`, `show x.db#t`, `log`, `stats`, `prune`, `migrate --from/--to`,
 * `view x.db#t` and `replay --save-to` said "no such SQLite database" for a store that is there, and `migrate --to
 * sqlite:new.db` created the database in the wrong folder. They now take every relative local path from io.cwd.
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { atCwd as storeAt } from "../src/savers/address.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-io-cwd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync(join(ROOT, "fixtures", "langgraph", "python-a.sqlite"), join(dir, "lg.sqlite"));
cpSync(join(ROOT, "fixtures", "savers", "deepagent-filesaver"), join(dir, "saved"), { recursive: true });
const before = new Set(readdirSync(process.cwd()));
/** the test is meaningful only when the process runs elsewhere */
expect(resolve(dir)).not.toBe(process.cwd());

const threadsIn = (db: string) =>
  (
    new Database(db, { readonly: true })
      .prepare("SELECT thread_id FROM ckpt_checkpoints ORDER BY thread_id")
      .all() as Array<{ thread_id: string }>
  ).map((r) => r.thread_id);

describe("relative store paths are taken from io.cwd", () => {
  it("migrate file:saved → sqlite:copy.db creates copy.db in io.cwd, and the reading commands find it there", async () => {
    const m = await runCli(["migrate", "--from", "file:saved", "--to", "sqlite:copy.db", "--journal", "j.journal"], {
      cwd: dir,
    });
    expect(m.code, m.err).toBe(0);
    expect(existsSync(join(dir, "copy.db"))).toBe(true);
    expect(threadsIn(join(dir, "copy.db"))).toEqual(["explicit-messages-thread", "user:42/session#1"]);

    const ls = await runCli(["ls", "sqlite:copy.db", "--json"], { cwd: dir });
    expect(ls.code, ls.err).toBe(0);
    expect(
      JSON.parse(ls.out)
        .map((r: { threadId: string }) => r.threadId)
        .sort(),
    ).toEqual(["explicit-messages-thread", "user:42/session#1"]);
    for (const argv of [
      ["ls", "copy.db"],
      ["ls", "saved"],
      ["ls", "file:saved"],
      ["show", "copy.db#explicit-messages-thread"],
      ["show", "sqlite:copy.db#explicit-messages-thread"],
      ["show", "saved#explicit-messages-thread"],
      ["log", "copy.db#explicit-messages-thread"],
      ["stats", "sqlite:copy.db"],
      ["diff", "copy.db#explicit-messages-thread", "file:saved#explicit-messages-thread"],
      ["convert", "copy.db#explicit-messages-thread", "-t", "yoagent", "--allow-lossy"],
      ["prune", "sqlite:copy.db", "--idle-for", "1d", "--dry-run"],
      ["ls", "lg.sqlite"],
      ["log", "lg.sqlite#a-chat-1"],
      ["stats", "lg.sqlite"],
      ["view", "lg.sqlite#a-chat-1", "-o", "page.html"],
    ]) {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(0);
    }
    expect(existsSync(join(dir, "page.html"))).toBe(true);
  });

  it("replay continue --save-to sqlite:replayed.db writes into io.cwd", async () => {
    const doc = join(ROOT, "fixtures", "replay", "tools.ckpt.json");
    const r = await runCli(
      [
        "replay",
        "continue",
        doc,
        "--prompt",
        "next?",
        "--provider",
        `script:${join(ROOT, "fixtures", "replay", "script-done.json")}`,
        "--save-to",
        "sqlite:replayed.db#t1",
        "-q",
      ],
      { cwd: dir },
    );
    expect(r.code, r.err).toBe(0);
    expect(threadsIn(join(dir, "replayed.db"))).toEqual(["t1"]);
  });

  it("nothing was created in the process's own folder", () => {
    expect(readdirSync(process.cwd()).filter((f) => !before.has(f))).toEqual([]);
  });
});

describe("storeAt", () => {
  const elsewhere = "/some/where";
  it("makes a relative local path absolute from cwd, keeping the scheme, query and thread", () => {
    expect(storeAt("sqlite:x.db", elsewhere)).toBe("sqlite:/some/where/x.db");
    expect(storeAt("sqlite://x.db?namespace=n#t@~1", elsewhere)).toBe("sqlite:///some/where/x.db?namespace=n#t@~1");
    expect(storeAt("file:a/b#t", elsewhere)).toBe("file:/some/where/a/b#t");
    expect(storeAt("x.sqlite#t", elsewhere)).toBe("/some/where/x.sqlite#t");
    expect(storeAt("folder", elsewhere)).toBe("/some/where/folder");
  });
  it("leaves absolute paths, remote stores, memory stores and the process's own folder alone", () => {
    for (const s of [
      "sqlite:/abs/x.db",
      "file:///abs/f",
      "/abs/x.db#t",
      "redis://127.0.0.1:6379?prefix=a:",
      "postgres://u@h/db",
      "memory:m",
      "sqlite::memory:",
    ])
      expect(storeAt(s, elsewhere)).toBe(s);
    expect(storeAt("sqlite:x.db", process.cwd())).toBe("sqlite:x.db");
    expect(storeAt("sqlite:x.db", undefined)).toBe("sqlite:x.db");
  });
});
