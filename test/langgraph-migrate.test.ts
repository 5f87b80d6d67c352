/**
 * `ckpt migrate` between LangGraph stores, checked with the real LangGraph JS libraries and with an independent
 * decoder (test/helpers/lg-independent.ts, written from LANGGRAPH.md §5.2, no ckpt code), against the real
 * PostgreSQL on this machine (one schema per test run, dropped at the end).
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import { runCli } from "./helpers/cli-io.js";
import { canon, readSqliteStore, unpack, type Ext } from "./helpers/lg-independent.js";
import { chatApp, closeSaver, human, jsHistory, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const root = join(import.meta.dirname, "..");
const fx = join(root, "fixtures", "langgraph");
const pgdb = pgTestSchemas("lgw");
const schema = pgdb.schema;
const pgUri = (s: string) => `${PG}?schema=${s}`;

/** ckpt <argv> in a fresh folder (journals and reject files land there). */
const ckpt = (...argv: string[]) => runCli(argv, { cwd: mkdtempSync(join(tmpdir(), "lgw-")) });

/** A copy of a sample (the originals are WAL-mode files: opening one writes beside it). */
function copyOf(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "lgw-src-"));
  const p = join(dir, name);
  copyFileSync(join(fx, name), p);
  return p;
}

function restoreDump(file: string, s: string) {
  const sql = readFileSync(join(fx, file), "utf8").replaceAll("__SCHEMA__", s);
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], { input: sql, stdio: ["pipe", "ignore", "inherit"] });
}

const SAMPLES = [
  "python-a.sqlite",
  "js-a.sqlite",
  "python-v1-persistence.sqlite",
  "python-v4-chat.sqlite",
  "python-v4-human-in-the-loop.sqlite",
];
/** js-a's forked thread: its second branch reaches integer versions the first branch already has (JS versions carry no random tail). */
const JS_FORK_BRANCH = new Set([
  "1f1e71a0-4403-6a00-8004-d2140b30cfa7",
  "1f1e71a0-4408-6820-8005-e9b9ea8a91df",
  "1f1e71a0-440f-6d51-8006-6d801399719f",
  "1f1e71a0-4417-6280-8007-1c7ef0f4b75c",
  "1f1e71a0-441c-60a0-8008-7e3f37ef019a",
]);

describe("LangGraph SQLite → PostgreSQL → SQLite", () => {
  for (const sample of SAMPLES) {
    it(`${sample}: every checkpoint, its metadata and every pending write decode equal after the round trip`, async () => {
      const src = copyOf(sample);
      const s = schema(sample.replace(/[^a-z0-9]/g, "_"));
      const back = join(mkdtempSync(join(tmpdir(), "lgw-back-")), "back.sqlite");
      const there = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
      const fork = sample === "js-a.sqlite";
      // js-a's forked thread: the second branch's versions move (PostgreSQL keys blobs by version), nothing is rejected
      expect(there.code, there.err + there.out).toBe(0);
      expect(there.out).toMatch(/rejected 0, verified \d+/);
      const home = await ckpt("migrate", "--from", pgUri(s), "--to", `sqlite:${back}`, "-q");
      expect(home.code, home.err + home.out).toBe(0);
      const a = readSqliteStore(src);
      const b = readSqliteStore(back);
      const expected = [...a.keys()];
      expect([...b.keys()].sort()).toEqual(expected.sort());
      for (const k of expected) {
        const x = a.get(k)!;
        const y = b.get(k)!;
        expect(y.parent, k).toBe(x.parent);
        if (fork && JS_FORK_BRANCH.has(k.split("|")[2]!)) {
          // the same values; versions of its own, each the source's or the source's + n·1e9
          const {
            channel_versions: vx,
            versions_seen: _sx,
            ...restX
          } = x.checkpoint as Record<string, Record<string, number>>;
          const {
            channel_versions: vy,
            versions_seen: _sy,
            ...restY
          } = y.checkpoint as Record<string, Record<string, number>>;
          expect(canon(restY), k).toBe(canon(restX));
          for (const [ch, v] of Object.entries(vx!)) expect((vy![ch]! - v) % 1e9, `${k} ${ch}`).toBe(0);
        } else expect(canon(y.checkpoint), k).toBe(canon(x.checkpoint));
        expect(canon(y.metadata), k).toBe(canon(x.metadata));
        expect(canon(y.writes), k).toBe(canon(x.writes));
      }
      // the PostgreSQL stage holds what the library's own put would have written
      const blobs = (
        await pgdb.query(`SELECT type, count(*)::int AS n FROM ${s}.checkpoint_blobs GROUP BY type ORDER BY type`)
      ).rows;
      const migrations = (await pgdb.query(`SELECT array_agg(v ORDER BY v) AS v FROM ${s}.checkpoint_migrations`))
        .rows[0].v;
      if (sample === "python-a.sqlite") {
        // generated/README.md: the Python PostgresSaver wrote 58 blob rows (all msgpack) for the same threads, migrations 0-9
        expect(blobs).toEqual([{ type: "msgpack", n: 58 }]);
        expect(migrations).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        const idx = (
          await pgdb.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`, [s])
        ).rows.map((r) => r.indexname);
        expect(idx).toEqual(
          expect.arrayContaining([
            "checkpoint_blobs_thread_id_idx",
            "checkpoint_writes_thread_id_idx",
            "checkpoints_thread_id_idx",
          ]),
        );
        const tp = (
          await pgdb.query(
            `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'task_path'`,
            [s],
          )
        ).rows[0].n;
        expect(tp).toBe(1);
      }
      if (sample === "js-a.sqlite") expect(migrations).toEqual([0, 1, 2, 3, 4]);
    });
  }

  it("js-a: LangGraph JS lists the same history from the SQLite source, the PostgreSQL copy and the SQLite copy back", async () => {
    const src = copyOf("js-a.sqlite");
    const s = schema("jslist");
    const back = join(mkdtempSync(join(tmpdir(), "lgw-back-")), "back.sqlite");
    expect((await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q")).code).toBe(0);
    expect((await ckpt("migrate", "--from", pgUri(s), "--to", `sqlite:${back}`, "-q")).code).toBe(0);
    const a = sqliteSaver(src),
      p = pgSaver(PG, s),
      b = sqliteSaver(back);
    try {
      const ha = await jsHistory(a, { versionedOnly: true });
      const hp = await jsHistory(p, { versionedOnly: true });
      const hb = await jsHistory(b);
      const full = await jsHistory(a);
      // the forked branch: versions of its own in PostgreSQL, the same values (compared below without versions)
      const noVersions = (h: Map<string, string>, id: string) => {
        const { versions: _v, seen: _s, ...rest } = JSON.parse(h.get(`a-forked-1||${id}`)!);
        return rest;
      };
      for (const id of JS_FORK_BRANCH) {
        expect(noVersions(hp, id)).toEqual(noVersions(ha, id));
        expect(noVersions(hb, id)).toEqual(noVersions(full, id));
        for (const h of [ha, hp, hb, full]) h.delete(`a-forked-1||${id}`);
      }
      expect(hp.size).toBe(55);
      expect(Object.fromEntries(hp)).toEqual(Object.fromEntries(ha));
      expect(Object.fromEntries(hb)).toEqual(Object.fromEntries(full));
      // getState through a compiled graph: same messages
      for (const thread of ["a-chat-1", "a-edited-1", "a-hitl-1"]) {
        const cfg = { configurable: { thread_id: thread } };
        const sa = await chatApp(a).getState(cfg);
        const sp = await chatApp(p).getState(cfg);
        expect(JSON.stringify(sp.values), thread).toBe(JSON.stringify(sa.values));
        expect(sp.next).toEqual(sa.next);
      }
    } finally {
      await closeSaver(a);
      await closeSaver(p);
      await closeSaver(b);
    }
  });

  it("a migrated JS thread is continued by LangGraph JS on PostgreSQL (one more invoke adds checkpoints)", async () => {
    const src = copyOf("js-a.sqlite");
    const s = schema("jscont");
    await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--thread", "a-chat-2", "-q");
    const p = pgSaver(PG, s);
    try {
      const app = chatApp(p);
      const cfg = { configurable: { thread_id: "a-chat-2" } };
      const before = (await app.getState(cfg)).values.messages.length;
      let n0 = 0;
      for await (const _ of p.list(cfg)) n0++;
      const out = await app.invoke(human("weather in Oslo"), cfg);
      expect(out.messages.length).toBe(before + 4);
      expect(out.messages[before + 3].content).toBe("Answer: 3 hits for 'weather in Oslo'");
      let n1 = 0;
      for await (const _ of p.list(cfg)) n1++;
      expect(n1).toBe(n0 + 5);
    } finally {
      await closeSaver(p);
    }
  });
});

describe("LangGraph PostgreSQL → SQLite → PostgreSQL (the library-written dumps)", () => {
  for (const dump of ["python-a.pg.sql", "js-a.pg.sql"]) {
    it(`${dump}: checkpoint rows, referenced blobs and writes come back identical`, async () => {
      const s1 = schema(dump.replace(/[^a-z0-9]/g, "_") + "_src");
      const s2 = schema(dump.replace(/[^a-z0-9]/g, "_") + "_dst");
      restoreDump(dump, s1);
      const mid = join(mkdtempSync(join(tmpdir(), "lgw-mid-")), "mid.sqlite");
      const a = await ckpt("migrate", "--from", pgUri(s1), "--to", `sqlite:${mid}`, "-q");
      expect(a.code, a.out + a.err).toBe(0);
      const b = await ckpt("migrate", "--from", `sqlite:${mid}`, "--to", pgUri(s2), "-q");
      expect(b.code, b.out + b.err).toBe(0);
      const rows = async (s: string) => ({
        cps: (
          await pgdb.query(
            `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM ${s}.checkpoints ORDER BY 1, 2, 3`,
          )
        ).rows,
        blobs: (
          await pgdb.query(
            `SELECT thread_id, checkpoint_ns, channel, version, type, encode(blob, 'hex') AS blob FROM ${s}.checkpoint_blobs ORDER BY 1, 2, 3, 4`,
          )
        ).rows,
        writes: (
          await pgdb.query(
            `SELECT * FROM ${s}.checkpoint_writes ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`,
          )
        ).rows.map((r) => ({ ...r, blob: r.blob.toString("hex"), task_path: undefined })),
        migrations: (await pgdb.query(`SELECT v FROM ${s}.checkpoint_migrations ORDER BY v`)).rows,
      });
      const [x, y] = [await rows(s1), await rows(s2)];
      expect(y.cps).toEqual(x.cps);
      expect(y.blobs).toEqual(x.blobs);
      expect(y.writes).toEqual(x.writes);
      expect(y.migrations).toEqual(x.migrations);
    });
  }
});

describe("--to-library", () => {
  it("python-a / python-v4-chat converted with --to-library js: LangGraph JS reads every thread and resumes a chat", async () => {
    for (const [sample, thread] of [
      ["python-a.sqlite", "a-chat-1"],
      ["python-v4-chat.sqlite", "chatbot_conversation"],
    ] as const) {
      const src = copyOf(sample);
      const out = join(mkdtempSync(join(tmpdir(), "lgw-js-")), "js.sqlite");
      const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${out}`, "--to-library", "js", "-q");
      expect(r.code, r.out + r.err).toBe(0);
      const db = new Database(out, { readonly: true });
      expect(db.prepare("SELECT DISTINCT type FROM checkpoints").all()).toEqual([{ type: "json" }]);
      db.close();
      const orig = readSqliteStore(src);
      const saver = sqliteSaver(out);
      try {
        const h = await jsHistory(saver);
        expect(h.size).toBe(orig.size);
        for (const [k, v] of orig) {
          const got = JSON.parse(h.get(k)!);
          const cp = v.checkpoint as { channel_versions: Record<string, string> };
          // padded Python versions became their integer counters
          for (const [ch, ver] of Object.entries(cp.channel_versions))
            expect(got.versions[ch], `${k} ${ch}`).toBe(Number(ver.split(".")[0]));
          expect(got.writes.length, k).toBe(v.writes.length);
        }
        const app = chatApp(saver);
        const cfg = { configurable: { thread_id: thread } };
        const st = await app.getState(cfg);
        const msgs = st.values.messages as Array<{ getType(): string; content: unknown }>;
        const pyMsgs = (
          orig.get(
            [...orig.keys()]
              .filter((k) => k.startsWith(`${thread}||`))
              .sort()
              .at(-1)!,
          )!.checkpoint as { channel_values: { messages: Ext[] } }
        ).channel_values.messages;
        expect(msgs.map((m) => m.getType())).toEqual(
          pyMsgs.map((m) => ((m.payload as unknown[])[2] as { type: string }).type),
        );
        expect(msgs.map((m) => m.content)).toEqual(
          pyMsgs.map((m) => ((m.payload as unknown[])[2] as { content: unknown }).content),
        );
        const done = await app.invoke(human("weather in Lima"), cfg);
        expect(done.messages.length).toBe(msgs.length + 4);
        expect(done.messages.at(-1)!.content).toBe("Answer: 3 hits for 'weather in Lima'");
      } finally {
        await closeSaver(saver);
      }
    }
  });

  it("a forked JS thread into PostgreSQL: the real PostgresSaver gives every checkpoint of both branches its own values and continues both", async () => {
    const src = copyOf("js-a.sqlite");
    const s = schema("fork");
    const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/read 60, written 60, skipped 0, rejected 0, verified 60/);
    const a = sqliteSaver(src),
      p = pgSaver(PG, s);
    try {
      const ids: string[] = [];
      for await (const t of a.list({ configurable: { thread_id: "a-forked-1" } }))
        ids.push(t.config.configurable!.checkpoint_id as string);
      expect(ids).toHaveLength(15);
      const values = async (saver: typeof a | typeof p, id: string) => {
        const t = await saver.getTuple({
          configurable: { thread_id: "a-forked-1", checkpoint_ns: "", checkpoint_id: id },
        });
        return JSON.parse(JSON.stringify(t!.checkpoint.channel_values.messages ?? [])); // JS PostgreSQL drops unversioned defaults
      };
      for (const id of ids) expect(await values(p, id), id).toEqual(await values(a, id));
      // both heads continue on the real library, and the other branch's values stay as they were
      const heads = ["1f1e71a0-43f7-66b0-8008-8a25f1301a01", "1f1e71a0-441c-60a0-8008-7e3f37ef019a"];
      for (const id of heads) {
        const cfg = { configurable: { thread_id: "a-forked-1", checkpoint_id: id } };
        const before = (await chatApp(p).getState(cfg)).values.messages.length;
        const done = await chatApp(p).invoke(human("weather in Oslo"), cfg);
        expect(done.messages.length).toBe(before + 4);
      }
      for (const id of ids) expect(await values(p, id), id).toEqual(await values(a, id));
    } finally {
      await closeSaver(a);
      await closeSaver(p);
    }
    // the same thread converted for Python (padded versions with a 0.0 tail collide the same way): nothing rejected
    const py = await ckpt(
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      pgUri(schema("forkpy")),
      "--to-library",
      "python",
      "-q",
    );
    expect(py.code, py.out + py.err).toBe(0);
    expect(py.out).toMatch(/rejected 0, verified 60/);
  });

  it("python-a → PostgreSQL with --to-library js: LangGraph JS PostgresSaver reads it and continues a thread", async () => {
    const src = copyOf("python-a.sqlite");
    const s = schema("py2jspg");
    const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--to-library", "js", "-q");
    // integer versions lose Python's random tails: the forked thread's second branch gets versions of its own
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/read 60, written 60, skipped 0, rejected 0, verified 60/);
    expect((await pgdb.query(`SELECT array_agg(v ORDER BY v) AS v FROM ${s}.checkpoint_migrations`)).rows[0].v).toEqual(
      [0, 1, 2, 3, 4],
    );
    const p = pgSaver(PG, s);
    try {
      const app = chatApp(p);
      const cfg = { configurable: { thread_id: "a-chat-2" } };
      const before = (await app.getState(cfg)).values.messages.length;
      expect(before).toBe(4);
      const done = await app.invoke(human("weather in Rome"), cfg);
      expect(done.messages.length).toBe(8);
    } finally {
      await closeSaver(p);
    }
  });

  it("a JS-written thread converted with --to-library python decodes as Python msgpack with padded versions", async () => {
    const src = copyOf("js-a.sqlite");
    const out = join(mkdtempSync(join(tmpdir(), "lgw-py-")), "py.sqlite");
    const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${out}`, "--to-library", "python", "-q");
    expect(r.code, r.out + r.err).toBe(0);
    const js = readSqliteStore(src);
    const py = readSqliteStore(out);
    expect(py.size).toBe(js.size);
    const padded = /^\d{32}\.\d{14}\.0$/;
    for (const [k, v] of py) {
      expect(v.type, k).toBe("msgpack");
      const cp = v.checkpoint as {
        channel_versions: Record<string, string>;
        versions_seen: Record<string, Record<string, string>>;
        channel_values: Record<string, unknown>;
      };
      const jcp = js.get(k)!.checkpoint as {
        channel_versions: Record<string, number>;
        channel_values: Record<string, unknown>;
      };
      for (const [ch, ver] of Object.entries(cp.channel_versions)) {
        expect(ver, k).toMatch(padded);
        expect(Number(ver.split(".")[0])).toBe(jcp.channel_versions[ch]);
      }
      for (const seen of Object.values(cp.versions_seen))
        for (const ver of Object.values(seen)) expect(ver).toMatch(padded);
      const msgs = cp.channel_values.messages as Ext[] | undefined;
      if (msgs) {
        const jm = jcp.channel_values.messages as Array<{ id: string[]; kwargs: { content: unknown } }>;
        expect(msgs.map((m) => m.ext)).toEqual(jm.map(() => 5));
        expect(msgs.map((m) => (m.payload as unknown[]).slice(0, 2))).toEqual(
          jm.map((m) => [
            `langchain_core.messages.${({ HumanMessage: "human", AIMessage: "ai", ToolMessage: "tool" } as Record<string, string>)[m.id[2]!]}`,
            m.id[2],
          ]),
        );
        expect(msgs.map((m) => ((m.payload as unknown[])[2] as { content: unknown }).content)).toEqual(
          jm.map((m) => m.kwargs.content),
        );
      }
    }
    // an interrupt write became a langgraph.types.Interrupt (ext 2)
    const hitl = [...py.entries()].find(([k]) => k.startsWith("a-hitl-1|"))!;
    const intr = [...py.values()].flatMap((v) => v.writes as unknown[][]).find((w) => w[2] === "__interrupt__")!;
    expect(hitl).toBeDefined();
    expect((intr[4] as Ext[])[0]!.ext).toBe(2);
    expect(((intr[4] as Ext[])[0]!.payload as unknown[]).slice(0, 2)).toEqual(["langgraph.types", "Interrupt"]);
    // msgpack bytes decode with no trailing garbage (unpack throws otherwise) — the raw rows once more
    const db = new Database(out, { readonly: true });
    for (const row of db.prepare("SELECT value FROM writes WHERE type = 'msgpack'").all() as Array<{ value: Buffer }>)
      expect(() => unpack(row.value)).not.toThrow();
    db.close();
  });
});

describe("kill mid-migration, then --resume", () => {
  it("ends with a target identical to an uninterrupted run", async () => {
    // 60 checkpoints × 40 copies with new thread ids: 2,400 checkpoints, migrated 20 per batch
    const src = copyOf("python-a.sqlite");
    const db = new Database(src);
    db.transaction(() => {
      for (let i = 1; i < 40; i++) {
        db.prepare(
          `INSERT INTO checkpoints SELECT thread_id || '#copy${i}', checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id NOT LIKE '%#copy%'`,
        ).run();
        db.prepare(
          `INSERT INTO writes SELECT thread_id || '#copy${i}', checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id NOT LIKE '%#copy%'`,
        ).run();
      }
    })();
    db.close();
    const s = schema("resume");
    const work = mkdtempSync(join(tmpdir(), "lgw-resume-"));
    const journal = join(work, "j.journal");
    const args = [
      join(root, "bin", "ckpt.js"),
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      pgUri(s),
      "--batch-size",
      "20",
      "--journal",
      journal,
      "-q",
    ];
    const child = spawn(process.execPath, args, { cwd: work, stdio: "ignore" });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        const lines = existsSync(journal) ? readFileSync(journal, "utf8").split("\n").length : 0;
        if (lines > 200 || child.exitCode !== null) {
          clearInterval(t);
          child.kill("SIGKILL");
          resolve();
        }
      }, 5);
    });
    await new Promise((r) => child.once("exit", r));
    const partial = Number((await pgdb.query(`SELECT count(*) AS n FROM ${s}.checkpoints`)).rows[0].n);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(2400);
    const again = await ckpt(
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      pgUri(s),
      "--batch-size",
      "20",
      "--journal",
      journal,
      "--resume",
      "-q",
    );
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toMatch(/done before the interruption/);
    const back = join(work, "back.sqlite");
    expect((await ckpt("migrate", "--from", pgUri(s), "--to", `sqlite:${back}`, "-q")).code).toBe(0);
    const a = readSqliteStore(src);
    const b = readSqliteStore(back);
    expect(b.size).toBe(2400);
    for (const [k, x] of a) {
      const y = b.get(k)!;
      expect(canon([y.parent, y.checkpoint, y.metadata, y.writes]), k).toBe(
        canon([x.parent, x.checkpoint, x.metadata, x.writes]),
      );
    }
  }, 180_000); // three migrations of 2,400 checkpoints in batches of 20: over the 60 s default when the machine is loaded
});

describe("a PostgreSQL target that already holds rows (COPY falls back to the upsert; read-back compares decoded values)", () => {
  const counts = async (s: string) =>
    (
      await pgdb.query(
        `SELECT (SELECT count(*)::int FROM ${s}.checkpoints) AS c, (SELECT count(*)::int FROM ${s}.checkpoint_blobs) AS b, (SELECT count(*)::int FROM ${s}.checkpoint_writes) AS w`,
      )
    ).rows[0];

  it("a second run finds every checkpoint identical; checkpoints deleted from the target come back (their blobs and writes exist: COPY gives way to the upsert), all verified", async () => {
    const src = copyOf("python-a.sqlite");
    const s = schema("again");
    const first = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
    expect(first.code, first.out + first.err).toBe(0);
    expect(first.out).toMatch(/read 60, written 60, skipped 0, rejected 0, verified 60/);
    const full = await counts(s);
    const second = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
    expect(second.code, second.out + second.err).toBe(0);
    expect(second.out).toMatch(/read 60, written 0, skipped 60 \(60 identical\)/);
    // the newest checkpoint of every thread goes; the blob and write rows they share or own stay behind
    const gone = await pgdb.query(
      `DELETE FROM ${s}.checkpoints c WHERE checkpoint_id = (SELECT max(checkpoint_id) FROM ${s}.checkpoints x WHERE x.thread_id = c.thread_id AND x.checkpoint_ns = c.checkpoint_ns)`,
    );
    expect(gone.rowCount).toBeGreaterThan(3);
    const third = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
    expect(third.code, third.out + third.err).toBe(0);
    expect(third.out).toMatch(
      new RegExp(
        `read 60, written ${gone.rowCount}, skipped ${60 - gone.rowCount!} \\(${60 - gone.rowCount!} identical\\), rejected 0, verified ${gone.rowCount}\n`,
      ),
    );
    expect(await counts(s)).toEqual(full);
  });

  it("a target row that differs is a conflict (exit 5, nothing written); --on-conflict overwrite rewrites it and verifies", async () => {
    const src = copyOf("python-a.sqlite");
    const s = schema("conflict");
    expect((await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q")).code).toBe(0);
    // one messages blob gets different bytes (msgpack of an empty list): decoded, it differs
    const b = (
      await pgdb.query(
        `SELECT thread_id, version, blob FROM ${s}.checkpoint_blobs WHERE channel = 'messages' AND type = 'msgpack' ORDER BY thread_id, version LIMIT 1`,
      )
    ).rows[0];
    await pgdb.query(
      `UPDATE ${s}.checkpoint_blobs SET blob = '\\x90'::bytea WHERE thread_id = $1 AND channel = 'messages' AND version = $2`,
      [b.thread_id, b.version],
    );
    const before = await counts(s);
    const r = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "-q");
    expect(r.code, r.out + r.err).not.toBe(0);
    expect(r.out + r.err).toMatch(/conflict/);
    expect(await counts(s)).toEqual(before);
    const over = await ckpt("migrate", "--from", `sqlite:${src}`, "--to", pgUri(s), "--on-conflict", "overwrite", "-q");
    expect(over.code, over.out + over.err).toBe(0);
    expect(over.out).toMatch(/read 60, written 60, skipped 0, rejected 0, verified 60\n/);
    const fixed = (
      await pgdb.query(
        `SELECT blob FROM ${s}.checkpoint_blobs WHERE thread_id = $1 AND channel = 'messages' AND version = $2`,
        [b.thread_id, b.version],
      )
    ).rows[0].blob;
    expect(Buffer.compare(fixed, b.blob)).toBe(0);
  });
});
