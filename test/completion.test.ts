/**
 * #15 item 24: `ckpt completion bash|zsh|fish` prints a script each shell accepts (bash -n, zsh -n, fish -n) and that
 * completes in the real shell: `ckpt mi<Tab>` → migrate, `ckpt show --format de<Tab>` → deepagent (zsh driven through
 * a pseudo-terminal with zsh/zpty, fish with `complete -C`, bash through its completion function). The scripts are
 * generated from the command definitions: every command and option is in each. Also: examples in `ls` and `show`
 * help, format choices in `show` and `replay` help.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main, commands } from "../src/cli/main.js";
import { describeCommand } from "../src/cli/commands/completion.js";
import { FORMAT_CHOICES } from "../src/formats/index.js";

async function ckpt(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
  });
  return { code, out, err };
}

/** The shell binary, or a failure saying how to install it (the CI script installs zsh and fish). */
function shell(name: string): string {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${name} is not installed: apt-get install -y zsh fish (.ci/run installs them)`);
  return r.stdout.trim();
}

let dir: string;
const script: Record<string, string> = {};
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-completion-"));
  for (const s of ["bash", "zsh", "fish"]) {
    const r = await ckpt("completion", s);
    expect(r.code, r.err).toBe(0);
    script[s] = join(dir, `ckpt.${s}`);
    writeFileSync(script[s]!, r.out);
  }
  // a `ckpt` on PATH for zsh, which completes only commands it can find
  writeFileSync(join(dir, "ckpt"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(dir, "ckpt"), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ckpt completion", () => {
  it("each script is valid syntax for its shell", () => {
    execFileSync(shell("bash"), ["-n", script.bash!]);
    execFileSync(shell("zsh"), ["-n", script.zsh!]);
    execFileSync(shell("fish"), ["-n", script.fish!]);
  });

  it("bash: ckpt mi → migrate; show --format de → deepagent; completion → the shells", () => {
    const complete = (words: string[]) =>
      execFileSync(
        shell("bash"),
        [
          "-c",
          `source ${script.bash}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _ckpt; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      )
        .trim()
        .split("\n");
    expect(complete(["ckpt", "mi"])).toEqual(["migrate"]);
    expect(complete(["ckpt", "show", "--format", "de"])).toEqual(["deepagent"]);
    expect(complete(["ckpt", "migrate", "--on-c"])).toEqual(["--on-conflict"]);
    expect(complete(["ckpt", "completion", ""]).sort()).toEqual(["bash", "fish", "zsh"]);
  });

  it("fish: ckpt mi → migrate (with its description); show --format de → deepagent", () => {
    const complete = (line: string) =>
      execFileSync(shell("fish"), ["-c", `source ${script.fish}; complete -C '${line}'`], { encoding: "utf8" })
        .trim()
        .split("\n");
    expect(complete("ckpt mi")).toEqual([
      "migrate\tCopy every checkpoint from one saver to another (and convert formats), verified and resumable",
    ]);
    expect(complete("ckpt show --format de").map((l) => l.split("\t")[0])).toEqual(["deepagent"]);
    expect(complete("ckpt replay --state-t").map((l) => l.split("\t")[0])).toEqual(["--state-tools"]);
  });

  it("zsh: ckpt mi<Tab> → ckpt migrate, ckpt show --format de<Tab> → deepagent, in an interactive zsh", () => {
    // drive an interactive zsh in a pseudo-terminal, type the line and Tab, read back what the line editor shows
    const driver = join(dir, "drive.zsh");
    writeFileSync(
      driver,
      `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; PATH=${dir}:\\$PATH; autoload -Uz compinit; compinit -u -D; source ${script.zsh}; setopt nobeep"
zpty -w -n z "$1"$'\\t'
# read what the line editor echoes until the completed word shows (or 15 s on a loaded machine)
local out chunk
integer i
for (( i = 0; i < 150; i++ )); do
  while zpty -r -t z chunk; do out+=$chunk; done
  [[ \${out//$'\\e'[[0-9;?]#[A-Za-z]/} == *"$2"* ]] && break
  sleep 0.1
done
print -r -- "$out"
zpty -d z
`,
    );
    const typed = (line: string, want: string) =>
      execFileSync(shell("zsh"), ["-f", driver, line, want], { encoding: "utf8", timeout: 30_000 }).replace(
        /\x1b\[[0-9;?]*[A-Za-z]|[\b\r]/g,
        "",
      );
    expect(typed("ckpt mi", "migrate")).toContain("ckpt migrate");
    expect(typed("ckpt show --format de", "deepagent")).toContain("ckpt show --format deepagent");
  }, 60_000);

  it("is generated from the command definitions: every command and every option is in each script", async () => {
    const defs = (await Promise.all(commands.map((c) => c.load()))).map(describeCommand);
    expect(defs.map((d) => d.name)).toContain("completion");
    for (const d of defs) {
      for (const s of ["bash", "zsh", "fish"] as const) {
        const text = (await ckpt("completion", s)).out;
        expect(text, `${s}: ${d.name}`).toContain(d.name);
        for (const o of d.options)
          expect(text, `${s}: ${d.name} --${o.name}`).toMatch(
            s === "fish"
              ? new RegExp(`-n '__fish_seen_subcommand_from ${d.name}'.* -l ${o.name} `)
              : new RegExp(`--${o.name}\\b`),
          );
      }
    }
  });

  it("an unknown shell is a usage error", async () => {
    const r = await ckpt("completion", "tcsh");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/tcsh/);
  });
});

describe("help texts", () => {
  it("ls and show have examples; show and replay list the formats", async () => {
    for (const c of ["ls", "show"]) {
      const h = await ckpt(c, "--help");
      expect(h.out).toContain("Examples:");
      expect(h.out).toMatch(new RegExp(`ckpt ${c} .*(sqlite|redis)`));
    }
    for (const c of ["show", "replay"]) {
      const h = (await ckpt(c, "--help")).out.replace(/\s+/g, " ");
      expect(h).toContain(`[choices: ${FORMAT_CHOICES.map((f) => `"${f}"`).join(", ")}]`);
    }
  });
});
