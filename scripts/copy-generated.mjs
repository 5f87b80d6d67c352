#!/usr/bin/env node
// tsc does not copy the generated JavaScript validators (src/generated/validators.js + .d.ts and the per-group
// modules in src/generated/validators/) into dist/: do it here.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "src", "generated");
const to = join(root, "dist", "generated");
mkdirSync(to, { recursive: true });
for (const f of ["validators.js", "validators.d.ts"]) cpSync(join(from, f), join(to, f));
rmSync(join(to, "validators"), { recursive: true, force: true });
cpSync(join(from, "validators"), join(to, "validators"), { recursive: true });
