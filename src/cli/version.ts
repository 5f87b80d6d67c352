/**
 * ckpt's own version: the "version" of the package.json beside src/ and dist/ (two folders up from this module in
 * src/cli/, dist/cli/ and dist/bundle/). Never yargs' guess, which reads the package.json nearest the working
 * directory or the entry script and so printed the host project's version from an installed ckpt (issue #38).
 */
import { readFileSync } from "node:fs";

let cached: string | undefined;

export function ckptVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;
  return cached;
}
