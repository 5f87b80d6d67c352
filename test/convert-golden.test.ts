/**
 * Every fixture converted into every format gives the bytes it gave before the speed work of issue #41 (the
 * figures in test/golden/convert-outputs.json were made by the code before it; test/helpers/convert-golden.mjs).
 * A change that alters a written byte, a loss count or a refusal fails here. Regenerate only for an intended
 * change of output: `npm run build && node test/helpers/convert-golden.mjs . > test/golden/convert-outputs.json`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { convertDocument } from "../src/core/convert.js";
import { FORMAT_NAMES } from "../src/formats/index.js";
// @ts-expect-error a plain ES module without types
import { goldenOf } from "./helpers/convert-golden.mjs";

const root = join(__dirname, "..");

test("every fixture into every format: the same bytes as before", () => {
  const expected = JSON.parse(readFileSync(join(root, "test", "golden", "convert-outputs.json"), "utf8"));
  const got = goldenOf(root, convertDocument, FORMAT_NAMES);
  expect(Object.keys(got).length).toBeGreaterThan(700);
  expect(got).toEqual(expected);
}, 60_000);
