// The one atomic writer (base/atomic.ts): every target written whole or not at all, no temp file left behind,
// failures as store errors (exit 4) naming the path; phi-core sessions written through it with phi-core's temp name.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic, writeFilesAtomic } from "../src/base/atomic.js";
import { CkptError, ExitCode } from "../src/base/errors.js";
import { isDocName } from "../src/savers/folder-scan.js";
import { phiTempPath, writeLikePhiCore } from "../src/savers/phi-lock.js";

const tmp = () => mkdtempSync(join(tmpdir(), "ckpt-atomic-"));

describe("writeFilesAtomic", () => {
  it("writes each target and leaves no temp file", async () => {
    const d = tmp();
    await writeFilesAtomic([
      { path: join(d, "a.json"), text: "[1]" },
      { path: join(d, "sub", "b.json"), text: "[2]" },
    ]);
    expect(readFileSync(join(d, "a.json"), "utf8")).toBe("[1]");
    expect(readFileSync(join(d, "sub", "b.json"), "utf8")).toBe("[2]");
    expect(readdirSync(d).sort()).toEqual(["a.json", "sub"]);
  });

  it("renames nothing when one target cannot be written: the others keep their old text, no temp remains (exit 4)", async () => {
    const d = tmp();
    writeFileSync(join(d, "a.json"), "old");
    writeFileSync(join(d, "blocker"), "a file where a folder is needed");
    const err = await writeFilesAtomic([
      { path: join(d, "a.json"), text: "new" },
      { path: join(d, "blocker", "b.json"), text: "new" },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CkptError);
    expect((err as CkptError).exitCode).toBe(ExitCode.STORE);
    expect((err as CkptError).place.file).toBe(join(d, "blocker", "b.json"));
    expect(readFileSync(join(d, "a.json"), "utf8")).toBe("old");
    expect(readdirSync(d).sort()).toEqual(["a.json", "blocker"]);
  });

  it("writes through the temp path it is given", async () => {
    const d = tmp();
    const asked: string[] = [];
    await writeFileAtomic(join(d, "c.json"), "{}", {
      tempPath: (p) => {
        asked.push(p);
        return `${p}.mine`;
      },
    });
    expect(asked).toEqual([join(d, "c.json")]);
    // a temp path in a folder that does not exist cannot be opened: proof the given one is used
    const err = await writeFileAtomic(join(d, "e.json"), "{}", { tempPath: () => join(d, "missing", "t") }).catch(
      (e: unknown) => e,
    );
    expect((err as CkptError).exitCode).toBe(ExitCode.STORE);
    expect(readdirSync(d).sort()).toEqual(["c.json"]);
  });
});

describe("phi-core sessions", () => {
  it("use phi-core's temp name, <path>.tmp.<pid>.<nanos>, which a folder scan passes over", async () => {
    const t = phiTempPath("/x/sess-1.json");
    expect(t).toMatch(new RegExp(`^/x/sess-1\\.json\\.tmp\\.${process.pid}\\.\\d{10,}$`));
    expect(isDocName(basename(t))).toBe(false);
    const d = tmp();
    await writeLikePhiCore(join(d, "sess-1.json"), '{"session_id":"sess-1"}');
    expect(readFileSync(join(d, "sess-1.json"), "utf8")).toBe('{"session_id":"sess-1"}');
    expect(readdirSync(d)).toEqual(["sess-1.json"]);
  });
});
