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
const LAYERS = [
  "generated",
  "base",
  "schema",
  "formats",
  "savers",
  "providers",
  "core",
  "engines",
  "view",
  "cli",
] as const;
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
  "cli/commands/replay.ts run",
  "cli/render/stats.ts renderLgStats",
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
  const dropped: string[] = [];
  for (const file of files.filter((f) => layerOf(f) !== "generated")) {
    const rel = relative(SRC, file).split(sep).join("/");
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

/** The module a relative specifier names (`./x.js` is `./x.ts` in the source), or undefined outside src/. */
function targetOf(file: string, spec: string, known: Set<string>): string | undefined {
  const base = resolve(dirname(file), spec);
  for (const c of [base, base.replace(/\.js$/, ".ts"), base.replace(/\.cjs$/, ".cts"), base.replace(/\.mjs$/, ".mts")])
    if (known.has(c)) return c;
  return undefined;
}

/**
 * The import cycles of a module graph (static imports, re-exports and lazy `import()` alike): every strongly
 * connected set of two or more modules, or a module that imports itself, as `a → b → … → a` (Tarjan's algorithm).
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/**
 * Module specifiers a module loads when it runs: static imports, re-exports and lazy `import()`, without the
 * type-only ones (`import type`, `export type`), which are erased (the page script's two halves in view/ name each
 * other's types).
 */
export function runtimeImportsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const typeOnly = code
    .replace(/(^|[\s;}])(?:import|export)\s+type\s[^;"'`]*?from\s*["'][^"']+["']/g, "$1")
    // `import("./x.js").Name` in a type position names a type; a runtime import() is awaited or `.then`-ed
    .replace(/\bimport\s*\(\s*["'][^"']+["']\s*\)\s*\.(?!then\b)[A-Za-z_$]/g, "");
  return importsOf(typeOnly);
}

/** The module graph of src/: each file's relative runtime imports, resolved to files. */
function moduleGraph(): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const to = runtimeImportsOf(readFileSync(file, "utf8"))
      .filter((s) => s.startsWith("."))
      .map((s) => targetOf(file, s, known))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(to)]);
  }
  return graph;
}

test("the cycle finder sees a circle closed by any kind of import (so the check below can fail)", () => {
  expect(
    runtimeImportsOf(
      [
        'import type { A } from "./a.js";',
        'export type { B } from "./b.js";',
        'import { type C, d } from "./c.js";',
        'const e = await import("./e.js");',
        'let f: import("./f.js").F;',
        'import("./g.js").then((m) => m.g);',
      ].join("\n"),
    ),
  ).toEqual(["./c.js", "./e.js", "./g.js"]);
  const g = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a"]], // e.g. closed by a lazy import()
    ["d", ["d"]],
    ["e", ["a"]],
  ]);
  expect(importCycles(g)).toEqual([["a", "b", "c"], ["d"]]);
  expect(
    importCycles(
      new Map([
        ["a", ["b"]],
        ["b", []],
      ]),
    ),
  ).toEqual([]);
});

test("no import cycle in src/ (static imports, re-exports and lazy import() alike; type-only imports are erased)", () => {
  const cycles = importCycles(moduleGraph()).map((c) => c.map((f) => relative(SRC, f).split(sep).join("/")));
  expect(cycles).toEqual([]);
});

/** Database drivers: only savers/ talks to a database. */
const DRIVERS = ["better-sqlite3", "pg", "ioredis"];
/** What a table-list look reads: the catalogue of SQLite, PostgreSQL. */
const CATALOGUE = /\b(sqlite_master|sqlite_schema|information_schema|to_regclass|pg_catalog)\b/;

describe("no layer above savers/ runs SQL or imports a database driver", () => {
  for (const file of files.filter((f) => ["core", "engines", "view", "cli", "providers"].includes(layerOf(f) ?? ""))) {
    test(relative(SRC, file), () => {
      const text = readFileSync(file, "utf8");
      const drivers = importsOf(text).filter((s) => DRIVERS.includes(s));
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
      const sql = [...code.matchAll(new RegExp(CATALOGUE, "g"))].map((m) => m[1]);
      expect({ drivers, sql }).toEqual({ drivers: [], sql: [] });
    });
  }
});

test("one layout decision: the table looks that tell LangGraph's layout from ckpt's are called from savers/index.ts only", () => {
  const LOOKS = /\b(sqliteTables|isLangGraphSqlite|inspectPgSchema)\s*\(/g;
  const HOMES = new Set(["savers/langgraph/sqlite.ts", "savers/langgraph/postgres/connect.ts"]);
  const callers = new Set<string>();
  for (const file of files) {
    const rel = relative(SRC, file).split(sep).join("/");
    if (HOMES.has(rel)) continue;
    const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    if (LOOKS.test(code)) callers.add(rel);
    LOOKS.lastIndex = 0;
  }
  expect([...callers]).toEqual(["savers/index.ts"]);
});

/** A command that compares a layout name, or asks whether a saver is LangGraph's, switches on the layout. */
const LAYOUT_SWITCH = /layout\s*[!=]==|isLangGraphSaver\(/;

test("the switch finder sees a layout switch (so the check below can fail)", () => {
  expect(
    ['if (opened.layout === "mastra") {', "const lg = isLangGraphSaver(saver);", 'if (source.layout!=="x")'].map((l) =>
      LAYOUT_SWITCH.test(l),
    ),
  ).toEqual([true, true, true]);
  expect(LAYOUT_SWITCH.test("if (engine.caps.prune) {")).toBe(false);
});

test("commands hold no layout switch: they ask the store's engine (src/engines/), refusals come from its capabilities", () => {
  const switches: string[] = [];
  for (const file of files.filter((f) => layerOf(f) === "cli")) {
    const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    code.split("\n").forEach((line, i) => {
      if (LAYOUT_SWITCH.test(line.replace(/\/\/.*$/, ""))) switches.push(`${relative(SRC, file)}:${i + 1}`);
    });
  }
  expect(switches).toEqual([]);
});

/** Rooms of a size one can hold in one's head (issue #36): generated code aside. */
const MAX_FILE_LINES = 900;

test(`no source file in src/ runs over ${MAX_FILE_LINES} lines (src/generated/ aside)`, () => {
  const big = files
    .filter((f) => layerOf(f) !== "generated")
    .map((f) => ({ file: relative(SRC, f).split(sep).join("/"), lines: readFileSync(f, "utf8").split("\n").length }))
    .filter((x) => x.lines > MAX_FILE_LINES);
  expect(big).toEqual([]);
});
