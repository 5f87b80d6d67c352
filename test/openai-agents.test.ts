/**
 * OpenAI Agents SDK run states and session item lists, written by the real SDK (@openai/agents 0.20.0 under Node 22,
 * test/peers/scripts/openai-agents.mjs, with a scripted Model: no network) and checked against what the SDK itself
 * reads back: RunState.fromString → getInterruptions(), result.finalOutput, a run's input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";
import { launchBrowser } from "./helpers/browser.js";
import { pathToFileURL } from "node:url";

type Obj = Record<string, unknown>;
interface Interruption {
  callId: string;
  name: string;
  arguments: string;
  agent: string;
}
interface Written {
  state: string;
  finalOutput: unknown;
  interruptions: Interruption[];
  currentAgent: string;
}
interface Read {
  ok: boolean;
  error?: string;
  interruptions?: Interruption[];
  resumed?: { finalOutput?: unknown; error?: string };
}
const PEER = "scripts/openai-agents.mjs";
const RUNS = ["approval-one", "approval-two", "approved", "rejected", "handoff", "streamed", "structured"] as const;
const FINISHED = ["approved", "rejected", "handoff", "streamed"] as const;
const PAUSED = ["approval-one", "approval-two"] as const;

let dir: string;
let w: Record<(typeof RUNS)[number], Written> & { session: { items: Obj[] } };
const file = (name: string) => join(dir, `${name}.json`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-oa-"));
  w = (await runPeer<typeof w>(PEER, { op: "write" })).out;
  for (const r of RUNS) writeFileSync(file(r), w[r].state);
  writeFileSync(file("session"), JSON.stringify(w.session.items));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const showJson = async (f: string) => {
  const r = await runCli(["show", "--json", f]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as {
    messages: Array<Obj & { role: string; content?: Obj[] }>;
    interrupt?: { toolCall: Obj; step: number; approvals?: Obj[] };
    state: Obj;
    origin: Obj;
  };
};
const textOf = (m: { content?: Obj[] }) =>
  (m.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

describe("run states written by the real SDK", () => {
  it("validate exits 0 on each (and on a MemorySession's items)", async () => {
    const r = await runCli(["validate", "--json", ...RUNS.map(file), file("session")]);
    expect(r.code, r.out + r.err).toBe(0);
    const files = (JSON.parse(r.out) as { files: Array<Obj & { issues: unknown[] }> }).files;
    expect(files.map((f) => [f.format, f.formatVersion ?? null, f.valid, f.issues])).toEqual([
      ...RUNS.map(() => ["openai-agents", JSON.parse(w["approval-one"].state).$schemaVersion, true, []]),
      ["openai-agents-items", null, true, []],
    ]);
  });

  it("show --json: a finished run's last text is the SDK's finalOutput, and it has no interrupt", async () => {
    for (const r of FINISHED) {
      const cp = await showJson(file(r));
      expect(typeof w[r].finalOutput, r).toBe("string");
      const last = cp.messages[cp.messages.length - 1]!;
      expect([r, last.role, textOf(last)]).toEqual([r, "assistant", w[r].finalOutput]);
      expect(cp.interrupt, r).toBeUndefined();
      expect(cp.state.currentAgent, r).toBe(w[r].currentAgent);
    }
  });

  it("show --json: a structured final output is the last text, as JSON, after the reasoning (a thinking block)", async () => {
    const cp = await showJson(file("structured"));
    const last = cp.messages[cp.messages.length - 1]!;
    expect(typeof w.structured.finalOutput).toBe("object");
    expect(JSON.parse(textOf(last))).toEqual(w.structured.finalOutput);
    const sdkReasoning = (JSON.parse(w.structured.state).generatedItems as Obj[]).find(
      (g) => g.type === "reasoning_item",
    )!;
    expect(last.content?.[0]).toEqual({
      type: "thinking",
      thinking: ((sdkReasoning.rawItem as Obj).content as Obj[])[0]!.text,
    });
  });

  it("show --json: a paused run's interrupt is the pending approvals RunState.getInterruptions() returns", async () => {
    for (const r of PAUSED) {
      const cp = await showJson(file(r));
      const want = w[r].interruptions.map((i) => ({
        toolCallId: i.callId,
        toolName: i.name,
        args: JSON.parse(i.arguments),
        agent: i.agent,
      }));
      expect(want.length, r).toBe(r === "approval-one" ? 1 : 2);
      expect(cp.interrupt?.approvals, r).toEqual(want);
      const { agent: _a, ...first } = want[0]!;
      expect(cp.interrupt?.toolCall, r).toEqual(first);
      // the approvals are pending: their calls are in the conversation, and no result answers them yet
      const calls = cp.messages.flatMap((m) => (m.content ?? []).filter((c) => c.type === "toolCall").map((c) => c.id));
      const results = cp.messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId);
      for (const a of want)
        expect([calls.includes(a.toolCallId), results.includes(a.toolCallId)]).toEqual([true, false]);
    }
    const text = await runCli(["show", file("approval-two")]);
    for (const i of w["approval-two"].interruptions)
      expect(text.out).toContain(`pending approval: ${i.name} [${i.callId}]`);
  });

  it("show: tool results (a rejected call's is an error), and the handoff to the agent the run ends at", async () => {
    const rejected = await showJson(file("rejected"));
    const approved = await showJson(file("approved"));
    const result = (cp: typeof rejected) => cp.messages.find((m) => m.role === "toolResult")!;
    expect([result(rejected).isError, result(approved).isError]).toEqual([true, false]);
    const sdkResult = (r: Written, name: string) =>
      (JSON.parse(r.state).generatedItems as Obj[]).find((g) => g.type === name) as Obj;
    expect(textOf(result(approved))).toBe(sdkResult(w.approved, "tool_call_output_item").output);
    expect(textOf(result(rejected))).toBe(sdkResult(w.rejected, "tool_call_output_item").output);
    const h = await showJson(file("handoff"));
    const handoff = h.messages.find((m) => m.role === "openai-agents" && m.kind === "agent-handoff");
    const sdkHandoff = sdkResult(w.handoff, "handoff_output_item");
    expect(handoff?.data).toEqual({
      from: (sdkHandoff.sourceAgent as Obj).name,
      to: (sdkHandoff.targetAgent as Obj).name,
      callId: (sdkHandoff.rawItem as Obj).callId,
    });
    expect(h.state.currentAgent).toBe(w.handoff.currentAgent);
    const text = await runCli(["show", file("handoff")]);
    expect(text.out).toContain(`agent-handoff {"from":"assistant","to":"${w.handoff.currentAgent}"`);
  });

  it("view: the page names every pending approval, and the handoff", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const open = async (r: string) => {
        const html = join(dir, `${r}.html`);
        expect((await runCli(["view", file(r), "-o", html])).code).toBe(0);
        await page.goto(pathToFileURL(html).href);
        await page.waitForSelector("html[data-ready]", { timeout: 10_000 });
      };
      await open("approval-two");
      const notes = await page.locator("aside.interrupt").allInnerTexts();
      expect(notes.map((t) => /pending approval (\S+) \[(\S+)\]/.exec(t)?.slice(1))).toEqual(
        w["approval-two"].interruptions.map((i) => [i.name, i.callId]),
      );
      await open("handoff");
      expect(await page.locator("body").innerText()).toContain("agent-handoff");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("diff: a paused run and its approved continuation differ; a state and itself do not", async () => {
    const same = await runCli(["diff", file("approved"), file("approved")]);
    expect(same.code, same.out + same.err).toBe(0);
    const d = await runCli(["diff", "--json", file("approval-one"), file("approved")]);
    expect(d.code, d.err).toBe(1);
    expect(d.out).toContain(String(w.approved.finalOutput));
  });
});

describe("the schemas", () => {
  it("are what the installed SDK's own zod schemas give (scripts/openai-agents-schemas.mjs --check)", async () => {
    const script = join(import.meta.dirname, "..", "scripts", "openai-agents-schemas.mjs");
    const { out } = await runPeer<{ sdkVersion: string; currentSchemaVersion: string; stale: string[] }>(script, null, {
      env: { CKPT_SCHEMAS_CHECK: "1" },
    });
    expect(out.stale).toEqual([]);
    expect(out.currentSchemaVersion).toBe(JSON.parse(w.approved.state).$schemaVersion);
  });
});

// ---- damaged run states: ckpt's findings, and the SDK's own verdict --------------------------------------------

interface Damage {
  name: string;
  text: string;
  /** ckpt's exit code: 1 for a finding, 3 for a file that is not readable JSON */
  exit: 1 | 3;
  /** the pointer of a finding */
  pointer?: string;
}
function damaged(): Damage[] {
  const one = JSON.parse(w["approval-one"].state) as Obj;
  const done = JSON.parse(w.approved.state) as Obj;
  const edit = (base: Obj, f: (s: Obj) => void) => {
    const s = structuredClone(base);
    f(s);
    return JSON.stringify(s);
  };
  const gi = (s: Obj) => s.generatedItems as Obj[];
  return [
    { name: "truncated", text: w["approval-one"].state.slice(0, 1500), exit: 3 },
    {
      name: "currentTurn as a string",
      text: edit(one, (s) => (s.currentTurn = "1")),
      exit: 1,
      pointer: "/currentTurn",
    },
    { name: "no generatedItems", text: edit(one, (s) => delete s.generatedItems), exit: 1, pointer: "" },
    { name: "no $schemaVersion", text: edit(one, (s) => delete s.$schemaVersion), exit: 1, pointer: "" },
    {
      name: "unknown $schemaVersion",
      text: edit(one, (s) => (s.$schemaVersion = "2.0")),
      exit: 1,
      pointer: "/$schemaVersion",
    },
    {
      name: "1.17 field in a 1.16 state",
      text: edit(done, (s) => (s.$schemaVersion = "1.16")),
      exit: 1,
      pointer: "/generatedItems/1/executionStatus",
    },
    {
      name: "1.20 field in a 1.19 state",
      text: edit(one, (s) => {
        s.$schemaVersion = "1.19";
        s.pendingSessionWrite = {
          phase: "prepared",
          sessionId: "s1",
          alreadyPersistedCount: 0,
          persistedItemCount: 1,
          reasoningItemIdPolicy: "preserve",
        };
      }),
      exit: 1,
      pointer: "/pendingSessionWrite",
    },
    {
      name: "1.16 owner-scoped function approvals in a 1.15 state",
      text: edit(JSON.parse(w.rejected.state) as Obj, (s) => (s.$schemaVersion = "1.15")),
      exit: 1,
      pointer: "/context/functionApprovals",
    },
    {
      name: "1.13 tool output customData in a 1.12 state",
      text: edit(done, (s) => {
        s.$schemaVersion = "1.12";
        gi(s)[1]!.customData = { source: "cache" };
      }),
      exit: 1,
      pointer: "/generatedItems/1/customData",
    },
    {
      name: "1.18 structured tool output in a 1.17 state",
      text: edit(done, (s) => {
        s.$schemaVersion = "1.17";
        gi(s)[1]!.output = { forecast: "sunny" };
      }),
      exit: 1,
      pointer: "/generatedItems/1/output",
    },
    {
      name: "a call id that is a number",
      text: edit(one, (s) => ((gi(s)[0]!.rawItem as Obj).callId = 42)),
      exit: 1,
      pointer: "/generatedItems/0/rawItem/callId",
    },
    {
      name: "token counts as a string",
      text: edit(one, (s) => (((s.modelResponses as Obj[])[0]!.usage as Obj).inputTokens = "11")),
      exit: 1,
      pointer: "/modelResponses/0/usage/inputTokens",
    },
    {
      name: "an unknown step type",
      text: edit(one, (s) => ((s.currentStep as Obj).type = "next_step_wait")),
      exit: 1,
      pointer: "/currentStep/type",
    },
    {
      name: "an unknown run item type",
      text: edit(one, (s) => (gi(s)[0]!.type = "tool_called_item")),
      exit: 1,
      pointer: "/generatedItems/0/type",
    },
    { name: "no context", text: edit(one, (s) => delete s.context), exit: 1, pointer: "" },
  ];
}

describe("damaged run states", () => {
  it("each gives findings with a pointer and line:column (or exit 3), and the SDK's RunState.fromString rejects each", async () => {
    const cases = damaged();
    const sdk = (await runPeer<Read[]>(PEER, { op: "read", texts: cases.map((c) => c.text) })).out;
    for (const [k, c] of cases.entries()) {
      expect([c.name, sdk[k]!.ok], sdk[k]!.error).toEqual([c.name, false]);
      const f = join(dir, `damaged-${k}.json`);
      writeFileSync(f, c.text);
      const r = await runCli(["validate", "--json", f]);
      expect([c.name, r.code]).toEqual([c.name, c.exit]);
      const res = (JSON.parse(r.out) as { files: Array<Obj & { issues: Obj[]; error?: Obj }> }).files[0]!;
      if (c.exit === 3) {
        // cut short inside a string: the place is that string's opening quote, which no quote closes
        expect([res.error?.reason, res.error?.line]).toEqual(["json-syntax", 1]);
        const col = res.error?.column as number;
        expect([c.text[col - 1], c.text.slice(col).includes('"')]).toEqual(['"', false]);
        continue;
      }
      const errors = res.issues.filter((i) => i.severity === "error");
      expect(
        errors.map((i) => i.pointer),
        c.name,
      ).toContain(c.pointer);
      for (const i of errors) {
        expect(typeof i.line, `${c.name}: ${JSON.stringify(i)}`).toBe("number");
        expect(typeof i.column, `${c.name}: ${JSON.stringify(i)}`).toBe("number");
      }
    }
  });

  it("states the SDK reads but ckpt flags get warnings that say why (checked against what the SDK then does)", async () => {
    const one = JSON.parse(w["approval-one"].state) as Obj;
    const withKey = {
      ...one,
      trace: {
        object: "trace",
        id: "trace_1",
        workflow_name: "w",
        group_id: null,
        metadata: {},
        tracing_api_key: "sk-x",
      },
    };
    const pastMax = { ...one, currentTurn: 11, maxTurns: 10 };
    const cases = [
      { name: "tracing key", state: withKey, rule: "openai-agents/secret" },
      { name: "past maxTurns", state: pastMax, rule: "openai-agents/turns-exceeded" },
    ];
    const sdk = (
      await runPeer<Read[]>(PEER, { op: "read", texts: cases.map((c) => JSON.stringify(c.state)), resume: true })
    ).out;
    // the SDK reads both; the one past its turn limit cannot be resumed
    expect(sdk.map((s) => s.ok)).toEqual([true, true]);
    expect(sdk[0]!.resumed?.finalOutput).toBe("Resumed.");
    expect(sdk[1]!.resumed?.error).toMatch(/^MaxTurnsExceededError/);
    for (const [k, c] of cases.entries()) {
      const f = join(dir, `warn-${k}.json`);
      writeFileSync(f, JSON.stringify(c.state));
      const r = await runCli(["validate", "--json", f]);
      expect([c.name, r.code]).toEqual([c.name, 0]);
      const issues = (JSON.parse(r.out) as { files: Array<{ issues: Obj[] }> }).files[0]!.issues;
      expect(issues.map((i) => [i.severity, i.rule])).toEqual([["warning", c.rule]]);
      const strict = await runCli(["validate", "--strict", f]);
      expect(strict.code).toBe(1);
    }
  });
});

// ---- session item lists --------------------------------------------------------------------------------------

describe("session item lists", () => {
  it("a MemorySession's items convert to the canonical model and back unchanged", async () => {
    const r = await runCli(["convert", file("session"), "--to-format", "openai-agents-items"]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual(w.session.items);
    const cp = await showJson(file("session"));
    expect(cp.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("the conversation of every run state, as items, is taken by the SDK as a run's input and sent to the model as is", async () => {
    const lists: Obj[][] = [];
    for (const r of RUNS) {
      const c = await runCli(["convert", file(r), "--to-format", "openai-agents-items", "--allow-lossy"]);
      expect(c.code, c.err).toBe(0);
      lists.push(JSON.parse(c.out) as Obj[]);
    }
    const sdk = (await runPeer<Array<Read & { sent?: Obj[] }>>(PEER, { op: "input", lists })).out;
    for (const [k, r] of RUNS.entries()) {
      expect([r, sdk[k]!.ok], sdk[k]!.error).toEqual([r, true]);
      expect(sdk[k]!.sent, r).toEqual(lists[k]);
    }
    // a finished run's items: its original input, then each generated item's raw item (approval requests are not items)
    const approved = JSON.parse(w.approved.state) as Obj;
    expect(lists[RUNS.indexOf("approved")]).toEqual([
      { type: "message", role: "user", content: approved.originalInput },
      ...(approved.generatedItems as Obj[]).filter((g) => g.type !== "tool_approval_item").map((g) => g.rawItem),
    ]);
  });

  it("a conversation from another format becomes a RunState the SDK reads and resumes with that conversation", async () => {
    const c = await runCli(["convert", file("session"), "--to-format", "openai-agents", "--allow-lossy"]);
    expect(c.code, c.err).toBe(0);
    const v = join(dir, "fresh.json");
    writeFileSync(v, c.out);
    expect((await runCli(["validate", v])).code).toBe(0);
    const sdk = (await runPeer<Read[]>(PEER, { op: "read", texts: [c.out], resume: true })).out;
    expect(sdk[0]).toEqual({ ok: true, interruptions: [], resumed: { finalOutput: "Resumed." } });
    expect((JSON.parse(c.out) as Obj).originalInput).toEqual(w.session.items);
  });

  it("reading never writes: the files are byte for byte as before", () => {
    for (const r of [...RUNS, "session"]) {
      const want = r === "session" ? JSON.stringify(w.session.items) : w[r as (typeof RUNS)[number]].state;
      expect(readFileSync(file(r), "utf8"), r).toBe(want);
    }
  });
});
