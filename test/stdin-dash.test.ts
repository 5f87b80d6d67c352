/**
 * #15 item 16: `-` reads standard input in show and replay, as their help says (yargs-parser hands a lone "-"
 * positional over as an empty string; both commands used to try to open "" and say ": is a directory").
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../src/cli/main.js";
import { cliIO } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const text = readFileSync(join(ROOT, "fixtures/ckpt/valid/coding-session.json"), "utf8");

describe("'-' is standard input", () => {
  test("show -", async () => {
    const io = cliIO({ cwd: ROOT, stdin: text });
    expect(await main(["show", "-"], io)).toBe(0);
    expect(io.out()).toMatch(/^thread t-1 — ckpt, step 2, 5 messages/); // the fixture's thread, step and count
    expect(io.out()).toContain("The parser returns nothing.");
  });
  test("replay verify - and replay -", async () => {
    for (const argv of [
      ["replay", "verify", "-"],
      ["replay", "-"],
    ]) {
      const io = cliIO({ cwd: ROOT, stdin: text });
      expect(await main(argv, io), argv.join(" ")).toBe(0);
      expect(io.err() + io.out(), argv.join(" ")).toMatch(/<stdin>: replay matched: 2 turn/);
    }
  });
});
