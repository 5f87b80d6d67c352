/**
 * `ckpt search`: a known sentence of each sample store — LangGraph (fixtures/, ../shared/formats/, the version
 * matrix), Mastra, the AI SDK, the Agents SDK — is found in the right thread and message. The sentences and their
 * places come from what each library read back itself (fixtures/versions/<system>/<release>/readback.json: getState,
 * Memory.recall, convertToModelMessages, RunState.history), not from ckpt.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const ROOT = resolve(import.meta.dirname, "..");
const V = (p: string) => resolve(ROOT, "fixtures/versions", p);
const readback = (p: string) => JSON.parse(readFileSync(V(p), "utf8"));

interface JsonHit {
  source: string;
  thread: string;
  checkpoint?: string;
  message?: number;
  role: string;
  field: string;
  tool?: string;
  snippet: string;
  match: [number, number];
}
const hitsOf = (out: string): JsonHit[] =>
  out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JsonHit);

describe("ckpt search finds a known sentence in each sample store", () => {
  test("LangGraph (version matrix 1.7): every message the graph's getState gives, at its index, with its role", async () => {
    const rb = readback("langgraph/1.7/readback.json");
    const thread = rb.threads[0];
    const role = { human: "user", ai: "assistant", tool: "tool", system: "system" } as Record<string, string>;
    let checked = 0;
    for (const [i, m] of (thread.messages as Array<{ type: string; content: unknown }>).entries()) {
      if (typeof m.content !== "string" || m.content === "") continue;
      const r = await runCli(["search", m.content, V("langgraph/1.7/store.db"), "--in", "tools", "--json"]);
      expect(r.code, r.err).toBe(0);
      const hit = hitsOf(r.out).find((h) => h.message === i);
      expect(hit, `${m.content} at #${i}`).toMatchObject({ thread: thread.id, role: role[m.type] });
      expect(hit!.snippet.slice(...hit!.match)).toBe(m.content);
      expect(hit!.checkpoint).toMatch(/^[0-9a-f-]{36}$/);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  test("LangGraph (fixtures/ and ../shared/formats/): a Python store's thread and message", async () => {
    const a = await runCli(["search", "What is a LangGraph checkpoint?", "fixtures/langgraph/python-a.sqlite"], {
      cwd: ROOT,
    });
    expect(a.code, a.err).toBe(0);
    expect(a.out.split("\n")[0]).toMatch(
      /^fixtures\/langgraph\/python-a\.sqlite#a-chat-1@[0-9a-f-]{36} #0 user: What is a LangGraph checkpoint\?$/,
    );
    const shared = "/work/shared/formats/langgraph/from-repo/python-v4-chat.sqlite";
    const b = await runCli(["search", "the city is san francisco", shared, "--json"]);
    expect(b.code, b.err).toBe(0);
    expect(hitsOf(b.out)[0]).toMatchObject({ thread: "chatbot_conversation", message: 0, role: "user" });
  });

  test("Mastra (1.71): a user's text in its thread, and the message show numbers the same", async () => {
    const rb = readback("mastra/1.71/readback.json");
    const t = (
      rb.threads as Array<{ id: string; messages: Array<{ content: { parts: Array<{ text?: string }> } }> }>
    )[0]!;
    const sentence = t.messages[0]!.content.parts.find((p) => p.text)!.text!;
    const r = await runCli(["search", sentence, V("mastra/1.71/store.db"), "--json"]);
    expect(r.code, r.err).toBe(0);
    const hit = hitsOf(r.out).find((h) => h.thread === t.id)!;
    expect(hit).toMatchObject({ role: "user", field: "text" });
    const shown = await runCli(["show", `${V("mastra/1.71/store.db")}#${t.id}`, "--json"]);
    expect(JSON.stringify(JSON.parse(shown.out).messages[hit.message!])).toContain(sentence);
  });

  test("AI SDK (6.0): the assistant's answer convertToModelMessages gives", async () => {
    const rb = readback("ai/6.0/readback.json");
    const model = rb.chats.text.model as Array<{ role: string; content: Array<{ text: string }> }>;
    const i = model.findIndex((m) => m.role === "assistant");
    const r = await runCli(["search", model[i]!.content[0]!.text, V("ai/6.0/text.json"), "--json"]);
    expect(r.code, r.err).toBe(0);
    expect(hitsOf(r.out)).toEqual([expect.objectContaining({ message: i, role: "assistant", thread: "text" })]);
  });

  test("Agents SDK (0.20): the user's request of a RunState paused on an approval", async () => {
    const rb = readback("openai-agents/0.20/readback.json");
    const first = rb.paused.history[0] as { role: string; content: string };
    const r = await runCli(["search", first.content, V("openai-agents/0.20/runstate.json"), "--json"]);
    expect(r.code, r.err).toBe(0);
    expect(hitsOf(r.out)).toEqual([expect.objectContaining({ message: 0, role: "user" })]);
  });

  test("a folder: its documents and its SQLite stores, files that are no conversation passed over", async () => {
    const r = await runCli(["search", "-l", "sunny", "fixtures/versions/"], { cwd: ROOT });
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines).toContain("fixtures/versions/langgraph/1.7/store.db#trip-1");
    expect(lines).toContain("fixtures/versions/mastra/1.71/store.db#signal-1");
    expect(lines).toContain("fixtures/versions/openai-agents/0.20/runstate-done.json#runstate-done");
    expect(new Set(lines).size).toBe(lines.length);
    expect(r.err).toMatch(/files in the folders named not read: not conversations/);
  });
});

describe("ckpt search's options and exit codes", () => {
  const store = "fixtures/langgraph/python-a.sqlite";
  test("exit 1 when nothing matches (grep's convention), 2 for a bad regular expression or --in", async () => {
    expect((await runCli(["search", "no such sentence anywhere", store], { cwd: ROOT })).code).toBe(1);
    const bad = await runCli(["search", "--regex", "a(b", store], { cwd: ROOT });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--regex "a\(b"/);
    expect((await runCli(["search", "x", store, "--in", "nowhere"], { cwd: ROOT })).code).toBe(2);
  });

  test("-i, --regex, --role, --tool and --in tools", async () => {
    const lit = await runCli(["search", "WHAT IS A LANGGRAPH", store, "--json"], { cwd: ROOT });
    expect(lit.code).toBe(1);
    const ci = await runCli(["search", "-i", "WHAT IS A LANGGRAPH", store, "--json"], { cwd: ROOT });
    expect(hitsOf(ci.out).length).toBeGreaterThan(0);
    const re = await runCli(["search", "--regex", "Lang[Gg]raph check\\w+", store, "--json", "--role", "user"], {
      cwd: ROOT,
    });
    expect(hitsOf(re.out).length).toBeGreaterThan(0);
    expect(hitsOf(re.out).every((h) => h.role === "user")).toBe(true);
    const tool = await runCli(["search", "checkpoint", store, "--tool", "search", "--json"], { cwd: ROOT });
    const hits = hitsOf(tool.out);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.tool === "search" && (h.field === "toolCall" || h.field === "toolResult"))).toBe(true);
    // tool arguments are only searched when asked for
    const plain = hitsOf((await runCli(["search", "checkpoint", store, "--json"], { cwd: ROOT })).out);
    expect(plain.some((h) => h.field === "toolCall")).toBe(false);
  });

  test("--all-checkpoints reads every checkpoint of a LangGraph thread; the default only the newest", async () => {
    const newest = hitsOf((await runCli(["search", "checkpoint", store, "--json"], { cwd: ROOT })).out);
    const all = hitsOf(
      (await runCli(["search", "checkpoint", store, "--json", "--all-checkpoints"], { cwd: ROOT })).out,
    );
    expect(new Set(newest.map((h) => `${h.thread}@${h.checkpoint}`)).size).toBe(
      new Set(newest.map((h) => h.thread)).size,
    );
    expect(new Set(all.map((h) => h.checkpoint)).size).toBeGreaterThan(new Set(newest.map((h) => h.checkpoint)).size);
  });

  test("the match is highlighted on a terminal, never when piped or with NO_COLOR", async () => {
    const piped = await runCli(["search", "LangGraph checkpoint", store], { cwd: ROOT });
    expect(piped.out).not.toContain("\u001b[");
    const tty = await runCli(["search", "LangGraph checkpoint", store], {
      cwd: ROOT,
      env: { FORCE_COLOR: "1", NO_COLOR: "" },
    });
    expect(tty.out).toContain("\u001b[1m\u001b[31mLangGraph checkpoint");
  });

  test("a source that cannot be read is named and the others are searched: its exit code, never 'not found'", async () => {
    const r = await runCli(["search", "What is a LangGraph checkpoint?", "no-such-file.json", store], { cwd: ROOT });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/no-such-file\.json/);
    expect(r.out).toMatch(/a-chat-1/);
  });
});

describe("the LangGraph reader search goes through", () => {
  test("gives each thread's newest checkpoint exactly as show reads it (the tuple converted without a text round trip)", async () => {
    const { readConversations } = await import("../src/cli/conversations.js");
    const { cliIO } = await import("./helpers/cli-io.js");
    const stores = [
      resolve(ROOT, "fixtures/langgraph/python-a.sqlite"),
      resolve(ROOT, "fixtures/langgraph/python-v1-persistence.sqlite"),
      V("langgraph/1.7/store.db"),
      V("langgraph/0.2/store.db"),
      "/work/shared/formats/langgraph/from-repo/python-v4-human-in-the-loop.sqlite",
    ];
    let n = 0;
    for (const s of stores) {
      // read first: a CLI run in this process closes the stores the CLI opened when it ends
      const read: Array<{ threadId: string; checkpoint: unknown }> = [];
      for await (const r of readConversations([s], cliIO(), {})) {
        expect(r.ok, r.ok ? "" : r.error.format()).toBe(true);
        if (r.ok) read.push(r.value);
      }
      for (const c of read) {
        const shown = await runCli(["show", `${s}#${c.threadId}`, "--json"]);
        expect(shown.code, shown.err).toBe(0);
        expect(JSON.parse(JSON.stringify(c.checkpoint)), `${s}#${c.threadId}`).toEqual(JSON.parse(shown.out));
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(12);
  });
});
