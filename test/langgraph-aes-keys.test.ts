/**
 * The AES key of a LangGraph store travels with the opened store (`OpenOptions.aesKey`), not with the process: one
 * process opens several encrypted stores with different keys at once through the library's front door, and each
 * reads its own rows.
 *
 * The stores: set C's encrypted SQLite store as pycryptodome wrote it through LangGraph's EncryptedSerializer (key C),
 * and two copies re-keyed with the same scheme (AES-EAX, nonce ‖ tag ‖ ciphertext, a random nonce per value:
 * test/langgraph-eax.test.ts checks eax.ts against the EAX paper's vectors and these very rows): the SQLite file under
 * key D, and the PostgreSQL dump of the same graph runs (python-c-aes.pg.sql, its blobs and writes) under key E. The
 * expected messages are the library's own (fixtures/langgraph/counts/python-c-aes.*.json, from get_state).
 */
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { CkptError, isLangGraphSaver, openStore, type Saver } from "../src/index.js";
import { eaxEncrypt, openAesPayload } from "../src/formats/langgraph/eax.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");
/** set C's public test key (fixtures/langgraph/generated.README.md, sets.json `aes_keys.C`) */
const KEY_C = Buffer.from("lgsample-C-not-a-secret-key-0032");
const KEY_D = Buffer.from("another-test-key-of-32-bytes-D!!");
const KEY_E = Buffer.from("yet-another-test-key-32-bytes-E!");

interface Counts {
  per_thread: Record<string, { messages: number; last_message: string | null }>;
}
const counts = (name: string): Counts => JSON.parse(readFileSync(join(FIX, "counts", `${name}.json`), "utf8"));

/** A value sealed under `from` sealed again under `to`, as EncryptedSerializer seals: nonce (16) ‖ tag (16) ‖ ciphertext. */
function rekey(sealed: Uint8Array, from: Uint8Array, to: Uint8Array): Buffer {
  const plain = openAesPayload(from, sealed);
  if (!plain) throw new Error("a row the fixture's key does not open");
  const nonce = randomBytes(16);
  const { ciphertext, tag } = eaxEncrypt(to, nonce, plain);
  return Buffer.concat([nonce, tag, ciphertext]);
}

/** A copy of the SQLite store with every encrypted value sealed under `key`. */
function sqliteUnder(key: Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), "lg-aes-keys-")), "python-c-aes.sqlite");
  copyFileSync(join(FIX, "python-c-aes.sqlite"), file);
  if (key === KEY_C) return file;
  const db = new Database(file);
  db.transaction(() => {
    const cps = db.prepare("SELECT rowid AS r, checkpoint AS v FROM checkpoints").all() as Array<{
      r: number;
      v: Buffer;
    }>;
    for (const c of cps)
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?").run(rekey(c.v, KEY_C, key), c.r);
    const ws = db.prepare("SELECT rowid AS r, value AS v FROM writes").all() as Array<{ r: number; v: Buffer }>;
    for (const w of ws) db.prepare("UPDATE writes SET value = ? WHERE rowid = ?").run(rekey(w.v, KEY_C, key), w.r);
  })();
  db.close();
  return file;
}

const pg = pgTestSchemas("lgaeskeys");

/** The PostgreSQL dump restored into a new schema, its blobs and writes sealed under `key`. */
async function postgresUnder(key: Buffer, name: string): Promise<string> {
  const schema = pg.schema(name);
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
    input: readFileSync(join(FIX, "python-c-aes.pg.sql"), "utf8").replaceAll("__SCHEMA__", schema),
    stdio: ["pipe", "ignore", "pipe"],
  });
  const blobs = await pg.query(`SELECT ctid::text AS r, blob FROM ${schema}.checkpoint_blobs WHERE type LIKE '%+aes'`);
  for (const b of blobs.rows)
    await pg.query(`UPDATE ${schema}.checkpoint_blobs SET blob = $1 WHERE ctid = $2::tid`, [
      rekey(b.blob, KEY_C, key),
      b.r,
    ]);
  const writes = await pg.query(
    `SELECT ctid::text AS r, blob FROM ${schema}.checkpoint_writes WHERE type LIKE '%+aes'`,
  );
  for (const w of writes.rows)
    await pg.query(`UPDATE ${schema}.checkpoint_writes SET blob = $1 WHERE ctid = $2::tid`, [
      rekey(w.blob, KEY_C, key),
      w.r,
    ]);
  expect(blobs.rows.length + writes.rows.length).toBe(22 + 47); // generated.README.md: every blob and write is sealed
  return `${PG}?schema=${schema}`;
}

/** The text of a message as counts/*.json gives it: `content` of a LangChain record. */
const contentOf = (m: unknown) => (m as { kwargs?: { content?: unknown } }).kwargs?.content;

/** Each thread's newest checkpoint, as `load` gives it: its message count and last message. */
async function newest(saver: Saver, thread: string): Promise<{ messages: number; last: unknown }> {
  const text = await saver.load(thread);
  expect(text, thread).toBeDefined();
  const doc = JSON.parse(text!) as { checkpoint: { channel_values: { messages: unknown[] } } };
  const list = doc.checkpoint.channel_values.messages;
  return { messages: list.length, last: contentOf(list[list.length - 1]) };
}

/** What reading `thread` throws (the test fails when it gives data instead). */
async function refusal(saver: Saver, thread: string): Promise<CkptError> {
  const e = await saver.load(thread).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e, `${saver.uri}#${thread} gave data`).toBeInstanceOf(CkptError);
  return e as CkptError;
}

describe("LangGraph stores encrypted under different keys, open at once in one process", () => {
  it("each store opened with its own key reads its own rows: the library's messages, interleaved", async () => {
    const [fileC, fileD, uriE] = [sqliteUnder(KEY_C), sqliteUnder(KEY_D), await postgresUnder(KEY_E, "own")];
    // the re-keyed copies really hold other bytes: key C no longer opens them
    const db = new Database(fileD, { readonly: true });
    const sealedD = (db.prepare("SELECT checkpoint FROM checkpoints LIMIT 1").get() as { checkpoint: Buffer })
      .checkpoint;
    db.close();
    expect(openAesPayload(KEY_C, sealedD)).toBeUndefined();
    expect(openAesPayload(KEY_D, sealedD)).toBeDefined();

    const stores = await Promise.all([
      openStore(`sqlite:${fileC}`, { readOnly: true, aesKey: KEY_C }),
      openStore(`sqlite:${fileD}`, { readOnly: true, aesKey: { key: KEY_D, from: "key D" } }),
      openStore(uriE, { readOnly: true, aesKey: KEY_E }),
    ]);
    const want = [counts("python-c-aes.sqlite"), counts("python-c-aes.sqlite"), counts("python-c-aes.pg")];
    try {
      const threads = Object.keys(want[0]!.per_thread).sort();
      expect(threads).toEqual(["c-aes-chat-1", "c-aes-delta-1", "c-aes-hitl-1"]);
      for (const thread of threads) {
        for (const [i, saver] of stores.entries()) {
          const w = want[i]!.per_thread[thread]!;
          expect(await newest(saver, thread), `${saver.uri}#${thread}`).toEqual({
            messages: w.messages,
            last: w.last_message,
          });
        }
      }
      // ls: the message counts the stores' own summaries give (a delta head decoded with its store's key)
      for (const [i, saver] of stores.entries()) {
        if (!isLangGraphSaver(saver)) throw new Error(`${saver.uri} did not open as a LangGraph store`);
        const rows: Array<[string, number | null]> = [];
        for await (const s of saver.langgraph.threads()) rows.push([s.threadId, s.messages]);
        expect(rows).toEqual(
          Object.entries(want[i]!.per_thread)
            .map(([t, c]) => [t, c.messages])
            .sort(),
        );
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("one store's rows read with another's key are undecodable (langgraph-undecodable, exit 3), never other data", async () => {
    const [fileC, fileD, uriE] = [sqliteUnder(KEY_C), sqliteUnder(KEY_D), await postgresUnder(KEY_E, "swapped")];
    const right = await openStore(`sqlite:${fileD}`, { readOnly: true, aesKey: KEY_D });
    const swapped = await Promise.all([
      openStore(`sqlite:${fileC}`, { readOnly: true, aesKey: { key: KEY_D, from: "key D" } }),
      openStore(`sqlite:${fileD}`, { readOnly: true, aesKey: KEY_C }),
      openStore(uriE, { readOnly: true, aesKey: KEY_D }),
    ]);
    const none = await openStore(`sqlite:${fileC}`, { readOnly: true });
    try {
      for (const thread of ["c-aes-chat-1", "c-aes-delta-1", "c-aes-hitl-1"]) {
        for (const saver of swapped) {
          const e = await refusal(saver, thread);
          expect([e.reason, e.exitCode], e.message).toEqual(["langgraph-undecodable", 3]);
          expect(e.message).toMatch(/cannot be read whole: \d+ row\(s\) do not decode/);
          // SQLite seals the whole checkpoint: that row is the one named (PostgreSQL's delta thread names the
          // DeltaChannel write that did not decode first)
          if (saver.uri.startsWith("sqlite:"))
            expect(e.message).toMatch(/\(checkpoints[;)].*: an encrypted payload .* does not open/);
        }
        // the key's name, as given, is in the message
        expect((await refusal(swapped[0]!, thread)).message).toMatch(/the key \(key D\) does not open/);
        // without a key: how to give it, as before
        expect((await refusal(none, thread)).message).toMatch(/LANGGRAPH_AES_KEY/);
        // the store with the right key, open all along, still reads
        expect((await newest(right, thread)).messages).toBe(counts("python-c-aes.sqlite").per_thread[thread]!.messages);
      }
      // ls of a store whose key does not open its heads stops, saying so, instead of listing wrong counts
      const lg = swapped[2]!;
      if (!isLangGraphSaver(lg)) throw new Error("not a LangGraph store");
      const listed = async () => {
        for await (const _ of lg.langgraph.threads());
      };
      await expect(listed()).rejects.toThrow(/does not open/);
    } finally {
      await Promise.all([right, ...swapped, none].map((s) => s.close()));
    }
  });
});
