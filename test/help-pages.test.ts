/**
 * #38 item 14: every command's --help, read as a user reads it, at the width ckpt lays help out for a pipe (100
 * columns) and for an 80-column terminal. What each page must show is taken from the command definitions themselves
 * (their `.example(…)` calls, recorded by a stand-in for yargs), not from the help code under test.
 */
import { describe, expect, it } from "vitest";
import { main, commands } from "../src/cli/main.js";
import { cliIO } from "./helpers/cli-io.js";

async function help(argv: string[], columns?: number): Promise<string> {
  const io = cliIO();
  if (columns !== undefined) (io.stdout as { columns?: number }).columns = columns;
  const code = await main(argv, io);
  expect(code, io.err()).toBe(0);
  return io.out();
}

/** The examples a command's builder declares: a stand-in for yargs that records `.example` and ignores the rest. */
async function declaredExamples(name: string): Promise<Array<[string, string]>> {
  const def = await commands.find((c) => c.name === name)!.load();
  const seen: Array<[string, string]> = [];
  const fake: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_, prop) =>
        prop === "example"
          ? (c: string, d: string) => {
              seen.push([c, d]);
              return fake;
            }
          : () => fake,
    },
  );
  def.builder(fake as never);
  return seen;
}

const NAMES = commands.map((c) => c.name);

describe.each([100, 80])("ckpt <command> --help at %i columns", (width) => {
  const columns = width === 100 ? undefined : width;

  it.each(NAMES)("%s: its own options only, examples whole, lists aligned, labels apart", async (name) => {
    const page = await help([name, "--help"], columns);
    const lines = page.split("\n");
    // --version is `ckpt --version`'s, not a command's option; --aes-key-file only where a store can be read
    expect(page).not.toMatch(/--version/);
    if (name === "schema" || name === "completion") expect(page).not.toMatch(/--aes-key-file/);
    else expect(page).toMatch(/--aes-key-file/);

    // every declared example: its command whole on a line of its own, its description in the comment lines above
    const examples = await declaredExamples(name);
    expect(examples.length).toBeGreaterThan(0);
    for (const [command, description] of examples) {
      const at = lines.indexOf(`  ${command}`);
      expect(at, `${name}: example '${command}' on one line`).toBeGreaterThan(0);
      let from = at;
      while (lines[from - 1]?.startsWith("  # ")) from--;
      const comment = lines
        .slice(from, at)
        .map((l) => l.slice(4))
        .join(" ");
      expect(comment).toBe(description);
    }
    const exampleLines = new Set(examples.map(([c]) => `  ${c}`));

    // nothing else runs past the width
    for (const l of lines) if (!exampleLines.has(l)) expect(l.length, l).toBeLessThanOrEqual(width);

    // a [choices: …] list on lines of its own starts where the option descriptions start, and so do its
    // continuation lines (yargs right-aligned each line, leaving a ragged block)
    const options = lines.slice(lines.indexOf("Options:"), lines.indexOf("Examples:"));
    const column = /^(\s+(?:-\w, )?--[\w-]+\s+)\S/.exec(options.find((l) => /^\s+(-\w, )?--/.test(l))!)![1]!.length;
    for (let i = 0; i < options.length; i++) {
      if (!/^\s+\[[^\]]*\]?.*\[choices:/.test(options[i]!)) continue;
      expect(options[i]!.indexOf("["), options[i]).toBe(column);
      for (let j = i + 1; j < options.length && /^\s+"/.test(options[j]!); j++)
        expect(options[j]!.search(/\S/), options[j]).toBe(column);
    }
    // a type label never runs into the text before it ("or a folder[string]")
    expect(page).not.toMatch(/[^\s[]\[(string|number|boolean|array)\]/);
  });

  it("ckpt --help still names --version", async () => {
    expect(await help(["--help"], columns)).toMatch(/^\s+--version\s+Show version number/m);
  });
});

describe("the pages the issue quoted", () => {
  it("validate: the JUnit example on one line, --version not among its options", async () => {
    const page = await help(["validate", "--help"]);
    expect(page).toContain(
      "  # text on stdout, JUnit to a file\n  ckpt validate 'runs/**/*.json' --reporter text --reporter junit=out/junit.xml\n",
    );
    expect(page.slice(page.indexOf("Options:"))).not.toContain("--version");
  });

  it("ckpt validate --version still prints the version (a hidden global)", async () => {
    const io = cliIO();
    expect(await main(["validate", "--version"], io)).toBe(0);
    expect(io.out().trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
