/**
 * `ckpt copy <uri>#<thread>[@<checkpoint>] <uri>#<new-thread>` (issue #29): a whole history and a fork point, in the
 * same store and across stores (SQLite ⇄ PostgreSQL, into a ckpt store). The real JS library lists the new thread
 * and its state (getState of the graph that wrote the sample) equals the source's at that checkpoint; for a Python
 * store, `ckpt log` of the copy equals the source's up to the fork. An existing new thread is refused (exit 2)
 * unless --overwrite; --dry-run writes nothing.
 */
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";
import { chatApp, closeSaver, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgcopy");
const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgcopy-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};
const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

/** What the JS library gives for a thread (at a checkpoint): the graph's state and the ids it lists. */
async function jsState(saver: BaseCheckpointSaver, thread: string, at?: string) {
  try {
    const app = chatApp(saver);
    const st = await app.getState({ configurable: { thread_id: thread, ...(at ? { checkpoint_id: at } : {}) } });
    const ids: string[] = [];
    for await (const t of saver.list({ configurable: { thread_id: thread } }))
      ids.push(t.config.configurable!.checkpoint_id);
    return {
      values: JSON.parse(JSON.stringify(st.values)),
      next: st.next,
      tasks: JSON.parse(JSON.stringify(st.tasks.map((t) => ({ name: t.name, interrupts: t.interrupts })))),
      // the library puts the thread id it was asked for into the metadata it returns
      metadata: { ...st.metadata, thread_id: undefined },
      ids,
    };
  } finally {
    await closeSaver(saver);
  }
}

const chat2Ids = (f: string) => {
  const db = new Database(f, { readonly: true });
  const ids = db
    .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-2' AND checkpoint_ns = '' ORDER BY 1")
    .pluck()
    .all() as string[];
  db.close();
  return ids;
};

describe("copy within a LangGraph SQLite store (js-a)", () => {
  it("the whole thread: the library lists the copy, same checkpoint ids, same state", async () => {
    const f = copyOf("js-a.sqlite");
    const r = await ckpt("copy", `sqlite:${f}#a-chat-2`, `sqlite:${f}#a-chat-2-copy`);
    expect(r.code, r.err).toBe(0);
    const src = await jsState(sqliteSaver(f), "a-chat-2");
    const dst = await jsState(sqliteSaver(f), "a-chat-2-copy");
    expect(dst).toEqual(src);
    expect(dst.ids.length).toBeGreaterThan(2);
  });

  it("a fork point: the copy's newest state is the source's at that checkpoint, and its history ends there", async () => {
    const f = copyOf("js-a.sqlite");
    const ids = chat2Ids(f);
    const at = ids[2]!;
    const h0 = hash(f);
    const dry = await ckpt(
      "copy",
      `sqlite:${f}#a-chat-2@${at.slice(0, 13)}`,
      `sqlite:${f}#fork`,
      "--dry-run",
      "--json",
    );
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out)).toMatchObject({ upTo: at, checkpoints: 3, dryRun: true });
    expect(hash(f)).toBe(h0);
    expect((await ckpt("copy", `sqlite:${f}#a-chat-2@${at}`, `sqlite:${f}#fork`)).code).toBe(0);
    const src = await jsState(sqliteSaver(f), "a-chat-2", at);
    const dst = await jsState(sqliteSaver(f), "fork", at);
    // the copy keeps the ids: its newest checkpoint is the fork point
    expect((await jsState(sqliteSaver(f), "fork")).ids[0]).toBe(at);
    expect(dst.values).toEqual(src.values);
    expect(dst.tasks).toEqual(src.tasks);
    expect(dst.next).toEqual(src.next);
    expect(dst.metadata).toEqual(src.metadata);
    expect(dst.ids).toEqual(ids.slice(0, 3).reverse());
    // the fork resumes: the library writes on from it
    const saver = sqliteSaver(f);
    try {
      await chatApp(saver).invoke(
        { messages: [{ role: "user", content: "and then?" }] },
        { configurable: { thread_id: "fork" } },
      );
      const n = await (async () => {
        let k = 0;
        for await (const _ of saver.list({ configurable: { thread_id: "fork" } })) k++;
        return k;
      })();
      expect(n).toBeGreaterThan(3);
    } finally {
      await closeSaver(saver);
    }
  });

  it("an existing new thread is refused (exit 2) unless --overwrite", async () => {
    const f = copyOf("js-a.sqlite");
    const r = await ckpt("copy", `sqlite:${f}#a-chat-2`, `sqlite:${f}#a-chat-1`);
    expect(r.code).toBe(2);
    expect(r.err).toContain("#a-chat-1 exists");
    const o = await ckpt("copy", `sqlite:${f}#a-chat-2`, `sqlite:${f}#a-chat-1`, "--overwrite");
    expect(o.code, o.err).toBe(0);
    const src = await jsState(sqliteSaver(f), "a-chat-2");
    expect(await jsState(sqliteSaver(f), "a-chat-1")).toEqual(src);
  });
});

describe("copy across stores", () => {
  it("SQLite → PostgreSQL → SQLite, whole and forked: the JS library reads the same state", async () => {
    const f = copyOf("js-a.sqlite");
    const ids = chat2Ids(f);
    const s = pgdb.schema("x");
    await pgdb.query(`CREATE SCHEMA ${s}`);
    const pg = `${PG}?schema=${s}`;
    expect((await ckpt("copy", `sqlite:${f}#a-chat-2`, `${pg}#whole`)).code).toBe(0);
    expect((await ckpt("copy", `sqlite:${f}#a-chat-2@${ids[3]}`, `${pg}#fork`)).code).toBe(0);
    const whole = await jsState(sqliteSaver(f), "a-chat-2");
    expect(await jsState(pgSaver(PG, s), "whole")).toEqual(whole);
    const at = await jsState(sqliteSaver(f), "a-chat-2", ids[3]);
    const fork = await jsState(pgSaver(PG, s), "fork", ids[3]);
    expect(fork.values).toEqual(at.values);
    expect(fork.ids).toEqual(ids.slice(0, 4).reverse());
    const back = join(mkdtempSync(join(tmpdir(), "lgcopy-")), "back.sqlite");
    const r = await ckpt("copy", `${pg}#fork`, `sqlite:${back}#fork-back`);
    expect(r.code, r.err).toBe(0);
    const b = await jsState(sqliteSaver(back), "fork-back", ids[3]);
    expect(b.values).toEqual(at.values);
    expect(b.ids).toEqual(fork.ids);
  });

  it("into a ckpt store: the checkpoint as the new thread's document", async () => {
    const f = copyOf("js-a.sqlite");
    const ids = chat2Ids(f);
    const d = mkdtempSync(join(tmpdir(), "lgcopy-"));
    expect((await ckpt("copy", `sqlite:${f}#a-chat-2@${ids[2]}`, `file:${d}#saved`)).code).toBe(0);
    const a = await ckpt("show", `sqlite:${f}#a-chat-2@${ids[2]}`, "--json");
    const b = await ckpt("show", `file:${d}#saved`, "--json");
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out).messages).toEqual(JSON.parse(a.out).messages);
  });

  it("a ckpt store's thread into a ckpt store; into a LangGraph store: exit 2, dry run or not, nothing written", async () => {
    const d = mkdtempSync(join(tmpdir(), "lgcopy-"));
    const e = mkdtempSync(join(tmpdir(), "lgcopy-"));
    const f = copyOf("js-a.sqlite");
    expect((await ckpt("copy", `sqlite:${f}#a-chat-1`, `file:${d}#one`)).code).toBe(0);
    const r = await ckpt("copy", `file:${d}#one`, `file:${e}#two`);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse((await ckpt("show", `file:${e}#two`, "--json")).out).messages).toEqual(
      JSON.parse((await ckpt("show", `file:${d}#one`, "--json")).out).messages,
    );
    const h0 = hash(f);
    for (const dry of [["--dry-run"], []]) {
      const x = await ckpt("copy", `file:${d}#one`, `sqlite:${f}#from-doc`, ...dry);
      expect(x.code).toBe(2);
      expect(x.err).toContain("ckpt migrate --to-format langgraph");
    }
    expect(hash(f)).toBe(h0);
  });

  it("a Python store (python-a): ckpt log of the fork equals the source's up to the fork point", async () => {
    const f = copyOf("python-a.sqlite");
    const db = new Database(f, { readonly: true });
    const [thread, n] = db
      .prepare(
        "SELECT thread_id, count(*) FROM checkpoints WHERE checkpoint_ns = '' GROUP BY 1 ORDER BY 2 DESC LIMIT 1",
      )
      .raw()
      .get() as [string, number];
    const ids = db
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY 1")
      .pluck()
      .all(thread) as string[];
    db.close();
    expect(n).toBeGreaterThan(3);
    const at = ids[2]!;
    expect((await ckpt("copy", `sqlite:${f}#${thread}@${at}`, `sqlite:${f}#py-fork`)).code).toBe(0);
    const strip = (out: string) =>
      (JSON.parse(out) as Array<Record<string, unknown>>).map(({ threadId: _t, ...e }) => e);
    const src = strip((await ckpt("log", `sqlite:${f}#${thread}`, "--json")).out);
    const dst = strip((await ckpt("log", `sqlite:${f}#py-fork`, "--json")).out);
    // the source's history up to the fork: the fork point and its ancestors (later branches left out)
    const byId = new Map(src.map((e) => [e.checkpointId, e]));
    const chain: Array<Record<string, unknown>> = [];
    for (let e = byId.get(at); e; e = byId.get(e.parentId)) chain.push(e);
    expect(chain.length).toBe(3);
    expect(dst).toEqual(chain);
    expect(src.length).toBeGreaterThan(dst.length);
  });
});
