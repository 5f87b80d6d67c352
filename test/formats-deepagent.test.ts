import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { modelMessageSchema } from "ai";
import { deepagentAdapter as a } from "../src/formats/deepagent.js";
import { getAdapter } from "../src/formats/index.js";
import { validators } from "../src/generated/validators.js";
import type { LossyNote } from "../src/formats/types.js";

const fixture = (p: string) => join(import.meta.dirname, "..", "fixtures", "deepagent", p);
const doc = (path: string) => ({ name: path, text: readFileSync(path, "utf8") });

describe("deepagent adapter", () => {
  it("writes FileSaver's exact bytes back for a checkpoint written by deep-agent itself", () => {
    const d = doc(fixture("valid/user_42_session_1.json"));
    const lossy: LossyNote[] = [];
    const out = a.serialize(a.fromCanonical(a.toCanonical(a.parse(d), d), { lossy }));
    expect("text" in out && out.text).toBe(d.text); // 2-space JSON, no trailing newline
    expect(lossy).toEqual([]);
  });

  it("maps every AI SDK v6 part and output to the canonical model and back, and the real modelMessageSchema accepts the result", () => {
    const d = doc(fixture("valid/all-model-message-variants.json"));
    const cp = a.toCanonical(a.parse(d), d);
    expect(validators.Checkpoint(cp)).toBe(true);
    const roles = cp.messages.map((m) => m.role);
    // the tool message with 7 parts becomes 6 toolResult messages + 1 carried approval response
    expect(roles.filter((r) => r === "toolResult").length).toBeGreaterThanOrEqual(5);
    const call = cp.messages
      .flatMap((m) => ("content" in m && Array.isArray(m.content) ? m.content : []))
      .find((c) => c.type === "toolCall" && c.id === "call_1");
    expect(call).toMatchObject({
      type: "toolCall",
      id: "call_1",
      name: "read_file",
      arguments: { file_path: "/a.md" },
    });
    const back = a.fromCanonical(cp, { lossy: [] });
    for (const m of back.messages) expect(modelMessageSchema.safeParse(m).success).toBe(true);
    expect(a.serialize(back)).toEqual({ text: d.text });
  });

  it("converts a yoagent history into messages the AI SDK accepts, reporting what deep-agent cannot hold", () => {
    const y = doc(join(import.meta.dirname, "..", "fixtures", "yoagent", "valid", "save_messages.v0.18.json"));
    const ya = getAdapter("yoagent");
    const cp = ya.toCanonical(ya.parse(y), y);
    const lossy: LossyNote[] = [];
    const out = a.fromCanonical(cp, { lossy });
    expect(validators["formats/deepagent/checkpoint"](out)).toBe(true);
    for (const m of out.messages) expect(modelMessageSchema.safeParse(m).success).toBe(true);
    // tool results grouped into role:"tool" messages with AI SDK outputs
    const tool = out.messages.find((m) => m.role === "tool") as {
      content: Array<{ type: string; output: { type: string } }>;
    };
    expect(tool.content[0]!.type).toBe("tool-result");
    expect(lossy.some((n) => n.field === "timestamp")).toBe(true);
    expect(lossy.some((n) => n.field === "usage")).toBe(true);
  });

  it("reports byte-object images as errors with a fix, and still recovers the bytes", () => {
    const d = doc(fixture("invalid/uint8array-image.json"));
    const n = a.parse(d);
    const issues = a.lint!(n, d);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      rule: "lint/deepagent-binary-object",
      pointer: "/messages/0/content/0/image",
      line: 10,
      column: 20,
    });
    expect(issues[0]!.message).toMatch(/base64/);
    const cp = a.toCanonical(n, d);
    // bytes 137 80 78 71 are "\x89PNG" → base64 "iVBORw=="
    expect((cp.messages[0] as { content: Array<{ data?: string }> }).content[0]!.data).toBe("iVBORw==");
  });

  it("detects deep-agent checkpoints but not canonical ckpt documents", () => {
    expect(a.detect(doc(fixture("valid/user_42_session_1.json"))).confidence).toBeGreaterThan(0.5);
    expect(a.detect(doc(join(import.meta.dirname, "..", "fixtures", "replay", "tools.ckpt.json"))).confidence).toBe(0);
  });
});
