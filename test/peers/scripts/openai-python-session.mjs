// Conversations run by the real OpenAI Agents SDK (@openai/agents 0.20.0) with a scripted model (an object
// implementing the SDK's Model interface: no network), each kept in a MemorySession, and those items as the Responses
// API input items the SDK's own converter (`getInputItems` of @openai/agents-openai, what the SDK sends the Responses
// API) makes of them: the shape the Python SDK's SQLiteSession stores, one json.dumps(item) per row.
// Input on stdin: {"op": "write"} | {"op": "convert", "lists": [[...AgentInputItem]]}. Output: JSON on stdout.
import { Agent, MemorySession, Runner, tool } from "@openai/agents";
import { z } from "zod";

// getInputItems is exported by the package's model module, not its index: import the module by its file
const converter = new URL("./openaiResponsesConverter.mjs", import.meta.resolve("@openai/agents-openai"));
const { getInputItems } = await import(converter.href);

const usage = { requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 };

/** A Model that answers each call with the next scripted output list. */
function scriptedModel(outputs) {
  let n = 0;
  return {
    async getResponse() {
      const output = outputs[n];
      if (output === undefined) throw new Error(`scripted model: no output left for call ${n + 1}`);
      n++;
      return { usage, output, responseId: `resp_${n}` };
    },
    getStreamedResponse() {
      throw new Error("scripted model: these runs are not streamed");
    },
  };
}

const say = (text, id) => ({
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
const think = (text, id) => ({ type: "reasoning", id, content: [{ type: "input_text", text }] });

const add = tool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny in ${city}, 21 °C`,
});

/** Runs each input in turn on one session; the session's items, the final outputs. */
async function converse(agent, inputs) {
  const runner = new Runner({ tracingDisabled: true });
  const session = new MemorySession();
  const finalOutputs = [];
  for (const input of inputs) finalOutputs.push((await runner.run(agent, input, { session })).finalOutput);
  const items = await session.getItems();
  return { items, responses: getInputItems(items), finalOutputs };
}

async function write() {
  const out = {};
  // two turns, each with a tool call and its result
  out.math = await converse(
    new Agent({
      name: "calculator",
      instructions: "You add numbers.",
      tools: [add],
      model: scriptedModel([
        [call("add", { a: 2, b: 3 }, "call_a1")],
        [say("2 + 3 = 5.", "msg_a1")],
        [call("add", { a: 10, b: 7 }, "call_a2")],
        [say("10 + 7 = 17.", "msg_a2")],
      ]),
    }),
    ["What is 2 + 3?", "And 10 + 7?"],
  );
  // reasoning before a tool call and before the answer; text beyond ASCII
  out.trip = await converse(
    new Agent({
      name: "planner",
      instructions: "You plan trips.",
      tools: [weather],
      model: scriptedModel([
        [think("The user wants Tōkyō's weather first.", "rs_t1"), call("get_weather", { city: "Tōkyō" }, "call_t1")],
        [think("Sunny: a walk in Ueno ☀ works.", "rs_t2"), say("It is sunny in Tōkyō: walk in Ueno ☀.", "msg_t1")],
        [say("Bon voyage — ça va être super !", "msg_t2")],
      ]),
    }),
    ["Plan a day in Tōkyō 東京.", "Merci !"],
  );
  // a handoff to another agent, which answers
  {
    const specialist = new Agent({
      name: "specialist",
      instructions: "You answer weather questions.",
      model: scriptedModel([[say("Specialist here: it will rain in Oslo.", "msg_s1")]]),
    });
    const main = new Agent({
      name: "triage",
      instructions: "You route questions.",
      handoffs: [specialist],
      model: scriptedModel([[call("transfer_to_specialist", {}, "call_h1")]]),
    });
    out.handoff = await converse(main, ["Will it rain in Oslo?"]);
  }
  return out;
}

const input = JSON.parse(await new Response(process.stdin).text());
if (input.op === "write") process.stdout.write(JSON.stringify(await write()));
else if (input.op === "convert") process.stdout.write(JSON.stringify(input.lists.map((l) => getInputItems(l))));
else throw new Error(`unknown op ${input.op}`);
