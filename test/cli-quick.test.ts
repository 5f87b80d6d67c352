/**
 * The quick parser (src/cli/quick.ts) must give every command exactly the arguments yargs gives it, or step aside.
 * Each command line below goes through both: where quick answers, its answer equals yargs' (yargs is the
 * independent reference); the lines that must go to yargs (help, typos, ambiguous arrays…) get undefined.
 */
import { describe, expect, test } from "vitest";
import yargs from "yargs";
import { commands } from "../src/cli/main.js";
import { quickArgs } from "../src/cli/quick.js";
import type { CommandDef } from "../src/cli/command.js";

async function viaYargs(def: CommandDef, argv: string[]): Promise<Record<string, unknown> | undefined> {
  let got: Record<string, unknown> | undefined;
  let failed = false;
  await yargs(argv)
    .scriptName("ckpt")
    .strict()
    .exitProcess(false)
    .fail(() => {
      failed = true;
    })
    .command(def.command, def.describe, def.builder, (a) => {
      got = a as Record<string, unknown>;
    })
    .parseAsync();
  return failed ? undefined : got;
}

const lines: Record<string, string[][]> = {
  diff: [
    ["diff", "a.json", "b.json"],
    ["diff", "a.json", "b.json", "--stat", "-q"],
    ["diff", "a.json", "b.json", "--format", "json-patch"],
    ["diff", "a.json", "b.json", "--format=markdown", "--ignore-volatile"],
    ["diff", "a.json", "b.json", "--ignore", "/messages/*/timestamp", "--json"],
    ["diff", "a.json", "b.json", "--input-format", "yoagent"],
    ["diff", "a.json", "b.json", "--reporter", "json-patch", "--format", "phi-core"],
    ["diff", "a.json", "b.json", "-r", "markdown", "-f", "yoagent"],
    ["diff", "a.json", "b.json", "-f", "deepagent"],
    ["diff", "--stat", "a.json", "b.json"],
  ],
  convert: [
    ["convert", "in.json", "-t", "deepagent"],
    ["convert", "in.json", "--to-format", "yoagent", "-o", "out.json", "--allow-lossy"],
  ],
  show: [
    ["show", "x.json"],
    ["show", "x.json", "--json"],
  ],
  ls: [
    ["ls", "sqlite:./a.db"],
    ["ls", "sqlite:./a.db", "--json"],
  ],
  migrate: [
    [
      "migrate",
      "--from",
      "sqlite:a.db",
      "--to",
      "postgres://h/db?schema=s",
      "--batch-size",
      "500",
      "--json",
      "--journal",
      "j",
    ],
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--on-conflict", "skip", "-q"],
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--on-conflict=overwrite", "--thread", "t1"],
    ["migrate", "--from", "file:./x", "--to", "redis://h", "-j", "3", "--to-library", "js"],
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--no-verify", "--dry-run"],
  ],
  prune: [["prune", "sqlite:a.db", "--keep-last", "1", "--json"]],
  schema: [
    ["schema", "list"],
    ["schema", "export", "out"],
  ],
  completion: [["completion", "zsh"]],
};
const mustFallBack: Record<string, string[][]> = {
  diff: [
    ["diff", "a.json"], // missing positional: yargs reports it
    ["diff", "a.json", "b.json", "c.json"], // extra positional
    ["diff", "a.json", "b.json", "--nope"], // unknown flag
    ["diff", "a.json", "b.json", "--help"],
    ["diff", "a.json", "b.json", "--format", "yaml"], // not a choice
    ["diff", "a.json", "b.json", "--stat", "--stat"],
    ["diff", "a.json", "--ignore", "/x", "b.json"], // yargs' array would swallow b.json
    ["diff", "-", "b.json"],
  ],
  convert: [["convert", "in.json", "-o", "out.json"]], // --to-format is demanded: yargs names it
  migrate: [
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--on-conflict", "bogus"], // not a choice
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--on-conflict"], // no value
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--no-verify", "--verify"], // both: yargs decides
    ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db", "--no-strictt"], // no such boolean
  ],
  schema: [["schema", "lst", "out"]], // a positional outside its choices (it used to run as export)
  completion: [["completion", "tcsh"]],
};

describe("quick parser = yargs", () => {
  for (const [name, cases] of Object.entries(lines)) {
    for (const argv of cases) {
      test(argv.join(" "), async () => {
        const def = await commands.find((c) => c.name === name)!.load();
        const quick = quickArgs(def, argv);
        const ref = await viaYargs(def, argv);
        expect(ref, "yargs accepts the line").toBeDefined();
        if (quick === undefined) return; // stepping aside is always allowed
        expect(quick).toEqual(ref);
      });
    }
  }
  test("the plain lines of diff, show, ls, migrate and prune are parsed quickly (no yargs)", async () => {
    for (const name of ["diff", "convert", "show", "ls", "migrate", "prune"]) {
      const def = await commands.find((c) => c.name === name)!.load();
      expect(quickArgs(def, lines[name]![0]!), name).toBeDefined();
    }
    const migrate = await commands.find((c) => c.name === "migrate")!.load();
    expect(quickArgs(migrate, lines.migrate!.at(-1)!)).toMatchObject({ verify: false, dryRun: true });
  });
  for (const [name, cases] of Object.entries(mustFallBack)) {
    for (const argv of cases) {
      test(`steps aside: ${argv.join(" ")}`, async () => {
        const def = await commands.find((c) => c.name === name)!.load();
        expect(quickArgs(def, argv)).toBeUndefined();
      });
    }
  }
});
