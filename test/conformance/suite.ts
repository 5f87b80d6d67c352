/**
 * The engine conformance suite: the same tests of every command that reads or writes a store (ls, log, show,
 * validate, stats, migrate out and in, kill + --resume, --on-conflict, prune, delete, copy), driven through the CLI,
 * against one layout's store as its own library wrote it (layouts.ts). A test is skipped only where the store's
 * capabilities (caps.ts: what ckpt's engine says) say it does not apply, and the skip names the capability; each
 * outcome goes into the report (report.ts) printed at the end of the run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from "vitest";
import type { AgentMessage, Checkpoint, ToolResultMessage } from "../../src/generated/types.js";
import { validators } from "../../src/generated/validators.js";
import { openSaver } from "../../src/savers/index.js";
import { runCli } from "../helpers/cli-io.js";
import { type Cap, type Caps, capsOf } from "./caps.js";
import { type Built, type ExpectedThread, LAYOUTS, type Layout, PG, type Said, sqlite, type Turn } from "./layouts.js";
import { record, type TestName } from "./report.js";
import { slowLink } from "./slow-link.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "ckpt.js");

/** Tests that fail today although the capabilities say they apply: layout name → test → the gap, for the lead. */
export type Gaps = Partial<Record<TestName, string>>;

type Row = Record<string, unknown>;

/** The same conversation whatever way a layout splits it into messages: consecutive text turns of one role joined. */
function merged(said: Said): Said {
  const out: Said = [];
  for (const turn of said) {
    const last = out.at(-1);
    if (last && (turn[0] === "user" || turn[0] === "assistant") && last[0] === turn[0]) last[1] += turn[1];
    else out.push([...turn] as Turn);
  }
  return out;
}

/** What was said in a canonical checkpoint: user turns, the assistant's text parts and tool calls, tool results. */
function saidOf(messages: AgentMessage[]): Said {
  type Part = { type: string; text?: string; id?: string; name?: string; arguments?: unknown };
  const out: Said = [];
  for (const m of messages) {
    if (m.role === "toolResult") {
      out.push(["result", (m as ToolResultMessage).toolCallId]);
      continue;
    }
    if (m.role !== "user" && m.role !== "assistant") continue;
    const content = (m as { content?: unknown }).content;
    const parts: Part[] = typeof content === "string" ? [{ type: "text", text: content }] : ((content ?? []) as Part[]);
    for (const p of parts) {
      if (p.type === "text" && p.text) out.push([m.role, p.text]);
      else if (p.type === "toolCall") out.push(["call", p.id!, p.name!, p.arguments]);
    }
  }
  return out;
}

/** A thread's id and message count in an `ls --json` row (the layouts name them differently today). */
const rowId = (r: Row) => String(r.threadId ?? r.sessionId ?? r.id);
const rowCount = (r: Row) =>
  typeof r.items === "number" ? r.items : Number(r.messages ?? 0) + Number(r.messagesV2 ?? 0);

async function ls(uri: string): Promise<Row[]> {
  const r = await runCli(["ls", uri, "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Row[];
}
const idsOf = async (uri: string) => (await ls(uri)).map(rowId).sort();

async function show(uri: string, id: string): Promise<Checkpoint> {
  const r = await runCli(["show", `${uri}#${id}`, "--json"]);
  expect(r.code, `show ${id}: ${r.err}`).toBe(0);
  return JSON.parse(r.out) as Checkpoint;
}

/** Every thread of `uri` says what `threads` (the writer's own view) say. */
async function expectSaid(uri: string, threads: ExpectedThread[]): Promise<void> {
  for (const t of threads) expect(merged(saidOf((await show(uri, t.id)).messages)), t.id).toEqual(merged(t.said));
}

/** `ckpt <args>` as its own process; `onOut` sees stdout as it comes and may kill the process. */
function ckpt(
  args: string[],
  env: NodeJS.ProcessEnv,
  onOut?: (out: string, kill: () => void) => void,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: "1", ...env } });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d;
      onOut?.(out, () => p.kill("SIGKILL"));
    });
    p.stderr.on("data", (d: Buffer) => (err += d));
    p.on("error", reject);
    p.on("close", (code, signal) => resolve({ code, signal, out, err }));
  });
}

async function dropSchema(s: string): Promise<void> {
  const pg = (await import("pg")).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await c.end();
}

export function engineConformance(layout: Layout, gaps: Gaps = {}): void {
  const dir = inject("conformanceDir");
  describe(`engine conformance: ${layout.name}`, () => {
    let built: Built;
    let caps: Caps;
    let work: string;
    const cleanups: Array<() => Promise<void>> = [];
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "ckpt-conf-run-"));
      built = await layout.build();
      cleanups.push(built.cleanup);
      const c = await capsOf(built.uri);
      expect(c.layout, "the layout ckpt detects").toBe(layout.layout);
      caps = c.caps;
    }, 120_000);
    afterAll(async () => {
      for (const f of cleanups.reverse()) await f();
      rmSync(work, { recursive: true, force: true });
    });
    /** a fresh store written by the layout's library, for a test that changes it */
    const fresh = async () => {
      const b = await layout.build();
      cleanups.push(b.cleanup);
      return b;
    };
    const env = () => ({ XDG_STATE_HOME: join(work, "state") });

    /** One test: skipped where the capability it needs is missing, a known gap as it.fails, its outcome recorded. */
    function test(name: TestName, needs: Cap | undefined, title: string, body: () => Promise<void>, timeout = 60_000) {
      const gap = gaps[name];
      const full = `${name}: ${title}${needs ? ` [needs ${needs}]` : ""}${gap ? ` [known gap: ${gap}]` : ""}`;
      const run = async (ctx: TestContext) => {
        if (needs && !caps[needs]) {
          record(dir, {
            layout: layout.name,
            order: LAYOUTS.indexOf(layout),
            test: name,
            result: `skip (no ${needs})`,
          });
          ctx.skip(`no ${needs}`);
          return;
        }
        try {
          await body();
        } catch (e) {
          record(dir, {
            layout: layout.name,
            order: LAYOUTS.indexOf(layout),
            test: name,
            result: gap ? `gap: ${gap}` : "FAIL",
          });
          throw e;
        }
        record(dir, {
          layout: layout.name,
          order: LAYOUTS.indexOf(layout),
          test: name,
          result: gap ? "PASSES (remove the gap)" : "pass",
        });
      };
      // a known gap must fail (it.fails); once it passes, it.fails fails and says to remove it
      (gap ? it.fails : it)(full, run, timeout);
    }

    test("ls", undefined, "lists every thread the writer reports, with its message count", async () => {
      const rows = await ls(built.uri);
      expect(rows.map(rowId).sort()).toEqual(built.threads.map((t) => t.id).sort());
      for (const t of built.threads) {
        const row = rows.find((r) => rowId(r) === t.id)!;
        expect(rowCount(row), `${t.id}: messages`).toBe(t.messages);
        if (row.layout !== undefined) expect(row.layout).toBe(layout.layout);
      }
    });

    test("log", undefined, "a thread's history: the writer's checkpoints newest first, else its one", async () => {
      for (const t of built.threads) {
        const r = await runCli(["log", `${built.uri}#${t.id}`, "--json"]);
        expect(r.code, r.err).toBe(0);
        const entries = JSON.parse(r.out) as Array<{ threadId: string; checkpointId: string }>;
        expect(entries.every((e) => e.threadId === t.id)).toBe(true);
        if (caps.history) expect(entries.map((e) => e.checkpointId)).toEqual(t.history);
        else expect(entries).toHaveLength(1);
      }
    });

    test("show", undefined, "each thread's canonical messages say what the writer's messages say", async () => {
      const turns = built.threads.flatMap((t) => t.said);
      expect(turns.filter((x) => x[0] === "user").length, "the writer's store holds user turns").toBeGreaterThan(0);
      if (layout.toolCalls)
        expect(turns.some((x) => x[0] === "call") && turns.some((x) => x[0] === "result")).toBe(true);
      await expectSaid(built.uri, built.threads);
    });

    test("validate", undefined, "exits 0 on the healthy store", async () => {
      const r = await runCli(["validate", built.uri]);
      expect(r.code, r.out + r.err).toBe(0);
    });

    test("stats", undefined, "a StatsReport counting the writer's threads", async () => {
      const r = await runCli(["stats", built.uri, "--json"]);
      expect(r.code, r.err).toBe(0);
      const s = JSON.parse(r.out);
      expect(validators.StatsReport(s), JSON.stringify(validators.StatsReport.errors)).toBe(true);
      expect(s.totals.threads).toBe(built.threads.length);
    });

    test("migrate out", undefined, "into a fresh ckpt SQLite store: every thread, read back the same", async () => {
      const to = `sqlite:${join(work, "out.db")}?layout=ckpt`;
      const r = await runCli(["migrate", "--from", built.uri, "--to", to, "-q"], { env: env() });
      expect(r.code, r.out + r.err).toBe(0);
      const saver = await openSaver(to, { readOnly: true });
      expect(await saver.count()).toBe(built.threads.length);
      await saver.close();
      expect(await idsOf(to)).toEqual(built.threads.map((t) => t.id).sort());
      await expectSaid(to, built.threads);
    });

    test("migrate in", "write", "from a ckpt store into an empty store of the layout, read back the same", async () => {
      const from = await sqlite.build();
      cleanups.push(from.cleanup);
      const to = await layout.empty!();
      cleanups.push(to.cleanup);
      const convert = layout.format ? ["--to-format", layout.format, "--allow-lossy"] : [];
      const r = await runCli(["migrate", "--from", from.uri, "--to", to.uri, ...convert, "-q"], { env: env() });
      expect(r.code, r.out + r.err).toBe(0);
      expect(await idsOf(to.uri)).toEqual(from.threads.map((t) => t.id).sort());
      await expectSaid(to.uri, from.threads);
    });

    test(
      "kill + resume",
      "shared",
      "a migration killed (SIGKILL) between batches, then --resume: the target holds every thread once",
      async () => {
        // the target: a ckpt PostgreSQL schema behind a slow link, so each batch takes long enough to be killed after
        const schema = `ckpt_conf_kill_${process.pid}_${Date.now().toString(36)}`;
        cleanups.push(() => dropSchema(schema));
        const link = await slowLink(5432, 150);
        try {
          // a LangGraph history migrates into a LangGraph store only (gap 'migrate out'): its own layout there
          const into = layout.layout === "langgraph" ? "langgraph" : "ckpt";
          const to = `postgres://postgres@127.0.0.1:${link.port}/test?schema=${schema}&layout=${into}`;
          const args = ["migrate", "--from", built.uri, "--to", to, "--batch-size", "1", "-j", "1"];
          let writtenAtKill = -1;
          const killed = await ckpt([...args, "--json"], env(), (out, kill) => {
            if (writtenAtKill >= 0) return;
            const last = out
              .split("\n")
              .filter((l) => l.startsWith('{"type":"progress"'))
              .map((l) => JSON.parse(l) as { written: number })
              .at(-1);
            if (last && last.written > 0) {
              writtenAtKill = last.written;
              kill();
            }
          });
          expect(writtenAtKill, `killed after a written batch: ${killed.err}`).toBeGreaterThan(0);
          expect(killed.signal).toBe("SIGKILL");
          // the same run again without --resume is refused: the journal says it is unfinished
          link.setDelay(0);
          const again = await ckpt([...args, "-q"], env());
          expect(again.code, again.err).toBe(2);
          expect(again.err).toContain("--resume");
          const resumed = await ckpt([...args, "--resume", "-q"], env());
          expect(resumed.code, resumed.out + resumed.err).toBe(0);
          const direct = `${PG}?schema=${schema}&layout=${into}`;
          expect(await idsOf(direct)).toEqual(built.threads.map((t) => t.id).sort());
          await expectSaid(direct, built.threads);
          if (caps.history)
            for (const t of built.threads) {
              const log = await runCli(["log", `${direct}#${t.id}`, "--json"]);
              const ids = (JSON.parse(log.out) as Array<{ checkpointId: string }>).map((e) => e.checkpointId);
              expect(ids, t.id).toEqual(t.history);
            }
          else {
            const saver = await openSaver(direct, { readOnly: true });
            expect(await saver.count()).toBe(built.threads.length);
            await saver.close();
          }
        } finally {
          await link.close();
        }
      },
      120_000,
    );

    test(
      "conflicts",
      undefined,
      "a target thread that differs: a conflict by default, kept by skip, replaced by overwrite",
      async () => {
        const to = `sqlite:${join(work, "conflicts.db")}?layout=ckpt`;
        const migrate = (n: number, ...more: string[]) =>
          runCli(["migrate", "--from", built.uri, "--to", to, "--journal", join(work, `j${n}`), "-q", ...more], {
            env: env(),
          });
        const first = await migrate(1);
        expect(first.code, first.out + first.err).toBe(0);
        const [a, b] = built.threads;
        const saver = await openSaver(to);
        const original = (await saver.load(a!.id))!;
        // thread a now holds what thread b holds: a target record that differs from the source's
        await saver.save(a!.id, (await saver.load(b!.id))!);
        const changed = (await saver.load(a!.id))!;
        await saver.close();
        const conflict = await migrate(2);
        expect(conflict.code, conflict.out + conflict.err).not.toBe(0);
        expect(conflict.out + conflict.err).toContain(a!.id);
        const skip = await migrate(3, "--on-conflict", "skip");
        expect(skip.code, skip.out + skip.err).toBe(0);
        const after = await openSaver(to, { readOnly: true });
        expect(await after.load(a!.id)).toBe(changed);
        await after.close();
        const overwrite = await migrate(4, "--on-conflict", "overwrite");
        expect(overwrite.code, overwrite.out + overwrite.err).toBe(0);
        const last = await openSaver(to, { readOnly: true });
        expect(await last.load(a!.id)).toBe(original);
        await last.close();
      },
    );

    test("prune", "prune", "a dry run lists what would go and changes nothing; the prune removes that", async () => {
      const b = await fresh();
      const [victim, ...rest] = b.threads;
      const dry = await runCli(["prune", b.uri, "--thread", victim!.id, "--dry-run", "--json"]);
      expect(dry.code, dry.err).toBe(0);
      const plan = JSON.parse(dry.out) as { plans: Array<{ threadId: string; whole: boolean }> };
      expect(plan.plans.map((p) => [p.threadId, p.whole])).toEqual([[victim!.id, true]]);
      expect(await idsOf(b.uri)).toEqual(b.threads.map((t) => t.id).sort());
      const real = await runCli(["prune", b.uri, "--thread", victim!.id, "--json"]);
      expect(real.code, real.err).toBe(0);
      expect(await idsOf(b.uri)).toEqual(rest.map((t) => t.id).sort());
      await expectSaid(b.uri, rest);
      if (caps.history) {
        // keep the newest checkpoint of a thread with a history: the plan names the others, the prune removes them
        const long = rest.find((t) => t.history!.length > 1)!;
        const keep = await runCli(["prune", b.uri, "--thread", long.id, "--keep-last", "1", "--dry-run", "--json"]);
        expect(keep.code, keep.err).toBe(0);
        const ids = (JSON.parse(keep.out) as { plans: Array<{ checkpoints: Array<{ ns: string; id: string }> }> }).plans
          .flatMap((p) => p.checkpoints)
          .filter((c) => c.ns === "")
          .map((c) => c.id);
        expect(ids.sort()).toEqual(long.history!.slice(1).sort());
        expect((await runCli(["prune", b.uri, "--thread", long.id, "--keep-last", "1"])).code).toBe(0);
        const log = await runCli(["log", `${b.uri}#${long.id}`, "--json"]);
        expect((JSON.parse(log.out) as Array<{ checkpointId: string }>).map((e) => e.checkpointId)).toEqual([
          long.history![0],
        ]);
      }
    });

    test("delete", "delete", "a thread gone (after a dry run that changed nothing), the others intact", async () => {
      const b = await fresh();
      const [victim, ...rest] = b.threads;
      const dry = await runCli(["delete", `${b.uri}#${victim!.id}`, "--json"]);
      expect(dry.code, dry.err).toBe(0);
      expect(await idsOf(b.uri)).toEqual(b.threads.map((t) => t.id).sort());
      const real = await runCli(["delete", `${b.uri}#${victim!.id}`, "--yes", "--json"]);
      expect(real.code, real.err).toBe(0);
      expect(await idsOf(b.uri)).toEqual(rest.map((t) => t.id).sort());
      expect((await runCli(["show", `${b.uri}#${victim!.id}`])).code).toBe(3);
      await expectSaid(b.uri, rest);
    });

    test(
      "copy",
      "copy",
      "a thread into a new id: the copy says what the original says, the original intact",
      async () => {
        const b = await fresh();
        const src = b.threads[0]!;
        const r = await runCli(["copy", `${b.uri}#${src.id}`, `${b.uri}#${src.id}-copy`, "--json"]);
        expect(r.code, r.err).toBe(0);
        expect(await idsOf(b.uri)).toEqual([...b.threads.map((t) => t.id), `${src.id}-copy`].sort());
        await expectSaid(b.uri, [...b.threads, { ...src, id: `${src.id}-copy` }]);
        if (caps.history) {
          const log = await runCli(["log", `${b.uri}#${src.id}-copy`, "--json"]);
          expect((JSON.parse(log.out) as unknown[]).length).toBe(src.history!.length);
        }
      },
    );

    test(
      "refusals",
      undefined,
      "what the capabilities say it cannot do is refused (exit 2), the store unchanged",
      async () => {
        const b = await fresh();
        const id = b.threads[0]!.id;
        const before = await ls(b.uri);
        const runs: Array<[Cap, string[]]> = [
          [
            "write",
            [
              "migrate",
              "--from",
              `file:${join(import.meta.dirname, "../../fixtures/savers/deepagent-filesaver")}`,
              "--to",
              b.uri,
              "-q",
            ],
          ],
          ["prune", ["prune", b.uri, "--thread", id, "--dry-run"]],
          ["prune", ["prune", b.uri, "--thread", id]],
          ["delete", ["delete", `${b.uri}#${id}`, "--yes"]],
          ["copy", ["copy", `${b.uri}#${id}`, `${b.uri}#${id}-copy`]],
        ];
        const notRefused: string[] = [];
        for (const [cap, argv] of runs) {
          if (caps[cap]) continue;
          const r = await runCli(argv, { env: env() });
          const what = `${argv[0]}${argv.includes("--dry-run") ? " --dry-run" : ""}`;
          if (r.code !== 2)
            notRefused.push(`no ${cap}, yet \`${what}\` exits ${r.code}: ${r.err.trim() || "(nothing on stderr)"}`);
        }
        expect(notRefused).toEqual([]);
        expect(await ls(b.uri)).toEqual(before);
      },
    );
  });
}
