/**
 * #27 "every bad input answered": the documented exit code and a one-line message naming the place, never exit 70,
 * never a record lost as "not a checkpoint".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { constants } from "node:buffer";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");
const samples = join(ROOT, "fixtures", "savers", "deepagent-filesaver");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-bad-input-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file one byte longer than the longest string Node can hold (no disk space used). */
function tooLarge(path: string): void {
  truncateSync(path, 0);
  truncateSync(path, constants.MAX_STRING_LENGTH + 1);
}

describe("#27 item 2: a source file ckpt cannot read is a rejected record, not 'not a checkpoint'", () => {
  it("migrate --from <folder>: a link loop, a file too large for one string (and, not as root, one without read permission) are rejected (exit 5), named in the reject file; ls names them", async () => {
    const src = join(dir, "unreadable");
    mkdirSync(src);
    for (const f of ["user_42_session_1.json", "explicit-messages-thread.json"])
      copyFileSync(join(samples, f), join(src, f));
    symlinkSync("loop.json", join(src, "loop.json")); // ELOOP
    const big = join(src, "big.json");
    copyFileSync(join(samples, "explicit-messages-thread.json"), big);
    tooLarge(big);
    const expected = ["big.json", "loop.json"];
    const root = process.getuid?.() === 0;
    if (!root) {
      copyFileSync(join(samples, "user_42_session_1.json"), join(src, "secret.json"));
      chmodSync(join(src, "secret.json"), 0);
      expected.push("secret.json");
    }
    const rejects = join(dir, "rejects.ndjson");
    const r = await runCli(
      [
        "migrate",
        "--from",
        src,
        "--to",
        `sqlite:${join(dir, "u.db")}`,
        "--reject-file",
        rejects,
        "--journal",
        join(dir, "u.journal"),
      ],
      { cwd: dir },
    );
    expect(r.code, r.err).toBe(5);
    expect(r.out).toContain(`read 2, written 2, skipped 0, rejected ${expected.length}`);
    expect(r.out).not.toContain("ignored");
    expect(r.out).toContain(`rejected: ${big}: too large to read as one JSON text (537 MB; the limit is 536 MB)`);
    expect(r.out).toContain(`rejected: ${join(src, "loop.json")}: cannot read it: ELOOP`);
    if (!root) expect(r.out).toContain(`rejected: ${join(src, "secret.json")}: cannot read it: permission denied`);
    const lines = readFileSync(rejects, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { file: string; threadId: string });
    expect(lines.map((l) => l.file).sort()).toEqual(expected.map((f) => join(src, f)));
    expect(lines.find((l) => l.file === big)?.threadId).toBe("big");
    const t = await openSaver(`sqlite:${join(dir, "u.db")}`, { readOnly: true });
    expect(await t.count()).toBe(2);
    await t.close();

    const ls = await runCli(["ls", src], { cwd: dir });
    expect(ls.code, ls.err).toBe(0);
    expect(ls.out).toContain(`? (${join(src, "loop.json")}: cannot read it: ELOOP)`);
    expect(ls.out).toContain(`? (${big}: too large to read as one JSON text`);
    expect(ls.out.trim().split("\n").at(-1)).toBe(`2 threads, ${expected.length} files not read`);
  }, 60_000);
});

describe("#27 item 7: a document too large for one string is exit 3 naming it, in every command that reads one", () => {
  it("validate, show, convert, diff, migrate --from <file>", async () => {
    const big = join(dir, "huge.json");
    copyFileSync(join(samples, "explicit-messages-thread.json"), big);
    tooLarge(big);
    const why = `too large to read as one JSON text (537 MB; the limit is 536 MB)`;
    for (const argv of [
      ["validate", big],
      ["show", big],
      ["convert", big, "--to-format", "ckpt"],
      ["diff", big, join(samples, "explicit-messages-thread.json")],
      ["migrate", "--from", big, "--to", `sqlite:${join(dir, "h.db")}`, "--journal", join(dir, "h.journal")],
    ]) {
      const r = await runCli(argv, { cwd: dir });
      expect(r.code, `${argv[0]}: ${r.err}${r.out}`).toBe(3);
      expect(r.err + r.out, argv[0]).toContain(`${big}: `);
      expect(r.err + r.out, argv[0]).toContain(why);
      expect(r.err, argv[0]).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});

describe("#27 item 8: an option that takes one value, given twice, is exit 2 before anything is opened", () => {
  for (const flag of ["--to", "--from", "--journal", "--reject-file"]) {
    it(`migrate ${flag} twice`, async () => {
      const work = mkdtempSync(join(dir, "twice-"));
      const state = join(work, "state");
      const argv = ["migrate", "--from", samples, "--to", `sqlite:${join(work, "t.db")}`];
      const second: Record<string, string[]> = {
        "--to": ["--to", "redis://:S3cr3t@127.0.0.1:1"],
        "--from": ["--from", join(work, "other")],
        "--journal": ["--journal", join(work, "a.journal"), "--journal", join(work, "b.journal")],
        "--reject-file": ["--reject-file", join(work, "a.ndjson"), "--reject-file", join(work, "b.ndjson")],
      };
      const r = await runCli([...argv, ...second[flag]!], { cwd: work, env: { XDG_STATE_HOME: state } });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(new RegExp(`^ckpt: ${flag} given 2 times \\(.*\\): it takes one value\\n`));
      expect(r.err).not.toContain("S3cr3t");
      expect(readdirSync(work)).toEqual([]); // no journal, no target, no reject file
    });
  }
});

describe("#27 item 9: ?schema= / ?table= PostgreSQL cannot hold are exit 2 before connecting", () => {
  const PGURL = "postgres://postgres@127.0.0.1:5432/test";
  const cases: Array<[string, RegExp]> = [
    ["schema=%00x", /schema="\\u0000x": a NUL character cannot be in a PostgreSQL name/],
    ["table=t%00", /table="t\\u0000": a NUL character cannot be in a PostgreSQL name/],
    ["schema=", /schema="": expected a schema name/],
    ["schema=pg_catalog", /schema="pg_catalog": a PostgreSQL system schema/],
    ["schema=information_schema", /schema="information_schema": a PostgreSQL system schema/],
    [`schema=${"s".repeat(64)}`, /64 bytes; PostgreSQL names hold at most 63/],
  ];
  for (const [query, want] of cases) {
    it(`?${query.slice(0, 30)}: ls and migrate --to`, async () => {
      const work = mkdtempSync(join(dir, "pgname-"));
      const ls = await runCli(["ls", `${PGURL}?${query}`], { cwd: work });
      expect(ls.code, ls.err).toBe(2);
      expect(ls.err).toMatch(want);
      const m = await runCli(["migrate", "--from", samples, "--to", `${PGURL}?${query}`], {
        cwd: work,
        env: { XDG_STATE_HOME: join(work, "state") },
      });
      expect(m.code, m.err).toBe(2);
      expect(m.err).toMatch(want);
      expect(readdirSync(work)).toEqual([]);
    });
  }
});

describe("#27 item 10: control characters in thread ids and texts are shown escaped, never acted on", () => {
  const ESC = "\u001b";
  const evil = `evil${ESC}]0;pwned\u0007${ESC}[31mred`;
  const twoLines = "two\nlines";
  let src: string;
  beforeAll(() => {
    src = join(dir, "esc");
    mkdirSync(src);
    const base = JSON.parse(readFileSync(join(samples, "user_42_session_1.json"), "utf8")) as {
      messages: unknown[];
    };
    for (const id of [evil, twoLines]) {
      const doc = {
        ...base,
        threadId: id,
        messages: [
          ...base.messages,
          { role: "user", content: [{ type: "text", text: `hi ${ESC}[2J there` }], timestamp: 1 },
        ],
      };
      writeFileSync(join(src, `${id.replace(/[^a-zA-Z0-9_-]/g, "_")}.json`), JSON.stringify(doc, null, 2));
    }
  });
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f]/;

  it("ls: one row per thread, the ids escaped", async () => {
    const r = await runCli(["ls", src]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(raw);
    const lines = r.out.trim().split("\n");
    expect(lines).toHaveLength(4); // header, two rows, footer
    expect(r.out).toContain("evil\\x1b]0;pwned\\x07\\x1b[31mred");
    expect(r.out).toContain("two\\nlines");
  });

  it("show and log: the header and the messages escaped (newlines in a message kept)", async () => {
    const s = await runCli(["show", `${src}#${twoLines}`]);
    expect(s.code, s.err).toBe(0);
    expect(s.out).not.toMatch(raw);
    expect(s.out.split("\n")[0]).toMatch(/^thread two\\nlines — deepagent/);
    expect(s.out).toContain("hi \\x1b[2J there");
    const l = await runCli(["log", `${src}#${evil}`]);
    expect(l.code, l.err).toBe(0);
    expect(l.out).not.toMatch(raw);
  });

  it("error messages: a thread id in a message is escaped", async () => {
    const r = await runCli(["show", `${src}#nope${ESC}[2Jx`]);
    expect(r.code).toBe(3);
    expect(r.err).not.toMatch(raw);
    expect(r.err).toContain("nope\\x1b[2Jx");
  });
});

/** A deep-agent document of thread `id` (the sample's content). */
const docOf = (id: string) =>
  JSON.stringify(
    { ...JSON.parse(readFileSync(join(samples, "user_42_session_1.json"), "utf8")), threadId: id },
    null,
    2,
  );

describe("#27 item 11: ls of a folder where one file's thread id is empty or holds a NUL lists the rest", () => {
  it("one finding per bad file, naming it; the good threads listed; exit 0", async () => {
    const src = join(dir, "bad-ids");
    mkdirSync(src);
    for (const f of ["user_42_session_1.json", "explicit-messages-thread.json"])
      copyFileSync(join(samples, f), join(src, f));
    writeFileSync(join(src, "empty.json"), docOf(""));
    writeFileSync(join(src, "nul.json"), docOf("a\u0000b"));
    const r = await runCli(["ls", src]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("user:42/session#1");
    expect(r.out).toContain("explicit-messages-thread");
    expect(r.out).toContain(`${join(src, "empty.json")}: a thread id must be a non-empty string`);
    expect(r.out).toContain(`${join(src, "nul.json")}: thread id "a\\u0000b" contains a NUL character`);
    expect(r.out.trim().split("\n").at(-1)).toBe("2 threads, 2 files not read");
    const j = await runCli(["ls", src, "--json"]);
    const rows = JSON.parse(j.out) as Array<{ threadId: string; error?: string }>;
    expect(rows.filter((x) => x.error === undefined).map((x) => x.threadId)).toEqual([
      "explicit-messages-thread",
      "user:42/session#1",
    ]);
    expect(rows.filter((x) => x.error !== undefined)).toHaveLength(2);
  });
});

describe("#27 item 12: migrate into a folder layout where one id cannot be a file name rejects that record", () => {
  it("'.', '..' and an ESC into a yoagent folder: those rejected (exit 5), the rest written; a rerun writes nothing new", async () => {
    const db = `sqlite:${join(dir, "names.db")}`;
    const s = await openSaver(db);
    const ids = ["a", "b", ".", "..", "e\u001bsc", "z"];
    await s.saveMany(ids.map((id) => ({ namespace: "default", threadId: id, text: docOf(id) })));
    await s.close();
    const out = join(dir, "names-out");
    const argv = ["migrate", "--from", db, "--to", out, "--to-format", "yoagent", "--allow-lossy"];
    const r = await runCli([...argv, "--journal", join(dir, "names.journal")], { cwd: dir });
    expect(r.code, r.err).toBe(5);
    expect(r.out).toContain("read 6, written 3, skipped 0, rejected 3");
    expect(r.out).toContain(`rejected: default#..: thread id ".." cannot be a file name in the yoagent layout`);
    expect(r.out).toContain(`rejected: default#e\\x1bsc: thread id "e\\u001bsc" cannot be a file name`);
    expect(readdirSync(out).sort()).toEqual(["a.json", "b.json", "z.json"]);
    const again = await runCli([...argv, "--journal", join(dir, "names2.journal")], { cwd: dir });
    expect(again.code, again.err).toBe(5);
    expect(again.out).toContain("read 6, written 0, skipped 3 (3 identical), rejected 3");
  });
});

describe("#27 item 14: one rule for ids that cannot be keys: the document's own id, or rejected", () => {
  it("a FileSaver file whose threadId is 10,000 characters is that thread (not its file name); migrating it back to a folder rejects it", async () => {
    const src = join(dir, "long-id");
    mkdirSync(src);
    const long = "x".repeat(10_000);
    writeFileSync(join(src, "long.json"), docOf(long));
    copyFileSync(join(samples, "user_42_session_1.json"), join(src, "user_42_session_1.json"));
    const ls = await runCli(["ls", src, "--json"]);
    expect((JSON.parse(ls.out) as Array<{ threadId: string }>).map((x) => x.threadId).sort()).toEqual([
      "user:42/session#1",
      long,
    ]);
    const db = `sqlite:${join(dir, "long.db")}`;
    const there = await runCli(["migrate", "--from", src, "--to", db, "--journal", join(dir, "long1.journal")], {
      cwd: dir,
    });
    expect(there.code, there.err).toBe(0);
    const s = await openSaver(db, { readOnly: true });
    expect(await s.load(long)).toBe(docOf(long));
    expect(await s.load("long")).toBeUndefined();
    await s.close();
    const back = await runCli(
      ["migrate", "--from", db, "--to", join(dir, "long-back"), "--journal", join(dir, "long2.journal")],
      { cwd: dir },
    );
    expect(back.code, back.err).toBe(5);
    expect(back.out).toContain("read 2, written 1, skipped 0, rejected 1, verified 1");
    expect(back.out).toContain("thread id is too long for a file name (10005 bytes; the limit is 250)");
    expect(back.out).not.toContain("mismatch");
  });
});

describe("#27 item 15: a Redis namespace holding the key separator ':checkpoints:' is refused", () => {
  const prefix = `ckpt-bad-ns-${process.pid}-${Date.now()}:`;
  const redis = `redis://127.0.0.1:6379?prefix=${prefix}`;
  afterAll(async () => {
    const { deleteRedisKeys } = await import("./helpers/redis-keys.js");
    await deleteRedisKeys(prefix);
  });
  const keys = async () => {
    const { Redis } = await import("ioredis");
    const c = new Redis("redis://127.0.0.1:6379");
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, ks] = await c.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
      cursor = next;
      found.push(...ks);
    } while (cursor !== "0");
    c.disconnect();
    return found;
  };

  it("?namespace= and --namespace: exit 2 (migrate, ls), nothing written", async () => {
    const work = mkdtempSync(join(dir, "redis-ns-"));
    const env = { XDG_STATE_HOME: join(work, "state") };
    const m = await runCli(["migrate", "--from", samples, "--to", `${redis}&namespace=x:checkpoints:y`], {
      cwd: work,
      env,
    });
    expect(m.code, m.err).toBe(2);
    expect(m.err).toContain(`namespace "x:checkpoints:y" holds Redis's key separator ':checkpoints:'`);
    const ls = await runCli(["ls", redis, "--namespace", "x:checkpoints:y"]);
    expect(ls.code, ls.err).toBe(2);
    expect(await keys()).toEqual([]);
  });

  it("records of such a namespace (--to-namespace, or a source's own) are rejected, exit 5; the rest written", async () => {
    const db = `sqlite:${join(dir, "ns-src.db")}`;
    const s = await openSaver(db);
    await s.saveMany([
      { namespace: "x:checkpoints:y", threadId: "t", text: docOf("t") },
      { namespace: "x", threadId: "u", text: docOf("u") },
    ]);
    await s.close();
    const r = await runCli(["migrate", "--from", db, "--to", redis, "--journal", join(dir, "ns.journal")], {
      cwd: dir,
    });
    expect(r.code, r.err).toBe(5);
    expect(r.out).toContain("read 2, written 1, skipped 0, rejected 1");
    expect(r.out).toContain(`rejected: x:checkpoints:y#t: namespace "x:checkpoints:y" holds Redis's key separator`);
    expect(await keys()).toEqual([`${prefix}x:checkpoints:u`]);
  });
});

describe("#27 item 16: one matching rule for --match, and --idle-for on Redis", () => {
  it("idGlob: '*' and '?' match any character ('/', ':', '#', a leading '.'), sets, escapes; the whole id", async () => {
    const { idGlob } = await import("../src/cli/command.js");
    const cases: Array<[string, string, boolean]> = [
      ["user*", "user:42/session#1", true],
      ["*", "a/b/c", true],
      ["*", ".hidden", true],
      ["user-??", "user-42", true],
      ["user-??", "user-420", false],
      ["[a-c]x", "bx", true],
      ["[!a-c]x", "bx", false],
      ["a\\*", "a*", true],
      ["a\\*", "ab", false],
      ["a.b", "axb", false],
      ["*/session#1", "user:42/session#1", true],
      ["session", "user:42/session#1", false],
    ];
    for (const [glob, id, want] of cases) expect(idGlob(glob).test(id), `${glob} ~ ${id}`).toBe(want);
  });

  it("prune --match 'user*' selects the README's own 'user:42/session#1'; '*' every id", async () => {
    const db = `sqlite:${join(dir, "match.db")}`;
    const s = await openSaver(db);
    await s.saveMany(
      ["user:42/session#1", "a/b", "other"].map((id) => ({ namespace: "default", threadId: id, text: docOf(id) })),
    );
    await s.close();
    const user = await runCli(["prune", db, "--match", "user*", "--dry-run", "--json"]);
    expect(user.code, user.err).toBe(0);
    expect((JSON.parse(user.out) as { plans: Array<{ threadId: string }> }).plans.map((p) => p.threadId)).toEqual([
      "user:42/session#1",
    ]);
    const all = await runCli(["prune", db, "--match", "*", "--dry-run", "--json"]);
    expect((JSON.parse(all.out) as { plans: unknown[] }).plans).toHaveLength(3);
  });

  it("prune --idle-for on Redis (no update time in the store): the documents' updatedAt decides; unknown ones are kept and counted", async () => {
    const prefix = `ckpt-idle-${process.pid}-${Date.now()}:`;
    const uri = `redis://127.0.0.1:6379?prefix=${prefix}`;
    try {
      const s = await openSaver(uri);
      const at = (id: string, updatedAt: string | undefined) => {
        const d = JSON.parse(docOf(id)) as Record<string, unknown>;
        if (updatedAt === undefined) delete d.updatedAt;
        else d.updatedAt = updatedAt;
        return { namespace: "default", threadId: id, text: JSON.stringify(d) };
      };
      await s.saveMany([
        at("old-1", "2020-01-01T00:00:00.000Z"),
        at("old-2", "2021-06-01T00:00:00.000Z"),
        at("fresh", new Date().toISOString()),
        at("no-time", undefined),
      ]);
      await s.close();
      const r = await runCli(["prune", uri, "--idle-for", "30d"]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain("deleted 2 checkpoints (2 whole threads)");
      expect(r.out).toContain("kept 1 thread whose last update is unknown");
      const t = await openSaver(uri, { readOnly: true });
      const left: string[] = [];
      for await (const x of t.list()) left.push(x.threadId);
      await t.close();
      expect(left).toEqual(["fresh", "no-time"]);
    } finally {
      const { deleteRedisKeys } = await import("./helpers/redis-keys.js");
      await deleteRedisKeys(prefix);
    }
  });
});

describe("#29: ls of one file that is not a checkpoint", () => {
  it("a plain text file and a JSON file of no known format: exit 3 naming the file, not a listing of one thread", async () => {
    writeFileSync(join(dir, "notes.txt"), "hello world\nthis is text\n");
    writeFileSync(join(dir, "other.json"), '{"a":1}\n');
    for (const [name, why] of [
      ["notes.txt", "invalid JSON"],
      ["other.json", "cannot tell the format"],
    ] as const) {
      for (const json of [[], ["--json"]]) {
        const r = await runCli(["ls", name, ...json], { cwd: dir });
        expect(r.code, r.out).toBe(3);
        expect(r.out).toBe("");
        expect(r.err).toMatch(new RegExp(`^ckpt: (.*/)?${name.replace(".", "\\.")}: not a checkpoint: ${why}`));
        expect(r.err.trim().split("\n")).toHaveLength(1);
      }
    }
    // a checkpoint file is still listed
    copyFileSync(join(ROOT, "fixtures", "langgraph", "valid", "js-a-counter-1.json"), join(dir, "counter.json"));
    const ok = await runCli(["ls", "counter.json"], { cwd: dir });
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain("a-counter-1");
  });
});
