/**
 * `scanRows(…, only)`, what `ckpt copy` reads a thread with: it starts at the thread's first key and stops after its
 * last instead of reading the whole store (#41: copying one thread of a 200,000-checkpoint store took 3 s, the time of
 * a full scan). Whatever the page size (pages that split the thread, a page per row), it yields exactly the thread's
 * rows with their writes — the keys as plain SQL lists them, every checkpoint equal to what the full scan gives — and
 * nothing for a thread the store does not hold. On the Python-written fixtures, in SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import pg from "pg";
import { openStore } from "../src/savers/index.js";
import { parseSaverUri } from "../src/savers/uri.js";
import type { LgCheckpoint } from "../src/formats/langgraph/rows.js";
import type { LgStore } from "../src/savers/langgraph/shared.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const PG = "postgres://postgres@127.0.0.1:5432/test";
const schema = `lgscanone_${randomBytes(4).toString("hex")}`;
let client: pg.Client;
let sqlitePath: string;

beforeAll(async () => {
  sqlitePath = join(mkdtempSync(join(tmpdir(), "ckpt-scan-one-")), "c.sqlite");
  copyFileSync(join(fx, "python-c.sqlite"), sqlitePath);
  client = new pg.Client({ connectionString: PG });
  await client.connect();
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
    input: readFileSync(join(fx, "python-c.pg.sql"), "utf8").replaceAll("__SCHEMA__", schema),
    stdio: ["pipe", "ignore", "inherit"],
  });
});
afterAll(async () => {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

async function rows(store: LgStore, size: number, only?: string): Promise<LgCheckpoint[]> {
  const out: LgCheckpoint[] = [];
  for await (const b of store.scanRows(size, only === undefined ? undefined : (t) => t === only, only)) out.push(...b);
  return out;
}
const key = (c: LgCheckpoint) => `${c.threadId}\u0000${c.ns}\u0000${c.id}`;

describe.each([
  {
    name: "SQLite",
    uri: () => `sqlite:${sqlitePath}`,
    keys: async () =>
      (
        new Database(sqlitePath, { readonly: true })
          .prepare("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints")
          .all() as Array<{ thread_id: string; checkpoint_ns: string; checkpoint_id: string }>
      ).map((r) => `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`),
  },
  {
    name: "PostgreSQL",
    uri: () => `${PG}?schema=${schema}`,
    keys: async () =>
      (await client.query(`SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${schema}.checkpoints`)).rows.map(
        (r) => `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`,
      ),
  },
])("$name: one thread's rows", ({ uri, keys }) => {
  it("equal the full scan's rows of that thread, whatever the page size; none for a thread not held", async () => {
    const opened = await openStore(parseSaverUri(uri()), { readOnly: true });
    if (opened.layout !== "langgraph") throw new Error("not a LangGraph store");
    const store = opened.store;
    try {
      const all = await rows(store, 500);
      const sql = (await keys()).sort();
      expect(all.map(key).sort()).toEqual(sql);
      const threads = [...new Set(all.map((c) => c.threadId))];
      expect(threads.length).toBeGreaterThan(1);
      for (const t of threads) {
        const want = all.filter((c) => c.threadId === t);
        expect(want.length).toBe(sql.filter((k) => k.startsWith(`${t}\u0000`)).length);
        for (const size of [1, 3, 500]) expect(await rows(store, size, t), `${t}, pages of ${size}`).toEqual(want);
      }
      expect(await rows(store, 3, "no-such-thread")).toEqual([]);
      expect(await rows(store, 3, `${threads[0]}x`)).toEqual([]);
    } finally {
      await opened.store.close();
    }
  });
});
