/**
 * #38 item 12: `ckpt show` of an AI SDK tool call whose approval was denied prints the denial's reason — what the AI
 * SDK itself hands the model in the call's place. Expected values come from the real majors: ai@6 and ai@7's
 * convertToModelMessages turn an output-denied part into an error-text tool result whose value is the reason.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";

const chat = (part: Record<string, unknown>) => [
  { id: "u1", role: "user", parts: [{ type: "text", text: "Delete the old logs" }] },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "tool-deleteFiles", toolCallId: "call_1", input: { glob: "logs/*.log" }, ...part },
      { type: "text", text: "I did not delete them." },
    ],
  },
];
const REASON = "logs are kept for the audit: ask #ops";
const chats = {
  denied: chat({ state: "output-denied", approval: { id: "ap1", approved: false, reason: REASON } }),
  "denied-no-reason": chat({ state: "output-denied", approval: { id: "ap1", approved: false } }),
  responded: chat({ state: "approval-responded", approval: { id: "ap1", approved: false, reason: REASON } }),
  approved: chat({ state: "approval-responded", approval: { id: "ap1", approved: true, reason: "fine" } }),
};

interface Verdict {
  ok: boolean;
  model?: Array<{ role: string; content: Array<{ type: string; toolCallId?: string; output?: { value?: unknown } }> }>;
}
let dir: string;
/** what each major gives the model as call_1's result, per chat */
const results = new Map<string, unknown>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-denial-"));
  for (const [name, messages] of Object.entries(chats))
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(messages));
  const items = (["6", "7"] as const).flatMap((major) =>
    Object.entries(chats).map(([name, messages]) => ({ major: Number(major), name, messages })),
  );
  const { out } = await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
    op: "check",
    items: items.map(({ major, messages }) => ({ major, messages })),
  });
  out.forEach((v, i) => {
    expect(v.ok, `${items[i]!.name} @${items[i]!.major}`).toBe(true);
    const result = v
      .model!.flatMap((m) => m.content)
      .find((c) => c.type === "tool-result" && c.toolCallId === "call_1");
    results.set(`${items[i]!.name}@${items[i]!.major}`, result?.output?.value);
  });
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const callLine = async (name: string, major: string) => {
  const r = await runCli(["show", join(dir, `${name}.json`), "--format", `ai-sdk@${major}`], { cwd: dir });
  expect(r.code, r.err).toBe(0);
  return r.out.split("\n").find((l) => l.includes("[call_1]"))!;
};

describe("show of a denied AI SDK tool approval", () => {
  for (const major of ["6", "7"]) {
    it(`ai@${major} output-denied: the line gives the reason, the tool result the AI SDK makes of it`, async () => {
      const told = results.get(`denied@${major}`);
      expect(told).toBe(REASON);
      expect(await callLine("denied", major)).toMatch(
        new RegExp(`\\[call_1\\] output-denied: ${told!.toString().replace(/[.*+?^${}()|[\]\\#]/g, "\\$&")}$`),
      );
    });

    it(`ai@${major} output-denied without a reason: said so (the AI SDK sends its default text)`, async () => {
      expect(results.get(`denied-no-reason@${major}`)).toBe("Tool call execution denied.");
      expect(await callLine("denied-no-reason", major)).toMatch(/\[call_1\] output-denied \(no reason given\)$/);
    });

    it(`ai@${major} approval-responded, denied: the reason, marked denied; an approval prints none`, async () => {
      expect(await callLine("responded", major)).toMatch(/\[call_1\] approval-responded, denied: logs are kept/);
      expect(await callLine("approved", major)).toMatch(/\[call_1\] approval-responded$/);
    });
  }
});
