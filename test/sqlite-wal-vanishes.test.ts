/**
 * A store read while another process closes it: a `-wal` with no `-shm` beside it is read aside (sqlite-open.ts
 * openAside copies it), and when its last connection elsewhere closes meanwhile, SQLite checkpoints the WAL into the
 * file and deletes it — between ckpt seeing it and copying it. Seen in the whole suite as two `ckpt copy` processes
 * reading one source: "cannot open the SQLite database read-only: ENOENT … copyfile …-wal". The read must go on
 * with the database as it now is. The moment is made certain here: the copy of the WAL finds it gone (after the other
 * process checkpointed it into the file, as SQLite's last close does).
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";

const vanish = vi.hoisted(() => ({ path: "" }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const copy = (from: import("node:fs").PathLike, to: import("node:fs").PathLike, mode?: number) => {
    if (vanish.path && String(from) === `${vanish.path}-wal`) {
      // the other process's last connection closes now: the WAL is checkpointed into the file and removed
      const db = new (require("better-sqlite3") as typeof Database)(vanish.path);
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
      vanish.path = "";
    }
    return fs.copyFileSync(from, to, mode);
  };
  return { ...fs, default: { ...fs, copyFileSync: copy }, copyFileSync: copy };
});

const { runCli } = await import("./helpers/cli-io.js");
const dir = mkdtempSync(join(tmpdir(), "ckpt-wal-vanishes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a -wal that goes while ckpt reads the store aside", () => {
  it("ls reads the database as it now is (with what the WAL held, now in the file), and makes no side file there", async () => {
    // a ckpt store whose last write is still in its WAL, committed with it (no -shm): what openAside reads
    const live = join(dir, "live.db");
    const r = await runCli(
      [
        "migrate",
        "--from",
        `file:${join(import.meta.dirname, "../fixtures/savers/deepagent-filesaver")}`,
        "--to",
        `sqlite:${live}`,
        "-q",
      ],
      { env: { XDG_STATE_HOME: join(dir, "state") } },
    );
    expect(r.code, r.err).toBe(0);
    const want = JSON.parse((await runCli(["ls", `sqlite:${live}`, "--json"])).out) as unknown[];
    expect(want.length).toBeGreaterThan(0);
    const writer = new Database(live);
    writer.pragma("wal_autocheckpoint = 0");
    writer.exec("UPDATE ckpt_checkpoints SET updated_at = updated_at");
    const store = join(dir, "store", "s.db");
    rmSync(join(dir, "store"), { recursive: true, force: true });
    require("node:fs").mkdirSync(join(dir, "store"));
    copyFileSync(live, store);
    copyFileSync(`${live}-wal`, `${store}-wal`);
    writer.close();
    expect(existsSync(`${store}-shm`)).toBe(false);
    vanish.path = store;
    const got = await runCli(["ls", `sqlite:${store}`, "--json"]);
    expect(vanish.path, "the WAL was taken away mid-read").toBe("");
    expect(got.code, got.err).toBe(0);
    expect(JSON.parse(got.out)).toEqual(want);
    // reading made no side file of its own there
    expect(readdirSync(join(dir, "store"))).not.toContain("s.db-shm");
  });
});
