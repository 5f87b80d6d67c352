/**
 * Number options given a value that is not one. yargs turns `--limit abc` into NaN, and each command checked (or
 * did not check) its own options: `ls --limit abc` listed everything, `ls --limit -3` said "no threads",
 * `replay --max-turns abc` ran without a limit, `validate --max-errors abc` said "got NaN". Now every number option
 * of every command is a usage error (exit 2) naming the option as written and quoting the value, before anything
 * is opened or written; whole-number options also refuse fractions and values out of range.
 * Also: `ckpt replay` (verify) with options that only continue/resume use (-o, --provider, --max-turns, …) wrote
 * nothing and ignored them; it now says so (exit 2).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fmtInt, pluralInt } from "../src/base/plural.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-numeric-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = join(ROOT, "fixtures", "savers", "deepagent-filesaver");
const doc = join(ROOT, "fixtures", "deepagent", "valid", "user_42_session_1.json");
const lg = join(ROOT, "fixtures", "langgraph", "python-a.sqlite");
const replayDoc = join(ROOT, "fixtures", "replay", "tools.ckpt.json");

describe("a number option given something else", () => {
  // [argv, the option as written in the message]
  const cases: Array<[string[], string]> = [
    [["ls", store, "--limit", "abc"], "--limit"],
    [["log", `${lg}#a-chat-1`, "--limit", "ten"], "--limit"],
    [["validate", doc, "--max-errors", "abc"], "--max-errors"],
    [["validate", "--max-errors=1e", doc], "--max-errors"],
    [["stats", store, "--top", "x"], "--top"],
    [
      ["migrate", "--from", `file:${store}`, "--to", `sqlite:${join(dir, "a.db")}`, "--batch-size", "big"],
      "--batch-size",
    ],
    [["migrate", "--from", `file:${store}`, "--to", `sqlite:${join(dir, "b.db")}`, "-j", "many"], "-j"],
    [["prune", `sqlite:${join(dir, "c.db")}`, "--keep-last", "some", "--dry-run"], "--keep-last"],
    [
      [
        "replay",
        "continue",
        replayDoc,
        "--prompt",
        "hi",
        "--provider",
        "recorded",
        "--max-turns",
        "abc",
        "-o",
        join(dir, "r.json"),
      ],
      "--max-turns",
    ],
    [
      [
        "replay",
        "continue",
        replayDoc,
        "--prompt",
        "hi",
        "--provider",
        "recorded",
        "--max-tokens",
        "lots",
        "-o",
        join(dir, "r.json"),
      ],
      "--max-tokens",
    ],
    [["view", doc, "--serve", "--port", "http"], "--port"],
    [["view", `${lg}#a-chat-1`, "--history-limit", "all", "-o", join(dir, "v.html")], "--history-limit"],
  ];
  for (const [argv, flag] of cases) {
    it(`${argv.join(" ")}: exit 2 naming ${flag} and the value`, async () => {
      const given = argv.includes(flag)
        ? argv[argv.indexOf(flag) + 1]
        : argv.find((a) => a.startsWith(`${flag}=`))!.slice(flag.length + 1);
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toBe(`ckpt: ${flag} expects a number, got "${given}"\n`);
      expect(r.out).toBe("");
      expect(readdirSync(dir)).toEqual([]); // nothing created: no database, no page, no checkpoint
    });
  }
});

describe("a whole-number option out of its range", () => {
  const cases: Array<[string[], string]> = [
    [["ls", store, "--limit", "-3"], "--limit expects a positive integer, got -3"],
    [["ls", store, "--limit=0"], "--limit expects a positive integer, got 0"],
    [["ls", store, "--limit", "1.5"], "--limit expects a positive integer, got 1.5"],
    [["log", `${lg}#a-chat-1`, "--limit", "0"], "--limit expects a positive integer, got 0"],
    [["validate", doc, "--max-errors", "0"], "--max-errors expects a positive integer, got 0"],
    [["stats", store, "--top", "2.5"], "--top expects a positive integer, got 2.5"],
    [
      ["migrate", "--from", `file:${store}`, "--to", `sqlite:${join(dir, "a.db")}`, "--jobs", "65"],
      "--jobs expects an integer from 1 to 64, got 65",
    ],
    [
      ["migrate", "--from", `file:${store}`, "--to", `sqlite:${join(dir, "a.db")}`, "--batch-size", "0"],
      "--batch-size expects a positive integer, got 0",
    ],
    [
      ["prune", `sqlite:${join(dir, "c.db")}`, "--idle-for", "1d", "--batch-size", "-1", "--dry-run"],
      "--batch-size expects a positive integer, got -1",
    ],
    [
      [
        "replay",
        "continue",
        replayDoc,
        "--prompt",
        "hi",
        "--provider",
        "recorded",
        "--max-turns",
        "-1",
        "-o",
        join(dir, "r.json"),
      ],
      "--max-turns expects a non-negative integer, got -1",
    ],
    [["view", doc, "--serve", "--port", "70000"], "--port expects an integer from 0 to 65535, got 70000"],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.join(" ")}: exit 2`, async () => {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toBe(`ckpt: ${message}\n`);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it("in range, the same options work: ls --limit 1 lists one thread, --limit 2 both", async () => {
    const one = await runCli(["ls", store, "--limit", "1", "--json"]);
    expect(one.code, one.err).toBe(0);
    expect(JSON.parse(one.out)).toHaveLength(1);
    const two = await runCli(["ls", store, "--limit=2", "--json"]);
    expect(JSON.parse(two.out)).toHaveLength(2);
    const v = await runCli(["validate", doc, "--max-errors", "1"]);
    expect(v.code, v.err).toBe(0);
  });
});

describe("replay verify with options only continue and resume use", () => {
  for (const extra of [
    ["-o", "out.json"],
    ["--save-to", "sqlite:s.db"],
    ["--provider", "recorded"],
    ["--max-turns", "3"],
    ["--max-duration", "1m"],
    ["--model", "m"],
  ]) {
    it(`replay ${extra.join(" ")}: exit 2, nothing written`, async () => {
      const r = await runCli(["replay", replayDoc, ...extra], { cwd: dir });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        /only with continue or resume \(verify replays the recorded turns and writes no checkpoint\)/,
      );
      expect(r.err).toContain(extra[0] === "-o" ? "-o/--output" : extra[0]);
      expect(existsSync(join(dir, "out.json"))).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
  it("verify on its own still runs (exit 0)", async () => {
    const r = await runCli(["replay", replayDoc, "-q"]);
    expect(r.code, r.err).toBe(0);
  });
});

describe("fmtInt: the text of toLocaleString('en-US') without Intl", () => {
  it("agrees with Intl on integers around every group boundary, negative ones and the safe limit", () => {
    const xs = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      1001,
      9999,
      10000,
      99999,
      100000,
      999999,
      1000000,
      1234567,
      2 ** 31,
      2 ** 32 + 7,
      1e15,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const x of [...xs, ...xs.map((x) => -x)]) expect(fmtInt(x)).toBe(x.toLocaleString("en-US"));
    for (const x of [1.5, 1234.5678, 1e21, Number.MAX_SAFE_INTEGER + 2])
      expect(fmtInt(x)).toBe(x.toLocaleString("en-US"));
    expect(pluralInt(1, "thread")).toBe("1 thread");
    expect(pluralInt(20000, "message")).toBe("20,000 messages");
  });
});
