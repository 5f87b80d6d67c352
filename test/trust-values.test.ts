/**
 * Issue #15 "Values: nothing changes silently" and "Messages people read" (items 4–9, 17–20, 22): each test here
 * was written against the old behaviour first and failed there.
 */
import { describe, expect, test, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

const F = join(import.meta.dirname, "..", "fixtures") + "/";
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-values-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ckpt <argv> in the test folder, with `stdin` on standard input. */
const run = (argv: string[], stdin = "") => runCli(argv, { cwd: dir, stdin });
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
  test.each(["phi-core-session", "swarmer"])(
    "yoagent usage beyond 2^53 → %s: totals computed exactly (no rounding, no crash)",
    async (to) => {
      const src = put(`yb-${to}.json`, yo);
      const r = await run(["convert", src, "-t", to, "--allow-lossy"]);
      expect(r.err).not.toContain("internal error");
      expect(r.code).toBe(0);
      expect(r.out).not.toContain("9007199254740992");
      // phi-core-session sums the assistant usage (input 2^53+1 alone); Swarmer's prompt tokens = input + cache, total = prompt + completion
      if (to === "phi-core-session") expect(r.out).toContain(`"input": ${BIG}`);
      else
        expect(r.out).toMatch(
          new RegExp(`"prompt_tokens": ${BIG},\\s*"completion_tokens": 2,\\s*"total_tokens": 9007199254740995`),
        );
    },
  );
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
    const c = await run([
      "convert",
      F + "yoagent/valid/save_messages.v0.18.json",
      "-t",
      "deepagent",
      "--allow-lossy",
      "-o",
      "thread.json",
    ]);
    expect(c.code).toBe(0);
    const v = await run(["validate", "--strict", "thread.json"]);
    expect(v.out).not.toContain("filesaver-id-collision");
    expect(v.code).toBe(0);
  });
  test("a saver URI's thread is not a file name", async () => {
    const db = join(dir, "ids.db");
    mkdirSync(join(dir, "ids-src"), { recursive: true });
    put("ids-src/user_2.json", {
      threadId: "user/2",
      step: 0,
      messages: [],
      state: { todos: [], files: {} },
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    expect((await run(["migrate", "--from", "file:" + join(dir, "ids-src"), "--to", "sqlite:" + db])).code).toBe(0);
    const v = await run(["validate", "--strict", `sqlite:${db}#user/2`]);
    expect(v.out).not.toContain("filesaver-id-collision");
    expect(v.code).toBe(0);
  });
  test("in a folder: a file FileSaver would not find by its thread id, and two ids that share a file name, are still reported", async () => {
    const cp = (id: string) => ({
      threadId: id,
      step: 0,
      messages: [],
      state: { todos: [], files: {} },
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    mkdirSync(join(dir, "fs"), { recursive: true });
    put("fs/a_b.json", cp("a/b"));
    put("fs/other.json", cp("a_b"));
    const v = await run(["validate", join(dir, "fs")]);
    expect(v.out).toContain("'a_b' is stored by FileSaver as 'a_b.json', not 'other.json'");
    expect(v.out).toMatch(/both sanitize to 'a_b\.json'/);
  });
});

describe("#15.19 an unknown tag is one message listing the valid ones, nearest first", () => {
  const yo = JSON.parse(readFileSync(F + "yoagent/valid/save_messages.v0.18.json", "utf8")) as Array<
    Record<string, unknown>
  >;
  test.each([
    ["yoagent", "/1/role", "assistant, user, toolResult", "or an extension message with 'kind' and 'data'"],
    ["phi-core", "/1/role", "assistant, user, toolResult", "or an extension message with 'kind' and 'data'"],
  ])('%s: "role": "assistent"', async (fmt, pointer, list, tail) => {
    const doc = yo.slice(0, 2).map((m) => ({ ...m }));
    doc[1]!.role = "assistent";
    if (fmt === "phi-core") {
      // the phi-core spelling of the same two messages
      for (const m of doc) delete m.providerMetadata;
    }
    const p = put(`tag-${fmt}.json`, JSON.stringify(doc));
    const r = await run(["validate", p, "--format", fmt, "--json"]);
    const issues = JSON.parse(r.out).files[0].issues as Array<{ pointer: string; message: string; rule: string }>;
    const at = issues.filter((i) => i.pointer.startsWith("/1"));
    expect(at).toHaveLength(1);
    expect(at[0]!.pointer).toBe(pointer);
    expect(at[0]!.message).toBe(`unknown role "assistent": expected one of ${list}, ${tail}`);
    expect(at[0]!.message).not.toContain("missing required property");
  });
  test("ckpt canonical, deepagent and Swarmer roles; a content block's type", async () => {
    const cases: Array<[string, unknown, string, string]> = [
      [
        "c.json",
        { schemaVersion: 1, threadId: "t", step: 0, messages: [{ role: "assistent", content: [] }], state: {} },
        "/messages/0/role",
        'unknown role "assistent": expected one of assistant, system, user, toolResult',
      ],
      [
        "d.json",
        {
          threadId: "t",
          step: 0,
          messages: [{ role: "assitant", content: "x" }],
          state: { todos: [], files: {} },
          createdAt: "2026-01-01T00:00:00.000Z",
          updatedAt: "2026-01-01T00:00:00.000Z",
        },
        "/messages/0/role",
        'unknown role "assitant": expected one of assistant, system, user, tool',
      ],
      [
        "agent_1.pkl",
        {
          identity: { name: "a", id: "1" },
          token_budget: 10,
          model: "m",
          token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          message_log: [{ role: "tol", content: "x" }],
          contexts: {},
        },
        "/message_log/0/role",
        'unknown role "tol": expected one of tool, user, system, function, assistant',
      ],
      [
        "t.json",
        [{ role: "user", content: [{ type: "txt", text: "hi" }], timestamp: 1 }],
        "/0/content/0/type",
        'unknown type "txt": expected one of text, image, thinking, toolCall',
      ],
    ];
    for (const [name, body, pointer, message] of cases) {
      const r = await run(["validate", put(name, body), "--json"]);
      const issues = JSON.parse(r.out).files[0].issues as Array<{ pointer: string; message: string }>;
      const errs = issues.filter((i) => i.pointer.startsWith(pointer.replace(/\/(role|type)$/, "")));
      expect(
        errs.map((i) => [i.pointer, i.message]),
        name,
      ).toEqual([[pointer, message]]);
    }
  });
  test("convert names the same problem in the same words", async () => {
    const doc = yo.slice(0, 2).map((m) => ({ ...m }));
    doc[1]!.role = "assistent";
    const r = await run(["convert", put("tag-conv.json", JSON.stringify(doc)), "-t", "ckpt"]);
    expect(r.code).toBe(3);
    expect(r.err).toContain('unknown role "assistent": expected one of assistant, user, toolResult');
  });
});

test("#15.19 the tag lists (schema/tags.ts) name only values the schemas themselves accept", async () => {
  const { TAGS } = await import("../src/schema/tags.js");
  const { schemaIndex } = await import("../src/generated/schema-index.js");
  const root = join(import.meta.dirname, "..");
  for (const [name, set] of Object.entries(TAGS)) {
    const info = schemaIndex.find((s) => s.name === name);
    expect(info, name).toBeDefined();
    // the schema file and the files it refers to
    const files = name.startsWith("formats/") ? [info!.file] : ["schemas/Message.json", "schemas/Content.json"];
    for (const m of readFileSync(join(root, info!.file), "utf8").matchAll(/"\$ref": "([^#"]+\.json)/g))
      files.push(join(info!.file, "..", m[1]!));
    const seen = { role: new Set<unknown>(), type: new Set<unknown>() };
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) {
        x.forEach(walk);
        return;
      }
      if (!x || typeof x !== "object") return;
      const props = (x as { properties?: Record<string, { const?: unknown; enum?: unknown[] }> }).properties;
      for (const k of ["role", "type"] as const) {
        const p = props?.[k];
        if (p?.const !== undefined) seen[k].add(p.const);
        for (const v of p?.enum ?? []) seen[k].add(v);
      }
      Object.values(x).forEach(walk);
    };
    for (const f of files) walk(JSON.parse(readFileSync(join(root, f), "utf8")));
    for (const k of ["role", "type"] as const)
      for (const v of set[k]) expect(seen[k].has(v), `${name} ${k} ${v}`).toBe(true);
  }
});

describe("#15.20 version gates match the versions; unknown versions are refused", () => {
  const V18 = F + "yoagent/valid/save_messages.v0.18.json"; // message 8 stops with 'refusal' (added in yoagent 0.9)
  const lossyOf = async (version: string) => {
    const r = await run([
      "convert",
      V18,
      "-t",
      "yoagent",
      "--format-version",
      version,
      "--allow-lossy",
      "--dry-run",
      "--json",
    ]);
    expect(r.code).toBe(0);
    return (JSON.parse(r.out).lossy as Array<{ pointer: string; reason: string }>).map((n) => n.pointer);
  };
  test("0.12 reads 'refusal' (≥ 0.9): not reported; 0.8 does not: reported", async () => {
    expect(await lossyOf("0.12")).not.toContain("/messages/8/stopReason");
    expect(await lossyOf("0.8")).toContain("/messages/8/stopReason");
  });
  test("0.7 has no provider_metadata (added in 0.8): the tool call's providerMetadata is reported", async () => {
    expect(await lossyOf("0.7")).toContain("/messages/1/content/3/providerMetadata");
    expect(await lossyOf("0.8")).not.toContain("/messages/1/content/3/providerMetadata");
  });
  test.each([
    ["yoagent", "9.9"],
    ["yoagent", "0.19"],
    ["yoagent-session", "0.10"],
    ["swarmer", "2"],
    ["deepagent", "ai-v5"],
    ["amacs", "v5"],
  ])("%s --format-version %s is a usage error naming the versions ckpt knows", async (to, version) => {
    const r = await run(["convert", V18, "-t", to, "--format-version", version, "--allow-lossy", "--dry-run"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(version);
  });
});

describe("#15.22 messages people read", () => {
  test("show prints a failed assistant turn with its stop reason and error message", async () => {
    const msgs = JSON.parse(readFileSync(F + "yoagent/valid/save_messages.v0.18.json", "utf8")) as Array<
      Record<string, unknown>
    >;
    const failed = msgs.find((m) => m.role === "assistant" && m.stopReason === "error")!;
    const r = await run(["show", F + "yoagent/valid/save_messages.v0.18.json"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`[stopped: error] ${String(failed.errorMessage)}`);
    expect(r.out).toContain("[stopped: refusal]");
  });
  test("plurals: one message, one line", async () => {
    const one = put("one.json", [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1767225600000 }]);
    const s = await run(["show", one]);
    expect(s.out).toContain(", 1 message");
    expect(s.out).not.toContain("1 messages");
    const c = await run(["convert", one, "-t", "ckpt", "-o", join(dir, "one.ckpt.json")]);
    expect(c.err).not.toContain("1 messages");
    expect(c.err).toContain("1 message)");
  });
});
