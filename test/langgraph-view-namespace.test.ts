/**
 * `ckpt view <store>#<thread> --namespace <subgraph ns>`: the page's history is that namespace's checkpoints (as the
 * real LangGraph JS SqliteSaver lists them, with their parents), each with the values the library reads there — not
 * an empty history (each checkpoint was loaded from the root namespace, where no checkpoint has its id).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { runCli } from "./helpers/cli-io.js";
import { copyFixture } from "./helpers/langgraph-tuples.js";

/** The JSON data a page carries (its `ckpt-data` element). */
function pageData(html: string): {
  history: Array<{ id: string; step: number }>;
  checkpoints: unknown[];
  title: string;
} {
  const m = /<script type="application\/json" id="ckpt-data">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m![1]!.replace(/<\\\//g, "</"));
}

describe("view --namespace <subgraph namespace>", () => {
  it("the history is the namespace's checkpoints, oldest first, as the library lists them", async () => {
    const file = copyFixture("js-a.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    // the subgraph's namespace and its checkpoints, from the library
    const all = [];
    for await (const t of saver.list({ configurable: { thread_id: "a-sub-1" } })) all.push(t);
    const ns = all.map((t) => t.config.configurable!.checkpoint_ns as string).find((n) => n !== "")!;
    expect(ns).toMatch(/^research:/);
    const theirs = [];
    for await (const t of saver.list({ configurable: { thread_id: "a-sub-1", checkpoint_ns: ns } })) theirs.push(t);
    saver.db.close();
    expect(theirs.length).toBeGreaterThan(2);
    const out = join(mkdtempSync(join(tmpdir(), "lg-view-ns-")), "page.html");
    const r = await runCli(["view", `sqlite:${file}#a-sub-1`, "--namespace", ns, "-o", out]);
    expect(r.code, r.err).toBe(0);
    const data = pageData(readFileSync(out, "utf8"));
    expect(data.title).toContain(`namespace '${ns}'`);
    expect(data.history.map((h) => h.id)).toEqual(theirs.map((t) => t.config.configurable!.checkpoint_id).reverse());
    expect(data.history.map((h) => h.step)).toEqual(theirs.map((t) => t.metadata!.step).reverse());
    // `log` with the same namespace lists the same checkpoints
    const log = await runCli(["log", `sqlite:${file}#a-sub-1`, "--namespace", ns, "--json"]);
    expect(log.code).toBe(0);
    const logged = JSON.parse(log.out) as
      | Array<{ checkpointId: string }>
      | { checkpoints: Array<{ checkpointId: string }> };
    const ids = (Array.isArray(logged) ? logged : logged.checkpoints).map((c) => c.checkpointId);
    expect(ids).toEqual(theirs.map((t) => t.config.configurable!.checkpoint_id));
  });
});
