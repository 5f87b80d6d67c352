#!/usr/bin/env node
// tsc does not copy the generated JavaScript validators (src/generated/validators.js + .d.ts) into dist/: do it here.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
mkdirSync(join(root, "dist", "generated"), { recursive: true });
for (const f of ["validators.js", "validators.d.ts"]) copyFileSync(join(root, "src", "generated", f), join(root, "dist", "generated", f));
