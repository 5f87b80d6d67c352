/**
 * The validation engine below the CLI: ajv errors pruned to the branch the user meant, plain-words
 * expectations, positions; the integer and FileSaver lints. Expected values worked out by hand from the
 * inputs and schemas/ (e.g. ToolResultMessage requires toolCallId, toolName, content, isError).
 */
import { describe, expect, test } from "vitest";
import { schemaIssues } from "../src/schema/validate.js";
import { jsonLocator, lineIndex, pathToPointer } from "../src/base/json.js";
import { fileSaverLint, fileSaverStem, nativeLint } from "../src/schema/lint.js";
import { parseJson } from "../src/base/json.js";
import { validateDocument } from "../src/core/document.js";
import type { Issue } from "../src/formats/types.js";
import { adapters, type FormatName } from "../src/formats/index.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const cp = (messages: unknown[]) => ({ schemaVersion: 1, threadId: "t", step: 1, messages, state: {} });
const brief = (is: Issue[]) => is.map((i) => `${i.rule} ${i.pointer} ${i.message}`);

describe("oneOf pruning", () => {
  test("a toolResult missing fields: that branch's required errors, not the extension-message branch's", () => {
    const is = schemaIssues("Checkpoint", cp([{ role: "toolResult", toolCallId: "x", content: [] }]), "f");
    expect(brief(is)).toEqual([
      "schema/required /messages/0 missing required property 'toolName'",
      "schema/required /messages/0 missing required property 'isError'",
    ]);
  });
  test("a toolCall block missing fields, a text block with a number, an unknown block type, a string block", () => {
    const is = schemaIssues(
      "Checkpoint",
      cp([
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "x" }, { type: "text", text: 1 }, { type: "bogus" }, "s"],
        },
      ]),
      "f",
    );
    expect(brief(is)).toEqual([
      "schema/required /messages/0/content/0 missing required property 'name'",
      "schema/required /messages/0/content/0 missing required property 'arguments'",
      "schema/type /messages/0/content/1/text expected a string",
      'schema/discriminator /messages/0/content/2/type unknown type "bogus": expected one of text, image, file, toolCall, thinking',
      "schema/type /messages/0/content/3 expected an object",
    ]);
  });
  test("an unknown role names the tag", () => {
    const is = schemaIssues("Checkpoint", cp([{ role: "usr", content: [] }]), "f");
    expect(brief(is)).toEqual([
      'schema/discriminator /messages/0/role unknown role "usr": expected one of user, system, assistant, toolResult',
    ]);
  });
  test("enum expectations list the allowed values in plain words", () => {
    const [i] = schemaIssues("Checkpoint", cp([{ role: "assistant", content: [], stopReason: "done" }]), "f");
    expect(i).toMatchObject({ rule: "schema/enum", pointer: "/messages/0/stopReason" });
    expect(i!.expected).toMatch(/^one of stop, length, toolUse, error, aborted, refusal/);
  });
  test("positions come from the locator", () => {
    const text = '{"schemaVersion": 1, "threadId": "t", "step": -1, "messages": [], "state": {}}';
    const loc = jsonLocator(text);
    const [i] = schemaIssues("Checkpoint", parseJson(text), "f.json", (p) => loc.locate(p));
    expect(i).toMatchObject({ rule: "schema/minimum", pointer: "/step", line: 1, column: text.indexOf("-1") + 1 });
  });
});

describe("locator", () => {
  test("line index by binary search", () => {
    const at = lineIndex("ab\ncd\n\nx");
    expect(at(0)).toEqual({ line: 1, column: 1 });
    expect(at(4)).toEqual({ line: 2, column: 2 });
    expect(at(6)).toEqual({ line: 3, column: 1 });
    expect(at(7)).toEqual({ line: 4, column: 1 });
  });
  test("pointer to value; last duplicate key wins as in JSON.parse; missing → nearest ancestor", () => {
    const text = '{\n  "a": [10, {"b": 1, "b": 2}]\n}';
    const loc = jsonLocator(text);
    expect(loc.locate("/a/1/b")).toEqual({ line: 2, column: 27, offset: 28 }); // the "2" of the second "b"
    expect(loc.locate("/a/0")).toEqual({ line: 2, column: 9, offset: 10 });
    expect(loc.locate("/a/5")).toEqual({ line: 2, column: 8, offset: 9 });
  });
  test("strings with escaped quotes, brackets and escaped keys are skipped, not entered", () => {
    const text = '[ "a\\"]{", {"k\\u0041": [1, "]", {"x": "\\\\"}], "k": null}, 7 ]';
    expect(JSON.parse(text)).toEqual(['a"]{', { kA: [1, "]", { x: "\\" }], k: null }, 7]);
    const loc = jsonLocator(text);
    expect(loc.locate("/2").offset).toBe(text.lastIndexOf("7"));
    expect(loc.locate("/1/k").offset).toBe(text.indexOf("null"));
    expect(loc.locate("/1/kA/2/x").offset).toBe(text.indexOf('"\\\\"'));
    expect(loc.locate("/1/kA/1").offset).toBe(text.indexOf('"]"'));
  });
});

describe("integer lints", () => {
  const make = (severity: Issue["severity"], rule: string, pointer: string, message: string): Issue => ({
    severity,
    rule,
    pointer,
    message,
    file: "f",
  });
  test("beyond 2^53 is a warning; beyond u64 in a serde format is an error; JS formats only warn", () => {
    const v = parseJson(
      '{"a": 9007199254740992, "b": 9007199254740991, "c": 18446744073709551616, "d": -9223372036854775809}',
    );
    expect(brief(nativeLint(v, "yoagent", make)).map((s) => s.split(" ").slice(0, 2).join(" "))).toEqual([
      "lint/unsafe-integer /a",
      "lint/integer-out-of-range /c",
      "lint/integer-out-of-range /d",
    ]);
    expect(nativeLint(v, "ckpt", make).map((i) => i.severity)).toEqual(["warning", "warning", "warning"]);
  });
  test("a u64 beyond the range in a yoagent document fails validation (exit-1 error, not a warning)", () => {
    const r = validateDocument(
      {
        name: "u.json",
        text: '[{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":18446744073709551616}]',
      },
      { format: "yoagent" },
    );
    expect(r.valid).toBe(false);
    expect(brief(r.issues)).toEqual([
      "lint/integer-out-of-range /0/timestamp integer 18446744073709551616 is outside the 64-bit range: serde rejects it",
    ]);
  });
  test("a 16-digit run that is no unsafe integer (a safe id, digits in a string) finds nothing", () => {
    const r = validateDocument(
      {
        name: "s.json",
        text: '[{"role":"user","content":[{"type":"text","text":"12345678901234567890"}],"timestamp":1234567890123456}]',
      },
      { format: "yoagent" },
    );
    expect(r.issues).toEqual([]);
  });
});

describe("prototype keys", () => {
  const rules = (text: string) =>
    validateDocument({ name: "p.json", text }, { format: "yoagent" }).issues.map((i) => `${i.rule} ${i.pointer}`);
  test("spelled out", () => {
    expect(rules('[{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":1,"__proto__":{}}]')).toEqual([
      "lint/prototype-key /0/__proto__",
    ]);
  });
  test("written with \\u escapes (the same keys to JSON.parse), nested", () => {
    const text =
      '[{"role":"user","content":[{"type":"text","text":"\\u00e9"}],"timestamp":2,"x":{"\\u005f_proto__":1,"constructo\\u0072":2}}]';
    expect(rules(text)).toEqual(["lint/prototype-key /0/x/__proto__", "lint/prototype-key /0/x/constructor"]);
  });
});

describe("FileSaver thread ids", () => {
  const make = (file: string, pointer: string, message: string): Issue => ({
    severity: "warning",
    rule: "lint/filesaver-id-collision",
    file,
    pointer,
    message,
  });
  test("sanitization as deep-agent's FileSaver does it", () => {
    expect(fileSaverStem("user/42:a b")).toBe("user_42_a_b");
    expect(fileSaverStem("ok-id_1")).toBe("ok-id_1");
  });
  test("two ids with the same stem collide; a file not named after its id is flagged", () => {
    const out = fileSaverLint(
      [
        { file: "dir/user_1.json", threadId: "user/1", pointer: "/threadId" },
        { file: "dir/user_1.json.bak/user_1.json", threadId: "user:1", pointer: "/threadId" },
        { file: "dir/copy.json", threadId: "user:1", pointer: "/threadId" },
        { file: "dir/other.json", threadId: "t-9", pointer: "/threadId" },
        { file: "dir/t-10.json", threadId: "t-10", pointer: "/threadId" },
      ],
      make,
    );
    // FileSaver's name space is one folder: the copy in dir/user_1.json.bak/ is another folder's file
    expect(out.map((i) => `${i.file} ${i.message.split(":")[0]}`)).toEqual([
      "dir/copy.json thread id 'user",
      "dir/copy.json thread id 'user",
      "dir/other.json thread id 't-9' is stored by FileSaver as 't-9.json', not 'other.json'",
    ]);
    expect(out[0]!.message).toContain("is stored by FileSaver as 'user_1.json', not 'copy.json'");
    expect(out[1]!.message).toContain("both sanitize to 'user_1.json'");
  });
});

describe("adapters' lintView agrees with toCanonical", () => {
  // canonicalLint reads these fields; an adapter's lintView must give exactly what toCanonical gives for them
  const project = (cp: { threadId: string; interrupt?: unknown; messages: readonly unknown[] }) => ({
    threadId: cp.threadId,
    interrupt: Boolean(cp.interrupt),
    messages: cp.messages.map((x) => {
      const m = x as Record<string, unknown>;
      const content =
        m.role === "assistant" && Array.isArray(m.content)
          ? m.content.map((c: Record<string, unknown>) =>
              c.type === "toolCall" ? { type: c.type, id: c.id } : { type: c.type },
            )
          : undefined;
      return {
        role: m.role,
        timestamp: m.timestamp,
        content,
        toolCallId: m.role === "toolResult" ? m.toolCallId : undefined,
        usage: m.role === "assistant" ? m.usage : undefined,
      };
    }),
  });
  const FIX = join(import.meta.dirname, "..", "fixtures");
  const fixtureTexts = (f: string): Array<[string, string]> => {
    const out: Array<[string, string]> = [];
    for (const kind of ["valid", "warn", "invalid"]) {
      const dir = join(FIX, f, kind);
      if (!existsSync(dir)) continue;
      for (const n of readdirSync(dir))
        if (!n.endsWith(".expect.json")) out.push([`${f}/${kind}/${n}`, readFileSync(join(dir, n), "utf8")]);
    }
    return out;
  };
  const texts: Array<[string, string]> = [...fixtureTexts("yoagent"), ...fixtureTexts("phi-core")];
  const swarmerTexts: Array<[string, string]> = [
    ...fixtureTexts("swarmer"),
    [
      "agent_x.pkl",
      JSON.stringify({
        identity: { id: "x" },
        token_budget: 1,
        model: "m",
        token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        contexts: {},
        message_log: [
          { role: "system", content: "s" },
          { role: "user", content: "u" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c1", type: "function", function: { name: "f", arguments: "{}" } },
              { id: 7, type: "function", function: { name: "g", arguments: "not json" } },
            ],
          },
          { role: "assistant", content: "text", tool_calls: [] },
          { role: "tool", tool_call_id: "c1", name: "f", content: "ok" },
          { role: "tool", content: "no id" },
          { role: "function", name: "f", content: "old" },
          5,
        ],
      }),
    ],
  ];
  const cases: Array<[FormatName, Array<[string, string]>]> = [
    ["yoagent", texts],
    ["phi-core", texts],
    ["swarmer", swarmerTexts],
    ["yoagent-session", fixtureTexts("yoagent-session")],
    ["phi-core-session", fixtureTexts("phi-core-session")],
    [
      "deepagent",
      [
        ...fixtureTexts("deepagent"),
        [
          "odd.json",
          JSON.stringify({
            threadId: 7,
            step: 1,
            state: { todos: [], files: {} },
            interrupt: { toolCallId: "c9" },
            messages: [
              { role: "system", content: "s" },
              {
                role: "user",
                content: [{ type: "text", text: "u" }, { type: "image", image: "aGk=" }, { type: "constructor" }, 3],
              },
              {
                role: "assistant",
                content: [
                  { type: "reasoning", text: "r" },
                  { type: "weird" },
                  { type: "tool-call", toolCallId: "c1", toolName: "f", input: {} },
                  { type: "tool-call", toolCallId: "c9", toolName: "g", input: {} },
                ],
              },
              {
                role: "tool",
                content: [
                  { type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "ok" } },
                  { type: "tool-approval-response" },
                ],
              },
              { role: "tool", content: [] },
              { role: "other", content: 5 },
              null,
            ],
          }),
        ],
      ],
    ],
  ];
  for (const [name, docs] of cases) {
    const a = adapters[name];
    test(`${name}: ${docs.length} documents`, () => {
      let compared = 0;
      for (const [file, text] of docs) {
        const doc = { name: file, text };
        let native: unknown;
        try {
          native = a.parse(doc);
        } catch {
          continue; // not a message array
        }
        let cp;
        try {
          cp = a.toCanonical(native, doc);
        } catch {
          continue; // toCanonical needs schema-valid input; canonicalLint only runs on such
        }
        expect(project(a.lintView!(native, doc)), file).toEqual(project(cp));
        compared++;
      }
      expect(compared).toBeGreaterThan(name === "yoagent" || name === "phi-core" ? 10 : 1);
    });
  }
});

describe("locator agrees with jsonc-parser's position tree", () => {
  test("on every JSON fixture, at every pointer", async () => {
    const { readdirSync, readFileSync, statSync } = await import("node:fs");
    const { join } = await import("node:path");
    const jsonc = await import("jsonc-parser");
    const files: string[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(json|pkl)$/.test(f)) files.push(p);
      }
    };
    walk(join(import.meta.dirname, "..", "fixtures"));
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      try {
        JSON.parse(text);
      } catch {
        continue; // the locator is for text JSON.parse accepts
      }
      const tree = jsonc.parseTree(text)!;
      const loc = jsonLocator(text);
      const visit = (node: import("jsonc-parser").Node, path: (string | number)[]) => {
        expect(loc.locate(pathToPointer(path)).offset, `${file} ${pathToPointer(path)}`).toBe(node.offset);
        checked++;
        if (node.type === "array") node.children!.forEach((c, i) => visit(c, [...path, i]));
        if (node.type === "object") {
          const seen = new Map<string, import("jsonc-parser").Node>();
          for (const p of node.children!) seen.set(p.children![0]!.value as string, p.children![1]!); // last wins
          for (const [k, v] of seen) visit(v, [...path, k]);
        }
      };
      visit(tree, []);
    }
    expect(checked).toBeGreaterThan(5_000);
  });
});
