/**
 * Issue #42 item 10: when `VACUUM` fails after the prune committed (here: the disk is full), `ckpt prune --vacuum`
 * prints the summary of what the prune deleted, then the vacuum's error, and exits 4 (a store error). The disk is
 * really full: the store lives on a small tmpfs this test mounts (root only; skipped elsewhere) and fills, leaving
 * room for the prune's few changed pages but not for the VACUUM, which rewrites the whole file through the WAL.
 * What was deleted is counted by the independent reader (test/helpers/lg-independent.ts), not by ckpt.
 */
import { afterAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import { runCli } from "./helpers/cli-io.js";
import { readSqliteStore } from "./helpers/lg-independent.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const mnt = mkdtempSync(join(tmpdir(), "prune-full-"));
let mounted = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt], { stdio: "ignore" });
  mounted = true;
} catch {
  // not root (or no mount in this container): the test is skipped
}
afterAll(() => {
  if (mounted) execFileSync("umount", [mnt]);
  rmSync(mnt, { recursive: true, force: true });
});

describe("prune --vacuum on a full disk", () => {
  it.skipIf(!mounted)(
    "prints what the prune deleted, then the vacuum's error, exit 4; the deletions stand",
    async () => {
      const db = join(mnt, "big.sqlite");
      copyFileSync(join(fx, "python-c.sqlite"), db);
      // 20 more copies of every thread (rows as the library wrote them, under other thread ids): a file of ~10 MB
      const w = new Database(db);
      const cols = {
        checkpoints: "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata",
        writes: "checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value",
      };
      for (let n = 1; n <= 20; n++)
        for (const [t, c] of Object.entries(cols))
          w.prepare(
            `INSERT INTO ${t} (thread_id, ${c}) SELECT thread_id || '~${n}', ${c} FROM ${t} WHERE thread_id NOT LIKE '%~%'`,
          ).run();
      w.pragma("wal_checkpoint(TRUNCATE)");
      w.close();
      const size = statSync(db).size;
      expect(size).toBeGreaterThan(8e6);
      // what is left free: room for the prune (one thread's pages), not for a VACUUM (the whole file again)
      const free = () => Number(execFileSync("df", ["-B1", "--output=avail", mnt]).toString().trim().split("\n")[1]);
      writeFileSync(join(mnt, "filler"), Buffer.alloc(Math.max(0, free() - 1_500_000)));
      const before = readSqliteStore(db);
      const r = await runCli(["prune", `sqlite:${db}`, "--thread", "c-delta-2", "--keep-last", "2", "--vacuum"], {
        cwd: mnt,
      });
      const after = readSqliteStore(db);
      const deleted = [...before.keys()].filter((k) => !after.has(k));
      // the prune committed: c-delta-2's checkpoints but the newest 2 of each namespace are gone, nothing else
      expect(deleted.length).toBeGreaterThan(40);
      expect(deleted.every((k) => k.startsWith("c-delta-2|"))).toBe(true);
      expect(r.code, r.err + r.out).toBe(4);
      // the summary first (stdout), naming what went, then the vacuum's error (stderr)
      expect(r.out).toContain(`deleted ${deleted.length} checkpoints`);
      expect(r.out).toMatch(/vacuum: failed after the prune committed/);
      expect(r.err).toMatch(/vacuuming .*big\.sqlite: .*(full|disk)/i);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack
    },
  );
});
