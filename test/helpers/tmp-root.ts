/**
 * Vitest global setup: every temporary file a run makes goes under one folder of its own, removed when the run ends.
 * Tests make theirs with mkdtemp(tmpdir()) and many do not remove them (a killed ckpt, a failed assertion, a store
 * shared by a file); os.tmpdir() reads TMPDIR, which the test workers and every process they start (ckpt, the Node 22
 * peers, Chromium) inherit, so pointing it at this folder cleans all of them up at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "ckpt-test-"));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
