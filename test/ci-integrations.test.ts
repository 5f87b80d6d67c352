/**
 * ckpt in CI (issue #32): the GitHub Action (action.yml), the pre-commit hook (.pre-commit-hooks.yaml) and the
 * README's "In CI" snippets.
 *
 * The action's composite steps are run as GitHub runs them: each `run:` with `${{ inputs.* }}` and
 * `${{ github.action_path }}` substituted (defaults applied), through `bash --noprofile --norc -eo pipefail`, with
 * GITHUB_OUTPUT set; `uses:` steps (setup-node) are GitHub's own and are skipped. What the findings should be comes
 * from the fixtures' `.expect.json` files; the SARIF file is checked against the SARIF 2.1.0 schema Microsoft
 * publishes (in @microsoft/jest-sarif), with ajv's draft-04 build.
 *
 * Both run the committed standalone ckpt (bin/standalone/ckpt.cjs) from a snapshot of this checkout's files as git
 * has them (no node_modules, no dist/), as GitHub checks the action out and pre-commit clones the hook's repository.
 *
 * The hook runs under the real pre-commit (Debian's package; .ci/run installs it): `pre-commit try-repo` clones the
 * snapshot and runs the hook, which has nothing to install (issue #38: a `node` hook took ~4 minutes).
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";

const ROOT = resolve(import.meta.dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const work = mkdtempSync(join(tmpdir(), "ckpt-ci-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** This checkout's files as git has them (committed or not, never ignored: no node_modules, no dist/), in `dir`. */
function snapshot(dir: string): string {
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const f of files) {
    mkdirSync(join(dir, dirname(f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  return dir;
}

/**
 * better-sqlite3 would compile from source wherever it is installed here (no prebuilt binaries are downloadable):
 * its installer is handed the binary this checkout already compiled from the same version, through
 * prebuild-install's documented local-prebuilds setting. The npm environment of such an install.
 */
function localPrebuilds(): Record<string, string> {
  const sqlite = join(ROOT, "node_modules/better-sqlite3");
  const version = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8")).version;
  const prebuilds = join(work, "prebuilds");
  if (!existsSync(prebuilds)) {
    mkdirSync(prebuilds);
    const tarball = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    execFileSync("tar", ["czf", join(prebuilds, tarball), "-C", sqlite, "build/Release/better_sqlite3.node"]);
  }
  return { npm_config_better_sqlite3_local_prebuilds: prebuilds };
}

const GOOD = "fixtures/deepagent/valid/user_42_session_1.json";
const BAD = "fixtures/deepagent/invalid/bad-todo-status.json";
const expectOf = (f: string) =>
  JSON.parse(readFileSync(join(ROOT, `${f}.expect.json`), "utf8")) as {
    exit: number;
    issues: Array<{ severity: string; rule: string; pointer: string; line: number; column: number }>;
  };

/** The README's ```yaml blocks, in order. */
const yamlBlocks = [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseYaml(m[1]!));

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  "working-directory"?: string;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}
const action = parseYaml(readFileSync(join(ROOT, "action.yml"), "utf8")) as Action;

/** Where the action is checked out: a snapshot of this checkout (made on first use). */
let actionPath = "";
const runnerTemp = join(work, "runner-temp");

/** Substitute `${{ … }}` as GitHub does for the expressions the action uses; anything else is a test failure. */
function expand(text: string, inputs: Record<string, string>): string {
  if (!actionPath) actionPath = snapshot(join(work, "action"));
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr === "github.action_path") return actionPath;
    const m = /^inputs\.([\w-]+)$/.exec(expr);
    if (!m || !(m[1]! in action.inputs)) throw new Error(`unknown expression in action.yml: ${expr}`);
    return inputs[m[1]!] ?? action.inputs[m[1]!]!.default ?? "";
  });
}

/** Run the composite action's shell steps in `workspace`; the exit code, stdout and the step outputs. */
function runAction(workspace: string, inputs: Record<string, string>) {
  const outputs: Record<string, string> = {};
  let stdout = "";
  for (const step of action.runs.steps) {
    if (step.uses) continue;
    expect(step.shell).toBe("bash");
    const outFile = join(work, `output-${Math.random().toString(36).slice(2)}`);
    writeFileSync(outFile, "");
    mkdirSync(runnerTemp, { recursive: true });
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...localPrebuilds(),
      GITHUB_OUTPUT: outFile,
      RUNNER_TEMP: runnerTemp,
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(String(v), inputs);
    const script = join(work, "step.sh");
    writeFileSync(script, expand(step.run!, inputs));
    const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: step["working-directory"] ? expand(step["working-directory"], inputs) : workspace,
      env,
      encoding: "utf8",
    });
    stdout += r.stdout;
    for (const line of readFileSync(outFile, "utf8").split("\n").filter(Boolean)) {
      const i = line.indexOf("=");
      outputs[line.slice(0, i)] = line.slice(i + 1);
    }
    if (r.status !== 0) return { status: r.status, stdout, stderr: r.stderr, outputs };
  }
  return { status: 0, stdout, stderr: "", outputs };
}

/** Every file under a folder, relative to it. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

function workspace(files: string[]): string {
  const ws = mkdtempSync(join(work, "ws-"));
  for (const f of files) {
    mkdirSync(join(ws, dirname(f)), { recursive: true });
    cpSync(join(ROOT, f), join(ws, f));
  }
  return ws;
}

const sarifValidator = (() => {
  const require = createRequire(import.meta.url);
  const Ajv = require("ajv-draft-04").default;
  // the schema's language-tag pattern is not a valid Unicode-mode regex: compile patterns as JavaScript's plain mode
  const ajv = new Ajv({ strict: false, unicodeRegExp: false });
  require("ajv-formats").default(ajv);
  return ajv.compile(require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"));
})();

describe("the GitHub Action (action.yml)", () => {
  test("is a composite action with the inputs the README documents, each of them used", () => {
    expect(action.runs.using).toBe("composite");
    expect(Object.keys(action.inputs).sort()).toEqual(
      ["format", "max-errors", "node-version", "paths", "sarif", "strict"].sort(),
    );
    expect(action.inputs.paths!.required).toBe(true);
    const text = readFileSync(join(ROOT, "action.yml"), "utf8");
    for (const name of Object.keys(action.inputs)) expect(text).toContain(`inputs.${name} }}`);
    const setup = action.runs.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    expect(setup && (setup as { with?: Record<string, string> }).with?.["node-version"]).toBe(
      "${{ inputs.node-version }}",
    );
  });

  test("valid checkpoints: exit 0, a valid SARIF file with no results, nothing else written", () => {
    const ws = workspace([GOOD, "fixtures/yoagent/valid/save_messages.v0.18.json"]);
    const before = tree(ws);
    const r = runAction(ws, { paths: "fixtures/deepagent\nfixtures/yoagent/valid/save_messages.v0.18.json" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.outputs["exit-code"]).toBe("0");
    expect(r.outputs.sarif).toBe("ckpt.sarif");
    expect(r.stdout).not.toMatch(/^::error/m);
    expect(r.stdout).toMatch(/^ckpt validate: 2 files, 2 valid, 0 invalid/m);
    const sarif = JSON.parse(readFileSync(join(ws, "ckpt.sarif"), "utf8"));
    expect(sarifValidator(sarif), JSON.stringify(sarifValidator.errors)).toBe(true);
    expect(sarif.runs[0].results).toEqual([]);
    expect(tree(ws)).toEqual([...before, "ckpt.sarif"].sort());
  });

  test("an invalid checkpoint: annotations on its lines, the SARIF result, ckpt's exit code", () => {
    const ws = workspace([GOOD, BAD]);
    const want = expectOf(BAD);
    const r = runAction(ws, { paths: `${GOOD} ${BAD}`, sarif: "out/ckpt.sarif" });
    expect(r.status).toBe(want.exit);
    expect(r.outputs["exit-code"]).toBe(String(want.exit));
    for (const i of want.issues)
      expect(r.stdout).toContain(`::${i.severity} file=${BAD},line=${i.line},col=${i.column},title=${i.rule}::`);
    const sarif = JSON.parse(readFileSync(join(ws, "out/ckpt.sarif"), "utf8"));
    expect(sarifValidator(sarif), JSON.stringify(sarifValidator.errors)).toBe(true);
    const results = sarif.runs[0].results as Array<{
      ruleId: string;
      level: string;
      locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }>;
    }>;
    expect(results.map((x) => [x.ruleId, x.level, x.locations[0]!.physicalLocation.region.startLine])).toEqual(
      want.issues.map((i) => [i.rule, i.severity, i.line]),
    );
    expect(results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe(BAD);
  });

  test("strict makes a warning fail; max-errors and format reach ckpt; bad inputs are exit 2", () => {
    const warnOnly = "fixtures/deepagent/valid/explicit-messages-thread.json";
    const ws = workspace([warnOnly, BAD]);
    const loose = runAction(ws, { paths: warnOnly, sarif: "" });
    const strict = runAction(ws, { paths: warnOnly, sarif: "", strict: "true" });
    // whether the file has warnings is read from ckpt's own JSON report, so the test holds for either answer
    const report = JSON.parse(
      execFileSync(process.execPath, [join(ROOT, "bin/ckpt.js"), "validate", warnOnly, "--json"], {
        cwd: ws,
        encoding: "utf8",
      }),
    );
    expect(loose.status).toBe(0);
    expect(strict.status).toBe(report.summary.warnings > 0 ? 1 : 0);
    expect(existsSync(join(ws, "ckpt.sarif"))).toBe(false); // sarif: "" writes none
    const wrongFormat = runAction(ws, { paths: BAD, sarif: "", format: "yoagent" });
    expect(wrongFormat.status).not.toBe(0);
    expect(wrongFormat.stdout).toMatch(/yoagent/);
    expect(runAction(ws, { paths: "  \n ", sarif: "" }).status).toBe(2);
    expect(runAction(ws, { paths: BAD, sarif: "", strict: "yes" }).status).toBe(2);
    expect(runAction(ws, { paths: BAD, sarif: "", "max-errors": "abc" }).status).toBe(2);
  });

  test("the README's workflow uses the action's inputs and uploads the SARIF file it writes", () => {
    const workflow = yamlBlocks.find((b) => b?.jobs) as {
      jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }>;
    };
    expect(workflow).toBeDefined();
    const steps = Object.values(workflow.jobs)[0]!.steps;
    const ours = steps.find((s) => /\/ckpt@v\d+$/.test(s.uses ?? ""))!;
    expect(Object.keys(ours.with!).every((k) => k in action.inputs)).toBe(true);
    const upload = steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"))!;
    expect(upload.with!.sarif_file).toBe(ours.with!.sarif);
    // and the step as written validates: its paths and options run through the action
    const ws = workspace([GOOD]);
    mkdirSync(join(ws, "checkpoints"));
    cpSync(join(ROOT, GOOD), join(ws, "checkpoints/user_42_session_1.json"));
    mkdirSync(join(ws, "runs/x"), { recursive: true });
    cpSync(join(ROOT, GOOD), join(ws, "runs/x/user_42_session_1.json"));
    // the inputs as the runner hands them to the steps: each value's text, quotes included (issue #38: the quoted
    // glob kept its quotes and matched nothing)
    const inputs = Object.fromEntries(Object.entries(ours.with!).map(([k, v]) => [k, String(v)]));
    expect(inputs.paths).toContain("'");
    const r = runAction(ws, inputs);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ckpt validate: 2 files, 2 valid/m);
    expect(existsSync(join(ws, String(ours.with!.sarif)))).toBe(true);
  });

  test("runs the committed standalone ckpt as checked out: nothing installed or built to validate files", () => {
    const ws = workspace([GOOD]);
    const r = runAction(ws, { paths: GOOD, sarif: "" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(action.runs.steps.map((st) => st.run ?? "").join("\n")).not.toMatch(/npm (ci|run)|bin\/ckpt\.js/);
    expect(existsSync(join(actionPath, "node_modules"))).toBe(false);
    expect(existsSync(join(actionPath, "dist"))).toBe(false);
    expect(existsSync(join(runnerTemp, "ckpt-better-sqlite3"))).toBe(false);
  });

  test("an SQLite store in paths: better-sqlite3 (the lockfile's version) is installed once, the store validated", () => {
    const store = "fixtures/langgraph/python-a.sqlite";
    const ws = workspace([store, GOOD]);
    const want = spawnSync(process.execPath, [join(ROOT, "bin/ckpt.js"), "validate", store, GOOD, "-r", "github"], {
      cwd: ws,
      encoding: "utf8",
    });
    const t = Date.now();
    const first = runAction(ws, { paths: `${store} ${GOOD}`, sarif: "" });
    const installMs = Date.now() - t;
    expect(first.status, first.stdout + first.stderr).toBe(want.status);
    // what the npm package's ckpt reports, between the folded lines of the install
    const report = first.stdout.replace(/^::group::[\s\S]*?^::endgroup::\n/m, "");
    expect(report).toBe(want.stdout);
    expect(report).toMatch(/^ckpt validate: 1 file, 1 store, 2 valid/m);
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    const installed = join(runnerTemp, "ckpt-better-sqlite3", "node_modules", "better-sqlite3", "package.json");
    expect(JSON.parse(readFileSync(installed, "utf8")).version).toBe(
      lock.packages["node_modules/better-sqlite3"].version,
    );
    expect(first.stdout).toContain("::group::ckpt: installing better-sqlite3@");
    // a second use in the same job finds it installed; a store URI with a thread, upper case, names a store too
    cpSync(join(ws, store), join(ws, "CHECKPOINTS.DB"));
    const again = runAction(ws, { paths: `'SQLITE:${store}#a-chat-1' CHECKPOINTS.DB`, sarif: "" });
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain("::group::");
    console.log(`action: SQLite store validated with better-sqlite3 installed in ${installMs} ms`);
  });

  test("paths are split as a shell splits words, and nothing in them is expanded but by ckpt", () => {
    const ws = workspace([GOOD]);
    for (const f of ["my checkpoints/a b.json", "runs/x/it's.json", "runs/y/z.json"]) {
      mkdirSync(join(ws, dirname(f)), { recursive: true });
      cpSync(join(ROOT, GOOD), join(ws, f));
    }
    // quoted names with spaces, a backslash-escaped quote, a double-quoted glob, a new line between them
    const r = runAction(ws, { paths: `"my checkpoints/a b.json" runs/x/it\\'s.json\n "runs/y/*.json"`, sarif: "" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ckpt validate: 3 files, 3 valid/m);
    // a command substitution is a path like any other (never run), and a bare * is ckpt's glob, not the shell's
    const marker = join(work, "substituted");
    const sub = runAction(ws, { paths: `$(touch ${marker}) '${GOOD}'`, sarif: "" });
    expect(existsSync(marker)).toBe(false);
    expect(sub.status).toBe(3);
    expect(sub.stdout + sub.stderr).toContain("$(touch");
    const star = runAction(ws, { paths: "'runs/*/*.json'", sarif: "" });
    expect(star.stdout).toMatch(/^ckpt validate: 2 files, 2 valid/m);
    // an unmatched quote: exit 2 with an annotation saying how to quote
    const open = runAction(ws, { paths: "'runs/**/*.json", sarif: "" });
    expect(open.status).toBe(2);
    expect(open.outputs["exit-code"]).toBe("2");
    expect(open.stdout).toMatch(
      /^::error title=ckpt::the paths input cannot be split into paths \(unmatched single quote/m,
    );
  });
});

describe("what the action and the hook say they validate (issue #38: the seed formats only)", () => {
  const hook = (
    parseYaml(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8")) as Array<{ description: string }>
  )[0]!;
  const described = {
    "action.yml": (action as unknown as { description: string }).description,
    hook: hook.description,
  };

  test.each(Object.entries(described))(
    "%s's description names LangGraph, the AI SDK, Mastra and the Agents SDK",
    (_, text) => {
      for (const system of ["LangGraph", "AI SDK", "Mastra", "Agents SDK", "deep-agent", "yoagent"])
        expect(text).toContain(system);
    },
  );

  test("action.yml's description fits GitHub Marketplace (less than 125 characters)", () => {
    expect(described["action.yml"].length).toBeLessThan(125);
  });

  test("the format input lists every format --format accepts", async () => {
    const { FORMAT_CHOICES } = await import("../src/formats/index.js");
    const text = action.inputs.format!.description;
    for (const f of FORMAT_CHOICES) expect(text).toMatch(new RegExp(`(^|[ (,])${f.replace(/@\d$/, "@N")}[ ,)]`));
  });
});

describe("the pre-commit hook (.pre-commit-hooks.yaml), under the real pre-commit", () => {
  const hooks = parseYaml(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8")) as Array<{
    id: string;
    entry: string;
    language: string;
    files: string;
  }>;
  let repo = "";
  let rev = "";
  let project = "";
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PRE_COMMIT_HOME: join(work, "pre-commit-home"),
    PRE_COMMIT_COLOR: "never",
  };

  beforeAll(() => {
    if (spawnSync("pre-commit", ["--version"]).status !== 0)
      throw new Error("pre-commit is not installed: apt-get install -y pre-commit (.ci/run does)");
    // a snapshot of this checkout as it is (uncommitted changes included), so every run below is one commit
    repo = snapshot(join(work, "ckpt-repo"));
    const git = (cwd: string, ...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).trim();
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "snapshot");
    rev = git(repo, "rev-parse", "HEAD");
    project = join(work, "project");
    mkdirSync(join(project, "checkpoints"), { recursive: true });
    cpSync(join(ROOT, GOOD), join(project, "checkpoints/good.json"));
    cpSync(join(ROOT, BAD), join(project, "checkpoints/bad.json"));
    writeFileSync(join(project, "notes.json"), "not a checkpoint\n");
    git(project, "init", "-q");
    git(project, "add", "-A");
  }, 600_000);

  const tryRepo = (...files: string[]) =>
    spawnSync("pre-commit", ["try-repo", repo, "ckpt-validate", "--ref", rev, "--files", ...files], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 600_000,
    });

  test("declares ckpt-validate as a script hook running the committed standalone ckpt on checkpoint files", () => {
    const hook = hooks.find((h) => h.id === "ckpt-validate")!;
    expect(hook).toMatchObject({ entry: "bin/standalone/ckpt.cjs validate", language: "script" });
    expect(existsSync(join(ROOT, "bin/standalone/ckpt.cjs"))).toBe(true);
    const re = new RegExp(hook.files);
    for (const f of ["a.json", "s.jsonl", "agent-chat.org", "agent_1.pkl"]) expect(re.test(f)).toBe(true);
    expect(re.test("README.md")).toBe(false);
  });

  test("try-repo: a broken checkpoint fails the hook with ckpt's message, the valid one beside it is ok", () => {
    // try-repo installs into a store of its own each time: cloning the repository is all there is to it
    const t = Date.now();
    const r = tryRepo("checkpoints/good.json", "checkpoints/bad.json");
    const ms = Date.now() - t;
    console.log(`pre-commit try-repo (install and run): ${ms} ms`);
    expect(ms).toBeLessThan(60_000);
    const want = expectOf(BAD).issues[0]!;
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/ckpt validate\.+Failed/);
    expect(r.stdout).toContain(`checkpoints/bad.json:${want.line}:${want.column}: error ${want.pointer}:`);
    expect(r.stdout).toMatch(/checkpoints\/good\.json: ok/);
  }, 600_000);

  describe("the README's pre-commit config, pointed at this checkout (pre-commit run, one install)", () => {
    const run = (...args: string[]) =>
      spawnSync("pre-commit", ["run", ...args], { cwd: project, env, encoding: "utf8", timeout: 600_000 });
    beforeAll(() => {
      const config = yamlBlocks.find((b) => b?.repos) as {
        repos: Array<{ repo: string; rev: string; hooks: Array<{ id: string; files?: string; args?: string[] }> }>;
      };
      expect(config.repos[0]!.hooks.map((h) => h.id)).toEqual(["ckpt-validate"]);
      config.repos[0]!.repo = repo;
      config.repos[0]!.rev = rev;
      writeFileSync(join(project, ".pre-commit-config.yaml"), JSON.stringify(config));
      execFileSync("git", ["add", ".pre-commit-config.yaml"], { cwd: project });
    });

    test("passes on a valid checkpoint", () => {
      const r = run("ckpt-validate", "--files", "checkpoints/good.json");
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/ckpt validate\.+Passed/);
    }, 600_000);

    test("over every file: the broken checkpoint fails; files outside its pattern are not passed to ckpt", () => {
      const r = run("--all-files");
      expect(r.status).toBe(1);
      expect(r.stdout).toContain("checkpoints/bad.json:");
      expect(r.stdout).not.toContain("notes.json");
    }, 600_000);
  });
});
