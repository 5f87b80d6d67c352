/**
 * `ckpt delete` in a Mastra PostgreSQL store written by the real @mastra/pg (test/helpers/mastra.ts: four threads of
 * three resources, tool calls, working memory): afterwards Mastra's own reads (getThreadById, recall, listThreads,
 * getResourceById) find nothing of what was deleted, every other thread reads back unchanged, and no row of any table
 * in the schema names it.
 *
 * Semantic recall cannot be written here: @mastra/pg's PgVector needs the pgvector extension, which this machine's
 * PostgreSQL 15 does not have (no package, no network). The vector rows are therefore PgVector's table as its
 * createIndex makes it (`id SERIAL, vector_id TEXT, embedding, metadata JSONB, namespace`), with `embedding` a
 * `real[]` instead of `vector(8)`, holding one row per message with the metadata @mastra/memory gives an embedding
 * (message_id, thread_id, resource_id, role, content, created_at): ckpt must delete the rows whose metadata names
 * what is erased, and the others must stay. test/erase/mastra-pgvector-delete.test.ts has @mastra/pg write them for real,
 * with pgvector, on a PGlite server.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli-io.js";
import { MASTRA_SPEC, type MastraThreadBack, readMastra, writeMastra } from "../helpers/mastra.js";
import { runPeer } from "../helpers/peers.js";
import { PG, pgTestSchemas } from "../helpers/pg-schemas.js";

const schemas = pgTestSchemas("ckpt_mastra_erase");
const VECTORS = "memory_messages_8";
let before: MastraThreadBack[];
let beforeResource: MastraThreadBack[];

interface Probe {
  threads: Record<string, { thread: { id: string; resourceId: string } | null; messages: string[] }>;
  resources: Record<string, { workingMemory: string | null } | null>;
}
const probe = async (schema: string, threads: string[], resources: string[] = []) =>
  (await runPeer<Probe>("scripts/mastra-probe.mjs", { store: { kind: "pg", url: PG, schema }, threads, resources }))
    .out;

/** The tables of the schema with a row whose text names `id`. */
async function tablesNaming(schema: string, id: string): Promise<string[]> {
  const t = await schemas.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    [schema],
  );
  const hits: string[] = [];
  for (const { table_name: n } of t.rows) {
    const r = await schemas.query(`SELECT 1 FROM ${schema}."${n}" x WHERE strpos(x::text, $1) > 0 LIMIT 1`, [id]);
    if (r.rowCount) hits.push(n);
  }
  return hits;
}

/** The vector rows per thread the metadata names. */
async function vectorsByThread(schema: string): Promise<Record<string, number>> {
  const r = await schemas.query<{ t: string; n: number }>(
    `SELECT metadata->>'thread_id' AS t, count(*)::int AS n FROM ${schema}.${VECTORS} GROUP BY 1`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.t, x.n]));
}

/** Stores written by @mastra/pg, one per test (each test changes its own), with PgVector's table of their messages. */
const stores: Record<string, string> = {};
async function write(name: string): Promise<MastraThreadBack[]> {
  const schema = schemas.schema(name);
  stores[name] = schema;
  const back = await writeMastra({ kind: "pg", url: PG, schema }, MASTRA_SPEC);
  await schemas.query(`CREATE TABLE ${schema}.${VECTORS} (
    id SERIAL PRIMARY KEY, vector_id TEXT NOT NULL, embedding real[], metadata JSONB DEFAULT '{}'::jsonb,
    namespace VARCHAR(255) NOT NULL DEFAULT '')`);
  for (const t of back)
    for (const m of t.messages)
      await schemas.query(`INSERT INTO ${schema}.${VECTORS} (vector_id, embedding, metadata) VALUES ($1, $2, $3)`, [
        `${m.id}-0`,
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        { message_id: m.id, thread_id: t.id, resource_id: t.resourceId, role: m.role, created_at: m.createdAt },
      ]);
  return back;
}

beforeAll(async () => {
  [before, beforeResource] = await Promise.all(["thread", "resource"].map(write));
}, 120_000);

describe("ckpt delete: a Mastra PostgreSQL thread", () => {
  it("removes the thread, its messages and its vector rows; Mastra reads nothing of it, the rest unchanged", async () => {
    const schema = stores.thread!;
    const uri = `${PG}?schema=${schema}`;
    const victim = before.find((t) => t.id === "chat-2")!;
    expect(victim.messages.length).toBeGreaterThan(0);
    expect(await tablesNaming(schema, victim.id)).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages", VECTORS]),
    );

    const dry = await runCli(["delete", `${uri}#${victim.id}`, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const planned = JSON.parse(dry.out) as { dryRun: boolean; tables: Array<{ table: string; rows: number }> };
    expect(planned.dryRun).toBe(true);
    const rows = Object.fromEntries(planned.tables.map((t) => [t.table, t.rows]));
    expect(rows).toMatchObject({ mastra_threads: 1, mastra_messages: victim.messages.length });
    expect(rows[VECTORS]).toBe(victim.messages.length);
    // every other table that can name a thread is listed with 0 rows (an erasure record names what it looked at)
    expect(rows).toHaveProperty("mastra_thread_state", 0);
    expect(rows).toHaveProperty("mastra_observational_memory", 0);
    expect(await readMastra({ kind: "pg", url: PG, schema })).toEqual(before);

    const text = await runCli(["delete", `${uri}#${victim.id}`]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(/dry run: delete .*#chat-2\n {2}would delete \d+ rows:\n/);

    const real = await runCli(["delete", `${uri}#${victim.id}`, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(planned.tables);

    const p = await probe(schema, [victim.id, "trip-1"]);
    expect(p.threads[victim.id]).toEqual({ thread: null, messages: [] });
    expect(p.threads["trip-1"]!.messages).toEqual(before.find((t) => t.id === "trip-1")!.messages.map((m) => m.id));
    expect(await readMastra({ kind: "pg", url: PG, schema })).toEqual(before.filter((t) => t.id !== victim.id));
    const v = await vectorsByThread(schema);
    expect(v[victim.id]).toBeUndefined();
    for (const t of before.filter((x) => x.id !== victim.id)) expect(v[t.id]).toBe(t.messages.length);
    expect(await tablesNaming(schema, victim.id)).toEqual([]);

    // gone: a second delete finds nothing (exit 3), the dry run too
    expect((await runCli(["delete", `${uri}#${victim.id}`])).code).toBe(3);
  }, 60_000);
});

describe("ckpt delete --resource: a Mastra PostgreSQL resource", () => {
  it("removes the resource (its working memory), its threads, their messages and vector rows; the others unchanged", async () => {
    const schema = stores.resource!;
    const before = beforeResource;
    const uri = `${PG}?schema=${schema}`;
    const gone = before.filter((t) => t.resourceId === "alice");
    expect(gone.map((t) => t.id).sort()).toEqual(["chat-2", "trip-1"]);
    expect(gone[0]!.workingMemory).toContain("Alice");
    expect(await tablesNaming(schema, "alice")).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages", "mastra_resources", VECTORS]),
    );
    const dry = await runCli(["delete", uri, "--resource", "alice", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out) as {
      threads: string[];
      criteria: unknown;
      tables: Array<{ table: string; rows: number }>;
    };
    expect(plan.criteria).toEqual({ resource: "alice" });
    expect(plan.threads).toEqual(["chat-2", "trip-1"]);
    const messages = gone.reduce((n, t) => n + t.messages.length, 0);
    expect(Object.fromEntries(plan.tables.map((t) => [t.table, t.rows]))).toMatchObject({
      mastra_threads: 2,
      mastra_messages: messages,
      mastra_resources: 1,
      [VECTORS]: messages,
    });
    const real = await runCli(["delete", uri, "--resource", "alice", "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(plan.tables);

    const p = await probe(schema, ["chat-2", "trip-1", "bob-1"], ["alice", "bob"]);
    expect(p.threads["chat-2"]).toEqual({ thread: null, messages: [] });
    expect(p.threads["trip-1"]).toEqual({ thread: null, messages: [] });
    expect(p.resources.alice).toBeNull();
    expect(p.resources.bob).toEqual({ workingMemory: MASTRA_SPEC.workingMemory.bob });
    expect(await readMastra({ kind: "pg", url: PG, schema })).toEqual(before.filter((t) => t.resourceId !== "alice"));
    const v = await vectorsByThread(schema);
    expect(Object.keys(v).sort()).toEqual(["bob-1", "carol-1"]);
    expect(await tablesNaming(schema, "alice")).toEqual([]);
    for (const t of gone) expect(await tablesNaming(schema, t.id)).toEqual([]);
    expect((await runCli(["delete", uri, "--resource", "alice"])).code).toBe(3);
  }, 60_000);
});
