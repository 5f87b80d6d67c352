// Writes OpenAI Agents SDK run states and session item lists with the real SDK (@openai/agents 0.20.0) and a
// scripted model (an object implementing the SDK's Model interface: no network), and answers what the SDK's own
// RunState.fromString makes of given texts. Input on stdin: {"op": "write"} | {"op": "read", "texts": [...]} |
// {"op": "input", "lists": [[...items]]}. Output: JSON on stdout.
import { Agent, MemorySession, protocol, RunState, Runner, tool } from "@openai/agents";
import { z } from "zod";

const usage = { requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 };

/** A Model that answers each call with the next scripted output list (as a response, or as a stream of events). */
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
      for (const item of r.output)
        if (item.type === "message")
          for (const c of item.content)
            if (c.type === "output_text") yield { type: "output_text_delta", delta: c.text };
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
const time = tool({
  name: "get_time",
  description: "The time in a city",
  parameters: z.object({ city: z.string() }),
  needsApproval: true,
  execute: async ({ city }) => `noon in ${city}`,
});
const add = tool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});

/** The agents of one scenario (fresh per run: a model's script is consumed as it answers). */
function agents(outputs, specialistOutputs = []) {
  const specialist = new Agent({
    name: "specialist",
    instructions: "You answer weather questions.",
    model: scriptedModel(specialistOutputs),
  });
  const main = new Agent({
    name: "assistant",
    instructions: "You help.",
    tools: [weather, time, add],
    handoffs: [specialist],
    model: scriptedModel(outputs),
  });
  return { main, specialist };
}

const interruptionsOf = (state) =>
  state.getInterruptions().map((i) => ({
    callId: i.rawItem.callId,
    name: i.name ?? i.rawItem.name,
    arguments: i.rawItem.arguments,
    agent: i.agent.name,
  }));

async function write() {
  const runner = new Runner({ tracingDisabled: true });
  const out = {};
  const keep = async (name, result, agent) => {
    const text = result.state.toString();
    const back = await RunState.fromString(agent, text);
    out[name] = {
      state: text,
      finalOutput: result.finalOutput ?? null,
      interruptions: interruptionsOf(back),
      currentAgent: back._currentAgent?.name,
    };
  };

  // paused on one approval, then approved (finished) and rejected (finished)
  {
    const { main } = agents([[call("get_weather", { city: "Paris" }, "call_w1")], [say("It is sunny in Paris.")]]);
    const paused = await runner.run(main, "What is the weather in Paris?");
    await keep("approval-one", paused, main);
    const state = await RunState.fromString(main, paused.state.toString());
    state.approve(state.getInterruptions()[0]);
    await keep("approved", await runner.run(main, state), main);
  }
  {
    const { main } = agents([[call("get_weather", { city: "Oslo" }, "call_r1")], [say("I was not allowed to look.")]]);
    const paused = await runner.run(main, "Weather in Oslo?");
    const state = await RunState.fromString(main, paused.state.toString());
    state.reject(state.getInterruptions()[0], { message: "not now" });
    await keep("rejected", await runner.run(main, state), main);
  }
  // paused on two approvals (one model turn, two calls)
  {
    const { main } = agents([
      [
        say("Let me check both.", "msg_0"),
        call("get_weather", { city: "Rome" }, "call_a"),
        call("get_time", { city: "Rome" }, "call_b"),
      ],
    ]);
    await keep("approval-two", await runner.run(main, "Weather and time in Rome?"), main);
  }
  // a handoff to another agent, which finishes
  {
    const { main } = agents(
      [[call("add", { a: 2, b: 3 }, "call_add")], [call("transfer_to_specialist", {}, "call_h")]],
      [[say("The specialist says: 5, and sunny.")]],
    );
    await keep("handoff", await runner.run(main, "Add 2 and 3, then ask the specialist."), main);
  }
  // a streamed run with a tool call (no approval) and a final text
  {
    const { main } = agents([[call("add", { a: 40, b: 2 }, "call_s")], [say("The sum is 42.")]]);
    const streamed = await runner.run(main, [{ role: "user", content: "What is 40 + 2?" }], { stream: true });
    for await (const _ of streamed.toTextStream()) {
      /* drain */
    }
    await streamed.completed;
    await keep("streamed", streamed, main);
  }
  // a structured final output (an output type), after a reasoning item
  {
    const reasoning = { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "Paris is in France." }] };
    const agent = new Agent({
      name: "assistant",
      instructions: "Answer with a city and its country.",
      tools: [weather, time, add],
      outputType: z.object({ city: z.string(), country: z.string() }),
      model: scriptedModel([[reasoning, say(JSON.stringify({ city: "Paris", country: "France" }))]]),
    });
    await keep("structured", await runner.run(agent, "Where is Paris?"), agent);
  }
  // a session's items (MemorySession), written by two runs with a tool call in between
  {
    const { main } = agents([[call("add", { a: 1, b: 1 }, "call_m")], [say("Two.")], [say("You are welcome.")]]);
    const session = new MemorySession();
    await runner.run(main, "1 + 1?", { session });
    await runner.run(main, "Thanks!", { session });
    out.session = { items: await session.getItems() };
  }
  return out;
}

/**
 * What RunState.fromString makes of each text: accepted (with interruptions) or the SDK's error message. With
 * `resume`, an accepted state's approvals are all approved and the run is resumed: its final output or its error.
 */
async function read(texts, resume) {
  const runner = new Runner({ tracingDisabled: true });
  const out = [];
  for (const text of texts) {
    const { main } = agents([[say("Resumed.")]]);
    let s;
    try {
      s = await RunState.fromString(main, text);
    } catch (e) {
      out.push({ ok: false, error: String(e?.message ?? e).slice(0, 500) });
      continue;
    }
    const r = { ok: true, interruptions: interruptionsOf(s) };
    if (resume) {
      try {
        for (const i of s.getInterruptions()) s.approve(i);
        r.resumed = { finalOutput: (await runner.run(main, s)).finalOutput ?? null };
      } catch (e) {
        r.resumed = { error: `${e?.constructor?.name}: ${String(e?.message ?? e).slice(0, 300)}` };
      }
    }
    out.push(r);
  }
  return out;
}

/** Whether the SDK takes each item list as a run's input: the protocol schema, then a run that sends it to a model. */
async function input(lists) {
  const runner = new Runner({ tracingDisabled: true });
  const out = [];
  for (const list of lists) {
    try {
      for (const item of list) protocol.ModelItem.parse(item);
      let seen;
      const model = scriptedModel([[say("ok")]]);
      const inner = model.getResponse;
      model.getResponse = async (req) => {
        seen = req.input;
        return inner();
      };
      const agent = new Agent({ name: "reader", instructions: "Read.", tools: [add], model });
      const r = await runner.run(agent, list);
      out.push({ ok: true, finalOutput: r.finalOutput, sent: seen });
    } catch (e) {
      out.push({ ok: false, error: String(e?.message ?? e).slice(0, 500) });
    }
  }
  return out;
}

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const req = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") ?? { op: "write" };
const result =
  req.op === "read" ? await read(req.texts, req.resume) : req.op === "input" ? await input(req.lists) : await write();
process.stdout.write(JSON.stringify(result));
