/**
 * Every seed system's own folder is a store (#16): folders built here from the shared samples in each system's own
 * layout (names and bytes as that system writes them — the samples were written by the systems' own code, and the
 * extra threads differ only inside strings) migrate to SQLite, Redis and PostgreSQL (real services, isolated by
 * prefix / schema, cleaned up) and back to new folders with the same file names and bytes. Summaries count every
 * entry: read, ignored (not checkpoints) and rejected (looks like a checkpoint, does not load).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

const F = "/work/shared/formats";
const sample = (p: string) => readFileSync(join(F, p), "utf8");
const run = randomBytes(4).toString("hex");
const REDIS = `redis://127.0.0.1:6379?prefix=${encodeURIComponent(`ckpt-seed-${run}:`)}`;
const PG = `postgres://postgres@127.0.0.1:5432/test?schema=ckpt_seed_${run}`;

function io(cwd = process.cwd()): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}

/** Runs in a temp folder of its own (an interrupted migration leaves its journal in the current folder). */
async function ckpt(args: string[], cwd = tmp("cwd")): Promise<{ code: number; out: string; err: string }> {
  const t = io(cwd);
  const code = await main(args, t);
  return { code, out: t.out(), err: t.err() };
}

/** `ckpt migrate … --json`: the summary line. */
async function migrate(from: string, to: string, extra: string[] = []) {
  const r = await ckpt(["migrate", "--from", from, "--to", to, "--json", ...extra]);
  const summary = JSON.parse(r.out.trim().split("\n").pop()!) as Record<string, unknown> & {
    read: number;
    written: number;
    rejected: number;
    ignored: number;
    ignoredFiles: Array<{ file: string; reason: string }>;
    rejectedRecords: Array<{ file?: string; reason: string }>;
  };
  return { ...r, summary };
}

/** Every file under a folder (relative paths, sorted), skipping the folders named in `skip`. */
function files(dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        if (!skip.includes(n)) walk(p);
      } else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const tmp = (what: string) => mkdtempSync(join(tmpdir(), `ckpt-seed-${what}-`));
function put(dir: string, name: string, text: string) {
  mkdirSync(join(dir, name, ".."), { recursive: true });
  writeFileSync(join(dir, name), text);
}

/** Swarmer bot folder `data/agents/`: three agents (the sample as Python wrote it; two more differing in strings). */
function swarmerFolder(): string {
  const d = tmp("swarmer");
  const base = sample("swarmer/constructed/agent_123456789.pkl");
  put(d, "agent_123456789.pkl", base);
  put(
    d,
    "agent_111.pkl",
    base.replaceAll("123456789", "111").replace("I like green tea.", "I like caf\\u00e9 au lait \\ud83d\\ude00."),
  );
  put(d, "agent_222.pkl", base.replaceAll("123456789", "222").replaceAll("green tea", "\\u00fcber-tea"));
  return d;
}

/** phi-core FileSystemSessionStore folder: three sessions, their lock files, a temp file of an interrupted save. */
function phiFolder(): string {
  const d = tmp("phi");
  const base = sample("phi-core/generated/session.sess-1.v0.10.json");
  for (const id of ["sess-1", "sess-2", "sess-3"]) {
    put(d, `${id}.json`, base.replaceAll("sess-1", id));
    put(d, `${id}.json.lock`, "");
  }
  put(d, "sess-2.json.tmp.4242.1767225600000000000", base.slice(0, 300));
  return d;
}

/** yoagent (and phi-core) message arrays and yoagent session JSONL files. */
function yoagentFolder(): string {
  const d = tmp("yoagent");
  put(d, "save_messages.v0.18.json", sample("yoagent/generated/save_messages.v0.18.json"));
  put(d, "save_messages.legacy-pre-0.13.json", sample("yoagent/generated/save_messages.legacy-pre-0.13.json"));
  put(
    d,
    "conversation.json",
    sample("yoagent/generated/save_messages.v0.18.json").replace("Read the file", "Read the other file"),
  );
  put(d, "phi.save_messages.v0.10.json", sample("phi-core/generated/save_messages.v0.10.json"));
  put(d, "session.v0.18.jsonl", sample("yoagent/generated/session.v0.18.jsonl"));
  put(d, "session-b.jsonl", sample("yoagent/generated/session.v0.18.jsonl").replaceAll("first-draft", "second-draft"));
  return d;
}

/** deep-agent FileSaver `.checkpoints/`. */
function deepagentFolder(): string {
  const d = tmp("deepagent");
  put(d, "user_42_session_1.json", sample("deepagent/generated/checkpoints/user_42_session_1.json"));
  put(d, "explicit-messages-thread.json", sample("deepagent/generated/checkpoints/explicit-messages-thread.json"));
  const t = sample("deepagent/generated/checkpoints/explicit-messages-thread.json").replaceAll(
    "explicit-messages-thread",
    "thread-3",
  );
  put(d, "thread-3.json", t);
  return d;
}

/** A folder of amacs homes, each a git repository with the agent's other state files. */
function amacsFolder(): string {
  const d = tmp("amacs");
  const chat = sample("amacs/generated/agent-chat.org");
  const pad = sample("amacs/generated/scratchpad.org");
  put(d, "home-a/agent-chat.org", chat);
  put(d, "home-a/scratchpad.org", pad);
  put(d, "home-a/consciousness.el", sample("amacs/generated/consciousness.el"));
  put(d, "home-a/monologue.org", sample("amacs/generated/monologue.org"));
  put(d, "home-a/.git/HEAD", "ref: refs/heads/main\n");
  put(d, "home-b/agent-chat.org", sample("amacs/generated/agent-chat.v3-legacy.org"));
  put(d, "home-c/scratchpad.org", pad.replace("AMACS Scratchpad", "AMACS Scratchpad (c)"));
  return d;
}

interface Seed {
  name: string;
  make: () => string;
  read: number;
  /** entries the summary lists as ignored (relative to the folder) */
  ignored: string[];
  /** the files a folder written from the records holds (by hand: each system's own names) */
  written: string[];
}

const SEEDS: Seed[] = [
  {
    name: "Swarmer agents",
    make: swarmerFolder,
    read: 3,
    ignored: [],
    written: ["agent_111.pkl", "agent_123456789.pkl", "agent_222.pkl"],
  },
  {
    name: "phi-core session store",
    make: phiFolder,
    read: 3,
    ignored: ["sess-1.json.lock", "sess-2.json.lock", "sess-2.json.tmp.4242.1767225600000000000", "sess-3.json.lock"],
    // phi-core's lock protocol leaves a <id>.json.lock beside each session it saves
    written: ["sess-1.json", "sess-1.json.lock", "sess-2.json", "sess-2.json.lock", "sess-3.json", "sess-3.json.lock"],
  },
  {
    name: "yoagent / phi-core arrays and yoagent JSONL sessions",
    make: yoagentFolder,
    read: 6,
    ignored: [],
    written: [
      "conversation.json",
      "phi.save_messages.v0.10.json",
      "save_messages.legacy-pre-0.13.json",
      "save_messages.v0.18.json",
      "session-b.jsonl",
      "session.v0.18.jsonl",
    ],
  },
  {
    name: "deep-agent FileSaver",
    make: deepagentFolder,
    read: 3,
    ignored: [],
    written: ["explicit-messages-thread.json", "thread-3.json", "user_42_session_1.json"],
  },
  {
    name: "amacs homes",
    make: amacsFolder,
    read: 3,
    ignored: ["home-a/.git", "home-a/consciousness.el", "home-a/monologue.org"],
    written: ["home-a/agent-chat.org", "home-a/scratchpad.org", "home-b/agent-chat.org", "home-c/scratchpad.org"],
  },
];

async function servicesUp(): Promise<void> {
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379", {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await c.connect();
    await c.ping();
  } catch (e) {
    throw new Error(
      `Redis is not reachable at 127.0.0.1:6379 (${(e as Error).message}): start it with redis-server --daemonize yes (see .ci/run)`,
    );
  } finally {
    c.disconnect();
  }
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  try {
    await p.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at 127.0.0.1:5432 (${(e as Error).message}): start it with pg_ctlcluster 15 main start (see .ci/run)`,
    );
  } finally {
    await p.end().catch(() => undefined);
  }
}

beforeAll(servicesUp);

afterAll(async () => {
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  const keys = await c.keys(`ckpt-seed-${run}*`); // test cleanup only (the stores use ckpt-seed-<run>-<i>: prefixes)
  if (keys.length) await c.del(...keys);
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect();
  for (let i = 0; i < SEEDS.length; i++) await p.query(`DROP SCHEMA IF EXISTS ckpt_seed_${run}_${i} CASCADE`);
  await p.end();
});

describe("each seed system's folder round-trips through SQLite, Redis and PostgreSQL with the same names and bytes", () => {
  SEEDS.forEach((seed, i) => {
    it(seed.name, async () => {
      const src = seed.make();
      const work = tmp("work");
      const stores = [
        `sqlite:${join(work, "c.db")}`,
        REDIS.replace("%3A", `-${i}%3A`),
        PG.replace(`ckpt_seed_${run}`, `ckpt_seed_${run}_${i}`),
      ];
      for (const store of stores) {
        const there = await migrate(src, store);
        expect(there.code, there.err + there.out).toBe(0);
        expect(there.summary).toMatchObject({
          read: seed.read,
          written: seed.read,
          rejected: 0,
          ignored: seed.ignored.length,
          verified: seed.read,
        });
        expect(there.summary.ignoredFiles.map((f) => relative(src, f.file)).sort()).toEqual(seed.ignored);
        const out = join(work, `out-${stores.indexOf(store)}`);
        const back = await migrate(store, out);
        expect(back.code, back.err + back.out).toBe(0);
        expect(back.summary).toMatchObject({ read: seed.read, written: seed.read, rejected: 0, verified: seed.read });
        expect(files(out)).toEqual(seed.written);
        for (const f of seed.written)
          expect(readFileSync(join(out, f), "utf8"), `${store} → ${f}`).toBe(readFileSync(join(src, f), "utf8"));
      }
    });
  });
});

describe("a folder that mixes layouts is read file by file; nothing is skipped silently", () => {
  function mixed(): string {
    const d = tmp("mixed");
    const sw = sample("swarmer/constructed/agent_123456789.pkl");
    put(d, "agent_123456789.pkl", sw);
    put(d, "agent_9.pkl", sw.slice(0, 700)); // json.dump raised mid-write (FORMATS.md §4.4)
    put(d, "save_messages.v0.18.json", sample("yoagent/generated/save_messages.v0.18.json"));
    put(d, "session.v0.18.jsonl", sample("yoagent/generated/session.v0.18.jsonl"));
    put(d, "sess-1.json", sample("phi-core/generated/session.sess-1.v0.10.json"));
    put(d, "user_42_session_1.json", sample("deepagent/generated/checkpoints/user_42_session_1.json"));
    put(d, "home/agent-chat.org", sample("amacs/generated/agent-chat.org"));
    put(d, "README.md", "# my agents\n");
    put(d, ".gitignore", "*.tmp\n");
    put(d, "settings.json", '{"theme": "dark"}');
    return d;
  }

  it("migrate counts every entry: 7 read (1 rejected: the truncated Swarmer file), 3 ignored; exit 5; --verbose lists the ignored", async () => {
    const src = mixed();
    const db = `sqlite:${join(tmp("work"), "m.db")}`;
    const r = await migrate(src, db);
    expect(r.code).toBe(5);
    expect(r.summary).toMatchObject({ read: 7, written: 6, rejected: 1, ignored: 3 });
    expect(r.summary.rejectedRecords).toHaveLength(1);
    expect(r.summary.rejectedRecords[0]!.file).toBe(join(src, "agent_9.pkl"));
    expect(r.summary.rejectedRecords[0]!.reason).toMatch(/agent_9\.pkl:\d+:\d+: .*(truncated|ends early)/);
    const why = Object.fromEntries(r.summary.ignoredFiles.map((f) => [relative(src, f.file), f.reason]));
    expect(Object.keys(why).sort()).toEqual([".gitignore", "README.md", "settings.json"]);
    expect(why["settings.json"]).toMatch(/JSON, but not a checkpoint/);
    const text = await ckpt(["migrate", "--from", src, "--to", `sqlite:${join(tmp("work"), "v.db")}`, "--verbose"]);
    expect(text.code).toBe(5);
    expect(text.out).toMatch(/ignored 3 \(not checkpoints\)/);
    expect(text.out).toContain(`ignored: ${join(src, "README.md")}: not a checkpoint file`);
    expect(text.out).toMatch(/rejected: .*agent_9\.pkl:\d+:\d+: /);
  });

  it("two files standing for one thread id: the first is read, the second rejected with the reason", async () => {
    const d = tmp("dup");
    put(d, "agent_a.pkl", sample("swarmer/constructed/agent_123456789.pkl"));
    put(d, "a.json", sample("yoagent/generated/save_messages.v0.18.json"));
    const r = await migrate(d, `sqlite:${join(tmp("work"), "d.db")}`);
    expect(r.code).toBe(5);
    expect(r.summary).toMatchObject({ read: 1, written: 1, rejected: 1, ignored: 0 });
    expect(r.summary.rejectedRecords[0]!.reason).toMatch(
      /^thread 'a' is read from (a\.json|agent_a\.pkl): a second file for one thread is not read$/,
    );
  });

  it("ls lists each thread with its format; show <dir>#<thread> reads one", async () => {
    const src = mixed();
    const ls = await ckpt(["ls", src, "--json"]);
    expect(ls.code).toBe(0);
    const rows = JSON.parse(ls.out) as Array<{ threadId: string; format: string | null }>;
    expect(Object.fromEntries(rows.map((r) => [r.threadId, r.format]))).toEqual({
      "123456789": "swarmer",
      "9": null, // does not load: listed with its error
      "save_messages.v0.18": "yoagent",
      "session.v0.18": "yoagent-session",
      "sess-1": "phi-core-session",
      "user:42/session#1": "deepagent",
      home: "amacs",
    });
    const show = await ckpt(["show", `${src}#sess-1`]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toMatch(/^thread sess-1 — phi-core-session/);
    const home = await ckpt(["show", `${src}#home`, "--json"]);
    expect(home.code, home.err).toBe(0);
    expect(JSON.parse(home.out)).toMatchObject({ origin: { format: "amacs" } });
  });

  it("one amacs agent home (a folder with agent-chat.org) is one thread named after the folder", async () => {
    const d = join(tmp("one-home"), ".agent");
    put(d, "agent-chat.org", sample("amacs/generated/agent-chat.org"));
    put(d, "scratchpad.org", sample("amacs/generated/scratchpad.org"));
    put(d, "config.el", "(setq secret 1)\n");
    const ls = await ckpt(["ls", d, "--json"]);
    expect(JSON.parse(ls.out)).toMatchObject([{ threadId: ".agent", format: "amacs", messages: 8 }]);
    const r = await migrate(d, `sqlite:${join(tmp("work"), "h.db")}`);
    expect(r.summary).toMatchObject({ read: 1, written: 1, ignored: 1 });
    expect(r.summary.ignoredFiles[0]!.file).toBe(join(d, "config.el"));
  });
});

describe("writing keeps each system's conventions", () => {
  it("never writes a phi-core session another process holds locked (phi-core's flock on <id>.json.lock)", async () => {
    const src = phiFolder();
    const db = `sqlite:${join(tmp("work"), "p.db")}`;
    expect((await migrate(src, db)).code).toBe(0);
    const target = tmp("phi-target");
    put(target, "sess-2.json", "{}");
    put(target, "sess-2.json.lock", "");
    // another process (a phi-core stand-in) holds the exclusive flock on sess-2's lock file
    const cwd = tmp("cwd");
    // (it holds the lock until its stdin closes)
    const holder = spawn(
      "flock",
      ["-x", join(target, "sess-2.json.lock"), "sh", "-c", "echo held; exec cat >/dev/null"],
      { stdio: ["pipe", "pipe", "ignore"] },
    );
    const released = new Promise((res) => holder.on("close", res));
    await new Promise((res) => holder.stdout.once("data", res));
    try {
      const r = await ckpt(
        ["migrate", "--from", db, "--to", `file:${target}?lock-wait=0.3`, "--on-conflict", "overwrite", "-q"],
        cwd,
      );
      expect(r.code).toBe(4);
      expect(r.err).toMatch(/sess-2\.json\.lock.*phi-core session 'sess-2' is locked by another process/);
      expect(readFileSync(join(target, "sess-2.json"), "utf8")).toBe("{}");
    } finally {
      holder.stdin.end();
      await released;
    }
    // once released, the interrupted migration finishes and writes it
    const r2 = await ckpt(
      ["migrate", "--from", db, "--to", `file:${target}?lock-wait=0.3`, "--on-conflict", "overwrite", "--resume", "-q"],
      cwd,
    );
    expect(r2.code, r2.err).toBe(0);
    expect(readFileSync(join(target, "sess-2.json"), "utf8")).toBe(readFileSync(join(src, "sess-2.json"), "utf8"));
  });

  it("?layout= forces a layout (the FileSaver one holds any JSON format) and refuses formats it cannot hold", async () => {
    const db = `sqlite:${join(tmp("work"), "s.db")}`;
    expect((await migrate(swarmerFolder(), db)).code).toBe(0);
    const fs = tmp("fs");
    expect((await migrate(db, `file:${fs}?layout=filesaver`)).code).toBe(0);
    // FileSaver names (<id>.json), 2-space JSON as JSON.stringify writes it
    expect(files(fs)).toEqual(["111.json", "123456789.json", "222.json"]);
    const orig = sample("swarmer/constructed/agent_123456789.pkl");
    expect(readFileSync(join(fs, "123456789.json"), "utf8")).toBe(JSON.stringify(JSON.parse(orig), null, 2));
    // and read back as Swarmer agents with their ids
    const back = tmp("back");
    expect((await migrate(fs, back)).code).toBe(0);
    expect(readFileSync(join(back, "agent_123456789.pkl"), "utf8")).toBe(orig);
    const bad = await ckpt(["migrate", "--from", db, "--to", `file:${tmp("x")}?layout=amacs`, "-q"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/amacs folder layout cannot hold a swarmer document/);
  });

  it("reading never writes: a missing source folder is not created", async () => {
    const missing = join(tmp("gone"), "nothing-here");
    const r = await ckpt(["migrate", "--from", missing, "--to", `sqlite:${join(tmp("work"), "n.db")}`, "-q"]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/nothing-here: no such file or folder/);
    expect(existsSync(missing)).toBe(false);
    expect((await ckpt(["ls", missing])).code).toBe(3);
    expect(existsSync(missing)).toBe(false);
  });
});
