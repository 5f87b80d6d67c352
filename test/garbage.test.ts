/**
 * Garbage in, one clear line out: every bad input gets a line naming the file (and line:column where there is
 * one), the documented exit code (3), and never a stack trace. The big inputs (a 100 MB file, 100 000 nested
 * arrays) are generated here into a temp dir.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  mkdtempSync,
  rmSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
  mkdirSync,
  existsSync,
  readFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";

const ROOT = join(import.meta.dirname, "..");
const G = "fixtures/garbage";

async function run(argv: string[], stdin?: Buffer | string) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from(stdin !== undefined ? [Buffer.from(stdin)] : []),
    env: { NO_COLOR: "1" },
    cwd: ROOT,
  });
  return { code, out, err, all: out + err };
}

/** The report's line about `file` (everything but the summary). */
function lineFor(out: string, file: string): string[] {
  return out.split("\n").filter((l) => l.startsWith(file + ":"));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-garbage-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)|internal error/);

describe("small garbage files", () => {
  // positions counted by hand: the NUL is byte 34 (0-based) of binary.json; truncated.json ends after column 85 of line 2
  const cases: Array<[string, RegExp]> = [
    [
      "binary.json",
      /^fixtures\/garbage\/binary\.json: error: binary data \(a NUL byte at offset 34\): expected a UTF-8 text document input\/binary$/,
    ],
    [
      "truncated.json",
      /^fixtures\/garbage\/truncated\.json:2:86: error: invalid JSON: expected .}. \(the document ends early: truncated\?\) input\/json-syntax$/,
    ],
    ["empty.json", /^fixtures\/garbage\/empty\.json: error: empty file: expected a checkpoint document input\/empty$/],
    [
      "latin1.json",
      /^fixtures\/garbage\/latin1\.json: error: not valid UTF-8.*: expected a UTF-8 text document input\/encoding$/,
    ],
    ["not-json.json", /^fixtures\/garbage\/not-json\.json:1:1: error: invalid JSON: .* input\/json-syntax$/],
    [
      "proto-keys.json",
      /^fixtures\/garbage\/proto-keys\.json: error: cannot tell the format: .*--format\) input\/unknown-format$/,
    ],
  ];
  for (const [name, want] of cases) {
    test(name, async () => {
      const r = await run(["validate", `${G}/${name}`]);
      expect(r.code).toBe(3);
      const lines = lineFor(r.out, `${G}/${name}`);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(want);
      noStack(r.all);
    });
  }

  test("__proto__ keys do not pollute Object.prototype", async () => {
    await run(["validate", `${G}/proto-keys.json`, "--format", "ckpt"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const r = await run(["validate", `${G}/proto-keys.json`, "--format", "ckpt", "--json"]);
    const issues = JSON.parse(r.out).files[0].issues;
    expect(issues).toContainEqual(
      expect.objectContaining({ rule: "lint/prototype-key", pointer: "/__proto__", line: 1, column: 15 }),
    );
    expect(issues).toContainEqual(expect.objectContaining({ rule: "lint/prototype-key", pointer: "/constructor" }));
  });
});

describe("paths and streams", () => {
  test("missing path", async () => {
    const r = await run(["validate", "no/such/file.json"]);
    expect(r.code).toBe(3);
    expect(lineFor(r.out, "no/such/file.json")).toEqual([
      "no/such/file.json: error: no such file or directory input/missing",
    ]);
  });
  test("a directory with nothing to validate", async () => {
    mkdirSync(join(dir, "empty-dir"));
    const r = await run(["validate", join(dir, "empty-dir")]);
    expect(r.code).toBe(3);
    expect(r.out).toContain("directory holds nothing to validate");
    noStack(r.all);
  });
  test("empty stdin", async () => {
    const r = await run(["validate", "-"], "");
    expect(r.code).toBe(3);
    expect(lineFor(r.out, "<stdin>")).toEqual([
      "<stdin>: error: empty file: expected a checkpoint document input/empty",
    ]);
  });
  test("binary stdin", async () => {
    const r = await run(["validate", "-"], Buffer.from([0x7b, 0x00, 0x7d]));
    expect(r.code).toBe(3);
    expect(r.out).toContain("<stdin>: error: binary data");
  });
  test("diff, show, convert, view and replay of a truncated file name the JSON error's place, as validate does (diff said 'cannot tell the format')", async () => {
    const ok = "fixtures/yoagent/valid/save_messages.v0.18.json";
    for (const argv of [
      ["diff", `${G}/truncated.json`, ok],
      ["diff", ok, `${G}/truncated.json`],
      ["show", `${G}/truncated.json`],
      ["convert", `${G}/truncated.json`, "-t", "ckpt"],
      ["replay", `${G}/truncated.json`],
      ["view", `${G}/truncated.json`, "-o", join(dir, "v.html")],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(3);
      // the place counted by hand for truncated.json (see "small garbage files")
      expect(r.err, argv.join(" ")).toBe(
        `ckpt: ${G}/truncated.json:2:86: invalid JSON: expected '}' (the document ends early: truncated?)\n`,
      );
    }
    expect(existsSync(join(dir, "v.html"))).toBe(false);
  });
  test("truncated JSON on stdin with --format", async () => {
    const r = await run(["validate", "-", "--format", "ckpt"], '{"schemaVersion": 1, "messages": [');
    expect(r.code).toBe(3);
    expect(lineFor(r.out, "<stdin>")[0]).toMatch(/^<stdin>:1:\d+: error: invalid JSON/);
  });
});

describe("big inputs", () => {
  test("100 000 nested arrays: one line; no format is exit 3, a named format's schema answers (exit 1)", async () => {
    // Positions are found without recursion, so the outer value gets its real verdict (an array where the format
    // wants an object) instead of a stack overflow in the position tree reported as "too deep".
    const p = join(dir, "deep.json");
    writeFileSync(p, "[".repeat(100_000) + "]".repeat(100_000));
    for (const extra of [[], ["--format", "ckpt"], ["--format", "yoagent"]]) {
      const r = await run(["validate", p, ...extra]);
      expect(r.code, extra.join(" ")).toBe(extra.length ? 1 : 3);
      if (extra.length) expect(r.out).toMatch(/expected an object/);
      expect(lineFor(r.out, p)).toHaveLength(1);
      noStack(r.all);
    }
  });

  test("a 100 MB checkpoint validates for real", { timeout: 60_000 }, async () => {
    const p = join(dir, "big.json");
    const fd = openSync(p, "w");
    writeSync(fd, '{"schemaVersion": 1, "threadId": "big", "step": 1, "state": {}, "messages": [\n');
    const text = "x".repeat(1000);
    const n = 100_000;
    let size = 0;
    for (let i = 0; i < n; i++) {
      const m =
        i % 2 === 0
          ? { role: "user", content: [{ type: "text", text }], timestamp: 1_700_000_000_000 + i }
          : {
              role: "assistant",
              content: [{ type: "text", text }],
              stopReason: "stop",
              timestamp: 1_700_000_000_000 + i,
            };
      const s = JSON.stringify(m) + (i < n - 1 ? ",\n" : "\n");
      size += s.length;
      writeSync(fd, s);
    }
    // one bad message at the end: validation must reach it
    writeSync(fd, ',{"role": "assistant", "content": [], "stopReason": "finished"}]}\n');
    closeSync(fd);
    expect(size).toBeGreaterThan(100_000_000);
    const r = await run(["validate", p, "--json"]);
    expect(r.code).toBe(1);
    const f = JSON.parse(r.out).files[0];
    expect(f.issues).toEqual([
      expect.objectContaining({ rule: "schema/enum", pointer: `/messages/${n}/stopReason`, line: n + 2 }),
    ]);
  });
});

describe("the real binary (after npm run build)", () => {
  const bin = join(ROOT, "bin/ckpt.js");
  const spawn = async (args: string[], input?: Buffer) => {
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync(process.execPath, [bin, ...args], {
      cwd: ROOT,
      input,
      env: { ...process.env, NO_COLOR: "1" },
      encoding: "utf8",
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  test("binary on stdin and a truncated file: one line each, exit 3, no stack", async () => {
    expect(existsSync(join(ROOT, "dist/cli/main.js")), "run npm run build first").toBe(true);
    const a = await spawn(["validate", "-"], Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(a.code).toBe(3);
    expect(a.out.split("\n")[0]).toBe(
      "<stdin>: error: binary data (a NUL byte at offset 4): expected a UTF-8 text document input/binary",
    );
    noStack(a.out + a.err);
    const b = await spawn(["validate", `${G}/truncated.json`]);
    expect(b.code).toBe(3);
    noStack(b.out + b.err);
  });

  test("cold start: validate loads no store client, AI SDK, zod or diff code", async () => {
    const { spawnSync } = await import("node:child_process");
    // bin/ckpt.js requires the CommonJS bundle: every file it loaded is in require.cache when the process exits
    const hook = join(dir, "trace-hook.cjs");
    writeFileSync(
      hook,
      'process.on("exit", () => require("node:fs").writeSync(2, Object.keys(require.cache).map((f) => "LOAD " + f + "\\n").join("")));\n',
    );
    const r = spawnSync(
      process.execPath,
      ["--require", hook, bin, "validate", "fixtures/yoagent/valid/save_messages.v0.18.json"],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    const files = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("LOAD "))
      .map((l) => l.slice(5));
    // a chunk of the bundle (dist/bundle/) holds many modules, each after a "//#region <path>" line
    const loaded = files.flatMap((f) =>
      f.includes("/dist/bundle/")
        ? [
            f,
            ...[...readFileSync(f, "utf8").matchAll(/^\/\/ (?:#region )?((?:dist|node_modules)\/\S+)$/gm)].map(
              (m) => "/" + m[1],
            ),
          ]
        : [f],
    );
    expect(loaded.some((u) => u.includes("/dist/core/document.js"))).toBe(true); // the trace works
    for (const heavy of [
      "/ioredis/",
      "/pg/",
      "/better-sqlite3/",
      "/node_modules/ai/",
      "/zod/",
      "/dist/cli/commands/diff.js",
      "/dist/core/convert.js",
      "/micromatch/",
    ]) {
      expect(
        loaded.filter((u) => u.includes(heavy)),
        heavy,
      ).toEqual([]);
    }
  });
});

describe("text decoding edge cases (the fast UTF-8 read must decide exactly as the byte-level check)", () => {
  const doc = (text: string) => JSON.stringify([{ role: "user", content: [{ type: "text", text }], timestamp: 1 }]);
  test("a UTF-8 byte order mark is dropped: the document validates, positions count from after it", async () => {
    const f = join(dir, "bom.json");
    writeFileSync(f, "\uFEFF" + doc("hi"));
    const r = await run(["validate", f, "--format", "yoagent"]);
    expect(r.code, r.all).toBe(0);
    const bad = join(dir, "bom-bad.json");
    writeFileSync(bad, "\uFEFF" + '[{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":-1}]');
    const r2 = await run(["validate", bad, "--format", "yoagent"]);
    expect(r2.code).toBe(1);
    // the value -1 is at column 68 after the BOM (counted by hand: `[{` 2, `"role":"user",` 14, `"content":[` 11,
    // `{"type":"text",` 15, `"text":"x"}` 11, `],` 2, `"timestamp":` 12 = 67 characters before it)
    expect(lineFor(r2.out, bad)[0]).toMatch(/bom-bad\.json:1:68: error \/0\/timestamp/);
  });
  test("a real U+FFFD character in a message is valid UTF-8 and validates", async () => {
    const f = join(dir, "fffd.json");
    writeFileSync(f, doc("replacement char \uFFFD here"));
    const r = await run(["validate", f, "--format", "yoagent"]);
    expect(r.code, r.all).toBe(0);
  });
  test("an invalid UTF-8 byte deep in the file (past the first 8 KiB) is still refused", async () => {
    const f = join(dir, "late-latin1.json");
    const head = Buffer.from(doc("x".repeat(20_000)).slice(0, -3));
    writeFileSync(f, Buffer.concat([head, Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from('"}],"timestamp":1}]')]));
    const r = await run(["validate", f]);
    expect(r.code).toBe(3);
    expect(lineFor(r.out, f)[0]).toMatch(/not valid UTF-8.*input\/encoding$/);
    noStack(r.all);
  });
});

describe("deep nesting inside a value any schema accepts", () => {
  test("diff, convert and show say the input is nested too deeply: exit 3, one line, no stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-deep-"));
    try {
      const p = join(dir, "deep-args.json");
      const deep = "[".repeat(100_000) + "]".repeat(100_000);
      writeFileSync(
        p,
        `{"schemaVersion":1,"threadId":"t","step":0,"state":{},"messages":[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":${deep}}]}]}`,
      );
      for (const argv of [
        ["diff", p, p],
        ["convert", p, "-t", "deepagent", "--allow-lossy", "-o", join(dir, "o.json")],
        ["show", p],
      ]) {
        const r = await run(argv);
        expect(r.code, argv[0]).toBe(3);
        expect(r.all, argv[0]).toMatch(/nested too deeply/);
        noStack(r.all);
        expect(existsSync(join(dir, "o.json"))).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
