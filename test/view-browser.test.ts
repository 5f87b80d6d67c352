/**
 * `ckpt view` pages in a real browser (Debian Chromium through playwright-core): every seed format's samples show
 * every message's text, every tool call by name and every todo; tool calls expand; search, theme and the history
 * timeline work; script planted in message text never runs. Pages are written to disk and opened from file://.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { readCheckpoint } from "../src/formats/index.js";
import type { Checkpoint } from "../src/generated/types.js";
import { renderCheckpointPage, renderDiffPage, renderHistoryPage } from "../src/view/index.js";
import { launchBrowser } from "./helpers/browser.js";

const root = join(import.meta.dirname, "..");
const out = mkdtempSync(join(tmpdir(), "ckpt-view-"));
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
});
afterAll(async () => browser?.close());

let n = 0;
async function open(html: string): Promise<void> {
  const file = join(out, `page-${n++}.html`);
  writeFileSync(file, html);
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("html[data-ready]", { timeout: 10_000 });
}

/** Documents under a folder: files and amacs folders (those holding agent-chat.org). */
function documents(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (readdirSync(p).includes("agent-chat.org")) found.push(p);
      else found.push(...documents(p));
    } else if (/\.(json|jsonl|pkl|org|txt)$/.test(name) && !name.endsWith(".expect.json")) found.push(p);
  }
  return found;
}

function load(path: string): { checkpoint: Checkpoint; format: string } | undefined {
  const st = statSync(path);
  const doc = st.isDirectory()
    ? {
        name: path,
        files: Object.fromEntries(
          readdirSync(path)
            .filter((f) => f.endsWith(".org"))
            .map((f) => [f, readFileSync(join(path, f), "utf8")]),
        ),
      }
    : { name: path, text: readFileSync(path, "utf8") };
  try {
    return readCheckpoint(doc);
  } catch {
    return undefined; // configs, event logs, store dumps: not checkpoints
  }
}

/** Words of a text (3+ letters or digits): what must appear whatever Markdown does to the text. */
const words = (s: string) => (s.match(/[\p{L}\p{N}]{3,}/gu) ?? []).slice(0, 6);

/** Every message's text words, tool call names and todo contents of the canonical checkpoint are visible. */
async function checkVisible(cp: Checkpoint, path = ""): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight)); // fill every chunk
  const shown = await page.$$eval("#msgs article.msg", (as) =>
    as.map((a) => ({
      text: (a as HTMLElement).innerText,
      calls: Array.from(a.querySelectorAll("details.tool > summary code.tool-name"))
        .filter((c) => (c as HTMLElement).checkVisibility())
        .map((c) => c.textContent),
    })),
  );
  expect(shown.length, path).toBe(cp.messages.length);
  cp.messages.forEach((msg, i) => {
    const m = msg as unknown as { content?: Array<Record<string, unknown>> };
    for (const c of m.content ?? []) {
      if (c.type === "text")
        for (const w of words(String(c.text))) expect(shown[i]!.text, `${path} message #${i}`).toContain(w);
      if (c.type === "toolCall") expect(shown[i]!.calls, `${path} message #${i}`).toContain(String(c.name));
    }
  });
  // LangGraph pages list their state as channels
  const tab = (await page.locator("#tab-channels").count()) ? "channels" : "state";
  await page.click(`#tab-${tab}`);
  const state = await page.locator(`#panel-${tab}`).innerText();
  for (const t of cp.state.todos ?? []) expect(state, path).toContain(t.content);
  await page.click("#tab-transcript");
}

describe("ckpt view pages in Chromium", () => {
  const samples = [
    ...documents(join(root, "fixtures")).filter((p) => /[/\\](valid|samples)[/\\]/.test(p)),
    ...documents("/work/shared/formats"),
  ];
  const loaded = samples.map((p) => ({ path: p, r: load(p) })).filter((x) => x.r !== undefined) as Array<{
    path: string;
    r: { checkpoint: Checkpoint; format: string };
  }>;

  it("finds samples of every seed format", () => {
    const formats = new Set(loaded.map((x) => x.r.format));
    for (const f of [
      "yoagent",
      "yoagent-session",
      "phi-core",
      "phi-core-session",
      "amacs",
      "swarmer",
      "deepagent",
      "langgraph",
    ])
      expect(formats, f).toContain(f);
    expect(loaded.length).toBeGreaterThanOrEqual(25);
  });

  it("every sample shows every message's text, every tool call by name and every todo", async () => {
    for (const { path, r } of loaded) {
      await open(renderCheckpointPage(r.checkpoint, { source: relative(root, path) }));
      await checkVisible(r.checkpoint, path);
    }
    expect(pageErrors).toEqual([]);
  }, 180_000); // one page per sample (dozens): the default minute is too short beside another test file

  it("a deep-agent checkpoint: transcript, todos with status, files tree and content (expectations from the sample file)", async () => {
    const r = load(join(root, "fixtures/deepagent/valid/user_42_session_1.json"))!;
    await open(renderCheckpointPage(r.checkpoint));
    await expect(page.locator("#m0").innerText()).resolves.toMatch(/user[\s\S]*Create a project plan/i);
    await expect(page.locator("#m3").innerText()).resolves.toContain("Resumed: README is next.");
    await page.click("#tab-state");
    const todos = page.locator("ul.todos li");
    await expect(todos.nth(0).innerText()).resolves.toMatch(/in progress\s+Outline the project/);
    await expect(todos.nth(1).innerText()).resolves.toMatch(/pending\s+Write README/);
    await expect(page.locator(".files .tree").innerText()).resolves.toContain("plan.md");
    await expect(page.locator("pre.file").innerText()).resolves.toMatch(
      /1 {2}# Plan\n\s+2 {2}- outline\n\s+3 {2}- readme/,
    );
  });

  it("tool calls are paired with their results and expand to pretty-printed arguments", async () => {
    const r = load(join(root, "fixtures/deepagent/valid/all-model-message-variants.json"))!;
    await open(renderCheckpointPage(r.checkpoint));
    const call = page.locator("#m3 details.tool").filter({ hasText: "write_file" });
    await expect(call.locator("summary .badge").innerText()).resolves.toBe("ok");
    await expect(call.locator("pre.args").count()).resolves.toBe(0); // collapsed: nothing rendered yet
    await call.locator("summary").click();
    // the sample's arguments {"file_path":"/a.md","content":"# A"}, pretty-printed with two-space indent
    await expect(call.locator("pre.args").innerText()).resolves.toBe(
      '{\n  "file_path": "/a.md",\n  "content": "# A"\n}',
    );
    await expect(call.innerText()).resolves.toContain("Successfully wrote to '/a.md'");
    // web_search has no result in the sample; its result message is marked as an error elsewhere
    await expect(
      page.locator("#m6 details.tool").filter({ hasText: "web_search" }).locator(".badge").innerText(),
    ).resolves.toBe("no result");
    await expect(page.locator("#m8 .badge.err").first().isVisible()).resolves.toBe(true);
    // reasoning is collapsed
    await expect(page.locator("#m6 details.think").getAttribute("open")).resolves.toBeNull();
  });

  it("search finds messages, highlights the words and jumps between matches; keyboard navigation moves the focus", async () => {
    const r = load(join(root, "fixtures/deepagent/valid/user_42_session_1.json"))!;
    await open(renderCheckpointPage(r.checkpoint));
    await page.keyboard.press("/");
    await page.keyboard.type("readme");
    // "README" appears in message #3 only ("Resumed: README is next.")
    await expect(page.locator("#qcount").innerText()).resolves.toBe("1 messages");
    await expect(page.locator("article.hit").getAttribute("id")).resolves.toBe("m3");
    await expect(page.locator("#m3 mark").innerText()).resolves.toBe("README");
    await page.keyboard.press("Enter");
    await expect(page.locator("#qcount").innerText()).resolves.toBe("1 / 1");
    await expect(page.locator("article.current").getAttribute("id")).resolves.toBe("m3");
    await page.locator("#q").press("Escape");
    await page.keyboard.press("k");
    await expect(page.locator("article.current").getAttribute("id")).resolves.toBe("m2");
    await page.keyboard.press("g");
    await expect(page.locator("article.current").getAttribute("id")).resolves.toBe("m0");
    await page.fill("#goto", "2");
    await page.press("#goto", "Enter");
    await expect(page.locator("article.current").getAttribute("id")).resolves.toBe("m2");
  });

  it("the theme switches between light and dark and the colours follow", async () => {
    const r = load(join(root, "fixtures/deepagent/valid/user_42_session_1.json"))!;
    await open(renderCheckpointPage(r.checkpoint));
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const first = await page.evaluate(() => document.documentElement.dataset.theme);
    const before = await bg();
    await page.click("#theme");
    const second = await page.evaluate(() => document.documentElement.dataset.theme);
    expect(new Set([first, second])).toEqual(new Set(["light", "dark"]));
    expect(await bg()).not.toBe(before);
    expect(second === "dark" ? await bg() : before).toBe("rgb(13, 17, 23)");
    await page.keyboard.press("t");
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe(first);
  });

  it("history: the timeline lists every checkpoint; picking one shows it and the diff since the one before", async () => {
    // deep-agent's saves of one run, in order (3 checkpoints of thread "recorded")
    const saves = JSON.parse(
      readFileSync("/work/shared/formats/deepagent/generated/all-saves-in-order.json", "utf8"),
    ) as unknown[];
    const entries = saves.map((s, i) => {
      const { checkpoint } = readCheckpoint({ name: `save ${i}`, text: JSON.stringify(s) }, "deepagent");
      return {
        id: `c${i}`,
        step: checkpoint.step,
        node: i === 0 ? "input" : "agent",
        time: checkpoint.updatedAt,
        checkpoint,
      };
    });
    await open(renderHistoryPage(entries));
    const steps = page.locator("nav.timeline button");
    await expect(steps.count()).resolves.toBe(3);
    await expect(steps.nth(0).innerText()).resolves.toMatch(/step 1\s*input/);
    // newest shown first
    await expect(steps.nth(2).getAttribute("aria-current")).resolves.toBe("true");
    await steps.nth(0).click();
    await expect(page.locator("section.changes h2").innerText()).resolves.toBe("First checkpoint of this thread");
    await expect(page.locator("#m0").innerText()).resolves.toContain("Create a project plan");
    await steps.nth(2).click();
    const saved = saves as Array<{ messages: unknown[]; state: { todos: Array<{ status: string }> } }>;
    const added = saved[2]!.messages.length - saved[1]!.messages.length;
    const summary = await page.locator("section.changes .summary").innerText();
    expect(summary).toMatch(new RegExp(`${added} messages? appended`));
    await expect(page.locator("section.changes h2").innerText()).resolves.toBe(
      `Changes since step ${entries[1]!.step}`,
    );
    expect(await page.locator("section.changes li[data-kind=message]").count()).toBe(added);
  });

  it("--diff page: the change list of two checkpoints, and both sides' transcripts", async () => {
    const a = load(join(root, "fixtures/deepagent/valid/explicit-messages-thread.json"))!.checkpoint;
    const b = structuredClone(a);
    b.messages.push({ role: "user", content: [{ type: "text", text: "one more question" }] });
    b.state.todos = [{ id: "9", content: "new todo", status: "pending" }];
    await open(renderDiffPage(a, b, { names: ["a.json", "b.json"] }));
    await expect(page.locator("section.changes .summary").innerText()).resolves.toMatch(/1 message appended/);
    await expect(page.locator("section.changes li[data-kind=todo]").innerText()).resolves.toMatch(
      /todo added\s*9: new todo/i,
    );
    await expect(page.locator(`#m${a.messages.length}`).innerText()).resolves.toContain("one more question");
    await page.getByRole("button", { name: /before \(a\)/ }).click();
    await page.locator(`#m${a.messages.length - 1}`).waitFor();
    await expect(page.locator("#msgs article.msg").count()).resolves.toBe(a.messages.length);
  });
});

describe("LangGraph thread history in Chromium", () => {
  const store = join(root, "fixtures/langgraph/js-a.sqlite");
  // fixtures/langgraph/counts/js-a.sqlite.json: what the real JS library read back from this store
  const counts = JSON.parse(readFileSync(join(root, "fixtures/langgraph/counts/js-a.sqlite.json"), "utf8")) as {
    per_thread: Record<string, { checkpoints: number }>;
  };
  const cliIO = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: process.stdin,
    env: {},
    cwd: root,
  };

  it("<store>#thread: a timeline of every checkpoint; picking one shows it and the diff since its parent", async () => {
    const { historyPage } = await import("../src/cli/commands/view.js");
    const h = await historyPage(`${store}#a-chat-1`, {}, cliIO);
    await open(h!.html);
    const steps = page.locator("nav.timeline button");
    const n = counts.per_thread["a-chat-1"]!.checkpoints;
    await expect(steps.count()).resolves.toBe(n);
    // LangGraph numbers the input checkpoint -1, then 0, 1, … along one run; newest shown first
    await expect(steps.nth(0).innerText()).resolves.toMatch(/^step -1/);
    await expect(steps.nth(n - 1).getAttribute("aria-current")).resolves.toBe("true");
    await steps.nth(n - 2).click();
    await expect(steps.nth(n - 2).getAttribute("aria-current")).resolves.toBe("true");
    await expect(page.locator("section.changes h2").innerText()).resolves.toMatch(/^Changes since step \d+$/);
    const before = await page.evaluate(() => document.querySelectorAll("#msgs article.msg").length);
    const appended = await page.locator("section.changes li[data-kind=message]").count();
    await steps.nth(n - 3).click();
    const earlier = await page.evaluate(() => document.querySelectorAll("#msgs article.msg").length);
    expect(before - earlier).toBe(appended); // the listed message changes are exactly the messages added at that step
    await expect(page.locator("section.changes details.ext summary").innerText()).resolves.toMatch(
      /format-specific fields changed/,
    );
  });

  it("<store>#thread@~2 opens the timeline at the checkpoint two back", async () => {
    const { historyPage } = await import("../src/cli/commands/view.js");
    const h = await historyPage(`sqlite:${store}#a-chat-1@~2`, {}, cliIO);
    await open(h!.html);
    const n = counts.per_thread["a-chat-1"]!.checkpoints;
    await expect(
      page
        .locator("nav.timeline button")
        .nth(n - 3)
        .getAttribute("aria-current"),
    ).resolves.toBe("true");
    expect(pageErrors).toEqual([]);
  });
});

describe("a 20,000-message checkpoint", () => {
  it("opens with the first messages laid out, renders lazily, and jumps to the last message", async () => {
    const messages = Array.from({ length: 20_000 }, (_, i) =>
      i % 2 === 0
        ? { role: "user", content: [{ type: "text", text: `question number ${i}` }] }
        : {
            role: "assistant",
            content: [{ type: "text", text: `answer number ${i}` }],
            usage: { input: 10, output: i },
          },
    );
    const cp = { schemaVersion: 1, threadId: "big", step: 1, messages, state: {} } as unknown as Checkpoint;
    const html = renderCheckpointPage(cp);
    expect(html.length).toBeLessThan(1.5 * JSON.stringify(cp).length);
    await open(html);
    await expect(page.locator("#m0").innerText()).resolves.toContain("question number 0");
    // rendered lazily: far fewer articles than messages
    expect(await page.locator("#msgs article.msg").count()).toBeLessThan(1000);
    await page.keyboard.press("G");
    await expect(page.locator("article.current").getAttribute("id")).resolves.toBe("m19999");
    await expect(page.locator("#m19999").innerText()).resolves.toContain("answer number 19999");
    await page.fill("#goto", "12345");
    await page.press("#goto", "Enter");
    await expect(page.locator("#m12345").innerText()).resolves.toContain("answer number 12345");
    await page.click("#tab-usage");
    await expect(page.locator("#panel-usage h2").first().innerText()).resolves.toBe("Usage: 10,000 assistant turns");
  });
});
