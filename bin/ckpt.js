#!/usr/bin/env node
// Entry point: run the CLI and set the process exit code from its result. Nothing else lives here.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
