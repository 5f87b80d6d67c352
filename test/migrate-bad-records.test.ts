/**
 * #15 item 13: one bad record does not stop a migration. A FileSaver id collision (`a/b` vs `a_b`), a thread id too
 * long for a file name and an empty thread id are rejected — into --reject-file, each naming its record (the source
 * file where the id is empty) — and the rest finishes with exit 5; the same with --resume. `--to file:<a file>` leaves
 * no journal, and an amacs folder as --from is read (not "read 0", exit 0).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";

const ROOT = join(import.meta.dirname, "..");
const BASE = JSON.parse(
  readFileSync(join(ROOT, "fixtures/savers/deepagent-filesaver/user_42_session_1.json"), "utf8"),
) as Record<string, unknown>;
const LONG = "L".repeat(300); // FileSaver's name: 300 bytes + ".json", over the 255-byte name limit

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "ckpt-badrec-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** main() in `cwd`; store URIs with a relative path are made absolute (the stores resolve against the process's folder). */
async function run(argv: string[], cwd: string) {
  let out = "";
  let err = "";
  const code = await main(
    argv.map((a) => a.replace(/^(file|sqlite):(?!\/)/, `$1:${cwd}/`)),
    {
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      stdin: Readable.from([]),
      env: { NO_COLOR: "1", XDG_STATE_HOME: join(cwd, "state"), HOME: cwd },
      cwd,
    },
  );
  return { code, out, err };
}

/** A source folder: x1 = "a/b", x2 = "a_b" (both FileSaver-named a_b.json), x3 = 300 × "L", x4 = "", x5 = "good". */
function source(cwd: string): string {
  const src = join(cwd, "src");
  mkdirSync(src, { recursive: true });
  ["a/b", "a_b", LONG, "", "good"].forEach((id, i) =>
    writeFileSync(join(src, `x${i + 1}.json`), JSON.stringify({ ...BASE, threadId: id }, null, 2)),
  );
  return src;
}

const journals = (cwd: string) =>
  existsSync(join(cwd, "state", "ckpt")) ? readdirSync(join(cwd, "state", "ckpt")) : [];
const rejects = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { threadId: string; reason: string; file?: string });

function expectThreeRejected(r: { code: number; out: string; err: string }, rejectFile: string, cwd: string) {
  expect(r.code, r.err + r.out).toBe(5);
  expect(r.out).toMatch(/read 5, written \d, skipped \d.*, rejected 3/);
  expect(r.out).toContain(`rejected: ${join(cwd, "src", "x4.json")}: a thread id must be a non-empty string`);
  expect(r.out).toContain(
    `rejected: default#a/b: ${join(cwd, "out", "a_b.json")}: thread ids 'a/b' and 'a_b' both map to a_b.json`,
  );
  // the summary line cuts a very long id (with its length); the reject file keeps it whole (below)
  expect(r.out).toMatch(
    new RegExp(
      `rejected: default#${LONG.slice(0, 48)}… \\(300 characters\\): .*thread id is too long for a file name \\(305 bytes; the limit is 250\\)`,
    ),
  );
  expect(r.out).not.toContain(LONG.slice(0, 100));
  const rej = rejects(rejectFile).sort((a, b) => a.threadId.localeCompare(b.threadId));
  expect(rej.map((x) => x.threadId)).toEqual(["", "a/b", LONG]);
  expect(rej[0]).toMatchObject({ file: join(cwd, "src", "x4.json"), reason: "a thread id must be a non-empty string" });
  // the rest is written: a_b and good, and nothing else
  expect(readdirSync(join(cwd, "out")).sort()).toEqual(["a_b.json", "good.json"]);
  expect(JSON.parse(readFileSync(join(cwd, "out", "a_b.json"), "utf8")).threadId).toBe("a_b");
  expect(journals(cwd)).toEqual([]);
}

describe("migrate: records the target cannot hold are rejected, the rest finishes (exit 5)", () => {
  it("collision, too-long id and empty id, into a new folder", async () => {
    const cwd = join(dir, "new");
    source(cwd);
    const r = await run(
      ["migrate", "--from", "file:src", "--to", "file:out", "--reject-file", "rej.ndjson", "-q"],
      cwd,
    );
    expectThreeRejected(r, join(cwd, "rej.ndjson"), cwd);
  });

  it("the same one record per batch into a folder that exists (the conflict lookup of a too-long id is not an I/O error)", async () => {
    const cwd = join(dir, "existing");
    source(cwd);
    mkdirSync(join(cwd, "out"));
    const r = await run(
      ["migrate", "--from", "file:src", "--to", "file:out", "--batch-size", "1", "--reject-file", "rej.ndjson", "-q"],
      cwd,
    );
    expectThreeRejected(r, join(cwd, "rej.ndjson"), cwd);
  });

  it("--resume of an interrupted run rejects the same records and finishes", async () => {
    const cwd = join(dir, "resume");
    source(cwd);
    // the journal an interrupted run leaves: its header and one committed record ("good", already in the target)
    mkdirSync(join(cwd, "out"));
    writeFileSync(join(cwd, "out", "good.json"), JSON.stringify({ ...BASE, threadId: "good" }, null, 2));
    const journal = join(cwd, "j.journal");
    writeFileSync(
      journal,
      `${JSON.stringify({ ckptMigrateJournal: 1, from: "file:src", to: "file:out" })}\n${JSON.stringify({ k: "default\u0000good", h: "x" })}\n`,
    );
    const blocked = await run(
      ["migrate", "--from", "file:src", "--to", "file:out", "--journal", "j.journal", "-q"],
      cwd,
    );
    expect(blocked.code).toBe(2);
    expect(blocked.err).toContain("pass --resume to finish it");
    const r = await run(
      [
        "migrate",
        "--from",
        "file:src",
        "--to",
        "file:out",
        "--journal",
        "j.journal",
        "--resume",
        "--reject-file",
        "rej.ndjson",
        "-q",
      ],
      cwd,
    );
    expect(r.out).toContain("(1 done before the interruption)");
    expectThreeRejected(r, join(cwd, "rej.ndjson"), cwd);
    expect(existsSync(journal)).toBe(false);
  });
});

describe("migrate: no journal left behind, no silent empty source", () => {
  it("--to file:<an existing file> is a usage error that leaves no journal and leaves the file alone", async () => {
    const cwd = join(dir, "tofile");
    source(cwd);
    writeFileSync(join(cwd, "afile"), "hi\n");
    const r = await run(["migrate", "--from", "file:src", "--to", "file:afile"], cwd);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`'file:${cwd}/afile' is a file`);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(journals(cwd)).toEqual([]);
    expect(readFileSync(join(cwd, "afile"), "utf8")).toBe("hi\n");
  });

  it("--from an amacs home (the folder itself, or a folder holding homes) reads its thread", async () => {
    const cwd = join(dir, "amacs");
    mkdirSync(join(cwd, "homes"), { recursive: true });
    cpSync(join(ROOT, "fixtures/amacs/valid/agent-home"), join(cwd, "agent-home"), { recursive: true });
    cpSync(join(ROOT, "fixtures/amacs/valid/agent-home"), join(cwd, "homes", "agent-home"), { recursive: true });
    for (const from of ["file:agent-home", "file:homes"]) {
      const r = await run(["migrate", "--from", from, "--to", `sqlite:${from.slice(5)}.db`, "-q"], cwd);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain("read 1, written 1, skipped 0, rejected 0, verified 1");
      const ls = await run(["ls", `sqlite:${from.slice(5)}.db`], cwd);
      expect(ls.out).toContain("agent-home");
    }
  });
});
