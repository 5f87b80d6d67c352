/** `ckpt view` on the command line: writes the page atomically, names it, stdout, --diff, and the usage/input errors. */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

const root = join(import.meta.dirname, "..");
function io(cwd: string): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd,
    out: () => out,
    err: () => err,
  };
}
/** The page's data element, parsed. */
const data = (html: string) =>
  JSON.parse(/<script type="application\/json" id="ckpt-data">([\s\S]*?)<\/script>/.exec(html)![1]!);

describe("ckpt view (CLI)", () => {
  it("writes <input name>.html in the current folder, self-contained, with the sample's messages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-cli-"));
    const t = io(dir);
    expect(await main(["view", join(root, "fixtures/deepagent/valid/user_42_session_1.json")], t)).toBe(0);
    expect(readdirSync(dir)).toEqual(["user_42_session_1.html"]);
    const html = readFileSync(join(dir, "user_42_session_1.html"), "utf8");
    expect(t.out()).toBe(`${join(dir, "user_42_session_1.html")} (${Buffer.byteLength(html)} bytes)\n`);
    // nothing from the network: no src/href to http(s) in the page's own markup, no link/stylesheet elements
    expect(html).not.toMatch(/<(link|iframe|object|embed)\b|\ssrc="(https?:)?\/\//i);
    const d = data(html);
    expect(d.kind).toBe("checkpoint");
    // the sample's four messages: "Create a project plan", "Plan written to /plan.md.", …
    expect(d.checkpoints[0].messages.map((i: number) => d.pool[i].blocks[0].x)).toEqual([
      "Create a project plan",
      "Plan written to /plan.md.",
      "Now do the next task",
      "Resumed: README is next.",
    ]);
    expect(d.checkpoints[0].state.todos).toEqual([
      { id: "1", content: "Outline the project", status: "in_progress" },
      { id: "2", content: "Write README", status: "pending" },
    ]);
  });

  it("-o - prints the page; -o names the file; an amacs folder and a saver thread are inputs too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-cli-"));
    const t = io(dir);
    expect(await main(["view", join(root, "fixtures/amacs/valid/agent-home"), "-o", "-"], t)).toBe(0);
    expect(t.out()).toMatch(/^<!doctype html>/);
    expect(data(t.out()).checkpoints[0].format).toBe("amacs");
    const t2 = io(dir);
    expect(
      await main(
        ["view", `file:${join(root, "fixtures/savers/deepagent-filesaver")}#user:42/session#1`, "-o", "sub/page.html"],
        t2,
      ),
    ).toBe(0);
    expect(data(readFileSync(join(dir, "sub/page.html"), "utf8")).checkpoints[0].threadId).toBe("user:42/session#1");
  });

  it("--diff writes the page of the semantic diff (the same change records as ckpt diff --json)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-cli-"));
    const a = join(root, "fixtures/diff/ckpt");
    const files = ["base.json", "after.json"];
    const t = io(dir);
    expect(await main(["view", "--diff", join(a, files[0]!), join(a, files[1]!), "-o", "d.html"], t)).toBe(0);
    const t2 = io(dir);
    await main(["diff", join(a, files[0]!), join(a, files[1]!), "--json"], t2);
    const viaDiff = JSON.parse(t2.out());
    const d = data(readFileSync(join(dir, "d.html"), "utf8"));
    expect(d.kind).toBe("diff");
    expect(d.diff.summary).toEqual(viaDiff.summary);
    expect(d.diff.changes).toEqual(viaDiff.changes);
  });

  it("usage and input errors: one line, documented exit codes, nothing written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-view-cli-"));
    let t = io(dir);
    expect(await main(["view", "missing.json"], t)).toBe(3);
    expect(t.err()).toBe("ckpt: missing.json: no such file or directory\n");
    t = io(dir);
    expect(await main(["view", "--diff", "a.json"], t)).toBe(2);
    expect(t.err()).toMatch(/--diff needs two checkpoints, got 1/);
    t = io(dir);
    expect(await main(["view", "a.json", "--port", "8080"], t)).toBe(2);
    t = io(dir);
    expect(await main(["view", join(root, "fixtures/garbage/truncated.json")], t)).toBe(3);
    expect(t.err().split("\n").length).toBe(2);
    expect(existsSync(join(dir, "truncated.html"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
