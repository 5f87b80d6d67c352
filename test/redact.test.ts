/**
 * `--redact` on a seeded corpus (test/helpers/secret-corpus.ts: every kind, real formats, in plain text, tool
 * arguments, tool results and state) in every kind of source ckpt reads (ckpt, AI SDK, LangGraph, Mastra, Agents SDK
 * and deep-agent documents; a LangGraph SQLite store; ckpt's SQLite store): what export, show, view, convert, copy
 * and migrate write or show holds none of the seeds; every other character is the one the same command writes
 * without --redact; a value has one placeholder throughout its thread; the source is never changed; and export
 * refuses to write when a scan of its own output still finds something.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";
import { expectNoSeed, expectOnlySeedsChanged, inJson } from "./helpers/seed-checks.js";
import { SEEDS, seededCheckpoint } from "./helpers/secret-corpus.js";
import { SEED_FORMATS, writeSeededSources } from "./helpers/seeded-sources.js";

const REDIS = "redis://127.0.0.1:6379";
const PREFIX = `ckpt-redact-${process.pid}-${Date.now()}:`;

let dir: string;
const FORMATS = SEED_FORMATS;
const hash = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

const sources: Array<{ name: string; spec: () => string; file?: () => string }> = [
  { name: "ckpt document", spec: () => join(dir, "ckpt", "seed-1.json"), file: () => join(dir, "ckpt", "seed-1.json") },
  ...FORMATS.map((f) => ({
    name: `${f} document`,
    spec: () => join(dir, `seed.${f}.json`),
    file: () => join(dir, `seed.${f}.json`),
  })),
  { name: "LangGraph SQLite store", spec: () => join(dir, "lg.db"), file: () => join(dir, "lg.db") },
  { name: "ckpt SQLite store", spec: () => `sqlite:${join(dir, "ckpt.db")}`, file: () => join(dir, "ckpt.db") },
  { name: "Mastra LibSQL store", spec: () => join(dir, "mastra.db"), file: () => join(dir, "mastra.db") },
  { name: "ckpt Redis store", spec: () => `${REDIS}?prefix=${PREFIX}` },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-redact-"));
  await writeSeededSources(dir, `${REDIS}?prefix=${PREFIX}`);
}, 60_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteRedisKeys(PREFIX);
});

describe("export --redact", () => {
  test("every source, every format: no seed in the output, every other character as without --redact, one placeholder per value", async () => {
    for (const s of sources) {
      const before = s.file && hash(s.file());
      for (const as of ["ckpt", "openai-chat", "audit"]) {
        const plainOut = join(dir, `plain-${as}.jsonl`);
        const redOut = join(dir, `red-${as}.jsonl`);
        const p = await runCli(["export", s.spec(), "-o", plainOut, "--as", as]);
        expect(p.code, `${s.name} ${as}: ${p.err}`).toBe(0);
        const r = await runCli(["export", s.spec(), "-o", redOut, "--as", as, "--redact"]);
        expect(r.code, `${s.name} ${as}: ${r.err}`).toBe(0);
        expect(r.err).toMatch(/redacted: .*\d+ email/);
        const red = readFileSync(redOut, "utf8");
        expectNoSeed(red, `${s.name} --as ${as}`);
        // (audit rows carry a short text, cut at a length: placeholders move the cut, so only the others compare)
        if (as !== "audit") expectOnlySeedsChanged(readFileSync(plainOut, "utf8"), red, `${s.name} --as ${as}`);
        // the e-mail address appears several times in the thread: one placeholder, every time
        expect(new Set(red.match(/<EMAIL_\d+>/g))).toEqual(new Set(["<EMAIL_1>"]));
        // and a scan of what was written finds nothing (the canonical lines read back as checkpoints)
        if (as === "ckpt") {
          const line = red.trim().split("\n")[0]!;
          writeFileSync(join(dir, "line.json"), line);
          const sc = await runCli(["scan", join(dir, "line.json")]);
          expect(sc.code, `${s.name}: ${sc.out}`).toBe(0);
        }
      }
      if (s.file) expect(hash(s.file()), `${s.name} unchanged`).toBe(before);
    }
  }, 120_000);

  test("--redact=email replaces e-mail addresses only; a bad kind is a usage error", async () => {
    const out = join(dir, "email-only.jsonl");
    const r = await runCli(["export", join(dir, "ckpt", "seed-1.json"), "-o", out, "--as", "ckpt", "--redact=email"]);
    expect(r.code, r.err).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text).not.toContain("alice.smith@example.com");
    expect(text).toContain(inJson(SEEDS.find((s) => s.name === "github token")!.value));
    expect((await runCli(["export", join(dir, "ckpt", "seed-1.json"), "-o", out, "--redact=passwords"])).code).toBe(2);
  });

  test("refuses to write when a scan of its own output still finds something, naming it; nothing written", async () => {
    const { exportThreads } = await import("../src/engines/export/index.js");
    const { exportRedaction } = await import("../src/cli/redact.js");
    const { FINDING_KINDS } = await import("../src/core/scan/redact.js");
    const red = (await exportRedaction(new Set(FINDING_KINDS)))!;
    const out = join(dir, "leak.jsonl");
    const thread = { source: "mem", threadId: "seed-1", format: "ckpt", checkpoint: seededCheckpoint() };
    // the inspection without the transform: the seeds reach the rows
    await expect(exportThreads([[thread]], { output: out, as: "ckpt", inspect: red.inspect })).rejects.toThrow(
      /--redact: the output of thread 'seed-1' still holds (secrets|email|phone|ip|card|path) \(.+\): .+; nothing written/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe("--redact on show, view, convert, copy and migrate", () => {
  test("show (text and --json) and view: no seed; --json otherwise as without --redact", async () => {
    for (const s of sources) {
      const spec = s.name.includes("store") ? `${s.spec()}#seed-1` : s.spec();
      const plain = await runCli(["show", spec, "--json"]);
      const red = await runCli(["show", spec, "--json", "--redact"]);
      expect(red.code, `${s.name}: ${red.err}`).toBe(0);
      expectNoSeed(red.out, `show --json ${s.name}`);
      expectOnlySeedsChanged(plain.out, red.out, `show --json ${s.name}`);
      const text = await runCli(["show", spec, "--full", "--redact"]);
      expectNoSeed(text.out, `show ${s.name}`);
      expect(text.err).toMatch(/^redacted: /m);
    }
    const page = join(dir, "page.html");
    const v = await runCli(["view", join(dir, "seed.ai-sdk.json"), "-o", page, "--redact"]);
    expect(v.code, v.err).toBe(0);
    expectNoSeed(readFileSync(page, "utf8").replace(/&#x2F;|&#47;/g, "/"), "view");
    const hist = await runCli(["view", `${join(dir, "lg.db")}#seed-1`, "-o", page, "--redact"]);
    expect(hist.code, hist.err).toBe(0);
    expectNoSeed(readFileSync(page, "utf8"), "view (LangGraph history page)");
    expect((await runCli(["view", "--serve", join(dir, "lg.db"), "--redact"])).code).toBe(2);
  });

  test("convert: the written document holds no seed, every other character as without --redact", async () => {
    for (const to of ["ai-sdk", "openai-agents", "mastra", "langgraph", "ckpt"]) {
      const plain = await runCli(["convert", join(dir, "ckpt", "seed-1.json"), "-t", to, "--allow-lossy"]);
      const red = await runCli(["convert", join(dir, "ckpt", "seed-1.json"), "-t", to, "--allow-lossy", "--redact"]);
      expect(red.code, red.err).toBe(0);
      expectNoSeed(red.out, `convert -t ${to}`);
      expectOnlySeedsChanged(plain.out, red.out, `convert -t ${to}`);
    }
  });

  test("copy and migrate write the redacted thread (ckpt's stores, a LangGraph history); the source is unchanged", async () => {
    const src = join(dir, "ckpt.db");
    const before = hash(src);
    const c = await runCli(["copy", `sqlite:${src}#seed-1`, `sqlite:${join(dir, "copy.db")}#seed-copy`, "--redact"]);
    expect(c.code, c.err).toBe(0);
    const copied = await runCli(["show", `sqlite:${join(dir, "copy.db")}#seed-copy`, "--json"]);
    expectNoSeed(copied.out, "copy");
    const m = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `sqlite:${join(dir, "migrated.db")}`,
      "--redact",
    ]);
    expect(m.code, m.err).toBe(0);
    const migrated = await runCli(["show", `sqlite:${join(dir, "migrated.db")}#seed-1`, "--json"]);
    expectNoSeed(migrated.out, "migrate");
    expect(new Set(migrated.out.match(/<EMAIL_\d+>/g))).toEqual(new Set(["<EMAIL_1>"]));
    expect(hash(src)).toBe(before);
    // a LangGraph history moves as rows, rewritten where they are stored (test/redact-langgraph-rows.test.ts)
    const lgSrc = join(dir, "lg.db");
    const lgBefore = hash(lgSrc);
    const lg = await runCli(["migrate", "--from", lgSrc, "--to", `sqlite:${join(dir, "lg-red.db")}`, "--redact"]);
    expect(lg.code, lg.err).toBe(0);
    const lgShown = await runCli(["show", `sqlite:${join(dir, "lg-red.db")}#seed-1`, "--json"]);
    expect(lgShown.code, lgShown.err).toBe(0);
    expectNoSeed(lgShown.out, "migrate --redact (LangGraph history)");
    expect(hash(lgSrc)).toBe(lgBefore);
  });
});
