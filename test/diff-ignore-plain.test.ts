// Plain-pointer ignore rules (#41): prunePointers removes exactly what micromatch's matcher removes through prune,
// array elements shifting the same way, and shares what it does not touch.
import { describe, expect, test } from "vitest";
import { compileIgnore, prune } from "../src/core/diff/index.js";
import { plainPointers, prunePointers } from "../src/core/diff/ignore.js";

const doc = {
  threadId: "t",
  origin: { format: "deepagent", version: "ai-v6", threadIdFrom: "file" },
  messages: [
    { role: "user", content: "a", ext: { x: 1 } },
    { role: "assistant", content: "b" },
    { role: "user", content: "c" },
  ],
  state: { files: { "/plan": { content: ["x"] }, "a~b": 1 }, todos: [] },
  "": { "": 2 },
};

describe("plain-pointer ignore rules", () => {
  const cases: string[][] = [
    ["/origin/threadIdFrom"],
    ["/origin/threadIdFrom", "/origin/version"],
    ["/origin", "/origin/version"],
    ["/messages/1"],
    ["/messages/0", "/messages/2/content", "/messages/0/ext"],
    ["/messages/07", "/messages/9"],
    ["/state/files/~1plan", "/state/files/a~0b"],
    ["/state/todos", "/nothing/here", "/threadId/deeper"],
  ];
  for (const globs of cases)
    test(globs.join(" "), () => {
      const trie = plainPointers(globs);
      expect(trie).toBeDefined();
      const want = prune(structuredClone(doc), compileIgnore(globs)!);
      expect(prunePointers(structuredClone(doc), trie!)).toStrictEqual(want);
    });

  test("globs with glob syntax, dots or an empty segment go through micromatch", () => {
    for (const g of ["/messages/*/timestamp", "/**/ext", "/{a,b}", "/a.b", "/a?", "/", "/a//b", "/origin/"])
      expect(plainPointers([g]), g).toBeUndefined();
    expect(plainPointers(["/origin/threadIdFrom", "/messages/*/usage"])).toBeUndefined();
    expect(plainPointers([])).toBeUndefined();
  });

  test("what is not removed is shared, not copied", () => {
    const out = prunePointers(doc, plainPointers(["/origin/threadIdFrom"])!) as typeof doc;
    expect(out).not.toBe(doc);
    expect(out.origin).toStrictEqual({ format: "deepagent", version: "ai-v6" });
    expect(out.messages).toBe(doc.messages);
    expect(out.state).toBe(doc.state);
    expect(doc.origin.threadIdFrom).toBe("file");
    expect(prunePointers(doc, plainPointers(["/nothing"])!)).toBe(doc);
  });
});
