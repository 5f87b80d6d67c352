// Screenshots of ckpt view's main views, taken in headless Chromium from pages built from the samples in fixtures/:
// transcript with an expanded tool call (light), state (dark), usage, the diff page and the history timeline.
// Run after `npm run build`: node scripts/screenshots.mjs [out-dir]   (default: ./screenshots)
// docs/view.png (the README's picture) is the transcript shot, downscaled: node scripts/screenshots.mjs --readme
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { readCheckpoint } = await import(join(root, "dist/formats/index.js"));
const { renderCheckpointPage, renderDiffPage, renderHistoryPage } = await import(join(root, "dist/view/index.js"));
const { chromium } = await import("playwright-core");

const readme = process.argv.includes("--readme");
const out = resolve(
  process.argv.slice(2).find((a) => !a.startsWith("--")) ?? (readme ? join(root, "docs") : "screenshots"),
);
mkdirSync(out, { recursive: true });
const load = (rel, format) =>
  readCheckpoint({ name: rel, text: readFileSync(join(root, rel), "utf8") }, format).checkpoint;

function chromiumPath() {
  for (const dir of (process.env.PATH ?? "").split(delimiter))
    for (const n of ["chromium", "chromium-browser"]) if (existsSync(join(dir, n))) return join(dir, n);
  throw new Error("no chromium on PATH (apt-get install -y chromium)");
}

const tmp = mkdtempSync(join(tmpdir(), "ckpt-shots-"));
const profile = mkdtempSync(join(tmpdir(), "ckpt-shots-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath(),
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  viewport: { width: 1100, height: 720 },
  colorScheme: "light",
});
const page = await context.newPage();
async function open(name, html) {
  const f = join(tmp, `${name}.html`);
  writeFileSync(f, html);
  await page.goto(pathToFileURL(f).href);
  await page.waitForSelector("html[data-ready]");
}
const shot = async (name) => {
  const path = join(out, `${name}.png`);
  await page.screenshot({ path });
  console.log(path);
};

try {
  const variants = load("fixtures/deepagent/valid/all-model-message-variants.json");
  await open(
    "transcript",
    renderCheckpointPage(variants, { title: "all-model-message-variants.json — thread all-variants" }),
  );
  await page.locator("#m3 details.tool").first().locator("summary").click();
  await page.locator("#m3").scrollIntoViewIfNeeded();
  if (readme) {
    await page.setViewportSize({ width: 900, height: 560 });
    await page.locator("#m3").evaluate((e) => e.scrollIntoView({ block: "start" }));
    await page.evaluate(() => window.scrollBy(0, -70));
    await shot("view");
  } else {
    await shot("transcript-light");
    await page.click("#theme");
    await page.click("#tab-state");
    await shot("state-dark");
    await page.click("#theme");
    const yo = load("fixtures/yoagent/valid/save_messages.v0.18.json");
    await open("usage", renderCheckpointPage(yo));
    await page.click("#tab-usage");
    await shot("usage");
    const a = load("fixtures/diff/ckpt/base.json");
    const b = load("fixtures/diff/ckpt/after.json");
    await open("diff", renderDiffPage(a, b, { names: ["base.json", "after.json"] }));
    await shot("diff");
    const saves = JSON.parse(readFileSync("/work/shared/formats/deepagent/generated/all-saves-in-order.json", "utf8"));
    const entries = saves.map((s, i) => {
      const checkpoint = readCheckpoint({ name: `save ${i}`, text: JSON.stringify(s) }, "deepagent").checkpoint;
      return {
        id: `save-${i}`,
        step: checkpoint.step,
        node: i === 0 ? "input" : "agent",
        time: checkpoint.updatedAt,
        checkpoint,
      };
    });
    await open("history", renderHistoryPage(entries));
    await page.locator("nav.timeline button").nth(2).click();
    await shot("history");
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
}
