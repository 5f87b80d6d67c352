/**
 * A document read from a store is the thread the store holds it under. Formats that carry no thread id of their own
 * (yoagent, phi-core: a JSON array of messages) used to take it from the file stem of the *name* — for
 * `sqlite:a.db#team/chat.v2` that was "chat" — so `show` printed the wrong thread, and `convert` and
 * `migrate --to-format deepagent` wrote the wrong `threadId` into the documents they produced.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { openSaver } from "../src/savers/index.js";
import { runCli } from "./helpers/cli-io.js";

const YOAGENT = readFileSync(
  join(import.meta.dirname, "..", "fixtures", "yoagent", "valid", "save_messages.v0.18.json"),
  "utf8",
);
const PHI = readFileSync(
  join(import.meta.dirname, "..", "fixtures", "phi-core", "valid", "save_messages.v0.10.json"),
  "utf8",
);
/** thread ids a file stem would get wrong: a dot, a slash, both */
const THREADS = ["chat.v2", "team/chat", "team/notes.2026-11-23"];
const dir = mkdtempSync(join(tmpdir(), "ckpt-store-thread-id-"));
const src = join(dir, "src.db");

beforeAll(async () => {
  const s = await openSaver(`sqlite:${src}`);
  await s.saveMany(THREADS.map((threadId) => ({ namespace: "default", threadId, text: YOAGENT })));
  await s.saveMany([{ namespace: "phi", threadId: "p.1/x", text: PHI }]);
  await s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** thread_id column → the threadId inside the stored JSON document, read straight from the SQLite file */
function storedThreadIds(db: string): Map<string, unknown> {
  const h = new Database(db, { readonly: true });
  try {
    return new Map(
      h
        .prepare("SELECT thread_id, doc FROM ckpt_checkpoints")
        .all()
        .map((r) => [(r as { thread_id: string }).thread_id, JSON.parse((r as { doc: string }).doc).threadId]),
    );
  } finally {
    h.close();
  }
}

describe("a yoagent document read from a store", () => {
  for (const t of THREADS) {
    it(`show names thread '${t}'`, async () => {
      const r = await runCli(["show", `sqlite:${src}#${t}`]);
      expect(r.code, r.err).toBe(0);
      expect(r.out.split("\n")[0]).toMatch(new RegExp(`^thread ${t.replace(/[.]/g, "\\.")} — yoagent,`));
    });
  }
  it("convert to deepagent writes the store's thread id into the document", async () => {
    const out = join(dir, "out.json");
    const r = await runCli([
      "convert",
      `sqlite:${src}#team/notes.2026-11-23`,
      "-t",
      "deepagent",
      "--allow-lossy",
      "-o",
      out,
    ]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).threadId).toBe("team/notes.2026-11-23");
  });
  it("a phi-core document under 'p.1/x' too", async () => {
    const r = await runCli(["show", `sqlite:${src}?namespace=phi#p.1/x`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(/^thread p\.1\/x — phi-core,/);
  });
});

describe("migrate --to-format deepagent", () => {
  it("CLI: every converted document holds the thread id it is stored under", async () => {
    const to = join(dir, "cli.db");
    const r = await runCli([
      "migrate",
      "--from",
      `sqlite:${src}`,
      "--to",
      `sqlite:${to}`,
      "--to-format",
      "deepagent",
      "--allow-lossy",
      "--namespace",
      "default",
    ]);
    expect(r.code, r.err).toBe(0);
    const ids = storedThreadIds(to);
    expect([...ids.keys()].sort()).toEqual([...THREADS].sort());
    for (const [column, inDoc] of ids) expect(inDoc).toBe(column);
  });
  it("checked in the worker thread: the same", async () => {
    // the worker runs the compiled package (dist/), so this drives the built engine (as test/migrate-worker does)
    const root = join(import.meta.dirname, "..");
    if (!existsSync(join(root, "dist", "engines", "ckpt", "migrate.js")))
      execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
    const { migrate } = await import(join(root, "dist", "engines", "ckpt", "migrate.js"));
    const { openCheckPool } = await import(join(root, "dist", "cli", "check-pool.js"));
    const dist = await import(join(root, "dist", "savers", "index.js"));
    const to = join(dir, "worker.db");
    const source = await dist.openSaver(`sqlite:${src}`);
    const target = await dist.openSaver(`sqlite:${to}`);
    try {
      const s = await migrate(source, target, {
        toFormat: "deepagent",
        allowLossy: true,
        worker: "on",
        openCheckPool,
        namespaces: ["default"],
      });
      expect(s.checkedInWorker).toBe(true);
      expect(s.written).toBe(THREADS.length);
    } finally {
      await source.close();
      await target.close();
    }
    for (const [column, inDoc] of storedThreadIds(to)) expect(inDoc).toBe(column);
  });
});

describe("log of a ckpt store's thread", () => {
  it("its one entry carries the document's step and message count (they were '-'), as ls shows them", async () => {
    const doc = JSON.parse(YOAGENT) as Array<{ role: string }>;
    const r = await runCli(["log", `sqlite:${src}#team/chat`, "--json"]);
    expect(r.code, r.err).toBe(0);
    const [e, ...more] = JSON.parse(r.out) as Array<{
      threadId: string;
      step: number;
      messages: number;
      bytes: number;
    }>;
    expect(more).toEqual([]);
    expect(e!.threadId).toBe("team/chat");
    expect(e!.messages).toBe(doc.length); // the yoagent array's length
    expect(e!.step).toBe(doc.filter((m) => m.role === "assistant").length); // yoagent: step = assistant turns
    expect(e!.bytes).toBe(Buffer.byteLength(YOAGENT));
    const ls = JSON.parse((await runCli(["ls", `sqlite:${src}`, "--json"])).out) as Array<{
      threadId: string;
      step: number;
      messages: number;
    }>;
    expect(ls.find((x) => x.threadId === "team/chat")).toMatchObject({ step: e!.step, messages: e!.messages });
  });
});
