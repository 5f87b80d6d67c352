/**
 * #38 item 13: a diff across AI SDK majors — a v4 chat against its own v6 conversion — compares what the user sees.
 * The chats are ai@4's own (its functions with mock models, test/peers/scripts/ai-sdk.mjs), each message spelled with
 * its keys in another order as an app's database row gives them back, so that ckpt keeps AI SDK 4's original message
 * as bookkeeping (ext.ai-sdk.v4) to write it back byte for byte. What the user sees is taken from the real majors: the
 * model messages ai@4's convertToCoreMessages makes of the v4 chat and ai@6's convertToModelMessages of the v6 one are
 * the same (representation aside: helpers/ai-sdk-model.ts), so the diff must say "Identical"; `--verbose` shows the
 * bookkeeping; a real change — a text, a tool call's state — is still reported.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertDocument } from "../src/core/convert.js";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";
import { normalize } from "./helpers/ai-sdk-model.js";

type Msg = Record<string, unknown>;
const CHATS = ["text", "tools", "tool-error", "reasoning", "file", "metadata"] as const;
let dir: string;
let v4: Msg[];
let v6: Msg[];
let models: unknown[][];

const write = (name: string, chat: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(chat, null, 2));
  return file;
};
const diff = (...args: string[]) => runCli(["diff", ...args], { cwd: dir });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-diff-majors-"));
  const written = (
    await runPeer<Record<string, Record<string, Msg[]>>>("scripts/ai-sdk.mjs", { op: "write", majors: [4] })
  ).out["4"]!;
  // one long chat of every ai@4 chat, ids kept apart, each message's keys in reverse order
  v4 = CHATS.flatMap((c) =>
    written[c]!.map((m) => Object.fromEntries(Object.entries({ ...m, id: `${c}-${String(m.id)}` }).reverse())),
  );
  const r = convertDocument(
    { name: "chat.json", text: JSON.stringify(v4) },
    { from: "ai-sdk@4", to: "ai-sdk", version: "6" },
  );
  expect(r.lossLog.length).toBe(0);
  v6 = JSON.parse((r.output as { text: string }).text);
  const checked = (
    await runPeer<Array<{ ok: boolean; model?: unknown[] }>>("scripts/ai-sdk.mjs", {
      op: "check",
      items: [
        { major: 4, messages: v4 },
        { major: 6, messages: v6 },
      ],
    })
  ).out;
  expect(checked.map((c) => c.ok)).toEqual([true, true]);
  models = checked.map((c) => normalize(c.model!));
  return () => rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe("diff of an AI SDK 4 chat and its AI SDK 6 conversion", () => {
  it("the real majors give the model the same messages: the diff says Identical, naming what it left out", async () => {
    expect(v4.length).toBeGreaterThanOrEqual(12);
    expect(models[1]).toEqual(models[0]);
    const a = write("chat-v4.json", v4);
    const b = write("chat-v6.json", v6);
    const r = await diff(a, b);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/^Identical\.$/m);
    expect(r.out).toMatch(
      /^note: versions differ \(ai-sdk 4 vs [567]\): .*ext\/ai-sdk\/v4.*\(--verbose compares them\)$/m,
    );
    const json = JSON.parse((await diff(a, b, "--json")).out);
    expect(json.identical).toBe(true);
  });

  it("--verbose compares the bookkeeping: AI SDK 4's original messages, and nothing else", async () => {
    const r = await diff(write("v-v4.json", v4), write("v-v6.json", v6), "--verbose", "--json");
    expect(r.code).toBe(1);
    const changes = JSON.parse(r.out).changes as Array<{ pointer?: string; fields?: Array<{ pointer: string }> }>;
    const paths = changes.flatMap((c) => (c.fields ? c.fields.map((f) => f.pointer) : [String(c.pointer)]));
    // each v4 message's original spelling, and the version
    expect(paths.filter((p) => /^\/messages\/\d+\/ext\/ai-sdk\/v4$/.test(p)).length).toBe(v4.length);
    expect(paths.filter((p) => !/^\/messages\/\d+\/ext\/ai-sdk\/v4$/.test(p))).toEqual(["/origin/version"]);
  });

  it("a real change is still reported across majors: a text, a tool call's state (an ext value that is content)", async () => {
    const a = write("r-v4.json", v4);
    const edited = structuredClone(v6);
    const text = edited.flatMap((m) => m.parts as Msg[]).find((p) => p.type === "text")!;
    text.text = `${String(text.text)} (edited)`;
    const r = await diff(a, write("r-v6-text.json", edited), "--json");
    expect(r.code).toBe(1);
    expect(r.out).toContain("(edited)");
    expect(r.out).not.toMatch(/ext\/ai-sdk\/v4"/);

    const pending = structuredClone(v6);
    const tool = pending.flatMap((m) => m.parts as Msg[]).find((p) => p.state === "output-available")!;
    tool.state = "input-available";
    delete tool.output;
    const s = await diff(a, write("r-v6-state.json", pending), "--json");
    expect(s.code).toBe(1);
    expect(s.out).toMatch(/"\/messages\/\d+\/content\/\d+\/ext\/ai-sdk\/state"/);
  });
});
