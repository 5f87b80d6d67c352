/**
 * #15 item 9: ckpt's verdict on a deep-agent checkpoint is what a deep-agent install's loader does. deepagentsdk
 * depends on `ai@^6.0.19` and `zod@^3.25.0` (its package.json), and `ai` runs modelMessageSchema on whatever
 * `zod/v4` resolves to — zod 3.25's bundled v4 there, zod 4.x in an app that installs zod 4. Both run side by side
 * here on the real `ai` package: once as installed (devDependency zod 4) and once with every `zod` import resolved to
 * the `zod3` dev alias (zod@3.25.76, test/helpers/zod3-hooks.mjs). ckpt must agree with zod 3.25 on every message,
 * and warn (lint/deepagent-zod-versions, naming both) exactly where the two disagree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { validators } from "../src/generated/validators.js";
import { deepagentAdapter } from "../src/formats/deepagent.js";
import { main } from "../src/cli/main.js";

const ROOT = join(import.meta.dirname, "..");
const HELPERS = join(ROOT, "test", "helpers");

/** The real AI SDK's verdict on each message, with zod 4 as installed or with zod 3.25 (the deep-agent install). */
function aiVerdicts(messages: unknown[], zod: 3 | 4): { zod: string; verdicts: boolean[] } {
  const args = zod === 3 ? ["--import", join(HELPERS, "zod3-register.mjs")] : [];
  const out = execFileSync(process.execPath, [...args, join(HELPERS, "ai-verdicts.mjs")], {
    cwd: ROOT,
    input: JSON.stringify(messages),
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.toString());
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Every message of the deep-agent fixtures, and for each object in it: each key deleted, or replaced by a few wrong values. */
function mutations(): Array<{ what: string; message: unknown }> {
  const variants = JSON.parse(
    readFileSync(join(ROOT, "fixtures/deepagent/valid/all-model-message-variants.json"), "utf8"),
  ).messages as unknown[];
  const sample = JSON.parse(
    readFileSync(join(ROOT, "fixtures/deepagent/samples/model-messages.all-variants.ai-6.0.19.json"), "utf8"),
  );
  const sampleMessages = (
    Array.isArray(sample) ? sample : ((sample.messages as unknown[] | undefined) ?? Object.values(sample).flat())
  ) as unknown[];
  const out: Array<{ what: string; message: unknown }> = [];
  const walk = (root: unknown, node: unknown, path: Array<string | number>) => {
    if (node === null || typeof node !== "object") return;
    for (const k of Object.keys(node)) {
      for (const repl of ["<delete>", null, "", 0, {}, []] as unknown[]) {
        if (repl === "<delete>" && Array.isArray(node)) continue;
        const c = clone(root) as Record<string, unknown>;
        let t = c;
        for (const p of path) t = t[p as string] as Record<string, unknown>;
        if (repl === "<delete>") delete t[k];
        else t[k] = repl;
        out.push({
          what: `${[...path, k].join("/")} := ${repl === "<delete>" ? "(deleted)" : JSON.stringify(repl)}`,
          message: c,
        });
      }
      walk(root, (node as Record<string, unknown>)[k], [...path, k]);
    }
  };
  for (const m of [...variants, ...sampleMessages]) {
    out.push({ what: "(as written)", message: m });
    walk(m, m, []);
  }
  return out;
}

/** The same messages, one per hand-written case that matters (AI SDK v4 spellings, JSON round-trip damage). */
const NAMED: Array<[string, unknown]> = [
  [
    "tool-call with v4 args and no input",
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_file", args: { path: "/a" } }],
    },
  ],
  [
    "tool-call with neither input nor args",
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c2", toolName: "ls" }] },
  ],
  [
    "tool-call with input null",
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c3", toolName: "ls", input: null }] },
  ],
  [
    "tool-call with input and args",
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c4", toolName: "ls", input: {}, args: {} }] },
  ],
  [
    "tool-result with v4 result and no output",
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read_file", result: "ok" }] },
  ],
  ["system message with parts", { role: "system", content: [{ type: "text", text: "be brief" }] }],
  [
    "image as a JSON-stringified Uint8Array",
    { role: "user", content: [{ type: "image", image: { "0": 137, "1": 80 } }] },
  ],
  ["tool message as a string", { role: "tool", content: "ok" }],
];

/** ckpt's lint on a deep-agent checkpoint holding just this message. */
function zodLints(message: unknown) {
  const native = {
    threadId: "t",
    step: 1,
    messages: [message],
    state: { todos: [], files: {} },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
  const text = JSON.stringify(native, null, 2);
  return deepagentAdapter.lint!(deepagentAdapter.parse({ name: "t.json", text }), { name: "t.json", text }).filter(
    (i) => i.rule === "lint/deepagent-zod-versions",
  );
}

describe("deep-agent verdicts follow ai@6 + zod 3.25 (what deep-agent installs), with a warning where zod 4 disagrees", () => {
  const cases = [...NAMED.map(([what, message]) => ({ what, message })), ...mutations()];
  let z3: { zod: string; verdicts: boolean[] };
  let z4: { zod: string; verdicts: boolean[] };
  beforeAll(() => {
    const messages = cases.map((c) => c.message);
    z3 = aiVerdicts(messages, 3);
    z4 = aiVerdicts(messages, 4);
  }, 60_000);

  it("runs the real ai package once with zod 3.25 and once with zod 4, and they do disagree (on a tool-call without input)", () => {
    expect(z3.zod).toMatch(/^3\.25\./);
    expect(z4.zod).toMatch(/^4\./);
    expect(cases.length).toBeGreaterThan(1000);
    expect(z3.verdicts[0]).toBe(true); // v4 args, no input: zod 3.25 loads it
    expect(z4.verdicts[0]).toBe(false); // zod 4.6 rejects it
  });

  it("ckpt's schema verdict equals zod 3.25's on every message (named cases and every single-field mutation of the fixtures)", () => {
    const validate = validators["formats/deepagent/model-message"];
    const wrong = cases
      .map((c, i) => ({ what: c.what, zod3: z3.verdicts[i], ckpt: validate(c.message) }))
      .filter((r) => r.zod3 !== r.ckpt);
    expect(wrong).toEqual([]);
  });

  it("lint/deepagent-zod-versions fires exactly where zod 3.25 and zod 4 disagree, and names both", () => {
    const mismatch: string[] = [];
    let disagreements = 0;
    cases.forEach((c, i) => {
      const disagree = z3.verdicts[i] !== z4.verdicts[i];
      if (disagree) disagreements++;
      const lints = zodLints(c.message);
      if (disagree !== lints.length > 0)
        mismatch.push(`${c.what}: zod3 ${z3.verdicts[i]}, zod4 ${z4.verdicts[i]}, lint ${lints.length}`);
      for (const l of lints) {
        expect(l.severity).toBe("warning");
        expect(l.message).toMatch(/zod 3\.25/);
        expect(l.message).toMatch(/zod 4\.4/);
      }
    });
    expect(mismatch).toEqual([]);
    expect(disagreements).toBeGreaterThan(0);
  });
});

describe("ckpt validate / convert on a deep-agent checkpoint with an AI SDK v4 tool call", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "ckpt-zod-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(argv: string[]) {
    let out = "";
    let err = "";
    const code = await main(argv, {
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      stdin: Readable.from([]),
      env: { NO_COLOR: "1" },
      cwd: dir,
    });
    return { code, out, err };
  }

  // one property per line (2-space JSON) so the position is worked out by hand: the part's "{" is on line 12, column 9 (line 9 opens the assistant message, 11 its content)
  const doc = {
    threadId: "t-args",
    step: 1,
    messages: [
      { role: "user", content: "read /a" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_file", args: { path: "/a" } }],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read_file", output: { type: "text", value: "A" } },
        ],
      },
    ],
    state: { todos: [], files: {} },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };

  it("is valid (exit 0) with one warning at the part naming both zod versions; --strict makes it exit 1", async () => {
    const f = join(dir, "args.json");
    writeFileSync(f, JSON.stringify(doc, null, 2));
    const r = await run(["validate", f]);
    expect(r.code).toBe(0);
    expect(r.out + r.err).toContain(`${f}:12:9: warning /messages/1/content/0:`);
    expect(r.out + r.err).toMatch(
      /has no 'input' \(it has the AI SDK v4 'args'\): ai@6 with zod 3\.25 .* zod 4\.4 or later rejects .*lint\/deepagent-zod-versions/,
    );
    expect((await run(["validate", "--strict", f])).code).toBe(1);
  });

  it("converts back to deep-agent byte for byte (no input invented, args kept)", async () => {
    const f = join(dir, "args-rt.json");
    const text = JSON.stringify(doc, null, 2);
    writeFileSync(f, text);
    const r = await run(["convert", f, "-t", "deepagent"]);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd()).toBe(text);
  });
});
