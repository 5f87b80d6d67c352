// ckpt view of a large LangGraph thread: page size, render time (read the history + render) and time until the page
// is interactive in headless Chromium. The thread is written by the real JS library (@langchain/langgraph with
// @langchain/langgraph-checkpoint-sqlite's SqliteSaver): a chat graph (agent → tools → agent, a deterministic fake
// model, no network) whose state also has a `turns` counter and a `notes` list, BENCH_LG_TURNS invokes (default 100,
// about 500 checkpoints; the page shows the newest 300), every 10th turn interrupted and resumed, and one fork.
// Cached under <tmp>/ckpt-bench-view-langgraph.sqlite (delete it to regenerate).
// Render time twice: reading the history and rendering it (wall clock), and the rendering alone (CPU time).
// Run after `npm run build`: node bench/view-langgraph.mjs  (BENCH_RUNS=5)
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const TURNS = Number(process.env.BENCH_LG_TURNS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STORE = join(tmpdir(), `ckpt-bench-view-langgraph-${TURNS}.sqlite`);
const THREAD = "bench-lg-view";
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;

async function writeStore() {
  const lg = await import(pathToFileURL(require.resolve("@langchain/langgraph")).href);
  const { ToolNode } = await import(pathToFileURL(require.resolve("@langchain/langgraph/prebuilt")).href);
  const { SqliteSaver } = await import(pathToFileURL(require.resolve("@langchain/langgraph-checkpoint-sqlite")).href);
  const { BaseChatModel } = await import(
    pathToFileURL(require.resolve("@langchain/core/language_models/chat_models")).href
  );
  const { AIMessage, HumanMessage } = await import(pathToFileURL(require.resolve("@langchain/core/messages")).href);
  const { tool } = await import(pathToFileURL(require.resolve("@langchain/core/tools")).href);
  const { z } = await import(pathToFileURL(require.resolve("zod")).href);
  const { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } = lg;
  const search = tool(async ({ query }) => `${query.split(/\s+/).length} hits for '${query}'`, {
    name: "search",
    description: "Look something up (deterministic fake).",
    schema: z.object({ query: z.string() }),
  });
  let calls = 0;
  class FakeChatModel extends BaseChatModel {
    _llmType() {
      return "fake-tool-caller";
    }
    async _generate(messages) {
      const last = messages.at(-1);
      const msg =
        last.type === "human"
          ? new AIMessage({
              content: "",
              tool_calls: [{ id: `call_${++calls}`, name: "search", args: { query: last.content }, type: "tool_call" }],
            })
          : new AIMessage({
              content: `Answer: ${last.content}. ${"Some longer explanation of the result. ".repeat(8)}`,
            });
      msg.usage_metadata = {
        input_tokens: 10 * messages.length,
        output_tokens: 40,
        total_tokens: 10 * messages.length + 40,
      };
      return { generations: [{ message: msg, text: String(msg.content) }] };
    }
  }
  const model = new FakeChatModel({});
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    turns: Annotation({ reducer: (_, b) => b, default: () => 0 }),
    notes: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const graph = new StateGraph(State)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([search]))
    .addNode("review", (s) => {
      const last = s.messages.at(-1);
      if (s.turns % 10 === 9) interrupt({ question: "Keep this answer?", answer: String(last.content).slice(0, 40) });
      return { turns: s.turns + 1, notes: [`turn ${s.turns + 1}: ${s.messages.length} messages`] };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => (s.messages.at(-1).tool_calls?.length ? "tools" : "review"), [
      "tools",
      "review",
    ])
    .addEdge("tools", "agent")
    .addEdge("review", END);
  const saver = SqliteSaver.fromConnString(STORE);
  const app = graph.compile({ checkpointer: saver });
  const cfg = { configurable: { thread_id: THREAD } };
  let forkAt;
  for (let t = 0; t < TURNS; t++) {
    await app.invoke({ messages: [new HumanMessage(`question ${t}: how far is city ${t} from the coast?`)] }, cfg);
    if ((await app.getState(cfg)).next.length) await app.invoke(new Command({ resume: "yes" }), cfg);
    if (t === Math.floor(TURNS / 2)) forkAt = (await app.getState(cfg)).config;
  }
  await app.invoke({ messages: [new HumanMessage("a different last question")] }, forkAt);
  saver.db.close();
}

function chromiumPath() {
  for (const dir of (process.env.PATH ?? "").split(delimiter))
    for (const n of ["chromium", "chromium-browser"]) if (existsSync(join(dir, n))) return join(dir, n);
  throw new Error("no chromium on PATH (apt-get install -y chromium)");
}

if (!existsSync(STORE)) await writeStore();
const { historyPage } = await import(join(root, "dist/cli/commands/view.js"));
const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {}, cwd: root };
const renderTimes = [];
let html;
for (let i = 0; i < RUNS + 1; i++) {
  const t0 = performance.now();
  html = (await historyPage(`${STORE}#${THREAD}`, {}, io)).html;
  if (i > 0) renderTimes.push(performance.now() - t0);
}
// the rendering alone (the history read once): CPU time of this process, less disturbed by other work on the machine
const { readHistory } = await import(join(root, "dist/cli/commands/view-history.js"));
const { openSaver } = await import(join(root, "dist/savers/index.js"));
const { renderHistoryPage } = await import(join(root, "dist/view/index.js"));
const saver = await openSaver(`sqlite:${STORE}`, { readOnly: true, env: {} });
const { entries } = await readHistory(saver, THREAD, STORE);
await saver.close();
const renderOnly = [];
for (let i = 0; i < RUNS + 1; i++) {
  const c0 = process.cpuUsage();
  renderHistoryPage(entries);
  const c = process.cpuUsage(c0);
  if (i > 0) renderOnly.push((c.user + c.system) / 1000);
}
const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-view-lg-"));
const pageFile = join(dir, "page.html");
writeFileSync(pageFile, html);
const { chromium } = await import("playwright-core");
const profile = mkdtempSync(join(tmpdir(), "ckpt-bench-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath(),
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const tti = [];
const step = [];
try {
  const page = await context.newPage();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await page.goto(pathToFileURL(pageFile).href, { waitUntil: "commit" });
    await page.waitForSelector("html[data-ready]", { timeout: 120_000 });
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => ok())));
    tti.push(performance.now() - t0);
    // pick the first checkpoint of the timeline: what a click on an old step costs
    step.push(
      await page.evaluate(async () => {
        const t = performance.now();
        document.querySelector("nav.timeline button")?.click();
        await new Promise((ok) => requestAnimationFrame(() => ok()));
        return performance.now() - t;
      }),
    );
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
const row = {
  storeBytes: statSync(STORE).size,
  pageBytes: Buffer.byteLength(html),
  renderMs: +median(renderTimes).toFixed(1),
  renderOnlyCpuMs: +median(renderOnly).toFixed(1),
  chromiumInteractiveMs: Math.round(median(tti)),
  pickOldestStepMs: Math.round(median(step)),
};
console.log(
  `LangGraph thread (${TURNS} turns, store ${kb(row.storeBytes)}): page ${kb(row.pageBytes)}; read + render ${row.renderMs} ms (render alone ${row.renderOnlyCpuMs} ms CPU); ` +
    `Chromium interactive ${row.chromiumInteractiveMs} ms; picking the oldest step ${row.pickOldestStepMs} ms`,
);
console.log(JSON.stringify({ bench: "view-langgraph", turns: TURNS, ...row }));
