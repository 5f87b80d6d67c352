/**
 * A migration works out each record's UTF-8 size once and hands it to the target (SaverRecord.bytes) for the size
 * column SQLite and PostgreSQL keep. The sizes stored must be those of the documents stored — with multi-byte text,
 * through a new batch (insertNew: COPY, INSERT) and an overwrite (upsert), and when a conversion changes the text —
 * and the summary's byte counts those of the files read and the documents written.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSaver } from "../src/savers/index.js";
import { migrate, type MigrateOptions } from "../src/engines/ckpt/migrate.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const run = randomBytes(4).toString("hex");
const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-migbytes-"));

afterAll(async () => {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  const { rows } = await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`ckpt_migbytes_${run}_%`]);
  for (const { nspname } of rows) await c.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await c.end();
  rmSync(dir, { recursive: true, force: true });
});

const base = JSON.parse(readFileSync(join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json"), "utf8"));
/** deep-agent documents with 1-, 2-, 3- and 4-byte characters in them (and one ASCII only) */
const doc = (i: number) =>
  JSON.stringify(
    { ...base, threadId: `t-${i}`, step: i, note: i % 5 === 0 ? "plain" : "Grüße – 東京 🚀 ".repeat(i % 7) },
    null,
    2,
  );

function source(n: number): string {
  const src = join(dir, `src-${n}-${randomBytes(3).toString("hex")}`);
  mkdirSync(src);
  for (let i = 0; i < n; i++) writeFileSync(join(src, `t-${i}.json`), doc(i));
  return src;
}

async function copy(src: string, uri: string, opts: MigrateOptions = {}) {
  const s = await openSaver(`file:${src}`);
  const t = await openSaver(uri);
  try {
    return await migrate(s, t, { batchSize: 25, ...opts });
  } finally {
    await s.close();
    await t.close();
  }
}

async function pgSizes(schema: string): Promise<Array<{ bytes: number; actual: number; chars: number }>> {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  try {
    return (
      await c.query(`SELECT bytes, octet_length(doc) AS actual, length(doc) AS chars FROM "${schema}".ckpt_checkpoints`)
    ).rows;
  } finally {
    await c.end();
  }
}

function sqliteSizes(file: string): Array<{ bytes: number; actual: number }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT bytes, length(CAST(doc AS BLOB)) AS actual FROM ckpt_checkpoints").all() as Array<{
      bytes: number;
      actual: number;
    }>;
  } finally {
    db.close();
  }
}

const fileBytes = (n: number) =>
  Array.from({ length: n }, (_, i) => Buffer.byteLength(doc(i))).reduce((a, b) => a + b, 0);

describe("migrate: the UTF-8 sizes stored and counted", () => {
  it("PostgreSQL: a COPY of new batches, then an overwrite (upsert): each row's size is its document's", async () => {
    const n = 60;
    const src = source(n);
    const schema = `ckpt_migbytes_${run}_pg`;
    const first = await copy(src, `${PG}?schema=${schema}`);
    expect(first.written).toBe(n);
    expect(first.bytesRead).toBe(fileBytes(n));
    expect(first.bytesWritten).toBe(fileBytes(n));
    let rows = await pgSizes(schema);
    expect(rows).toHaveLength(n);
    for (const r of rows) expect(r.bytes).toBe(r.actual);
    // multi-byte text is in there: sizes differ from lengths in characters
    expect(rows.filter((r) => r.actual > r.chars).length).toBeGreaterThan(n / 2);
    // an overwrite of the same rows goes through the upsert (the rows exist)
    const again = await copy(src, `${PG}?schema=${schema}`, { onConflict: "overwrite" });
    expect(again.written).toBe(n);
    rows = await pgSizes(schema);
    for (const r of rows) expect(r.bytes).toBe(r.actual);
  });

  it("PostgreSQL: a batch below the COPY threshold (plain INSERT)", async () => {
    const src = source(5);
    const schema = `ckpt_migbytes_${run}_small`;
    const r = await copy(src, `${PG}?schema=${schema}`);
    expect(r.written).toBe(5);
    for (const row of await pgSizes(schema)) expect(row.bytes).toBe(row.actual);
  });

  it("SQLite: new records, an overwrite, and a conversion that changes the text: each row's size is its document's", async () => {
    const n = 40;
    const src = source(n);
    const db = join(dir, `t-${run}.db`);
    const first = await copy(src, `sqlite:${db}`);
    expect(first.written).toBe(n);
    expect(first.bytesRead).toBe(fileBytes(n));
    expect(first.bytesWritten).toBe(fileBytes(n));
    for (const r of sqliteSizes(db)) expect(r.bytes).toBe(r.actual);
    await copy(src, `sqlite:${db}`, { onConflict: "overwrite" });
    for (const r of sqliteSizes(db)) expect(r.bytes).toBe(r.actual);
    const converted = join(dir, `c-${run}.db`);
    const c = await copy(src, `sqlite:${converted}`, { toFormat: "ckpt" });
    expect(c.written).toBe(n);
    const rows = sqliteSizes(converted);
    expect(rows).toHaveLength(n);
    for (const r of rows) expect(r.bytes).toBe(r.actual);
    // the converted documents are not the files: what was written is counted, not what was read
    expect(c.bytesRead).toBe(fileBytes(n));
    expect(c.bytesWritten).toBe(rows.reduce((a, r) => a + r.actual, 0));
    expect(c.bytesWritten).not.toBe(c.bytesRead);
  });
});
