import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { spawn, execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { openSaver } from "../src/savers/index.js";
import { storeHashes } from "./helpers/store-hashes.js";
import { parseJson } from "../src/base/json.js";

const root = join(import.meta.dirname, "..");
const run = randomBytes(4).toString("hex");
const REDIS = `redis://127.0.0.1:6379?prefix=${encodeURIComponent(`ckpt-mig-${run}:`)}`;
const PG = `postgres://postgres@127.0.0.1:5432/test?schema=ckpt_mig_${run}`;
const samples = join(root, "fixtures", "savers", "deepagent-filesaver");

function io(): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
    out: () => out,
    err: () => err,
  };
}

/** A folder of n deep-agent checkpoints in FileSaver layout. */
function makeSource(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-mig-src-"));
  const base = parseJson(readFileSync(join(samples, "user_42_session_1.json"), "utf8")) as Record<string, unknown>;
  for (let i = 0; i < n; i++) {
    const id = `thread-${String(i).padStart(4, "0")}`;
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...base, threadId: id, step: i }, null, 2));
  }
  return dir;
}

afterAll(async () => {
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379");
  const keys = await c.keys(`ckpt-mig-${run}:*`); // test cleanup only
  if (keys.length) await c.del(...keys);
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect();
  await p.query(`DROP SCHEMA IF EXISTS ckpt_mig_${run} CASCADE`);
  await p.end();
});

describe("ckpt migrate", () => {
  it("file → sqlite → redis → postgres → file gives byte-identical deep-agent files", async () => {
    const src = mkdtempSync(join(tmpdir(), "ckpt-rt-"));
    for (const f of readdirSync(samples)) copyFileSync(join(samples, f), join(src, f));
    const work = mkdtempSync(join(tmpdir(), "ckpt-rt-work-"));
    const db = `sqlite:${join(work, "c.db")}`;
    const out = join(work, "out");
    const hops: Array<[string, string]> = [
      [`file:${src}`, db],
      [db, REDIS],
      [REDIS, PG],
      [PG, `file:${out}`],
    ];
    for (const [from, to] of hops) {
      const t = { ...io(), cwd: work };
      expect(await main(["migrate", "--from", from, "--to", to, "-q"], t), t.err() + t.out()).toBe(0);
      expect(t.out()).toMatch(/written 2, skipped 0, rejected 0, verified 2/);
    }
    for (const f of readdirSync(samples))
      expect(readFileSync(join(out, f), "utf8")).toBe(readFileSync(join(samples, f), "utf8"));
    // the real thread id (with ':', '/', '#') survived every hop
    const s = await openSaver(PG);
    expect(await s.exists("user:42/session#1")).toBe(true);
    await s.close();
  });

  it("dry run writes nothing; a re-run is idempotent; conflicts fail by default and obey --on-conflict", async () => {
    const src = makeSource(5);
    const work = mkdtempSync(join(tmpdir(), "ckpt-mig-"));
    const db = `sqlite:${join(work, "c.db")}`;
    const t1 = { ...io(), cwd: work };
    expect(await main(["migrate", "--from", `file:${src}`, "--to", db, "--dry-run", "--json"], t1)).toBe(0);
    const sum = JSON.parse(t1.out().trim().split("\n").pop()!);
    expect(sum).toMatchObject({ type: "summary", dryRun: true, read: 5, written: 5, rejected: 0 });
    expect((await storeHashes(db)).size).toBe(0);
    expect(await main(["migrate", "--from", `file:${src}`, "--to", db, "-q"], { ...io(), cwd: work })).toBe(0);
    const t2 = { ...io(), cwd: work };
    expect(await main(["migrate", "--from", `file:${src}`, "--to", db, "-q"], t2)).toBe(0);
    expect(t2.out()).toMatch(/written 0, skipped 5 \(5 identical\)/);
    // change one source document: default policy fails, naming it; overwrite replaces it
    const f = join(src, "thread-0002.json");
    writeFileSync(f, readFileSync(f, "utf8").replace('"step": 2', '"step": 99'));
    const t3 = { ...io(), cwd: work };
    expect(await main(["migrate", "--from", `file:${src}`, "--to", db, "-q"], t3)).toBe(1);
    expect(t3.out()).toMatch(/conflict: default#thread-0002: exists with different content/);
    expect(
      await main(["migrate", "--from", `file:${src}`, "--to", db, "-q", "--on-conflict", "skip"], {
        ...io(),
        cwd: work,
      }),
    ).toBe(0);
    expect(
      await main(["migrate", "--from", `file:${src}`, "--to", db, "-q", "--on-conflict", "overwrite"], {
        ...io(),
        cwd: work,
      }),
    ).toBe(0);
    const s = await openSaver(db);
    expect(parseJson((await s.load("thread-0002"))!)).toMatchObject({ step: 99 });
    await s.close();
  });

  it("?namespace= on the target URI is where records land, on the source URI what is copied; a flag that disagrees is a usage error", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-mig-ns-"));
    const db = join(work, "c.db");
    const seed = await openSaver(`sqlite:${db}`);
    await seed.save(
      "a",
      JSON.stringify({
        ...(parseJson(readFileSync(join(samples, "user_42_session_1.json"), "utf8")) as object),
        threadId: "a",
      }),
      "team-a",
    );
    await seed.save(
      "b",
      JSON.stringify({
        ...(parseJson(readFileSync(join(samples, "user_42_session_1.json"), "utf8")) as object),
        threadId: "b",
      }),
      "team-b",
    );
    await seed.close();
    const mem = `memory:ns-${run}`;
    const t = { ...io(), cwd: work };
    expect(
      await main(["migrate", "--from", `sqlite:${db}?namespace=team-a`, "--to", `${mem}?namespace=prod`, "-q"], t),
      t.err(),
    ).toBe(0);
    expect(t.out()).toMatch(/read 1, written 1/);
    const m = await openSaver(mem);
    expect(await m.namespaces()).toEqual(["prod"]);
    expect(await m.exists("a", "prod")).toBe(true);
    // one rule for every command: the URI's ?namespace=, else the flag; both, disagreeing, is exit 2 naming both
    const t2 = { ...io(), cwd: work };
    expect(
      await main(
        [
          "migrate",
          "--from",
          `sqlite:${db}?namespace=team-a`,
          "--namespace",
          "team-b",
          "--to",
          `${mem}?namespace=prod`,
          "-q",
        ],
        t2,
      ),
    ).toBe(2);
    expect(t2.err()).toMatch(/namespace given twice: 'team-a' in the URI and 'team-b'/);
    const t3 = { ...io(), cwd: work };
    expect(
      await main(
        ["migrate", "--from", `sqlite:${db}`, "--to", `${mem}?namespace=prod`, "--to-namespace", "staging", "-q"],
        t3,
      ),
    ).toBe(2);
    expect(t3.err()).toMatch(/'prod' in the URI and 'staging'/);
    // the flags alone pick the namespaces
    const t4 = { ...io(), cwd: work };
    expect(
      await main(
        ["migrate", "--from", `sqlite:${db}`, "--namespace", "team-b", "--to", mem, "--to-namespace", "staging", "-q"],
        t4,
      ),
      t4.err(),
    ).toBe(0);
    expect(await m.exists("b", "staging")).toBe(true);
    expect(await m.exists("a", "staging")).toBe(false);
    await m.close();
  });

  it("bad records go to --reject-file and the run ends with exit 5; --strict stops at the first", async () => {
    const src = makeSource(4);
    writeFileSync(join(src, "broken.json"), '{"threadId": "broken", "step": 1, "messages": [');
    writeFileSync(
      join(src, "invalid.json"),
      JSON.stringify(
        {
          threadId: "invalid",
          step: -1,
          messages: [],
          state: { todos: [], files: {} },
          createdAt: "x",
          updatedAt: "x",
        },
        null,
        2,
      ),
    );
    const work = mkdtempSync(join(tmpdir(), "ckpt-mig-"));
    const t = { ...io(), cwd: work };
    expect(
      await main(
        [
          "migrate",
          "--from",
          `file:${src}`,
          "--to",
          `sqlite:${join(work, "c.db")}`,
          "--reject-file",
          "rejects.ndjson",
          "-q",
        ],
        t,
      ),
    ).toBe(5);
    const rejects = readFileSync(join(work, "rejects.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rejects.map((r) => r.threadId).sort()).toEqual(["broken", "invalid"]);
    expect(rejects.find((r) => r.threadId === "broken").reason).toMatch(/invalid JSON/);
    // the reason names the source store and thread, the place, and says what the loader expected
    expect(rejects.find((r) => r.threadId === "invalid").reason).toBe(
      `${join(src, "invalid.json")}:3:11: /step: not a valid deepagent document: expected a number >= 0 (ckpt validate lists every issue)`,
    );
    expect((await storeHashes(`sqlite:${join(work, "c.db")}`)).size).toBe(4);
    const t2 = { ...io(), cwd: work };
    expect(
      await main(["migrate", "--from", `file:${src}`, "--to", `sqlite:${join(work, "d.db")}`, "--strict", "-q"], t2),
    ).toBe(5);
    expect(t2.out()).toMatch(/stopped: rejected default#broken \(--strict\)/);
  });

  it("--to-format converts while copying, and refuses lossy conversions record by record", async () => {
    const src = mkdtempSync(join(tmpdir(), "ckpt-fmt-"));
    for (const f of readdirSync(samples)) copyFileSync(join(samples, f), join(src, f));
    const work = mkdtempSync(join(tmpdir(), "ckpt-fmt-work-"));
    const t = { ...io(), cwd: work };
    expect(
      await main(["migrate", "--from", `file:${src}`, "--to", "memory:fmt-" + run, "--to-format", "ckpt", "-q"], t),
      t.out(),
    ).toBe(0);
    const m = await openSaver("memory:fmt-" + run);
    expect(parseJson((await m.load("user:42/session#1"))!)).toMatchObject({
      schemaVersion: 1,
      threadId: "user:42/session#1",
      origin: { format: "deepagent" },
    });
    const t2 = { ...io(), cwd: work };
    // deep-agent → yoagent drops todos/files/threadId: rejected without --allow-lossy
    expect(
      await main(
        ["migrate", "--from", `file:${src}`, "--to", "memory:fmt2-" + run, "--to-format", "yoagent", "-q"],
        t2,
      ),
    ).toBe(5);
    expect(t2.out()).toMatch(/would drop \d+ fields?:/);
  });

  it("connection failures are exit 4 with a message that never shows the password", async () => {
    const t = io();
    expect(await main(["migrate", "--from", samples, "--to", "redis://user:s3cret-pass@127.0.0.1:1", "-q"], t)).toBe(4);
    expect(t.err()).toMatch(/cannot connect to Redis/);
    expect(t.err()).not.toContain("s3cret-pass");
    const t2 = io();
    expect(
      await main(["migrate", "--from", samples, "--to", "postgres://postgres:hunter2@127.0.0.1:1/test", "-q"], t2),
    ).toBe(4);
    expect(t2.err()).toMatch(/cannot connect to PostgreSQL/);
    expect(t2.err()).not.toContain("hunter2");
  });

  describe("resume after SIGKILL", () => {
    beforeAll(() => {
      if (!existsSync(join(root, "dist", "cli", "main.js")))
        execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
    }, 120_000);

    it("ends with the target equal to the source, by hashes, whatever the kill point (10 kills)", async () => {
      const src = makeSource(1500);
      const want = await storeHashes(`file:${src}`);
      let seed = 12345;
      const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let midRun = 0;
      for (let k = 0; k < 10; k++) {
        const work = mkdtempSync(join(tmpdir(), "ckpt-kill-"));
        const target = `sqlite:${join(work, "t.db")}`;
        const args = [
          join(root, "bin", "ckpt.js"),
          "migrate",
          "--from",
          `file:${src}`,
          "--to",
          target,
          "--batch-size",
          "7",
          "-q",
        ];
        // journals live in the per-user state folder ($XDG_STATE_HOME/ckpt/), not in the current folder
        const state = join(work, "state");
        const journals = () =>
          existsSync(join(state, "ckpt")) ? readdirSync(join(state, "ckpt")).filter((f) => f.endsWith(".journal")) : [];
        const child = spawn(process.execPath, args, {
          cwd: work,
          stdio: "ignore",
          env: { ...process.env, XDG_STATE_HOME: state },
        });
        const exitedP = new Promise((r) => child.on("exit", r));
        // wait for the run to start committing (its journal appears), then kill it at a random later point
        let exited = false;
        void exitedP.then(() => (exited = true));
        const t0 = Date.now();
        while (!exited && journals().length === 0 && Date.now() - t0 < 20_000)
          await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 150)));
        child.kill("SIGKILL");
        await exitedP;
        const journal = journals()[0];
        if (journal) midRun++;
        // resume (or, when the kill came after completion, a plain re-run) must finish the job
        const t = { ...io(), cwd: work, env: { XDG_STATE_HOME: state } };
        const code = await main(
          [
            "migrate",
            "--from",
            `file:${src}`,
            "--to",
            target,
            "--batch-size",
            "7",
            "-q",
            ...(journal ? ["--resume"] : []),
          ],
          t,
        );
        expect(code, t.out() + t.err()).toBe(0);
        const got = await storeHashes(target);
        expect(got.size).toBe(want.size);
        for (const [key, h] of want) expect(got.get(key)).toBe(h);
        expect(journals()).toEqual([]);
        expect(readdirSync(work).some((f) => f.endsWith(".journal"))).toBe(false);
      }
      // the kill points must really fall inside runs, not only before or after them
      expect(midRun).toBeGreaterThanOrEqual(6);
    }, 120_000);
  });
});
