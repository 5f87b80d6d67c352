/**
 * The floor plan (DESIGN §3), checked from the source: every relative import in src/ points down the list of
 * layers (or stays in its own layer), and the pure layers (core/, formats/, view/) do no I/O of their own.
 * Type-only imports count too: a lower layer that names a higher layer's type depends on it.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const SRC = resolve(import.meta.dirname, "..", "src");
/** Bottom first. `index.ts` at the top of src/ is the library's front door and may import any layer. */
const LAYERS = ["generated", "base", "schema", "formats", "savers", "providers", "core", "view", "cli"] as const;
const PURE = new Set(["core", "formats", "view"]);
const IO_MODULES = [
  "fs",
  "fs/promises",
  "net",
  "http",
  "https",
  "http2",
  "worker_threads",
  "child_process",
  "dgram",
  "tls",
];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|cts)$/.test(f) && !/\.d\.[cm]?ts$/.test(f) ? [p] : [];
  });
}

const layerOf = (file: string): string | undefined => {
  const first = relative(SRC, file).split(sep)[0]!;
  return (LAYERS as readonly string[]).includes(first) ? first : undefined;
};

/** Module specifiers of static imports, re-exports and dynamic imports (comments removed first). */
export function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^;"'`]*?from\s*["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;}])import\s*["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]!);
  return out;
}

const files = walk(SRC);

test("the layer list covers every folder of src/", () => {
  const folders = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory());
  expect(folders.filter((f) => !(LAYERS as readonly string[]).includes(f))).toEqual([]);
});

test("the import scanner sees every kind of import (so the checks below can fail)", () => {
  const text = [
    'import { a } from "../core/x.js";',
    'import type { B } from "../cli/y.js";',
    'export * from "./z.js";',
    'import "node:fs";',
    'const m = await import("node:child_process");',
    '// import { c } from "../commented-out.js";',
  ].join("\n");
  expect(importsOf(text)).toEqual(["../core/x.js", "../cli/y.js", "./z.js", "node:fs", "node:child_process"]);
});

describe("imports point down the layers only", () => {
  for (const file of files) {
    const from = layerOf(file);
    if (!from) continue;
    test(relative(SRC, file), () => {
      const upward: string[] = [];
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const to = layerOf(resolve(dirname(file), spec));
        if (to === undefined) {
          upward.push(`${spec} (outside the layers)`);
          continue;
        }
        if (LAYERS.indexOf(to as never) > LAYERS.indexOf(from as never)) upward.push(`${spec} (${from} → ${to})`);
      }
      expect(upward).toEqual([]);
    });
  }
});

describe("core/, formats/ and view/ do no I/O of their own", () => {
  for (const file of files.filter((f) => PURE.has(layerOf(f) ?? ""))) {
    test(relative(SRC, file), () => {
      const text = readFileSync(file, "utf8");
      const io = importsOf(text).filter((s) => IO_MODULES.includes(s.replace(/^node:/, "")));
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
      if (/(^|[^\w.])fetch\s*\(/m.test(code)) io.push("fetch(");
      expect(io).toEqual([]);
    });
  }
});

/** Functions (incl. methods, arrows and factories whose closures hold methods) longer than this are split. */
const MAX_FUNCTION_LINES = 100;
/**
 * Known debt (issue #13, "no function over ~100 lines"): these still run over and are to be split. The list may
 * only shrink: a function that is not on it fails the test, and so does an entry that no longer runs over.
 */
// Biome's formatter (issue #28) wraps lines at 120 columns; these nine were under 100 lines before it and are
// over now. They are the next to split.
const OVER_LIMIT_DEBT = new Set<string>([
  "cli/replay.ts run",
  "cli/stats-render.ts renderLgStats",
  "core/diff/messages.ts diffMessages",
  "formats/amacs.ts fromCanonical",
  "schema/issues.ts describeError",
  "schema/lint.ts canonicalLint",
]);

test(`no function in src/ runs over ${MAX_FUNCTION_LINES} lines`, async () => {
  const ts = (await import("typescript")).default;
  const long: string[] = [];
  for (const file of files.filter((f) => layerOf(f) !== "generated")) {
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: import("typescript").Node) => {
      if (ts.isFunctionLike(n) && "body" in n && n.body) {
        const body = n.body as import("typescript").Node;
        const lines =
          sf.getLineAndCharacterOfPosition(body.getEnd()).line -
          sf.getLineAndCharacterOfPosition(body.getStart(sf)).line +
          1;
        if (lines > MAX_FUNCTION_LINES) {
          const parent = n.parent;
          const name =
            (n as { name?: import("typescript").Node }).name?.getText(sf) ??
            (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
              ? parent.name.getText(sf)
              : "<anonymous>");
          long.push(`${relative(SRC, file).split(sep).join("/")} ${name}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  expect(
    long.filter((f) => !OVER_LIMIT_DEBT.has(f)),
    "functions over the limit (split them)",
  ).toEqual([]);
  expect(
    [...OVER_LIMIT_DEBT].filter((f) => !long.includes(f)),
    "split already: remove from OVER_LIMIT_DEBT",
  ).toEqual([]);
});

test("the library's front door takes nothing from cli/ but main", () => {
  const text = readFileSync(join(SRC, "index.ts"), "utf8");
  const fromCli: string[] = [];
  for (const m of text.matchAll(/export\s*(type\s*)?\{([^}]*)\}\s*from\s*["']\.\/cli\/[^"']+["']/g))
    fromCli.push(
      ...m[2]!
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
  const star = [...text.matchAll(/(?:export|import)\s*\*[^;]*from\s*["'](\.\/cli\/[^"']+)["']/g)].map((m) => m[1]);
  const imports = [...text.matchAll(/import\s[^;]*from\s*["'](\.\/cli\/[^"']+)["']/g)].map((m) => m[1]);
  expect({ fromCli, star, imports }).toEqual({ fromCli: ["main"], star: [], imports: [] });
});

/**
 * An error made from another error keeps it as its `cause`: a CkptError (or storeError/inputError/usageError) whose
 * message quotes a caught error's message passes that error on, so a caller (or a bug report) still has the code,
 * errno and stack the text leaves out.
 */
test("errors built from a caught error keep it as their cause", async () => {
  const ts = (await import("typescript")).default;
  const MAKERS = new Set(["storeError", "inputError", "usageError", "CkptError"]);
  // the LangGraph store files are being merged into savers/langgraph/ (issue #28); they are fixed there
  const LATER = /^savers\/(lgstore|lgstats|langgraph\/)/;
  const dropped: string[] = [];
  for (const file of files.filter((f) => layerOf(f) !== "generated")) {
    const rel = relative(SRC, file).split(sep).join("/");
    if (LATER.test(rel)) continue;
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: import("typescript").Node) => {
      if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && n.arguments) {
        const callee = n.expression.getText(sf);
        if (MAKERS.has(callee)) {
          const caught = n.arguments.map((a) => a.getText(sf).match(/\b(e|err|error)\)?\.message\b/)?.[1]);
          const name = caught.find(Boolean);
          const last = n.arguments[n.arguments.length - 1]!.getText(sf);
          if (name && last !== name && !new RegExp(`cause:\\s*${name}\\b`).test(last))
            dropped.push(`${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  expect(dropped).toEqual([]);
});
