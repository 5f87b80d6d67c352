import { describe, expect, it } from "vitest";
import { mkdtempSync, copyFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

const samples = join(import.meta.dirname, "..", "fixtures", "savers", "deepagent-filesaver");
function io(): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}

describe("ckpt ls and show", () => {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-ls-"));
  for (const f of readdirSync(samples)) copyFileSync(join(samples, f), join(dir, f));

  it("ls lists real thread ids with step, message count and size (values from the sample files)", async () => {
    const t = io();
    expect(await main(["ls", `file:${dir}`, "--json"], t)).toBe(0);
    const rows = JSON.parse(t.out());
    // user_42_session_1.json: threadId "user:42/session#1", step 3, 4 messages, updatedAt 2026-11-22T08:13:51.586Z
    expect(rows).toContainEqual(
      expect.objectContaining({
        threadId: "user:42/session#1",
        format: "deepagent",
        step: 3,
        messages: 4,
        updatedAt: "2026-11-22T08:13:51.586Z",
      }),
    );
    expect(rows).toContainEqual(
      expect.objectContaining({ threadId: "explicit-messages-thread", step: 1, messages: 2 }),
    );
    const t2 = io();
    expect(await main(["ls", `file:${dir}`], t2)).toBe(0);
    expect(t2.out()).toMatch(/user:42\/session#1\s+deepagent\s+3\s+4/);
    expect(t2.out()).toMatch(/2 threads/);
  });

  it("show prints a transcript of a thread named by URI#threadId, with todos and files", async () => {
    const t = io();
    expect(await main(["show", `file:${dir}#user:42/session#1`], t)).toBe(0);
    const out = t.out();
    expect(out).toMatch(/thread user:42\/session#1 — deepagent, step 3, 4 messages/);
    expect(out).toMatch(/#0 user\n {4}Create a project plan/);
    expect(out).toMatch(/\[in_progress\] 1: Outline the project/);
    expect(out).toMatch(/\/plan\.md \(3 lines/);
    const j = io();
    expect(await main(["show", join(dir, "user_42_session_1.json"), "--json"], j)).toBe(0);
    expect(JSON.parse(j.out())).toMatchObject({ schemaVersion: 1, threadId: "user:42/session#1", step: 3 });
  });

  it("show of a missing thread is a clear input error", async () => {
    const t = io();
    expect(await main(["show", `file:${dir}#nope`], t)).toBe(3);
    expect(t.err()).toMatch(/no thread 'nope' in namespace 'default'/);
  });
});

describe("file saver over a folder that is not pure FileSaver output", () => {
  it("finds a thread whose file name is not its sanitized id, and prefers deep-agent's own path when two files claim one thread", async () => {
    const t = io();
    expect(
      await main(["ls", `file:${join(import.meta.dirname, "..", "fixtures", "deepagent", "valid")}`, "--json"], t),
    ).toBe(0);
    const all = JSON.parse(t.out()) as Array<{ threadId: string; messages: number; step: number; error?: string }>;
    // test-createTestCheckpoint.file-saver.json holds thread "test-thread" (1 message); snapshot-after-run1.json and
    // user_42_session_1.json both hold "user:42/session#1": the latter is at FileSaver's path (step 3, 4 messages)
    const rows = all.filter((r) => r.error === undefined);
    // the file not read is named, not left out silently (#27 item 2)
    expect(all.filter((r) => r.error !== undefined)).toEqual([
      expect.objectContaining({
        threadId: "user:42/session#1",
        error: expect.stringMatching(
          /snapshot-after-run1\.json: thread 'user:42\/session#1' is read from user_42_session_1\.json/,
        ),
      }),
    ]);
    expect(rows.map((r) => r.threadId)).toEqual([
      "all-variants",
      "explicit-messages-thread",
      "test-thread",
      "user:42/session#1",
    ]);
    expect(rows.find((r) => r.threadId === "test-thread")).toMatchObject({ messages: 1 });
    expect(rows.find((r) => r.threadId === "user:42/session#1")).toMatchObject({ step: 3, messages: 4 });
  });
});
