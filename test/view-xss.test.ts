/**
 * Script planted anywhere in a checkpoint (message text, Markdown links and images, tool names and arguments,
 * todos, file paths, thread ids, state) is shown as text in Chromium and never runs or links; plus the escaping
 * units the page relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Checkpoint } from "../src/generated/types.js";
import { jsonForScript, renderCheckpointPage, renderHistoryPage, renderMarkdown } from "../src/view/index.js";
import { compactScript } from "../src/view/page.js";
import * as clientFns from "../src/view/client.cjs";
import * as panelFns from "../src/view/client-panels.cjs";
import ts from "typescript";
import { readHistory } from "../src/cli/commands/view-history.js";
import { openSaver, isLangGraphSaver } from "../src/savers/index.js";
import { launchBrowser } from "./helpers/browser.js";

const PAYLOADS = [
  "<script>window.__pwned = 1</script>",
  '<img src=x onerror="window.__pwned = 2">',
  "[click me](javascript:window.__pwned=3)",
  '<a href="javascript:window.__pwned=4">raw link</a>',
  "</script><script>window.__pwned = 5</script>",
  "<!--<script>window.__pwned = 6</script>-->",
  "![pic](javascript:window.__pwned=7)",
  "[data](data:text/html,<script>window.__pwned=8</script>)",
  '<svg onload="window.__pwned=9"></svg>',
];
const text = PAYLOADS.join("\n\n");

function evil(): Checkpoint {
  return {
    schemaVersion: 1,
    threadId: "</script><script>window.__pwned = 10</script>",
    step: 1,
    messages: [
      { role: "user", content: [{ type: "text", text }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: text },
          {
            type: "text",
            text: "**bold** and [ok link](https://example.com/x) and [js](JaVaScRiPt:window.__pwned=11)",
          },
          { type: "toolCall", id: "c1", name: '<img src=x onerror="window.__pwned=12">', arguments: { html: text } },
          { type: "image", url: "javascript:window.__pwned=13", mimeType: "image/png" },
        ],
        model: "<b onmouseover=window.__pwned=14>m</b>",
      },
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "<script>window.__pwned=15</script>",
        content: [{ type: "text", text }],
        isError: true,
      },
      { role: "<img src=x onerror=window.__pwned=16>", kind: "<script>", data: { x: text } },
    ],
    state: {
      todos: [{ id: "<i>", content: '<img src=x onerror="window.__pwned=17">', status: "pending" }],
      files: { '/<img src=x onerror="window.__pwned=18">.md': { content: [text], created_at: "x", modified_at: "y" } },
      scratchpad: [{ heading: "<script>window.__pwned=19</script>", content: text }],
      contexts: { "<script>": { a: text } },
      extra: text,
    } as Checkpoint["state"],
  } as Checkpoint;
}

describe("escaping", () => {
  it("Markdown: raw HTML is text, javascript:/data: links are not links, network images are not loaded", () => {
    const h = renderMarkdown(text);
    expect(h.match(/<[a-z][^>]*>/gi)!.every((tag) => tag === "<p>")).toBe(true); // the only element: paragraphs
    expect(h).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(renderMarkdown("[x](https://example.com)")).toBe(
      '<p><a href="https://example.com" rel="noopener noreferrer nofollow" target="_blank">x</a></p>\n',
    );
    expect(renderMarkdown("![cat](https://example.com/cat.png)")).not.toContain("<img");
    expect(renderMarkdown("![dot](data:image/png;base64,iVBORw0KGgo=)")).toContain(
      '<img src="data:image/png;base64,iVBORw0KGgo="',
    );
  });

  it("JSON inside a script element cannot close it, and parses back to the same value", () => {
    const v = { a: "</script><script>alert(1)</script>", b: "<!-- x -->", c: "</p>" };
    const s = jsonForScript(JSON.stringify(v));
    expect(s).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(s)).toEqual(v);
  });

  it("the page script without its indentation is the same program (no string or template literal changed)", () => {
    const source = [...Object.values(clientFns), ...Object.values(panelFns)]
      .filter((f) => typeof f === "function")
      .map((f) => f.toString())
      .join("\n");
    const print = (text: string) =>
      ts
        .createPrinter({ removeComments: true })
        .printFile(ts.createSourceFile("page.js", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS));
    const compact = compactScript(source);
    expect(compact.length).toBeLessThan(source.length);
    expect(print(compact)).toBe(print(source));
    // the check can fail: a template literal spanning lines loses its indentation
    const multi = "function f() {\n  return `a\n    b`;\n}";
    expect(print(compactScript(multi))).not.toBe(print(multi));
  });

  it("the page carries a Content-Security-Policy allowing only its own script", () => {
    const html = renderCheckpointPage(evil());
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;unsafe-inline&#39;; script-src &#39;sha256-[A-Za-z0-9+/=]+&#39;/,
    );
    // outside the data element (whose text only ever holds "<\/"), two script elements: the data and the page script
    const outside = html.replace(/(<script type="application\/json" id="ckpt-data">)[\s\S]*?(<\/script>)/, "$1$2");
    expect(outside.match(/<script/g)!.length).toBe(2);
  });
});

describe("planted script in Chromium", () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it("never runs, never links, and shows the text as written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-xss-"));
    const file = join(dir, "evil.html");
    writeFileSync(file, renderCheckpointPage(evil()));
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("html[data-ready]");
    // open everything: tool calls, reasoning, every tab
    for (const d of await page.locator("details").all())
      await d.evaluate((e) => ((e as HTMLDetailsElement).open = true));
    await page.click("#tab-state");
    for (const d of await page.locator("#panel-state details").all())
      await d.evaluate((e) => ((e as HTMLDetailsElement).open = true));
    await page.locator(".files .tree button").first().click();
    await page.click("#tab-usage");
    await page.click("#tab-metadata");
    await page.click("#tab-transcript");
    await page.locator("#m1").hover();
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // no link to anything but http(s), no element with an event handler attribute, no planted elements
    const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => a.getAttribute("href")!));
    for (const h of hrefs) expect(h).toMatch(/^(https:\/\/example\.com\/x|#m\d+|#main)$/);
    expect(
      await page.$$eval(
        "*",
        (es) => es.filter((e) => Array.from(e.attributes).some((a) => /^on/i.test(a.name))).length,
      ),
    ).toBe(0);
    expect(await page.locator("main script, main svg:not(.chart), main img, main b, main i").count()).toBe(0);
    // the payloads are visible as text
    const body = await page.locator("#m0").innerText();
    expect(body).toContain("<script>window.__pwned = 1</script>");
    expect(body).toContain('<img src=x onerror="window.__pwned = 2">');
    expect(body).toContain("[click me](javascript:window.__pwned=3)");
    await expect(page.locator("#m1 details.tool summary code").innerText()).resolves.toBe(
      '<img src=x onerror="window.__pwned=12">',
    );
    await expect(page.locator("header.top h1").innerText()).resolves.toContain(
      "</script><script>window.__pwned = 10</script>",
    );
    await page.click("#tab-state");
    await expect(page.locator("ul.todos").innerText()).resolves.toContain('<img src=x onerror="window.__pwned=17">');
    expect(errors.filter((e) => !/Refused to load the image/.test(e))).toEqual([]);
  });

  it("a LangGraph page: planted script in channel names and values, writes, interrupts, nodes and namespaces stays text", async () => {
    // a real thread (JS library, left at an interrupt), then script planted in every string the LangGraph panels show
    const store = join(import.meta.dirname, "..", "fixtures/langgraph/js-a.sqlite");
    const saver = await openSaver(`sqlite:${store}`, { readOnly: true, env: {} } as Parameters<typeof openSaver>[1]);
    if (!isLangGraphSaver(saver)) throw new Error("not a LangGraph store");
    const { entries } = await readHistory(saver, "a-hitl-1", store);
    await saver.close();
    const bad = (k: number) => `<img src=x onerror="window.__pwned=${k}">`;
    for (const e of entries) {
      e.node = bad(30);
      const lg = (e.checkpoint.ext as { langgraph: Record<string, Record<string, unknown>> }).langgraph;
      const tuple = lg.tuple as {
        namespace: string;
        metadata: Record<string, unknown>;
        pendingWrites: Array<Record<string, unknown>>;
      };
      tuple.namespace = bad(31);
      tuple.metadata.source = bad(32);
      e.checkpoint.state[bad(33)] = { [bad(34)]: text };
      for (const w of tuple.pendingWrites) {
        w.taskId = bad(35);
        if (w.channel === "__interrupt__") w.value = [{ id: bad(36), value: { question: text } }];
      }
      tuple.pendingWrites.push({ taskId: bad(35), idx: 0, channel: bad(37), type: "json", value: text, bytes: 0 });
    }
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-xss-"));
    const file = join(dir, "evil-lg.html");
    writeFileSync(file, renderHistoryPage(entries));
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("html[data-ready]");
    for (const tab of ["#tab-channels", "#tab-writes", "#tab-metadata"]) {
      await page.click(tab);
      for (const d of await page.locator("details").all())
        await d.evaluate((e) => ((e as HTMLDetailsElement).open = true));
    }
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("main img, nav img, main script").count()).toBe(0);
    await expect(page.locator("nav.timeline").innerText()).resolves.toContain(bad(30));
    await expect(page.locator("#panel-channels").innerText()).resolves.toContain(bad(33));
    await expect(page.locator("#panel-writes").innerText()).resolves.toContain(bad(37));
    await expect(page.locator("main aside.interrupt").innerText()).resolves.toContain(
      "<script>window.__pwned = 1</script>",
    );
    await expect(page.locator("#panel-metadata").innerText()).resolves.toContain(bad(31));
    expect(errors).toEqual([]);
  });
});
