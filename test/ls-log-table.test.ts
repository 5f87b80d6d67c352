/**
 * `ckpt ls` and `ckpt log` tables on LangGraph stores: columns stay aligned with UUID thread ids and long node
 * names, every time is printed in one format (ISO 8601, UTC, milliseconds) whichever library wrote it, and `log`
 * explains its `!` in a legend. The store with UUID threads and a long node name is written by the real JS library
 * (@langchain/langgraph on @langchain/langgraph-checkpoint-sqlite's SqliteSaver).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Annotation, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { runCli } from "./helpers/cli-io.js";

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ckpt-table-"));
const store = join(dir, "uuid.sqlite");
const LONG = "propose_a_refund_to_the_customer_service_team_for_review";
const threads = [randomUUID(), "t1", randomUUID()];

beforeAll(async () => {
  const State = Annotation.Root({ note: Annotation<string>({ reducer: (_a, b) => b, default: () => "" }) });
  const graph = new StateGraph(State)
    .addNode(LONG, (s) => ({ note: `${s.note} proposed` }))
    .addNode("approve", (s) => ({ note: `${s.note} ${String(interrupt({ question: "Approve?" }))}` }))
    .addEdge(START, LONG)
    .addEdge(LONG, "approve")
    .addEdge("approve", END);
  const saver = SqliteSaver.fromConnString(store);
  const app = graph.compile({ checkpointer: saver });
  for (const id of threads) await app.invoke({ note: id }, { configurable: { thread_id: id } }); // left at the interrupt
  saver.db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every row's cells start (left-aligned columns) or end (right-aligned ones) where the header's names do. */
function expectAligned(table: string[], right: Set<number>): void {
  const head = table[0]!;
  const cols = [...head.matchAll(/\S+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
  for (const row of table.slice(1)) {
    cols.forEach((c, i) => {
      if (right.has(i)) {
        expect(row[c.end - 1], `${row}\ncolumn ${i} ends at ${c.end}`).not.toBe(" ");
        expect(row[c.end] ?? " ", `${row}\ncolumn ${i} ends at ${c.end}`).toBe(" ");
      } else {
        expect(row[c.start], `${row}\ncolumn ${i} starts at ${c.start}`).not.toBe(" ");
        if (c.start > 0) expect(row[c.start - 1], `${row}\ncolumn ${i} starts at ${c.start}`).toBe(" ");
      }
    });
  }
}

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("ckpt ls of a LangGraph store", () => {
  it("UUID thread ids: the columns stay aligned", async () => {
    const r = await runCli(["ls", store]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const table = lines.slice(0, threads.length + 1);
    expect(table[0]).toMatch(/^THREAD\s+CHECKPOINTS\s+STEP\s+MESSAGES\s+SIZE\s+UPDATED/);
    // THREAD, CHECKPOINTS (right), STEP (right), MESSAGES (right), SIZE (right: "<n> B" is two words), …
    expect(
      table
        .slice(1)
        .map((l) => l.split(/\s+/)[0])
        .sort(),
    ).toEqual([...threads].sort());
    expectAligned(table, new Set([1, 2, 3, 4]));
  });

  it("one time format for Python and JS stores", async () => {
    for (const file of ["python-a.sqlite", "js-a.sqlite"]) {
      const r = await runCli(["ls", join(root, "fixtures/langgraph", file)]);
      const rows = r.out.trimEnd().split("\n").slice(1, -1);
      expect(rows.length, file).toBe(8);
      for (const row of rows) expect(row.match(/\S+T\S+/)?.[0], `${file}: ${row}`).toMatch(ISO_MS);
    }
  });
});

describe("ckpt log of a LangGraph thread", () => {
  it("a long node name: the columns stay aligned; the time in one format; the ! explained", async () => {
    const r = await runCli(["log", `${store}#${threads[0]}`]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const head = lines[0]!;
    expect(head).toMatch(/^CHECKPOINT\s+PARENT\s+STEP\s+SOURCE\s+TIME\s+NODE\s+MESSAGES\s+SIZE\s+PENDING$/);
    const rows = lines.slice(1).filter((l) => /^[0-9a-f]{8}-/.test(l));
    expect(rows.length).toBe(3); // input, __start__, the long-named node (then the interrupt)
    expect(rows.some((l) => l.includes(LONG))).toBe(true);
    // CHECKPOINT PARENT STEP(r) SOURCE TIME NODE MESSAGES(r) SIZE(r, "<n> B") PENDING
    expectAligned([head, ...rows], new Set([2, 6, 7]));
    const time = head.indexOf("TIME");
    for (const row of rows) expect(row.slice(time).split(" ")[0]).toMatch(ISO_MS);
    // the newest checkpoint holds the interrupt: its PENDING cell carries the mark, and a legend says what it means
    expect(rows[0]).toMatch(/\d+ !$/);
    expect(lines.find((l) => l.startsWith("!"))).toMatch(/^! .*interrupt/);
  });

  it("no legend when no checkpoint carries an interrupt; Python times in the same format as JS", async () => {
    const r = await runCli(["log", `${join(root, "fixtures/langgraph/python-a.sqlite")}#a-chat-1`]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines.some((l) => l.startsWith("!"))).toBe(false);
    const time = lines[0]!.indexOf("TIME");
    for (const row of lines.slice(1, -1)) expect(row.slice(time).split(" ")[0]).toMatch(ISO_MS);
  });
});
