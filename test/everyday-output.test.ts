/**
 * The everyday output a user reads (issue #38 items 9–11): one time format in every table and header (ISO 8601, UTC,
 * milliseconds, as the README promises), columns aligned by display width (CJK and emoji ids and titles), and counts
 * that say what they count. The LangGraph store is fixtures/langgraph/python-c.sqlite, written by the Python library
 * (its timestamps are `2026-11-28T12:33:29.483542+00:00`, microseconds and an offset).
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");
const dir = mkdtempSync(join(tmpdir(), "ckpt-everyday-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lgStore = join(dir, "python-c.sqlite");
copyFileSync(join(FIX, "python-c.sqlite"), lgStore);

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
  const want = () => iso(rawTs(lgStore, thread));

  it("the fixture stores Python's own format (microseconds, +00:00), not ckpt's", () => {
    expect(rawTs(lgStore, thread)).toMatch(/\.\d{6}\+00:00$/);
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
        .endsWith(iso(rawTs(lgStore, thread, null))),
    ).toBe(true);
  });
});
