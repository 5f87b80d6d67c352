/**
 * The three replay modes on canonical checkpoints:
 * - verify: re-run every recorded turn from an empty (or given) state and check each state-tool result and the
 *   final state against the checkpoint; report the first divergence;
 * - continue: append a user prompt and run to completion with a provider;
 * - resume: answer a pending interrupt (approve or deny the tool call) and run to completion.
 */
import { createTwoFilesPatch } from "diff/lib/patch/create.js";
import type { AgentMessage, AssistantMessage, Checkpoint, ToolResultMessage } from "../../generated/types.js";
import { CkptError, ExitCode, inputError } from "../../base/errors.js";
import {
  runLoop,
  toolCallsOf,
  type Limits,
  type LoopResult,
  type ReplayEvent,
  type ToolExecution,
  type ToolRegistry,
} from "./loop.js";
import type { Provider } from "../../providers/types.js";
import { RecordedProvider } from "./providers.js";
import { createRegistry, resultText } from "./registry.js";
import { cloneState, isStateTool, type ReplayState } from "./state-tools.js";

export interface Divergence {
  /** what differs: a tool result, its error flag, or the final todos/files */
  kind: "tool-result" | "tool-error-flag" | "final-todos" | "final-files";
  /** 1-based assistant turn (the step) in which it happened; for final state, the last turn */
  step: number;
  /** index into checkpoint.messages of the recorded message that differs (final state: -1) */
  messageIndex: number;
  /** JSON pointer into the canonical checkpoint */
  pointer: string;
  toolName?: string;
  toolCallId?: string;
  expected: string;
  got: string;
  /** unified diff of expected (recorded) vs got (replayed) */
  diff: string;
}

export interface VerifyResult {
  ok: boolean;
  turns: number;
  toolCalls: number;
  /** tool calls run for real against state */
  stateToolCalls: number;
  /** tool calls answered from the recording */
  recordedToolCalls: number;
  /** tool calls with no recorded result and no state tool to run */
  unavailableToolCalls: number;
  /** whether the final state was compared (only when state tools ran) */
  stateChecked: boolean;
  divergence?: Divergence;
  notes: string[];
  durationMs: number;
}

class Diverged extends Error {
  constructor(readonly divergence: Divergence) {
    super("diverged");
  }
}

function patch(expected: string, got: string): string {
  return createTwoFilesPatch(
    "recorded",
    "replayed",
    expected.endsWith("\n") ? expected : expected + "\n",
    got.endsWith("\n") ? got : got + "\n",
    "",
    "",
    {
      context: 2,
    },
  );
}

const isRunBoundary = (m: AgentMessage) => m.role !== "assistant" && m.role !== "toolResult";

/** Canonical JSON of todos (key order as in the record) for comparison and display. */
const show = (v: unknown) => JSON.stringify(v, null, 2);

export interface VerifyOptions {
  initialState?: ReplayState;
  /** run deep-agent state tools for real; default: defaultStateTools(checkpoint) — the same default as `ckpt replay` */
  stateTools?: boolean;
  onEvent?: (e: ReplayEvent) => void;
}

/** Formats whose agents have deep-agent's state tools (write_todos, ls, read_file, write_file, edit_file, …). */
export const STATE_TOOL_FORMATS: readonly string[] = ["deepagent", "ckpt"];

/**
 * The one default of `stateTools`, for the library and the CLI alike: state tools run for real on a history from
 * deep-agent or ckpt's own model (by the checkpoint's `origin`; none means ckpt's own), and are answered from the
 * recording for every other system (a yoagent `read_file` is the app's own tool, not deep-agent's).
 */
export function defaultStateTools(cp: Checkpoint): boolean {
  return STATE_TOOL_FORMATS.includes(cp.origin?.format ?? "ckpt");
}

/** Tool calls counted by where their result came from. */
interface Tally {
  toolCalls: number;
  stateToolCalls: number;
  recordedToolCalls: number;
  unavailable: number;
  /** assistant turns replayed so far */
  stepBase: number;
}

/** The first recorded result of each tool call id, and its message index. */
function recordedResults(msgs: readonly AgentMessage[]): {
  recorded: Map<string, ToolResultMessage>;
  resultIndex: Map<string, number>;
} {
  const resultIndex = new Map<string, number>();
  const recorded = new Map<string, ToolResultMessage>();
  msgs.forEach((m, i) => {
    if (m.role !== "toolResult") return;
    const r = m as ToolResultMessage;
    if (!recorded.has(r.toolCallId)) {
      recorded.set(r.toolCallId, r);
      resultIndex.set(r.toolCallId, i);
    }
  });
  return { recorded, resultIndex };
}

/**
 * The tools of a verification: state tools run on `state` and each result is compared with the recorded one (a
 * difference throws Diverged), other tools answer from the recording; every call is counted in `tally`.
 */
function verifyingTools(
  msgs: readonly AgentMessage[],
  state: ReplayState,
  stateTools: boolean,
  tally: Tally,
  notes: string[],
): ToolRegistry {
  const { recorded, resultIndex } = recordedResults(msgs);
  const diverged = (
    kind: Divergence["kind"],
    call: { id: string; name: string },
    turn: number,
    field: string,
    expected: string,
    got: string,
    diff: string,
  ) => {
    const i = resultIndex.get(call.id)!;
    return new Diverged({
      kind,
      step: tally.stepBase + turn,
      messageIndex: i,
      pointer: `/messages/${i}/${field}`,
      toolName: call.name,
      toolCallId: call.id,
      expected,
      got,
      diff,
    });
  };
  const registry = createRegistry({
    state,
    stateTools,
    recorded,
    onStateResult(call, got: ToolExecution, rec, turn) {
      if (!rec) {
        notes.push(`step ${tally.stepBase + turn}: ${call.name} (${call.id}) has no recorded result to compare with`);
        return;
      }
      const expected = resultText(rec);
      if (expected !== got.text)
        throw diverged("tool-result", call, turn, "content", expected, got.text, patch(expected, got.text));
      if (rec.isError !== got.isError) {
        throw diverged(
          "tool-error-flag",
          call,
          turn,
          "isError",
          String(rec.isError),
          String(got.isError),
          patch(`isError: ${rec.isError}`, `isError: ${got.isError}`),
        );
      }
    },
  });
  return {
    specs: registry.specs,
    async execute(...args: Parameters<typeof registry.execute>) {
      tally.toolCalls++;
      if (isStateTool(args[0].name) && stateTools) tally.stateToolCalls++;
      const r = await registry.execute(...args);
      if (r.source === "recorded") tally.recordedToolCalls++;
      else if (r.source !== "state") tally.unavailable++;
      return r;
    },
  };
}

/**
 * Replay every run of the history: user/system/extension messages are taken as they are; each run of assistant
 * and tool-result messages up to the next of those is re-run with the recorded assistant turns as the provider.
 */
async function replayHistory(
  msgs: readonly AgentMessage[],
  tools: ToolRegistry,
  tally: Tally,
  onEvent: VerifyOptions["onEvent"],
): Promise<void> {
  let history: AgentMessage[] = [];
  let i = 0;
  while (i < msgs.length) {
    const m = msgs[i]!;
    if (m.role !== "assistant") {
      // user/system/extension messages (and tool results outside any run) are replayed as they are
      if (m.role !== "toolResult") history.push(m);
      i++;
      continue;
    }
    let end = i;
    while (end < msgs.length && !isRunBoundary(msgs[end]!)) end++;
    const assistants = msgs.slice(i, end).filter((x): x is AssistantMessage => x.role === "assistant");
    const provider = new RecordedProvider(assistants);
    const segmentBase = tally.stepBase;
    while (provider.remaining > 0) {
      const lastNeeded = provider.remaining;
      // each run of the loop counts its turns from 1: events carry the turn number of the whole history
      const base = tally.stepBase;
      const events = onEvent && ((e: ReplayEvent) => onEvent("turn" in e ? { ...e, turn: e.turn + base } : e));
      const res: LoopResult | undefined = await runLoop(history, { provider, tools, onEvent: events }).catch((e) => {
        // A recording that ends on a tool-call turn (e.g. a pending interrupt) ends the run there.
        if (e instanceof CkptError && e.reason === "recording-exhausted") return undefined;
        throw e;
      });
      if (!res) break;
      history = res.messages;
      tally.stepBase += res.turns;
      if (provider.remaining === lastNeeded) break;
    }
    tally.stepBase = segmentBase + (assistants.length - provider.remaining); // every recorded turn replayed, including one that ended the recording
    i = end;
  }
}

/** The first difference between the recorded final state (todos, then files by path) and the replayed one. */
function finalStateDivergence(cp: Checkpoint, state: ReplayState, step: number): Divergence | undefined {
  const wantTodos = cp.state.todos ?? [];
  if (show(wantTodos) !== show(state.todos)) {
    return {
      kind: "final-todos",
      step,
      messageIndex: -1,
      pointer: "/state/todos",
      expected: show(wantTodos),
      got: show(state.todos),
      diff: patch(show(wantTodos), show(state.todos)),
    };
  }
  const want = cp.state.files ?? {};
  const paths = [...new Set([...Object.keys(want), ...Object.keys(state.files)])].sort();
  for (const p of paths) {
    const a = want[p]?.content;
    const b = state.files[p]?.content;
    if (show(a) === show(b)) continue;
    const ea = a ? a.join("\n") : "(no such file)";
    const gb = b ? b.join("\n") : "(no such file)";
    return {
      kind: "final-files",
      step,
      messageIndex: -1,
      pointer: `/state/files/${p.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      expected: ea,
      got: gb,
      diff: patch(ea, gb),
    };
  }
  return undefined;
}

/**
 * Re-run every recorded turn and compare each state-tool result, then the final state (when state tools ran),
 * with the checkpoint; the first difference is the divergence.
 */
export async function verifyCheckpoint(cp: Checkpoint, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const t0 = performance.now();
  const state = cloneState(opts.initialState);
  const stateTools = opts.stateTools ?? defaultStateTools(cp);
  const notes: string[] = [];
  const tally: Tally = { toolCalls: 0, stateToolCalls: 0, recordedToolCalls: 0, unavailable: 0, stepBase: 0 };
  const finish = (ok: boolean, divergence?: Divergence): VerifyResult => ({
    ok,
    turns: divergence && divergence.step > tally.stepBase ? divergence.step : tally.stepBase,
    toolCalls: tally.toolCalls,
    stateToolCalls: tally.stateToolCalls,
    recordedToolCalls: tally.recordedToolCalls,
    unavailableToolCalls: tally.unavailable,
    stateChecked: tally.stateToolCalls > 0,
    divergence,
    notes,
    durationMs: performance.now() - t0,
  });
  try {
    await replayHistory(cp.messages, verifyingTools(cp.messages, state, stateTools, tally, notes), tally, opts.onEvent);
  } catch (e) {
    if (e instanceof Diverged) return finish(false, e.divergence);
    throw e;
  }
  // Final state: compared when the history exercised the state tools.
  if (tally.stateToolCalls === 0) {
    notes.push(
      `no state tool ran, so the final state was not compared${cp.origin?.format === "deepagent" ? " (deep-agent itself does not persist tool calls)" : ""}`,
    );
    return finish(true);
  }
  const d = finalStateDivergence(cp, state, tally.stepBase);
  return d ? finish(false, d) : finish(true);
}

export interface RunOptions {
  provider: Provider;
  limits?: Limits;
  stateTools?: boolean;
  onEvent?: (e: ReplayEvent) => void;
  now?: () => number;
}

export interface RunOutcome {
  checkpoint: Checkpoint;
  result: LoopResult;
}

function withRun(cp: Checkpoint, state: ReplayState, res: LoopResult, now: number): Checkpoint {
  const iso = new Date(now).toISOString();
  const next: Checkpoint = {
    ...cp,
    step: cp.step + res.turns,
    messages: res.messages,
    state: { ...cp.state, todos: state.todos, files: state.files },
    createdAt: cp.createdAt ?? iso,
    updatedAt: iso,
  };
  delete next.interrupt;
  return next;
}

async function run(cp: Checkpoint, history: AgentMessage[], state: ReplayState, opts: RunOptions): Promise<RunOutcome> {
  const now = opts.now ?? Date.now;
  const registry = createRegistry({
    state,
    stateTools: opts.stateTools ?? defaultStateTools(cp),
    now: () => new Date(now()).toISOString(),
  });
  const result = await runLoop(history, {
    provider: opts.provider,
    tools: registry,
    limits: opts.limits,
    onEvent: opts.onEvent,
    now,
  });
  return { checkpoint: withRun(cp, state, result, now()), result };
}

/** Append a user message and run to completion. */
export async function continueCheckpoint(cp: Checkpoint, prompt: string, opts: RunOptions): Promise<RunOutcome> {
  const now = opts.now ?? Date.now;
  const state = cloneState(cp.state);
  const history: AgentMessage[] = [
    ...cp.messages,
    { role: "user", content: [{ type: "text", text: prompt }], timestamp: now() },
  ];
  opts.onEvent?.({ type: "message", message: history[history.length - 1]!, index: history.length - 1 });
  return run(cp, history, state, opts);
}

export interface ResumeOptions extends RunOptions {
  decision: "approve" | "deny";
  reason?: string;
}

/**
 * Answer the pending interrupt: approve runs the tool call (state tools for real; other tools are not available in
 * a replay and answer so), deny answers `Tool call denied: <reason>` as an error result. Then the loop continues.
 */
export async function resumeCheckpoint(cp: Checkpoint, opts: ResumeOptions): Promise<RunOutcome> {
  const intr = cp.interrupt;
  if (!intr)
    throw inputError(
      "no-interrupt",
      "the checkpoint has no pending interrupt (no tool call awaits approval): nothing to resume",
      { pointer: "/interrupt" },
    );
  const now = opts.now ?? Date.now;
  const { toolCallId, toolName } = intr.toolCall;
  const args = intr.toolCall.args ?? {};
  const state = cloneState(cp.state);
  const history = [...cp.messages];
  const asked = history.some((m) => toolCallsOf(m).some((c) => c.id === toolCallId));
  if (!asked) {
    // deep-agent never persisted the assistant turn that asked: restore it so the result answers a real call.
    history.push({
      role: "assistant",
      content: [{ type: "toolCall", id: toolCallId, name: toolName, arguments: args }],
      stopReason: "toolUse",
      timestamp: now(),
    });
  }
  if (history.some((m) => m.role === "toolResult" && (m as ToolResultMessage).toolCallId === toolCallId)) {
    throw inputError("interrupt-answered", `the pending tool call ${toolCallId} already has a result in the history`, {
      pointer: "/interrupt",
    });
  }
  let text: string;
  let isError: boolean;
  if (opts.decision === "approve") {
    const reg = createRegistry({
      state,
      stateTools: opts.stateTools ?? defaultStateTools(cp),
      now: () => new Date(now()).toISOString(),
    });
    const r = await reg.execute({ type: "toolCall", id: toolCallId, name: toolName, arguments: args }, 0);
    text = r.text;
    isError = r.isError;
  } else {
    text = `Tool call denied: ${opts.reason ?? "denied by the user"}`;
    isError = true;
  }
  const answer: ToolResultMessage = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError,
    timestamp: now(),
  };
  history.push(answer);
  opts.onEvent?.({
    type: "tool_end",
    turn: 0,
    toolCallId,
    toolName,
    isError,
    text,
    source: opts.decision === "approve" ? "state" : "denied",
  });
  return run({ ...cp, interrupt: undefined }, history, state, opts);
}

export { CkptError, ExitCode };
