/**
 * #15 item 18: the library's verifyCheckpoint() and the CLI's `replay verify` share one set of defaults, so they
 * give the same verdict on the same file. Each fixture is read the way a library user reads it (readCheckpoint) and
 * verified with no options, then run through the CLI with no flags.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { readCheckpoint } from "../src/formats/index.js";
import { defaultStateTools, verifyCheckpoint } from "../src/core/replay/replay.js";

const root = join(import.meta.dirname, "..", "fixtures");

/** Every document fixture ckpt reads as one checkpoint: <format>/valid/* and replay/*.ckpt.json. */
function fixtureFiles(): string[] {
  const out: string[] = [];
  for (const format of readdirSync(root).sort()) {
    const valid = join(root, format, "valid");
    if (statSync(join(root, format)).isDirectory() && readdirSync(join(root, format)).includes("valid")) {
      for (const f of readdirSync(valid).sort()) if (statSync(join(valid, f)).isFile()) out.push(join(valid, f));
    }
  }
  for (const f of readdirSync(join(root, "replay")).sort())
    if (f.endsWith(".ckpt.json")) out.push(join(root, "replay", f));
  return out;
}

async function cli(argv: string[]) {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([""]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
  };
  const code = await main(argv, io);
  return { code, out, err };
}

describe("replay verify: library and CLI agree", () => {
  const files = fixtureFiles();
  it("covers the fixtures of every format with a history to replay", () => {
    // yoagent ×6, phi-core ×3, deepagent ×5, ckpt ×2, replay ×4, and one of each other format (counted by hand in fixtures/)
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(files.some((f) => f.includes("/yoagent/valid/save_messages.v0.18.json"))).toBe(true);
  });
  for (const file of files) {
    const rel = file.slice(root.length + 1);
    it(rel, async () => {
      const { checkpoint } = readCheckpoint({ name: file, text: readFileSync(file, "utf8") });
      const lib = await verifyCheckpoint(checkpoint);
      const r = await cli(["replay", "verify", file, "--json"]);
      expect([0, 1], r.err).toContain(r.code);
      const summary = r.out
        .trim()
        .split("\n")
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              summary?: {
                ok: boolean;
                stateToolCalls: number;
                recordedToolCalls: number;
                divergence: { pointer: string } | null;
              };
            },
        )
        .find((e) => e.type === "summary")!.summary!;
      expect({
        ok: summary.ok,
        exit: r.code,
        divergence: summary.divergence?.pointer ?? null,
        stateToolCalls: summary.stateToolCalls,
        recordedToolCalls: summary.recordedToolCalls,
      }).toEqual({
        ok: lib.ok,
        exit: lib.ok ? 0 : 1,
        divergence: lib.divergence?.pointer ?? null,
        stateToolCalls: lib.stateToolCalls,
        recordedToolCalls: lib.recordedToolCalls,
      });
    });
  }
});

describe("the one default for state tools", () => {
  it("on for deep-agent histories and ckpt's own checkpoints, off for histories from systems without those tools", () => {
    const base = { schemaVersion: 1 as const, threadId: "t", step: 0, messages: [], state: {} };
    expect(defaultStateTools({ ...base, origin: { format: "deepagent" } })).toBe(true);
    expect(defaultStateTools({ ...base, origin: { format: "ckpt" } })).toBe(true);
    expect(defaultStateTools(base)).toBe(true); // built in ckpt's model (no origin)
    for (const f of ["yoagent", "yoagent-session", "phi-core", "phi-core-session", "swarmer", "amacs", "langgraph"])
      expect(defaultStateTools({ ...base, origin: { format: f } })).toBe(false);
  });
});
