/**
 * `migrate` checks records in a worker thread on large runs. The worker runs the compiled package (dist/), so this
 * test drives the built engine: the same migration with the worker forced on and off must give the same summary,
 * the same rejects (with the reasons worked out below by hand), the same target and the same journal hashes, which
 * are also recomputed here independently (sha256 of JSON.stringify(JSON.parse(text))).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";

const root = join(import.meta.dirname, "..");
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
let dist: {
  migrate: (s: Any, t: Any, o: Any) => Promise<Any>;
  openSaver: (u: string) => Promise<Any>;
  openCheckPool: () => Promise<Any>;
};

beforeAll(async () => {
  if (
    !existsSync(join(root, "dist", "cli", "check-worker.js")) ||
    !existsSync(join(root, "dist", "engines", "ckpt", "migrate.js"))
  )
    execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
  const m = await import(join(root, "dist", "engines", "ckpt", "migrate.js"));
  const s = await import(join(root, "dist", "savers", "index.js"));
  const p = await import(join(root, "dist", "cli", "check-pool.js"));
  dist = { migrate: m.migrate, openSaver: s.openSaver, openCheckPool: p.openCheckPool };
}, 120_000);

const base = JSON.parse(readFileSync(join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json"), "utf8"));
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

function sourceRecords(): Array<{ namespace: string; threadId: string; text: string }> {
  const out = [];
  for (let i = 0; i < 40; i++) {
    const id = `t-${String(i).padStart(2, "0")}`;
    out.push({ namespace: "default", threadId: id, text: JSON.stringify({ ...base, threadId: id, step: i }, null, 2) });
  }
  out.push({ namespace: "default", threadId: "bad-json", text: '{\n  "threadId": "bad-json",\n  "step": 1,\n' });
  out.push({ namespace: "default", threadId: "bad-format", text: '{"hello": "world"}' });
  const badTodo = structuredClone(base);
  badTodo.threadId = "bad-todo";
  badTodo.state.todos[0].status = "someday";
  out.push({ namespace: "default", threadId: "bad-todo", text: JSON.stringify(badTodo, null, 2) });
  return out;
}

async function runWith(worker: "on" | "off", name: string, extra: Record<string, unknown> = {}) {
  const src = await dist.openSaver(`memory:worker-src-${name}`);
  await src.saveMany(sourceRecords());
  const dst = await dist.openSaver(`memory:worker-dst-${name}-${worker}`);
  const committed: Array<{ key: string; hash: string }> = [];
  const journal = {
    done: new Set<string>(),
    commit: async (e: Array<{ key: string; hash: string }>) => void committed.push(...e),
  };
  const summary = await dist.migrate(src, dst, {
    batchSize: 8,
    worker,
    journal,
    openCheckPool: dist.openCheckPool,
    ...extra,
  });
  const stored = new Map<string, string>();
  for await (const batch of dst.scan({ batchSize: 100 })) for (const r of batch) stored.set(r.threadId, r.text);
  return { summary, committed, stored };
}

const comparable = (s: Any) => {
  const { elapsedMs, recordsPerSecond, mbPerSecond, checkedInWorker, ...rest } = s;
  void elapsedMs, recordsPerSecond, mbPerSecond, checkedInWorker;
  return {
    ...rest,
    rejectedRecords: [...rest.rejectedRecords].sort((a: Any, b: Any) => (a.threadId < b.threadId ? -1 : 1)),
  };
};

describe("migrate: checks in a worker thread", () => {
  it("gives the same summary, rejects, target and journal with the worker on and off", async () => {
    const on = await runWith("on", "same");
    const off = await runWith("off", "same");
    expect(on.summary.checkedInWorker).toBe(true);
    expect(off.summary.checkedInWorker).toBe(false);
    expect(comparable(on.summary)).toEqual(comparable(off.summary));
    expect(on.summary).toMatchObject({ read: 43, written: 40, verified: 40, rejected: 3, mismatches: [] });

    const reasons = Object.fromEntries(on.summary.rejectedRecords.map((r: Any) => [r.threadId, r.reason]));
    expect(reasons["bad-format"]).toMatch(
      /^default#bad-format: not a checkpoint of any supported format \(expected one of ckpt, /,
    );
    expect(reasons["bad-todo"]).toMatch(
      /^default#bad-todo:\d+:\d+: \/state\/todos\/0\/status: not a valid deepagent document: expected one of /,
    );
    expect(reasons["bad-json"]).toMatch(/default#bad-json:4:1/); // the text ends after line 3: expected a key at 4:1

    expect([...on.stored.entries()].sort()).toEqual([...off.stored.entries()].sort());
    const want = new Map(
      sourceRecords()
        .slice(0, 40)
        .map((r) => [`default\u0000${r.threadId}`, sha(r.text)]), // the journal's hash: of the document as read
    );
    for (const run of [on, off]) {
      expect(run.committed.length).toBe(40);
      for (const e of run.committed) expect(e.hash).toBe(want.get(e.key));
      for (const r of sourceRecords().slice(0, 40)) expect(run.stored.get(r.threadId)).toBe(r.text); // memory keeps the text as given
    }
  });

  it("converts in the worker exactly as on the calling thread (--to-format ckpt)", async () => {
    const on = await runWith("on", "convert", { toFormat: "ckpt" });
    const off = await runWith("off", "convert", { toFormat: "ckpt" });
    expect(on.summary.checkedInWorker).toBe(true);
    expect(comparable(on.summary)).toEqual(comparable(off.summary));
    expect(on.summary.written).toBe(40);
    expect([...on.stored.entries()].sort()).toEqual([...off.stored.entries()].sort());
    const one = JSON.parse(on.stored.get("t-07")!);
    expect(one).toMatchObject({ schemaVersion: 1, threadId: "t-07", step: 7 });
    for (const e of on.committed) expect(e.hash).toBe(sha(on.stored.get(e.key.split("\u0000")[1]!)!)); // of the conversion, as written
  });
});

describe("migrate: progress", () => {
  it("reports the source's total with every progress event, and read reaches it", async () => {
    const { migrate } = await import("../src/engines/ckpt/migrate.js");
    const { openSaver } = await import("../src/savers/index.js");
    const src = await openSaver("memory:progress-src");
    await src.saveMany(sourceRecords());
    const events: Array<{ total?: number; read: number }> = [];
    await migrate(src, await openSaver("memory:progress-dst"), {
      batchSize: 10,
      onProgress: (p) => void events.push({ total: p.total, read: p.read }),
    });
    expect(events.length).toBe(5); // 43 records in batches of 10
    expect(events.every((e) => e.total === 43)).toBe(true);
    expect(events.map((e) => e.read)).toEqual([10, 20, 30, 40, 43]);
  });

  it("draws a bar with percentage, counts, rate and ETA on a terminal", async () => {
    const { progressLine } = await import("../src/cli/commands/migrate.js");
    const line = progressLine(
      {
        total: 10_000,
        read: 4_500,
        written: 4_400,
        skipped: 100,
        rejected: 0,
        bytesRead: 0,
        bytesWritten: 0,
        elapsedMs: 1_000,
      },
      false,
      120,
    );
    // 4,500 of 10,000 in 1 s: 45 %, 4,500 rec/s, 5,500 left → 1.2 s → ETA 0:01
    expect(line).toMatch(
      /^migrating \[(#*)(-*)\] {2}45% {2}4,500\/10,000 · 4,400 written, 100 skipped, 0 rejected · 4,500 rec\/s · ETA 0:01$/,
    );
    const [, done, todo] = /\[(#*)(-*)\]/.exec(line)!;
    expect(Math.abs(done!.length / (done!.length + todo!.length) - 0.45)).toBeLessThan(0.05);
    expect(line.length).toBeLessThan(120);
    // without a total (a store that cannot count): counts only
    expect(
      progressLine(
        { read: 7, written: 7, skipped: 0, rejected: 0, bytesRead: 0, bytesWritten: 0, elapsedMs: 1_000 },
        true,
        80,
      ),
    ).toBe("planning: 7 read, 7 to write, 0 skipped, 0 rejected · 7 rec/s");
  });
});
