/**
 * ckpt's prune and ckpt's validate agree (issue #29): a history cut at the front by `prune --keep-last 2` or
 * `--older-than` is a normal state, so `validate` of every pruned sample (SQLite files and the PostgreSQL dumps,
 * Python and JS, set C included) exits 0 with no `missing-parent` finding, and the real JS library still reads the
 * JS stores with the same messages. A parent missing in the middle of a history stays an error.
 */
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { runCli } from "./helpers/cli-io.js";
import { closeSaver, jsHistory, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { AES_KEY } from "./langgraph-wild.test.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgpv");
const env = { LANGGRAPH_AES_KEY: AES_KEY };
const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir(), env });
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgpv-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};
const restore = (file: string, s: string) =>
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
    input: readFileSync(join(fx, file), "utf8").replaceAll("__SCHEMA__", s),
    stdio: ["pipe", "ignore", "inherit"],
  });

/** The JS library's reading of the messages of every checkpoint left (thread|ns|id → JSON). */
async function jsMessages(open: () => ReturnType<typeof sqliteSaver> | ReturnType<typeof pgSaver>) {
  const s = open();
  try {
    return await jsHistory(s);
  } finally {
    await closeSaver(s);
  }
}

/** Prune, then validate: validate exits 0 and names no missing parent; returns how many checkpoints went. */
async function pruneThenValidate(uri: string, how: string[]): Promise<number> {
  const p = await ckpt("prune", uri, ...how, "--json");
  expect(p.code, p.err).toBe(0);
  const gone = JSON.parse(p.out).checkpoints as number;
  const v = await ckpt("validate", uri, "--json");
  expect(v.code, v.out + v.err).toBe(0);
  expect(v.out).not.toContain("missing-parent");
  return gone;
}

const sqlites = readdirSync(fx).filter((f) => f.endsWith(".sqlite"));
const dumps = readdirSync(fx).filter((f) => f.endsWith(".pg.sql"));

describe("prune then validate exits 0 on every sample", () => {
  for (const how of [
    ["--keep-last", "2"],
    ["--older-than", "1s"],
  ]) {
    for (const sample of sqlites)
      it(`${sample}: prune ${how.join(" ")}, validate exits 0; the JS library reads the same messages`, async () => {
        const f = copyOf(sample);
        const js = sample.startsWith("js") ? await jsMessages(() => sqliteSaver(f)) : undefined;
        expect(await pruneThenValidate(`sqlite:${f}`, how)).toBeGreaterThan(0);
        if (js) for (const [k, v] of await jsMessages(() => sqliteSaver(f))) expect(v, k).toBe(js.get(k));
      });
    for (const dump of dumps)
      it(`${dump}: prune ${how.join(" ")}, validate exits 0; the JS library reads the same messages`, async () => {
        const s = pgdb.schema(`${dump.replace(/[^a-z0-9]/g, "_")}_${how[0]!.slice(2, 6)}`);
        restore(dump, s);
        const uri = `${PG}?schema=${s}`;
        const js = dump.startsWith("js") ? await jsMessages(() => pgSaver(PG, s)) : undefined;
        expect(await pruneThenValidate(uri, how)).toBeGreaterThan(0);
        if (js) for (const [k, v] of await jsMessages(() => pgSaver(PG, s))) expect(v, k).toBe(js.get(k));
      });
  }
});

describe("a parent missing in the middle of a history is still an error", () => {
  it("the checkpoint after the hole is named; the one after the front cut is not", async () => {
    const f = copyOf("js-a.sqlite");
    const db = new Database(f);
    const ids = db
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'a-chat-2' AND checkpoint_ns = '' ORDER BY 1")
      .pluck()
      .all() as string[];
    // the front (ids[0], ids[1]) and a middle one (ids[3]) go
    for (const id of [ids[0], ids[1], ids[3]]) {
      db.prepare("DELETE FROM writes WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?").run(id);
      db.prepare("DELETE FROM checkpoints WHERE thread_id = 'a-chat-2' AND checkpoint_id = ?").run(id);
    }
    db.close();
    const v = await ckpt("validate", `sqlite:${f}`, "--json");
    expect(v.code).toBe(1);
    const hits = v.out.match(/missing-parent/g) ?? [];
    expect(hits).toHaveLength(1);
    expect(v.out).toContain(`a-chat-2@${ids[4]}`);
  });
});
