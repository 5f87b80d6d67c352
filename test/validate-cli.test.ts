/**
 * `ckpt validate` end to end through main(): exit codes, the text output's positions, directories, globs,
 * stdin, --format, --strict, --max-errors, --quiet, several reporters at once, and the generic lints on
 * hand-built canonical checkpoints (expected pointers and positions worked out by hand from the texts below).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import { quickValidateArgs, validateCommand } from "../src/cli/commands/validate.js";

const ROOT = join(import.meta.dirname, "..");

async function run(argv: string[], opts: { cwd?: string; stdin?: string; env?: Record<string, string> } = {}) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from(opts.stdin !== undefined ? [Buffer.from(opts.stdin)] : []),
    env: opts.env ?? { NO_COLOR: "1" },
    cwd: opts.cwd ?? ROOT,
  });
  return { code, out, err };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-validate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid canonical checkpoint, one property per line so positions are easy to work out by hand. */
function checkpoint(messages: unknown[], extra: Record<string, unknown> = {}) {
  return { schemaVersion: 1, threadId: "t1", step: 1, messages, state: {}, ...extra };
}
const user = (text: string, timestamp?: number) => ({
  role: "user",
  content: [{ type: "text", text }],
  ...(timestamp !== undefined ? { timestamp } : {}),
});
const call = (id: string, timestamp?: number) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "ls", arguments: {} }],
  stopReason: "toolUse",
  ...(timestamp !== undefined ? { timestamp } : {}),
});
const result = (id: string) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "ls",
  content: [{ type: "text", text: "a.txt" }],
  isError: false,
});

function write(name: string, value: unknown): string {
  const p = join(dir, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return p;
}

describe("exit codes", () => {
  test("valid canonical checkpoint: exit 0 and 'ok'", async () => {
    const p = write("ok.json", checkpoint([user("hi"), call("c1"), result("c1")]));
    const r = await run(["validate", p]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("ok ckpt");
    expect(r.out).toContain("1 file, 1 valid, 0 invalid: 0 errors, 0 warnings");
  });

  test("schema error: exit 1 with file:line:col, pointer, expectation and rule", async () => {
    // line 1 "{", line 2 schemaVersion, 3 threadId, 4 step, 5 "messages": [, 6 "{", 7 "role": "user"
    const p = write("bad-role.json", checkpoint([{ role: "usr", content: [] }]));
    const r = await run(["validate", p]);
    expect(r.code).toBe(1);
    // pointer /messages/0/role: the value "usr" starts at line 7, column 15 ('      "role": "usr"')
    expect(r.out).toContain(`${p}:7:15: error /messages/0/role: unknown role "usr"`);
    expect(r.out).toContain("schema/discriminator");
  });

  test("a wrong stopReason reports only the assistant branch's enum, not the other message shapes", async () => {
    const p = write("bad-stop.json", checkpoint([{ role: "assistant", content: [], stopReason: "done" }]));
    const r = await run(["validate", p, "--json"]);
    const issues = JSON.parse(r.out).files[0].issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ rule: "schema/enum", pointer: "/messages/0/stopReason", severity: "error" });
    expect(issues[0].message).toMatch(/^expected one of stop, length, toolUse/);
  });

  test("missing required property points at the object", async () => {
    const p = write("no-step.json", { schemaVersion: 1, threadId: "t", messages: [], state: {} });
    const r = await run(["validate", p, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).files[0].issues).toContainEqual(
      expect.objectContaining({
        rule: "schema/required",
        pointer: "",
        message: "missing required property 'step'",
        line: 1,
        column: 1,
      }),
    );
  });

  test("unreadable beats invalid: a batch with a missing file and an invalid one exits 3", async () => {
    const bad = write("bad2.json", checkpoint([{ role: "usr", content: [] }]));
    const r = await run(["validate", bad, join(dir, "nope.json")]);
    expect(r.code).toBe(3);
    expect(r.out).toContain("nope.json: error: no such file or directory");
    expect(r.out).toContain("2 files, 0 valid, 1 invalid, 1 unreadable");
  });

  test("unknown --format and unknown reporter are usage errors (2)", async () => {
    expect((await run(["validate", "x.json", "--format", "nope"])).code).toBe(2);
    const r = await run(["validate", "x.json", "--reporter", "xml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown reporter 'xml'");
    expect((await run(["validate", "x.json", "--bogus"])).code).toBe(2);
  });
});

describe("generic lints", () => {
  test("tool call without result and result without call", async () => {
    const p = write("orphans.json", checkpoint([user("hi"), call("c1"), result("c9")]));
    const r = await run(["validate", p, "--json"]);
    expect(r.code).toBe(0); // warnings only
    const issues = JSON.parse(r.out).files[0].issues;
    expect(issues).toContainEqual(
      expect.objectContaining({
        rule: "lint/tool-call-without-result",
        pointer: "/messages/1/content/0",
        severity: "warning",
      }),
    );
    expect(issues).toContainEqual(
      expect.objectContaining({ rule: "lint/tool-result-without-call", pointer: "/messages/2", severity: "warning" }),
    );
    expect((await run(["validate", p, "--strict"])).code).toBe(1);
  });

  test("a checkpoint paused at an interrupt may end with unanswered calls", async () => {
    const interrupt = { toolCall: { toolCallId: "c1", toolName: "ls", args: {} }, step: 1 };
    const p = write("interrupted.json", checkpoint([user("hi"), call("c1")], { interrupt }));
    const f = JSON.parse((await run(["validate", p, "--json"])).out).files[0];
    expect(f.valid).toBe(true);
    expect(f.issues).toEqual([]);
    // the same history without the interrupt is warned about
    const q = write("not-interrupted.json", checkpoint([user("hi"), call("c1")]));
    const g = JSON.parse((await run(["validate", q, "--json"])).out).files[0];
    expect(g.issues.map((i: { rule: string }) => i.rule)).toEqual(["lint/tool-call-without-result"]);
  });

  test("non-monotonic timestamps, duplicate tool-call ids, usage totals", async () => {
    const msgs = [
      user("a", 2000),
      call("c1", 1000),
      result("c1"),
      call("c1", 3000),
      result("c1"),
      {
        role: "assistant",
        content: [{ type: "text", text: "x" }],
        stopReason: "stop",
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 99 },
      },
      {
        role: "assistant",
        content: [{ type: "text", text: "y" }],
        stopReason: "stop",
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      },
      {
        role: "assistant",
        content: [{ type: "text", text: "z" }],
        stopReason: "stop",
        usage: { input: 10, output: 5, cacheRead: 3, cacheWrite: 2, totalTokens: 20 },
      },
    ];
    const p = write("lints.json", checkpoint(msgs));
    const file = JSON.parse((await run(["validate", p, "--json"])).out).files[0];
    expect(file.valid).toBe(true);
    const issues = file.issues;
    const rules = issues.map((i: { rule: string; pointer: string }) => `${i.rule} ${i.pointer}`);
    expect(rules).toContain("lint/non-monotonic-timestamp /messages/1");
    expect(rules).toContain("lint/duplicate-id /messages/3/content/0");
    expect(rules).toContain("lint/usage-total-mismatch /messages/5/usage");
    // 0 (Anthropic leaves it unset) and input+output+cacheRead+cacheWrite are both fine
    expect(rules).not.toContain("lint/usage-total-mismatch /messages/6/usage");
    expect(rules).not.toContain("lint/usage-total-mismatch /messages/7/usage");
  });

  test("integers beyond 2^53 are warned about and kept exact; __proto__ keys are flagged", async () => {
    const text = `{"schemaVersion": 1, "threadId": "t", "step": 1, "messages": [], "state": {"big": 9007199254740993}, "ext": {"x": {"__proto__": 1}}}`;
    const p = write("big.json", text);
    const file = JSON.parse((await run(["validate", p, "--json"])).out).files[0];
    expect(file.valid).toBe(true);
    const issues = file.issues;
    const big = issues.find((i: { rule: string }) => i.rule === "lint/unsafe-integer");
    expect(big).toMatchObject({ pointer: "/state/big", line: 1, column: text.indexOf("9007199254740993") + 1 });
    expect(big.message).toContain("9007199254740993"); // not ...992 as JSON.parse would give
    expect(issues).toContainEqual(expect.objectContaining({ rule: "lint/prototype-key", pointer: "/ext/x/__proto__" }));
  });
});

describe("inputs", () => {
  test("stdin with '-'", async () => {
    const r = await run(["validate", "-"], { stdin: JSON.stringify(checkpoint([user("hi")])) });
    expect(r.code).toBe(0);
    expect(r.out).toContain("<stdin>: ok ckpt");
  });

  test("a directory is walked (json, jsonl, pkl; node_modules skipped) and a glob is expanded", async () => {
    const d = join(dir, "tree");
    write("tree/a.json", checkpoint([user("a")]));
    write("tree/sub/b.json", checkpoint([user("b")]));
    write("tree/node_modules/c.json", "not json");
    write("tree/notes.txt", "ignored");
    const r = await run(["validate", d]);
    expect(r.out).toContain("2 files, 2 valid");
    const g = await run(["validate", "tree/**/*.json"], { cwd: dir });
    expect(g.code).toBe(0);
    expect(g.out).toContain("tree/sub/b.json: ok");
    expect(g.out).toContain("2 files, 2 valid");
    const none = await run(["validate", "tree/**/*.nothing"], { cwd: dir });
    expect(none.code).toBe(3);
    expect(none.out).toContain("matches no checkpoint documents");
  });

  test("--format forces the format", async () => {
    const p = write("forced.json", checkpoint([user("hi")]));
    const r = await run(["validate", p, "--format", "yoagent"]);
    expect(r.code).toBe(3); // a yoagent document is a JSON array
    expect(r.out).toContain("expected a JSON array of messages");
  });

  test("a document that fits two formats says so", async () => {
    const r = await run(["validate", "fixtures/yoagent/valid/docs-persistence-example.v0.12.json"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/fits yoagent \(<0\.13\) and phi-core .*; validated as yoagent; use --format to choose/);
  });
});

describe("output control", () => {
  test("--max-errors stops after N errors with a note", async () => {
    const files = [1, 2, 3].map((i) => write(`many${i}.json`, checkpoint([{ role: "usr", content: [] }])));
    const r = await run(["validate", ...files, "--max-errors", "2"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("stopped after 2 errors (--max-errors): 1 input(s) not validated");
    expect(r.out).toContain("2 files");
    expect((await run(["validate", files[0]!, "--max-errors", "0"])).code).toBe(2);
  });

  test("--quiet prints only errors and the summary", async () => {
    const ok = write("q-ok.json", checkpoint([user("a")]));
    const warn = write("q-warn.json", checkpoint([user("a"), call("c1")]));
    const r = await run(["validate", ok, warn, "--quiet"]);
    expect(r.out.trim().split("\n")).toEqual(["2 files, 2 valid, 0 invalid: 0 errors, 1 warning"]);
  });

  test("several reporters at once, to files, written whole", async () => {
    const p = write("multi.json", checkpoint([{ role: "usr", content: [] }]));
    const out = join(dir, "reports");
    const r = await run([
      "validate",
      p,
      "-r",
      "text",
      "-r",
      `junit=${out}/junit.xml`,
      "-r",
      `sarif=${out}/ckpt.sarif`,
      "-r",
      `json=${out}/r.json`,
      "-r",
      `github=${out}/gh.txt`,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("1 file, 0 valid, 1 invalid");
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain("<failure");
    expect(JSON.parse(readFileSync(join(out, "ckpt.sarif"), "utf8")).version).toBe("2.1.0");
    expect(JSON.parse(readFileSync(join(out, "r.json"), "utf8")).summary.invalid).toBe(1);
    expect(readFileSync(join(out, "gh.txt"), "utf8")).toMatch(/^::error file=/);
    expect(existsSync(join(out, "junit.xml.tmp"))).toBe(false);
  });

  test("two reporters on stdout is a usage error", async () => {
    const r = await run(["validate", "x.json", "-r", "text", "-r", "json"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("only one reporter can write to stdout");
  });

  test("colour: off with NO_COLOR, on with FORCE_COLOR", async () => {
    const p = write("color.json", checkpoint([{ role: "usr", content: [] }]));
    expect((await run(["validate", p], { env: { NO_COLOR: "1" } })).out).not.toContain("\u001b[");
    expect((await run(["validate", p], { env: { FORCE_COLOR: "1" } })).out).toContain("\u001b[31merror\u001b[39m");
  });
});

describe("plain validate command lines skip yargs with the same arguments", () => {
  /** the arguments yargs hands to the validate command for `ckpt validate …argv` */
  async function viaYargs(argv: string[]) {
    const { default: yargs } = await import("yargs");
    let got: Record<string, unknown> | undefined;
    let failed: string | undefined;
    await yargs(["validate", ...argv])
      .strict()
      .exitProcess(false)
      .fail((msg) => {
        failed = msg;
      })
      .command(validateCommand.command, validateCommand.describe, validateCommand.builder, (a) => {
        got = a;
      })
      .parseAsync();
    if (failed !== undefined || !got) return undefined;
    return {
      inputs: got.inputs,
      format: got.format,
      strict: got.strict,
      maxErrors: got.maxErrors,
      quiet: got.quiet,
      reporter: got.reporter,
      json: got.json,
    };
  }
  const accepted = [
    ["a.json"],
    ["a.json", "b.json", "dir/", "**/*.json"],
    ["a.json", "--strict"],
    ["--json", "a.json", "-q"],
    ["--quiet", "--format", "yoagent", "a.json"],
    ["-f", "phi-core", "a.json", "--max-errors", "3"],
    ["--max-errors", "0", "a.json"],
    ["5", "true", "0x10", "1e3", "null", "a.b.json"],
    ["sqlite:x.db#t1", "file:./f.json", "a b.json"],
  ];
  for (const argv of accepted) {
    test(argv.join(" "), async () => {
      const quick = quickValidateArgs(argv);
      expect(quick).toBeDefined();
      expect({ ...quick, reporter: undefined }).toEqual(await viaYargs(argv));
    });
  }
  const left = [
    [],
    ["-"],
    ["a.json", "-r", "json"],
    ["a.json", "--reporter=json"],
    ["--format=yoagent", "a.json"],
    ["--format", "nope", "a.json"],
    ["a.json", "--strict", "--strict"],
    ["--no-strict", "a.json"],
    ["--help"],
    ["a.json", "--max-errors", "x"],
    ["a.json", "--"],
    ["-qf", "yoagent", "a.json"],
    ["--maxErrors", "2", "a.json"],
    ["a.json", "--format"],
  ];
  for (const argv of left)
    test(`left to yargs: ${argv.join(" ") || "(nothing)"}`, () => expect(quickValidateArgs(argv)).toBeUndefined());
  test("--help: the inputs are required and have no default (yargs gave the variadic one [], shown beside [required])", async () => {
    const h = await run(["validate", "--help"]);
    expect(h.code).toBe(0);
    const line = h.out.split("\n").find((l) => /\[array\] \[required\]/.test(l));
    expect(line).toBeDefined();
    expect(h.out).not.toMatch(/default: \[\]/);
  });
  test("through main(): the same output as before for a plain line, usage errors still from yargs", async () => {
    const ok = await run(["validate", "fixtures/yoagent/valid/save_messages.v0.18.json"]);
    expect(ok.code).toBe(0);
    expect(ok.out).toBe(
      "fixtures/yoagent/valid/save_messages.v0.18.json: ok yoagent >=0.13\n1 file, 1 valid, 0 invalid: 0 errors, 0 warnings\n",
    );
    const bad = await run(["validate", "--format", "nope", "x.json"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/Invalid values|Choices/);
  });
});
