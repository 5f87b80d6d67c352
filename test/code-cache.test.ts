/**
 * bin/code-cache.js (Node < 22.1): V8's compiled code of the bundle and the schema validators kept between runs
 * (issue #41). A run with the cache prints what a run without it prints; the cache is made from the file's text (a
 * changed file of the same length is compiled afresh, never run from the old code); a damaged cache file is made
 * again; a folder that cannot be used (not a folder, writable by others) or CKPT_CODE_CACHE=0 only costs the compile
 * time. On Node >= 22.1 bin/ckpt.js uses Node's own compile cache instead and these runs write nothing here.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const tmp = mkdtempSync(join(tmpdir(), "ckpt-code-cache-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = join(root, "fixtures", "deepagent", "valid", "user_42_session_1.json");
const node20 =
  typeof ((await import("node:module")).default as { enableCompileCache?: unknown }).enableCompileCache !== "function";

function run(bin: string, cache: string | undefined, args = ["validate", fixture]) {
  const env = { ...process.env, NO_COLOR: "1" } as Record<string, string>;
  delete env.CKPT_CODE_CACHE;
  if (cache !== undefined) env.CKPT_CODE_CACHE = cache;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
/** The cache files under a cache folder (one folder per ckpt version and Node). */
function cacheFiles(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  let subs: string[];
  try {
    subs = readdirSync(dir);
  } catch {
    return out;
  }
  for (const s of subs)
    for (const f of readdirSync(join(dir, s))) out.set(`${s}/${f}`, statSync(join(dir, s, f)).mtimeMs);
  return out;
}

describe.runIf(node20)("V8 code cache of the bundle (Node 20)", () => {
  const bin = join(root, "bin", "ckpt.js");
  const plain = run(bin, "0");

  it("a run makes it, the next runs use it and print the same", () => {
    expect(plain.code, plain.err).toBe(0);
    const dir = join(tmp, "a");
    const first = run(bin, dir);
    expect(first).toEqual(plain);
    const made = cacheFiles(dir);
    // the bundle's entry, its chunks and the deep-agent quick validators (a valid file needs no other)
    const names = [...made.keys()].map((k) => k.split("/")[1]!);
    expect(names.some((n) => n.startsWith("main.js-"))).toBe(true);
    expect(names.some((n) => n.startsWith("formats-deepagent.quick.cjs-"))).toBe(true);
    const again = run(bin, dir);
    expect(again).toEqual(plain);
    // nothing rewritten: the cached code was taken
    expect(cacheFiles(dir)).toEqual(made);
    // a command needing other chunks adds theirs
    const help = run(bin, dir, ["convert", "--help"]);
    expect(help.code).toBe(0);
    expect(cacheFiles(dir).size).toBeGreaterThan(made.size);
  });

  it("a damaged cache file is not used and is made again", () => {
    const dir = join(tmp, "b");
    run(bin, dir);
    const made = cacheFiles(dir);
    const main = [...made.keys()].find((k) => k.split("/")[1]!.startsWith("main.js-"))!;
    writeFileSync(join(dir, main), Buffer.alloc(4096, 7));
    expect(run(bin, dir)).toEqual(plain);
    expect(readFileSync(join(dir, main)).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it("a folder it cannot use costs nothing but the compile time", () => {
    // inside a file: cannot be made
    const file = join(tmp, "file");
    writeFileSync(file, "x");
    expect(run(bin, join(file, "cache"))).toEqual(plain);
    // writable by others: code in it could be anyone's, so it is not read or written
    const open = join(tmp, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(run(bin, open)).toEqual(plain);
    expect(cacheFiles(open).size).toBe(0);
    // off
    expect(run(bin, "0")).toEqual(plain);
  });

  it("a file changed to a text of the same length runs as changed, not from the old code", () => {
    // a copy of the package whose dist/bundle/ is a copy (the rest of dist/ and schemas/ linked)
    const pkg = join(tmp, "pkg");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    mkdirSync(join(pkg, "dist"));
    for (const f of ["ckpt.js", "code-cache.js", "package.json"])
      copyFileSync(join(root, "bin", f), join(pkg, "bin", f));
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    for (const e of readdirSync(join(root, "dist")))
      if (e !== "bundle") symlinkSync(join(root, "dist", e), join(pkg, "dist", e));
    cpSync(join(root, "dist", "bundle"), join(pkg, "dist", "bundle"), { recursive: true });
    symlinkSync(join(root, "schemas"), join(pkg, "schemas"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    const dir = join(tmp, "c");
    const pkgBin = join(pkg, "bin", "ckpt.js");
    expect(run(pkgBin, dir)).toEqual(plain);
    expect(run(pkgBin, dir)).toEqual(plain);
    // the summary's "N invalid", written "N INVALID": same length, other text
    const chunk = readdirSync(join(pkg, "dist", "bundle"))
      .map((f) => join(pkg, "dist", "bundle", f))
      .find((f) => readFileSync(f, "utf8").includes("} invalid`"))!;
    const text = readFileSync(chunk, "utf8");
    writeFileSync(chunk, text.replace("} invalid`", "} INVALID`"));
    expect(readFileSync(chunk).length).toBe(Buffer.byteLength(text));
    const before = [...cacheFiles(dir).keys()];
    const name = chunk.slice(chunk.lastIndexOf("/") + 1);
    expect(before.filter((k) => k.includes(`/${name}-`))).toHaveLength(1);
    const changed = run(pkgBin, dir);
    expect(changed.code).toBe(0);
    expect(changed.out).toContain("0 INVALID");
    expect(changed.out.replace("INVALID", "invalid")).toBe(plain.out);
    // the entry made from the old text is replaced (it now holds the new text), not kept beside the new one
    const after = [...cacheFiles(dir).keys()].filter((k) => k.includes(`/${name}-`));
    expect(after).toHaveLength(1);
    const entry = readFileSync(join(dir, after[0]!), "latin1");
    expect(entry).toContain("} INVALID`");
    expect(entry).not.toContain("} invalid`");
    // another install (this checkout) keeps a folder of its own
    expect(run(bin, dir)).toEqual(plain);
    expect(new Set([...cacheFiles(dir).keys()].map((k) => k.split("/")[0])).size).toBe(2);
  });

  it("a run that writes new data removes the entries of files that are gone (a rebuild's old chunks)", () => {
    const dir = join(tmp, "d");
    run(bin, dir);
    const [folder] = new Set([...cacheFiles(dir).keys()].map((k) => k.split("/")[0]));
    const gone = join(dir, folder!, "formats-0ld0ld0l.js-1234-abcd");
    writeFileSync(gone, "old");
    // a run that finds everything cached writes nothing and leaves the folder as it is
    run(bin, dir);
    expect(cacheFiles(dir).has(`${folder}/formats-0ld0ld0l.js-1234-abcd`)).toBe(true);
    // a run that loads a chunk not cached yet writes it, and prunes
    expect(run(bin, dir, ["convert", "--help"]).code).toBe(0);
    expect(cacheFiles(dir).has(`${folder}/formats-0ld0ld0l.js-1234-abcd`)).toBe(false);
    expect(cacheFiles(dir).size).toBeGreaterThan(10);
  });
});
