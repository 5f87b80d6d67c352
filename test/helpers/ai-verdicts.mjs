/**
 * Reads a JSON array of AI SDK messages on stdin and prints, as JSON, whether the real `ai` package's
 * modelMessageSchema accepts each one, plus the version of the zod that ran it (resolved as `ai` resolves it).
 * Run plainly for the installed zod 4, or with `--import ./test/helpers/zod3-register.mjs` for zod 3.25.
 */
import { readFileSync } from "node:fs";
const { modelMessageSchema } = await import("ai");
const { default: zodPkg } = await import("zod/package.json", { with: { type: "json" } });
const messages = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(
  JSON.stringify({ zod: zodPkg.version, verdicts: messages.map((m) => modelMessageSchema.safeParse(m).success) }),
);
