import { describe, expect, it } from "vitest";
import { readFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { swarmerAdapter as a } from "../src/formats/swarmer.js";
import { getAdapter } from "../src/formats/index.js";
import { validators } from "../src/generated/validators.js";
import type { LossyNote } from "../src/formats/types.js";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

const fixture = (p: string) => join(import.meta.dirname, "..", "fixtures", p);
const doc = (p: string) => ({ name: p, text: readFileSync(p, "utf8") });

describe("swarmer adapter", () => {
  const d = doc(fixture("swarmer/valid/agent_123456789.pkl"));

  it("maps the OpenAI-style log: JSON-string arguments parsed, tool errors flagged, contexts kept", () => {
    const cp = a.toCanonical(a.parse(d), d);
    expect(validators.Checkpoint(cp)).toBe(true);
    expect(cp.threadId).toBe("3f1c2b9e-8a47-4d2a-9a51-2f6f0d0c7e11");
    expect(cp.messages[1]).toMatchObject({
      role: "assistant",
      model: "gpt-4",
      content: [
        {
          type: "toolCall",
          id: "call_Jx8b2kQ1",
          name: "add_memory",
          arguments: { content: "User likes green tea", importance: 6 },
        },
      ],
    });
    expect(cp.messages[2]).toMatchObject({
      role: "toolResult",
      toolCallId: "call_Jx8b2kQ1",
      toolName: "add_memory",
      isError: false,
    });
    expect(cp.messages[6]).toMatchObject({ role: "toolResult", toolName: "create_persona", isError: true });
    expect(Object.keys(cp.state.contexts as object)).toEqual([
      "PersonaContext",
      "MemoryContext",
      "TimeContext",
      "CryptoContext",
      "DebugContext",
      "SearchContext",
    ]);
  });

  it("writes back exactly what Python's json.dump(indent=2) wrote", () => {
    const lossy: LossyNote[] = [];
    const out = a.serialize(a.fromCanonical(a.toCanonical(a.parse(d), d), { lossy }));
    expect(out).toEqual({ text: d.text });
    expect(lossy).toEqual([]);
  });

  it("escapes non-ASCII like ensure_ascii and writes tool arguments with Python's separators when converting in", () => {
    const y = doc(fixture("yoagent/valid/save_messages.v0.18.json"));
    const ya = getAdapter("yoagent");
    const cp = ya.toCanonical(ya.parse(y), y);
    cp.messages.push({ role: "user", content: [{ type: "text", text: "café ☕" }] });
    const lossy: LossyNote[] = [];
    const native = a.fromCanonical(cp, { lossy });
    expect(validators["formats/swarmer/agent-state"](native)).toBe(true);
    const text = (a.serialize(native) as { text: string }).text;
    expect(text).toContain('"content": "caf\\u00e9 \\u2615"');
    const call = native.message_log.find((m) => Array.isArray(m.tool_calls)) as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(call.tool_calls[0]!.function.arguments).toMatch(/^\{"[a-z_]+": /); // json.dumps: ", " and ": "
    expect(lossy.some((n) => n.field === "timestamp")).toBe(true);
    expect(lossy.some((n) => n.field === "image")).toBe(true);
  });

  it("a file cut short mid-write is recognised and reported with its position (exit 3)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-swarmer-"));
    const cut = join(dir, "agent_1.pkl");
    writeFileSync(
      cut,
      d.text.slice(0, d.text.indexOf('"ToolCreationContext') > 0 ? d.text.indexOf('"ToolCreationContext') : 1500),
    );
    expect(a.detect(doc(cut)).confidence).toBeGreaterThan(0.5);
    let err = "";
    const io: CliIO = {
      stdout: { write: (s: string) => ((err += s), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      stdin: Readable.from([]),
      env: { NO_COLOR: "1" },
      cwd: process.cwd(),
    };
    expect(await main(["validate", cut], io)).toBe(3);
    expect(err).toMatch(/agent_1\.pkl:\d+:\d+: .*Swarmer file cut short mid-write/);
  });
});
