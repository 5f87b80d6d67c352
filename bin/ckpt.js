#!/usr/bin/env node
// Entry point: run the CLI and set the process exit code from its result. Nothing else lives here.
import { existsSync } from "node:fs";
import module from "node:module";

// Node >= 22.1 can keep V8's compiled code of ckpt's modules between runs (faster cold start); older Node
// has no such API and runs as before.
module.enableCompileCache?.();
// The bundled CLI (npm run build, scripts/bundle.mjs) starts faster; tsc's modules when there is no bundle.
const bundled = new URL("../dist/bundle/main.js", import.meta.url);
const { main } = await import(existsSync(bundled) ? bundled.href : "../dist/cli/main.js");

// `ckpt … | head` closes the pipe early: that is not an error.
for (const s of [process.stdout, process.stderr]) {
  s.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}
process.exitCode = await main(process.argv.slice(2));
