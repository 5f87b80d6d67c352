/**
 * LangGraph as it is in the wild (issue #26): set C (fixtures/langgraph/*-c.*, written by Python langgraph 1.2.12 and
 * LangGraph JS 1.7.3: DeltaChannel threads, a forked delta thread, plain-dict threads, nested subgraphs, an encrypted
 * Python store) read by ckpt must give, per thread and namespace, the messages each library rebuilds
 * (counts/*.json, from the libraries' own get_state / get_delta_channel_history). SQLite files are read from copies and
 * must stay byte-identical; the PostgreSQL dumps are restored into schemas unique to this run.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openLangGraph } from "./helpers/lg-open.js";
import type { LgReader } from "../src/formats/langgraph/types.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { runCli } from "./helpers/cli-io.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");
export const AES_KEY = "lgsample-C-not-a-secret-key-0032";

interface NsCounts {
  ns: string;
  checkpoints: number;
  messages: number;
  last_message: string | null;
}
interface Counts {
  threads: number;
  checkpoints: number;
  per_thread: Record<
    string,
    { checkpoints: number; messages: number; last_message: string | null; per_namespace: NsCounts[] }
  >;
}
const counts = (name: string): Counts => JSON.parse(readFileSync(join(FIX, "counts", `${name}.json`), "utf8"));
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

export function copyFixture(file: string): string {
  const dir = mkdtempSync(join(tmpdir(), "lg-wild-"));
  copyFileSync(join(FIX, file), join(dir, file));
  return join(dir, file);
}

async function reader(uri: string, aesKey?: Uint8Array): Promise<LgReader> {
  const r = await openLangGraph(uri, { aesKey });
  if (!r) throw new Error(`${uri} is not a LangGraph store`);
  return r;
}

/** The text of a message as counts/*.json gives it: `content` of a LangChain record or of a plain dict. */
function contentOf(m: unknown): unknown {
  const r = m as { lc?: number; kwargs?: { content?: unknown }; content?: unknown };
  return r.lc === 1 ? r.kwargs?.content : r.content;
}

/** ls counts, and per thread and namespace the newest checkpoint's messages, equal counts/<name>.json. */
async function checkStore(uri: string, name: string, aesKey?: Uint8Array): Promise<void> {
  const c = counts(name);
  const r = await reader(uri, aesKey);
  try {
    let threads = 0;
    let checkpoints = 0;
    for await (const s of r.threads()) {
      threads++;
      checkpoints += s.checkpoints + s.subgraphCheckpoints;
      const want = c.per_thread[s.threadId]!;
      expect(s.checkpoints + s.subgraphCheckpoints, `${s.threadId} checkpoints`).toBe(want.checkpoints);
      expect(s.messages, `${s.threadId}: ls message count`).toBe(want.messages);
    }
    expect(threads).toBe(c.threads);
    expect(checkpoints).toBe(c.checkpoints);
    for (const [thread, want] of Object.entries(c.per_thread)) {
      for (const ns of want.per_namespace) {
        const t = await r.getTuple(thread, ns.ns);
        expect(t, `${thread} ns=${ns.ns}`).toBeDefined();
        expect(
          t!.issues.filter((i) => i.fatal),
          `${thread} ns=${ns.ns}`,
        ).toEqual([]);
        const list = t!.checkpoint.channel_values.messages as unknown[];
        expect(list.length, `${thread} ns=${ns.ns}: messages`).toBe(ns.messages);
        expect(contentOf(list[list.length - 1]), `${thread} ns=${ns.ns}: last message`).toBe(ns.last_message);
      }
    }
  } finally {
    await r.close();
  }
}

describe("set C SQLite stores: every thread's newest messages as the library rebuilds them", () => {
  for (const name of ["python-c", "js-c"]) {
    it(`${name}.sqlite`, async () => {
      const file = copyFixture(`${name}.sqlite`);
      const before = sha(file);
      await checkStore(`sqlite:${file}`, `${name}.sqlite`);
      expect(sha(file)).toBe(before);
    });
  }
});

describe("set C PostgreSQL dumps", () => {
  const pg = pgTestSchemas("lgwild");
  const restore = (file: string, schema: string) =>
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
      input: readFileSync(join(FIX, file), "utf8").replaceAll("__SCHEMA__", schema),
      stdio: ["pipe", "ignore", "pipe"],
    });
  for (const name of ["python-c", "js-c"]) {
    it(`${name}.pg.sql`, async () => {
      const schema = pg.schema(name.replace("-", "_"));
      restore(`${name}.pg.sql`, schema);
      await checkStore(`${PG}?schema=${schema}`, `${name}.pg`);
      const v = await runCli(["validate", `${PG}?schema=${schema}`]);
      expect(v.code, v.out).toBe(0);
      // prune keeps each delta head's ancestors back to its snapshot, and the blob rows they name
      const p = await runCli(["prune", `${PG}?schema=${schema}`, "--keep-last", "1"]);
      expect(p.code, p.out + p.err).toBe(0);
      const r = await reader(`${PG}?schema=${schema}`);
      const c = counts(`${name}.pg`);
      for (const thread of ["c-delta-1", "c-delta-2", "c-deltasub-1"]) {
        const t = (await r.getTuple(thread))!;
        expect(t.issues, thread).toEqual([]);
        expect((t.checkpoint.channel_values.messages as unknown[]).length).toBe(c.per_thread[thread]!.messages);
      }
      await r.close();
    });
  }
});

describe("ckpt commands on a delta thread", () => {
  it("ls, show and log give the rebuilt messages, not 0", async () => {
    const file = copyFixture("python-c.sqlite");
    const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
    expect(ls.code).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; messages: number }>;
    expect(rows.find((x) => x.threadId === "c-delta-1")?.messages).toBe(33);
    const show = await runCli(["show", `sqlite:${file}#c-delta-1`]);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/33 messages/);
    expect(show.out).toContain("Answer: 4 hits for 'Thanks, summarize our chat'");
    expect(readdirSync(join(file, ".."))).toEqual(["python-c.sqlite"]);
  });
});

describe("plain-dict messages: read as LangChain's own coercion reads them", () => {
  const shapes: unknown[] = [
    { role: "user", content: "Convert 5 miles to km" },
    { role: "human", content: [{ type: "text", text: "blocks" }] },
    { type: "human", content: "type instead of role" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_025", type: "function", function: { name: "search", arguments: '{"query":"x"}' } }],
    },
    { type: "ai", content: "ok", tool_calls: [{ id: "c1", name: "search", args: { q: 1 }, type: "tool_call" }] },
    { role: "tool", tool_call_id: "call_025", content: "5 hits" },
    { role: "system", content: "be brief" },
    "a bare string is a human message",
    ["ai", "a pair"],
  ];
  const strip = (m: unknown) =>
    JSON.parse(JSON.stringify(m, (k, v) => (k === "ext" ? undefined : v))) as Record<string, unknown>;
  it("role, text, tool calls and tool-call ids equal those of @langchain/core coerceMessageLikeToMessage", async () => {
    const { coerceMessageLikeToMessage } = await import("@langchain/core/messages");
    const { messageToCanonical } = await import("../src/formats/langgraph/messages.js");
    const { decodeJson } = await import("../src/formats/langgraph/serde.js");
    for (const v of shapes) {
      // JS content null is refused by LangChain JS (Python reads it as ""): give JS the string Python reads
      const forJs = (v as { content?: unknown }).content === null ? { ...(v as object), content: "" } : v;
      const real = decodeJson(JSON.stringify(coerceMessageLikeToMessage(forJs as never)));
      const theirs = strip(messageToCanonical(real));
      const ours = strip(messageToCanonical(v));
      expect(ours.role, JSON.stringify(v)).not.toBe("langgraph");
      expect(ours.role, JSON.stringify(v)).toBe(theirs.role);
      expect(ours.content, JSON.stringify(v)).toEqual(theirs.content);
      expect(ours.toolCallId, JSON.stringify(v)).toBe(theirs.toolCallId);
    }
  });
  it("show prints the dicts' text and roles; the canonical round trip gives the stored dicts back", async () => {
    const file = copyFixture("js-c.sqlite");
    const show = await runCli(["show", `sqlite:${file}#c-dict-2`]);
    expect(show.code).toBe(0);
    expect(show.out).not.toContain("langgraph/");
    expect(show.out).toContain("Answer: 4 hits for 'Make it gluten free'");
    const r = await reader(`sqlite:${file}`);
    const t = (await r.getTuple("c-dict-2"))!;
    await r.close();
    const { langgraphAdapter } = await import("../src/formats/langgraph/adapter.js");
    const { tupleDocument } = await import("../src/formats/langgraph/types.js");
    const doc = tupleDocument(t, "x");
    const cp = langgraphAdapter.toCanonical(doc, { name: "x" });
    expect(cp.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    const back = langgraphAdapter.fromCanonical(cp, { lossy: [] });
    expect(back.checkpoint.channel_values.messages).toEqual(t.checkpoint.channel_values.messages);
  });
});

describe("encrypted rows (msgpack+aes, Python EncryptedSerializer)", () => {
  const pg = pgTestSchemas("lgwildaes");
  it("read with the key, SQLite and PostgreSQL: the counts the library gives", async () => {
    const key = Buffer.from(AES_KEY);
    await checkStore(`sqlite:${copyFixture("python-c-aes.sqlite")}`, "python-c-aes.sqlite", key);
    const schema = pg.schema("aes");
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
      input: readFileSync(join(FIX, "python-c-aes.pg.sql"), "utf8").replaceAll("__SCHEMA__", schema),
      stdio: ["pipe", "ignore", "pipe"],
    });
    await checkStore(`${PG}?schema=${schema}`, "python-c-aes.pg", key);
  });
  it("without the key: ls and show exit 3 naming the rows and LANGGRAPH_AES_KEY; with it (env or --aes-key-file) they read", async () => {
    const file = copyFixture("python-c-aes.sqlite");
    for (const argv of [
      ["ls", `sqlite:${file}`],
      ["show", `sqlite:${file}#c-aes-chat-1`],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(3);
      expect(r.err).toMatch(/LANGGRAPH_AES_KEY/);
      expect(r.err).toMatch(/checkpoints/);
      expect(r.err.trim().split("\n")).toHaveLength(1);
    }
    const withEnv = await runCli(["show", `sqlite:${file}#c-aes-chat-1`], { env: { LANGGRAPH_AES_KEY: AES_KEY } });
    expect(withEnv.code).toBe(0);
    expect(withEnv.out).toMatch(/9 messages/);
    const keyFile = join(join(file, ".."), "..", `key-${process.pid}`);
    (await import("node:fs")).writeFileSync(keyFile, `${AES_KEY}\n`);
    const withFile = await runCli(["ls", `sqlite:${file}`, "--json", "--aes-key-file", keyFile]);
    expect(withFile.code).toBe(0);
    expect((JSON.parse(withFile.out) as Array<{ messages: number }>).map((x) => x.messages)).toEqual([9, 17, 2]);
    const wrong = await runCli(["show", `sqlite:${file}#c-aes-chat-1`], {
      env: { LANGGRAPH_AES_KEY: "lgsample-C-not-a-secret-key-0033" },
    });
    expect(wrong.code).toBe(3);
    expect(wrong.err).toMatch(/does not open/);
    const v = await runCli(["validate", `sqlite:${file}`], { env: { LANGGRAPH_AES_KEY: AES_KEY } });
    expect(v.code, v.out + v.err).toBe(0);
    // without the key validate cannot judge the store: exit 3 naming the key option (the README's promise), one
    // finding of ckpt's, not an error per encrypted row blamed on the store
    const noKey = await runCli(["validate", `sqlite:${file}`, "--json"]);
    expect(noKey.code).toBe(3);
    const report = JSON.parse(noKey.out) as {
      files: Array<{ issues: unknown[]; error?: { reason: string; message: string } }>;
    };
    expect(report.files).toHaveLength(1);
    expect(report.files[0]!.issues).toEqual([]);
    expect(report.files[0]!.error!.reason).toBe("langgraph-no-aes-key");
    expect(report.files[0]!.error!.message).toMatch(
      /encrypted \(msgpack\+aes.*no key was given: set LANGGRAPH_AES_KEY .*--aes-key-file/,
    );
    expect((await runCli(["validate", `sqlite:${file}`])).out).not.toMatch(/langgraph\/undecodable/);
  });
});

describe("never confidently wrong: damaged stores", () => {
  const damaged = async (fixture: string, sql: string[]) => {
    const file = copyFixture(fixture);
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(file);
    for (const q of sql) db.prepare(q).run();
    db.close();
    return file;
  };
  const HEAD = (thread: string) =>
    `(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = '${thread}' AND checkpoint_ns = '')`;
  for (const [what, set] of [
    ["truncated msgpack", "checkpoint = substr(checkpoint, 1, 20)"],
    ["NULL", "checkpoint = NULL"],
    ["pickle", "type = 'pickle'"],
  ] as const) {
    it(`an undecodable newest checkpoint (${what}): show exits 3 naming the row, ls gives no count, validate reports it (pickle: as ckpt's inability)`, async () => {
      const file = await damaged("python-c.sqlite", [
        `UPDATE checkpoints SET ${set} WHERE thread_id = 'c-chat-1' AND checkpoint_id = ${HEAD("c-chat-1")}`,
      ]);
      const show = await runCli(["show", `sqlite:${file}#c-chat-1`]);
      expect(show.code, show.out).toBe(3);
      expect(show.err).toMatch(/#c-chat-1.*cannot be read whole.*checkpoints/);
      expect(show.out).toBe("");
      // ls lists it without a count (never 0 messages)
      const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
      expect(ls.code, ls.err).toBe(0);
      expect(
        (JSON.parse(ls.out) as Array<{ threadId: string; messages: unknown }>).find((x) => x.threadId === "c-chat-1")!
          .messages,
      ).toBeNull();
      const v = await runCli(["validate", `sqlite:${file}`]);
      if (what === "pickle") {
        // Python's serde reads a pickle (pickle_fallback): ckpt's own inability, a warning, never the store's error
        expect(v.code, v.out).toBe(0);
        expect(v.out).toMatch(/c-chat-1@.*ckpt does not unpickle ckpt\/cannot-rebuild/);
      } else {
        expect(v.code).toBe(1);
        expect(v.out).toMatch(/c-chat-1@.*langgraph\/undecodable/);
      }
    });
  }
  it("a loop in parent ids: @~100000 exits 3 instead of walking it; validate reports the loop and a self-parent", async () => {
    const file = await damaged("js-c.sqlite", [
      `UPDATE checkpoints SET parent_checkpoint_id = ${HEAD("c-chat-1")} WHERE thread_id = 'c-chat-1' AND parent_checkpoint_id IS NULL`,
      `UPDATE checkpoints SET parent_checkpoint_id = checkpoint_id WHERE thread_id = 'c-dict-1' AND checkpoint_id = ${HEAD("c-dict-1")}`,
    ]);
    const back = await runCli(["show", `sqlite:${file}#c-chat-1@~100000`]);
    expect(back.code).toBe(3);
    expect(back.err).toMatch(/loops/);
    const v = await runCli(["validate", `sqlite:${file}`]);
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/c-chat-1@.*the parent ids loop.*langgraph\/parent-cycle/);
    expect(v.out).toMatch(/c-dict-1@.*is its own parent.*langgraph\/parent-cycle/);
  });
  it("a delta thread whose snapshot checkpoint is gone, or whose write does not decode: shown without its messages, marked unreadable (exit 0) / validate errors", async () => {
    // c-delta-1's newest snapshot before its head; the head then builds on a parent chain that breaks
    const snap = `(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = 'c-delta-1' AND checkpoint_id < ${HEAD("c-delta-1")} AND metadata NOT LIKE '%counters_since_delta_snapshot%')`;
    const gone = await damaged("python-c.sqlite", [
      `DELETE FROM checkpoints WHERE thread_id = 'c-delta-1' AND checkpoint_id = ${snap}`,
    ]);
    const show = await runCli(["show", `sqlite:${gone}#c-delta-1`]);
    expect(show.code).toBe(0);
    expect(show.err).toMatch(/DeltaChannel 'messages' cannot be rebuilt: ancestor checkpoint .* does not exist/);
    expect(show.out).toMatch(
      /0 messages[\s\S]*\nunreadable\n {2}channel 'messages' cannot be read \(the stored data it needs is damaged or missing\)/,
    );
    const v = await runCli(["validate", `sqlite:${gone}`]);
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/c-delta-1@.*langgraph\/delta-missing-snapshot/);
    const parentOfHead = `(SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = 'c-delta-1' AND checkpoint_id = ${HEAD("c-delta-1")})`;
    const bad = await damaged("python-c.sqlite", [
      `UPDATE writes SET value = X'C1C1' WHERE thread_id = 'c-delta-1' AND channel = 'messages' AND checkpoint_id = ${parentOfHead}`,
    ]);
    const show2 = await runCli(["show", `sqlite:${bad}#c-delta-1`]);
    expect(show2.code).toBe(0);
    expect(show2.out).toMatch(/\nunreadable\n {2}channel 'messages' cannot be read/);
    expect(show2.err).toMatch(/cannot be rebuilt: its write task=.* did not decode/);
    const v2 = await runCli(["validate", `sqlite:${bad}`]);
    expect(v2.code).toBe(1);
    expect(v2.out).toMatch(/langgraph\/delta-replay/);
  });
  it("validate exits 0 on every undamaged set C SQLite store", async () => {
    for (const name of ["python-c", "js-c"]) {
      const v = await runCli(["validate", `sqlite:${copyFixture(`${name}.sqlite`)}`]);
      expect(v.code, v.out).toBe(0);
    }
  });
});

describe("migrate and prune keep what DeltaChannel and encrypted threads need", () => {
  const pg = pgTestSchemas("lgwildmig");
  for (const name of ["python-c", "js-c"]) {
    it(`${name}.sqlite → PostgreSQL and → SQLite: every thread's messages as before (snapshot rows shared by later checkpoints)`, async () => {
      const schema = pg.schema(`mig_${name.replace("-", "_")}`);
      const dir = mkdtempSync(join(tmpdir(), "lg-wild-mig-"));
      const m = await runCli([
        "migrate",
        "--from",
        `sqlite:${join(FIX, `${name}.sqlite`)}`,
        "--to",
        `${PG}?schema=${schema}`,
        "--journal",
        join(dir, "j1"),
      ]);
      expect(m.code, m.out + m.err).toBe(0);
      await checkStore(`${PG}?schema=${schema}`, `${name}.sqlite`);
      const m2 = await runCli([
        "migrate",
        "--from",
        `sqlite:${join(FIX, `${name}.sqlite`)}`,
        "--to",
        `sqlite:${join(dir, "copy.sqlite")}`,
        "--journal",
        join(dir, "j2"),
      ]);
      expect(m2.code, m2.out + m2.err).toBe(0);
      await checkStore(`sqlite:${join(dir, "copy.sqlite")}`, `${name}.sqlite`);
    });
  }
  it("prune --keep-last 1 keeps every delta thread's ancestors back to its snapshot", async () => {
    for (const name of ["python-c", "js-c"]) {
      const file = copyFixture(`${name}.sqlite`);
      const p = await runCli(["prune", `sqlite:${file}`, "--keep-last", "1"]);
      expect(p.code, p.out + p.err).toBe(0);
      const c = counts(`${name}.sqlite`);
      const r = await reader(`sqlite:${file}`);
      for (const thread of ["c-delta-1", "c-delta-2", "c-deltasub-1"]) {
        const t = (await r.getTuple(thread))!;
        expect(t.issues, `${name} ${thread}`).toEqual([]);
        expect((t.checkpoint.channel_values.messages as unknown[]).length).toBe(c.per_thread[thread]!.messages);
      }
      await r.close();
      const v = await runCli(["validate", `sqlite:${file}`]);
      expect(v.out).not.toMatch(/langgraph\/delta-/);
    }
  });
  it("encrypted rows: SQLite → SQLite copies them as they are; → PostgreSQL needs the key (the run stops at once, exit 3, one sentence naming it, nothing written), with it the blobs are sealed again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-wild-aes-"));
    const src = copyFixture("python-c-aes.sqlite");
    const copy = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `sqlite:${join(dir, "c.sqlite")}`,
      "--journal",
      join(dir, "j"),
    ]);
    expect(copy.code, copy.err).toBe(0);
    const { default: Database } = await import("better-sqlite3");
    const rows = (f: string) => {
      const db = new Database(f, { readonly: true });
      const out = db.prepare("SELECT checkpoint_id, type, hex(checkpoint) AS h FROM checkpoints ORDER BY 1").all();
      db.close();
      return out;
    };
    expect(rows(join(dir, "c.sqlite"))).toEqual(rows(src));
    const schema = pg.schema("mig_aes");
    const noKey = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `${PG}?schema=${schema}`,
      "--journal",
      join(dir, "j3"),
    ]);
    expect(noKey.code).toBe(3);
    expect(noKey.out).not.toMatch(/rejected/);
    const said = noKey.err
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith("journal: "));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^ckpt: the source's rows are encrypted \(msgpack\+aes, .*\) and no key was given, so they cannot be moved into another layout: set LANGGRAPH_AES_KEY .*--aes-key-file/,
    );
    expect((await pg.query(`SELECT count(*)::int AS n FROM ${schema}.checkpoints`)).rows[0].n).toBe(0);
    const env = { LANGGRAPH_AES_KEY: AES_KEY };
    const schema2 = pg.schema("mig_aes2");
    const withKey = await runCli(
      ["migrate", "--from", `sqlite:${src}`, "--to", `${PG}?schema=${schema2}`, "--journal", join(dir, "j4")],
      { env },
    );
    expect(withKey.code, withKey.out + withKey.err).toBe(0);
    const types = await pg.query(`SELECT DISTINCT type FROM ${schema2}.checkpoint_blobs`);
    expect(types.rows.map((r) => r.type)).toEqual(["msgpack+aes"]);
    await checkStore(`${PG}?schema=${schema2}`, "python-c-aes.sqlite", Buffer.from(AES_KEY));
  });
});

describe("the pre-0.2 SQLite layout (checkpoints(thread_id, thread_ts, parent_ts, …), no type, no namespaces)", () => {
  it("ls, show, log, validate and migrate read it (langgraph ≤ 0.1's DDL, rows from set A's JS file)", async () => {
    const { default: Database } = await import("better-sqlite3");
    const dir = mkdtempSync(join(tmpdir(), "lg-wild-old-"));
    const file = join(dir, "old.sqlite");
    const src = new Database(join(FIX, "js-a.sqlite"), { readonly: true });
    const w = new Database(file);
    // langgraph/checkpoint/sqlite.py before langgraph 0.2 (2024-07)
    w.exec(`CREATE TABLE IF NOT EXISTS checkpoints (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, parent_ts TEXT,
        checkpoint BLOB, metadata BLOB, PRIMARY KEY (thread_id, thread_ts));
      CREATE TABLE IF NOT EXISTS writes (thread_id TEXT NOT NULL, thread_ts TEXT NOT NULL, task_id TEXT NOT NULL,
        idx INTEGER NOT NULL, channel TEXT NOT NULL, value BLOB, PRIMARY KEY (thread_id, thread_ts, task_id, idx));`);
    for (const r of src.prepare("SELECT * FROM checkpoints WHERE checkpoint_ns = ''").all() as Array<
      Record<string, unknown>
    >)
      w.prepare("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?)").run(
        r.thread_id,
        r.checkpoint_id,
        r.parent_checkpoint_id,
        r.checkpoint,
        r.metadata,
      );
    for (const r of src.prepare("SELECT * FROM writes WHERE checkpoint_ns = ''").all() as Array<
      Record<string, unknown>
    >)
      w.prepare("INSERT INTO writes VALUES (?, ?, ?, ?, ?, ?)").run(
        r.thread_id,
        r.checkpoint_id,
        r.task_id,
        r.idx,
        r.channel,
        r.value,
      );
    w.close();
    src.close();
    const before = sha(file);
    const ls = await runCli(["ls", `sqlite:${file}`, "--json"]);
    expect(ls.code, ls.err).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; messages: number | null; checkpoints: number }>;
    expect(rows).toHaveLength(8);
    expect(rows.find((r) => r.threadId === "a-chat-1")).toMatchObject({ checkpoints: 10, messages: 9 });
    const show = await runCli(["show", `sqlite:${file}#a-chat-1`]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toMatch(/9 messages/);
    const log = await runCli(["log", `sqlite:${file}#a-chat-1`, "--json"]);
    expect(log.code, log.err).toBe(0);
    const v = await runCli(["validate", `sqlite:${file}`]);
    expect(v.code, v.out + v.err).toBe(0);
    const m = await runCli([
      "migrate",
      "--from",
      `sqlite:${file}`,
      "--to",
      `sqlite:${join(dir, "new.sqlite")}`,
      "--journal",
      join(dir, "j"),
    ]);
    expect(m.code, m.out + m.err).toBe(0);
    const ls2 = await runCli(["ls", `sqlite:${join(dir, "new.sqlite")}`, "--json"]);
    expect((JSON.parse(ls2.out) as Array<{ messages: number | null }>).map((r) => r.messages)).toEqual(
      rows.map((r) => r.messages),
    );
    expect(sha(file)).toBe(before);
    expect(readdirSync(dir).filter((f) => f.startsWith("old.sqlite-"))).toEqual([]);
  });
});
