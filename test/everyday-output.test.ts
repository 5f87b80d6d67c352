/**
 * The everyday output a user reads (issue #38 items 9–11): one time format in every table and header (ISO 8601, UTC,
 * milliseconds, as the README promises), columns aligned by display width (CJK and emoji ids and titles), and counts
 * that say what they count. The LangGraph store is fixtures/langgraph/python-c.sqlite, written by the Python library
 * (its timestamps are `2026-11-28T12:33:29.483542+00:00`, microseconds and an offset).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { type MastraThreadBack, writeMastra } from "./helpers/mastra.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");
const dir = mkdtempSync(join(tmpdir(), "ckpt-everyday-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lgStore = join(dir, "python-c.sqlite");
copyFileSync(join(FIX, "python-c.sqlite"), lgStore);
// the test's own SQL reads go to a copy of their own (a plain read-only connection leaves -wal/-shm files beside it)
const rawStore = join(dir, "raw", "python-c.sqlite");
mkdirSync(join(dir, "raw"));
copyFileSync(join(FIX, "python-c.sqlite"), rawStore);

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The newest checkpoint's `ts` of a thread's namespace (of any namespace: null), as the Python library stored it. */
function rawTs(file: string, thread: string, ns: string | null = ""): string {
  const db = new Database(file, { readonly: true });
  try {
    const ids = db
      .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND (? IS NULL OR checkpoint_ns = ?)")
      .pluck()
      .all(thread, ns, ns) as Buffer[];
    const ts = ids.map((b) => b.toString("latin1").match(/\d{4}-\d\d-\d\dT[\d:.]+\+00:00/)![0]);
    return ts.sort().at(-1)!;
  } finally {
    db.close();
  }
}

/** The cells of a table's column `name` (split on two or more spaces; a header row first). */
function column(lines: string[], name: string): string[] {
  const head = lines[0]!.split(/\s{2,}/);
  const i = head.indexOf(name);
  expect(i, lines[0]).toBeGreaterThanOrEqual(0);
  return lines.slice(1).map((l) => l.trim().split(/\s{2,}/)[i]!);
}

describe("item 9: one time format (ISO 8601 UTC with milliseconds) in every table and header", () => {
  const thread = "c-subhitl-1";
  const iso = (raw: string) => new Date(Date.parse(raw)).toISOString();
  const want = () => iso(rawTs(rawStore, thread));

  it("the fixture stores Python's own format (microseconds, +00:00), not ckpt's", () => {
    expect(rawTs(rawStore, thread)).toMatch(/\.\d{6}\+00:00$/);
  });

  it("ls <store>#<thread>: the namespaces' UPDATED column", async () => {
    const r = await runCli(["ls", `${lgStore}#${thread}`]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split("\n").slice(0, -1);
    const times = column(lines, "UPDATED");
    expect(times.length).toBe(3);
    for (const t of times) expect(t).toMatch(ISO_MS);
    expect(times[0]).toBe(want());
  });

  it("show: the header's `updated` time", async () => {
    const r = await runCli(["show", `${lgStore}#${thread}`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split("\n")[0]).toContain(`, updated ${want()}`);
  });

  it("stats: the top threads' LAST column", async () => {
    const r = await runCli(["stats", lgStore]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split("\n");
    const start = lines.findIndex((l) => l.startsWith("TOP THREADS"));
    const end = lines.indexOf("", start);
    const last = column(lines.slice(start, end), "LAST");
    expect(last.length).toBe(8);
    for (const t of last) expect(t).toMatch(ISO_MS);
    const rows = lines.slice(start + 1, end);
    expect(
      rows
        .find((l) => l.startsWith(`${thread} `))!
        .trimEnd()
        .endsWith(iso(rawTs(rawStore, thread, null))),
    ).toBe(true);
  });
});

/**
 * The terminal columns a line takes, one entry per column: the grapheme that starts there, or "" for the second
 * column of a wide one. Wide here is East Asian Wide/Fullwidth (CJK, kana, Hangul, fullwidth forms) and emoji —
 * Unicode's own ranges, written out independently of ckpt's string-width.
 */
function cells(line: string): string[] {
  const out: string[] = [];
  const wide =
    /\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60\uffe0-\uffe6]/u;
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(line)) {
    out.push(segment);
    if (wide.test(segment)) out.push("");
  }
  return out;
}

/** Every row's cells start (left-aligned columns) or end (right-aligned ones) in the header name's terminal column. */
function expectAligned(table: string[], right: Set<number>): void {
  const head = table[0]!;
  const cols = [...head.matchAll(/\S+( \S+)*/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
  for (const line of table.slice(1)) {
    const row = cells(line);
    cols.forEach((c, i) => {
      if (right.has(i)) {
        expect(row[c.end - 1], `${line}\ncolumn ${i} ends at ${c.end}`).not.toBe(" ");
        expect(row[c.end] ?? " ", `${line}\ncolumn ${i} ends at ${c.end}`).toBe(" ");
      } else {
        expect(row[c.start], `${line}\ncolumn ${i} starts at ${c.start}`).not.toMatch(/^ ?$/);
        if (c.start > 0) expect(row[c.start - 1], `${line}\ncolumn ${i} starts at ${c.start}`).toBe(" ");
      }
    });
  }
}

const WIDE_THREADS = ["会議メモ-1", "🚀launch", "t1", "한국어-대화"];
const jsStore = join(dir, "wide.sqlite");
const mastraDb = join(dir, "mastra.db");
let mastra: MastraThreadBack[] = [];

beforeAll(async () => {
  const State = Annotation.Root({ note: Annotation<string>({ reducer: (_a, b) => b, default: () => "" }) });
  const graph = new StateGraph(State)
    .addNode("step", (s) => ({ note: `${s.note} done` }))
    .addEdge(START, "step")
    .addEdge("step", END);
  const saver = SqliteSaver.fromConnString(jsStore);
  const app = graph.compile({ checkpointer: saver });
  for (const id of WIDE_THREADS) await app.invoke({ note: id }, { configurable: { thread_id: id } });
  saver.db.close();
  mastra = await writeMastra(
    { kind: "libsql", file: mastraDb },
    {
      threads: [
        {
          id: "旅行-1",
          resource: "アリス",
          title: "東京の旅行計画 🗼",
          turns: [
            { user: "Weather in Tokyo and Kyoto?", tools: ["Tokyo", "Kyoto"] },
            { user: "ありがとう", answer: "どういたしまして" },
          ],
        },
        { id: "🚀-2", resource: "bob", title: "Launch 🚀🚀", turns: [{ user: "hi", answer: "hello" }] },
        { id: "plain-3", resource: "bob", title: "Plain", turns: [{ user: "hello", answer: "Hello." }] },
      ],
      workingMemory: {},
    },
  );
}, 180_000);

describe("item 10: columns stay aligned with CJK and emoji thread ids and titles (display width)", () => {
  it("the helper's own reading: a CJK character and an emoji take two columns", () => {
    expect(cells("会🚀a").length).toBe(5);
  });

  it("ls of a LangGraph store written by the JS library, CJK, Hangul and emoji thread ids", async () => {
    const r = await runCli(["ls", jsStore]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const table = lines.slice(0, -1);
    expect(table.length).toBe(1 + WIDE_THREADS.length);
    for (const t of WIDE_THREADS) expect(r.out).toContain(t);
    expectAligned(table, new Set([1, 2, 3, 4]));
  });

  it("stats of that store: the top threads table", async () => {
    const r = await runCli(["stats", jsStore]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split("\n");
    const start = lines.findIndex((l) => l.startsWith("TOP THREADS"));
    const table = lines.slice(start, lines.indexOf("", start));
    expect(table.length).toBe(1 + WIDE_THREADS.length);
    expectAligned(table, new Set([1, 2, 3, 4, 5, 6]));
  });

  it("ls and stats of a Mastra store written by the real packages: CJK and emoji ids, resources and titles", async () => {
    expect(mastra.map((t) => t.title).sort()).toEqual(["Launch 🚀🚀", "Plain", "東京の旅行計画 🗼"]);
    const ls = await runCli(["ls", `sqlite:${mastraDb}`]);
    expect(ls.code, ls.err).toBe(0);
    const lsTable = ls.out.trimEnd().split("\n").slice(0, -1);
    expect(lsTable.length).toBe(4);
    expectAligned(lsTable, new Set([3, 4]));
    const st = await runCli(["stats", `sqlite:${mastraDb}`]);
    expect(st.code, st.err).toBe(0);
    const lines = st.out.split("\n");
    for (const name of ["RESOURCE", "TOP THREADS"]) {
      const start = lines.findIndex((l) => l.startsWith(name));
      expect(start, st.out).toBeGreaterThan(0);
      const end = lines.indexOf("", start);
      // stats' tables: the first column left-aligned, the rest right-aligned
      expectAligned(lines.slice(start, end === -1 ? undefined : end), new Set([1, 2, 3, 4]));
    }
  });
});

describe("item 11: counts that say what they count", () => {
  const filesLine = (out: string) => out.split("\n").find((l) => l.startsWith("files "))!;

  it("stats lists a store's -wal only when it holds something: none beside the file, none listed", async () => {
    expect(existsSync(`${lgStore}-wal`)).toBe(false);
    const r = await runCli(["stats", lgStore]);
    expect(r.code, r.err).toBe(0);
    expect(filesLine(r.out)).toMatch(/^files\s+python-c\.sqlite \d/);
    expect(filesLine(r.out)).not.toContain("-wal");
    expect(existsSync(`${lgStore}-wal`)).toBe(false);
  });

  it("stats lists a -wal that holds committed transactions (a writer still open), with its size", async () => {
    const file = join(dir, "walled.sqlite");
    copyFileSync(jsStore, file);
    const writer = new Database(file);
    try {
      writer.pragma("journal_mode = WAL");
      writer.pragma("wal_autocheckpoint = 0");
      writer.exec("DELETE FROM checkpoints WHERE rowid = (SELECT min(rowid) FROM checkpoints)");
      const bytes = statSync(`${file}-wal`).size;
      expect(bytes).toBeGreaterThan(0);
      const r = await runCli(["stats", file]);
      expect(r.code, r.err).toBe(0);
      expect(filesLine(r.out)).toMatch(/ · walled\.sqlite-wal \d/);
      expect(filesLine(r.out)).not.toMatch(/-wal 0 B/);
    } finally {
      writer.close();
    }
  });

  it("validate says what it validated: a Mastra store's threads, a LangGraph store as one store, one thread", async () => {
    const m = await runCli(["validate", `sqlite:${mastraDb}`]);
    expect(m.code, m.out + m.err).toBe(0);
    expect(m.out.trimEnd().split("\n").at(-1)).toBe(
      `${mastra.length} threads, ${mastra.length} valid, 0 invalid: 0 errors, 0 warnings`,
    );
    const lg = await runCli(["validate", jsStore]);
    expect(lg.code, lg.out + lg.err).toBe(0);
    expect(lg.out.trimEnd().split("\n").at(-1)).toMatch(/^1 store, 1 valid, 0 invalid: /);
    const one = await runCli(["validate", `sqlite:${mastraDb}#plain-3`]);
    expect(one.out.trimEnd().split("\n").at(-1)).toMatch(/^1 thread, 1 valid, 0 invalid: /);
    const gh = await runCli(["validate", `sqlite:${mastraDb}`, "--reporter", "github"]);
    expect(gh.out).toContain(`ckpt validate: ${mastra.length} threads, ${mastra.length} valid`);
  });

  it("Mastra ls counts Mastra's message rows and its header says ROWS; show counts the messages it prints", async () => {
    const t = mastra.find((x) => x.id === "旅行-1")!;
    const ls = await runCli(["ls", `sqlite:${mastraDb}`]);
    expect(ls.code, ls.err).toBe(0);
    const lines = ls.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^THREAD\s+RESOURCE\s+TITLE\s+ROWS\s+SIZE\s+UPDATED$/);
    const row = lines.find((l) => l.startsWith("旅行-1 "))!;
    // the rows Mastra's own recall answers for the thread
    expect(row).toMatch(new RegExp(`\\s${t.messages.length}\\s+\\d+ B\\s`));
    expect(lines.at(-1)).toContain("message rows");
    const show = await runCli(["show", `sqlite:${mastraDb}#旅行-1`]);
    expect(show.code, show.err).toBe(0);
    const printed = show.out.split("\n").filter((l) => /^#\d+ /.test(l)).length;
    expect(show.out.split("\n")[0]).toContain(`, ${printed} messages`);
    // two tool calls and their results: more messages than rows
    expect(printed).toBeGreaterThan(t.messages.length);
  });
});
