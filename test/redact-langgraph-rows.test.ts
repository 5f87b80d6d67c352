/**
 * `--redact` of a LangGraph history (`ckpt copy`, `ckpt migrate` between LangGraph stores), which moves rows rather
 * than documents: each row's payloads are rewritten where they are stored.
 * - The msgpack rewriter against an independent decoder (@msgpack/msgpack, every ext payload of Python's serde decoded
 *   as msgpack too) on every payload of the real Python stores in fixtures/langgraph/: it finds the strings that
 *   decoder finds, and a rewrite with every string changed (lengths crossing msgpack's header sizes) decodes to the
 *   same value with those strings changed.
 * - The seeded corpus (test/helpers/secret-corpus.ts) in a LangGraph store of each library's serde (JS: JSON; Python:
 *   msgpack), copied and migrated with --redact into SQLite and PostgreSQL: no seed is left in any byte of the target's
 *   tables; `ckpt show --json` of the target is the non-redacted target's with only the seeds changed; a value has one
 *   placeholder throughout the thread; the real LangGraph JS SqliteSaver reads the redacted thread; the source is not
 *   changed. A row that cannot be rewritten (encrypted) is not written, and the run says which and why.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decoder, ExtensionCodec } from "@msgpack/msgpack";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { msgpackStrings, replaceMsgpackStrings } from "../src/formats/langgraph/msgpack-strings.js";
import { runCli } from "./helpers/cli-io.js";
import { LG_FIXTURES } from "./helpers/langgraph-tuples.js";
import { expectNoSeed, expectOnlySeedsChanged } from "./helpers/seed-checks.js";
import { SEEDS, seededCheckpoint } from "./helpers/secret-corpus.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = `ckpt_redact_rows_${process.pid}_${Date.now().toString(36)}`;
let dir: string;
const hash = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

// ------------------------------------------------------------------------------------------- independent decoder
type Ext = { ext: number; value: unknown };
const codec = new ExtensionCodec();
const decoder = () => new Decoder({ extensionCodec: codec, useBigInt64: true });
for (let ext = 0; ext <= 7; ext++)
  codec.register({ type: ext, encode: () => null, decode: (data): Ext => ({ ext, value: decoder().decode(data) }) });

function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out);
  else if (v instanceof Uint8Array || v === null || typeof v !== "object") return out;
  else if ("ext" in v && "value" in v && Object.keys(v).length === 2) stringsIn((v as Ext).value, out);
  else
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsIn(x, out);
    }
  return out;
}

/** The decoded value with every string (map keys too) passed through `f`. */
function mapped(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapped(x, f));
  if (v instanceof Uint8Array || v === null || typeof v !== "object") return v;
  if ("ext" in v && "value" in v && Object.keys(v).length === 2)
    return { ext: (v as Ext).ext, value: mapped((v as Ext).value, f) };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), mapped(x, f)]));
}

function pythonPayloads(): Array<{ where: string; bytes: Uint8Array }> {
  const out: Array<{ where: string; bytes: Uint8Array }> = [];
  for (const f of [
    "python-a.sqlite",
    "python-c.sqlite",
    "python-v4-chat.sqlite",
    "python-v4-human-in-the-loop.sqlite",
  ]) {
    const copy = join(dir, `fx-${f}`);
    copyFileSync(join(LG_FIXTURES, f), copy);
    const db = new Database(copy, { readonly: true });
    for (const r of db
      .prepare("SELECT checkpoint_id AS id, checkpoint FROM checkpoints WHERE type = 'msgpack'")
      .all() as {
      id: string;
      checkpoint: Buffer;
    }[])
      out.push({ where: `${f} checkpoint ${r.id}`, bytes: r.checkpoint });
    for (const r of db.prepare("SELECT checkpoint_id AS id, idx, value FROM writes WHERE type = 'msgpack'").all() as {
      id: string;
      idx: number;
      value: Buffer;
    }[])
      out.push({ where: `${f} write ${r.id}/${r.idx}`, bytes: r.value });
    db.close();
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-redact-rows-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client(PG);
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await c.end();
});

describe("msgpack strings of the Python serde, against @msgpack/msgpack", () => {
  test("every payload of the real Python stores: the same strings; a rewrite decodes to the value with them changed", () => {
    const payloads = pythonPayloads();
    expect(payloads.length).toBeGreaterThan(400);
    let strings = 0;
    for (const p of payloads) {
      const want = stringsIn(decoder().decode(p.bytes));
      const got = msgpackStrings(p.bytes);
      expect([...got].sort(), p.where).toEqual([...want].sort());
      strings += got.length;
      // unchanged: the very bytes
      expect(replaceMsgpackStrings(p.bytes, got, got), p.where).toBe(p.bytes);
      // every string longer by 31 and 230 characters (fixstr → str8 → str16 headers; ext payloads grow past their own)
      const f = (s: string) => `${s}${"é".repeat(15)}x${"·".repeat(s.length % 2 ? 115 : 0)}`;
      const rewritten = replaceMsgpackStrings(p.bytes, got, got.map(f));
      expect(decoder().decode(rewritten), p.where).toEqual(mapped(decoder().decode(p.bytes), f));
    }
    expect(strings).toBeGreaterThan(10_000);
  });
});

// --------------------------------------------------------------------------------------------------- end to end
/** Every byte of every table of a SQLite file, as text. */
function sqliteText(file: string): string {
  const db = new Database(file, { readonly: true });
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
    (t) => t.name,
  );
  let text = "";
  for (const t of tables)
    for (const row of db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[][])
      for (const v of row) text += `${Buffer.isBuffer(v) ? v.toString("utf8") : String(v)}\n`;
  db.close();
  return text;
}

async function pgText(schema: string): Promise<string> {
  const c = new pg.Client(PG);
  await c.connect();
  try {
    let text = "";
    for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
      const r = await c.query({ text: `SELECT * FROM ${schema}.${t}`, rowMode: "array" });
      for (const row of r.rows as unknown[][])
        for (const v of row) text += `${Buffer.isBuffer(v) ? v.toString("utf8") : JSON.stringify(v)}\n`;
    }
    return text;
  } finally {
    await c.end();
  }
}

/** `ckpt show --json` of a thread, the store's name and the payload's size (which the placeholders change) left out. */
async function show(file: string, thread: string): Promise<string> {
  const out = (await ok(["show", `sqlite:${file}#${thread}`, "--json"])).out;
  return out.replaceAll(file, "<store>").replace(/"bytes": \d+/g, '"bytes": 0');
}

async function ok(argv: string[]) {
  const r = await runCli(argv);
  expect(r.code, `ckpt ${argv.join(" ")}: ${r.err}`).toBe(0);
  return r;
}

describe("copy and migrate --redact of a LangGraph history", () => {
  let js: string;
  let py: string;
  beforeAll(async () => {
    const doc = join(dir, "seed-1.json");
    writeFileSync(doc, JSON.stringify(seededCheckpoint(), null, 2));
    js = join(dir, "js.db");
    py = join(dir, "py.db");
    await ok(["convert", doc, "-t", "langgraph", "-o", `sqlite:${js}#seed-1`]);
    // a second checkpoint in the thread: the placeholders must agree across the thread's rows
    await ok(["convert", doc, "-t", "langgraph", "-o", `sqlite:${js}#seed-2`]);
    await ok(["copy", `sqlite:${js}#seed-2`, `sqlite:${js}#seed-3`]);
    await ok(["migrate", "--from", `sqlite:${js}`, "--to", `sqlite:${py}`, "--to-library", "python", "-q"]);
    expect(sqliteText(py)).toContain(SEEDS[0]!.value);
  }, 120_000);

  for (const lib of ["js", "py"] as const)
    test(`${lib === "js" ? "JS (JSON payloads)" : "Python (msgpack payloads)"}: copy and migrate into SQLite hold no seed, only the seeds changed`, async () => {
      const src = lib === "js" ? js : py;
      const before = hash(src);
      const plainCopy = join(dir, `${lib}-plain-copy.db`);
      const redCopy = join(dir, `${lib}-red-copy.db`);
      await ok(["copy", `sqlite:${src}#seed-1`, `sqlite:${plainCopy}#seed-x`]);
      const c = await ok(["copy", `sqlite:${src}#seed-1`, `sqlite:${redCopy}#seed-x`, "--redact"]);
      expect(c.err).toMatch(/^redacted: .*\d+ secrets/m);
      expect(c.err).toMatch(/^redacted: .*\d+ email/m);
      expectNoSeed(sqliteText(redCopy), `copy --redact (${lib}): the target's bytes`);
      const plain = await show(plainCopy, "seed-x");
      const red = await show(redCopy, "seed-x");
      expectOnlySeedsChanged(plain, red, `copy --redact (${lib})`, SEEDS.length + 1);

      const plainMig = join(dir, `${lib}-plain-mig.db`);
      const redMig = join(dir, `${lib}-red-mig.db`);
      await ok(["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${plainMig}`, "-q"]);
      const m = await ok(["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${redMig}`, "-q", "--redact"]);
      expect(m.err).toMatch(/^redacted: /m);
      const all = sqliteText(redMig);
      expectNoSeed(all, `migrate --redact (${lib}): the target's bytes`);
      // one placeholder per value within a thread: the same e-mail address is <EMAIL_1> in every row of seed-3
      for (const t of ["seed-1", "seed-2", "seed-3"]) {
        const p = await show(plainMig, t);
        const r = await show(redMig, t);
        expectOnlySeedsChanged(p, r, `migrate --redact (${lib}) ${t}`, SEEDS.length + 1);
        expect(new Set(r.match(/<EMAIL_\d+>/g)), t).toEqual(new Set(["<EMAIL_1>"]));
      }
      expect(hash(src)).toBe(before);
    });

  test("the real LangGraph JS SqliteSaver reads the redacted history: placeholders where the seeds were", async () => {
    const redCopy = join(dir, "js-red-copy.db");
    const saver = SqliteSaver.fromConnString(redCopy);
    const tuple = await saver.getTuple({ configurable: { thread_id: "seed-x" } });
    const history = [];
    for await (const t of saver.list({ configurable: { thread_id: "seed-x" } })) history.push(t);
    const text = JSON.stringify([tuple, history]);
    expect(tuple?.checkpoint.channel_values.messages).toBeDefined();
    expectNoSeed(text, "SqliteSaver.getTuple/list");
    expect(text).toContain("<EMAIL_1>");
  });

  test("migrate --redact into PostgreSQL (channel values split into blobs): no seed in any row", async () => {
    for (const [lib, src] of [
      ["js", js],
      ["py", py],
    ] as const) {
      const schema = `${SCHEMA}_${lib}`;
      await ok(["migrate", "--from", `sqlite:${src}`, "--to", `${PG}?schema=${schema}`, "-q", "--redact"]);
      const text = await pgText(schema);
      expect(text.length).toBeGreaterThan(1000);
      expectNoSeed(text, `PostgreSQL ${lib}`);
      expect(text).toContain("<EMAIL_1>");
      const c = new pg.Client(PG);
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    }
  });

  /** A real store migrated with --redact where nothing is to be found: the target's rows are a plain migration's. */
  async function migratesAsPlain(fixture: string): Promise<string> {
    const src = join(dir, fixture);
    copyFileSync(join(LG_FIXTURES, fixture), src);
    const plain = join(dir, `${fixture}-plain.db`);
    const red = join(dir, `${fixture}-red.db`);
    await ok(["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${plain}`, "-q"]);
    const m = await ok(["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${red}`, "-q", "--redact"]);
    expect(m.err).toMatch(/^redacted: nothing found to redact$/m);
    const rows = (f: string) =>
      new Database(f, { readonly: true })
        .prepare("SELECT thread_id, checkpoint_id, checkpoint, metadata FROM checkpoints ORDER BY 1, 2")
        .all();
    expect(rows(red)).toEqual(rows(plain));
    return red;
  }

  test("a real Python store with nothing to find is copied as it was", async () => {
    await migratesAsPlain("python-v4-chat.sqlite");
  });

  test("channel versions are the saver's tokens, not findings: a real Python store's are copied as they were", async () => {
    // LangGraph Python's versions are f"{counter:032}.{random.random():016}": the random part is 15-17 digits, which
    // the card rule takes for a card number about once in a hundred (python-a.sqlite has 6 such versions, e.g.
    // 00000000000000000000000000000001.0.5499803729423867, "54…" a Mastercard prefix, Luhn-valid). python-a's
    // messages hold no email, key, card, phone, address or home path.
    const red = await migratesAsPlain("python-a.sqlite");
    expect(readFileSync(red).includes("0.5499803729423867")).toBe(true);
  });

  test("encrypted rows cannot be rewritten: not written, and the run says which and why", async () => {
    const src = join(dir, "aes.sqlite");
    copyFileSync(join(LG_FIXTURES, "python-c-aes.sqlite"), src);
    const out = join(dir, "aes-copy.db");
    // with the key the thread reads; its rows still cannot be rewritten (ckpt does not seal them again)
    const env = { ...process.env, LANGGRAPH_AES_KEY: "lgsample-C-not-a-secret-key-0032" };
    const r = await runCli(["copy", `sqlite:${src}#c-aes-chat-1`, `sqlite:${out}#x`, "--redact"], { env });
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(
      /checkpoint [0-9a-f-]+: --redact: its checkpoint is encrypted \(msgpack\+aes\), which ckpt does not rewrite; .*; nothing was written/,
    );
    const there = await runCli(["ls", `sqlite:${out}`]);
    expect(there.out).not.toMatch(/\bx\b/);
  });
});

describe("what --redact cannot read as text is counted, not passed as clean", () => {
  test("binary values, non-UTF-8 strings and bytes writes: kept as stored, counted; the summary says so", async () => {
    const { redactRow } = await import("../src/core/langgraph/redact-rows.js");
    const { Redactor } = await import("../src/core/scan/redact.js");
    const { redactedLine } = await import("../src/cli/redact.js");
    const { encode } = await import("@msgpack/msgpack");
    // {"blob": <bin 3 bytes>, "note": "mail alice.smith@example.com"} by @msgpack/msgpack; {"k": <str ff fe>} by hand
    const checkpoint = encode({ blob: Uint8Array.of(1, 2, 3), note: "mail alice.smith@example.com" });
    const badStr = Uint8Array.of(0x81, 0xa1, 0x6b, 0xa2, 0xff, 0xfe);
    const cp = {
      threadId: "t",
      ns: "",
      id: "1",
      parentId: null,
      type: "msgpack",
      checkpoint,
      metadata: new TextEncoder().encode("{}"),
      writes: [
        { taskId: "a", idx: 0, channel: "c", type: "msgpack", value: badStr, taskPath: "" },
        { taskId: "a", idx: 1, channel: "d", type: "bytes", value: Uint8Array.of(9, 9), taskPath: "" },
      ],
    };
    const seen = { values: 0 };
    const r = new Redactor();
    const out = await redactRow(cp, r, seen);
    expect(seen.values).toBe(3);
    expect(new Decoder().decode(out.checkpoint)).toEqual({ blob: Uint8Array.of(1, 2, 3), note: "mail <EMAIL_1>" });
    expect(out.writes[0]!.value).toBe(badStr);
    expect(out.writes[1]!.value).toBe(cp.writes[1]!.value);
    expect(redactedLine(r.counts, seen.values)).toBe(
      "redacted: 1 email; 3 binary or non-UTF-8 values copied as stored, not scanned",
    );
    expect(redactedLine({}, 0)).toBe("redacted: nothing found to redact");
  });
});
