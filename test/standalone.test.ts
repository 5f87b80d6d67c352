/**
 * The standalone ckpt (bin/standalone/ckpt.cjs, scripts/standalone.mjs): the committed one-file CLI that the GitHub
 * Action and the pre-commit hook run from a plain checkout (issue #38). It must be what dist/ builds (never drift
 * from src/), and, in a copy of the checkout's files with no node_modules and no dist/ (what the action and the hook
 * get), give the output, files and exit code the npm package's CLI (bin/ckpt.js) gives for command lines that reach
 * each part the build treats specially: lazily imported commands, yargs, the validators read from
 * src/generated/validators/ with the ajv runtime handed in, the packages base/lazy.ts loads (micromatch,
 * jsonc-parser, lossless-json), schemas/, the view page's client functions, the database clients (pg, ioredis);
 * better-sqlite3, the one package it does not hold, is asked for by name (exit 4), and used from NODE_PATH.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const STANDALONE = "bin/standalone/ckpt.cjs";
let tmp: string;
let checkout: string;

beforeAll(() => {
  expect(existsSync(join(root, "dist", "bundle", "main.js")), "npm run build first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "ckpt-standalone-"));
  // the checkout's files as git has them (committed or not, never ignored: no node_modules, no dist/)
  checkout = join(tmp, "checkout");
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && existsSync(join(root, f)));
  for (const f of files) {
    mkdirSync(join(checkout, dirname(f)), { recursive: true });
    cpSync(join(root, f), join(checkout, f));
  }
  writeFileSync(join(tmp, "big-int.json"), '{"not": "a checkpoint", "n": 123456789012345678901234567890}\n');
  writeFileSync(join(tmp, "broken.json"), '{"messages": [1, 2,, 3]}\n');
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(cwd: string, entry: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [entry, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1", NODE_PATH: "", ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The standalone in the bare checkout and bin/ckpt.js in this one, each "@OUT" a file of its own. */
function both(args: string[], env: Record<string, string> = {}) {
  const outs = { standalone: join(tmp, `s-${Math.random()}`), npm: join(tmp, `n-${Math.random()}`) };
  const named: Record<string, string> = { "@BROKEN": join(tmp, "broken.json"), "@BIG": join(tmp, "big-int.json") };
  const sub = (which: keyof typeof outs) => args.map((a) => named[a] ?? a.replace("@OUT", outs[which]));
  const s = run(checkout, join(checkout, STANDALONE), sub("standalone"), env);
  const n = run(root, join(root, "bin", "ckpt.js"), sub("npm"), env);
  const clean = (r: typeof s, out: string) => ({
    ...r,
    out: r.out.split(out).join("@OUT"),
    err: r.err.split(out).join("@OUT"),
    file: existsSync(out) ? readFileSync(out, "utf8") : undefined,
  });
  return { standalone: clean(s, outs.standalone), npm: clean(n, outs.npm) };
}

describe("the committed bin/standalone/ckpt.cjs", () => {
  it("is what dist/ builds (scripts/standalone.mjs --check): it cannot drift from src/", () => {
    const r = spawnSync(process.execPath, [join(root, "scripts", "standalone.mjs"), "--check"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);

  it("is one executable file that a checkout runs as it is", () => {
    const text = readFileSync(join(root, STANDALONE), "utf8");
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(join(root, STANDALONE)).mode & 0o111).toBe(0o111);
    const mode = execFileSync("git", ["ls-files", "-s", "--", STANDALONE], { cwd: root, encoding: "utf8" });
    if (mode) expect(mode.split(" ")[0]).toBe("100755"); // committed executable (once it is committed)
    // nothing required from a node_modules folder but better-sqlite3 and pg's optional bindings, never loaded
    const required = new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!));
    const builtin = new Set(builtinModules);
    const packages = [...required].filter((id) => !id.startsWith("node:") && !builtin.has(id)).sort();
    expect(packages).toEqual(["better-sqlite3", "pg-cloudflare", "pg-native"]);
  });
});

describe("the standalone ckpt in a checkout without node_modules or dist/, against the npm package's CLI", () => {
  const yo = "fixtures/yoagent/valid/save_messages.v0.18.json";
  const yoOther = "fixtures/yoagent/valid/docs-persistence-example.v0.18.json";
  const cases: Array<{
    name: string;
    args: string[];
    code: number;
    check?: (r: { out: string; err: string; file?: string }) => void;
  }> = [
    {
      name: "--version",
      args: ["--version"],
      code: 0,
      check: (r) => expect(r.out.trim()).toBe(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version),
    },
    {
      name: "validate (quick path)",
      args: ["validate", yo],
      code: 0,
      check: (r) => expect(r.out).toMatch(/: ok yoagent/),
    },
    {
      name: "validate an invalid file",
      args: ["validate", "fixtures/deepagent/invalid/bad-todo-status.json"],
      code: 1,
    },
    {
      name: "validate folders of every format, SARIF and JUnit to files",
      args: [
        "validate",
        "fixtures/ai-sdk/valid",
        "fixtures/openai-agents/valid",
        "fixtures/deepagent",
        "-r",
        "sarif",
        "-r",
        "junit=@OUT",
      ],
      code: 1,
      check: (r) => expect(JSON.parse(r.out).runs[0].results.length).toBeGreaterThan(0),
    },
    {
      name: "validate --help (yargs)",
      args: ["validate", "--help"],
      code: 0,
      check: (r) => expect(r.out).toMatch(/--strict/),
    },
    { name: "a typo (yargs)", args: ["valdate", yo], code: 2 },
    { name: "diff", args: ["diff", yo, yoOther], code: 1 },
    {
      name: "diff --ignore (micromatch)",
      args: ["diff", yo, yoOther, "--ignore", "/messages/*/timestamp", "--stat"],
      code: 1,
    },
    { name: "a JSON syntax error (jsonc-parser)", args: ["validate", "@BROKEN"], code: 3 },
    {
      name: "an integer beyond 2^53 (lossless-json)",
      args: ["validate", "@BIG", "--json"],
      code: 3,
    },
    {
      name: "convert",
      args: ["convert", yo, "-t", "deepagent", "--allow-lossy", "-o", "@OUT"],
      code: 0,
      check: (r) => expect(JSON.parse(r.file!)).toHaveProperty("messages"),
    },
    { name: "show", args: ["show", "fixtures/deepagent/valid/user_42_session_1.json"], code: 0 },
    {
      name: "view -o (the page's client functions)",
      args: ["view", yo, "-o", "@OUT"],
      code: 0,
      check: (r) => expect(r.file!).toMatch(/function main\(\)/),
    },
    { name: "schema list (schemas/ of the checkout)", args: ["schema", "list"], code: 0 },
    { name: "schema show", args: ["schema", "show", "formats/yoagent/messages"], code: 0 },
    { name: "completion", args: ["completion", "bash"], code: 0 },
    {
      name: "ls of a Redis store (ioredis)",
      args: ["ls", `redis://127.0.0.1:6379?prefix=ckpt-standalone-${process.pid}:`],
      code: 0,
    },
    {
      name: "ls of a PostgreSQL schema that holds no store (pg)",
      args: ["ls", `postgres://postgres@127.0.0.1:5432/test?schema=ckpt_standalone_${process.pid}`],
      code: 3,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the same output, files and exit code`, () => {
      const { standalone, npm } = both(c.args);
      expect(standalone.code, standalone.err).toBe(c.code);
      expect(npm.code, npm.err).toBe(c.code);
      expect(standalone.out).toBe(npm.out);
      expect(standalone.err).toBe(npm.err);
      expect(standalone.file).toEqual(npm.file);
      c.check?.(standalone);
    });
  }

  it("an SQLite store without better-sqlite3: exit 4 naming the package to install, no stack", () => {
    const r = run(checkout, join(checkout, STANDALONE), ["ls", "sqlite:fixtures/langgraph/python-a.sqlite"]);
    expect(r.code).toBe(4);
    expect(r.err).toBe(
      "ckpt: sqlite:fixtures/langgraph/python-a.sqlite: SQLite stores need the better-sqlite3 package, which is not " +
        "installed here: npm install better-sqlite3 (beside ckpt, or in a folder on NODE_PATH); files and other " +
        "stores need nothing more\n",
    );
    const v = run(checkout, join(checkout, STANDALONE), ["validate", "fixtures/langgraph/python-a.sqlite"]);
    expect(v.code).toBe(4);
    expect(v.err + v.out).toContain("npm install better-sqlite3");
  });

  it("an SQLite store with better-sqlite3 on NODE_PATH: what the npm package's CLI says", () => {
    const env = { NODE_PATH: join(root, "node_modules") };
    for (const args of [
      ["ls", "sqlite:fixtures/langgraph/python-a.sqlite"],
      ["validate", "fixtures/langgraph/python-a.sqlite", "--json"],
    ]) {
      const { standalone, npm } = both(args, env);
      expect(standalone.code, standalone.err).toBe(0);
      expect(standalone.out).toBe(npm.out);
    }
  });
});
