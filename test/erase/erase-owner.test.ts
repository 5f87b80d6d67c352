/**
 * `ckpt delete <store> --match/--where/--user/--resource`: erasure of everything of one user, on stores with several
 * users written by the real libraries (LangGraph JS SqliteSaver/PostgresSaver through a graph run with the user in
 * its config metadata; Mastra LibSQL with semantic recall on; the Chat SDK template's tables). After the erasure no
 * row of any table holds the user's id (every table's text scanned), and the other users' data reads back unchanged
 * through the library (LangGraph's list(), Mastra's own reads, the template's queries).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillPgRows, fillSqliteRows, type Row } from "../helpers/ai-chatbot-db.js";
import { runCli } from "../helpers/cli-io.js";
import { chatApp, closeSaver, human, jsHistory, pgSaver, sqliteSaver } from "../helpers/lg-js.js";
import { runPeer } from "../helpers/peers.js";
import { PG, pgTestSchemas } from "../helpers/pg-schemas.js";

const schemas = pgTestSchemas("ckpt_erase_owner");
const dir = mkdtempSync(join(tmpdir(), "ckpt-erase-owner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The SQLite tables with a row whose text (every column, blobs as latin1) holds `id`. */
function sqliteTablesNaming(file: string, id: string): string[] {
  const db = new Database(file, { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const hits = names.filter((t) =>
    (db.prepare(`SELECT * FROM "${t}"`).all() as unknown[]).some((r) =>
      JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString("latin1") : v)).includes(id),
    ),
  );
  db.close();
  return hits;
}

/** The PostgreSQL tables of a schema with a row whose text holds `id` (bytea as its escaped text too). */
async function pgTablesNaming(schema: string, id: string): Promise<string[]> {
  const t = await schemas.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    [schema],
  );
  const hits: string[] = [];
  for (const { table_name: n } of t.rows) {
    const r = await schemas.query(`SELECT x::text AS s FROM "${schema}"."${n}" x`);
    const hex = Buffer.from(id).toString("hex");
    if (r.rows.some((x: { s: string }) => x.s.includes(id) || x.s.includes(hex))) hits.push(n);
  }
  return hits;
}

interface Record_ {
  dryRun: boolean;
  criteria: Record<string, unknown>;
  at: string;
  threads: string[];
  tables: Array<{ table: string; rows: number }>;
  kept?: Array<{ table: string; rows: number }>;
  notes?: string[];
}

describe("LangGraph: --match and --where user_id=…", () => {
  const users = { ann: ["ann-1", "ann-2"], ben: ["ben-1"], cy: ["cy-1"] };
  // LangGraph Python copies the config's configurable keys (user_id, …) into each checkpoint's metadata; LangGraph JS
  // 1.x keeps neither them nor config.metadata, so its saver's put is given them here, as Python's loop does
  const write = async (saver: Parameters<typeof chatApp>[0]) => {
    const put = saver.put.bind(saver);
    saver.put = (config, cp, metadata, versions) =>
      put(config, cp, { ...metadata, user_id: config.configurable?.user_id } as typeof metadata, versions);
    const app = chatApp(saver);
    for (const [user, threads] of Object.entries(users))
      for (const t of threads) {
        const config = { configurable: { thread_id: t, user_id: `uid-${user}` } };
        await app.invoke(human(`weather in ${t}`), config);
        await app.invoke(human("and tomorrow?"), config);
      }
  };
  const sqliteFile = join(dir, "lg.sqlite");
  let pgSchema: string;
  beforeAll(async () => {
    const s = sqliteSaver(sqliteFile);
    await write(s);
    await closeSaver(s);
    pgSchema = schemas.schema("lg");
    const p = pgSaver(PG, pgSchema);
    await p.setup();
    await write(p);
    await closeSaver(p);
  }, 60_000);

  for (const backend of ["sqlite", "postgres"] as const) {
    it(`${backend}: --where user_id erases that user's threads, every row of them; the others read back unchanged`, async () => {
      const uri = backend === "sqlite" ? `sqlite:${sqliteFile}` : `${PG}?schema=${pgSchema}`;
      const open = () => (backend === "sqlite" ? sqliteSaver(sqliteFile) : pgSaver(PG, pgSchema));
      const s0 = open();
      const before = await jsHistory(s0);
      await closeSaver(s0);
      const others = (m: Map<string, string>) => [...m].filter(([k]) => !k.startsWith("ann-"));
      expect([...before.keys()].some((k) => k.startsWith("ann-"))).toBe(true);
      expect(JSON.parse(before.get([...before.keys()].find((k) => k.startsWith("ann-1|"))!)!).metadata.user_id).toBe(
        "uid-ann",
      );

      const dry = await runCli(["delete", uri, "--where", "user_id=uid-ann", "--json"]);
      expect(dry.code, dry.err).toBe(0);
      const plan = JSON.parse(dry.out) as Record_;
      expect(plan).toMatchObject({ dryRun: true, criteria: { where: [{ key: "user_id", value: "uid-ann" }] } });
      expect(plan.threads).toEqual(["ann-1", "ann-2"]);
      const cps = [...before.keys()].filter((k) => k.startsWith("ann-")).length;
      expect(plan.tables.find((t) => t.table === "checkpoints")!.rows).toBe(cps);
      expect(Number.isFinite(Date.parse(plan.at))).toBe(true);
      const text = await runCli(["delete", uri, "--where", "user_id=uid-ann"]);
      expect(text.out).toMatch(
        /^dry run: erase threads with metadata user_id=uid-ann in .*\n {2}2 threads: ann-1, ann-2\n/,
      );

      // --match alone selects by id; with --where both must hold
      const both = await runCli(["delete", uri, "--match", "*-2", "--where", "user_id=uid-ann", "--json"]);
      expect(JSON.parse(both.out).threads).toEqual(["ann-2"]);

      const real = await runCli(["delete", uri, "--where", "user_id=uid-ann", "--yes", "--json"]);
      expect(real.code, real.err).toBe(0);
      const done = JSON.parse(real.out) as Record_;
      // PostgreSQL keeps the orphan blobs whose rows are newer than the oldest transaction open on the server when the
      // erasure started (any session's: another test file, psql), and says so: deleted + kept is what the plan saw
      const blobsOf = (r: Record_) =>
        (r.tables.find((t) => t.table === "checkpoint_blobs")?.rows ?? 0) +
        (r.kept?.find((t) => t.table === "checkpoint_blobs")?.rows ?? 0);
      const notBlobs = (r: Record_) => r.tables.filter((t) => t.table !== "checkpoint_blobs");
      expect(notBlobs(done)).toEqual(notBlobs(plan));
      expect(blobsOf(done)).toBe(blobsOf(plan));
      const keptBlobs = done.kept?.find((t) => t.table === "checkpoint_blobs")?.rows ?? 0;
      if (keptBlobs) expect(done.notes?.join("\n")).toContain(`kept ${keptBlobs} orphan blob`);
      else expect(done.kept).toBeUndefined();
      const s1 = open();
      const after = await jsHistory(s1);
      await closeSaver(s1);
      expect([...after.keys()].filter((k) => k.startsWith("ann-"))).toEqual([]);
      expect(others(after)).toEqual(others(before));
      for (const id of ["uid-ann", "ann-1", "ann-2"])
        expect(backend === "sqlite" ? sqliteTablesNaming(sqliteFile, id) : await pgTablesNaming(pgSchema, id)).toEqual(
          keptBlobs && id !== "uid-ann" ? ["checkpoint_blobs"] : [],
        );
      if (backend === "postgres")
        expect(
          (
            await schemas.query(
              `SELECT count(*)::int AS n FROM "${pgSchema}".checkpoint_blobs WHERE thread_id IN ('ann-1', 'ann-2')`,
            )
          ).rows[0].n,
          "the blob rows left of the erased threads are the ones the record says it kept",
        ).toBe(keptBlobs);

      // nothing left of that user: exit 3; --match erases by id
      expect((await runCli(["delete", uri, "--where", "user_id=uid-ann"])).code).toBe(3);
      const m = await runCli(["delete", uri, "--match", "ben-*", "--yes", "--json"]);
      expect(JSON.parse(m.out).threads).toEqual(["ben-1"]);
    }, 60_000);
  }

  it("refusals: --user and --resource on LangGraph, --where without key=value (exit 2), store unchanged", async () => {
    const uri = `sqlite:${sqliteFile}`;
    const r = await runCli(["delete", uri, "--user", "x", "--yes"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--user is not a way it can erase.*it erases by --match and --where/);
    expect((await runCli(["delete", uri, "--resource", "x"])).code).toBe(2);
    expect((await runCli(["delete", uri, "--where", "novalue"])).code).toBe(2);
    expect((await runCli(["delete", `${uri}#cy-1`, "--match", "*"])).code).toBe(2);
    expect((await runCli(["ls", uri, "--json"])).out).toContain("cy-1");
  });
});

describe("Chat SDK template: --user", () => {
  const U1 = "11111111-1111-4111-8111-000000000001";
  const U2 = "11111111-1111-4111-8111-000000000002";
  const chat = (n: number) => `22222222-2222-4222-8222-00000000000${n}`;
  const msg = (c: number, n: number) => `33333333-3333-4333-8333-0000000000${c}${n}`;
  const doc = (n: number) => `44444444-4444-4444-8444-00000000000${n}`;
  const at = "2025-01-01 00:00:00";
  const rows = (full: boolean): Row[] => [
    ["User", { id: U1, email: "one@example.com" }],
    ["User", { id: U2, email: "two@example.com" }],
    ...[1, 2, 3].flatMap((c): Row[] => [
      ["Chat", { id: chat(c), createdAt: at, userId: c < 3 ? U1 : U2, title: `chat ${c}`, visibility: "private" }],
      ...[1, 2].map(
        (n): Row => [
          "Message_v2",
          {
            id: msg(c, n),
            chatId: chat(c),
            role: n === 1 ? "user" : "assistant",
            parts: [{ type: "text", text: `text ${c}.${n}` }],
            attachments: [],
            createdAt: at,
          },
        ],
      ),
      ["Vote_v2", { chatId: chat(c), messageId: msg(c, 2), isUpvoted: full ? true : 1 }],
    ]),
    ...(full
      ? ([
          ["Stream", { id: "55555555-5555-4555-8555-000000000001", chatId: chat(1), createdAt: at }],
          ["Stream", { id: "55555555-5555-4555-8555-000000000003", chatId: chat(3), createdAt: at }],
          ["Document", { id: doc(1), createdAt: at, title: "one's doc", content: "x", userId: U1 }],
          ["Document", { id: doc(2), createdAt: at, title: "two's doc", content: "y", userId: U2 }],
          // two's suggestion on one's document: it names one's document, so it goes with it
          [
            "Suggestion",
            {
              id: "66666666-6666-4666-8666-000000000001",
              documentId: doc(1),
              documentCreatedAt: at,
              originalText: "x",
              suggestedText: "z",
              userId: U2,
              createdAt: at,
            },
          ],
          [
            "Suggestion",
            {
              id: "66666666-6666-4666-8666-000000000002",
              documentId: doc(2),
              documentCreatedAt: at,
              originalText: "y",
              suggestedText: "w",
              userId: U1,
              createdAt: at,
            },
          ],
        ] as Row[])
      : []),
  ];
  /** What the template's queries read of user two: getUser, getChatsByUserId, getMessagesByChatId, getVotesByChatId, getDocumentsById. */
  const pgRead = async (s: string, user: string) => ({
    user: (await schemas.query(`SELECT * FROM "${s}"."User" WHERE email = $1`, ["two@example.com"])).rows,
    chats: (await schemas.query(`SELECT * FROM "${s}"."Chat" WHERE "userId" = $1 ORDER BY "createdAt" DESC`, [user]))
      .rows,
    messages: (
      await schemas.query(`SELECT * FROM "${s}"."Message_v2" WHERE "chatId" = $1 ORDER BY "createdAt" ASC`, [chat(3)])
    ).rows,
    votes: (await schemas.query(`SELECT * FROM "${s}"."Vote_v2" WHERE "chatId" = $1`, [chat(3)])).rows,
    docs: (await schemas.query(`SELECT * FROM "${s}"."Document" WHERE id = $1 ORDER BY "createdAt" ASC`, [doc(2)]))
      .rows,
  });

  it("PostgreSQL: the user's chats with their messages, votes, streams, documents, suggestions and User row go", async () => {
    const s = schemas.schema("chat");
    await fillPgRows((q, a) => schemas.query(q, a), s, rows(true));
    const uri = `${PG}?schema=${s}`;
    const before = await pgRead(s, U2);
    const dry = await runCli(["delete", uri, "--user", U1, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out) as Record_;
    expect(plan.threads).toEqual([chat(1), chat(2)]);
    expect(Object.fromEntries(plan.tables.map((t) => [t.table, t.rows]))).toEqual({
      Vote: 0,
      Vote_v2: 2,
      Message: 0,
      Message_v2: 4,
      Stream: 1,
      Chat: 2,
      Suggestion: 2,
      Document: 1,
      User: 1,
    });
    expect(await pgTablesNaming(s, U1)).not.toEqual([]);
    const real = await runCli(["delete", uri, "--user", U1, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(plan.tables);
    expect(await pgTablesNaming(s, U1)).toEqual([]);
    for (const c of [chat(1), chat(2)]) expect(await pgTablesNaming(s, c)).toEqual([]);
    expect(await pgRead(s, U2)).toEqual(before);
    // two's suggestion on one's document went with the document; one's suggestion on two's document too
    expect((await schemas.query(`SELECT count(*)::int AS n FROM "${s}"."Suggestion"`)).rows[0].n).toBe(0);
  });

  it("SQLite: the same, on the tables the store has", async () => {
    const file = join(dir, "chat.db");
    fillSqliteRows(file, rows(false));
    const dry = await runCli(["delete", `sqlite:${file}`, "--user", U2, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    expect(Object.fromEntries((JSON.parse(dry.out) as Record_).tables.map((t) => [t.table, t.rows]))).toEqual({
      Message: 0,
      Message_v2: 2,
      Vote_v2: 1,
      Chat: 1,
      User: 1,
    });
    const real = await runCli(["delete", `sqlite:${file}`, "--user", U2, "--yes"]);
    expect(real.code, real.err).toBe(0);
    expect(real.out).toMatch(/^erase user '.*' in sqlite:.*\n {2}1 thread: 2222.*\n {2}deleted 5 rows:\n/);
    expect(sqliteTablesNaming(file, U2)).toEqual([]);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM "Message_v2" WHERE "chatId" IN (?, ?)').pluck().get(chat(1), chat(2))).toBe(
      4,
    );
    db.close();
    expect((await runCli(["delete", `sqlite:${file}`, "--resource", U1])).code).toBe(2);
  });
});

describe("Mastra LibSQL with semantic recall: --resource", () => {
  const file = join(dir, "mastra.db");
  const threads = [
    { id: "t-keep-a", resource: "res-keep", turns: ["my cat is called Tom"] },
    { id: "t-gone-a", resource: "res-gone-7", turns: ["my dog is called Rex", "Rex barks"] },
    { id: "t-gone-b", resource: "res-gone-7", turns: ["plan a trip to Oslo"] },
  ];
  interface ReadBack {
    threads: Record<string, { resourceId: string; messages: unknown[] } | null>;
    vectors: Record<string, { all: string[]; byThread: Record<string, number> }>;
  }
  let before: ReadBack;
  beforeAll(async () => {
    before = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "write", file, threads })).out;
  }, 120_000);

  it("the resource row, its threads, messages and vector rows go; Mastra reads the other resource unchanged", async () => {
    const index = Object.keys(before.vectors)[0]!;
    expect(sqliteTablesNaming(file, "res-gone-7")).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages", index]),
    );
    const dry = await runCli(["delete", `sqlite:${file}`, "--resource", "res-gone-7", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out) as Record_;
    expect(plan.threads).toEqual(["t-gone-a", "t-gone-b"]);
    const n = (t: string) => before.threads[t]!.messages.length;
    expect(Object.fromEntries(plan.tables.map((t) => [t.table, t.rows]))).toMatchObject({
      mastra_threads: 2,
      mastra_messages: n("t-gone-a") + n("t-gone-b"),
      [index]: before.vectors[index]!.byThread["t-gone-a"]! + before.vectors[index]!.byThread["t-gone-b"]!,
    });
    const real = await runCli(["delete", `sqlite:${file}`, "--resource", "res-gone-7", "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(plan.tables);
    const after = (await runPeer<ReadBack>("scripts/mastra-erase.mjs", { op: "read", file, threads })).out;
    expect(after.threads["t-gone-a"]).toBeNull();
    expect(after.threads["t-gone-b"]).toBeNull();
    expect(after.threads["t-keep-a"]).toEqual(before.threads["t-keep-a"]);
    expect(after.vectors[index]!.all).toEqual(
      ["t-keep-a"].flatMap((t) => before.vectors[index]!.all.filter((x) => x === t)),
    );
    for (const id of ["res-gone-7", "t-gone-a", "t-gone-b"]) expect(sqliteTablesNaming(file, id)).toEqual([]);
    expect((await runCli(["delete", `sqlite:${file}`, "--user", "res-keep"])).code).toBe(2);
  }, 120_000);
});
