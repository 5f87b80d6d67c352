/**
 * #15 item 12: migrate's journal lives in a per-user state folder ($XDG_STATE_HOME/ckpt/, else ~/.local/state/ckpt/),
 * never in the current folder; its path is printed; it is removed after a verified finish; an unwritable one is
 * exit 4 naming the path. #15 item 23: the project carries no .npmrc, so npm prints no "Unknown project config".
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const SAMPLES = `file:${join(ROOT, "fixtures/savers/deepagent-filesaver")}`;
const JOURNAL_LINE = /^journal: (.+\/migrate-[0-9a-f]{12}\.journal) \(removed when the migration finishes\)$/m;

function scratch() {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-journal-"));
  const home = join(dir, "home");
  const work = join(dir, "work");
  mkdirSync(home);
  mkdirSync(work);
  return { dir, home, work };
}

describe("migrate's journal", () => {
  it("without XDG_STATE_HOME: under ~/.local/state/ckpt/, printed, removed after the finish, nothing in the current folder", async () => {
    const { home, work } = scratch();
    const r = await runCli(["migrate", "--from", SAMPLES, "--to", `sqlite:${join(work, "out.db")}`], {
      cwd: work,
      env: { HOME: home },
    });
    expect(r.code, r.err).toBe(0);
    const path = JOURNAL_LINE.exec(r.err)?.[1];
    expect(path, r.err).toBeDefined();
    expect(path!.startsWith(join(home, ".local", "state", "ckpt") + "/")).toBe(true);
    expect(existsSync(join(home, ".local", "state", "ckpt"))).toBe(true);
    expect(existsSync(path!)).toBe(false);
    expect(readdirSync(work)).toEqual(["out.db"]);
  });

  it("XDG_STATE_HOME (absolute) is used; a relative one is ignored as the XDG spec says", async () => {
    const { dir, home, work } = scratch();
    const state = join(dir, "state");
    const a = await runCli(["migrate", "--from", SAMPLES, "--to", `sqlite:${join(work, "a.db")}`], {
      cwd: work,
      env: { HOME: home, XDG_STATE_HOME: state },
    });
    expect(a.code, a.err).toBe(0);
    expect(JOURNAL_LINE.exec(a.err)?.[1]?.startsWith(join(state, "ckpt") + "/")).toBe(true);
    const b = await runCli(["migrate", "--from", SAMPLES, "--to", `sqlite:${join(work, "b.db")}`], {
      cwd: work,
      env: { HOME: home, XDG_STATE_HOME: "rel/state" },
    });
    expect(b.code, b.err).toBe(0);
    expect(JOURNAL_LINE.exec(b.err)?.[1]?.startsWith(join(home, ".local", "state", "ckpt") + "/")).toBe(true);
    expect(existsSync(join(work, "rel"))).toBe(false);
  });

  it("a state folder that cannot be written is exit 4 naming the journal's path, and nothing is migrated", async () => {
    const { dir, home, work } = scratch();
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "a file where the state folder should be");
    const r = await runCli(["migrate", "--from", SAMPLES, "--to", `sqlite:${join(work, "c.db")}`], {
      cwd: work,
      env: { HOME: home, XDG_STATE_HOME: blocker },
    });
    expect(r.code).toBe(4);
    expect(r.err).toContain(join(blocker, "ckpt", "migrate-"));
    expect(r.err).toMatch(/cannot write the migration journal/);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(work, "c.db"))).toBe(false);
  });
});

describe("npm configuration", () => {
  it("the project has no .npmrc of its own: npm prints no 'Unknown project config' warning", () => {
    expect(existsSync(join(ROOT, ".npmrc"))).toBe(false);
    const r = spawnSync("npm", ["pkg", "get", "name"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('"ckpt"');
    expect(r.stderr).not.toMatch(/Unknown project config/);
  });
});
