/**
 * `ckpt migrate` of Mastra memory: LibSQL → PostgreSQL (`?layout=mastra`) and back, whole stores (threads, messages,
 * resources with working memory). The source is written by the real `@mastra/libsql`; each target is read back by
 * the real `@mastra/pg` / `@mastra/libsql` (listThreads, recall, getWorkingMemory), which must answer what they
 * answer for the source. The tables ckpt creates are compared with the ones Mastra's own init creates.
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
  mkdirSync,
  readFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Checkpoint } from "../src/generated/types.js";
import { runCli } from "./helpers/cli-io.js";
import { type MastraThreadBack, readMastra, writeMastra } from "./helpers/mastra.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

// short schema names: Mastra names its indexes after the schema and makes none whose name is over 63 characters
const schemas = pgTestSchemas("cm");
let dir: string;
let src: string;
let mastraPg: string;
let source: MastraThreadBack[];
const pgUri = (schema: string) => `${PG}?schema=${schema}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-mastra-mig-"));
  src = join(dir, "source.db");
  mastraPg = schemas.schema("bym");
  // the source, and a PostgreSQL schema @mastra/pg set up itself (to compare the tables ckpt creates with)
  [source] = await Promise.all([
    writeMastra({ kind: "libsql", file: src }),
    writeMastra(
      { kind: "pg", url: PG, schema: mastraPg },
      { threads: [{ id: "x", resource: "r", turns: [{ user: "hi" }] }] },
    ),
  ]);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What Mastra answers, in a stable order (threads by id). */
const byId = (ts: MastraThreadBack[]) => [...ts].sort((a, b) => a.id.localeCompare(b.id));

async function pgShape(schema: string) {
  const cols = await schemas.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = $1 AND table_name IN ('mastra_threads', 'mastra_messages', 'mastra_resources')
     ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const idx = await schemas.query(
    `SELECT tablename, replace(indexdef, $1, 'S') AS def FROM pg_indexes
     WHERE schemaname = $2 AND tablename IN ('mastra_threads', 'mastra_messages', 'mastra_resources') ORDER BY 1, 2`,
    [schema, schema],
  );
  return { cols: cols.rows, idx: idx.rows.map((r) => ({ ...r, def: r.def.replace(/\w+_mastra_/, "P_mastra_") })) };
}

function sqliteShape(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('mastra_threads', 'mastra_messages', 'mastra_resources') ORDER BY type, name",
      )
      .all();
  } finally {
    db.close();
  }
}

describe("ckpt migrate LibSQL → PostgreSQL → LibSQL (Mastra memory)", () => {
  let target: string;
  let back: string;

  it("LibSQL → PostgreSQL (?layout=mastra): exit 0, every thread, message and resource written and verified", async () => {
    target = schemas.schema("tgt");
    const r = await runCli(["migrate", "--from", `sqlite:${src}`, "--to", `${pgUri(target)}&layout=mastra`, "--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const s = JSON.parse(r.out.trim().split("\n").pop()!);
    const messages = source.reduce((n, t) => n + t.messages.length, 0);
    const resources = source.filter((t) => t.workingMemory !== null).map((t) => t.resourceId);
    expect(s.rows).toEqual({ threads: source.length, messages, resources: new Set(resources).size });
    expect(s.verified).toBe(s.written);
    expect(s.mismatches).toEqual([]);
  });

  it("the tables ckpt created are the ones @mastra/pg's init creates (columns, types, defaults, indexes)", async () => {
    const mine = await pgShape(target);
    expect(mine.idx.length).toBe(5); // three primary keys, two indexes
    expect(mine).toEqual(await pgShape(mastraPg));
  });

  it("the real @mastra/pg lists the same threads with the same messages and working memory as @mastra/libsql does for the source", async () => {
    const got = await readMastra({ kind: "pg", url: PG, schema: target });
    expect(byId(got)).toEqual(byId(source));
  });

  it("and back: PostgreSQL → a new LibSQL file, which the real @mastra/libsql reads the same, with Mastra's own tables", async () => {
    back = join(dir, "back.db");
    const r = await runCli(["migrate", "--from", pgUri(target), "--to", `sqlite:${back}?layout=mastra`]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/Mastra memory written: 4 thread\(s\) with \d+ message\(s\), 2 resource\(s\)/);
    // ckpt's tables before Mastra opens the file, against the source's (which @mastra/libsql created)
    expect(sqliteShape(back)).toEqual(sqliteShape(src));
    // JSONB metadata as LibSQL writes it
    const db = new Database(back, { readonly: true });
    const meta = db.prepare("SELECT typeof(metadata) AS t FROM mastra_threads WHERE id = 'trip-1'").get() as {
      t: string;
    };
    db.close();
    expect(meta.t).toBe("blob");
    expect(byId(await readMastra({ kind: "libsql", file: back }))).toEqual(byId(source));
  });

  it("a second run finds everything identical and writes nothing", async () => {
    const r = await runCli(["migrate", "--from", `sqlite:${src}`, "--to", `${pgUri(target)}&layout=mastra`, "--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const s = JSON.parse(r.out.trim().split("\n").pop()!);
    expect(s.written).toBe(0);
    expect(s.identical).toBe(s.read);
  });

  it("a thread the target holds otherwise is a conflict (exit 1) until --on-conflict overwrite, which leaves it as the source's", async () => {
    await schemas.query(`UPDATE ${target}.mastra_threads SET title = 'renamed' WHERE id = 'bob-1'`);
    await schemas.query(
      `INSERT INTO ${target}.mastra_messages (id, thread_id, content, role, type, "createdAt") VALUES ('extra', 'bob-1', '{"format":2,"parts":[]}', 'user', 'v2', now())`,
    );
    const r = await runCli(["migrate", "--from", `sqlite:${src}`, "--to", `${pgUri(target)}&layout=mastra`]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("conflict: threads#bob-1");
    const o = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `${pgUri(target)}&layout=mastra`,
      "--on-conflict",
      "overwrite",
    ]);
    expect(o.code, o.out + o.err).toBe(0);
    expect(byId(await readMastra({ kind: "pg", url: PG, schema: target }))).toEqual(byId(source));
  });

  it("a dry run into a file that does not exist plans the copy and creates nothing", async () => {
    const none = join(dir, "none", "m.db");
    const r = await runCli(["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${none}?layout=mastra`, "--dry-run"]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("Mastra memory to write: 4 thread(s)");
    expect(existsSync(join(dir, "none"))).toBe(false);
  });
});

describe("Mastra threads to and from other formats through the canonical model", () => {
  const folder = () => join(dir, "deepagent-in");

  it("deep-agent checkpoints into Mastra memory: the real @mastra/libsql recalls their messages; what has no place is reported", async () => {
    mkdirSync(folder(), { recursive: true });
    const fx = JSON.parse(readFileSync("fixtures/deepagent/valid/explicit-messages-thread.json", "utf8"));
    writeFileSync(join(folder(), `${fx.threadId}.json`), JSON.stringify(fx, null, 2));
    const out = join(dir, "from-deepagent.db");
    // without --allow-lossy a thread whose conversion loses something is rejected (exit 5), naming what
    const strict = await runCli(["migrate", "--from", `file:${folder()}`, "--to", `sqlite:${out}?layout=mastra`]);
    const lossy = await runCli([
      "migrate",
      "--from",
      `file:${folder()}`,
      "--to",
      `sqlite:${out}?layout=mastra`,
      "--allow-lossy",
    ]);
    expect([0, 5]).toContain(strict.code);
    if (strict.code === 5) expect(strict.out).toMatch(/would drop/);
    expect(lossy.code, lossy.out + lossy.err).toBe(0);
    const got = await readMastra({ kind: "libsql", file: out });
    expect(got.map((t) => t.id)).toEqual([fx.threadId]);
    // every user and assistant text of the checkpoint is in what Mastra recalls, in order
    const want = (fx.messages as Array<{ role: string; content: unknown }>)
      .filter((m) => m.role === "user" || m.role === "assistant")
      .flatMap((m) =>
        typeof m.content === "string"
          ? [m.content]
          : (m.content as Array<{ type: string; text?: string }>).filter((p) => p.type === "text").map((p) => p.text!),
      );
    const texts = got[0]!.messages.flatMap((m) =>
      (m.content.parts as Array<{ type: string; text?: string }>).filter((p) => p.type === "text").map((p) => p.text!),
    );
    expect(texts).toEqual(want);
  });

  it("a LangGraph store into Mastra memory: the real @mastra/libsql recalls each thread's conversation in order", async () => {
    const lg = join(dir, "lg.sqlite");
    copyFileSync("fixtures/langgraph/python-a.sqlite", lg);
    const out = join(dir, "from-langgraph.db");
    const strict = await runCli(["migrate", "--from", `sqlite:${lg}`, "--to", `sqlite:${out}?layout=mastra`]);
    expect(strict.code).toBe(5); // LangGraph's own data (the tuple, kwargs, interrupts) has no place in Mastra memory
    expect(strict.out).toMatch(/rejected: .*a-chat-1.*would drop .*\/ext\/langgraph/);
    const r = await runCli([
      "migrate",
      "--from",
      `sqlite:${lg}`,
      "--to",
      `sqlite:${out}?layout=mastra`,
      "--allow-lossy",
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    const got = await readMastra({ kind: "libsql", file: out });
    const chat = got.find((t) => t.id === "a-chat-1")!;
    const cp = JSON.parse((await runCli(["show", `sqlite:${lg}#a-chat-1`, "--json"])).out) as Checkpoint;
    const textsOf = (ms: Array<{ role: string; content?: unknown }>) =>
      ms.flatMap((m) =>
        (Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>) : [])
          .filter((c) => c.type === "text")
          .map((c) => `${m.role}:${c.text}`),
      );
    const fromMastra = chat.messages.flatMap((m) =>
      (m.content.parts as Array<{ type: string; text?: string }>)
        .filter((p) => p.type === "text")
        .map((p) => `${m.role}:${p.text}`),
    );
    expect(fromMastra).toEqual(textsOf(cp.messages.filter((m) => m.role !== "toolResult") as never));
    expect(fromMastra.length).toBeGreaterThan(3);
    // and the tool results ride on their calls
    const results = chat.messages.flatMap((m) =>
      (m.content.parts as Array<{ type: string; toolInvocation?: { toolCallId: string; result?: unknown } }>)
        .filter((p) => p.type === "tool-invocation")
        .map((p) => [p.toolInvocation!.toolCallId, p.toolInvocation!.result]),
    );
    const want = cp.messages
      .filter((m) => m.role === "toolResult")
      .map((m) => [
        (m as { toolCallId: string }).toolCallId,
        (m as { content: Array<{ text: string }> }).content[0]!.text,
      ]);
    expect(results).toEqual(want);
  });

  it("and out: a Mastra store to deep-agent files keeps the conversation (roles, texts, tool calls and results)", async () => {
    const outDir = join(dir, "deepagent-out");
    const r = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `file:${outDir}`,
      "--to-format",
      "deepagent",
      "--allow-lossy",
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(readdirSync(outDir).sort()).toEqual(source.map((t) => `${t.id}.json`).sort());
    for (const t of source) {
      const a = await runCli(["show", `sqlite:${src}#${t.id}`, "--json"]);
      const b = await runCli(["show", join(outDir, `${t.id}.json`), "--json"]);
      const essence = (cp: Checkpoint) =>
        cp.messages.map((m) => {
          const x = m as { role: string; content?: Array<Record<string, unknown>>; toolCallId?: string };
          return [x.role, x.toolCallId ?? null, (x.content ?? []).map(({ ext: _e, signature: _s, ...c }) => c)];
        });
      expect(essence(JSON.parse(b.out))).toEqual(essence(JSON.parse(a.out)));
    }
  });
});
