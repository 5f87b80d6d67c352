/**
 * `ckpt prune` of the layouts whose threads are rows: Mastra (LibSQL with semantic recall, PostgreSQL) messages by
 * `--keep-last` and threads by `--idle-for`, the Chat SDK template's chats by `--idle-for`, SQLiteSession items by
 * `--keep-last`, each with `--vacuum`. The real library reads back what was kept (Mastra's recall/listThreads/
 * getWorkingMemory, the template's queries, SQLiteSession.get_items' query) and the bytes given back are the
 * file's (with its WAL) or the tables' (pg_total_relation_size) sizes before and after, measured here.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiSession } from "../conformance/layouts.js";
import { fillPgRows, fillSqliteRows, type Row } from "../helpers/ai-chatbot-db.js";
import { runCli } from "../helpers/cli-io.js";
import { MASTRA_SPEC, type MastraThreadBack, readMastra, writeMastra } from "../helpers/mastra.js";
import { runPeer } from "../helpers/peers.js";
import { PG, pgTestSchemas } from "../helpers/pg-schemas.js";

const schemas = pgTestSchemas("ckpt_prune_rows");
const dir = mkdtempSync(join(tmpdir(), "ckpt-prune-rows-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const size = (f: string) => statSync(f).size + (existsSync(`${f}-wal`) ? statSync(`${f}-wal`).size : 0);

interface Summary {
  dryRun: boolean;
  threads: number;
  wholeThreads: number;
  kept: number;
  tables: Array<{ table: string; rows: number }>;
  plans?: Array<{ threadId: string; whole: boolean; rows: Array<{ table: string; rows: number }> }>;
  vacuum?: { given: number; parts: Array<{ name: string; before: number; after: number }> };
}
const rowsOf = (s: Summary) => Object.fromEntries(s.tables.map((t) => [t.table, t.rows]));

describe("Mastra LibSQL with semantic recall: --keep-last N messages, --vacuum", () => {
  const file = join(dir, "mastra.db");
  const threads = [
    { id: "t-a", resource: "res-1", turns: ["my cat is called Tom", "Tom likes fish", "Tom sleeps a lot"] },
    { id: "t-b", resource: "res-2", turns: ["plan a trip to Oslo", "and to Bergen"] },
  ];
  interface ReadBack {
    threads: Record<string, { resourceId: string; messages: Array<{ id: string }> } | null>;
    vectors: Record<string, { all: string[]; byThread: Record<string, number> }>;
  }
  let before: ReadBack;
  beforeAll(async () => {
    before = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "write", file, threads })).out;
    const db = new Database(file);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
  }, 120_000);

  it("keeps the newest N messages of each thread and their vector rows; Mastra recalls exactly those", async () => {
    const index = Object.keys(before.vectors)[0]!;
    const n = (t: string) => before.threads[t]!.messages.length;
    expect(n("t-a")).toBeGreaterThan(2);
    const dry = await runCli(["prune", `sqlite:${file}`, "--keep-last", "2", "--dry-run", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out) as Summary;
    expect(plan.plans!.map((p) => [p.threadId, p.whole])).toEqual([
      ["t-a", false],
      ["t-b", false],
    ]);
    expect(rowsOf(plan).mastra_messages).toBe(n("t-a") - 2 + n("t-b") - 2);
    expect(rowsOf(plan)).not.toHaveProperty("mastra_threads");

    const sizeBefore = size(file);
    const real = await runCli(["prune", `sqlite:${file}`, "--keep-last", "2", "--vacuum", "--json"]);
    expect(real.code, real.err).toBe(0);
    const s = JSON.parse(real.out) as Summary;
    expect(s.tables).toEqual(plan.tables);
    // the report says what libSQL's vector index keeps of the deleted embeddings, as delete's does
    expect((s as { notes?: string[] }).notes).toEqual([expect.stringMatching(/copies of its embeddings.*DROP INDEX/)]);
    expect(s.vacuum!.parts).toEqual([{ name: "mastra.db", before: sizeBefore, after: size(file) }]);
    expect(s.vacuum!.given).toBe(sizeBefore - size(file));
    expect(s.vacuum!.given).toBeGreaterThan(0);

    const after = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "read", file, threads })).out;
    for (const t of threads) {
      expect(after.threads[t.id]!.resourceId).toBe(t.resource);
      expect(after.threads[t.id]!.messages).toEqual(before.threads[t.id]!.messages.slice(-2));
    }
    // the vector rows left are the kept messages' (their message_id), and libSQL's index still answers queries
    const kept = new Set(threads.flatMap((t) => after.threads[t.id]!.messages.map((m) => m.id)));
    const db = new Database(file, { readonly: true });
    const ids = db
      .prepare(`SELECT DISTINCT json_extract(metadata, '$.message_id') FROM "${index}"`)
      .pluck()
      .all() as string[];
    // after the VACUUM libSQL's DiskANN index still answers with the rows left, each by its own metadata (its graph
    // nodes are keyed by rowid: a VACUUM that renumbered rowids would answer other rows), a query filtered by thread
    // finds every one of them; the unfiltered top-k is approximate after deletes (libSQL's own DELETE of the same rows
    // leaves the same graph: 3 of these 4 rows found, measured with @libsql/client)
    const left = db
      .prepare(`SELECT json_extract(metadata, '$.thread_id') FROM "${index}" ORDER BY 1`)
      .pluck()
      .all() as string[];
    db.close();
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(kept.has(id)).toBe(true);
    for (const t of after.vectors[index]!.all) expect(left).toContain(t);
    for (const t of threads) {
      expect(after.vectors[index]!.byThread[t.id]).toBeGreaterThan(0);
      expect(after.vectors[index]!.byThread[t.id]).toBe(left.filter((x) => x === t.id).length);
    }
  }, 120_000);
});

describe("Mastra PostgreSQL: --idle-for threads, --keep-last messages, --vacuum", () => {
  let schema: string;
  let before: MastraThreadBack[];
  beforeAll(async () => {
    schema = schemas.schema("mastra");
    before = await writeMastra({ kind: "pg", url: PG, schema }, MASTRA_SPEC);
  }, 120_000);
  const tableSizes = async () =>
    Object.fromEntries(
      (
        await schemas.query<{ name: string; size: string }>(
          "SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'mastra%'",
          [schema],
        )
      ).rows.map((r) => [r.name, Number(r.size)]),
    );

  it("an idle thread goes whole, the others keep their newest message; Mastra reads back what was kept", async () => {
    const uri = `${PG}?schema=${schema}`;
    // trip-1 last written 100 days ago (as an old conversation would be)
    await schemas.query(
      `UPDATE ${schema}.mastra_threads SET "updatedAt" = now() - interval '100 days', "updatedAtZ" = now() - interval '100 days' WHERE id = 'trip-1'`,
    );
    const idle = await runCli(["prune", uri, "--idle-for", "30d", "--json"]);
    expect(idle.code, idle.err).toBe(0);
    const i = JSON.parse(idle.out) as Summary;
    expect(i).toMatchObject({ threads: 4, wholeThreads: 1, kept: 3 });
    expect(rowsOf(i)).toMatchObject({ mastra_threads: 1, mastra_messages: before[0]!.messages.length });
    const rest = before.filter((t) => t.id !== "trip-1");
    expect(await readMastra({ kind: "pg", url: PG, schema })).toEqual(rest);

    const sizes = await tableSizes();
    const keep = await runCli(["prune", uri, "--keep-last", "1", "--vacuum", "--json"]);
    expect(keep.code, keep.err).toBe(0);
    const s = JSON.parse(keep.out) as Summary;
    expect(rowsOf(s).mastra_messages).toBe(rest.reduce((n, t) => n + t.messages.length - 1, 0));
    const after = await tableSizes();
    for (const p of s.vacuum!.parts) {
      expect(p.before).toBe(sizes[p.name]);
      expect(p.after).toBe(after[p.name]);
    }
    // given back: before − after (never below 0: PostgreSQL's VACUUM may add a visibility map or free space map)
    expect(s.vacuum!.given).toBe(
      Math.max(
        0,
        s.vacuum!.parts.reduce((n, p) => n + p.before - p.after, 0),
      ),
    );
    // the thread, its title, metadata and the resource's working memory stay; the newest message alone is recalled
    expect(await readMastra({ kind: "pg", url: PG, schema })).toEqual(
      rest.map((t) => ({ ...t, messages: t.messages.slice(-1) })),
    );
  }, 60_000);
});

describe("Chat SDK template: --idle-for chats", () => {
  const U = "11111111-1111-4111-8111-000000000001";
  const chat = (n: number) => `22222222-2222-4222-8222-00000000000${n}`;
  const rows = (old: string, recent: string, vote: boolean | number): Row[] => [
    ["User", { id: U, email: "one@example.com" }],
    ...[1, 2, 3].flatMap((c): Row[] => {
      const at = c === 3 ? recent : old;
      return [
        ["Chat", { id: chat(c), createdAt: old, userId: U, title: `chat ${c}`, visibility: "private" }],
        [
          "Message_v2",
          {
            id: `33333333-3333-4333-8333-00000000000${c}`,
            chatId: chat(c),
            role: "user",
            parts: [{ type: "text", text: `hi ${c}` }],
            attachments: [],
            createdAt: at,
          },
        ],
        ["Vote_v2", { chatId: chat(c), messageId: `33333333-3333-4333-8333-00000000000${c}`, isUpvoted: vote }],
      ];
    }),
  ];
  const recent = new Date(Date.now() - 3_600_000).toISOString();

  it("PostgreSQL: chats idle for 30 days go with every row of them; a chat with a recent message stays", async () => {
    const s = schemas.schema("chat");
    await fillPgRows((q, a) => schemas.query(q, a), s, rows("2025-01-01 00:00:00", recent, true));
    const uri = `${PG}?schema=${s}`;
    const read = async () => ({
      chats: (await schemas.query(`SELECT * FROM "${s}"."Chat" WHERE "userId" = $1 ORDER BY "createdAt" DESC`, [U]))
        .rows,
      messages: (
        await schemas.query(`SELECT * FROM "${s}"."Message_v2" WHERE "chatId" = $1 ORDER BY "createdAt" ASC`, [chat(3)])
      ).rows,
      votes: (await schemas.query(`SELECT * FROM "${s}"."Vote_v2" WHERE "chatId" = $1`, [chat(3)])).rows,
    });
    const before = await read();
    const dry = await runCli(["prune", uri, "--idle-for", "30d", "--dry-run", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    expect((JSON.parse(dry.out) as Summary).plans!.map((p) => [p.threadId, p.whole])).toEqual([
      [chat(1), true],
      [chat(2), true],
    ]);
    const real = await runCli(["prune", uri, "--idle-for", "30d", "--vacuum", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(rowsOf(JSON.parse(real.out) as Summary)).toMatchObject({ Chat: 2, Message_v2: 2, Vote_v2: 2 });
    const after = await read();
    expect(after.chats.map((c: { id: string }) => c.id)).toEqual([chat(3)]);
    expect(after.messages).toEqual(before.messages);
    expect(after.votes).toEqual(before.votes);
    expect((await runCli(["prune", uri, "--keep-last", "1"])).code).toBe(2);
  });

  it("SQLite: the same, and --vacuum gives back what the file lost", async () => {
    const file = join(dir, "chat.db");
    fillSqliteRows(file, rows("2025-01-01T00:00:00.000Z", recent, 1));
    const sizeBefore = size(file);
    const r = await runCli(["prune", `sqlite:${file}`, "--idle-for", "30d", "--vacuum", "--json"]);
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out) as Summary;
    expect(s).toMatchObject({ wholeThreads: 2, kept: 1 });
    expect(s.vacuum!.parts).toEqual([{ name: "chat.db", before: sizeBefore, after: size(file) }]);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT id FROM "Chat"').pluck().all()).toEqual([chat(3)]);
    expect(db.prepare('SELECT count(*) FROM "Message_v2"').pluck().get()).toBe(1);
    db.close();
  });
});

describe("SQLiteSession: --keep-last N items", () => {
  // sqlite_session.py get_items (no limit): the SDK's read of a session
  const GET_ITEMS = "SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY id ASC";
  let file: string;
  let cleanup: () => Promise<void> | void;
  beforeAll(async () => {
    const b = await openaiSession.build();
    cleanup = b.cleanup;
    file = b.uri.slice("sqlite:".length);
  }, 120_000);
  afterAll(() => cleanup?.());
  const items = () => {
    const db = new Database(file, { readonly: true });
    const ids = db.prepare("SELECT DISTINCT session_id FROM agent_messages ORDER BY 1").pluck().all() as string[];
    const out = Object.fromEntries(ids.map((s) => [s, db.prepare(GET_ITEMS).pluck().all(s) as string[]]));
    db.close();
    return out;
  };

  it("keeps each session's newest N items, as get_items reads them; --vacuum measured on the file", async () => {
    const before = items();
    expect(Object.values(before).some((v) => v.length > 2)).toBe(true);
    const dry = await runCli(["prune", `sqlite:${file}`, "--keep-last", "2", "--dry-run", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const want = Object.values(before).reduce((n, v) => n + Math.max(0, v.length - 2), 0);
    expect(rowsOf(JSON.parse(dry.out) as Summary)).toEqual({ agent_messages: want });
    expect(items()).toEqual(before);
    const sizeBefore = size(file);
    const real = await runCli(["prune", `sqlite:${file}`, "--keep-last", "2", "--vacuum"]);
    expect(real.code, real.err).toBe(0);
    expect(real.out).toMatch(new RegExp(`deleted ${want} rows: agent_messages ${want}`));
    expect(real.out).toMatch(/vacuum: gave back/);
    expect(items()).toEqual(Object.fromEntries(Object.entries(before).map(([k, v]) => [k, v.slice(-2)])));
    expect(size(file)).toBeLessThanOrEqual(sizeBefore);
    // --older-than: the items of 'trip' but its newest dated 2020 go (the newest of a session stays); the others are new
    const db = new Database(file);
    db.prepare(
      "UPDATE agent_messages SET created_at = '2020-01-01 00:00:00' WHERE session_id = 'trip' AND id < (SELECT max(id) FROM agent_messages WHERE session_id = 'trip')",
    ).run();
    db.close();
    const trip = items().trip!;
    const old = await runCli(["prune", `sqlite:${file}`, "--older-than", "30d", "--json"]);
    expect(old.code, old.err).toBe(0);
    expect(rowsOf(JSON.parse(old.out) as Summary)).toEqual({ agent_messages: trip.length - 1 });
    expect(items().trip).toEqual(trip.slice(-1));
    // whole sessions by name, as the other layouts
    const whole = await runCli(["prune", `sqlite:${file}`, "--thread", "math", "--json"]);
    expect(whole.code, whole.err).toBe(0);
    expect(items().math).toBeUndefined();
  });
});

describe("Mastra LibSQL beside a live writer", () => {
  it("prune --keep-last 1 while an Agent keeps answering in a thread: what it writes after the prune started stays", async () => {
    const file = join(dir, "live.db");
    const spec = {
      threads: Array.from({ length: 24 }, (_, i) => ({
        id: `old-${String(i).padStart(2, "0")}`,
        resource: "r",
        turns: [{ user: "a" }, { user: "b" }],
      })),
    };
    await writeMastra({ kind: "libsql", file }, spec);
    const stop = join(dir, "live.stop");
    const live = runPeer<{ turns: Array<{ start: number; end: number }>; messages: Array<{ createdAt: string }> }>(
      "scripts/mastra-live.mjs",
      { file, thread: "live", resource: "r", stop, ms: 90_000 },
    );
    // the writer's rows in the file (read aside, read-only), to start the prune while it writes and stop it after
    const written = () => {
      const db = new Database(file, { readonly: true });
      try {
        return Number(db.prepare("SELECT count(*) FROM mastra_messages WHERE thread_id = 'live'").pluck().get());
      } catch {
        return 0;
      } finally {
        db.close();
      }
    };
    const until = async (ok: () => boolean) => {
      for (const t0 = Date.now(); !ok() && Date.now() - t0 < 60_000; ) await new Promise((r) => setTimeout(r, 50));
    };
    await until(() => written() >= 4);
    const p = await runCli(["prune", `sqlite:${file}`, "--keep-last", "1", "--batch-size", "2", "--json"]);
    expect(p.code, p.err).toBe(0);
    const startedAt = Date.parse((JSON.parse(p.out) as { startedAt: string }).startedAt);
    const left = written();
    await until(() => written() >= left + 4);
    writeFileSync(stop, "");
    const w = (await live).out;
    const after = w.turns.filter((t) => t.start > startedAt).length;
    expect(w.turns.filter((t) => t.end < startedAt).length).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(0);
    const back = await readMastra({ kind: "libsql", file });
    const liveBack = back.find((t) => t.id === "live")!;
    const newer = liveBack.messages.filter((m) => Date.parse(m.createdAt) >= startedAt).length;
    // every message of a turn begun after the prune started is there (a turn under way then may have either)
    expect(newer).toBeGreaterThanOrEqual(2 * after);
    expect(newer).toBeLessThanOrEqual(2 * after + 2);
    // of the older ones: the newest the prune saw, and those of the turn under way that it never saw (created before
    // it started, committed after it read the thread: never deleted unseen)
    expect(liveBack.messages.length - newer).toBeLessThanOrEqual(3);
    for (const t of back.filter((x) => x.id !== "live")) expect(t.messages).toHaveLength(1);
  }, 120_000);
});
