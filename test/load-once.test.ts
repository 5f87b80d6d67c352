/**
 * An address is parsed once and a checkpoint loaded once: `show`, `view`, `diff`, `convert` and `validate` of a store's
 * thread load each checkpoint they read exactly once, and open the store once per input. Before, `show <ckpt
 * store>#t` loaded the document twice (the address resolver loaded it only to learn its id, then loaded it again),
 * a LangGraph `#t@~1` listed the thread's history twice before loading the checkpoint, `view` of a LangGraph thread
 * loaded the addressed checkpoint once to find it and again for the timeline, and `validate <store>#t` opened the
 * store three times (a LangGraph probe, a Chat SDK probe, then the document).
 *
 * The stores are real (a SQLite store written through the library, a LangGraph SQLite fixture); `openStore` is wrapped
 * so that every store the CLI opens counts what it reads: ckpt's own stores their `load`/`loadMany` calls, a LangGraph
 * store its checkpoint reads (`getTuple`, which `load`, `loadAt` and `exists` go through) and its `history` listings.
 * Each conversion to the canonical checkpoint (the format adapter's `toCanonical`) is counted too: once per checkpoint.
 * The expected figures come from the stores themselves (better-sqlite3 lists a thread's checkpoints).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { OpenedStore } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";

/** What the stores the CLI opened were asked, in order: `open <uri>`, `load <thread>`, `getTuple <thread>@<id>`, … */
const reads: string[] = [];

vi.mock("../src/savers/index.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../src/savers/index.js")>();
  const count = <T extends object>(o: T, name: keyof T & string, key: (args: unknown[]) => string) => {
    const f = o[name] as unknown as (...a: unknown[]) => unknown;
    (o as Record<string, unknown>)[name] = (...a: unknown[]) => {
      reads.push(`${name} ${key(a)}`);
      return f.apply(o, a);
    };
  };
  return {
    ...m,
    openStore: async (...args: Parameters<typeof m.openStore>): Promise<OpenedStore> => {
      const opened = await m.openStore(...args);
      reads.push(`open ${opened.layout}`);
      if (opened.layout === "langgraph") {
        // the one place a LangGraph checkpoint is read (the Saver view's load, loadAt and exists go through it)
        count(opened.store, "getTuple", (a) => `${a[0]}@${a[2] ?? "latest"}`);
        count(opened.store, "history", (a) => String(a[0]));
      } else {
        count(opened.saver, "load", (a) => String(a[0]));
        count(opened.saver, "loadMany", (a) => JSON.stringify(a[0]));
      }
      return opened;
    },
  };
});

const ROOT = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-load-once-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ckpt = join(dir, "ckpt.db");
const lg = join(dir, "lg.sqlite");
copyFileSync(join(ROOT, "fixtures", "langgraph", "python-a.sqlite"), lg);

beforeAll(async () => {
  // every conversion of a document to the canonical checkpoint, counted the same way
  const { getAdapter } = await import("../src/formats/index.js");
  for (const name of ["deepagent", "langgraph"]) {
    const adapter = getAdapter(name);
    const toCanonical = adapter.toCanonical;
    adapter.toCanonical = (...a) => {
      reads.push(`convert ${name}`);
      return toCanonical.apply(adapter, a);
    };
  }
  const { openSaver } = await import("../src/savers/index.js");
  const saver = await openSaver(`sqlite:${ckpt}`);
  await saver.save("t1", readFileSync(join(ROOT, "fixtures/deepagent/valid/explicit-messages-thread.json"), "utf8"));
  await saver.save("t2", readFileSync(join(ROOT, "fixtures/deepagent/valid/user_42_session_1.json"), "utf8"));
  await saver.close();
});
beforeEach(() => {
  reads.length = 0;
});

/** The reads of a run (store opens included), after checking that it succeeded. */
async function readsOf(argv: string[], code = 0): Promise<string[]> {
  reads.length = 0;
  const r = await runCli(argv, { cwd: dir });
  expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(code);
  return [...reads];
}

/** A LangGraph thread's root-graph checkpoint ids, newest first, as the database holds them. */
function checkpointsOf(threadId: string): string[] {
  const db = new Database(lg, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY 1 DESC")
        .all(threadId) as Array<{ checkpoint_id: string }>
    ).map((r) => r.checkpoint_id);
  } finally {
    db.close();
  }
}

describe("ckpt's own store: each thread's document is loaded once, the store opened once per input", () => {
  const t1 = `sqlite:${ckpt}#t1`;
  it("show", async () => {
    expect(await readsOf(["show", t1])).toEqual(["open ckpt", "load t1", "convert deepagent"]);
    expect(await readsOf(["show", t1, "--json"])).toEqual(["open ckpt", "load t1", "convert deepagent"]);
  });
  it("view", async () => {
    expect(await readsOf(["view", t1, "-o", join(dir, "t1.html")])).toEqual([
      "open ckpt",
      "load t1",
      "convert deepagent",
    ]);
  });
  it("diff", async () => {
    expect(await readsOf(["diff", t1, `sqlite:${ckpt}#t2`], 1)).toEqual([
      "open ckpt",
      "load t1",
      "convert deepagent",
      "open ckpt",
      "load t2",
      "convert deepagent",
    ]);
  });
  it("convert", async () => {
    expect(await readsOf(["convert", t1, "-t", "yoagent", "--allow-lossy"])).toEqual([
      "open ckpt",
      "load t1",
      "convert deepagent",
    ]);
  });
  it("validate <store>#<thread>", async () => {
    expect(await readsOf(["validate", t1])).toEqual(["open ckpt", "load t1"]);
  });
  it("a selector naming the one checkpoint (the thread id holding no '@'): still one load", async () => {
    const id = (JSON.parse((await runCli(["log", t1, "--json"])).out) as Array<{ checkpointId: string }>)[0]!
      .checkpointId;
    reads.length = 0;
    expect(await readsOf(["show", `${t1}@${id.slice(0, 8)}`])).toEqual(["open ckpt", "load t1", "convert deepagent"]);
  });
});

describe("LangGraph store: each checkpoint is read once; the history is listed only where it is shown", () => {
  const ids = checkpointsOf("a-chat-1");
  const thread = `${lg}#a-chat-1`;
  it("the fixture's thread has a history", () => {
    expect(ids.length).toBe(10);
  });
  it("show #t and #t@~1", async () => {
    expect(await readsOf(["show", thread])).toEqual([
      "open langgraph",
      `getTuple a-chat-1@${ids[0]}`,
      "convert langgraph",
    ]);
    expect(await readsOf(["show", `${thread}@~1`])).toEqual([
      "open langgraph",
      `getTuple a-chat-1@${ids[1]}`,
      "convert langgraph",
    ]);
  });
  it("convert #t@~2", async () => {
    expect(await readsOf(["convert", `${thread}@~2`, "-t", "yoagent", "--allow-lossy"])).toEqual([
      "open langgraph",
      `getTuple a-chat-1@${ids[2]}`,
      "convert langgraph",
    ]);
  });
  it("diff #t@~1 #t", async () => {
    expect(await readsOf(["diff", `${thread}@~1`, thread], 1)).toEqual([
      "open langgraph",
      `getTuple a-chat-1@${ids[1]}`,
      "convert langgraph",
      "open langgraph",
      `getTuple a-chat-1@${ids[0]}`,
      "convert langgraph",
    ]);
  });
  it("view #t@~1: the history listed once, every checkpoint of the timeline read once (the addressed one too)", async () => {
    const got = await readsOf(["view", `${thread}@~1`, "-o", join(dir, "lg.html")]);
    expect(got.slice(0, 2)).toEqual(["open langgraph", "history a-chat-1"]);
    const rest = got.slice(2);
    expect(rest.filter((r) => r.startsWith("getTuple")).sort()).toEqual(
      ids.map((id) => `getTuple a-chat-1@${id}`).sort(),
    );
    expect(rest.filter((r) => r === "convert langgraph").length).toBe(ids.length);
    expect(rest.length).toBe(2 * ids.length);
  });
  it("validate #t@~1: the store opened once, no checkpoint loaded to find the one named (its rows are validated)", async () => {
    const got = await readsOf(["validate", `${thread}@~1`]);
    expect(got).toEqual(["open langgraph"]);
  });
});
