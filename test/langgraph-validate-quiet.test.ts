/**
 * A quiet validate of LangGraph stores (issue #29): a healthy 100-thread store (a Python v1 thread copied into 100
 * threads) prints one line per rule plus the summary, the first threads named; `--verbose` lists every row;
 * `--library` keeps the cross-library warnings for the library that will read the store; no message cites a
 * document outside the repository; the id/step finding does not compare two equal numbers.
 */
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const ckpt = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const copyOf = (name: string) => {
  const p = join(mkdtempSync(join(tmpdir(), "lgvq-")), name);
  copyFileSync(join(fx, name), p);
  return p;
};

/** python-v1-persistence.sqlite with its thread '777' copied into 99 more threads t001…t099. */
function hundredThreads(): string {
  const f = copyOf("python-v1-persistence.sqlite");
  const db = new Database(f);
  const n = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 99)";
  db.exec(`${n} INSERT INTO checkpoints SELECT 't' || printf('%03d', i), checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints, n WHERE thread_id = '777';
    ${n} INSERT INTO writes SELECT 't' || printf('%03d', i), checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes, n WHERE thread_id = '777';`);
  expect(db.prepare("SELECT count(DISTINCT thread_id) FROM checkpoints").pluck().get()).toBe(100);
  db.close();
  return f;
}

describe("validate of a healthy 100-thread store", () => {
  it("one line per rule plus the summary; --verbose lists all; --library drops the other library's hazards", async () => {
    const f = hundredThreads();
    const r = await ckpt("validate", f);
    expect(r.code, r.out).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const rules = lines.slice(0, -1).map((l) => l.split(" ").at(-1));
    // a healthy Python store: the cross-library hazards are findings only when JS is asked about (issue #38)
    expect(rules).toEqual(["langgraph/old-checkpoint-version"]);
    expect(lines[0]).toContain("100 threads ('777', 't001', 't002', …; --verbose lists all): checkpoint v1 (< 4)");
    expect(lines.at(-1)).toBe("1 store, 1 valid, 0 invalid: 0 errors, 1 warning");
    const forJs = await ckpt("validate", f, "--library", "js");
    const jsRules = forJs.out
      .trimEnd()
      .split("\n")
      .slice(0, -1)
      .map((l) => l.split(" ").at(-1));
    expect(jsRules).toEqual([
      "langgraph/old-checkpoint-version",
      "langgraph/cross-library/js-cannot-load",
      "langgraph/cross-library/string-versions",
    ]);
    // a LangGraph store is judged as one: the summary counts one store (#38 item 11)
    expect(forJs.out.trimEnd().split("\n").at(-1)).toBe("1 store, 1 valid, 0 invalid: 0 errors, 3 warnings");
    const all = await ckpt("validate", f, "--verbose");
    expect(all.out.match(/langgraph\/old-checkpoint-version/g)).toHaveLength(100);
    const py = await ckpt("validate", f, "--library", "python");
    expect(py.out).not.toContain("cross-library");
    expect(py.out).toContain("1 warning");
    const js = await ckpt("validate", f, "--library", "js");
    expect(js.out.match(/cross-library/g)).toHaveLength(2);
    const json = JSON.parse((await ckpt("validate", f, "--json")).out);
    expect(JSON.stringify(json)).toContain("100 threads");
  });

  it("a JS store read by JS: no cross-library warning; read by Python: the integer-versions one", async () => {
    const f = copyOf("js-a.sqlite");
    expect((await ckpt("validate", f, "--library", "js")).out).not.toContain("cross-library");
    expect((await ckpt("validate", f, "--library", "python")).out).toContain(
      "langgraph/cross-library/integer-versions",
    );
  });
});

describe("messages", () => {
  it("no message cites a section of a document (§); the id/step finding names one number when both libraries agree", async () => {
    const f = copyOf("js-a.sqlite");
    const db = new Database(f);
    // a step whose clock sequence both libraries write the same (step < 256): 0x8000 | step; the id says 0x9234
    const row = db
      .prepare(
        "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = 'a-chat-1' ORDER BY checkpoint_id DESC LIMIT 1",
      )
      .get() as { checkpoint_id: string; metadata: Buffer };
    const step = JSON.parse(row.metadata.toString()).step as number;
    expect(step).toBeLessThan(256);
    const id = row.checkpoint_id;
    const bad = `${id.slice(0, 19)}9234${id.slice(23)}`;
    const cp = db
      .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?")
      .pluck()
      .get(id) as Buffer;
    const doc = JSON.parse(cp.toString());
    doc.id = bad;
    db.prepare(
      "UPDATE checkpoints SET checkpoint_id = ?, checkpoint = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?",
    ).run(bad, Buffer.from(JSON.stringify(doc)), id);
    db.prepare("UPDATE writes SET checkpoint_id = ? WHERE thread_id = 'a-chat-1' AND checkpoint_id = ?").run(bad, id);
    db.close();
    const r = await ckpt("validate", f, "--verbose");
    const hit = r.out.split("\n").find((l) => l.includes("langgraph/id-step-mismatch"));
    const want = (0x8000 | step).toString(16);
    expect(hit).toContain(`the id's clock sequence 9234 is not the ${want} both libraries write for step ${step}`);
    expect(hit).not.toContain("neither");
    expect(r.out).not.toContain("§");
  });
});
