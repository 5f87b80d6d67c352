/**
 * The seeded corpus (secret-corpus.ts) written into every source kind `ckpt scan` and `--redact` read: the ckpt
 * document in `dir/ckpt/seed-1.json`, its conversion into each format in `SEED_FORMATS` (`dir/seed.<format>.json`), a
 * LangGraph SQLite store (`dir/lg.db`), a ckpt SQLite store (`dir/ckpt.db`), a Mastra LibSQL store (`dir/mastra.db`:
 * the state does not go, Mastra keeps none) and ckpt's own Redis store at `redis` — each written by ckpt's own
 * commands, which the tests of scan and redact then read.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli-io.js";
import { seededCheckpoint } from "./secret-corpus.js";

export const SEED_FORMATS = ["ai-sdk", "langgraph", "mastra", "openai-agents", "deepagent"] as const;

export async function writeSeededSources(dir: string, redis: string): Promise<void> {
  const doc = join(dir, "ckpt", "seed-1.json");
  mkdirSync(join(dir, "ckpt"));
  writeFileSync(doc, JSON.stringify(seededCheckpoint(), null, 2));
  const runs = [
    ...SEED_FORMATS.map((f) => ["convert", doc, "-t", f, "-o", join(dir, `seed.${f}.json`), "--allow-lossy"]),
    ["convert", doc, "-t", "langgraph", "-o", `sqlite:${join(dir, "lg.db")}#seed-1`],
    ["migrate", "--from", `file:${join(dir, "ckpt")}`, "--to", `sqlite:${join(dir, "ckpt.db")}`],
    [
      "migrate",
      "--from",
      `file:${join(dir, "ckpt")}`,
      "--to",
      `sqlite:${join(dir, "mastra.db")}?layout=mastra`,
      "--allow-lossy",
    ],
    ["migrate", "--from", `file:${join(dir, "ckpt")}`, "--to", redis],
  ];
  for (const argv of runs) {
    const r = await runCli(argv);
    expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(0);
  }
}
