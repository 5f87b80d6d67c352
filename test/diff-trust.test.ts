/**
 * `ckpt diff` says only what is true (#15 items 6, 7, 17, 22): a thread id derived from a file name is not content,
 * a swapped pair of messages is reported as moved messages, and `--format` names the input format as in every
 * other command (the output has its own option).
 */
import { describe, expect, test } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";

async function run(argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
  });
  return { code, out, err };
}

const tmp = () => mkdtempSync(join(tmpdir(), "ckpt-diff-trust-"));
const YO = "fixtures/yoagent/valid/save_messages.v0.18.json";
const PHI = "fixtures/phi-core/valid/save_messages.v0.10.json";
const DEEP = "fixtures/deepagent/valid/user_42_session_1.json";

describe("a thread id derived from the file name is not content (#15 item 6)", () => {
  for (const [format, sample] of [["yoagent", YO], ["phi-core", PHI]] as const) {
    test(`${format}: a file and its copy under another name are identical, said once`, async () => {
      const d = tmp();
      const a = join(d, "a.json");
      const b = join(d, "copy-of-a.json");
      copyFileSync(sample, a);
      copyFileSync(sample, b);
      for (const extra of [[], ["--ignore-volatile"]]) {
        const r = await run(["diff", a, b, ...extra]);
        expect(r.code, r.out + r.err).toBe(0);
        expect(r.out).toContain("Identical.");
        const notes = r.out.split("\n").filter((l) => l.startsWith("note:"));
        expect(notes).toEqual([`note: thread id not compared: a's 'a' (${format}) and b's 'copy-of-a' (${format}) are derived from the file name, not content`]);
        expect(r.out).not.toContain("/threadId");
      }
      const j = JSON.parse((await run(["diff", a, b, "--json"])).out);
      expect(j.identical).toBe(true);
      expect(j.a).toMatchObject({ threadId: "a", threadIdFrom: "file-name" });
      expect(j.b).toMatchObject({ threadId: "copy-of-a", threadIdFrom: "file-name" });
      expect(j.changes).toEqual([]);
      expect(j.notes.filter((n: string) => n.includes("thread id"))).toHaveLength(1);
    });
  }
  test("a real change between the two files is still reported", async () => {
    const d = tmp();
    const a = join(d, "a.json");
    const b = join(d, "copy-of-a.json");
    copyFileSync(YO, a);
    writeFileSync(b, readFileSync(YO, "utf8").replace("Again please", "Again, please"));
    const r = await run(["diff", a, b, "--ignore-volatile", "--json"]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j.changes.map((c: { kind: string; op?: string }) => `${c.kind} ${c.op}`)).toEqual(["message edited"]);
  });
  test("a thread id that is content (deep-agent's threadId) is still compared", async () => {
    const d = tmp();
    const b = join(d, "other.json");
    writeFileSync(b, readFileSync(DEEP, "utf8").replace('"threadId": "user:42/session#1"', '"threadId": "user:42/session#2"'));
    const r = await run(["diff", DEEP, b]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('/threadId: "user:42/session#1" → "user:42/session#2"');
    expect(r.out).not.toContain("note: thread id");
  });
});
