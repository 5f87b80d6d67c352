/**
 * One headless Chromium for a test file: Debian's `chromium` from PATH (the CI script installs it), a fresh
 * profile, and the flags that keep it off the network (no background networking, no component updates).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export function chromiumPath(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      const p = join(dir, name);
      if (existsSync(p)) return p;
    }
  }
  throw new Error(
    "no chromium on PATH: install it with `apt-get install -y chromium` (.ci/run does this when it is missing)",
  );
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
];

/** A browser with a fresh user-data-dir; `close()` removes the profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "ckpt-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
