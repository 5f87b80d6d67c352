/**
 * Issue #15 "Values: nothing changes silently" and "Messages people read" (items 4–9, 17–20, 22): each test here
 * was written against the old behaviour first and failed there.
 */
import { describe, expect, test, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

const F = join(import.meta.dirname, "..", "fixtures") + "/";
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-values-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], stdin = "") {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: { write: (c: string) => (out += c) },
    stderr: { write: (c: string) => (err += c) },
    stdin: Readable.from([Buffer.from(stdin)]),
    env: { NO_COLOR: "1" },
    cwd: dir,
  };
  const code = await main(argv, io);
  return { code, out, err };
}
const put = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body, null, 2));
  return p;
};

const BIG = "9007199254740993"; // 2^53 + 1: JSON.parse reads it as 9007199254740992

describe("#15.4 integers beyond 2^53 stay exact", () => {
  const deep = `{"threadId":"t1","step":${BIG},"messages":[{"role":"user","content":"hi"}],"state":{"todos":[],"files":{}},"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}`;
  test("convert to ckpt keeps the step digit for digit; show --json and ls print it", async () => {
    const src = put("st.json", deep);
    const c = await run(["convert", src, "-t", "ckpt"]);
    expect(c.code).toBe(0);
    expect(c.out).toContain(`"step": ${BIG}`);
    const s = await run(["show", src, "--json"]);
    expect(s.code).toBe(0);
    expect(s.out).toContain(`"step": ${BIG}`);
    mkdirSync(join(dir, "store"), { recursive: true });
    copyFileSync(src, join(dir, "store", "t1.json"));
    const l = await run(["ls", "file:" + join(dir, "store"), "--json"]);
    expect(l.code).toBe(0);
    expect(l.out).toContain(`"step": ${BIG}`);
    const lt = await run(["ls", "file:" + join(dir, "store")]);
    expect(lt.out).toContain(BIG);
  });
  test("convert to deepagent: deep-agent's loader (JSON.parse) cannot hold it — reported as lossy, written exactly with --allow-lossy", async () => {
    const src = put("st2.json", deep);
    const refused = await run(["convert", src, "-t", "deepagent", "-o", join(dir, "st2.out.json")]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("/step");
    expect(refused.err).toContain("9007199254740992"); // what JSON.parse makes of it
    const ok = await run(["convert", src, "-t", "deepagent", "--allow-lossy", "-o", join(dir, "st2.out.json")]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(dir, "st2.out.json"), "utf8")).toContain(`"step": ${BIG}`);
    // and diff sees a real difference between 2^53+1 and 2^53+3
    put("st3.json", deep.replace(BIG, "9007199254740995"));
    const d = await run(["diff", src, join(dir, "st3.json")]);
    expect(d.code).toBe(1);
    expect(d.out).toContain("9007199254740995");
  });
  const yo = `[{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1767225600000},{"role":"assistant","content":[{"type":"text","text":"yo"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":${BIG},"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":9007199254740995},"timestamp":1767225601000}]`;
  test.each(["phi-core-session", "swarmer"])("yoagent usage beyond 2^53 → %s: totals computed exactly (no rounding, no crash)", async (to) => {
    const src = put(`yb-${to}.json`, yo);
    const r = await run(["convert", src, "-t", to, "--allow-lossy"]);
    expect(r.err).not.toContain("internal error");
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("9007199254740992");
    // phi-core-session sums the assistant usage (input 2^53+1 alone); Swarmer's prompt tokens = input + cache, total = prompt + completion
    if (to === "phi-core-session") expect(r.out).toContain(`"input": ${BIG}`);
    else expect(r.out).toMatch(new RegExp(`"prompt_tokens": ${BIG},\\s*"completion_tokens": 2,\\s*"total_tokens": 9007199254740995`));
  });
});

describe("#15.5 envelope times come from the messages when the source has none", () => {
  test.each([
    ["yoagent", "yoagent/valid/save_messages.v0.18.json"],
    ["phi-core", "phi-core/valid/save_messages.v0.10.json"],
  ])("%s → deepagent: createdAt is the first message's time, updatedAt the last one's", async (_f, file) => {
    const msgs = JSON.parse(readFileSync(F + file, "utf8")) as Array<{ timestamp?: number }>;
    const ts = msgs.map((m) => m.timestamp).filter((t): t is number => typeof t === "number");
    const r = await run(["convert", F + file, "-t", "deepagent", "--allow-lossy"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.createdAt).toBe(new Date(Math.min(...ts)).toISOString());
    expect(out.updatedAt).toBe(new Date(Math.max(...ts)).toISOString());
    expect(out.createdAt.startsWith("2026")).toBe(true);
  });
});

describe("#15.8 lint/filesaver-id-collision only where a FileSaver folder is involved", () => {
  test("the README's convert -o thread.json && validate --strict thread.json passes", async () => {
    const c = await run(["convert", F + "yoagent/valid/save_messages.v0.18.json", "-t", "deepagent", "--allow-lossy", "-o", "thread.json"]);
    expect(c.code).toBe(0);
    const v = await run(["validate", "--strict", "thread.json"]);
    expect(v.out).not.toContain("filesaver-id-collision");
    expect(v.code).toBe(0);
  });
  test("a saver URI's thread is not a file name", async () => {
    const db = join(dir, "ids.db");
    mkdirSync(join(dir, "ids-src"), { recursive: true });
    put("ids-src/user_2.json", { threadId: "user/2", step: 0, messages: [], state: { todos: [], files: {} }, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" });
    expect((await run(["migrate", "--from", "file:" + join(dir, "ids-src"), "--to", "sqlite:" + db])).code).toBe(0);
    const v = await run(["validate", "--strict", `sqlite:${db}#user/2`]);
    expect(v.out).not.toContain("filesaver-id-collision");
    expect(v.code).toBe(0);
  });
  test("in a folder: a file FileSaver would not find by its thread id, and two ids that share a file name, are still reported", async () => {
    const cp = (id: string) => ({ threadId: id, step: 0, messages: [], state: { todos: [], files: {} }, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" });
    mkdirSync(join(dir, "fs"), { recursive: true });
    put("fs/a_b.json", cp("a/b"));
    put("fs/other.json", cp("a_b"));
    const v = await run(["validate", join(dir, "fs")]);
    expect(v.out).toContain("'a_b' is stored by FileSaver as 'a_b.json', not 'other.json'");
    expect(v.out).toMatch(/both sanitize to 'a_b\.json'/);
  });
});
