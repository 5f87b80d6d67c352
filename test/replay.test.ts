import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { parseJson } from "../src/base/json.js";
import { validators } from "../src/generated/validators.js";
import type { Checkpoint } from "../src/generated/types.js";
import { verifyCheckpoint, continueCheckpoint, resumeCheckpoint } from "../src/core/replay/replay.js";
import { ScriptProvider } from "../src/core/replay/providers.js";

const fx = (n: string) => join(__dirname, "..", "fixtures", "replay", n);
const load = (n: string) => parseJson(readFileSync(fx(n), "utf8")) as Checkpoint;

function io(stdin = ""): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([stdin]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}

describe("replay verify", () => {
  it("re-runs every state tool of the hand-written fixture and matches results and final state", async () => {
    const r = await verifyCheckpoint(load("tools.ckpt.json"));
    expect(r.divergence).toBeUndefined();
    expect(r.ok).toBe(true);
    expect(r.turns).toBe(8); // eight assistant messages (messages 1, 3, 6, 8, 10, 12, 15, 18)
    expect(r.toolCalls).toBe(10);
    expect(r.stateToolCalls).toBe(9);
    expect(r.recordedToolCalls).toBe(1); // web_search answered from the recording
    expect(r.stateChecked).toBe(true);
  });

  it("names the step and message of a planted tool-result divergence", async () => {
    const r = await verifyCheckpoint(load("diverged-tool-result.ckpt.json"));
    expect(r.ok).toBe(false);
    expect(r.divergence).toMatchObject({
      kind: "tool-result",
      step: 4,
      messageIndex: 9,
      toolName: "read_file",
      toolCallId: "c5",
      pointer: "/messages/9/content",
    });
    expect(r.divergence!.diff).toContain("-     2\thello there");
    expect(r.divergence!.diff).toContain("+     2\thello world");
  });

  it("reports a changed file in the final state", async () => {
    const r = await verifyCheckpoint(load("diverged-file.ckpt.json"));
    expect(r.divergence).toMatchObject({
      kind: "final-files",
      pointer: "/state/files/~1src~1a.ts",
      expected: "export const a = 2;",
      got: "export const a = 1;",
    });
  });

  it("starting from a different initial state diverges at the first tool whose result depends on it", async () => {
    const r = await verifyCheckpoint(load("tools.ckpt.json"), {
      initialState: { todos: [], files: { "/README.md": { content: ["old"], created_at: "x", modified_at: "x" } } },
    });
    // write_file /README.md (step 2, message 4) now finds an existing file
    expect(r.divergence).toMatchObject({ step: 2, messageIndex: 4, toolName: "write_file" });
  });

  it("CLI: exit 0 on match, 1 on divergence with the step named, --json summary", async () => {
    const a = io();
    expect(await main(["replay", fx("tools.ckpt.json"), "-q"], a)).toBe(0);
    expect(a.out()).toMatch(
      /replay matched: 8 turns, 10 tool calls \(9 run against state, 1 from the recording\).*final state matches/,
    );
    const b = io();
    expect(await main(["replay", "verify", fx("diverged-tool-result.ckpt.json"), "-q"], b)).toBe(1);
    expect(b.out()).toMatch(
      /diverged at step 4, message 9 \(\/messages\/9\/content\): tool result of read_file \(c5\) differs/,
    );
    const c = io();
    expect(await main(["replay", fx("diverged-file.ckpt.json"), "--json"], c)).toBe(1);
    const lines = c
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({
      type: "summary",
      summary: { ok: false, divergence: { kind: "final-files" } },
    });
    expect(lines.some((l) => l.type === "tool_end" && l.toolName === "ls")).toBe(true);
  });
});

describe("replay continue and resume", () => {
  const clock = () => {
    let t = Date.parse("2026-05-01T00:00:00.000Z");
    return () => (t += 1000);
  };

  it("continue with a script runs tool calls against state and produces a valid checkpoint", async () => {
    const cp = load("tools.ckpt.json");
    const provider = new ScriptProvider(JSON.parse(readFileSync(fx("script-ls.json"), "utf8")), "script-ls.json");
    const { checkpoint, result } = await continueCheckpoint(cp, "What files are there?", { provider, now: clock() });
    expect(result.turns).toBe(2);
    expect(result.toolCalls).toBe(1);
    const tail = checkpoint.messages.slice(cp.messages.length);
    expect(tail.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    // after the edit, /README.md is "# Demo\nhi world\n" = 16 characters
    expect(tail[2]).toMatchObject({
      toolName: "ls",
      isError: false,
      content: [{ type: "text", text: "/README.md (16 bytes)\n/src/ (directory)" }],
    });
    expect(checkpoint.step).toBe(cp.step + 2);
    expect(Date.parse(checkpoint.updatedAt!)).toBeGreaterThan(Date.parse("2026-05-01T00:00:02.000Z")); // from the injected clock
    expect(validators.Checkpoint(checkpoint)).toBe(true);
  });

  it("limits stop a runaway loop with the yoagent-style marker, and the CLI still saves", async () => {
    const cp = load("tools.ckpt.json");
    const provider = new ScriptProvider(
      JSON.parse(readFileSync(fx("script-runaway.json"), "utf8")),
      "script-runaway.json",
    );
    const { checkpoint, result } = await continueCheckpoint(cp, "loop", { provider, limits: { maxTurns: 3 } });
    expect(result.stopped).toBe("max turns (3) reached");
    expect(result.turns).toBe(3);
    expect(checkpoint.messages.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "[Agent stopped: max turns (3) reached]" }],
    });

    const dir = mkdtempSync(join(tmpdir(), "ckpt-replay-"));
    const out = join(dir, "out.json");
    const t = io();
    const code = await main(
      [
        "replay",
        "continue",
        fx("tools.ckpt.json"),
        "--prompt",
        "loop",
        "--provider",
        `script:${fx("script-runaway.json")}`,
        "--max-turns",
        "2",
        "-o",
        out,
      ],
      t,
    );
    expect(code).toBe(1);
    expect(t.err()).toMatch(/stopped by a limit: max turns \(2\) reached/);
    const saved = parseJson(readFileSync(out, "utf8")) as Checkpoint;
    expect(validators.Checkpoint(saved)).toBe(true);
    expect(saved.messages.at(-1)).toMatchObject({ role: "user" });
  });

  it("identical repeated tool calls stop the run (max_consecutive_identical_tool_calls from an ExecutionLimits file)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-replay-"));
    const limits = join(dir, "limits.json");
    writeFileSync(
      limits,
      JSON.stringify({
        max_turns: 50,
        max_total_tokens: 1000000,
        max_duration: { secs: 600, nanos: 0 },
        max_consecutive_identical_tool_calls: 2,
      }),
    );
    const t = io();
    const out = join(dir, "o.json");
    const code = await main(
      [
        "replay",
        "continue",
        fx("tools.ckpt.json"),
        "--prompt",
        "x",
        "--provider",
        `script:${fx("script-runaway.json")}`,
        "--limits",
        limits,
        "-o",
        out,
      ],
      t,
    );
    expect(code).toBe(1);
    expect(t.err()).toMatch(/repeated tool call — ls called 3 times with identical arguments/);
  });

  it("resume approve runs the pending write_file; deny answers with the reason; both then continue", async () => {
    const cp = load("pending-interrupt.ckpt.json");
    const p1 = new ScriptProvider(["Saved."], "s");
    const ok = await resumeCheckpoint(cp, { provider: p1, decision: "approve" });
    expect(ok.checkpoint.interrupt).toBeUndefined();
    expect(ok.checkpoint.state.files?.["/note.md"]?.content).toEqual(["remember", "this"]);
    expect(ok.checkpoint.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(ok.checkpoint.messages[2]).toMatchObject({
      toolCallId: "call_w1",
      isError: false,
      content: [{ text: "Successfully wrote to '/note.md'" }],
    });
    expect(validators.Checkpoint(ok.checkpoint)).toBe(true);

    const p2 = new ScriptProvider(["Understood, not saving."], "s");
    const no = await resumeCheckpoint(cp, { provider: p2, decision: "deny", reason: "not now" });
    expect(no.checkpoint.state.files).toEqual({});
    expect(no.checkpoint.messages[2]).toMatchObject({
      toolCallId: "call_w1",
      isError: true,
      content: [{ text: "Tool call denied: not now" }],
    });
  });

  it("resume without an interrupt is a clear input error; recorded provider past the recording is a clear failure", async () => {
    const t = io();
    expect(
      await main(
        [
          "replay",
          "resume",
          fx("tools.ckpt.json"),
          "--decision",
          "approve",
          "--provider",
          `script:${fx("script-done.json")}`,
        ],
        t,
      ),
    ).toBe(3);
    expect(t.err()).toMatch(/no pending interrupt/);
    const u = io();
    expect(
      await main(["replay", "continue", fx("tools.ckpt.json"), "--prompt", "more", "--provider", "recorded", "-q"], u),
    ).toBe(1);
    expect(u.err()).toMatch(/the recording has no assistant turn/);
  });

  it("continue writes to stdout in the input's format when no -o is given", async () => {
    const t = io();
    expect(
      await main(
        [
          "replay",
          "continue",
          fx("pending-interrupt.ckpt.json"),
          "--prompt",
          "hi",
          "--provider",
          `script:${fx("script-done.json")}`,
          "-q",
        ],
        t,
      ),
    ).toBe(0);
    const cp = parseJson(t.out()) as Checkpoint;
    expect(cp.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Noted." }] });
  });
});

describe("replay continue in the input's format", () => {
  it("a yoagent history continues as a yoagent file the yoagent schema accepts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-replay-y-"));
    const out = join(dir, "conversation.json");
    const input = join(__dirname, "..", "fixtures", "yoagent", "valid", "save_messages.v0.18.json");
    const t = io();
    expect(
      await main(
        [
          "replay",
          "continue",
          input,
          "--prompt",
          "thanks",
          "--provider",
          `script:${fx("script-done.json")}`,
          "-o",
          out,
          "-q",
        ],
        t,
      ),
      t.err(),
    ).toBe(0);
    const arr = parseJson(readFileSync(out, "utf8")) as Array<Record<string, unknown>>;
    expect(validators["formats/yoagent/messages"](arr)).toBe(true);
    expect(arr.slice(-2).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(arr.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Noted." }],
      stopReason: "stop",
      provider: "script",
    });
  });
});

describe("replay verify over every valid fixture", () => {
  it("passes on every fixture whose history holds tool calls and results", async () => {
    const { readdirSync, statSync } = await import("node:fs");
    const { readCheckpoint } = await import("../src/formats/index.js");
    const root = join(__dirname, "..", "fixtures");
    let checked = 0;
    for (const format of readdirSync(root)) {
      const dir = join(root, format, "valid");
      if (!statSync(join(root, format)).isDirectory() || !readdirSync(join(root, format)).includes("valid")) continue;
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        const doc = statSync(p).isDirectory()
          ? {
              name: p,
              files: Object.fromEntries(
                readdirSync(p)
                  .filter((x) => x.endsWith(".org"))
                  .map((x) => [x, readFileSync(join(p, x), "utf8")]),
              ),
            }
          : { name: p, text: readFileSync(p, "utf8") };
        const { checkpoint, format: fmt } = readCheckpoint(doc);
        const hasCalls = checkpoint.messages.some(
          (m) =>
            m.role === "assistant" &&
            (m as { content: Array<{ type: string }> }).content.some((c) => c.type === "toolCall"),
        );
        const hasResults = checkpoint.messages.some((m) => m.role === "toolResult");
        if (!hasCalls || !hasResults) continue;
        const r = await verifyCheckpoint(checkpoint, { stateTools: fmt === "deepagent" || fmt === "ckpt" });
        expect(r.divergence, `${format}/${f}`).toBeUndefined();
        expect(r.ok).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8); // yoagent ×4, phi-core ×2, phi-core-session, swarmer, deepagent all-variants
  });
});

describe("replay verify's transcript", () => {
  // save_messages.v0.18.json holds 4 assistant messages: a tool-calling turn, an answer, then (after a second user
  // message) an error turn "HTTP 529: overloaded_error" with empty text and a refusal "declined" with no content
  it("numbers the turns of the whole history 1…4 and shows turns without text with why they stopped", async () => {
    const { runCli } = await import("./helpers/cli-io.js");
    const r = await runCli(["replay", "verify", "fixtures/yoagent/valid/save_messages.v0.18.json"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err.match(/^── turn \d+$/gm)).toEqual(["── turn 1", "── turn 2", "── turn 3", "── turn 4"]);
    expect(r.err).toContain("assistant: (no text; error: HTTP 529: overloaded_error)");
    expect(r.err).toContain("assistant: (no text; refusal: declined)");
    // a yoagent history: the note about what deep-agent persists does not apply
    expect(r.err).toContain("note: no state tool ran, so the final state was not compared\n");
    expect(r.out).toContain("4 turns");
  });
  it("the event stream of the library carries the same whole-history turn numbers", async () => {
    const file = "fixtures/yoagent/valid/save_messages.v0.18.json";
    const { readCheckpoint } = await import("../src/formats/index.js");
    const { checkpoint } = readCheckpoint({ name: file, text: readFileSync(file, "utf8") });
    const turns: number[] = [];
    const v = await verifyCheckpoint(checkpoint, {
      onEvent: (e) => void (e.type === "turn_start" && turns.push(e.turn)),
    });
    expect(v.ok).toBe(true);
    expect(turns).toEqual([1, 2, 3, 4]);
    expect(v.turns).toBe(4);
  });
  it("keeps the note about deep-agent for a deep-agent history", async () => {
    const { runCli } = await import("./helpers/cli-io.js");
    const r = await runCli(["replay", "verify", "fixtures/deepagent/valid/explicit-messages-thread.json"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("(deep-agent itself does not persist tool calls)");
  });
});
