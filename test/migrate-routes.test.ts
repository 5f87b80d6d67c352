/**
 * `ckpt migrate` picks its engine from the stores it opens (savers/index.ts decides each one's layout): ckpt's own
 * stores and folders to documents, a LangGraph history to a LangGraph store, documents into a LangGraph store. Every
 * option either works on a route or is refused there with exit 2 and the reason, before anything is written: no
 * target created, no journal left, an existing target unchanged.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { cliIO } from "./helpers/cli-io.js";

const root = join(import.meta.dirname, "..");
const lgFixture = join(root, "fixtures", "langgraph", "python-a.sqlite");
const jsFixture = join(root, "fixtures", "langgraph", "js-a.sqlite");
const docs = join(root, "fixtures", "savers", "deepagent-filesaver");
const run = `${process.pid}_${Date.now().toString(36)}`;
const PG = "postgres://postgres@127.0.0.1:5432/test";

function work(): { dir: string; journal: string } {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-routes-"));
  return { dir, journal: join(dir, "run.journal") };
}

function copy(file: string, dir: string): string {
  const p = join(dir, file.split("/").pop()!);
  copyFileSync(file, p);
  return p;
}

async function ckpt(argv: string[], cwd: string) {
  const io = cliIO({ cwd });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const pgClient = async () => {
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  return c;
};
const schemas: string[] = [];
afterAll(async () => {
  const c = await pgClient();
  for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await c.end();
});

describe("options a LangGraph target cannot honour are refused (exit 2) before anything is written", () => {
  const refusals: Array<{ name: string; from: "lg" | "docs"; extra: string[]; why: RegExp }> = [
    {
      name: "--jobs 4, a LangGraph history",
      from: "lg",
      extra: ["--jobs", "4"],
      why: /--jobs 4: a LangGraph target .* takes one writer/,
    },
    {
      name: "--jobs 2, documents into LangGraph",
      from: "docs",
      extra: ["--jobs", "2"],
      why: /--jobs 2: a LangGraph target/,
    },
    {
      name: "--to-namespace",
      from: "docs",
      extra: ["--to-namespace", "x"],
      why: /--to-namespace x: a LangGraph target .* has no namespaces/,
    },
    {
      name: "--namespace of a LangGraph source",
      from: "lg",
      extra: ["--namespace", "x"],
      why: /--namespace x: a LangGraph source has no namespaces/,
    },
    {
      name: "--to-format other than langgraph",
      from: "lg",
      extra: ["--to-format", "yoagent"],
      why: /--to-format yoagent: a LangGraph target .* holds langgraph checkpoints only/,
    },
  ];
  for (const r of refusals) {
    it(`${r.name}: into a SQLite file that does not exist yet`, async () => {
      const w = work();
      const target = join(w.dir, "out.sqlite");
      const from = r.from === "lg" ? `sqlite:${copy(lgFixture, w.dir)}` : `file:${docs}`;
      const toFormat = r.from === "docs" && !r.extra.includes("--to-format") ? ["--to-format", "langgraph"] : [];
      const got = await ckpt(
        ["migrate", "--from", from, "--to", `sqlite:${target}`, ...toFormat, ...r.extra, "--journal", w.journal, "-q"],
        w.dir,
      );
      expect(got.code, got.err).toBe(2);
      expect(got.err).toMatch(r.why);
      expect(got.err.trim().split("\n")).toHaveLength(1);
      expect(existsSync(target)).toBe(false);
      expect(existsSync(w.journal)).toBe(false);
    });
  }

  it("--jobs 3 into a PostgreSQL schema: refused before the schema is created", async () => {
    const w = work();
    const s = `ckpt_routes_${run}_a`;
    schemas.push(s);
    const got = await ckpt(
      [
        "migrate",
        "--from",
        `sqlite:${copy(lgFixture, w.dir)}`,
        "--to",
        `${PG}?schema=${s}`,
        "--jobs",
        "3",
        "--journal",
        w.journal,
        "-q",
      ],
      w.dir,
    );
    expect(got.code, got.err).toBe(2);
    expect(got.err).toMatch(/--jobs 3: a LangGraph target/);
    const c = await pgClient();
    const n = (await c.query("SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = $1", [s]))
      .rows[0].n;
    await c.end();
    expect(n).toBe(0);
  });

  it("--jobs 2 into a LangGraph store detected from its tables: refused, the store unchanged", async () => {
    const w = work();
    const target = copy(jsFixture, w.dir);
    const before = readFileSync(target);
    const got = await ckpt(
      ["migrate", "--from", `file:${docs}`, "--to", `sqlite:${target}`, "--jobs", "2", "--journal", w.journal, "-q"],
      w.dir,
    );
    expect(got.code, got.err).toBe(2);
    expect(got.err).toMatch(/--jobs 2: a LangGraph target/);
    expect(readFileSync(target).equals(before)).toBe(true);
    expect(existsSync(w.journal)).toBe(false);
  });
});

describe("options of ckpt's own stores' route that a LangGraph option names are refused there", () => {
  it("--thread between ckpt stores (a LangGraph route's filter): exit 2, nothing written", async () => {
    const w = work();
    const out = join(w.dir, "out");
    const got = await ckpt(
      ["migrate", "--from", `file:${docs}`, "--to", `file:${out}`, "--thread", "x", "--journal", w.journal, "-q"],
      w.dir,
    );
    expect(got.code, got.err).toBe(2);
    expect(got.err).toMatch(/--thread: picks threads of LangGraph routes/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(w.journal)).toBe(false);
  });

  it("--to-library into a store that holds ckpt's layout only: exit 2, nothing written", async () => {
    const w = work();
    const out = join(w.dir, "out");
    const got = await ckpt(
      ["migrate", "--from", `file:${docs}`, "--to", `file:${out}`, "--to-library", "js", "--journal", w.journal, "-q"],
      w.dir,
    );
    expect(got.code, got.err).toBe(2);
    expect(got.err).toMatch(/--to-library js: applies to LangGraph targets/);
    expect(existsSync(out)).toBe(false);
  });

  it("a LangGraph history into a folder: exit 2 before the folder is made", async () => {
    const w = work();
    const out = join(w.dir, "out");
    const got = await ckpt(
      ["migrate", "--from", `sqlite:${copy(lgFixture, w.dir)}`, "--to", `file:${out}`, "-q"],
      w.dir,
    );
    expect(got.code, got.err).toBe(2);
    expect(got.err).toMatch(/a LangGraph history goes to a LangGraph store/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("the options a route honours work there", () => {
  it("a LangGraph history with --jobs 1, --batch-size 1 and --thread: only that thread, verified", async () => {
    const w = work();
    const target = join(w.dir, "out.sqlite");
    const src = copy(lgFixture, w.dir);
    const threads = (await ckpt(["ls", `sqlite:${src}`, "--json"], w.dir)).out;
    const ids = (JSON.parse(threads) as Array<{ threadId: string; checkpoints: number }>).map((t) => t);
    expect(ids.length).toBeGreaterThan(1);
    const one = ids[0]!;
    const got = await ckpt(
      [
        "migrate",
        "--from",
        `sqlite:${src}`,
        "--to",
        `sqlite:${target}`,
        "--jobs",
        "1",
        "--batch-size",
        "1",
        "--thread",
        one.threadId,
        "--json",
      ],
      w.dir,
    );
    expect(got.code, got.err).toBe(0);
    const summary = JSON.parse(got.out.trim().split("\n").pop()!) as { written: number; verified: number };
    const back = JSON.parse((await ckpt(["ls", `sqlite:${target}`, "--json"], w.dir)).out) as Array<{
      threadId: string;
      checkpoints: number;
    }>;
    expect(back.map((t) => t.threadId)).toEqual([one.threadId]);
    expect(summary.written).toBeGreaterThanOrEqual(one.checkpoints);
    expect(summary.verified).toBe(summary.written);
  });

  it("documents into LangGraph with --namespace and --thread: the thread picked, the rest left", async () => {
    const w = work();
    const target = join(w.dir, "out.sqlite");
    const names = readdirSync(docs).filter((f) => f.endsWith(".json"));
    expect(names.length).toBeGreaterThan(1);
    const all = await ckpt(["ls", `file:${docs}`, "--json"], w.dir);
    const first = (JSON.parse(all.out) as Array<{ threadId: string }>)[0]!.threadId;
    const got = await ckpt(
      [
        "migrate",
        "--from",
        `file:${docs}`,
        "--to",
        `sqlite:${target}`,
        "--to-format",
        "langgraph",
        "--namespace",
        "default",
        "--thread",
        first,
        "--allow-lossy",
        "-q",
      ],
      w.dir,
    );
    expect(got.code, got.err).toBe(0);
    const back = JSON.parse((await ckpt(["ls", `sqlite:${target}`, "--json"], w.dir)).out) as Array<{
      threadId: string;
    }>;
    expect(back.map((t) => t.threadId)).toEqual([first]);
  });
});
