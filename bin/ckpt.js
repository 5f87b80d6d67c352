#!/usr/bin/env node
// Entry point: run the CLI and exit with the code of its result. Nothing else lives here.
// CommonJS (bin/package.json), like the bundle it requires: a run that never loads an ES module never starts
// Node's ES module loader, which costs a cold start ~10 ms on Node 20 (issue #13).
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

// Node >= 22.1 can keep V8's compiled code of ckpt's modules between runs (faster cold start); on older Node,
// bin/code-cache.js keeps it for the bundle and the schema validators (most of a short run was compiling them).
// node:module is required only where it has enableCompileCache: on Node 20 loading it also loads the ES module
// loader, ~2 ms of a short run (issue #41).
const bundled = join(__dirname, "..", "dist", "bundle", "main.js");
const [major, minor] = process.versions.node.split(".").map(Number);
const compileCache = major > 22 || (major === 22 && minor >= 1);
if (!(compileCache && require("node:module").enableCompileCache?.()) && existsSync(bundled)) {
  const dist = join(__dirname, "..", "dist");
  const { version } = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8"));
  require("./code-cache.js").useCodeCache(
    [join(dist, "bundle", ""), join(dist, "generated", "validators", "")],
    version,
  );
}
// The bundled CLI (npm run build, scripts/bundle.mjs) starts faster; tsc's ES modules when there is no bundle.
const cli = existsSync(bundled) ? Promise.resolve(require(bundled)) : import("../dist/cli/main.js");
// exitAfterRun: exit once the output is written, not after V8's leftover background work (src/cli/main.ts)
cli.then(({ main, exitAfterRun }) => main(process.argv.slice(2)).then(exitAfterRun));
