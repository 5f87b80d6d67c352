/**
 * Issue #38 item 4: a cross-library hazard (JS cannot load Python's msgpack; Python's string channel versions; JS's
 * integer ones; inline values JS would drop) is a finding only when the user asks about the other library
 * (`--library`) or when the store holds both libraries' rows. So `--strict` passes every healthy store of one
 * library, fails it when asked about the other library, and fails a store that mixes them.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { copyFixture, LG_FIXTURES } from "./helpers/langgraph-tuples.js";
import { runCli } from "./helpers/cli-io.js";
import { join } from "node:path";

const rulesOf = async (...argv: string[]) => {
  const r = await runCli(["validate", ...argv, "--json"]);
  const report = JSON.parse(r.out);
  return report.files.flatMap((f: { issues: Array<{ rule: string }> }) => f.issues.map((i) => i.rule)) as string[];
};
const crossLibrary = (rules: string[]) => rules.filter((r) => r.startsWith("langgraph/cross-library/")).sort();

describe("--strict and the cross-library hazards", () => {
  it.each([
    ["python-a.sqlite", "js"],
    ["python-v4-chat.sqlite", "js"],
    ["python-v4-human-in-the-loop.sqlite", "js"],
    ["js-a.sqlite", "python"],
  ])("a healthy store (%s): --strict exit 0; asked about %s, the hazards fail it", async (file, other) => {
    const f = copyFixture(file);
    const r = await runCli(["validate", f, "--strict"]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(crossLibrary(await rulesOf(f))).toEqual([]);
    const asked = await runCli(["validate", f, "--strict", "--library", other]);
    expect(asked.code, asked.out).toBe(1);
    expect(asked.out).toContain("langgraph/cross-library/");
    // asked about its own library: still healthy
    const own = await runCli(["validate", f, "--strict", "--library", other === "js" ? "python" : "js"]);
    expect(own.code, own.out).toBe(0);
  });

  it("a store holding both libraries' rows: the hazards are findings without --library, and --strict fails", async () => {
    const f = copyFixture("python-a.sqlite");
    const db = new Database(f);
    db.prepare("ATTACH DATABASE ? AS js").run(join(LG_FIXTURES, "js-a.sqlite"));
    db.exec(`INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
               SELECT 'js-' || thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM js.checkpoints;
             INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
               SELECT 'js-' || thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM js.writes;`);
    db.exec("DETACH DATABASE js");
    db.close();
    const both = crossLibrary(await rulesOf(f));
    expect(both).toEqual([
      "langgraph/cross-library/integer-versions",
      "langgraph/cross-library/js-cannot-load",
      "langgraph/cross-library/string-versions",
    ]);
    expect((await runCli(["validate", f, "--strict"])).code).toBe(1);
    // --library still names the hazards of the library that will read it
    expect(crossLibrary(await rulesOf(f, "--library", "python"))).toEqual(["langgraph/cross-library/integer-versions"]);
  });
});
