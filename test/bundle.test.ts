/**
 * The bundled CLI (dist/bundle/, scripts/bundle.mjs) that bin/ckpt.js runs must behave as tsc's modules
 * (dist/cli/main.js) do: the same output, files and exit codes for command lines that reach each part the bundle
 * treats specially (lazy command chunks, yargs, bundled CommonJS packages, external better-sqlite3, the validators
 * required beside dist/generated/, schemas/ found from the chunk, the view page built from tsc's client functions,
 * the check worker as an entry of its own). Expected outputs are checked independently where they can be
 * (schema text against schemas/, the worker's hash against one computed here).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "ckpt.js");
const fx = (...p: string[]) => join(root, "fixtures", ...p);
let tmp: string;
/** runs tsc's dist/cli/main.js as bin/ckpt.js would, without the bundle */
let tscRunner: string;

beforeAll(() => {
  if (!existsSync(join(root, "dist", "bundle", "main.js")))
    execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
  tmp = mkdtempSync(join(tmpdir(), "ckpt-bundle-"));
  tscRunner = join(tmp, "tsc-cli.mjs");
  writeFileSync(
    tscRunner,
    `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, "dist", "cli", "main.js")).href)});\n` +
      "process.exitCode = await main(process.argv.slice(2));\n",
  );
}, 180_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(entry: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [entry, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `args` with every "@OUT" replaced by a path of its own per build, so both builds write their own file. */
function both(args: string[]) {
  const outs = { bundle: join(tmp, `bundle-${Math.random()}`), tsc: join(tmp, `tsc-${Math.random()}`) };
  const bundled = run(
    bin,
    args.map((a) => (a === "@OUT" ? outs.bundle : a)),
  );
  const plain = run(
    tscRunner,
    args.map((a) => (a === "@OUT" ? outs.tsc : a)),
  );
  const unpath = (s: string, p: string) => s.split(p).join("@OUT");
  return {
    bundled: {
      ...bundled,
      out: unpath(bundled.out, outs.bundle),
      err: unpath(bundled.err, outs.bundle),
      file: existsSync(outs.bundle) ? readFileSync(outs.bundle) : undefined,
    },
    plain: {
      ...plain,
      out: unpath(plain.out, outs.tsc),
      err: unpath(plain.err, outs.tsc),
      file: existsSync(outs.tsc) ? readFileSync(outs.tsc) : undefined,
    },
  };
}

describe("bundled CLI", () => {
  const yo = fx("yoagent", "valid", "save_messages.v0.18.json");
  const yoOther = fx("yoagent", "valid", "docs-persistence-example.v0.18.json");
  const cases: Array<{
    name: string;
    args: string[];
    code: number;
    check?: (r: { out: string; err: string; file?: Buffer }) => void;
  }> = [
    {
      name: "validate (quick path)",
      args: ["validate", yo],
      code: 0,
      check: (r) => expect(r.out).toMatch(/: ok yoagent/),
    },
    { name: "validate an invalid file", args: ["validate", fx("yoagent", "invalid", "system-message.json")], code: 1 },
    {
      name: "validate --json (reporter)",
      args: ["validate", yo, "--json"],
      code: 0,
      check: (r) => expect(JSON.parse(r.out)).toBeTypeOf("object"),
    },
    { name: "diff", args: ["diff", yo, yoOther], code: 1, check: (r) => expect(r.out).toMatch(/^--- a: /) },
    {
      name: "diff --ignore (micromatch, bundled CommonJS)",
      args: ["diff", yo, yoOther, "--ignore", "/messages/*/timestamp", "--stat"],
      code: 1,
    },
    {
      name: "convert",
      args: ["convert", yo, "-t", "deepagent", "--allow-lossy", "-o", "@OUT"],
      code: 0,
      check: (r) => expect(JSON.parse(r.file!.toString())).toHaveProperty("messages"),
    },
    { name: "help (yargs)", args: ["--help"], code: 0, check: (r) => expect(r.out).toMatch(/ckpt validate/) },
    {
      name: "a typo (yargs)",
      args: ["valdate", yo],
      code: 2,
      check: (r) => expect(r.err).toMatch(/Unknown arguments: valdate/),
    },
    {
      name: "schema list (schemas/ from the chunk)",
      args: ["schema", "list"],
      code: 0,
      check: (r) => expect(r.out).toMatch(/formats\/yoagent\/messages/),
    },
    {
      name: "view -o (page from tsc's client functions)",
      args: ["view", yo, "-o", "@OUT"],
      code: 0,
      check: (r) => expect(r.file!.toString()).toMatch(/function main\(\)/),
    },
    { name: "completion", args: ["completion", "bash"], code: 0, check: (r) => expect(r.out).toMatch(/ckpt/) },
  ];
  for (const c of cases) {
    it(`${c.name}: same output and exit code as tsc's modules`, () => {
      const { bundled, plain } = both(c.args);
      expect(bundled.code, bundled.err).toBe(c.code);
      expect(plain.code, plain.err).toBe(c.code);
      expect(bundled.out).toBe(plain.out);
      expect(bundled.err).toBe(plain.err);
      expect(bundled.file).toEqual(plain.file);
      c.check?.(bundled);
    });
  }

  it("ls of a SQLite store (better-sqlite3 stays external): same rows", () => {
    const db = join(tmp, "a.sqlite");
    copyFileSync(fx("langgraph", "js-a.sqlite"), db);
    const { bundled, plain } = both(["ls", `sqlite:${db}`, "--json"]);
    expect(bundled.code, bundled.err).toBe(0);
    expect(JSON.parse(bundled.out).length).toBeGreaterThan(0);
    expect(bundled.out).toBe(plain.out);
  });

  it("schema show prints the file in schemas/", () => {
    const r = run(bin, ["schema", "show", "formats/yoagent/messages"]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual(
      JSON.parse(readFileSync(join(root, "schemas", "formats", "yoagent", "messages.json"), "utf8")),
    );
  });

  it("bin/ckpt.js runs the bundle, and tsc's modules when there is no bundle", () => {
    // NODE_DEBUG=module,esm: Node names each file require() and the ES module loader load
    const loaded = (err: string) => [...err.matchAll(/\/dist\/(bundle|cli)\/[\w.-]+\.js/g)].map((m) => m[1]);
    const withBundle = run(bin, ["validate", yo], { NODE_DEBUG: "module,esm" });
    expect(withBundle.code).toBe(0);
    expect(withBundle.err).toContain("/dist/bundle/main.js");
    expect(loaded(withBundle.err)).not.toContain("cli");

    // a copy of the package whose dist/ lacks bundle/
    const pkg = join(tmp, "pkg");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    mkdirSync(join(pkg, "dist"));
    for (const f of ["ckpt.js", "package.json"]) copyFileSync(join(root, "bin", f), join(pkg, "bin", f));
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    for (const e of readdirSync(join(root, "dist")))
      if (e !== "bundle") symlinkSync(join(root, "dist", e), join(pkg, "dist", e));
    symlinkSync(join(root, "schemas"), join(pkg, "schemas"));
    const without = run(join(pkg, "bin", "ckpt.js"), ["validate", yo], { NODE_DEBUG: "module,esm" });
    expect(without.code, without.err).toBe(0);
    expect(without.err).toContain("/dist/cli/main.js");
    expect(loaded(without.err)).not.toContain("bundle");
  });

  it("a run naming one file loads no ES module loader, fs/promises or readline (cold start, issue #13)", () => {
    // Node's own list of the internal modules it loaded, printed as the process exits
    const probe = join(tmp, "modules.cjs");
    writeFileSync(
      probe,
      'process.on("exit", () => require("node:fs").writeSync(2, "\\nMODULES " + JSON.stringify(process.moduleLoadList) + "\\n"));\n',
    );
    const modules = (args: string[], stdin?: string) => {
      const r = spawnSync(process.execPath, ["--require", probe, bin, ...args], {
        cwd: root,
        encoding: "utf8",
        input: stdin,
      });
      const line = /\nMODULES (.*)\n/.exec(r.stderr);
      expect(line, r.stderr).not.toBeNull();
      return { code: r.status, out: r.stdout, list: JSON.parse(line![1]!) as string[] };
    };
    const unwanted = /internal\/modules\/esm\/(module_job|translators)|internal\/fs\/promises|internal\/readline\//;
    const one = modules(["validate", yo]);
    expect(one.code).toBe(0);
    expect(one.list.filter((m) => unwanted.test(m))).toEqual([]);
    // nor zlib (bin/code-cache.js compares an entry's copy of the text, no checksum: issue #41)
    expect(one.list).not.toContain("NativeModule zlib");
    // the probe sees them when they are loaded: reading stdin and walking a folder do
    const piped = modules(["validate", "-"], readFileSync(yo, "utf8"));
    expect(piped.out).toMatch(/<stdin>: ok yoagent/);
    expect(piped.list).toContain("NativeModule internal/streams/readable");
    const folder = modules(["validate", fx("yoagent", "valid")]);
    expect(folder.list).toContain("NativeModule internal/fs/promises");
  });

  it("the bundle and the validators it requires are ASCII: V8 takes them as one-byte text, no UTF-8 decoding (#41)", () => {
    const files = [
      ...readdirSync(join(root, "dist", "bundle")).map((f) => join(root, "dist", "bundle", f)),
      ...readdirSync(join(root, "dist", "generated", "validators")).map((f) =>
        join(root, "dist", "generated", "validators", f),
      ),
    ].filter((f) => /\.c?js$/.test(f));
    expect(files.length).toBeGreaterThan(20);
    const notAscii = files.filter((f) => readFileSync(f).some((b) => b > 0x7f));
    expect(notAscii).toEqual([]);
  });
});

describe("a reader that stops early (`ckpt … | head`)", () => {
  it("ends the run quietly with its exit code, no stack trace", async () => {
    // a transcript of ~2 MB, more than a pipe holds: ckpt is still writing when the reader goes away
    const sample = JSON.parse(readFileSync(fx("yoagent", "valid", "save_messages.v0.18.json"), "utf8")) as unknown[];
    const big = join(tmp, "big.json");
    writeFileSync(big, JSON.stringify(Array.from({ length: 400 }, () => sample).flat()));
    const child = spawn(process.execPath, [bin, "show", big], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(err).toBe("");
    expect(code).toBe(0);
  });
});

describe("check worker in the bundle", () => {
  it("starts beside the chunk that opens it and checks records as tsc's worker does", async () => {
    const chunks = readdirSync(join(root, "dist", "bundle")).filter((f) =>
      readFileSync(join(root, "dist", "bundle", f), "utf8").includes(
        'new URL("./check-worker.js", __ckpt_import_meta_url)',
      ),
    );
    expect(chunks.length).toBe(1); // check-pool.ts's chunk, in dist/bundle/ beside check-worker.js
    const text = readFileSync(fx("deepagent", "valid", "user_42_session_1.json"), "utf8");
    const texts = [text, '{"neither": "format"}'];
    const check = (file: string) =>
      new Promise<unknown[]>((resolve, reject) => {
        const ready = new SharedArrayBuffer(4);
        const w = new Worker(file, { workerData: { ready } });
        w.on("error", reject);
        w.on("message", (m: { results?: unknown[]; error?: string }) => {
          void w.terminate();
          if (m.error) reject(new Error(m.error));
          else resolve(m.results!);
        });
        w.postMessage({ id: 1, opts: {}, wants: { compact: true, hash: true }, names: ["a.json", "b.json"], texts });
      });
    const bundled = await check(join(root, "dist", "bundle", "check-worker.js"));
    const compact = JSON.stringify(JSON.parse(text));
    // the journal's hash is the sha256 of the text as checked (here the bytes given), not of the compact form
    expect(bundled[0]).toEqual({ ok: true, compact, hash: createHash("sha256").update(text).digest("hex") });
    expect(bundled[1]).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^b\.json: not a checkpoint of any supported format/),
    });
    expect(bundled).toEqual(await check(join(root, "dist", "cli", "check-worker.js")));
  });
});
