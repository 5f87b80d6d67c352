/**
 * The conformance report: every engine test records its outcome (layout, test, pass / skip with the capability /
 * FAIL / known gap) in a folder this global setup makes for the run; at the end of the run its teardown prints one
 * table, layout × test. Registered in vitest.config.ts (`globalSetup`); prints nothing when no engine test ran.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    conformanceDir: string;
  }
}

/** The tests of the engine suite, in the report's column order. */
export const TESTS = [
  "ls",
  "log",
  "show",
  "validate",
  "stats",
  "migrate out",
  "migrate in",
  "kill + resume",
  "conflicts",
  "prune",
  "delete",
  "copy",
  "refusals",
] as const;
export type TestName = (typeof TESTS)[number];

export interface Outcome {
  layout: string;
  /** where the layout comes in the report (its place in layouts.ts LAYOUTS) */
  order: number;
  test: TestName;
  /** "pass", "skip (no <cap>)", "FAIL", "gap: …" */
  result: string;
}

/** Record one outcome (from a test worker). */
export function record(dir: string, o: Outcome): void {
  appendFileSync(join(dir, `${process.pid}.ndjson`), `${JSON.stringify(o)}\n`);
}

/** The table, layout × test, of what was recorded (markdown), each known gap as a numbered note under it. */
export function table(outcomes: Outcome[]): string {
  const sorted = [...outcomes].sort((a, b) => a.order - b.order);
  const layouts = [...new Set(sorted.map((o) => o.layout))];
  const notes: string[] = [];
  const cell = (l: string, t: string) => {
    const r = sorted.find((o) => o.layout === l && o.test === t)?.result ?? "—";
    if (!r.startsWith("gap: ")) return r;
    const text = r.slice("gap: ".length);
    if (!notes.includes(text)) notes.push(text);
    return `gap ${notes.indexOf(text) + 1}`;
  };
  const lines = [`| layout | ${TESTS.join(" | ")} |`, `|---|${TESTS.map(() => "---").join("|")}|`];
  for (const l of layouts) lines.push(`| ${l} | ${TESTS.map((t) => cell(l, t)).join(" | ")} |`);
  const count = (p: (r: string) => boolean) => outcomes.filter((o) => p(o.result)).length;
  lines.push(
    "",
    `${count((r) => r === "pass")} pass, ${count((r) => r.startsWith("skip"))} skipped (the capability named), ` +
      `${count((r) => r.startsWith("gap"))} known gaps (it.fails), ${count((r) => r === "FAIL")} failed`,
    ...notes.map((n, i) => `gap ${i + 1}: ${n}`),
  );
  return lines.join("\n");
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-conformance-"));
  project.provide("conformanceDir", dir);
  return () => {
    const outcomes: Outcome[] = readdirSync(dir).flatMap((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Outcome),
    );
    rmSync(dir, { recursive: true, force: true });
    if (outcomes.length === 0) return;
    process.stdout.write(`\nEngine conformance (test/conformance/): layout × test\n\n${table(outcomes)}\n\n`);
  };
}
