// bench/replay: `ckpt replay` verify time on a 10,000-message checkpoint full of deep-agent state-tool calls,
// as a ratio to parsing + schema-validating the same file in the same run.
// Run: npm run build && node bench/replay.mjs
import { performance } from "node:perf_hooks";
import { parseJson, stringifyJson } from "../dist/base/json.js";
import { validators } from "../dist/generated/validators.js";
import { verifyCheckpoint } from "../dist/core/replay/replay.js";
import { emptyState, runStateTool } from "../dist/core/replay/state-tools.js";

const N = Number(process.env.MESSAGES ?? 10_000);

/** Build a recording: user prompt, then turns of (assistant tool call, tool result) produced by the real tools. */
function build(n) {
  const state = emptyState();
  const ctx = { state, now: () => "2026-01-01T00:00:00.000Z" };
  const messages = [{ role: "user", content: [{ type: "text", text: "Work through the plan." }], timestamp: 1 }];
  let k = 0;
  const calls = [
    (i) => ["write_file", { file_path: `/notes/n${i}.md`, content: `# Note ${i}\nline a\nline b ${i}\n` }],
    (i) => ["read_file", { file_path: `/notes/n${i - 1}.md` }],
    (i) => ["edit_file", { file_path: `/notes/n${i - 2}.md`, old_string: "line a", new_string: `line A${i}` }],
    (i) => [
      "write_todos",
      { todos: [{ id: String(i % 50), content: `task ${i}`, status: i % 3 ? "pending" : "completed" }] },
    ],
    () => ["ls", { path: "/notes" }],
    () => ["grep", { pattern: "A1\\d\\d$", path: "/notes" }],
  ];
  while (messages.length < n - 1) {
    const [name, args] = calls[k % calls.length](k);
    const id = `call_${k}`;
    messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id, name, arguments: args }],
      stopReason: "toolUse",
      model: "m",
      provider: "mock",
      usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 110 },
      timestamp: 2 + 2 * k,
    });
    const r = runStateTool(name, args, ctx);
    messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content: [{ type: "text", text: r.text }],
      isError: r.isError,
      timestamp: 3 + 2 * k,
    });
    k++;
  }
  messages.push({
    role: "assistant",
    content: [{ type: "text", text: "Done." }],
    stopReason: "stop",
    model: "m",
    provider: "mock",
    usage: { input: 1, output: 1 },
    timestamp: 3 + 2 * k,
  });
  return {
    schemaVersion: 1,
    threadId: "bench",
    step: k + 1,
    messages,
    state,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

const text = stringifyJson(build(N), 2);
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = Number(process.env.RUNS ?? 7);

// warm-up
for (let i = 0; i < 2; i++) {
  await verifyCheckpoint(parseJson(text));
  validators.Checkpoint(parseJson(text));
}
const baseline = [];
const verify = [];
let ok = true;
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  const v = parseJson(text);
  if (!validators.Checkpoint(v)) throw new Error("bench checkpoint does not validate");
  baseline.push(performance.now() - t);
  const cp = parseJson(text);
  t = performance.now();
  const r = await verifyCheckpoint(cp);
  verify.push(performance.now() - t);
  ok &&= r.ok;
}
const b = median(baseline);
const v = median(verify);
const mb = Buffer.byteLength(text) / 1e6;
console.log(`messages: ${N}, file: ${mb.toFixed(1)} MB, runs: ${runs} (median)`);
console.log(`parse + validate (baseline): ${b.toFixed(1)} ms`);
console.log(`replay verify:               ${v.toFixed(1)} ms   (target <= 1000 ms)  matched: ${ok}`);
console.log(`ratio verify / baseline:     ${(v / b).toFixed(2)}x`);
console.log(
  JSON.stringify({
    bench: "replay",
    messages: N,
    bytes: Buffer.byteLength(text),
    baselineMs: +b.toFixed(2),
    verifyMs: +v.toFixed(2),
    ratio: +(v / b).toFixed(3),
    matched: ok,
  }),
);
if (!ok) process.exitCode = 1;
