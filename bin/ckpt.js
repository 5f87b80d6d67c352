#!/usr/bin/env node
// Entry point: run the CLI and set the process exit code from its result. Nothing else lives here.
import { main } from "../dist/cli/main.js";

// `ckpt … | head` closes the pipe early: that is not an error.
for (const s of [process.stdout, process.stderr]) {
  s.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}
process.exitCode = await main(process.argv.slice(2));
