/**
 * Issue #38 item 5: messages that say what happened. `show 's.sqlite#<thread>@zzzz'` (zzzz is no checkpoint id)
 * says the thread exists and the checkpoint does not, not "no checkpoint for thread '<thread>@zzzz'"; `delete --yes`
 * of a thread in a store another connection holds locked says it was deleting that thread, not "pruning (…)".
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { copyFixture } from "./helpers/langgraph-tuples.js";
import { runCli } from "./helpers/cli-io.js";

describe("show of an existing thread at a checkpoint that is not there", () => {
  it("says the thread exists and names the checkpoint asked for (exit 3)", async () => {
    const f = copyFixture("python-a.sqlite");
    const r = await runCli(["show", `sqlite:${f}#a-chat-1@zzzz`]);
    expect(r.code).toBe(3);
    expect(r.err).toContain("thread 'a-chat-1' exists, but it has no checkpoint 'zzzz'");
    expect(r.err).not.toContain("no checkpoint for thread 'a-chat-1@zzzz'");
    // a thread the store does not hold is still named as the store lacking it
    const none = await runCli(["show", `sqlite:${f}#nope@zzzz`]);
    expect(none.code).toBe(3);
    expect(none.err).toContain("no checkpoint for thread 'nope@zzzz'");
  });

  it("a thread whose id holds '@' is still read whole", async () => {
    const f = copyFixture("python-a.sqlite");
    const db = new Database(f);
    db.exec(`INSERT INTO checkpoints SELECT 'a-chat-1@zzzz', checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
             FROM checkpoints WHERE thread_id = 'a-chat-1'`);
    db.close();
    const r = await runCli(["show", `sqlite:${f}#a-chat-1@zzzz`]);
    expect(r.code, r.err).toBe(0);
  });
});

describe("delete --yes of a thread in a locked store", () => {
  it("names the deletion, not a prune (exit 4)", async () => {
    const f = copyFixture("python-a.sqlite");
    const holder = new Database(f);
    holder.pragma("busy_timeout = 0");
    holder.exec("BEGIN EXCLUSIVE");
    try {
      const r = await runCli(["delete", `sqlite:${f}#a-chat-1`, "--yes"]);
      expect(r.code, r.err).toBe(4);
      expect(r.err).not.toContain("pruning");
      expect(r.err).toMatch(/deleting thread 'a-chat-1'.*locked/);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  });
});
