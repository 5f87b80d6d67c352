/**
 * `ckpt view --serve`: a store of 100,000 threads browsed page by page in Chromium (cursor paging through the
 * saver's streaming list), a thread's page opened from the list, read-only (no writes, GET/HEAD only), and a
 * single file served. Runs the built CLI (`node bin/ckpt.js`, built by `npm test`) as a child process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { openSaver } from "../src/savers/index.js";
import { launchBrowser } from "./helpers/browser.js";

const ROOT = join(import.meta.dirname, "..");
const THREADS = 100_000;
const id = (i: number) => `t${String(i).padStart(6, "0")}`;
const doc = (i: number) =>
  JSON.stringify({
    threadId: id(i),
    step: 1,
    messages: [
      { role: "user", content: `hello from thread ${i}` },
      { role: "assistant", content: `answer number ${i}` },
    ],
    state: { todos: [{ id: "1", content: `todo of ${i}`, status: "pending" }] },
  });

/** Start `ckpt view --serve <spec>` and resolve with its URL (the line it prints). */
function serve(spec: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, "bin/ckpt.js"), "view", "--serve", spec], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((ok, fail) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (b) => {
      out += b;
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) ok({ url: m[1]!, child });
    });
    child.stderr!.on("data", (b) => (err += b));
    child.on("exit", (code) => fail(new Error(`ckpt view --serve exited with ${code}: ${err}`)));
  });
}

describe("ckpt view --serve", () => {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-view-serve-"));
  const db = join(dir, "big.db");
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const saver = await openSaver(`sqlite:${db}`);
    for (let start = 0; start < THREADS; start += 10_000) {
      const batch = [];
      for (let i = start; i < start + 10_000; i++) batch.push({ namespace: "default", threadId: id(i), text: doc(i) });
      await saver.saveMany(batch);
    }
    await saver.close();
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 120_000);
  afterAll(async () => {
    for (const c of children) c.kill("SIGTERM");
    await browser?.close();
  });

  it("pages through a store of 100,000 threads and opens a thread from the list", async () => {
    const before = statSync(db).mtimeMs;
    const { url, child } = await serve(`sqlite:${db}`);
    children.push(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await page.goto(url);
    await page.waitForSelector("table.threads");
    await expect(page.locator("main h2").first().innerText()).resolves.toBe("100,000 threads in namespace default");
    await expect(page.locator(".pager .range").first().innerText()).resolves.toBe("threads 1–100 of 100,000");
    await expect(page.locator("table.threads tbody tr").count()).resolves.toBe(100);
    await expect(page.locator("table.threads tbody tr td a").first().innerText()).resolves.toBe("t000000");
    for (let p = 2; p <= 4; p++) {
      await page.locator("a.next").first().click();
      await page.waitForSelector("table.threads");
      await expect(page.locator(".pager .range").first().innerText()).resolves.toBe(
        `threads ${(p - 1) * 100 + 1}–${p * 100} of 100,000`,
      );
      await expect(page.locator("table.threads tbody tr td a").first().innerText()).resolves.toBe(id((p - 1) * 100));
    }
    // deep in the store: the page after t099849 holds 99,851–99,950; the last page has 50 and no next
    await page.goto(`${url}?after=${id(99_849)}&n=99850`);
    await expect(page.locator(".pager .range").first().innerText()).resolves.toBe("threads 99,851–99,950 of 100,000");
    await page.locator("a.next").first().click();
    await page.waitForSelector("table.threads");
    await expect(page.locator(".pager .range").first().innerText()).resolves.toBe("threads 99,951–100,000 of 100,000");
    await expect(page.locator("a.next").count()).resolves.toBe(0);
    // a thread's page, from the list
    await page.locator("table.threads a", { hasText: id(99_990) }).click();
    await page.waitForSelector("html[data-ready]");
    await expect(page.locator("#m0").innerText()).resolves.toContain("hello from thread 99990");
    await expect(page.locator("#m1").innerText()).resolves.toContain("answer number 99990");
    await page.click("#tab-state");
    await expect(page.locator("ul.todos").innerText()).resolves.toContain("todo of 99990");
    await page.click("header.top a");
    await expect(page.locator(".pager .range").first().innerText()).resolves.toBe("threads 1–100 of 100,000");
    // read-only: no other methods, no other hosts, the database untouched
    const post = await fetch(`${url}thread?id=t000001`, { method: "POST" });
    expect(post.status).toBe(405);
    const missing = await fetch(`${url}thread?id=nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("no thread &#39;nope&#39;");
    const { request } = await import("node:http");
    const status = await new Promise<number>((ok) =>
      request(url, { headers: { host: "evil.example:80" } }, (r) => ok(r.statusCode!)).end(),
    );
    expect(status).toBe(421);
    const res = await fetch(url);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(statSync(db).mtimeMs).toBe(before);
  }, 120_000);

  it("a LangGraph store: its threads, and a thread's page is its timeline", async () => {
    const store = join(ROOT, "fixtures/langgraph/js-a.sqlite");
    // what the real JS library read back from this store
    const counts = JSON.parse(readFileSync(join(ROOT, "fixtures/langgraph/counts/js-a.sqlite.json"), "utf8"));
    const before = statSync(store).mtimeMs;
    const { url, child } = await serve(store);
    children.push(child);
    await page.goto(url);
    await page.waitForSelector("table.threads");
    await expect(page.locator("table.threads tbody tr").count()).resolves.toBe(counts.threads);
    await page.locator("table.threads a", { hasText: "a-chat-1" }).click();
    await page.waitForSelector("html[data-ready]");
    await expect(page.locator("nav.timeline button").count()).resolves.toBe(counts.per_thread["a-chat-1"].checkpoints);
    await expect(page.locator("#msgs article.msg").first().innerText()).resolves.toMatch(/user/i);
    expect(statSync(store).mtimeMs).toBe(before);
  });

  it("serves one file's page", async () => {
    const { url, child } = await serve(join(ROOT, "fixtures/deepagent/valid/user_42_session_1.json"));
    children.push(child);
    await page.goto(url);
    await page.waitForSelector("html[data-ready]");
    await expect(page.locator("#m0").innerText()).resolves.toContain("Create a project plan");
    child.kill("SIGINT");
    await expect(new Promise((ok) => child.on("exit", (code) => ok(code)))).resolves.toBe(0);
  });
});
