/**
 * The read-back of `ckpt migrate` into a LangGraph PostgreSQL store catches rows the server changed on the way in:
 * triggers (created after the library's tables, before the migration) bend one checkpoint's metadata, one pending
 * write's bytes, and drop one blob row that several checkpoints name. Exactly those checkpoints are mismatches (exit
 * 1), every other one verifies; the same migration with --no-verify reports success, so it is the read-back that
 * finds them. Which checkpoints name the dropped blob is worked out from the source with the independent decoder.
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonbText } from "../src/formats/langgraph/rows.js";
import { runCli } from "./helpers/cli-io.js";
import { readSqliteStore } from "./helpers/lg-independent.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgv");
const pgUri = (s: string) => `${PG}?schema=${s}`;
const ckpt = (...argv: string[]) => runCli(argv, { cwd: mkdtempSync(join(tmpdir(), "lgv-")) });

function copyOf(name: string): string {
  const p = join(mkdtempSync(join(tmpdir(), "lgv-src-")), name);
  copyFileSync(join(fx, name), p);
  return p;
}

type Summary = {
  exitCode: number;
  written: number;
  verified: number;
  mismatches: Array<{ namespace: string; threadId: string }>;
};
const summaryOf = (out: string): Summary => JSON.parse(out.trim().split("\n").pop()!);

/** The library's tables in `s` (a migration of no thread), then the three triggers. */
async function bentTarget(
  src: string,
  s: string,
  bend: { metaId: string; write: { id: string; task: string; idx: number }; blob: { thread: string; version: string } },
) {
  const made = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--thread", "no-such-thread", "-q");
  expect(made.code, made.out + made.err).toBe(0);
  const q = (sql: string) => pgdb.query(sql);
  await q(`CREATE FUNCTION ${s}.bend_cp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF NEW.checkpoint_id = '${bend.metaId}' THEN NEW.metadata := NEW.metadata || '{"bent": true}'::jsonb; END IF; RETURN NEW; END $$`);
  await q(`CREATE TRIGGER bend BEFORE INSERT ON ${s}.checkpoints FOR EACH ROW EXECUTE FUNCTION ${s}.bend_cp()`);
  await q(`CREATE FUNCTION ${s}.bend_w() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF NEW.checkpoint_id = '${bend.write.id}' AND NEW.task_id = '${bend.write.task}' AND NEW.idx = ${bend.write.idx} THEN NEW.blob := '\\x90'::bytea; END IF; RETURN NEW; END $$`);
  await q(`CREATE TRIGGER bend BEFORE INSERT ON ${s}.checkpoint_writes FOR EACH ROW EXECUTE FUNCTION ${s}.bend_w()`);
  await q(`CREATE FUNCTION ${s}.lose_blob() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF NEW.thread_id = '${bend.blob.thread}' AND NEW.channel = 'messages' AND NEW.version = '${bend.blob.version}' THEN RETURN NULL; END IF; RETURN NEW; END $$`);
  await q(`CREATE TRIGGER lose BEFORE INSERT ON ${s}.checkpoint_blobs FOR EACH ROW EXECUTE FUNCTION ${s}.lose_blob()`);
}

describe("LangGraph migrate into PostgreSQL: the read-back catches what the server changed", () => {
  for (const sample of ["python-a.sqlite", "js-a.sqlite"]) {
    it(`${sample}: a bent metadata row, a bent write and a lost blob are mismatches, exactly those checkpoints; --no-verify does not see them`, async () => {
      const src = copyOf(sample);
      const store = readSqliteStore(src);
      const key = (k: string) => ({ thread: k.split("|")[0]!, id: k.split("|")[2]! });
      const all = [...store.keys()];
      // the blob: a-chat-1's messages at the version most of its checkpoints name (the thread is not forked)
      const chat = all.filter((k) => k.startsWith("a-chat-1||"));
      const versionOf = (k: string) =>
        String((store.get(k)!.checkpoint as { channel_versions: Record<string, unknown> }).channel_versions.messages);
      const counts = new Map<string, number>();
      for (const k of chat)
        if (
          (store.get(k)!.checkpoint as { channel_versions: Record<string, unknown> }).channel_versions.messages !==
          undefined
        )
          counts.set(versionOf(k), (counts.get(versionOf(k)) ?? 0) + 1);
      const [version, naming] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
      expect(naming).toBeGreaterThan(1);
      // the metadata: a-chat-2's newest; the write: the first write of a-counter-1's first checkpoint that has one
      const metaKey = all
        .filter((k) => k.startsWith("a-chat-2||"))
        .sort()
        .pop()!;
      const writeKey = all.filter((k) => k.startsWith("a-counter-1||") && store.get(k)!.writes.length).sort()[0]!;
      const [task, idx] = store.get(writeKey)!.writes[0] as [string, number];
      const expected = new Set(
        [metaKey, writeKey, ...chat.filter((k) => versionOf(k) === version)].map(
          (k) => `${key(k).thread}@${key(k).id}`,
        ),
      );
      const bend = {
        metaId: key(metaKey).id,
        write: { id: key(writeKey).id, task, idx },
        blob: { thread: "a-chat-1", version },
      };

      const quiet = pgdb.schema(`nv_${sample.replace(/[^a-z0-9]/g, "_")}`);
      await bentTarget(src, quiet, bend);
      const unseen = summaryOf(
        (await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(quiet), "--no-verify", "--json")).out,
      );
      expect(unseen.exitCode).toBe(0);
      expect(unseen.mismatches).toEqual([]);
      // the triggers did bend the rows
      const bent = await pgdb.query(
        `SELECT (SELECT count(*)::int FROM ${quiet}.checkpoints WHERE metadata ? 'bent') AS m,
        (SELECT count(*)::int FROM ${quiet}.checkpoint_writes WHERE blob = '\\x90'::bytea) AS w,
        (SELECT count(*)::int FROM ${quiet}.checkpoint_blobs WHERE thread_id = 'a-chat-1' AND channel = 'messages' AND version = $1) AS b`,
        [version],
      );
      expect(bent.rows[0]).toEqual({ m: 1, w: 1, b: 0 });

      const s = pgdb.schema(`v_${sample.replace(/[^a-z0-9]/g, "_")}`);
      await bentTarget(src, s, bend);
      const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--json");
      const sum = summaryOf(r.out);
      expect(r.code).toBe(1);
      expect(sum.written).toBe(all.length);
      expect(new Set(sum.mismatches.map((m) => m.threadId))).toEqual(expected);
      expect(sum.mismatches).toHaveLength(expected.size);
      expect(sum.verified).toBe(all.length - expected.size);
    }, 180_000); // five ckpt processes: over the 60 s default when the machine is loaded
  }
});

describe("LangGraph migrate into PostgreSQL tables of other column types", () => {
  it("metadata as json (not jsonb): written with the upsert instead of binary COPY rows made for jsonb, every checkpoint verified and equal", async () => {
    const src = copyOf("python-a.sqlite");
    const s = pgdb.schema("jsoncol");
    expect(
      (await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--thread", "no-such-thread", "-q")).code,
    ).toBe(0);
    await pgdb.query(`ALTER TABLE ${s}.checkpoints ALTER COLUMN metadata TYPE json USING metadata::json`);
    const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--json");
    const sum = summaryOf(r.out);
    expect(r.code, r.out + r.err).toBe(0);
    expect([sum.written, sum.verified]).toEqual([60, 60]);
    const store = readSqliteStore(src);
    const rows = (
      await pgdb.query(`SELECT thread_id, checkpoint_ns, checkpoint_id, metadata::text AS m FROM ${s}.checkpoints`)
    ).rows;
    expect(rows).toHaveLength(60);
    for (const x of rows)
      expect(JSON.parse(x.m)).toEqual(store.get(`${x.thread_id}|${x.checkpoint_ns}|${x.checkpoint_id}`)!.metadata);
  }, 180_000);
});

describe("jsonbText: the text a JSONB column prints back", () => {
  it("PostgreSQL prints each value back byte for byte as jsonbText wrote it, with the same value", async () => {
    const values: unknown[] = [
      { b: 1, a: 2, aa: [], "": {}, é: "x", z: '\u00e9\u001f\u007f"\\\n\t\b\f\r', ü1: 0, zz: null, t: true, f: false },
      [1e21, 1.5e-7, 1e-7, -2.5e22, 0.1, -0, 123456789012345680000, 5e-324, 1.7976931348623157e308, -1.25],
      { nested: { "\u{1F600}": [{}, [[]], "\u{1F600}"], ab: { ba: 1, ab: 2, b: 3 } }, k: "tab\there" },
      "plain",
      42,
      // ASCII keys of mixed lengths, integer-like keys (which JS lists first), more than 16 keys, dropped values
      {
        zeta: 1,
        b: 2,
        "10": 3,
        "9": 4,
        aa: 5,
        ab: [{ y: 1, x: 2 }],
        a: 6,
        "": 7,
        B: 8,
        _: 9,
        gone: undefined,
        fn: () => 1,
      },
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 97}${"x".repeat(i % 5)}`, i])),
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i % 3 ? `é${i}` : `e${i}`, i])),
    ];
    for (const v of values) {
      const text = jsonbText(v);
      const back = (await pgdb.query("SELECT $1::jsonb::text AS t", [text])).rows[0].t;
      expect(back).toBe(text);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
    }
  });

  it("U+0000 goes from strings and keys (JSONB cannot hold it), a key that then collides keeps the last value", () => {
    expect(jsonbText({ "a\u0000": 1, a: 2, s: "x\u0000y" })).toBe('{"a": 2, "s": "xy"}');
    expect(jsonbText({ a: 2, "a\u0000": 1 })).toBe('{"a": 1}');
    expect(jsonbText({ b: undefined, c: 1, "d\u0000": 2, a: 3 })).toBe('{"a": 3, "c": 1, "d": 2}');
  });
});
