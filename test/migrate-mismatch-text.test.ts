// The summary's verification-mismatch line: a document migration compares sha256 content hashes (shown cut to 12 hex
// digits); a LangGraph migration compares rows and says so in words — it used to be printed as if it were a hash
// ("expected sha256 the rows wri…").
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mismatchText } from "../src/cli/commands/migrate.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("verification mismatch wording", () => {
  it("content hashes are shown as 12-digit sha256 prefixes", () => {
    const [a, b] = [sha("written"), sha("read back")];
    expect(mismatchText({ expected: a, got: b })).toBe(`expected sha256 ${a.slice(0, 12)}…, got ${b.slice(0, 12)}…`);
    expect(mismatchText({ expected: a, got: null })).toBe(`expected sha256 ${a.slice(0, 12)}…, got nothing`);
  });
  it("a LangGraph row comparison is said in words, not cut like a hash", () => {
    expect(mismatchText({ expected: "the rows written", got: "different rows" })).toBe(
      "expected the rows written, got different rows",
    );
    expect(mismatchText({ expected: "the rows written", got: null })).toBe("expected the rows written, got nothing");
  });
});
