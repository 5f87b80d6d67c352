#!/usr/bin/env node
// Bundles the CLI (tsc's dist/cli/main.js and what it imports, npm packages included) into dist/bundle/ with
// rolldown, for a faster cold start: a `ckpt validate` run reads and links ~15 files instead of ~45 (issue #13).
// bin/ckpt.js runs dist/bundle/main.js when it is there. Runs after tsc and copy-generated (npm run build); the
// library entry (dist/index.js) stays tsc's output.
//
// Code splitting keeps every lazily imported module lazy: each `import()` in the sources (the command modules,
// yargs, the stores) starts its own chunk, loaded only by the runs that need it. The chunks sit directly in
// dist/bundle/, one folder below the package like dist/cli/, so `new URL("../../schemas/", import.meta.url)`
// (schema.ts) still finds schemas/; check-worker is an entry of its own because check-pool.ts starts it as
// `./check-worker.js` beside itself.
//
// Left outside the bundle and imported from where tsc put them:
//   - dist/generated/validators.js: it requires its per-group validators relative to itself;
//   - dist/view/client.js and client-panels.js: `ckpt view` copies these functions' source text into the page,
//     which must stay what tsc wrote (a bundler renames clashing names and reprints code);
//   - better-sqlite3 (native) and the database clients pg, pg-copy-streams and ioredis: large, loaded only with a
//     database store, and left as they always were in node_modules.
import { rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outDir = join(dist, "bundle");

/** dist/ files that stay separate (absolute paths). */
const separate = ["generated/validators.js", "view/client.js", "view/client-panels.js"].map((f) => join(dist, f));
const externalPackages = /^(node:|better-sqlite3$|pg$|pg-copy-streams$|ioredis$)/;

rmSync(outDir, { recursive: true, force: true });
await build({
  input: { main: join(dist, "cli", "main.js"), "check-worker": join(dist, "cli", "check-worker.js") },
  platform: "node",
  external: (id, importer) => {
    if (externalPackages.test(id)) return true;
    return Boolean(importer && id.startsWith(".") && separate.includes(join(dirname(importer), id)));
  },
  onLog(level, log, handler) {
    // "x is imported dynamically here and statically there": expected (the static importers are lazy chunks).
    if (log.code !== "INEFFECTIVE_DYNAMIC_IMPORT") handler(level, log);
  },
  output: {
    dir: outDir,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    // a separate dist/ file is imported by its path relative to dist/bundle/
    paths: (id) => (separate.includes(id) ? relative(outDir, id).split(sep).join("/") : id),
  },
});
