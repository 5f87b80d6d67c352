// ckpt view: page size and render time for 1,000 and 20,000 messages against the checkpoint's JSON, and time until
// the page is interactive in headless Chromium (plus the slowest frame while scrolling through the transcript).
// Baselines measured in the same run: JSON.stringify of the same checkpoint (render time), the JSON text itself
// (page size), the same JSON opened in Chromium as a plain <pre> page (load time), and `ckpt show --full` of the
// same file (whole process). Run after `npm run build`: node bench/view.mjs  (BENCH_SIZES=1000,20000 BENCH_RUNS=5)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { readCheckpoint, adapters } = await import(join(root, "dist/formats/index.js"));
const { renderCheckpointPage } = await import(join(root, "dist/view/index.js"));
const { chromium } = await import("playwright-core");

const SIZES = (process.env.BENCH_SIZES ?? "1000,20000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const samplePath = join(root, "fixtures/yoagent/valid/save_messages.v0.18.json");
const sample = readCheckpoint({ name: samplePath, text: readFileSync(samplePath, "utf8") }).checkpoint;
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;

/** n messages: the real yoagent 0.18 sample repeated, with fresh tool-call ids, timestamps and numbered text. */
function checkpoint(n) {
  const messages = [];
  for (let round = 0; messages.length < n; round++) {
    for (const m of sample.messages) {
      if (messages.length >= n) break;
      const c = structuredClone(m);
      if (typeof c.timestamp === "number") c.timestamp += round * 100_000;
      if (c.role === "toolResult") c.toolCallId = `${c.toolCallId}-${round}`;
      for (const b of c.content ?? []) {
        if (b.type === "toolCall") b.id = `${b.id}-${round}`;
        if (b.type === "text") b.text = `${b.text} (round ${round})`;
      }
      messages.push(c);
    }
  }
  return { ...structuredClone(sample), threadId: "bench", messages };
}

function time(fn) {
  for (let i = 0; i < 2; i++) fn();
  const ts = [];
  let r;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    r = fn();
    ts.push(performance.now() - t0);
  }
  return { ms: median(ts), r };
}

function chromiumPath() {
  for (const dir of (process.env.PATH ?? "").split(delimiter))
    for (const n of ["chromium", "chromium-browser"]) if (existsSync(join(dir, n))) return join(dir, n);
  throw new Error("no chromium on PATH (apt-get install -y chromium)");
}

async function browserTimes(context, pageFile, plainFile) {
  const page = await context.newPage();
  const tti = [];
  const plain = [];
  let worstFrame = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await page.goto(pathToFileURL(plainFile).href, { waitUntil: "load" });
    plain.push(performance.now() - t0);
    const t1 = performance.now();
    await page.goto(pathToFileURL(pageFile).href, { waitUntil: "commit" });
    await page.waitForSelector("html[data-ready]", { timeout: 120_000 });
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => ok())));
    tti.push(performance.now() - t1);
  }
  // scroll through the transcript one screen per frame for 120 frames; the slowest frame is what a reader feels
  worstFrame = await page.evaluate(async () => {
    let worst = 0;
    let last = performance.now();
    for (let k = 0; k < 120; k++) {
      window.scrollBy(0, window.innerHeight);
      await new Promise((ok) => requestAnimationFrame(() => ok()));
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }
    return worst;
  });
  // jump to the last message (renders its chunk, scrolls there)
  const jump = await page.evaluate(async () => {
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "G" }));
    await new Promise((ok) => requestAnimationFrame(() => ok()));
    return { ms: performance.now() - t0, current: document.querySelector("article.current")?.id };
  });
  await page.close();
  return { tti: median(tti), plain: median(plain), worstFrame, jump };
}

const dir = mkdtempSync(join(tmpdir(), "ckpt-bench-view-"));
const profile = mkdtempSync(join(tmpdir(), "ckpt-bench-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath(),
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const results = [];
try {
  for (const n of SIZES) {
    const cp = checkpoint(n);
    const canonicalJson = JSON.stringify(cp, null, 2);
    const nativeText = adapters.yoagent.serialize(adapters.yoagent.fromCanonical(cp, { lossy: [] })).text;
    const nativeFile = join(dir, `yoagent-${n}.json`);
    writeFileSync(nativeFile, nativeText);
    const render = time(() => renderCheckpointPage(cp, { title: `bench ${n}` }));
    const base = time(() => JSON.stringify(cp));
    const html = render.r;
    const pageFile = join(dir, `page-${n}.html`);
    writeFileSync(pageFile, html);
    const plainFile = join(dir, `plain-${n}.html`);
    writeFileSync(
      plainFile,
      `<!doctype html><meta charset="utf-8"><pre>${nativeText.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</pre>`,
    );
    const proc = (args) => {
      const ts = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, [join(root, "bin/ckpt.js"), ...args], {
          cwd: dir,
          encoding: "utf8",
          maxBuffer: 1 << 30,
        });
        ts.push(performance.now() - t0);
        if (r.status !== 0) throw new Error(`ckpt ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
      }
      return median(ts);
    };
    const viewProc = proc(["view", nativeFile, "-o", join(dir, `cli-${n}.html`)]);
    const showProc = proc(["show", nativeFile, "--full"]);
    const b = await browserTimes(context, pageFile, plainFile);
    const row = {
      messages: n,
      nativeJsonBytes: Buffer.byteLength(nativeText),
      canonicalJsonBytes: Buffer.byteLength(canonicalJson),
      pageBytes: statSync(pageFile).size,
      pageToNative: +(statSync(pageFile).size / Buffer.byteLength(nativeText)).toFixed(2),
      pageToCanonical: +(statSync(pageFile).size / Buffer.byteLength(canonicalJson)).toFixed(2),
      renderMs: +render.ms.toFixed(1),
      stringifyMs: +base.ms.toFixed(1),
      renderToStringify: +(render.ms / base.ms).toFixed(1),
      processViewMs: Math.round(viewProc),
      processShowMs: Math.round(showProc),
      processViewToShow: +(viewProc / showProc).toFixed(2),
      chromiumInteractiveMs: Math.round(b.tti),
      chromiumPlainJsonMs: Math.round(b.plain),
      interactiveToPlain: +(b.tti / b.plain).toFixed(2),
      worstScrollFrameMs: Math.round(b.worstFrame),
      jumpToLastMs: Math.round(b.jump.ms),
      jumpedTo: b.jump.current,
    };
    results.push(row);
    console.log(
      `${n} messages: page ${kb(row.pageBytes)} = ${row.pageToNative}× the yoagent JSON (${kb(row.nativeJsonBytes)}), ${row.pageToCanonical}× the canonical JSON (${kb(row.canonicalJsonBytes)}); ` +
        `render ${row.renderMs} ms (JSON.stringify ${row.stringifyMs} ms, ×${row.renderToStringify}); ` +
        `process: ckpt view ${row.processViewMs} ms vs ckpt show --full ${row.processShowMs} ms (×${row.processViewToShow}); ` +
        `Chromium: interactive in ${row.chromiumInteractiveMs} ms vs the JSON as a plain page ${row.chromiumPlainJsonMs} ms (×${row.interactiveToPlain}), ` +
        `slowest scroll frame ${row.worstScrollFrameMs} ms, jump to last message ${row.jumpToLastMs} ms (${row.jumpedTo})`,
    );
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: "view", results }));
