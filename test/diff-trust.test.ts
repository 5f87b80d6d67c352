/**
 * `ckpt diff` says only what is true (#15 items 6, 7, 17, 22): a thread id derived from a file name is not content,
 * a swapped pair of messages is reported as moved messages, and `--format` names the input format as in every
 * other command (the output has its own option).
 */
import { describe, expect, test } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

/** main() in-process with an empty environment (no colour: not a TTY). */
const run = (argv: string[]) => runCli(argv, { env: {} });

const tmp = () => mkdtempSync(join(tmpdir(), "ckpt-diff-trust-"));
const YO = "fixtures/yoagent/valid/save_messages.v0.18.json";
const PHI = "fixtures/phi-core/valid/save_messages.v0.10.json";
const DEEP = "fixtures/deepagent/valid/user_42_session_1.json";

describe("a thread id derived from the file name is not content (#15 item 6)", () => {
  for (const [format, sample] of [
    ["yoagent", YO],
    ["phi-core", PHI],
  ] as const) {
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
        expect(notes).toEqual([
          `note: thread id not compared: a's 'a' (${format}) and b's 'copy-of-a' (${format}) are derived from the file name or store key, not content`,
        ]);
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
    writeFileSync(
      b,
      readFileSync(DEEP, "utf8").replace('"threadId": "user:42/session#1"', '"threadId": "user:42/session#2"'),
    );
    const r = await run(["diff", DEEP, b]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('/threadId: "user:42/session#1" → "user:42/session#2"');
    expect(r.out).not.toContain("note: thread id");
  });
});

describe("a swapped pair of messages is reported as two moved messages (#15 item 22)", () => {
  const swap = (text: string, get: (doc: unknown) => unknown[], i: number) => {
    const doc = JSON.parse(text) as unknown;
    const ms = get(doc);
    [ms[i], ms[i + 1]] = [ms[i + 1], ms[i]];
    return JSON.stringify(doc, null, 2);
  };
  const cases = [
    // yoagent: [4] assistant and [5] the status_update extension message
    {
      name: "yoagent",
      sample: YO,
      get: (d: unknown) => d as unknown[],
      i: 4,
      want: [
        ["moved", 5, 4, "extension"],
        ["moved", 4, 5, "assistant"],
      ],
    },
    // deep-agent: [1] assistant and [2] user
    {
      name: "deepagent",
      sample: DEEP,
      get: (d: unknown) => (d as { messages: unknown[] }).messages,
      i: 1,
      want: [
        ["moved", 2, 1, "user"],
        ["moved", 1, 2, "assistant"],
      ],
    },
  ];
  for (const c of cases) {
    test(`${c.name}: messages ${c.i} and ${c.i + 1} swapped`, async () => {
      const d = tmp();
      const b = join(d, "swapped.json");
      writeFileSync(b, swap(readFileSync(c.sample, "utf8"), c.get, c.i));
      const r = await run(["diff", c.sample, b, "--json"]);
      expect(r.code).toBe(1);
      const j = JSON.parse(r.out);
      expect(
        j.changes.map((x: { op: string; a: number; b: number; role: string }) => [x.op, x.a, x.b, x.role]),
      ).toEqual(c.want);
      expect(j.summary.text).toBe("2 messages moved");
      const t = await run(["diff", c.sample, b]);
      expect(t.out).toContain(`↕ [${c.i + 1} → ${c.i}] moved ${c.want[0]![3]}:`);
      expect(t.out).toContain(`↕ [${c.i} → ${c.i + 1}] moved ${c.want[1]![3]}:`);
      // the patch still needs one move only
      const p = JSON.parse((await run(["diff", c.sample, b, "--reporter", "json-patch"])).out);
      expect(p).toEqual([{ op: "move", from: `/messages/${c.i + 1}`, path: `/messages/${c.i}` }]);
    });
  }
});

describe("--format is the input format in diff too; the output is --reporter (#15 item 17)", () => {
  const LEGACY = "fixtures/yoagent/valid/save_messages.legacy-pre-0.13.json"; // snake_case: yoagent < 0.13 and phi-core both fit
  test("--format <input format> / -f reads both inputs as that format", async () => {
    const detected = await run(["diff", LEGACY, LEGACY]);
    expect(detected.out.split("\n")[0]).toContain("(yoagent, ");
    for (const flag of ["--format", "-f", "--input-format", "-F"]) {
      const r = await run(["diff", LEGACY, LEGACY, flag, "phi-core"]);
      expect(r.code, flag + r.err).toBe(0);
      expect(r.out.split("\n")[0], flag).toContain("(phi-core, ");
      expect(r.err, flag).toBe("");
    }
  });
  test("--reporter / -r / --json choose the output, with no warning", async () => {
    const j = await run(["diff", YO, YO, "--reporter", "json"]);
    expect(JSON.parse(j.out).identical).toBe(true);
    expect(j.err).toBe("");
    const md = await run(["diff", YO, YO, "-r", "markdown"]);
    expect(md.out).toMatch(/^### ckpt diff: /);
    expect(JSON.parse((await run(["diff", YO, YO, "--json"])).out).identical).toBe(true);
  });
  test("--format <output name> still selects the output, with one deprecation line on stderr", async () => {
    for (const [v, check] of [
      ["json", (out: string) => expect(JSON.parse(out).identical).toBe(true)],
      ["json-patch", (out: string) => expect(JSON.parse(out)).toEqual([])],
      ["markdown", (out: string) => expect(out).toMatch(/^### ckpt diff: /)],
    ] as const) {
      const r = await run(["diff", YO, YO, "--format", v]);
      expect(r.code).toBe(0);
      check(r.out);
      expect(r.err).toBe(
        `ckpt diff: --format ${v} is deprecated for the output: use --reporter ${v} (--format names the input format, as in the other commands)\n`,
      );
    }
  });
  test("conflicts are usage errors (exit 2)", async () => {
    expect((await run(["diff", YO, YO, "--format", "json", "--reporter", "markdown"])).code).toBe(2);
    expect((await run(["diff", YO, YO, "--format", "phi-core", "--input-format", "yoagent"])).code).toBe(2);
    expect((await run(["diff", YO, YO, "--json", "-r", "markdown"])).code).toBe(2);
    expect((await run(["diff", YO, YO, "--format", "yaml"])).code).toBe(2);
  });
  test("help: --format is the input format, --reporter the output", async () => {
    const r = await run(["diff", "--help"]);
    const text = r.out + r.err;
    expect(text).toMatch(/-f, --format\s+format of both inputs/);
    expect(text).toMatch(/-r, --reporter\s+output: text \(default\), json, json-patch/);
  });
});
