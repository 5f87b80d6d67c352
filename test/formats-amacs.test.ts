import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { amacsAdapter as a } from "../src/formats/amacs.js";
import type { LossyNote } from "../src/formats/types.js";
import type { Checkpoint } from "../src/generated/types.js";

const dir = join(import.meta.dirname, "..", "fixtures", "amacs", "valid", "agent-home");
const doc = {
  name: "agent-home",
  files: {
    "agent-chat.org": readFileSync(join(dir, "agent-chat.org"), "utf8"),
    "scratchpad.org": readFileSync(join(dir, "scratchpad.org"), "utf8"),
  },
};

describe("amacs adapter", () => {
  it("parses exactly what amacs' own loaders return (generated/loaded-plists.eld)", () => {
    const n = a.parse(doc);
    expect(n.chat!.exchanges.map((e) => ({ human: e.human, agent: e.agent, tick: e.tick }))).toEqual([
      {
        human: "What's causing the ownership error?",
        agent: "Looking at main.rs line 45, `x` is moved into the closure.",
        tick: 1,
      },
      {
        human: "Can you show a fix?\nPlease keep it short.",
        agent: "Use a borrow:\n\n#+begin_src rust\nlet y = &x;\n#+end_src\n\nThat should compile.",
        tick: 2,
      },
      { human: "Summarize as an outline", agent: "", tick: 3 },
      { human: "ping", agent: "", tick: 4 },
    ]);
    expect(
      n.scratchpad!.notes.map(({ heading, thread, tick, content }) => ({ heading, thread, tick, content })),
    ).toEqual([
      {
        heading: "Working Notes",
        thread: null,
        tick: 1,
        content: "Human prefers short answers.\n\nSecond global note appended later.",
      },
      {
        heading: "Parser Investigation",
        thread: "rust-debugging",
        tick: 2,
        content: "Ownership error at main.rs:45.\n\nFixed with a borrow.",
      },
    ]);
  });

  it("one folder is one thread: exchanges become user/assistant pairs with the tick's timestamp, notes go to state.scratchpad", () => {
    const cp = a.toCanonical(a.parse(doc), doc);
    expect(cp.threadId).toBe("agent-home");
    expect(cp.messages).toHaveLength(8);
    expect(cp.messages[0]).toMatchObject({ role: "user", timestamp: Date.parse("2026-11-22T08:12:28Z") });
    expect(cp.state.scratchpad).toHaveLength(2);
  });

  it("writes replies that survive reload: heading-like lines are escaped and reported", () => {
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: "t",
      step: 1,
      state: {},
      messages: [
        { role: "user", content: [{ type: "text", text: "plan?" }], timestamp: Date.parse("2026-01-01T00:00:00Z") },
        { role: "assistant", content: [{ type: "text", text: "Plan:\n* one\n** two\n*** three" }] },
      ],
    };
    const lossy: LossyNote[] = [];
    const out = a.serialize(a.fromCanonical(cp, { lossy })) as { files: Record<string, string> };
    expect(out.files["agent-chat.org"]).toContain("** Agent\nPlan:\n,* one\n,** two\n*** three\n\n");
    expect(lossy.map((n) => n.pointer)).toEqual(["/messages/1/content", "/messages/1/content"]);
    const back = a.parse({ name: "t", files: out.files });
    expect(back.chat!.exchanges[0]!.agent).toBe("Plan:\n,* one\n,** two\n*** three"); // nothing cut off on reload
  });

  it("reads v3 chat files (read-only) and refuses to write v3", () => {
    const v3 = readFileSync(join(import.meta.dirname, "..", "fixtures", "amacs", "v3", "agent-chat.org"), "utf8");
    const d = { name: "old/agent-chat.org", text: v3 };
    expect(a.detect(d)).toMatchObject({ version: "v3" });
    const n = a.parse(d);
    expect(n.chat!.exchanges[0]).toMatchObject({
      tick: 7,
      human: "Hello agent, how are you?",
      think: "Thinking about response...",
    });
    expect(() => a.fromCanonical(a.toCanonical(n, d), { version: "v3", lossy: [] })).toThrow(/read-only/);
  });
});
