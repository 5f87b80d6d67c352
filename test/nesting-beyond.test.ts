/** #41: nestingBeyond answers a text too short to nest past the limit without scanning it; the boundary holds. */
import { describe, expect, it } from "vitest";
import { MAX_NESTING, nestingBeyond } from "../src/base/json.js";

describe("nestingBeyond", () => {
  it("finds max + 1 levels, and not max (the shortest texts either way)", () => {
    expect(nestingBeyond("[".repeat(MAX_NESTING + 1) + "]".repeat(MAX_NESTING + 1))).toBeDefined();
    expect(nestingBeyond("[".repeat(MAX_NESTING + 1))).toBeDefined(); // cut short: still too deep
    expect(nestingBeyond("[".repeat(MAX_NESTING))).toBeUndefined(); // as long as the limit: cannot go past it
    expect(nestingBeyond("[".repeat(3) + "]".repeat(3), 2)).toBe("/0/0");
    expect(nestingBeyond("[[]]", 2)).toBeUndefined();
  });
});
