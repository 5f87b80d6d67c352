/**
 * #30 item 3: AI SDK chats across majors. For chats each major's own functions wrote (mock models): read and written
 * back as the same major they are byte for byte what they were; converted to every other major (each single step,
 * forward and back, and the chains 4 → 5 → 6 → 7 and 7 → 6 → 5 → 4) the target major's validator accepts the result,
 * `--allow-lossy` is needed exactly when something is reported lost, and where nothing is lost the target major's
 * model messages (`convertToModelMessages`; v4 `convertToCoreMessages`) equal the source major's for the source chat.
 *
 * The one normalisation (`normalize`): ai@4's CoreMessage spells what ai@5+'s ModelMessage spells otherwise, which
 * the providers of each major send identically — a tool call's `args` (`input`), a tool result's raw `result`
 * (`output: {type: "text" | "json", value}`, as ai@5+'s createToolModelOutput wraps it), a string content (one text
 * part), an image attachment read into bytes (`image: Uint8Array`, JSON-serialised as an index object) where ai@5+
 * keeps the data URL (`file` with its media type and file name; ai@7 as `data: {type: "url", url}`): both compared as
 * the bytes they hold.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertDocument } from "../src/core/convert.js";
import { schemaIssues } from "../src/schema/validate.js";
import { aiSdkAdapter } from "../src/formats/ai-sdk.js";
import { runCli } from "./helpers/cli-io.js";
import { runPeer } from "./helpers/peers.js";
import { normalize } from "./helpers/ai-sdk-model.js";

type Chat = unknown[];
type Written = Record<string, Record<string, Chat>>;
interface Verdict {
  ok: boolean;
  error?: string;
  model?: unknown[];
}
const MAJORS = ["4", "5", "6", "7"] as const;
const CHATS = ["text", "tools", "tool-error", "reasoning", "file", "metadata"] as const;

let written: Written;
let dir: string;
interface Case {
  from: string;
  to: string;
  chat: string;
  messages: unknown[];
  lossy: number;
}
let cases: Case[];
let chains: Array<{ path: string[]; chat: string; messages: unknown[]; lossy: number }>;
let sourceVerdicts: Map<string, Verdict>;
let targetVerdicts: Verdict[];
let chainVerdicts: Verdict[];

/** ckpt convert, in process: the converted chat and the number of loss notes. */
function convert(messages: unknown, from: string, to: string): { messages: unknown[]; lossy: number } {
  const r = convertDocument(
    { name: "chat.json", text: JSON.stringify(messages) },
    { from: `ai-sdk@${from}`, to: "ai-sdk", version: to },
  );
  return { messages: JSON.parse((r.output as { text: string }).text), lossy: r.lossLog.length };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-ai-sdk-"));
  written = (await runPeer<Written>("scripts/ai-sdk.mjs", { op: "write", majors: [4, 5, 6, 7] })).out;
  cases = [];
  for (const from of MAJORS)
    for (const to of MAJORS)
      if (from !== to)
        for (const chat of CHATS) cases.push({ from, to, chat, ...convert(written[from]![chat]!, from, to) });
  chains = [];
  for (const path of [
    ["4", "5", "6", "7"],
    ["7", "6", "5", "4"],
  ]) {
    for (const chat of CHATS) {
      let messages = written[path[0]!]![chat]!;
      let lossy = 0;
      for (let k = 1; k < path.length; k++) {
        const r = convert(messages, path[k - 1]!, path[k]!);
        messages = r.messages;
        lossy += r.lossy;
      }
      chains.push({ path, chat, messages, lossy });
    }
  }
  const sources = MAJORS.flatMap((m) => CHATS.map((chat) => ({ major: Number(m), messages: written[m]![chat]! })));
  const items = [
    ...sources,
    ...cases.map((c) => ({ major: Number(c.to), messages: c.messages })),
    ...chains.map((c) => ({ major: Number(c.path.at(-1)), messages: c.messages })),
  ];
  const out = (await runPeer<Verdict[]>("scripts/ai-sdk.mjs", { op: "check", items })).out;
  sourceVerdicts = new Map(sources.map((s, i) => [`${s.major}/${CHATS[i % CHATS.length]}`, out[i]!]));
  targetVerdicts = out.slice(sources.length, sources.length + cases.length);
  chainVerdicts = out.slice(sources.length + cases.length);
  return () => rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe("AI SDK chats across majors", () => {
  it("reads and writes back every major's chats byte for byte, through a valid canonical checkpoint", () => {
    for (const major of MAJORS) {
      for (const chat of CHATS) {
        const text = JSON.stringify(written[major]![chat], null, 2);
        const native = aiSdkAdapter.parse({ name: "c.json", text, formatVersion: major });
        const cp = aiSdkAdapter.toCanonical(native, { name: "c.json" });
        expect(schemaIssues("Checkpoint", cp, "c.json"), `${major} ${chat}`).toEqual([]);
        const notes: unknown[] = [];
        const back = aiSdkAdapter.fromCanonical(cp, { lossy: notes as never });
        expect(notes, `${major} ${chat}`).toEqual([]);
        expect((aiSdkAdapter.serialize(back) as { text: string }).text, `${major} ${chat}`).toBe(text);
      }
    }
  });

  it("every single step, forward and back: the target validates it; no loss → the same model messages", () => {
    let lossless = 0;
    cases.forEach((c, i) => {
      const v = targetVerdicts[i]!;
      const what = `${c.chat} ${c.from} → ${c.to}`;
      expect(v.ok, `${what}: ${v.error}`).toBe(true);
      if (c.lossy > 0) return;
      lossless++;
      const source = sourceVerdicts.get(`${c.from}/${c.chat}`)!;
      expect(normalize(v.model!), what).toEqual(normalize(source.model!));
    });
    // forward steps lose nothing on these chats
    for (const c of cases.filter((x) => x.to > x.from)) expect(c.lossy, `${c.chat} ${c.from} → ${c.to}`).toBe(0);
    expect(lossless).toBeGreaterThan(cases.length / 2);
  });

  it("the chains 4 → 5 → 6 → 7 and 7 → 6 → 5 → 4", () => {
    chains.forEach((c, i) => {
      const v = chainVerdicts[i]!;
      const what = `${c.chat} ${c.path.join(" → ")}`;
      expect(v.ok, `${what}: ${v.error}`).toBe(true);
      if (c.path[0] === "4") expect(c.lossy, what).toBe(0);
      if (c.lossy === 0)
        expect(normalize(v.model!), what).toEqual(normalize(sourceVerdicts.get(`${c.path[0]}/${c.chat}`)!.model!));
    });
  });

  it("ckpt convert --to-format ai-sdk@N (and --ai-sdk-version N) needs --allow-lossy exactly when something is lost", async () => {
    const run = (argv: string[]) => runCli(argv, { cwd: dir });
    const some = cases.filter((x) => x.chat === "metadata" || x.chat === "tool-error");
    // both answers are asked: lossless steps (forward) and lossy ones (back to 4: no metadata, no failed tools)
    expect(some.some((c) => c.lossy > 0) && some.some((c) => c.lossy === 0)).toBe(true);
    for (const c of some) {
      const src = join(dir, `${c.chat}-${c.from}.json`);
      writeFileSync(src, JSON.stringify(written[c.from]![c.chat]));
      const outFile = join(dir, `${c.chat}-${c.from}-to-${c.to}.json`);
      const spelled =
        c.to === "6" ? ["--to-format", "ai-sdk", "--ai-sdk-version", "6"] : ["--to-format", `ai-sdk@${c.to}`];
      const r = await run(["convert", src, ...spelled, "-o", outFile]);
      expect(r.code, `${c.chat} ${c.from} → ${c.to}: ${r.err}`).toBe(c.lossy > 0 ? 1 : 0);
      // the summary names the major written (#38 item 12: it said `→ ai-sdk`)
      const head = new RegExp(`\\(ai-sdk \\d → ai-sdk ${c.to}[,)]|converting ai-sdk \\d → ai-sdk ${c.to} would drop`);
      expect(r.err).toMatch(head);
      if (c.lossy > 0) {
        expect(r.err).toMatch(/--allow-lossy/);
        const again = await run(["convert", src, ...spelled, "-o", outFile, "--allow-lossy"]);
        expect(again.code, again.err).toBe(0);
        expect(again.err).toMatch(head);
      }
      expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual(c.messages);
    }
  });
});
