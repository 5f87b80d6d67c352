/**
 * `ckpt view` of LangGraph threads in Chromium (Debian's chromium through playwright-core), on stores written by the
 * real Python and JS libraries (SQLite files, and PostgreSQL dumps restored into schemas of this run): a graph without messages opens on its channels (names, values, what each step
 * changed); a forked thread's timeline is a tree with one branch per child of the fork point; an interrupt and its
 * resume are on the timeline and above the tabs; pending writes are listed per task. Expected values come from
 * the generator's inputs (sets.json) and the counts the real libraries read back (fixtures/langgraph/counts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { historyPage } from "../src/cli/commands/view.js";
import { renderHistoryPage } from "../src/view/index.js";
import { launchBrowser } from "./helpers/browser.js";
import { execFileSync } from "node:child_process";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const root = join(import.meta.dirname, "..");
const SETS = "/work/shared/formats/langgraph/generated";
const out = mkdtempSync(join(tmpdir(), "ckpt-view-lg-"));
const sets = JSON.parse(readFileSync(join(SETS, "generators/sets.json"), "utf8")) as Record<
  string,
  Array<{ id: string; inputs: unknown[]; resume?: unknown }>
>;
const thread = (set: string, id: string) => sets[set]!.find((t) => t.id === id)!;
const counts = (file: string) =>
  JSON.parse(readFileSync(join(root, "fixtures/langgraph/counts", `${file}.json`), "utf8")) as {
    per_thread: Record<string, { checkpoints: number }>;
  };
const io = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  stdin: process.stdin,
  env: {},
  cwd: root,
} as unknown as Parameters<typeof historyPage>[2];

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
const pageErrors: string[] = [];
beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
});
afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

let n = 0;
async function openThread(spec: string): Promise<void> {
  const h = await historyPage(spec, {}, io);
  const file = join(out, `page-${n++}.html`);
  writeFileSync(file, h!.html);
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("html[data-ready]", { timeout: 10_000 });
}

// the SQLite files, and the PostgreSQL dumps of the same threads restored into schemas of this run
const STORES = ["python-a.sqlite", "js-a.sqlite", "python-a.pg", "js-a.pg"];
const pgs = pgTestSchemas("ckpt_view_lg");
const restored: Record<string, string> = {};
beforeAll(() => {
  for (const file of STORES.filter((f) => f.endsWith(".pg"))) {
    const schema = pgs.schema(file.replace(/\W/g, "_"));
    const sql = readFileSync(join(root, "fixtures/langgraph", `${file}.sql`), "utf8").replace(/__SCHEMA__/g, schema);
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], { input: sql, stdio: ["pipe", "ignore", "pipe"] });
    restored[file] = `${PG}?schema=${schema}`;
  }
});

describe.each(STORES)("LangGraph pages in Chromium: %s", (file) => {
  const addr = (id: string) => `${restored[file] ?? join(root, "fixtures/langgraph", file)}#${id}`;

  it("a graph with no messages opens on its channels: values, versions, what each step changed", async () => {
    // counter graph: add (total += delta, history += "+delta") → record (history += "total=<total>"), one invoke per input
    const inputs = thread("A", "a-counter-1").inputs as number[];
    let total = 0;
    const history: string[] = [];
    for (const d of inputs) {
      total += d;
      history.push(`+${d}`, `total=${total}`);
    }
    await openThread(addr("a-counter-1"));
    await expect(page.locator("#tab-channels").getAttribute("aria-selected")).resolves.toBe("true");
    await expect(page.locator("#panel-channels").isVisible()).resolves.toBe(true);
    await expect(page.locator("#tab-transcript").innerText()).resolves.toBe("Transcript (0)");
    await expect(page.locator("#sub").innerText()).resolves.toMatch(/3 channels/);
    const channel = (name: string) => page.locator(`#panel-channels section.channel[data-channel="${name}"]`);
    await expect(channel("total").locator("pre.val").innerText()).resolves.toBe(String(total));
    await expect(channel("delta").locator("pre.val").innerText()).resolves.toBe(String(inputs.at(-1)));
    expect(JSON.parse(await channel("history").locator("pre.val").innerText())).toEqual(history);
    // the newest step is `record`: it changed history only
    await expect(channel("history").locator(".badge").innerText()).resolves.toBe("updated at this step");
    await expect(channel("total").locator(".badge").count()).resolves.toBe(0);
    await expect(page.locator("#panel-channels p.next").innerText()).resolves.toBe(
      "Next: nothing scheduled (the run ended here)",
    );
    const steps = page.locator("nav.timeline button");
    await expect(steps.count()).resolves.toBe(counts(file).per_thread["a-counter-1"]!.checkpoints);
    const last = await steps.count();
    await expect(steps.nth(last - 1).innerText()).resolves.toMatch(/record[\s\S]*changed: history/);
    await expect(steps.nth(last - 2).innerText()).resolves.toMatch(/add[\s\S]*changed: total, history/);
    // the tab stays on Channels while moving along the timeline; the add step shows the value before record ran
    await steps.nth(last - 2).click();
    await expect(page.locator("#tab-channels").getAttribute("aria-selected")).resolves.toBe("true");
    expect(JSON.parse(await channel("history").locator("pre.val").innerText())).toEqual(history.slice(0, -1));
    await expect(page.locator("#panel-channels p.next").innerText()).resolves.toBe("Next: record");
    await expect(page.locator("#panel-transcript").innerText()).resolves.toContain("has no messages channel");
    // the changes since the parent name the channel
    await expect(page.locator("section.changes > ul.changes").innerText()).resolves.toMatch(
      /^CHANNEL total: \d+ → \d+$/m,
    );
  });

  it("a forked thread's timeline is a tree: one branch per child of the fork point, no step listed twice in a line", async () => {
    // a-forked-1: turn 1, turn 2, then a 3rd invoke from the checkpoint that ended turn 1
    const t = thread("A", "a-forked-1");
    await openThread(addr("a-forked-1"));
    const all = page.locator("nav.timeline button");
    await expect(all.count()).resolves.toBe(counts(file).per_thread["a-forked-1"]!.checkpoints);
    const branches = page.locator("nav.timeline li.branch");
    await expect(branches.count()).resolves.toBe(2);
    const fork = page.locator("nav.timeline > ol > li > button");
    // the line up to the fork point: turn 1's checkpoints, ending with the agent's answer
    const trunk = await fork.allInnerTexts();
    const trunkSteps = trunk.map((s) => Number(/^step (-?\d+)/.exec(s)![1]));
    expect(trunkSteps).toEqual([...new Set(trunkSteps)]);
    expect(trunk.at(-1)).toMatch(/agent/);
    for (let b = 0; b < 2; b++) {
      const label = await branches.nth(b).locator(".fork").innerText();
      expect(label).toContain(`branch ${b + 1} of 2 from step ${trunkSteps.at(-1)}`);
      const steps = (await branches.nth(b).locator("button").allInnerTexts()).map((s) =>
        Number(/^step (-?\d+)/.exec(s)![1]),
      );
      expect(steps).toEqual([...new Set(steps)]); // each step once per branch
      expect(steps[0]).toBe(trunkSteps.at(-1)! + 1);
    }
    // the newest checkpoint (shown first) is on branch 2, the 3rd input's; branch 1 holds the 2nd input
    await expect(branches.nth(1).locator(".fork").innerText()).resolves.toMatch(/\(newest\)$/);
    await expect(branches.nth(1).locator("button[aria-current=true]").count()).resolves.toBe(1);
    // JS PostgresSaver: a branch started from an older checkpoint reuses the main line's integer channel versions, so
    // its blob rows are the main line's and the real library reads turn 2 on the newest branch too (the generated
    // README, "JS PostgresSaver on forked threads"): the page shows what the library reads
    const sharedBlobs = file === "js-a.pg";
    await expect(page.locator("#msgs").innerText()).resolves.toContain(String(t.inputs[sharedBlobs ? 1 : 2]));
    if (!sharedBlobs) await expect(page.locator("#msgs").innerText()).resolves.not.toContain(String(t.inputs[1]));
    await branches.nth(0).locator("button").last().click();
    await expect(page.locator("#msgs").innerText()).resolves.toContain(String(t.inputs[1]));
    await expect(page.locator("#msgs").innerText()).resolves.not.toContain(String(t.inputs[2]));
    // [ and ] walk the timeline in its order: from branch 1's last checkpoint, ] goes to branch 2's first
    await page.keyboard.press("]");
    await expect(branches.nth(1).locator("button").first().getAttribute("aria-current")).resolves.toBe("true");
    await page.keyboard.press("[");
    await expect(branches.nth(0).locator("button").last().getAttribute("aria-current")).resolves.toBe("true");
  });

  it("an interrupted thread: the interrupt pending on the timeline and above the tabs, with its value", async () => {
    await openThread(addr("a-hitl-1"));
    const steps = page.locator("nav.timeline button");
    const last = steps.nth((await steps.count()) - 1);
    await expect(last.innerText()).resolves.toMatch(/propose[\s\S]*interrupt pending/);
    await expect(page.locator("nav.timeline .int").count()).resolves.toBe(1);
    const box = page.locator("main aside.interrupt");
    await expect(box.innerText()).resolves.toMatch(
      /Interrupt raised by node approve[\s\S]*pending: waiting for a resume/,
    );
    // hitl graph: approve calls interrupt({question: "Approve this action?", action: <the proposal>})
    expect(JSON.parse(await box.locator("pre.val").innerText())).toEqual({
      question: "Approve this action?",
      action: `Proposed: ${thread("A", "a-hitl-1").inputs[0]}`,
    });
    await expect(box.innerText()).resolves.not.toContain("Resumed with");
  });

  it("a resumed thread: interrupt and resume on the timeline; the pending writes per task name the interrupt and the resume", async () => {
    const t = thread("A", "a-hitl-2");
    await openThread(addr("a-hitl-2"));
    const marked = page.locator("nav.timeline button", { has: page.locator(".int") });
    await expect(marked.count()).resolves.toBe(1);
    await expect(marked.innerText()).resolves.toMatch(/propose[\s\S]*interrupted → resumed/);
    // the checkpoint after it is the resumed node's
    const texts = await page.locator("nav.timeline button").allInnerTexts();
    const at = texts.findIndex((x) => /interrupted → resumed/.test(x));
    expect(texts[at + 1]).toMatch(/^step \d+ approve/);
    await marked.click();
    const box = page.locator("main aside.interrupt");
    await expect(box.innerText()).resolves.toMatch(/Interrupt raised by node approve[\s\S]*resumed[\s\S]*Resumed with/);
    await expect(box.locator("pre.val").last().innerText()).resolves.toBe(String(t.resume));
    await page.click("#tab-writes");
    const task = page.locator("#panel-writes section.task", { hasText: "Task approve" });
    await expect(task.locator("tr[data-kind=interrupt] td").first().innerText()).resolves.toBe("__interrupt__");
    await expect(task.locator("tr[data-kind=interrupt] .badge").innerText()).resolves.toBe("interrupt raised");
    await expect(page.locator("#panel-writes tr[data-kind=resume]").first().innerText()).resolves.toContain(
      String(t.resume),
    );
    // no raw internal records: the interrupt value is shown as the value the node passed to interrupt()
    await expect(page.locator("#panel-writes").innerText()).resolves.not.toMatch(/"lc":|"kwargs"/);
  });
});

describe("LangGraph timeline of a damaged store", () => {
  it("parent links that loop: every checkpoint is still listed once", async () => {
    const { readHistory } = await import("../src/cli/commands/view-history.js");
    const { openSaver, isLangGraphSaver } = await import("../src/savers/index.js");
    const store = join(root, "fixtures/langgraph/js-a.sqlite");
    const saver = await openSaver(`sqlite:${store}`, { readOnly: true, env: {} } as Parameters<typeof openSaver>[1]);
    if (!isLangGraphSaver(saver)) throw new Error("not a LangGraph store");
    const { entries } = await readHistory(saver, "a-chat-1", store);
    await saver.close();
    entries[0]!.parentId = entries.at(-1)!.id; // the first checkpoint's parent is the newest: a loop, no root
    const file = join(out, `page-${n++}.html`);
    writeFileSync(file, renderHistoryPage(entries));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("html[data-ready]", { timeout: 10_000 });
    const ids = await page.$$eval("nav.timeline button", (bs) => bs.map((b) => b.getAttribute("data-i")));
    expect(ids.length).toBe(entries.length);
    expect(new Set(ids).size).toBe(entries.length);
  });
});

describe("LangGraph pages in Chromium: set C", () => {
  it("an interrupt two subgraphs deep, resumed: the root thread's timeline shows it and the resume value", async () => {
    for (const file of ["python-c.sqlite", "js-c.sqlite"]) {
      const t = thread("C", "c-subhitl-2");
      await openThread(`${join(SETS, file)}#c-subhitl-2`);
      const marked = page.locator("nav.timeline button", { has: page.locator(".int") });
      await expect(marked.count(), file).resolves.toBe(1);
      await expect(marked.innerText(), file).resolves.toMatch(/plan[\s\S]*interrupted → resumed/);
      await marked.click();
      const box = page.locator("main aside.interrupt");
      await expect(box.innerText(), file).resolves.toMatch(/raised by node research/);
      expect(JSON.parse(await box.locator("pre.val").first().innerText()), file).toEqual({
        question: "Publish these findings?",
        findings: ["f1", "f2"],
      });
      expect(JSON.parse(await box.locator("pre.val").last().innerText()), file).toEqual(t.resume);
    }
  });
});
