/**
 * A thread id may itself hold an '@' followed by something that looks like a checkpoint selector (`user@cafe`,
 * `bot@1234`): the address parser splits it as <thread>@<id prefix>, and before this fix show / log / view then
 * looked for thread 'user' and failed. The whole fragment is the thread when the part before the '@' names none.
 */
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openSaver } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const doc = readFileSync(join(ROOT, "fixtures/deepagent/valid/explicit-messages-thread.json"), "utf8");

describe("thread ids holding '@'", () => {
  it("ckpt's own store: show and log find 'user@cafe' (a hex-looking suffix), and a real selector still selects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-at-"));
    const uri = `sqlite:${join(dir, "s.db")}`;
    const saver = await openSaver(uri);
    await saver.save("user@cafe", doc);
    await saver.save("plain", doc);
    await saver.close();

    const show = await runCli(["show", `${uri}#user@cafe`]);
    expect(show.err).toBe("");
    expect(show.code).toBe(0);
    expect(show.out.length).toBeGreaterThan(0);

    const log = await runCli(["log", `${uri}#user@cafe`, "--json"]);
    expect(log.code).toBe(0);
    const entries = JSON.parse(log.out) as Array<{ threadId: string }>;
    expect(entries.map((e) => e.threadId)).toEqual(["user@cafe"]);

    // 'plain@<its own id prefix>' is still a selector on thread 'plain'
    const id = (
      JSON.parse((await runCli(["log", `${uri}#plain`, "--json"])).out) as Array<{ checkpointId: string }>
    )[0]!.checkpointId;
    const sel = await runCli(["show", `${uri}#plain@${id.slice(0, 6)}`]);
    expect(sel.code).toBe(0);
    expect(sel.out).toBe(show.out);
    // and a selector that names nothing on an existing thread is still an error, not a thread lookup
    const bad = await runCli(["show", `${uri}#plain@ffffffffff`]);
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/does not name it/);
  });

  it("LangGraph store: a thread renamed to 'a-chat@1234' is shown and logged whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-at-lg-"));
    const path = join(dir, "s.sqlite");
    copyFileSync(join(ROOT, "fixtures/langgraph/js-a.sqlite"), path);
    const db = new Database(path);
    const before = (
      db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = 'a-chat-1'").get() as { n: number }
    ).n;
    expect(before).toBeGreaterThan(1);
    db.prepare("UPDATE checkpoints SET thread_id = 'a-chat@1234' WHERE thread_id = 'a-chat-1'").run();
    db.prepare("UPDATE writes SET thread_id = 'a-chat@1234' WHERE thread_id = 'a-chat-1'").run();
    db.close();

    const log = await runCli(["log", `sqlite:${path}#a-chat@1234`, "--json"]);
    expect(log.err).toBe("");
    expect((JSON.parse(log.out) as unknown[]).length).toBe(before);
    const show = await runCli(["show", `sqlite:${path}#a-chat@1234`]);
    expect(show.code).toBe(0);
    // @~1 after the whole id still selects along its history
    const back = await runCli(["show", `sqlite:${path}#a-chat%401234@~1`]);
    expect(back.code).toBe(0);
  });
});
