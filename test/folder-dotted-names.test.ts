/**
 * Issue #38 item 2: a folder's thread ids are its files' stems when the documents do not hold their id (AI SDK
 * chats), so a folder-to-folder migrate keeps each stem as it is: `chat.2.json` is written as chat.2.json (not
 * chat_2.json, which reads back as thread `chat_2`, "got nothing" for `chat.2`), and `a.b` and `a_b` never share
 * a file.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const SOURCES: Record<string, string> = {
  "chat.2": "v6-reasoning.json",
  "a.b": "v5-tools.json",
  a_b: "v4-tools.json",
  plain: "v7-file-metadata.json",
};
const ids = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as Array<{ id: string }>).map((m) => m.id);

let work: string;
let src: string;
let out: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "ckpt-dotted-"));
  src = join(work, "r1");
  out = join(work, "r1out");
  mkdirSync(src);
  for (const [stem, f] of Object.entries(SOURCES))
    cpSync(join(ROOT, "fixtures/ai-sdk/valid", f), join(src, `${stem}.json`));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("folder migrate of files with a '.' in their name (--to-format ai-sdk@7)", () => {
  test("every stem is written as it is and verified; a rerun finds them all identical", async () => {
    const env = { XDG_STATE_HOME: join(work, "state") };
    const r = await runCli(["migrate", "--from", `file:${src}`, "--to", `file:${out}`, "--to-format", "ai-sdk@7"], {
      env,
    });
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("read 4, written 4, skipped 0, rejected 0, verified 4");
    expect(readdirSync(out).sort()).toEqual(["a.b.json", "a_b.json", "chat.2.json", "plain.json"]);
    // each file holds its own source's chat (the messages' ids of the fixture it came from)
    for (const [stem, f] of Object.entries(SOURCES))
      expect(ids(join(out, `${stem}.json`)), stem).toEqual(ids(join(ROOT, "fixtures/ai-sdk/valid", f)));
    const again = await runCli(["migrate", "--from", `file:${src}`, "--to", `file:${out}`, "--to-format", "ai-sdk@7"], {
      env,
    });
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain("written 0, skipped 4 (4 identical)");
  });

  test("the target lists the source's thread ids", async () => {
    const a = await runCli(["ls", `file:${src}`, "--json"]);
    const b = await runCli(["ls", `file:${out}`, "--json"]);
    expect(b.code, b.err).toBe(0);
    const threads = (s: string) => (JSON.parse(s) as Array<{ threadId: string }>).map((t) => t.threadId).sort();
    expect(threads(b.out)).toEqual(threads(a.out));
    expect(threads(b.out)).toEqual(["a.b", "a_b", "chat.2", "plain"]);
  });
});
