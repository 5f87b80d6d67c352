/**
 * ckpt as a user gets it (issue #38): the tarball `npm pack` makes from this checkout, installed into a fresh
 * `npm init -y` project whose own version is 9.9.9. There `npx ckpt --version` prints ckpt's version (this
 * checkout's package.json, never the host's), `npx ckpt validate` checks a fixture (SARIF names ckpt's version as the
 * driver's), and the README's first Library example runs as written.
 *
 * Needs the built dist/ (npm run build) and the npm registry for ckpt's dependencies (the npm cache is preferred).
 * better-sqlite3 would compile from source (minutes): its installer is handed the binary this checkout already
 * compiled, through prebuild-install's documented local-prebuilds setting (as test/ci-integrations.test.ts does).
 * Measured here: pack ~5 s, install ~10 s with a warm npm cache.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
const FIXTURE = "fixtures/yoagent/valid/save_messages.v0.18.json";

/** The environment of the npm runs: no npm_* settings inherited from an `npm test` that started this one. */
const env: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^npm_/i.test(k)),
) as Record<string, string>;

let work: string;
let host: string;
let installLog = "";

beforeAll(() => {
  expect(existsSync(join(ROOT, "dist", "bundle", "main.js")), "npm run build first").toBe(true);
  work = mkdtempSync(join(tmpdir(), "ckpt-installed-"));
  const started = Date.now();
  const packed = execFileSync("npm", ["pack", ROOT, "--pack-destination", work, "--silent"], {
    cwd: work,
    env,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1)!;
  const packMs = Date.now() - started;
  const sqlite = join(ROOT, "node_modules/better-sqlite3");
  const sqliteVersion = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8")).version;
  const prebuilds = join(work, "prebuilds");
  mkdirSync(prebuilds);
  const binary = `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync("tar", ["czf", join(prebuilds, binary), "-C", sqlite, "build/Release/better_sqlite3.node"]);
  env.npm_config_better_sqlite3_local_prebuilds = prebuilds;
  host = join(work, "host");
  mkdirSync(host);
  execFileSync("npm", ["init", "-y"], { cwd: host, env, stdio: "ignore" });
  const t = Date.now();
  const r = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--foreground-scripts", join(work, packed)],
    { cwd: host, env, encoding: "utf8", timeout: 540_000 },
  );
  installLog = r.stdout + r.stderr;
  expect(r.status, installLog).toBe(0);
  console.log(`installed-package: npm pack ${packMs} ms, npm install ${Date.now() - t} ms`);
  execFileSync("npm", ["pkg", "set", "version=9.9.9"], { cwd: host, env });
  // the README's examples read the fixtures from the folder they run in; the package ships them
  mkdirSync(join(host, dirname(FIXTURE)), { recursive: true });
  cpSync(join(host, "node_modules", "ckpt", FIXTURE), join(host, FIXTURE));
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const npx = (...args: string[]) =>
  spawnSync("npx", ["--no-install", "ckpt", ...args], { cwd: host, env, encoding: "utf8" });

describe("the npm pack tarball installed into a fresh project (version 9.9.9)", () => {
  test("npx ckpt --version prints ckpt's own version, not the host project's", () => {
    const r = npx("--version");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(PKG.version);
  });

  test("npx ckpt validate checks a fixture; SARIF names ckpt's version as the driver's", () => {
    const r = npx("validate", FIXTURE);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const s = npx("validate", FIXTURE, "--reporter", "sarif");
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).runs[0].tool.driver).toMatchObject({ name: "ckpt", version: PKG.version });
  });

  test("the README's first Library example runs there as written and prints what its comment says", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const library = readme.slice(readme.indexOf("\n## Library\n"));
    const code = library.split(/^```ts\n/m)[1]!.split("\n```")[0]!;
    expect(code).toContain('from "ckpt"');
    writeFileSync(
      join(host, "example.mjs"),
      ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
        .outputText,
    );
    const r = spawnSync(process.execPath, ["example.mjs"], { cwd: host, env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    // the first console.log's comment is the README's promise of what it prints
    const promised = /console\.log\([^\n]*\); \/\/ (.*)$/m.exec(code)![1]!;
    expect(r.stdout.split("\n")[0]).toBe(promised);
  });

  test("installing never ran the TypeScript build, as the README says of the postinstall", () => {
    const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
      .scripts.postinstall!;
    // npm ran ckpt's postinstall (--foreground-scripts prints its banner), which printed nothing and built nothing
    const banner = `> ckpt@${PKG.version} postinstall\n> ${script}\n`;
    expect(installLog).toContain(banner);
    expect(installLog.slice(installLog.indexOf(banner) + banner.length).split("\n")[0]).not.toMatch(/\S/);
    expect(installLog).not.toMatch(/npm run build|tsc -p|rolldown/);
    expect(existsSync(join(host, "node_modules", "ckpt", "src"))).toBe(false);
    // the README names the script, says what it does in a checkout and that an installed package never builds
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const said = readme.slice(readme.indexOf("**Install scripts.**")).split("\n\n")[0]!.replace(/\s+/g, " ");
    expect(said).toContain(`\`postinstall\`: \`${script}\``);
    expect(said).toContain("it runs `npm run build`");
    expect(said).toContain("an installed ckpt never runs the TypeScript build");
  });
});

describe("scripts/postinstall.mjs", () => {
  test("a ckpt inside node_modules never builds, even with src/ and TypeScript beside it", () => {
    const pkg = join(work, "nm", "node_modules", "ckpt");
    mkdirSync(join(pkg, "scripts"), { recursive: true });
    mkdirSync(join(pkg, "src"));
    mkdirSync(join(pkg, "node_modules", "typescript"), { recursive: true });
    cpSync(join(ROOT, "scripts", "postinstall.mjs"), join(pkg, "scripts", "postinstall.mjs"));
    const marker = join(pkg, "built");
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({
        name: "ckpt",
        version: "0.0.0",
        scripts: { build: `node -e "require('fs').writeFileSync('built','')"` },
      }),
    );
    const r = spawnSync(process.execPath, [join(pkg, "scripts", "postinstall.mjs")], {
      cwd: pkg,
      env,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });
});
