import { describe, expect, test, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

const S = join(import.meta.dirname, "..", "fixtures") + "/";
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-convert-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ckpt <argv> in the test folder, with `stdin` on standard input. */
const run = (argv: string[], stdin = "") => runCli(argv, { cwd: dir, stdin });

describe("ckpt convert", () => {
  test("yoagent < 0.13 → yoagent (current spelling) on stdout equals what yoagent 0.18 re-saves", async () => {
    const r = await run([
      "convert",
      S + "yoagent/valid/save_messages.legacy-pre-0.13.json",
      "--to-format",
      "yoagent",
      "--format-version",
      ">=0.13",
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // stdout is not a terminal here: exactly the bytes yoagent writes (no trailing newline)
    expect(r.out).toBe(
      readFileSync(S + "yoagent/valid/save_messages.legacy-pre-0.13.reserialized-by-0.18.json", "utf8"),
    );
  });
  test("a lossy conversion is refused with the exact list, exit 1, nothing written", async () => {
    const r = await run(["convert", S + "yoagent/valid/save_messages.v0.18.json", "-t", "phi-core", "-o", "out.json"]);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, "out.json"))).toBe(false);
    // the 0.18 sample: message 1 block 3 has providerMetadata; message 8 is a refusal (phi-core has no 'refusal')
    expect(r.err).toContain("/messages/1/content/3/providerMetadata: phi-core tool calls have no providerMetadata");
    expect(r.err).toContain("/messages/8/stopReason: phi-core has no stop reason 'refusal': written as 'stop'");
    expect(r.err).toMatch(/would drop 2 fields/);
  });
  test("--allow-lossy converts, writes atomically, and --json reports the same list", async () => {
    const r = await run([
      "convert",
      S + "yoagent/valid/save_messages.v0.18.json",
      "-t",
      "phi-core",
      "-o",
      "out.json",
      "--allow-lossy",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.out);
    expect(rep).toMatchObject({
      ok: true,
      from: { format: "yoagent", version: ">=0.13" },
      to: { format: "phi-core" },
      output: "out.json",
      messages: 9,
    });
    expect(rep.lossy.map((n: { pointer: string }) => n.pointer)).toEqual([
      "/messages/1/content/3/providerMetadata",
      "/messages/8/stopReason",
    ]);
    const written = JSON.parse(readFileSync(join(dir, "out.json"), "utf8"));
    // phi-core always writes all six usage keys (sorted); reasoning defaults to 0
    expect(written[1].usage).toEqual({
      cache_read: 1000,
      cache_write: 150,
      input: 1200,
      output: 85,
      reasoning: 0,
      total_tokens: 0,
    });
    expect(readdirSync(dir).filter((f) => f.includes("ckpt-tmp"))).toEqual([]);
  });
  test("a field dropped on many messages is one line with its count; --verbose lists each", async () => {
    const src = S + "yoagent/valid/save_messages.v0.18.json";
    const r = await run(["convert", src, "-t", "deepagent", "--dry-run"]);
    expect(r.code).toBe(1);
    // the 0.18 sample: messages 0–4 and 6–8 carry a timestamp (8), the extension 5 none; assistants 1, 4, 7, 8 a model
    expect(r.err).toContain(
      "  /messages/*/timestamp: AI SDK messages have no timestamps (on 8 messages, e.g. /messages/0/timestamp)\n",
    );
    expect(r.err).toContain(
      "  /messages/*/model: deep-agent checkpoints do not store an assistant message's model (on 4 messages, e.g. /messages/1/model)\n",
    );
    // a field dropped once keeps its own line
    expect(r.err).toContain(
      "  /messages/1/content/3/providerMetadata: AI SDK tool-call parts have no providerMetadata\n",
    );
    expect(r.err).not.toContain("/messages/6/timestamp");
    expect(r.err).toContain("--verbose lists every field");
    const v = await run(["convert", src, "-t", "deepagent", "--dry-run", "--verbose"]);
    for (const i of [0, 1, 2, 3, 4, 6, 7, 8])
      expect(v.err).toContain(`  /messages/${i}/timestamp: AI SDK messages have no timestamps\n`);
    expect(v.err).not.toContain("/messages/*");
    const j = await run(["convert", src, "-t", "deepagent", "--dry-run", "--json"]);
    expect(JSON.parse(j.out).lossy.filter((n: { field: string }) => n.field === "timestamp")).toHaveLength(8);
  });
  test("stdin in, --dry-run --json: the report only, nothing written", async () => {
    const r = await run(
      ["convert", "-", "-t", "phi-core-session", "--dry-run", "--json"],
      readFileSync(S + "phi-core/valid/save_messages.v0.10.json", "utf8"),
    );
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.out);
    // FORMATS.md §2.1 sample: 7 messages; a message file has no thread id/timestamps to lose, phi-core ext is consumed by the session
    expect(rep).toMatchObject({
      ok: true,
      input: "<stdin>",
      from: { format: "phi-core" },
      to: { format: "phi-core-session" },
      output: null,
      dryRun: true,
      messages: 7,
      lossy: [],
    });
  });
  test("--format-version is refused where the target has a single version", async () => {
    const r = await run([
      "convert",
      S + "yoagent/valid/save_messages.v0.18.json",
      "-t",
      "phi-core",
      "--format-version",
      "0.9",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/phi-core has one format version only/);
  });
  test("an amacs-style folder target needs -o; a directory -o gets <threadId><ext>", async () => {
    const r = await run(["convert", S + "phi-core-session/valid/session.sess-1.v0.10.json", "-t", "ckpt", "-o", "."]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "sess-1.json"), "utf8")).toContain('"threadId": "sess-1"');
  });
  test("refuses to overwrite the input", async () => {
    writeFileSync(join(dir, "in.json"), readFileSync(S + "yoagent/valid/save_messages.v0.18.json"));
    const r = await run(["convert", "in.json", "-t", "yoagent", "-o", "in.json"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/refusing to overwrite the input/);
  });
  test("an invalid source is an input error with file, pointer and line:column", async () => {
    writeFileSync(join(dir, "bad.json"), '[{"role":"user","content":[{"type":"audio","data":"x"}],"timestamp":1}]');
    const r = await run(["convert", "bad.json", "-f", "yoagent", "-t", "ckpt"]);
    expect(r.code).toBe(3);
    // /0/content/0/type is the value "audio" at column 36 of line 1 (counted by hand)
    expect(r.err).toMatch(
      /^ckpt: bad\.json:1:36: \/0\/content\/0\/type: not a valid yoagent document: unknown type "audio": expected one of text, image, thinking, toolCall/,
    );
  });
});
