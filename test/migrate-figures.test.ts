/**
 * Issue #38 item 3: a migration's figures line — "N MB read in S s: R records/s, M MB/s" — counts what was read
 * from the source, and its rates are those figures over the run's time. Known inputs: a folder of two AI SDK chats
 * (their files' sizes), migrated into Mastra memory and into a LangGraph store, where "read" had been the size of
 * what each chat was converted to; and a Mastra store read as rows (the bytes of its message contents and working
 * memory, summed by SQLite).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { runCli } from "./helpers/cli-io.js";
import { writeMastra } from "./helpers/mastra.js";

const ROOT = join(import.meta.dirname, "..");
let work: string;
let docs: string;
let docBytes = 0;
const env = () => ({ XDG_STATE_HOME: join(work, "state") });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "ckpt-figures-"));
  docs = join(work, "docs");
  mkdirSync(docs);
  cpSync(join(ROOT, "fixtures/ai-sdk/valid/v5-tools.json"), join(docs, "small.json"));
  // 1.5 MB of user text, so that "MB read" is not 0.00
  const big = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "x".repeat(1_500_000) }] },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "ok" }] },
  ];
  writeFileSync(join(docs, "big.json"), JSON.stringify(big, null, 2));
  docBytes = ["small.json", "big.json"].reduce((n, f) => n + statSync(join(docs, f)).size, 0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Summary {
  exitCode: number;
  read: number;
  bytesRead: number;
  elapsedMs: number;
  recordsPerSecond: number;
  mbPerSecond: number;
}
const summaryOf = (out: string): Summary =>
  JSON.parse(
    out
      .trim()
      .split("\n")
      .find((l) => l.includes('"type":"summary"'))!,
  );

/** The rates are the figures over the run's time. */
function expectRates(s: Summary): void {
  const secs = s.elapsedMs / 1000;
  expect(s.recordsPerSecond).toBeCloseTo(s.read / secs, 6);
  expect(s.mbPerSecond).toBeCloseTo(s.bytesRead / 1e6 / secs, 6);
}

describe("the figures of a migration count what was read", () => {
  test.each([
    ["Mastra memory", "mastra"],
    ["a LangGraph store", "langgraph"],
    ["ckpt's own store, converted", "ckpt"],
  ])("documents into %s: bytes read are the files' sizes", async (_what, layout) => {
    const to = `sqlite:${join(work, `${layout}.sqlite`)}?layout=${layout}`;
    const extra = layout === "ckpt" ? ["--to-format", "ai-sdk@6"] : [];
    const r = await runCli(["migrate", "--from", `file:${docs}`, "--to", to, "--allow-lossy", "--json", ...extra], {
      env: env(),
    });
    const s = summaryOf(r.out);
    expect(s.exitCode, r.out + r.err).toBe(0);
    expect(s.read).toBe(2);
    expect(s.bytesRead).toBe(docBytes);
    expectRates(s);
    // and the line a user reads
    const text = await runCli(
      ["migrate", "--from", `file:${docs}`, "--to", `sqlite:${join(work, `${layout}-2.sqlite`)}?layout=${layout}`],
      { env: env() },
    );
    const line = /([\d.]+) MB read in ([\d.]+) s: ([\d,]+) records\/s, ([\d.]+) MB\/s/.exec(text.out);
    expect(line, text.out + text.err).not.toBeNull();
    expect(line![1]).toBe((docBytes / 1e6).toFixed(2));
    expect(Number(line![4])).toBeGreaterThan(0);
  });

  test("a Mastra store read as rows: its message contents and working memory, as SQLite sums them", async () => {
    const src = join(work, "mastra.db");
    await writeMastra({ kind: "libsql", file: src });
    const db = new Database(src, { readonly: true });
    const { bytes } = db
      .prepare(
        `SELECT (SELECT coalesce(sum(length(CAST(content AS BLOB))), 0) FROM mastra_messages)
              + (SELECT coalesce(sum(length(CAST(workingMemory AS BLOB))), 0) FROM mastra_resources) AS bytes`,
      )
      .get() as { bytes: number };
    const { records } = db
      .prepare("SELECT (SELECT count(*) FROM mastra_threads) + (SELECT count(*) FROM mastra_resources) AS records")
      .get() as { records: number };
    db.close();
    const r = await runCli(
      ["migrate", "--from", `sqlite:${src}`, "--to", `sqlite:${join(work, "mastra-out.db")}?layout=mastra`, "--json"],
      { env: env() },
    );
    const s = summaryOf(r.out);
    expect(s.exitCode, r.out + r.err).toBe(0);
    expect(s.read).toBe(records);
    expect(s.bytesRead).toBe(bytes);
    expectRates(s);
  }, 120_000);
});
