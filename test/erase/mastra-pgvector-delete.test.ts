/**
 * `ckpt delete` in a Mastra PostgreSQL store written by the real @mastra/pg with semantic recall on: PostgresStore
 * and PgVector in one schema, so PgVector's own `memory_messages_<dims>` table (a pgvector `vector` column and the
 * index PgVector builds on it) holds an embedding of every message. The server is PGlite (PostgreSQL compiled to WASM
 * with its pgvector extension) behind pglite-socket on a free port (test/helpers/pglite-server.ts), since this
 * machine's PostgreSQL has no pgvector; test/erase/mastra-pg-delete.test.ts covers the machine's PostgreSQL with a
 * hand-built table of PgVector's layout. Afterwards Mastra's own reads (getThreadById, recall, getResourceById, a
 * PgVector query filtered by each thread and over the whole index) find nothing of what was deleted, every other
 * thread and resource reads back unchanged, and no row of any table in the schema names it.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli-io.js";
import { runPeer } from "../helpers/peers.js";
import { startPglite, type TestPglite } from "../helpers/pglite-server.js";

const threads = [
  { id: "t-keep-a", resource: "res-keep", turns: ["my cat is called Tom", "Tom likes fish"] },
  { id: "t-victim-9b7e", resource: "res-keep", turns: ["my dog is called Rex", "Rex barks at night"] },
  { id: "t-gone-a", resource: "res-gone-7", turns: ["plan a trip to Oslo"] },
  { id: "t-gone-b", resource: "res-gone-7", turns: ["book a hotel in Bergen", "near the harbour"] },
];
const workingMemory = { "res-keep": "# Keep\n- Pet: Tom", "res-gone-7": "# Gone\n- City: Oslo" };
const resources = Object.keys(workingMemory);
const INDEX = "memory_messages_8";
interface ReadBack {
  threads: Record<string, { resourceId: string; messages: Array<{ id: string }> } | null>;
  resources: Record<string, { workingMemory: string | null } | null>;
  vectors: Record<string, { all: string[]; byThread: Record<string, number> }>;
}

let server: TestPglite;
let client: pg.Client;
const before: Record<string, ReadBack> = {};
const peer = (op: "write" | "read", schema: string) =>
  runPeer<ReadBack>("scripts/mastra-erase.mjs", {
    op,
    pg: { url: server.url, schema, max: 2 },
    threads,
    resources,
    ...(op === "write" ? { workingMemory } : {}),
  }).then((r) => r.out);
const uri = (schema: string) => `${server.url}?schema=${schema}`;

/** The tables of the schema with a row whose text names `id`. */
async function tablesNaming(schema: string, id: string): Promise<string[]> {
  const t = await client.query<{ n: string }>(
    "SELECT table_name AS n FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
    [schema],
  );
  const hits: string[] = [];
  for (const { n } of t.rows) {
    const r = await client.query(`SELECT 1 FROM "${schema}"."${n}" x WHERE strpos(x::text, $1) > 0 LIMIT 1`, [id]);
    if (r.rowCount) hits.push(n);
  }
  return hits;
}

beforeAll(async () => {
  server = await startPglite();
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
  for (const schema of ["by_thread", "by_resource"]) before[schema] = await peer("write", schema);
}, 90_000);
afterAll(async () => {
  await client?.end();
  await server?.stop();
});

describe("ckpt delete: a Mastra PostgreSQL thread with PgVector semantic recall", () => {
  it("removes the thread, its messages and its pgvector rows; Mastra reads nothing of it, the rest unchanged", async () => {
    const schema = "by_thread";
    const b = before[schema]!;
    const victim = "t-victim-9b7e";
    // PgVector's own table: a pgvector column and the index PgVector made on it
    const cols = await client.query(
      "SELECT udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'embedding'",
      [schema, INDEX],
    );
    expect(cols.rows).toEqual([{ udt_name: "vector" }]);
    const idx = await client.query<{ d: string }>(
      "SELECT indexdef AS d FROM pg_indexes WHERE schemaname = $1 AND tablename = $2",
      [schema, INDEX],
    );
    expect(idx.rows.map((r) => r.d).join("\n")).toMatch(/USING (ivfflat|hnsw) \(embedding vector_/);
    expect(Object.keys(b.vectors)).toEqual([INDEX]);
    const n = b.threads[victim]!.messages.length;
    expect(n).toBeGreaterThan(0);
    expect(b.vectors[INDEX]!.byThread[victim]).toBe(n);
    expect(await tablesNaming(schema, victim)).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages", INDEX]),
    );

    const dry = await runCli(["delete", `${uri(schema)}#${victim}`, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const planned = JSON.parse(dry.out) as {
      dryRun: boolean;
      tables: Array<{ table: string; rows: number }>;
      notes?: string[];
    };
    expect(planned.dryRun).toBe(true);
    expect(planned.notes).toBeUndefined();
    expect(Object.fromEntries(planned.tables.map((t) => [t.table, t.rows]))).toMatchObject({
      mastra_threads: 1,
      mastra_messages: n,
      [INDEX]: n,
    });
    expect(await peer("read", schema)).toEqual(b);

    const real = await runCli(["delete", `${uri(schema)}#${victim}`, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(planned.tables);

    const after = await peer("read", schema);
    expect(after.threads[victim]).toBeNull();
    expect(after.vectors[INDEX]!.byThread[victim]).toBe(0);
    for (const t of threads.filter((x) => x.id !== victim)) {
      expect(after.threads[t.id]).toEqual(b.threads[t.id]);
      expect(after.vectors[INDEX]!.byThread[t.id]).toBe(b.vectors[INDEX]!.byThread[t.id]);
    }
    expect(after.vectors[INDEX]!.all).toEqual(b.vectors[INDEX]!.all.filter((t) => t !== victim));
    expect(after.resources).toEqual(b.resources);
    expect(await tablesNaming(schema, victim)).toEqual([]);
    expect((await runCli(["delete", `${uri(schema)}#${victim}`])).code).toBe(3);
  }, 60_000);
});

describe("ckpt delete --resource: a Mastra PostgreSQL resource with PgVector semantic recall", () => {
  it("removes the resource, its threads, their messages and pgvector rows; the other resource unchanged", async () => {
    const schema = "by_resource";
    const b = before[schema]!;
    const gone = threads.filter((t) => t.resource === "res-gone-7").map((t) => t.id);
    expect(b.resources["res-gone-7"]).toEqual({ workingMemory: workingMemory["res-gone-7"] });
    expect(await tablesNaming(schema, "res-gone-7")).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages", "mastra_resources", INDEX]),
    );
    const dry = await runCli(["delete", uri(schema), "--resource", "res-gone-7", "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out) as { threads: string[]; tables: Array<{ table: string; rows: number }> };
    expect(plan.threads).toEqual(gone);
    const messages = gone.reduce((s, t) => s + b.threads[t]!.messages.length, 0);
    expect(Object.fromEntries(plan.tables.map((t) => [t.table, t.rows]))).toMatchObject({
      mastra_threads: 2,
      mastra_messages: messages,
      mastra_resources: 1,
      [INDEX]: messages,
    });
    const real = await runCli(["delete", uri(schema), "--resource", "res-gone-7", "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out).tables).toEqual(plan.tables);

    const after = await peer("read", schema);
    for (const t of gone) expect(after.threads[t]).toBeNull();
    expect(after.resources["res-gone-7"]).toBeNull();
    expect(after.resources["res-keep"]).toEqual(b.resources["res-keep"]);
    for (const t of ["t-keep-a", "t-victim-9b7e"]) {
      expect(after.threads[t]).toEqual(b.threads[t]);
      expect(after.vectors[INDEX]!.byThread[t]).toBe(b.vectors[INDEX]!.byThread[t]);
    }
    for (const t of gone) expect(after.vectors[INDEX]!.byThread[t]).toBe(0);
    expect(after.vectors[INDEX]!.all).toEqual(b.vectors[INDEX]!.all.filter((t) => !gone.includes(t)));
    for (const id of ["res-gone-7", ...gone]) expect(await tablesNaming(schema, id)).toEqual([]);
    expect((await runCli(["delete", uri(schema), "--resource", "res-gone-7"])).code).toBe(3);
  }, 60_000);
});
