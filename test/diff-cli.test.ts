import { afterAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import jsonpatch from "fast-json-patch";
import { main } from "../src/cli/main.js";
import { parseJson } from "../src/base/json.js";

const BASE = "fixtures/diff/ckpt/base.json";
const AFTER = "fixtures/diff/ckpt/after.json";
const expected = JSON.parse(readFileSync("fixtures/diff/ckpt/after.expect.json", "utf8"));

async function run(argv: string[], opts: { stdin?: string; env?: Record<string, string>; tty?: boolean } = {}) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s), isTTY: opts.tty ?? false },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([Buffer.from(opts.stdin ?? "")]),
    env: opts.env ?? {},
    cwd: process.cwd(),
  });
  return { code, out, err };
}

describe("ckpt diff (CLI)", () => {
  test("identical documents: exit 0", async () => {
    const r = await run(["diff", BASE, BASE]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Identical.");
  });
  test("different: exit 1, summary paragraph first, then detail", async () => {
    const r = await run(["diff", BASE, AFTER]);
    expect(r.code).toBe(1);
    const lines = r.out.split("\n");
    expect(lines[0]).toBe(`--- a: ${BASE} (ckpt, thread t-1, 5 messages)`);
    expect(lines[1]).toBe(`+++ b: ${AFTER} (ckpt, thread t-1, 7 messages)`);
    expect(lines[3]).toBe(expected.summary + ".");
    expect(r.out).toContain("+ [5] appended user: Now add a test");
    expect(r.out).toContain("export function parse() {{+ return 1; +}}"); // plain word-diff markers without colour
    expect(r.out).toContain("    +  return 1;");
    expect(r.out).not.toMatch(/\x1b\[/);
  });
  test("colour on a TTY, off with NO_COLOR", async () => {
    expect((await run(["diff", BASE, AFTER], { tty: true })).out).toMatch(/\x1b\[32m/);
    expect((await run(["diff", BASE, AFTER], { tty: true, env: { NO_COLOR: "1" } })).out).not.toMatch(/\x1b\[/);
  });
  test("--stat prints the summary only", async () => {
    const r = await run(["diff", BASE, AFTER, "--stat"]);
    expect(r.code).toBe(1);
    expect(r.out.trim().split("\n").pop()).toBe(expected.summary + ".");
    expect(r.out).not.toContain("Messages");
  });
  test("--quiet prints nothing", async () => {
    const r = await run(["diff", BASE, AFTER, "--quiet"]);
    expect(r).toEqual({ code: 1, out: "", err: "" });
    expect((await run(["diff", BASE, BASE, "-q"])).code).toBe(0);
  });
  test("--json change records", async () => {
    const r = await run(["diff", BASE, AFTER, "--json"]);
    const d = JSON.parse(r.out);
    expect(d.identical).toBe(false);
    expect(d.summary.text).toBe(expected.summary);
    expect(d.summary.messages).toMatchObject({ a: 5, b: 7, appended: 2, toolResultsChanged: 1 });
    expect(d.a).toEqual({ name: BASE, format: "ckpt", threadId: "t-1", messages: 5 });
    expect(d.changes.find((c: { kind: string }) => c.kind === "todo")).toMatchObject({
      op: "status",
      id: "2",
      before: "pending",
      after: "completed",
    });
  });
  test("--reporter json-patch: applied to a, gives b", async () => {
    const r = await run(["diff", BASE, AFTER, "--reporter", "json-patch"]);
    expect(r.code).toBe(1);
    const a = parseJson(readFileSync(BASE, "utf8"));
    const b = parseJson(readFileSync(AFTER, "utf8"));
    expect(jsonpatch.applyPatch(a, JSON.parse(r.out), true, false).newDocument).toEqual(b);
  });
  test("--reporter markdown: summary, message table, fenced diffs", async () => {
    const r = await run(["diff", BASE, AFTER, "--reporter", "markdown"]);
    expect(r.out).toContain(`**Summary:** ${expected.summary}.`);
    expect(r.out).toContain("| change | a | b | role | message |");
    expect(r.out).toContain("| appended |  | 5 | user | Now add a test |");
    expect(r.out).toContain(
      "```diff\n--- a/parser.ts\n+++ b/parser.ts\n@@ -1,1 +1,3 @@\n-export function parse() {}\n",
    );
    expect(r.out).toContain("| todo 2 (fix parser) | pending | completed |");
  });
  test("--ignore and --ignore-volatile", async () => {
    const r = await run(["diff", BASE, AFTER, "--stat", "--ignore-volatile"]);
    expect(r.out.trim().split("\n").pop()).toBe(expected.volatileSummary + ".");
    const all = ["--ignore", "/messages/**", "--ignore", "/state/**", "--ignore", "/step", "--ignore", "/updatedAt"];
    expect((await run(["diff", BASE, AFTER, "-q", ...all])).code).toBe(0);
  });
  test("stdin as '-'", async () => {
    const r = await run(["diff", "-", AFTER, "--stat"], { stdin: readFileSync(BASE, "utf8") });
    expect(r.code).toBe(1);
    expect(r.out).toContain("--- a: <stdin>");
  });
  test("cross-format: a yoagent file against a phi-core file", async () => {
    const r = await run([
      "diff",
      "fixtures/yoagent/valid/save_messages.v0.18.json",
      "fixtures/phi-core/valid/save_messages.v0.10.json",
      "--json",
    ]);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.out);
    expect([d.a.format, d.b.format]).toEqual(["yoagent", "phi-core"]);
    expect(d.notes[0]).toMatch(/formats differ/);
  });
  describe("errors", () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-diff-"));
    test("missing file: exit 3, one line", async () => {
      const r = await run(["diff", BASE, join(dir, "nope.json")]);
      expect(r.code).toBe(3);
      expect(r.err).toBe(`ckpt: ${join(dir, "nope.json")}: no such file or directory\n`);
      expect(r.out).toBe("");
    });
    test("JSON syntax error: exit 3 with line:column", async () => {
      const p = join(dir, "bad.json");
      writeFileSync(p, '{"schemaVersion": 1, "messages": [\n  {"role": }\n]}\n');
      const r = await run(["diff", p, BASE]);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(new RegExp(`^ckpt: ${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2:12: `));
      expect(r.err.trim().split("\n")).toHaveLength(1);
    });
    test("not a canonical checkpoint: exit 3 naming pointer and line:column", async () => {
      const p = join(dir, "notcp.json");
      writeFileSync(
        p,
        '{\n  "schemaVersion": 1,\n  "threadId": "t",\n  "step": "two",\n  "messages": [],\n  "state": {}\n}\n',
      );
      const r = await run(["diff", p, BASE]);
      expect(r.code).toBe(3);
      expect(r.err).toBe(`ckpt: ${p}:4:11: /step: not a valid ckpt checkpoint: expected integer\n`);
    });
    // diff checks a native document against its format's schema and maps it without the canonical gate when it
    // fits; one that does not fit still gets the canonical gate, so what diff accepts and says is unchanged
    test("a yoagent file its schema refuses but that maps to a valid checkpoint is still compared", async () => {
      const x = join(dir, "no-time-x.json");
      const y = join(dir, "no-time-y.json");
      writeFileSync(x, '[{"role":"user","content":[{"type":"text","text":"hi"}]}]'); // yoagent requires timestamp
      writeFileSync(y, '[{"role":"user","content":[{"type":"text","text":"hello"}]}]');
      const r = await run(["diff", x, y, "-F", "yoagent"]);
      expect(r.err).toBe("");
      expect(r.code).toBe(1);
      expect(r.out).toContain("1 message edited.");
    });
    test("a yoagent file that maps to no valid checkpoint: exit 3 naming the canonical place", async () => {
      const z = join(dir, "text-number.json");
      writeFileSync(z, '[{"role":"user","content":[{"type":"text","text":5}],"timestamp":1}]');
      const r = await run(["diff", z, z, "-F", "yoagent"]);
      expect(r.code).toBe(3);
      expect(r.err).toBe(
        `ckpt: ${z}: its yoagent content does not map to a valid checkpoint at canonical /messages/0/content/0/text: expected string\n`,
      );
    });
    test("usage errors: exit 2", async () => {
      expect((await run(["diff", BASE])).code).toBe(2);
      expect((await run(["diff", "-", "-"])).code).toBe(2);
      expect((await run(["diff", BASE, AFTER, "--json", "--reporter", "markdown"])).code).toBe(2);
      expect((await run(["diff", BASE, AFTER, "--ignore", "messages/*"])).code).toBe(2);
      expect((await run(["diff", BASE, AFTER, "--reporter", "json-patch", "--stat"])).code).toBe(2);
    });
  });
});

describe("ckpt diff: usage totals are named in words", () => {
  // a-chat-1 of the Python-written LangGraph sample: two steps back has 90 input + 21 output tokens, the newest 170 + 28
  // (usage_metadata of its AI messages); the total is their sum, and each key is printed as a word, not a schema key
  const dir = mkdtempSync(join(tmpdir(), "ckpt-diff-usage-"));
  const db = join(dir, "python-a.sqlite");
  writeFileSync(db, readFileSync("fixtures/langgraph/python-a.sqlite"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  test("text and markdown reports say 'total tokens', never 'totalTokens tokens'", async () => {
    const a = `sqlite:${db}#a-chat-1@~2`;
    const b = `sqlite:${db}#a-chat-1`;
    const text = await run(["diff", a, b]);
    expect(text.code).toBe(1);
    expect(text.out).toContain("  input tokens: 90 → 170 (+80)");
    expect(text.out).toContain("  output tokens: 21 → 28 (+7)");
    expect(text.out).toContain(`  total tokens: ${90 + 21} → ${170 + 28} (+${170 + 28 - 90 - 21})`);
    expect(text.out).not.toMatch(/totalTokens tokens|cacheRead tokens/);
    const md = await run(["diff", a, b, "--reporter", "markdown"]);
    expect(md.out).toContain(`| total tokens | ${90 + 21} | ${170 + 28} |`);
    expect(md.out).not.toContain("totalTokens tokens");
  });
});
