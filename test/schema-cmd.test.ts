/** `ckpt schema list | show | export`: names and $ids, unknown names with suggestions, export layout and safety. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";

const ROOT = join(import.meta.dirname, "..");

async function run(argv: string[], cwd = ROOT) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1" },
    cwd,
  });
  return { code, out, err };
}

/** Every schema file under schemas/, relative ("Checkpoint.json", "formats/yoagent/messages.json"). */
function schemaFiles(dir = join(ROOT, "schemas"), prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? schemaFiles(join(dir, e.name), `${prefix}${e.name}/`)
      : e.name.endsWith(".json")
        ? [`${prefix}${e.name}`]
        : [],
  );
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-schema-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("list", () => {
  test("text: every schema with its $id", async () => {
    const r = await run(["schema", "list"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Checkpoint\s+Checkpoint\s+https:\/\/ckpt\.dev\/schemas\/v1\/Checkpoint\.json$/m);
    expect(r.out.trim().split("\n")).toHaveLength(schemaFiles().length);
  });
  test("--json lists name, title, id, file for each schema file", async () => {
    const list = JSON.parse((await run(["schema", "list", "--json"])).out);
    expect(list.map((s: { file: string }) => s.file).sort()).toEqual(schemaFiles().sort());
    for (const s of list) {
      const text = JSON.parse(readFileSync(join(ROOT, "schemas", s.file), "utf8"));
      expect(s.id).toBe(text.$id);
    }
  });
});

describe("show", () => {
  test("prints the schema file", async () => {
    const r = await run(["schema", "show", "Checkpoint"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(readFileSync(join(ROOT, "schemas/Checkpoint.json"), "utf8"));
  });
  test("format schemas by full or short name, case-insensitively", async () => {
    const want = readFileSync(join(ROOT, "schemas/formats/yoagent/messages.json"), "utf8");
    expect((await run(["schema", "show", "formats/yoagent/messages"])).out).toBe(want);
    expect((await run(["schema", "show", "yoagent/messages"])).out).toBe(want);
    expect((await run(["schema", "show", "checkpoint"])).code).toBe(0);
  });
  test("unknown name: exit 2 with close names", async () => {
    const r = await run(["schema", "show", "Checkpont"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown schema 'Checkpont': did you mean Checkpoint");
    expect((await run(["schema", "show"])).code).toBe(2);
  });
});

describe("export", () => {
  test("writes every schema with its folder layout plus index.json", async () => {
    const out = join(dir, "exported");
    const r = await run(["schema", "export", out]);
    expect(r.code).toBe(0);
    for (const f of schemaFiles())
      expect(readFileSync(join(out, f), "utf8")).toBe(readFileSync(join(ROOT, "schemas", f), "utf8"));
    const index = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
    expect(index.length).toBe(schemaFiles().length);
    // no temp folders left beside it
    expect(readdirSync(dir).filter((n) => n.includes(".ckpt-"))).toEqual([]);
    // exporting again is a no-op
    expect((await run(["schema", "export", out])).code).toBe(0);
  });
  test("refuses to overwrite a different file without --force, and writes nothing then", async () => {
    const out = join(dir, "conflict");
    mkdirSync(out);
    writeFileSync(join(out, "Checkpoint.json"), "{}\n");
    const r = await run(["schema", "export", out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("existing file(s) differ (Checkpoint.json)");
    expect(r.err).toContain("--force");
    expect(readdirSync(out)).toEqual(["Checkpoint.json"]);
    expect(readFileSync(join(out, "Checkpoint.json"), "utf8")).toBe("{}\n");
    const f = await run(["schema", "export", out, "--force"]);
    expect(f.code).toBe(0);
    expect(readFileSync(join(out, "Checkpoint.json"), "utf8")).toBe(
      readFileSync(join(ROOT, "schemas/Checkpoint.json"), "utf8"),
    );
    expect(existsSync(join(out, "formats/yoagent/messages.json"))).toBe(true);
  });
});

describe("a mistyped action", () => {
  test("'schema lst <dir>' is a usage error naming the choices and writes nothing (it used to export into <dir>)", async () => {
    const target = join(dir, "typo");
    const r = await run(["schema", "lst", target]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/lst/);
    expect(r.err).toMatch(/list.*show.*export|choices/i);
    expect(existsSync(target)).toBe(false);
  });
  test("'schema foo' is a usage error about the action, not 'needs a directory'", async () => {
    const r = await run(["schema", "foo"]);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/needs a directory/);
    expect(r.err).toMatch(/foo/);
  });
});
