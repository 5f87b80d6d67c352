/**
 * A message time past what a JavaScript Date holds (±8.64e15 ms) cannot become a Mastra row's createdAt: converting
 * such a checkpoint to Mastra is a loss named with its pointer (refused without --allow-lossy, exit 1), not an
 * internal error. The fixture is yoagent's unsafe-integer sample (timestamp 18446744073709551615, 2^64 − 1).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const fixture = "fixtures/yoagent/warn/unsafe-integer.json";

test("a timestamp outside a Date's range: named as a loss, never an internal error", async () => {
  const out = join(mkdtempSync(join(tmpdir(), "mastra-time-")), "out.json");
  const refused = await runCli(["convert", fixture, "-t", "mastra", "-o", out]);
  expect(refused.code, refused.err).toBe(1);
  expect(refused.err).toMatch(/\/messages\/0\/timestamp: timestamp 18446744073709551615 is outside the dates/);
  expect(refused.err).not.toMatch(/internal error/);
  const lossy = await runCli(["convert", fixture, "-t", "mastra", "--allow-lossy", "-o", out]);
  expect(lossy.code, lossy.err).toBe(0);
  const doc = JSON.parse(readFileSync(out, "utf8"));
  // the row keeps its text; its time is the conversation's (none here: the epoch), a valid ISO time
  expect(doc.messages).toHaveLength(1);
  expect(doc.messages[0].content.parts).toEqual([{ type: "text", text: "hi" }]);
  expect(new Date(doc.messages[0].createdAt).toISOString()).toBe(doc.messages[0].createdAt);
});
