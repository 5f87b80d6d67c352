/**
 * `ckpt scan` on a seeded corpus (test/helpers/secret-corpus.ts: every kind, in real formats, inside plain text, tool
 * arguments, tool results and state), written as each system's document (ckpt, AI SDK, LangGraph, Mastra, Agents
 * SDK, deep-agent) and into stores (a LangGraph SQLite store, ckpt's SQLite store): every seed the written data still
 * holds is found, of its kind, and the clean samples are clean.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";
import { SEEDS, seededCheckpoint } from "./helpers/secret-corpus.js";
import { SEED_FORMATS, writeSeededSources } from "./helpers/seeded-sources.js";

const REDIS = "redis://127.0.0.1:6379";
const PREFIX = `ckpt-scan-${process.pid}-${Date.now()}:`;

const ROOT = resolve(import.meta.dirname, "..");
let dir: string;
const FORMATS = SEED_FORMATS;

interface JsonFinding {
  source: string;
  thread: string;
  kind: string;
  rule: string;
  message?: number;
  where: string;
  masked: string;
}
const findings = (out: string) =>
  out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JsonFinding);

/** Whether a finding is this seed: its kind, and the masked value keeps the seed's first and last characters. */
const isSeed = (f: JsonFinding, s: (typeof SEEDS)[number]) => {
  const flat = s.value.replace(/\s+/g, " ");
  return (
    f.kind === s.kind &&
    f.masked.length === (flat.length <= 6 ? flat.length : f.masked.length) &&
    f.masked.startsWith(flat.length <= 6 ? "" : flat.slice(0, 2)) &&
    f.masked.endsWith(flat.length <= 6 ? "" : flat.slice(-2))
  );
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-scan-"));
  await writeSeededSources(dir, `${REDIS}?prefix=${PREFIX}`);
}, 60_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteRedisKeys(PREFIX);
});

describe("ckpt scan finds every seed", () => {
  const sources = () => [
    {
      name: "ckpt document",
      spec: join(dir, "ckpt", "seed-1.json"),
      text: readFileSync(join(dir, "ckpt", "seed-1.json"), "utf8"),
    },
    ...FORMATS.map((f) => ({
      name: f,
      spec: join(dir, `seed.${f}.json`),
      text: readFileSync(join(dir, `seed.${f}.json`), "utf8"),
    })),
    { name: "LangGraph SQLite store", spec: join(dir, "lg.db"), text: undefined },
    { name: "ckpt SQLite store", spec: `sqlite:${join(dir, "ckpt.db")}`, text: undefined },
    {
      name: "Mastra LibSQL store",
      spec: join(dir, "mastra.db"),
      text: readFileSync(join(dir, "seed.mastra.json"), "utf8"),
    },
    { name: "ckpt Redis store", spec: `${REDIS}?prefix=${PREFIX}`, text: undefined },
  ];

  test("in every document and store: each seed the data holds, of its kind; exit 1", async () => {
    for (const s of sources()) {
      const r = await runCli(["scan", s.spec, "--json"]);
      expect(r.code, `${s.name}: ${r.err}`).toBe(1);
      const got = findings(r.out);
      // what the written data holds (a format without state drops the state's seeds): a JSON-escaped seed in the
      // document's text; a store holds all of them
      const held = SEEDS.filter(
        (seed) => s.text === undefined || s.text.includes(JSON.stringify(seed.value).slice(1, -1)),
      );
      expect(held.length, s.name).toBeGreaterThanOrEqual(SEEDS.length - 1);
      for (const seed of held)
        expect(
          got.some((f) => isSeed(f, seed)),
          `${s.name}: ${seed.name}`,
        ).toBe(true);
    }
  });

  test("each finding names its thread, message and place; the text report masks every value", async () => {
    const r = await runCli(["scan", join(dir, "ckpt", "seed-1.json")]);
    expect(r.code).toBe(1);
    for (const seed of SEEDS) if (seed.value.length > 6) expect(r.out).not.toContain(seed.value);
    expect(r.out).toMatch(/seed-1\.json#seed-1 #1 user text: email \(ckpt\/email\) alic\*+om/);
    expect(r.out).toMatch(
      /#2 assistant toolCall deploy: secrets \(@secretlint\/secretlint-rule-github\/GITHUB_TOKEN\)/,
    );
    expect(r.out).toMatch(/#3 tool toolResult deploy: secrets \(@secretlint\/secretlint-rule-openai\/OPENAI_TOKEN\)/);
    expect(r.out).toMatch(/state\.billing: card \(ckpt\/card\) 4111\*+11/);
    expect(r.out).toMatch(/findings? in 1 conversation of 1 scanned/);
  });

  test("--kinds chooses; a bad kind is a usage error", async () => {
    const r = await runCli(["scan", join(dir, "ckpt", "seed-1.json"), "--kinds", "email,card", "--json"]);
    expect(r.code).toBe(1);
    expect(new Set(findings(r.out).map((f) => f.kind))).toEqual(new Set(["email", "card"]));
    expect((await runCli(["scan", join(dir, "ckpt", "seed-1.json"), "--kinds", "passwords"])).code).toBe(2);
  });

  test("look-alikes are not findings: ids, timestamps, versions, an invalid card number, loopback", async () => {
    const clean = seededCheckpoint("clean-1");
    clean.messages = [
      {
        role: "user",
        content: [
          {
            type: "text",
            text: "run 1f1e719f-9fdd-6c5b-8008-47644af06e58 at 2026-12-07T05:21:18.144Z, v1.2.3, order 4111 1111 1111 1112, http://127.0.0.1:8080/x, /home/shared, call_001, 12:30, 3.14159, postgres://alice@db/app",
          },
        ],
      },
    ];
    clean.state = {};
    const f = join(dir, "clean.json");
    writeFileSync(f, JSON.stringify(clean));
    const r = await runCli(["scan", f]);
    expect(r.out).toBe("clean: nothing found in 1 conversation\n");
    expect(r.code).toBe(0);
  });

  test("the sample stores of fixtures/ hold nothing to report", async () => {
    const r = await runCli(["scan", "fixtures/langgraph/python-a.sqlite", "fixtures/versions/mastra/1.71/store.db"], {
      cwd: ROOT,
    });
    expect(r.code, r.out).toBe(0);
  });
});
