/**
 * ckpt as a library, used as a user's program would: a separate Node process that imports the package by its name
 * (`import … from "ckpt"`, resolved through package.json's `exports` to dist/) and uses the documented API against a
 * SQLite store. The expected values come from the fixture files themselves (read with JSON.parse), not from ckpt.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const FIXTURE = join(ROOT, "fixtures/savers/deepagent-filesaver");
const work = mkdtempSync(join(tmpdir(), "ckpt-library-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PROGRAM = `
import {
  openStore, migrate, migrateExitCode, readCheckpoint, validateDocument, summarize, validationExitCode,
  diffCheckpoints, convertCheckpoint, CkptError, ExitCode, main,
} from "ckpt";
const [from, db] = process.argv.slice(1);
const source = await openStore("file:" + from, { readOnly: true });
const target = await openStore("sqlite:" + db);
const summary = await migrate(source, target);
await source.close();
const threads = [];
for await (const t of target.list()) threads.push(t.threadId);
const out = { exit: migrateExitCode(summary), written: summary.written, verified: summary.verified, threads, docs: {} };
const files = [];
for (const id of threads) {
  const text = await target.load(id);
  const { checkpoint, format } = readCheckpoint({ name: db + "#" + id, text, threadId: id });
  const result = validateDocument({ name: id, text });
  files.push(result);
  const edited = structuredClone(checkpoint);
  edited.messages.push({ role: "user", content: [{ type: "text", text: "one more" }], timestamp: 1 });
  const yo = convertCheckpoint(checkpoint, "yoagent");
  out.docs[id] = {
    format, messages: checkpoint.messages.length, valid: result.valid,
    same: diffCheckpoints(checkpoint, checkpoint).identical,
    edited: diffCheckpoints(checkpoint, edited).identical,
    yoagentMessages: yoagent(yo.output),
  };
}
function yoagent(output) { return JSON.parse(output.text ?? Object.values(output.files)[0]).length; }
out.validation = validationExitCode({ files, summary: summarize(files), strict: false });
await target.close();
try { await openStore("sqlite:" + db + ".missing", { readOnly: true }); out.missing = "opened"; }
catch (e) { out.missing = e instanceof CkptError ? e.exitCode === ExitCode.INPUT : String(e); }
let printed = "";
out.mainExit = await main(["ls", "sqlite:" + db, "--json"], {
  stdout: { write: (s) => { printed += s; return true; }, isTTY: false },
  stderr: { write: () => true, isTTY: false }, stdin: process.stdin, env: {}, cwd: process.cwd(),
});
out.mainThreads = JSON.parse(printed).threads?.length ?? JSON.parse(printed).length;
console.log(JSON.stringify(out));
`;

test("a program imports ckpt by name and opens, migrates, reads, validates, diffs and converts", () => {
  const db = join(work, "lib.db");
  const stdout = execFileSync(process.execPath, ["--input-type=module", "-e", PROGRAM, FIXTURE, db], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const out = JSON.parse(stdout);
  // what the fixture folder holds, read independently of ckpt
  const want: Record<string, number> = {};
  for (const f of readdirSync(FIXTURE).filter((f) => f.endsWith(".json"))) {
    const doc = JSON.parse(readFileSync(join(FIXTURE, f), "utf8"));
    want[doc.threadId] = doc.messages.length;
  }
  expect(out.exit).toBe(0);
  expect(out.written).toBe(Object.keys(want).length);
  expect(out.verified).toBe(Object.keys(want).length);
  expect(out.threads.sort()).toEqual(Object.keys(want).sort());
  for (const [id, n] of Object.entries(want)) {
    expect(out.docs[id]).toMatchObject({ format: "deepagent", messages: n, valid: true, same: true, edited: false });
    expect(out.docs[id].yoagentMessages).toBe(n);
  }
  expect(out.validation).toBe(0);
  expect(out.missing).toBe(true);
  expect(out.mainExit).toBe(0);
  expect(out.mainThreads).toBe(Object.keys(want).length);
});

test("prune through the library keeps the newest two checkpoints of every thread and namespace", async () => {
  const { copyFileSync } = await import("node:fs");
  const { default: Database } = await import("better-sqlite3");
  const file = join(work, "prune.sqlite");
  copyFileSync(join(ROOT, "fixtures/langgraph/python-a.sqlite"), file);
  const groups = () =>
    new Database(file, { readonly: true })
      .prepare("SELECT count(*) AS n FROM checkpoints GROUP BY thread_id, checkpoint_ns")
      .all() as Array<{ n: number }>;
  const before = groups();
  const program = `import { openStore, prune } from "ckpt";
    const store = await openStore("sqlite:" + process.argv[1]);
    const dry = await prune(store, { keepLast: 2, now: Date.now() }, { dryRun: true });
    const s = await prune(store, { keepLast: 2, now: Date.now() });
    await store.close();
    console.log(JSON.stringify({ dry: dry.checkpoints, deleted: s.checkpoints, kept: s.kept }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", program, file], { cwd: ROOT, encoding: "utf8" }),
  );
  const total = before.reduce((a, g) => a + g.n, 0);
  const keep = before.reduce((a, g) => a + Math.min(2, g.n), 0);
  expect(out).toEqual({ dry: total - keep, deleted: total - keep, kept: keep });
  expect(groups().map((g) => g.n)).toEqual(before.map((g) => Math.min(2, g.n)));
});
