/**
 * `ckpt show` and `ckpt diff` of LangGraph checkpoints (addresses `<store>#thread@…`) on copies of the shared
 * samples. Expected texts come from the samples' generators (sets.json inputs, "Proposed: <input>", the counter's
 * 3 + 4 = 7, two invokes of a-chat-1 with 4 then 5 new messages), not from ckpt.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { copyFixture } from "./helpers/langgraph-tuples.js";

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const t = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
  } as unknown as CliIO;
  const code = await main(argv, t);
  return { code, out, err };
}

describe("ckpt show of LangGraph checkpoints", () => {
  it("the transcript of a thread left at an interrupt, with the interrupt's value", async () => {
    const r = await cli("show", `sqlite:${copyFixture("python-a.sqlite")}#a-hitl-1`);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/user\n\s+Refund order 1042/);
    expect(r.out).toMatch(/assistant\n\s+Proposed: Refund order 1042/);
    expect(r.out).toMatch(
      /pending interrupt: \{"question":"Approve this action\?","action":"Proposed: Refund order 1042"\}/,
    );
  });

  it("non-message channels as state; an older checkpoint by @~N", async () => {
    const path = copyFixture("js-a.sqlite");
    const r = await cli("show", `sqlite:${path}#a-counter-1`);
    expect(r.out).toContain("total: 7");
    expect(r.out).toContain('history: ["+3","total=3","+4","total=7"]');
    const old = await cli("show", `sqlite:${path}#a-chat-1@~5`);
    expect(old.out).toContain("4 messages"); // the end of the first invoke: human, AI call, tool, answer
  });
});

describe("ckpt diff of two checkpoints of a thread", () => {
  it("reports the appended messages and the channels that changed, not the store bookkeeping", async () => {
    const path = copyFixture("js-a.sqlite");
    const r = await cli("diff", `sqlite:${path}#a-chat-1@~5`, `sqlite:${path}#a-chat-1`, "--json");
    expect(r.code).toBe(1);
    const d = JSON.parse(r.out);
    const msgs = d.changes.filter((c: { kind: string }) => c.kind === "message");
    expect(msgs.map((c: { op: string; role: string }) => `${c.op}:${c.role}`)).toEqual([
      "appended:user",
      "appended:assistant",
      "appended:toolResult",
      "appended:toolResult",
      "appended:assistant",
    ]);
    const fields = d.changes
      .filter((c: { kind: string }) => c.kind === "field")
      .map((c: { pointer: string }) => c.pointer);
    for (const p of fields) expect(p).not.toMatch(/checkpointId|channel_versions|versions_seen|\/bytes|\/row\//);
    const counter = JSON.parse(
      (await cli("diff", `sqlite:${path}#a-counter-1@~3`, `sqlite:${path}#a-counter-1`, "--json")).out,
    );
    const ptrs = counter.changes.map((c: { pointer?: string }) => c.pointer);
    expect(ptrs).toEqual(expect.arrayContaining(["/state/delta", "/state/total", "/state/history"]));
  });

  it("a checkpoint against itself is identical (exit 0)", async () => {
    const path = copyFixture("python-a.sqlite");
    expect((await cli("diff", `sqlite:${path}#a-chat-1`, `sqlite:${path}#a-chat-1@latest`)).code).toBe(0);
  });
});
