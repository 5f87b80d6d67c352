/**
 * Mastra memory stores written by the real packages (`@mastra/core` Agent with an AI SDK mock model, `@mastra/memory`,
 * `@mastra/libsql` and `@mastra/pg`, under Node 22: test/peers/scripts/mastra-write.mjs): several resources, threads
 * with tool calls and reasoning, working memory. What ckpt reads from the tables (ls, show --json, validate) is
 * checked against what Mastra's own APIs return for the same store (listThreads, recall, getWorkingMemory).
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Checkpoint } from "../src/generated/types.js";
import { validators } from "../src/generated/validators.js";
import { runCli } from "./helpers/cli-io.js";
import { MASTRA_SPEC, type MastraThreadBack, writeMastra } from "./helpers/mastra.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const schemas = pgTestSchemas("ckpt_mastra");
let dir: string;
let file: string;
let schema: string;
const want: Record<"libsql" | "pg", MastraThreadBack[]> = { libsql: [], pg: [] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-mastra-"));
  file = join(dir, "mastra.db");
  schema = schemas.schema("src");
  const [a, b] = await Promise.all([
    writeMastra({ kind: "libsql", file }),
    writeMastra({ kind: "pg", url: PG, schema }),
  ]);
  want.libsql = a;
  want.pg = b;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const uriOf = (backend: "libsql" | "pg") => (backend === "libsql" ? `sqlite:${file}` : `${PG}?schema=${schema}`);

/** The text Mastra shows for a message: its `content` string, else its text parts. */
const textOf = (m: MastraThreadBack["messages"][number]) =>
  typeof m.content.content === "string"
    ? m.content.content
    : (m.content.parts as Array<{ type: string; text?: string }>)
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("");

/** The last text of a canonical checkpoint (its last message that has any). */
function lastText(cp: Checkpoint): string | undefined {
  for (let i = cp.messages.length - 1; i >= 0; i--) {
    const m = cp.messages[i] as { content?: Array<{ type: string; text?: string }> };
    const t = (m.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
    if (t.length) return t.join("");
  }
  return undefined;
}

const fileState = (d: string) =>
  readdirSync(d)
    .sort()
    .map(
      (f) =>
        `${f}:${createHash("sha256")
          .update(readFileSync(join(d, f)))
          .digest("hex")}`,
    );

describe.each(["libsql", "pg"] as const)("a Mastra %s store written by the real packages", (backend) => {
  it("Mastra itself wrote what the spec asked (the peer's own answer is not empty)", () => {
    expect(want[backend].map((t) => t.id).sort()).toEqual(MASTRA_SPEC.threads.map((t) => t.id).sort());
    expect(want[backend].every((t) => t.messages.length >= 2)).toBe(true);
    expect(want[backend].find((t) => t.id === "trip-1")!.workingMemory).toBe(MASTRA_SPEC.workingMemory.alice);
  });

  it("ls lists every thread with its resource, title and message count, as listThreads and recall give them", async () => {
    const before = backend === "libsql" ? fileState(dir) : [];
    const r = await runCli(["ls", uriOf(backend), "--json"]);
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(r.out) as Array<{ threadId: string; resourceId: string; title: string; messages: number }>;
    expect(rows.map((x) => x.threadId).sort()).toEqual(want[backend].map((t) => t.id).sort());
    for (const t of want[backend]) {
      const row = rows.find((x) => x.threadId === t.id)!;
      expect(row).toMatchObject({ layout: "mastra", resourceId: t.resourceId, messages: t.messages.length });
      expect(row.title).toBe(t.title ?? "");
    }
    const text = await runCli(["ls", uriOf(backend)]);
    expect(text.code).toBe(0);
    for (const t of want[backend]) expect(text.out).toMatch(new RegExp(`^${t.id}\\s+${t.resourceId}\\s`, "m"));
    // reading never writes: the database's folder is byte for byte as it was
    if (backend === "libsql") expect(fileState(dir)).toEqual(before);
  });

  it("show --json of each thread: its messages in recall's order, recall's last text, the resource's working memory", async () => {
    for (const t of want[backend]) {
      const r = await runCli(["show", `${uriOf(backend)}#${t.id}`, "--json"]);
      expect(r.code, r.err).toBe(0);
      const cp = JSON.parse(r.out) as Checkpoint;
      expect(cp.threadId).toBe(t.id);
      expect(cp.origin?.format).toBe("mastra");
      // each Mastra row starts one or more canonical messages; the rows come in recall's order
      const rows = cp.messages
        .map((m) => (m as { ext?: { mastra?: { id?: string } } }).ext?.mastra?.id)
        .filter((id) => id !== undefined);
      expect(rows).toEqual(t.messages.map((m) => m.id));
      expect(lastText(cp)).toBe(textOf(t.messages[t.messages.length - 1]!));
      const wm = (cp.state as { workingMemory?: { resource: string; text: string } }).workingMemory;
      if (t.workingMemory === null) expect(wm).toBeUndefined();
      else expect(wm).toEqual({ resource: t.resourceId, text: t.workingMemory });
      // every tool call Mastra holds a result for is a call followed by its result
      const calls = t.messages.flatMap((m) =>
        (m.content.parts as Array<{ type: string; toolInvocation?: { toolCallId: string; result?: unknown } }>)
          .filter((p) => p.type === "tool-invocation")
          .map((p) => p.toolInvocation!),
      );
      for (const c of calls) {
        const at = cp.messages.findIndex((m) => (m as { toolCallId?: string }).toolCallId === c.toolCallId);
        expect(at).toBeGreaterThan(0);
        const res = cp.messages[at] as { content: Array<{ text: string }> };
        expect(JSON.parse(res.content[0]!.text)).toEqual(c.result);
      }
    }
  });

  it("the human transcript names the working memory's resource", async () => {
    const r = await runCli(["show", `${uriOf(backend)}#trip-1`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("Pack sunglasses.");
    expect(r.out).toContain("working memory (resource alice)");
    expect(r.out).toContain("Likes: sunny places");
  });

  it("stats: the memory tables, messages by role, tool calls and working memory, as Mastra's own read-back counts them", async () => {
    const r = await runCli(["stats", uriOf(backend), "--json"]);
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out);
    expect(validators.StatsReport(s), JSON.stringify(validators.StatsReport.errors)).toBe(true);
    const msgs = want[backend].flatMap((t) => t.messages);
    expect(s.totals).toMatchObject({ threads: want[backend].length, messages: msgs.length, damagedMessages: 0 });
    const table = (n: string) => s.tables.find((t: { table: string }) => t.table === n);
    expect(table("mastra_messages").rows).toBe(msgs.length);
    expect(table("mastra_threads").storedBytes).toBeGreaterThan(0);
    const calls = msgs.flatMap((m) =>
      (m.content.parts as Array<{ type: string }>).filter((p) => p.type === "tool-invocation"),
    );
    expect(s.tools).toEqual([
      { name: "weather", calls: calls.length, results: calls.length, resultBytes: expect.any(Number) },
    ]);
    const roles = Object.fromEntries(s.roles.map((x: { role: string; messages: number }) => [x.role, x.messages]));
    expect(roles).toEqual({
      user: msgs.filter((m) => m.role === "user").length,
      assistant: msgs.filter((m) => m.role === "assistant").length,
    });
    const wm = new Map(want[backend].map((t) => [t.resourceId, t.workingMemory]));
    for (const x of s.resources)
      expect(x.workingMemoryBytes).toBe(wm.get(x.resourceId) ? Buffer.byteLength(wm.get(x.resourceId)!) : 0);
    const text = await runCli(["stats", uriOf(backend)]);
    expect(text.out).toMatch(/^TOOL\s+CALLS\s+RESULTS/m);
  });

  it("validate exits 0 on the store", async () => {
    const r = await runCli(["validate", uriOf(backend)]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(`${want[backend].length} valid`);
  });
});

describe("writing commands on a Mastra store", () => {
  it("copy into it refuses it (exit 2, naming ckpt migrate) and leaves the file byte for byte as it was (delete and prune work: test/erase/)", async () => {
    const copy = join(dir, "untouched.db");
    copyFileSync(file, copy);
    // the copy is a Mastra store (the writer's WAL was checkpointed into the file: test/helpers/mastra.ts)
    const tables = new Database(copy, { readonly: true });
    expect(tables.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'mastra_%'").pluck().all()).toEqual(
      expect.arrayContaining(["mastra_threads", "mastra_messages"]),
    );
    tables.close();
    const before = createHash("sha256").update(readFileSync(copy)).digest("hex");
    const runs = [["copy", `sqlite:${copy}#trip-1`, `sqlite:${copy}#trip-9`]];
    for (const argv of runs) {
      const r = await runCli(argv);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(2);
      expect(r.err).toContain("is a Mastra store");
    }
    expect(createHash("sha256").update(readFileSync(copy)).digest("hex")).toBe(before);
    const db = new Database(copy, { readonly: true });
    const ckptTables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'ckpt%'").all();
    db.close();
    expect(ckptTables).toEqual([]);
  });
});

describe("a damaged message row", () => {
  it("LibSQL: validate flags the row (its id, the message's pointer) and show refuses the thread; other threads stay valid", async () => {
    const copy = join(dir, "damaged.db");
    copyFileSync(file, copy);
    const victim = want.libsql.find((t) => t.id === "bob-1")!.messages[1]!;
    const db = new Database(copy);
    db.prepare("UPDATE mastra_messages SET content = substr(content, 1, 40) WHERE id = ?").run(victim.id);
    db.close();
    const r = await runCli(["validate", `sqlite:${copy}`, "--json"]);
    expect(r.code).toBe(1);
    const files = (
      JSON.parse(r.out) as { files: Array<{ file: string; valid: boolean; issues: Array<Record<string, string>> }> }
    ).files;
    const bad = files.find((f) => f.file.endsWith("#bob-1"))!;
    expect(bad.valid).toBe(false);
    expect(bad.issues).toContainEqual(
      expect.objectContaining({ rule: "mastra/damaged-message", pointer: "/messages/1/content", severity: "error" }),
    );
    expect(bad.issues.find((i) => i.rule === "mastra/damaged-message")!.message).toContain(victim.id);
    expect(files.filter((f) => !f.file.endsWith("#bob-1")).every((f) => f.valid)).toBe(true);
    const show = await runCli(["show", `sqlite:${copy}#bob-1`]);
    expect(show.code).toBe(3);
    expect(show.err).toContain(victim.id);
  });

  it("PostgreSQL: a content that is not format 2 is flagged with its row", async () => {
    const victim = want.pg.find((t) => t.id === "carol-1")!.messages[0]!;
    await schemas.query(
      `UPDATE ${schema}.mastra_messages SET content = '{"format":2,"parts":[{"type":"text"}]}' WHERE id = $1`,
      [victim.id],
    );
    const r = await runCli(["validate", `${PG}?schema=${schema}#carol-1`, "--json"]);
    expect(r.code).toBe(1);
    const f = (JSON.parse(r.out) as { files: Array<{ issues: Array<Record<string, string>> }> }).files[0]!;
    expect(f.issues).toContainEqual(
      expect.objectContaining({ rule: "schema/required", pointer: "/messages/0/content/parts/0" }),
    );
  });
});
