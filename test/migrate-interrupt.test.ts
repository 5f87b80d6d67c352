/**
 * #15 item 14: Ctrl-C (SIGINT) during `ckpt migrate` exits 130 and says what was written and that the same command
 * with --resume finishes it; --resume then completes, and the target holds exactly the source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "ckpt.js");
const N = 4000;

let dir: string;
let src: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-sigint-"));
  src = join(dir, "src");
  mkdirSync(src);
  const base = JSON.parse(
    readFileSync(join(ROOT, "fixtures/savers/deepagent-filesaver/user_42_session_1.json"), "utf8"),
  ) as object;
  for (let i = 0; i < N; i++) {
    const id = `t-${String(i).padStart(5, "0")}`;
    writeFileSync(join(src, `${id}.json`), JSON.stringify({ ...base, threadId: id, step: i }, null, 2));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, NO_COLOR: "1", XDG_STATE_HOME: join(dir, "state") });

/** Run migrate, send SIGINT once the first batch is reported written (--json progress), wait for the exit. */
function interrupted(
  args: string[],
): Promise<{ code: number | null; signal: string | null; out: string; err: string; writtenAtSignal: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, "migrate", ...args, "--json"], { cwd: dir, env: env() });
    let out = "";
    let err = "";
    let writtenAtSignal = -1;
    p.stdout.on("data", (d: Buffer) => {
      out += d;
      if (writtenAtSignal >= 0) return;
      const progress = out
        .split("\n")
        .filter((l) => l.startsWith('{"type":"progress"'))
        .map((l) => JSON.parse(l) as { written: number });
      const last = progress.at(-1);
      if (last && last.written > 0) {
        writtenAtSignal = last.written;
        p.kill("SIGINT");
      }
    });
    p.stderr.on("data", (d: Buffer) => (err += d));
    p.on("error", reject);
    p.on("close", (code, signal) => resolve({ code, signal, out, err, writtenAtSignal }));
  });
}

describe("migrate: Ctrl-C", () => {
  it("exits 130 saying what was written and that --resume finishes it; --resume completes, identical to the source", async () => {
    const db = join(dir, "target.db");
    const args = ["--from", `file:${src}`, "--to", `sqlite:${db}`, "--batch-size", "20"];
    const r = await interrupted(args);
    expect(r.writtenAtSignal, "the run was signalled after its first written batch").toBeGreaterThan(0);
    expect(r.signal).toBeNull(); // it handled the signal and exited by itself
    expect(r.code, r.err).toBe(130);
    const summary = JSON.parse(r.out.trim().split("\n").at(-1)!) as {
      type: string;
      interrupted: boolean;
      written: number;
      read: number;
      journal: string;
      exitCode: number;
    };
    expect(summary).toMatchObject({ type: "summary", interrupted: true, exitCode: 130 });
    expect(summary.written).toBeGreaterThanOrEqual(r.writtenAtSignal);
    expect(summary.written).toBeLessThan(N);
    const journal = summary.journal;
    expect(journal.startsWith(join(dir, "state", "ckpt"))).toBe(true);
    expect(existsSync(journal)).toBe(true);
    // one line on stderr with the counts and what to do
    const line = r.err.split("\n").find((l) => l.startsWith("ckpt: interrupted:"));
    expect(line).toBe(
      `ckpt: interrupted: ${summary.written.toLocaleString("en-US")} record(s) written and journaled, ${summary.read.toLocaleString("en-US")} read; the journal at ${journal} lets the same command with --resume finish it`,
    );
    expect(r.err).not.toMatch(/\n\s+at /); // no stack

    // what the journal holds is in the target, and only that many records
    const committed = readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .filter((l) => l.startsWith('{"k":')).length;
    expect(committed).toBe(summary.written);
    // each line's hash is the sha256 of the document as read (its file's bytes), each key one of the source's threads
    for (const line of readFileSync(journal, "utf8").trim().split("\n").slice(1)) {
      const e = JSON.parse(line) as { k: string; h: string };
      const [ns, id] = e.k.split("\u0000");
      expect(ns).toBe("default");
      expect(e.h, e.k).toBe(
        createHash("sha256")
          .update(readFileSync(join(src, `${id}.json`)))
          .digest("hex"),
      );
    }
    const partial = await openSaver(`sqlite:${db}`);
    expect(await partial.count()).toBe(summary.written);
    await partial.close();

    // without --resume the next run refuses (the journal blocks it)
    const again = spawnSync(process.execPath, [BIN, "migrate", ...args, "-q"], {
      cwd: dir,
      env: env(),
      encoding: "utf8",
    });
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("pass --resume to finish it");

    const resumed = spawnSync(process.execPath, [BIN, "migrate", ...args, "--resume", "-q"], {
      cwd: dir,
      env: env(),
      encoding: "utf8",
    });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      `read ${N.toLocaleString("en-US")}, written ${(N - summary.written).toLocaleString("en-US")}`,
    );
    expect(resumed.stdout).toContain(`(${summary.written.toLocaleString("en-US")} done before the interruption)`);
    expect(existsSync(journal)).toBe(false);

    // the target holds every source document, each equal to its file (compact JSON)
    const s = await openSaver(`sqlite:${db}`);
    expect(await s.count()).toBe(N);
    for (const f of readdirSync(src)) {
      const text = await s.load(f.slice(0, -5));
      expect(text !== undefined && JSON.stringify(JSON.parse(text)), f).toBe(
        JSON.stringify(JSON.parse(readFileSync(join(src, f), "utf8"))),
      );
    }
    await s.close();
  }, 120_000);
});
