// Writes OpenAI Agents SDK (JS) state with the installed @openai/agents and a scripted model (an object implementing
// the SDK's Model interface: no network): a run paused on a tool approval (RunState.toString(): `runstate.json`),
// the same run approved and finished (`runstate-done.json`), and a session's items after two runs (MemorySession,
// where the release has it: `session.json`). Reads each back with the SDK itself (RunState.fromString, getItems).
// Run by scripts/fixtures-versions.mjs in the target's folder: stdin {version, out, versions}; prints the read-back.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const input = JSON.parse(readFileSync(0, "utf8"));
const sdk = await import("@openai/agents");
const { Agent, RunState, Runner, tool } = sdk;
const { z } = await import("zod");

const usage = { requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 };
function scriptedModel(outputs) {
  let n = 0;
  const next = () => {
    const output = outputs[n];
    if (output === undefined) throw new Error(`scripted model: no output left for call ${n + 1}`);
    n++;
    return { usage, output, responseId: `resp_${n}` };
  };
  return {
    async getResponse() {
      return next();
    },
    async *getStreamedResponse() {
      const r = next();
      yield { type: "response_started" };
      yield { type: "response_done", response: { id: r.responseId, usage: r.usage, output: r.output } };
    },
  };
}
const say = (text, id = "msg_1") => ({
  type: "message",
  id,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});
const call = (name, args, callId) => ({
  type: "function_call",
  id: `fc_${callId}`,
  callId,
  name,
  arguments: JSON.stringify(args),
  status: "completed",
});
const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  needsApproval: true,
  execute: async ({ city }) => `sunny in ${city}`,
});
const add = tool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
const agentOf = (outputs) =>
  new Agent({ name: "assistant", instructions: "You help.", tools: [weather, add], model: scriptedModel(outputs) });

const runner = new Runner({ tracingDisabled: true });
const out = { version: input.versions["@openai/agents"] };
const items = (list) => JSON.parse(JSON.stringify(list ?? null));

// a run that adds, then asks for an approval it pauses on
{
  const outputs = [
    [call("add", { a: 2, b: 3 }, "call_add")],
    [call("get_weather", { city: "Paris" }, "call_w1")],
    [say("2 + 3 = 5, and it is sunny in Paris.")],
  ];
  const main = agentOf(outputs);
  const paused = await runner.run(main, "Add 2 and 3, then tell me the weather in Paris.");
  const text = paused.state.toString();
  writeFileSync(path.join(input.out, "runstate.json"), `${text}\n`);
  const back = await RunState.fromString(main, text);
  out.paused = {
    schemaVersion: JSON.parse(text).$schemaVersion,
    interruptions: back.getInterruptions().map((i) => ({
      callId: i.rawItem.callId,
      name: i.rawItem.name,
      arguments: i.rawItem.arguments,
    })),
    history: items(paused.history),
  };
  back.approve(back.getInterruptions()[0]);
  const done = await runner.run(main, back);
  const doneText = done.state.toString();
  writeFileSync(path.join(input.out, "runstate-done.json"), `${doneText}\n`);
  out.done = {
    schemaVersion: JSON.parse(doneText).$schemaVersion,
    finalOutput: done.finalOutput ?? null,
    history: items(done.history),
  };
}

// a session's items over two runs, where the release has MemorySession
if (typeof sdk.MemorySession === "function") {
  const main = agentOf([
    [call("add", { a: 1, b: 1 }, "call_m")],
    [say("Two.", "msg_2")],
    [say("You are welcome.", "msg_3")],
  ]);
  const session = new sdk.MemorySession();
  await runner.run(main, "1 + 1?", { session });
  await runner.run(main, "Thanks!", { session });
  const list = items(await session.getItems());
  writeFileSync(path.join(input.out, "session.json"), `${JSON.stringify(list)}\n`);
  out.session = { items: list };
}
process.stdout.write(JSON.stringify(out));
process.exit(0);
