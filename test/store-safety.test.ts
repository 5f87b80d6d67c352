/**
 * #15 items 1, 2, 11, 21: reading never writes (a store opened to read is opened read-only and must exist), a
 * mistyped URI is an error and never a folder, every URI part is checked before connecting, and PostgreSQL's
 * "start it with" hint only when no server answers. Against the real PostgreSQL on this machine.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { main } from "../src/cli/main.js";
import { openSaver } from "../src/savers/index.js";
import { cliIO } from "./helpers/cli-io.js";

const root = join(import.meta.dirname, "..");
const samples = join(root, "fixtures", "savers", "deepagent-filesaver");
const run = randomBytes(4).toString("hex");
const PG = "postgres://postgres@127.0.0.1:5432/test";
const sha = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

async function pgQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: PG });
  try {
    await c.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL 15 must run at 127.0.0.1:5432 (start it with: pg_ctlcluster 15 main start): ${(e as Error).message}`,
    );
  }
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

afterAll(async () => {
  await pgQuery(`DROP SCHEMA IF EXISTS ckpt_ro_${run} CASCADE`);
});

/** Someone else's SQLite database: a table of theirs, nothing of ckpt's. */
function foreignDb(dir: string): string {
  const path = join(dir, "theirs.db");
  const db = new Database(path);
  db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada'), ('bob');");
  db.close();
  return path;
}

describe("#15 item 1: reading never writes", () => {
  it("every reading command leaves someone else's SQLite database byte-identical and says it is not a ckpt store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-ro-"));
    const db = foreignDb(dir);
    const before = sha(db);
    const runs: string[][] = [
      ["ls", `sqlite:${db}`],
      ["show", `sqlite:${db}#t1`],
      ["validate", `sqlite:${db}#t1`],
      ["diff", `sqlite:${db}#t1`, join(samples, "user_42_session_1.json")],
      ["convert", `sqlite:${db}#t1`, "-t", "ckpt"],
      ["replay", "verify", `sqlite:${db}#t1`],
      ["migrate", "--from", `sqlite:${db}`, "--to", `memory:ro-${run}`, "-q"],
    ];
    for (const argv of runs) {
      const t = cliIO({ cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
      const code = await main(argv, t);
      expect(code, `${argv.join(" ")}: ${t.err()}`).toBe(3);
      // (validate reports on stdout, the others on stderr)
      expect(t.err() + t.out(), argv.join(" ")).toMatch(
        /not a ckpt SQLite store: no ckpt_checkpoints table \(it holds users\)/,
      );
      expect(t.err() + t.out()).toContain(db);
      expect(sha(db), argv.join(" ")).toBe(before);
    }
    const names = new Database(db, { readonly: true })
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all();
    expect(names).toEqual(["users"]);
  });

  it("a ckpt SQLite store is read without a byte changing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-ro-"));
    const path = join(dir, "c.db");
    const w = await openSaver(`sqlite:${path}`);
    await w.save(
      "t1",
      readFileSync(join(samples, "explicit-messages-thread.json"), "utf8").replace(
        '"explicit-messages-thread"',
        '"t1"',
      ),
    );
    await w.close();
    new Database(path).pragma("wal_checkpoint(TRUNCATE)");
    const before = sha(path);
    const t = cliIO();
    expect(await main(["ls", `sqlite:${path}`, "--json"], t), t.err()).toBe(0);
    expect(JSON.parse(t.out()).map((r: { threadId: string }) => r.threadId)).toEqual(["t1"]);
    expect(await main(["show", `sqlite:${path}#t1`], cliIO())).toBe(0);
    expect(sha(path)).toBe(before);
  });

  it("a missing SQLite file or folder is exit 3 naming it, and nothing is created (did you mean a near name)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-ro-"));
    writeFileSync(join(dir, "checkpoints.db"), "");
    for (const [uri, hint] of [
      [`sqlite:${join(dir, "checkpoint.db")}`, /did you mean 'checkpoints\.db'\?/],
      [`sqlite:${join(dir, "no", "such", "dir", "x.db")}`, /no such SQLite database/],
      [`file:${join(dir, "nonexistent", "dir")}`, /no such file or folder/],
      [join(dir, "typo-folder"), /no such file or folder/],
    ] as const) {
      const t = cliIO({ cwd: dir });
      expect(await main(["ls", uri], t), t.err()).toBe(3);
      expect(t.err()).toMatch(hint);
      expect(t.err()).toContain(uri);
    }
    expect(readdirSync(dir)).toEqual(["checkpoints.db"]);
    const t = cliIO({ cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
    expect(
      await main(["migrate", "--from", `file:${join(dir, "gone")}`, "--to", `sqlite:${join(dir, "out.db")}`, "-q"], t),
    ).toBe(3);
    expect(t.err()).toMatch(/gone: no such file or folder/);
    expect(existsSync(join(dir, "out.db"))).toBe(false);
  });

  it("a PostgreSQL schema that is not there is exit 3, and reading creates no schema or table", async () => {
    const uri = `${PG}?schema=ckpt_ro_${run}`;
    for (const argv of [
      ["ls", uri],
      ["show", `${uri}#t1`],
      ["migrate", "--from", uri, "--to", `memory:pg-ro-${run}`, "-q"],
    ]) {
      const dir = mkdtempSync(join(tmpdir(), "ckpt-ro-"));
      const t = cliIO({ cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
      expect(await main(argv, t), t.err()).toBe(3);
      expect(t.err()).toMatch(new RegExp(`no table ckpt_ro_${run}\\.ckpt_checkpoints in this database`));
    }
    expect(
      await pgQuery("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [`ckpt_ro_${run}`]),
    ).toEqual([]);
    // a writing command creates it; reading it then works, in read-only transactions
    expect(
      await main(
        ["migrate", "--from", samples, "--to", uri, "-q"],
        cliIO({ env: { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), "ckpt-st-")) } }),
      ),
    ).toBe(0);
    const t = cliIO();
    expect(await main(["ls", uri, "--json"], t), t.err()).toBe(0);
    expect(JSON.parse(t.out())).toHaveLength(2);
    const s = await openSaver(uri, { readOnly: true });
    await expect(s.save("x", "{}")).rejects.toThrow(/read-only transaction/);
    await s.close();
  });
});

describe("#15 item 2: a mistyped URI is an error, not a folder", () => {
  it("migrate --to 'redis:/x' is exit 2 with a did-you-mean, and no folder appears", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ckpt-typo-"));
    const t = cliIO({ cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
    expect(await main(["migrate", "--from", samples, "--to", "redis:/x"], t)).toBe(2);
    expect(t.err()).toMatch(/did you mean 'redis:\/\/x'\?/);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(process.cwd(), "redis:"))).toBe(false);
  });

  it("ls of a scheme-like typo, an empty URI or an unknown scheme is exit 2, naming what was expected", async () => {
    const cases: Array<[string, RegExp]> = [
      ["redis:/x", /did you mean 'redis:\/\/x'\?/],
      ["postgres:/db", /did you mean 'postgres:\/\/db'\?/],
      ["sqllite:x.db", /unknown saver URI scheme 'sqllite:'.*did you mean 'sqlite:x\.db'\?/],
      ["fiel:./dir", /did you mean 'file:\.\/dir'\?/],
      [
        "mongodb://h/db",
        /unknown saver URI scheme 'mongodb:'.*expected memory:, file:<dir>, sqlite:<path>, redis:\/\/host:port\[\/db\], postgres:\/\/host\/db/,
      ],
      ["", /an empty saver URI/],
      ["   ", /an empty saver URI/],
      ["file:", /file: needs a folder/],
    ];
    for (const [uri, want] of cases) {
      const t = cliIO();
      expect(await main(["ls", uri], t), `${uri}: ${t.err()}`).toBe(2);
      expect(t.err(), uri).toMatch(want);
    }
  });
});

describe("#15 item 11: every URI part is checked before connecting", () => {
  it("a Redis db index that is not a number, a port out of range, a missing host, a PostgreSQL path of two parts: exit 2", async () => {
    const cases: Array<[string, RegExp]> = [
      [
        "redis://127.0.0.1:6379/abc",
        /'\/abc' is not a Redis database index: expected a number, e.g\. redis:\/\/127\.0\.0\.1:6379\/0/,
      ],
      ["redis://127.0.0.1:6379/0/extra", /is not a Redis database index/],
      ["redis://127.0.0.1:0", /port 0 is out of range/],
      ["redis://127.0.0.1:99999", /not a valid URL/],
      ["redis://:6379", /not a valid URL/],
      ["redis://@/0", /no host|not a valid URL/],
      // a query parameter neither ckpt nor the client reads: the client took it as a string option (connectTimeout=500
      // crashed it with a stack trace) or ignored it (a misspelt prefix= wrote under no prefix)
      [
        "redis://127.0.0.1:1?connectTimeout=500",
        /'connectTimeout=' is not a Redis URI parameter: expected namespace=, prefix=, timeout=<seconds>, cluster=0\|1 or family=4\|6/,
      ],
      ["redis://127.0.0.1:6379?prefx=a", /'prefx=' is not a Redis URI parameter: did you mean prefix=\?/],
      [
        "redis://127.0.0.1:6379?namespace=a&timeot=3",
        /'timeot=' is not a Redis URI parameter: did you mean timeout=\?/,
      ],
      ["postgres://127.0.0.1:5432/test/extra", /'\/test\/extra' is not a database name/],
      ["postgres://127.0.0.1:abc/test", /not a valid URL/],
    ];
    for (const [uri, want] of cases) {
      const t = cliIO();
      expect(await main(["ls", uri], t), `${uri}: ${t.err()}`).toBe(2);
      expect(t.err(), uri).toMatch(want);
      expect(t.err()).not.toMatch(/\n\s+at /);
    }
  });
});

describe("#15 item 21: PostgreSQL's start-it hint only when no server answers", () => {
  const cases: Array<[string, string, RegExp, boolean]> = [
    ["unreachable", "postgres://postgres@127.0.0.1:1/test", /no server answers/, true],
    [
      "unknown host",
      "postgres://postgres@no-such-host.invalid:5432/test",
      /unknown host 'no-such-host\.invalid'/,
      false,
    ],
    ["wrong role", `postgres://no_such_role_${run}@127.0.0.1:5432/test`, /refused the login: .*no_such_role/, false],
    [
      "missing database",
      `postgres://postgres@127.0.0.1:5432/no_such_db_${run}`,
      /database "no_such_db_\w+" does not exist/,
      false,
    ],
  ];
  for (const [what, uri, want, hint] of cases) {
    it(`${what}: ${hint ? "with" : "without"} the hint`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "ckpt-pg-"));
      const t = cliIO({ cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
      const code = await main(["migrate", "--from", samples, "--to", uri, "-q"], t);
      expect(code, t.err()).toBe(4);
      expect(t.err()).toMatch(want);
      if (hint) expect(t.err()).toMatch(/start it with: pg_ctlcluster/);
      else expect(t.err()).not.toMatch(/start it with/);
      expect(t.err().trim().split("\n")).toHaveLength(1);
    }, 20_000);
  }
});
