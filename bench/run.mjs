// Runs every benchmark in bench/ (each a separate Node process, one after another, so they don't compete for the
// two cores) and prints each one's report, then a summary of their final JSON lines.
// Usage: npm run bench            (all)
//        npm run bench -- diff    (only the named ones)
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs")
  .map((f) => f.replace(/\.mjs$/, ""))
  .filter((n) => only.length === 0 || only.includes(n))
  .sort();
const results = [];
let failed = 0;
for (const name of benches) {
  console.log(`\n=== bench/${name}.mjs`);
  const r = spawnSync(process.execPath, ["--expose-gc", join(here, `${name}.mjs`)], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  process.stdout.write(r.stdout ?? "");
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${name}.mjs exited with ${r.status ?? r.signal}`);
  }
  const last = (r.stdout ?? "")
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .pop();
  if (last) {
    try {
      results.push(JSON.parse(last));
    } catch {
      /* a report line that is not JSON */
    }
  }
}
console.log("\n=== summary (final JSON line of each bench)");
for (const r of results) console.log(JSON.stringify(r));
process.exitCode = failed ? 1 : 0;
