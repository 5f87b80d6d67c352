/**
 * #30 item 4: a folder of AI SDK chat files (one chat per file, as apps save them) is a store: `ls` lists the chats,
 * `show` renders them (tool parts with their states, reasoning, files), `validate` judges each by its own major,
 * `diff` compares a chat with its migration, and `migrate --to-format ai-sdk@N` writes every chat of the folder
 * as major N into a new folder (the source untouched) that the real major N validates and converts to the model
 * messages the source major gave. The chats are written by the real majors (one peer process writes them, one
 * checks the migrated folder).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";
import { normalize } from "./helpers/ai-sdk-model.js";

type Written = Record<string, Record<string, unknown[]>>;
interface Verdict {
  ok: boolean;
  error?: string;
  model?: unknown[];
}
let dir: string;
let src: string;
let written: Written;
const run = (argv: string[]) => runCli(argv, { cwd: dir });
const snapshot = (d: string) => readdirSync(d).map((f) => [f, readFileSync(join(d, f), "utf8")]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-ai-sdk-store-"));
  src = join(dir, "chats");
  mkdirSync(src);
  written = (await runPeer<Written>("scripts/ai-sdk.mjs", { op: "write", majors: [4, 5, 7] })).out;
  for (const major of ["4", "5", "7"])
    for (const [name, chat] of Object.entries(written[major]!))
      writeFileSync(join(src, `v${major}-${name}.json`), JSON.stringify(chat, null, 2));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a folder of AI SDK chats as a store", () => {
  it("ls lists every chat with its format; validate judges each by its major", async () => {
    const ls = await run(["ls", "file:chats"]);
    expect(ls.code, ls.err).toBe(0);
    for (const f of readdirSync(src)) expect(ls.out).toMatch(new RegExp(`${f.replace(".json", "")}\\s+ai-sdk`));
    const v = await run(["validate", "file:chats", "--reporter", "json"]);
    expect(v.code, v.out).toBe(0);
    const report = JSON.parse(v.out) as {
      files: Array<{ file: string; format: string; formatVersion: string; valid: boolean }>;
    };
    expect(report.files).toHaveLength(readdirSync(src).length);
    for (const f of report.files) {
      expect(f.format).toBe("ai-sdk");
      expect(f.formatVersion).toBe(f.file.includes("#v4-") ? "4" : "5");
    }
  });

  it("show renders tool parts with their states, reasoning and files", async () => {
    const tools = await run(["show", "file:chats#v5-tools"]);
    expect(tools.code, tools.err).toBe(0);
    expect(tools.out).toContain('→ weather({"city":"Paris"}) [call-1] output-available');
    expect(tools.out).toContain('{"city":"Paris","temperature":15}');
    const failed = await run(["show", "file:chats#v7-tool-error"]);
    expect(failed.out).toMatch(/fail\(\{"path":"\/nope"\}\) \[call-3\] output-error/);
    expect(failed.out).toMatch(/tool fail \[error\] \[call-3\]\n\s+Error: ENOENT/);
    expect((await run(["show", "file:chats#v4-reasoning"])).out).toContain("(thinking) 2 plus 2 is 4.");
    expect((await run(["show", "file:chats#v5-file"])).out).toContain("[image image/png]");
  });

  it("migrate --to-format ai-sdk@5: a new folder the real ai@5 accepts, with ai@4's model messages; the source untouched", async () => {
    const before = snapshot(src);
    const m = await run([
      "migrate",
      "--from",
      "file:chats",
      "--to",
      "file:chats-v5",
      "--to-format",
      "ai-sdk@5",
      "--allow-lossy",
    ]);
    expect(m.code, m.err).toBe(0);
    expect(snapshot(src)).toEqual(before);
    const out = join(dir, "chats-v5");
    const files = readdirSync(out).sort();
    expect(files).toEqual(readdirSync(src).sort());
    const chats = files.map((f) => JSON.parse(readFileSync(join(out, f), "utf8")) as unknown[]);
    const v4 = files.map((f, i) => [f, i] as const).filter(([f]) => f.startsWith("v4-"));
    const items = [
      ...chats.map((messages) => ({ major: 5, messages })),
      ...v4.map(([f]) => ({ major: 4, messages: JSON.parse(readFileSync(join(src, f), "utf8")) })),
    ];
    const verdicts = (await runPeer<Verdict[]>("scripts/ai-sdk.mjs", { op: "check", items })).out;
    files.forEach((f, i) => expect(verdicts[i]!.ok, `${f}: ${verdicts[i]!.error}`).toBe(true));
    // a v4 chat's model messages (ai@4 convertToCoreMessages) are the migrated chat's (ai@5 convertToModelMessages)
    expect(v4.length).toBeGreaterThan(3);
    v4.forEach(([f, i], k) => {
      expect(normalize(verdicts[i]!.model!), f).toEqual(normalize(verdicts[chats.length + k]!.model!));
    });
    // what ckpt says of the new folder agrees: each chat read as AI SDK 5
    const v = await run(["validate", "file:chats-v5", "--ai-sdk-version", "5"]);
    expect(v.code, v.out).toBe(0);
  });

  it("diff of a v4 chat and its v5 migration: the same conversation, only the major differs", async () => {
    writeFileSync(join(dir, "a.json"), JSON.stringify(written["4"]!.tools));
    const c = await run(["convert", "a.json", "--to-format", "ai-sdk@5", "-o", "b.json"]);
    expect(c.code, c.err).toBe(0);
    // what the user sees is the same conversation: identical (exit 0), with a note that the majors differ (#38 item 13)
    const d = await run(["diff", "a.json", "b.json"]);
    expect(d.err).toBe("");
    expect(d.code, d.out).toBe(0);
    expect(d.out).toMatch(/note: versions differ \(ai-sdk 4 vs 5\)/);
    expect(d.out).toContain("Identical.");
    // --verbose compares the bookkeeping too: the one difference is then the major itself; every message (text, tool
    // calls, results, steps) is the same
    const dv = await run(["diff", "a.json", "b.json", "--verbose"]);
    expect(dv.code, dv.out).toBe(1);
    expect(dv.out).toContain("1 other field changed.");
    expect(dv.out).toContain('/origin/version: "4" → "5"');
    expect(dv.out).not.toMatch(/messages?\/\d|#\d+ (added|removed|changed)/);
    // and a real change is seen: the second tool's output
    const changed = JSON.parse(readFileSync(join(dir, "b.json"), "utf8"));
    changed[1].parts[4].output.temperature = 99;
    writeFileSync(join(dir, "c.json"), JSON.stringify(changed));
    const d2 = await run(["diff", "b.json", "c.json"]);
    expect(d2.code).toBe(1);
    expect(d2.out).toContain("99");
  });
});
