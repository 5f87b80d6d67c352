/**
 * `ckpt stats`: every figure checked against an independent computation, never against ckpt's own output — SQL sums
 * over the tables (sum(length(…)), dbstat, octet_length, pg_total_relation_size), messages counted by LangGraph JS's
 * own serde (JsonPlusSerializer) for JS stores and by the test's independent msgpack decoder for Python stores,
 * repeated messages recomputed from JSON.parse'd values. The store's bytes are unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import pg from "pg";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { main } from "../src/cli/main.js";
import { cliIO } from "./helpers/cli-io.js";
import { canon, unpack, type Ext } from "./helpers/lg-independent.js";
import type { LangGraphStatsReport, SaverStatsReport } from "../src/generated/types.js";
import { validators } from "../src/generated/validators.js";

const root = join(import.meta.dirname, "..");
const fx = join(root, "fixtures", "langgraph");
const PG = "postgres://postgres@127.0.0.1:5432/test";
const run = randomBytes(4).toString("hex");
const schemas: string[] = [];
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: PG });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG} (${(e as Error).message}): start it with 'pg_ctlcluster 15 main start'`,
    );
  }
});
afterAll(async () => {
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

async function ckpt(...argv: string[]) {
  const io = cliIO({ cwd: tmpdir() });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}
async function statsJson<T = LangGraphStatsReport>(...argv: string[]): Promise<T> {
  const r = await ckpt("stats", ...argv, "--json");
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out);
  const validate = (validators as unknown as Record<string, (v: unknown) => boolean>).StatsReport;
  if (validate) expect(validate(report)).toBe(true);
  return report as T;
}
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgstats-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};
const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
const part = (r: LangGraphStatsReport, p: string) => r.parts.find((x) => x.part === p)!;

/** Python ext 5 message → class; JS lc:1 record → class. */
const pyClass = (v: unknown): string | undefined => {
  const e = v as Ext;
  if (e && typeof e === "object" && "ext" in e && (e.ext === 5 || e.ext === 4)) {
    const p = e.payload as unknown[];
    if (typeof p[0] === "string" && p[0].startsWith("langchain_core.messages")) return p[1] as string;
  }
  return undefined;
};

interface Expected {
  classes: Map<string, number>;
  copies: number;
  copyBytes?: number;
}

/** Messages of every list value (checkpoint channel values, then writes), per thread: counts per class and copies. */
async function expectedSqlite(file: string, serde: "json" | "msgpack"): Promise<Expected> {
  const db = new Database(file, { readonly: true });
  const js = new JsonPlusSerializer();
  const classes = new Map<string, number>();
  let copies = 0;
  let copyBytes = 0;
  const threads = db.prepare("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id").pluck().all() as string[];
  for (const t of threads) {
    const seen = new Set<string>();
    const visit = async (list: unknown, raw: unknown[] | undefined) => {
      if (!Array.isArray(list)) return;
      for (let i = 0; i < list.length; i++) {
        const v = list[i];
        const cls =
          serde === "json"
            ? ((v && typeof v === "object" && (v as { lc?: number }).lc === 1
                ? (await js.loadsTyped("json", JSON.stringify(v)))?.constructor?.name
                : undefined) as string | undefined)
            : pyClass(v);
        if (!cls || !/Message/.test(cls)) continue;
        classes.set(cls, (classes.get(cls) ?? 0) + 1);
        const key = serde === "json" ? JSON.stringify(raw![i]) : canon(v);
        if (seen.has(key)) {
          copies++;
          if (serde === "json") copyBytes += Buffer.byteLength(key);
        } else seen.add(key);
      }
    };
    for (const r of db
      .prepare("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id")
      .all(t) as Array<{ type: string; checkpoint: Buffer }>) {
      const cp = (serde === "json" ? JSON.parse(r.checkpoint.toString("utf8")) : unpack(r.checkpoint)) as {
        channel_values: Record<string, unknown>;
      };
      for (const v of Object.values(cp.channel_values)) await visit(v, Array.isArray(v) ? v : undefined);
    }
    for (const r of db
      .prepare("SELECT type, value FROM writes WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id, task_id, idx")
      .all(t) as Array<{ type: string; value: Buffer }>) {
      if (r.type === "json") {
        const v = JSON.parse(r.value.toString("utf8"));
        await visit(v, Array.isArray(v) ? v : undefined);
      } else if (r.type === "msgpack") await visit(unpack(r.value), undefined);
    }
  }
  db.close();
  return { classes, copies, ...(serde === "json" ? { copyBytes } : {}) };
}

describe("stats of LangGraph SQLite stores", () => {
  for (const [sample, serde] of [
    ["js-a.sqlite", "json"],
    ["python-a.sqlite", "msgpack"],
    ["python-v4-chat.sqlite", "msgpack"],
  ] as const) {
    it(`${sample}: tables, parts, message classes and copies agree with SQL and the library's serde; the file is unchanged`, async () => {
      const f = copyOf(sample);
      const before = sha(f);
      const r = await statsJson(f);
      expect(sha(f)).toBe(before);
      expect(existsSync(f + "-wal")).toBe(false); // no side files left by the read-only open
      const db = new Database(f, { readonly: true });
      const q = (sql: string) => db.prepare(sql).pluck().get() as number;
      expect(r.store).toBe("sqlite");
      expect(r.library).toBe(serde === "json" ? "js" : "python");
      expect(part(r, "checkpoints")).toEqual({
        part: "checkpoints",
        rows: q("SELECT count(*) FROM checkpoints"),
        bytes: q("SELECT sum(length(checkpoint)) FROM checkpoints"),
      });
      expect(part(r, "metadata").bytes).toBe(q("SELECT sum(length(metadata)) FROM checkpoints"));
      expect(part(r, "writes")).toEqual({
        part: "writes",
        rows: q("SELECT count(*) FROM writes"),
        bytes: q("SELECT coalesce(sum(length(value)), 0) FROM writes"),
      });
      expect(r.totals.threads).toBe(q("SELECT count(DISTINCT thread_id) FROM checkpoints"));
      expect(r.storedMethod).toBe("dbstat");
      const pages = (t: string) =>
        q(`SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = '${t}')`);
      expect(r.tables).toEqual([
        { table: "checkpoints", rows: q("SELECT count(*) FROM checkpoints"), storedBytes: pages("checkpoints") },
        { table: "writes", rows: q("SELECT count(*) FROM writes"), storedBytes: pages("writes") },
      ]);
      // the top thread and its bytes, by SQL
      const topSql = db
        .prepare(`SELECT t, sum(b) AS b FROM (SELECT thread_id AS t, length(checkpoint) + length(metadata) AS b FROM checkpoints
        UNION ALL SELECT thread_id, coalesce(length(value), 0) FROM writes) GROUP BY t ORDER BY b DESC, t LIMIT 3`)
        .all() as Array<{ t: string; b: number }>;
      expect(r.topThreads.slice(0, 3).map((t) => [t.threadId, t.bytes])).toEqual(topSql.map((x) => [x.t, x.b]));
      expect(r.days.reduce((n, d) => n + d.bytes, 0)).toBe(r.totals.payloadBytes);
      expect(r.days.reduce((n, d) => n + d.checkpoints, 0)).toBe(r.totals.checkpoints);
      // the messages channel's bytes inside checkpoints: every checkpoint's messages value, measured independently
      if (serde === "json") {
        let inCp = 0;
        for (const b of db.prepare("SELECT checkpoint FROM checkpoints").pluck().all() as Buffer[]) {
          const v = JSON.parse(b.toString("utf8")).channel_values.messages;
          if (v !== undefined) inCp += Buffer.byteLength(JSON.stringify(v));
        }
        expect(r.channels.find((c) => c.channel === "messages")!.checkpointBytes).toBe(inCp);
      }
      db.close();
      const exp = await expectedSqlite(f, serde);
      expect(Object.fromEntries(r.messageClasses.map((c) => [c.class, c.count]))).toEqual(
        Object.fromEntries(exp.classes),
      );
      expect(r.repeated.copies).toBe(exp.copies);
      if (exp.copyBytes !== undefined) expect(r.repeated.copyBytes).toBe(exp.copyBytes);
      expect(r.repeated.share).toBeCloseTo(r.repeated.copyBytes / r.repeated.messageBytes, 10);
      expect(r.summary).toMatch(/of message bytes .* are copies of messages stored earlier in the same thread/);
    });
  }

  it("--thread and --match measure only those threads (SQL sums of those threads); --top bounds the lists", async () => {
    const f = copyOf("js-a.sqlite");
    const db = new Database(f, { readonly: true });
    const bytesOf = (ts: string[]) =>
      (db
        .prepare(
          `SELECT sum(length(checkpoint) + length(metadata)) FROM checkpoints WHERE thread_id IN (${ts.map(() => "?").join(",")})`,
        )
        .pluck()
        .get(...ts) as number) +
      ((db
        .prepare(
          `SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id IN (${ts.map(() => "?").join(",")})`,
        )
        .pluck()
        .get(...ts) as number) ?? 0);
    const one = await statsJson(f, "--thread", "a-chat-1");
    expect(one.totals.threads).toBe(1);
    expect(one.totals.payloadBytes).toBe(bytesOf(["a-chat-1"]));
    expect(one.filter).toEqual({ threads: ["a-chat-1"], match: [] });
    const glob = await statsJson(f, "--match", "a-hitl-*", "--top", "1");
    expect(glob.totals.threads).toBe(2);
    expect(glob.totals.payloadBytes).toBe(bytesOf(["a-hitl-1", "a-hitl-2"]));
    expect(glob.topThreads).toHaveLength(1);
    db.close();
  });

  it("text: the summary line first, the sections after; bad input is one line with its exit code", async () => {
    const f = copyOf("python-a.sqlite");
    const r = await ckpt("stats", f);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[0]).toMatch(
      /^\d.* on disk, .* of payload in 8 threads \(60 checkpoints\); \d+% is checkpoint rows; \d+% of message bytes/,
    );
    for (const h of ["CHANNEL", "MESSAGE CLASS", "TOP THREADS", "GROWTH (UTC DAY)"]) expect(r.out).toContain(h);
    expect(r.out.split("\n").length).toBeLessThan(60);
    const missing = await ckpt("stats", join(tmpdir(), `nope-${run}.sqlite`));
    expect(missing.code).toBe(3);
    expect(missing.err.trim().split("\n")).toHaveLength(1);
    expect((await ckpt("stats", f, "--top", "0")).code).toBe(2);
  });
});

describe("stats of LangGraph PostgreSQL stores", () => {
  const restore = (file: string, s: string) => {
    schemas.push(s);
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
      input: readFileSync(join(fx, file), "utf8").replaceAll("__SCHEMA__", s),
      stdio: ["pipe", "ignore", "inherit"],
    });
  };
  const digest = async (s: string) => {
    const h = createHash("sha256");
    for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"])
      for (const r of (await client.query(`SELECT t::text AS r FROM "${s}".${t} t ORDER BY 1`)).rows)
        h.update(r.r + "\n");
    return h.digest("hex");
  };
  for (const [dump, serde] of [
    ["js-a.pg.sql", "json"],
    ["python-a.pg.sql", "msgpack"],
  ] as const) {
    it(`${dump}: relation sizes, payload sums and message classes agree with SQL and the serde; tables unchanged`, async () => {
      const s = `lgstats_${run}_${serde}`;
      restore(dump, s);
      const before = await digest(s);
      const r = await statsJson(`${PG}?schema=${s}`);
      const one = async (sql: string) => Number((await client.query(sql)).rows[0].v);
      expect(r.store).toBe("postgres");
      expect(r.storedMethod).toBe("pg_total_relation_size");
      for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
        expect(r.tables.find((x) => x.table === t)).toEqual({
          table: t,
          rows: await one(`SELECT count(*) AS v FROM "${s}".${t}`),
          storedBytes: await one(`SELECT pg_total_relation_size('"${s}".${t}') AS v`),
        });
      }
      expect(part(r, "blobs").bytes).toBe(
        await one(`SELECT coalesce(sum(octet_length(blob)), 0) AS v FROM "${s}".checkpoint_blobs`),
      );
      expect(part(r, "writes").bytes).toBe(
        await one(`SELECT sum(octet_length(blob)) AS v FROM "${s}".checkpoint_writes`),
      );
      expect(part(r, "checkpoints").bytes).toBe(
        await one(`SELECT sum(octet_length(checkpoint::text)) AS v FROM "${s}".checkpoints`),
      );
      // messages: every blob and write decoded by the library's serde (JS) / the independent decoder (Python)
      const js = new JsonPlusSerializer();
      const classes = new Map<string, number>();
      const rows = (
        await client.query(
          `SELECT type, blob FROM "${s}".checkpoint_blobs UNION ALL SELECT type, blob FROM "${s}".checkpoint_writes`,
        )
      ).rows as Array<{ type: string; blob: Buffer | null }>;
      for (const row of rows) {
        if (!row.blob || (row.type !== "json" && row.type !== "msgpack")) continue;
        const v = row.type === "json" ? await js.loadsTyped("json", row.blob.toString("utf8")) : unpack(row.blob);
        if (!Array.isArray(v)) continue;
        for (const m of v) {
          const cls = row.type === "json" ? (m?.constructor?.name as string) : pyClass(m);
          if (cls && /Message$/.test(cls)) classes.set(cls, (classes.get(cls) ?? 0) + 1);
        }
      }
      expect(Object.fromEntries(r.messageClasses.map((c) => [c.class, c.count]))).toEqual(Object.fromEntries(classes));
      expect(r.library).toBe(serde === "json" ? "js" : "python");
      expect(r.days.reduce((n, d) => n + d.bytes, 0)).toBe(r.totals.payloadBytes);
      // one thread: its rows of the three tables, by SQL
      const one1 = await statsJson(`${PG}?schema=${s}`, "--thread", "a-chat-1");
      const threadBytes =
        await one(`SELECT (SELECT sum(octet_length(checkpoint::text) + octet_length(metadata::text)) FROM "${s}".checkpoints WHERE thread_id = 'a-chat-1')
        + (SELECT coalesce(sum(octet_length(blob)), 0) FROM "${s}".checkpoint_blobs WHERE thread_id = 'a-chat-1')
        + (SELECT coalesce(sum(octet_length(blob)), 0) FROM "${s}".checkpoint_writes WHERE thread_id = 'a-chat-1') AS v`);
      expect([one1.totals.threads, one1.totals.payloadBytes]).toEqual([1, threadBytes]);
      expect(await digest(s)).toBe(before);
    });
  }
});

describe("stats of ckpt's own savers", () => {
  it("a file store: bytes per format and thread are the files' sizes", async () => {
    const dir = join(root, "fixtures", "savers", "deepagent-filesaver");
    const r = await statsJson<SaverStatsReport>(`file:${dir}`);
    expect(r.kind).toBe("ckpt");
    const { readdirSync, statSync } = await import("node:fs");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(r.totals.threads).toBe(files.length);
    expect(r.totals.bytes).toBe(files.reduce((n, f) => n + statSync(join(dir, f)).size, 0));
    expect(r.formats.map((f) => f.format)).toEqual(["deepagent"]);
    const biggest = files.map((f) => statSync(join(dir, f)).size).sort((a, b) => b - a)[0];
    expect(r.topThreads[0]!.bytes).toBe(biggest);
    expect(r.totals.messages).toBe(
      files.reduce((n, f) => n + (JSON.parse(readFileSync(join(dir, f), "utf8")).messages?.length ?? 0), 0),
    );
  });
});
