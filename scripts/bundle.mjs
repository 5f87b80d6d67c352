#!/usr/bin/env node
// Bundles the CLI (tsc's dist/cli/main.js and what it imports, npm packages included) into dist/bundle/ with
// rolldown, for a faster cold start (issue #13). bin/ckpt.js requires dist/bundle/main.js when it is there. Runs
// after tsc and copy-generated (npm run build); the library entry (dist/index.js) stays tsc's ES modules.
//
// CommonJS, not ES modules: on Node 20 an ES module graph is read through the thread pool and linked by the ESM
// loader (which itself loads fs/promises, streams and readline), and a `ckpt validate small.json` spent ~30 ms
// more that way than with require() reading the same code synchronously (whole process, 30 alternating runs).
// dist/bundle/package.json says "commonjs" so the chunks keep their .js names.
//
// Code splitting keeps every lazily imported module lazy: each `import()` in the sources (the command modules,
// yargs, the stores) starts its own chunk, required only by the runs that need it. The chunks sit directly in
// dist/bundle/, one folder below the package like dist/cli/, so `new URL("../../schemas/", import.meta.url)`
// (schema.ts) still finds schemas/; `import.meta.url` is each chunk's own file URL.
// check-worker is an entry of its own because check-pool.ts starts it as `./check-worker.js` beside itself.
//
// Special cases:
//   - dist/generated/validators.js is bundled, and requires its per-group validators from dist/generated/validators/
//     (the path in it is rewritten from the chunk's folder);
//   - dist/view/client.cjs and client-panels.cjs stay outside and are required where tsc put them: `ckpt view`
//     copies these functions' source text into the page, which must stay what tsc wrote (a bundler renames
//     clashing names and reprints code);
//   - better-sqlite3 (native) and the database clients pg, pg-copy-streams and ioredis: large, required only with a
//     database store, and left as they always were in node_modules.
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outDir = join(dist, "bundle");

/** dist/ files that stay separate (absolute paths). */
const separate = ["view/client.cjs", "view/client-panels.cjs"].map((f) => join(dist, f));
const externalPackages = /^(node:|better-sqlite3$|pg$|pg-copy-streams$|ioredis$)/;
const validatorsJs = join(dist, "generated", "validators.js");
const groupsFrom = "require(`./validators/${g}.cjs`)";
const groupsTo = `require(\`${relative(outDir, join(dist, "generated")).split(sep).join("/")}/validators/\${g}.cjs\`)`;

/** CommonJS has no import.meta: modules that read import.meta.url get it from a constant their chunk defines. */
const META_URL = "__ckpt_import_meta_url";
const usesMetaUrl = new Set();
/**
 * `createRequire(import.meta.url)` (base/lazy.js, generated/validators.js) is the chunk's own `require` in CommonJS:
 * it resolves from the same folder. Using that one spares a run loading node:module, which on Node 20 loads the ES
 * module loader too (~2 ms of a short run, issue #41), and the chunk's file URL.
 */
const CJS_REQUIRE = "__ckpt_require";
const CREATE_REQUIRE_IMPORT = 'import { createRequire } from "node:module";\n';
const CREATE_REQUIRE_CALL = "createRequire(import.meta.url)";
const usesRequire = new Set();

/**
 * Two chunks instead of ~20 small ones for what a short run always loads (issue #41): each chunk costs a run a
 * module resolution (stats, realpath), two file reads (the chunk and its code cache) and a compile, ~0.1-0.3 ms, and
 * a tiny `ckpt validate` loaded 24 of them. "core" is everything cli/main.js imports statically (every run loads
 * it); "files" what reading a checkpoint file needs on top of it: core/document.js (reading, detecting and checking
 * one), cli/input.js (naming files and stores) and base/atomic.js (writing files), with their static imports. What
 * a command imports lazily (`import()`) stays in chunks of its own, loaded only by the runs that need them.
 */
const groupSeeds = {
  core: ["cli/main.js"],
  files: ["core/document.js", "cli/input.js", "base/atomic.js"],
};
/** module id -> group name; filled at buildEnd from the module graph (static imports only) */
const groupOf = new Map();

rmSync(outDir, { recursive: true, force: true });
await build({
  input: { main: join(dist, "cli", "main.js"), "check-worker": join(dist, "cli", "check-worker.js") },
  platform: "node",
  external: (id, importer) => {
    if (externalPackages.test(id)) return true;
    return Boolean(importer && id.startsWith(".") && separate.includes(join(dirname(importer), id)));
  },
  transform: { define: { "import.meta.url": META_URL } },
  plugins: [
    {
      name: "create-require",
      transform(code, id) {
        // ckpt's own modules only (a package's code is bundled as it is)
        if (!id.startsWith(dist + sep) || !code.includes(CREATE_REQUIRE_CALL)) return null;
        const rest = code.replace(CREATE_REQUIRE_IMPORT, "").split(CREATE_REQUIRE_CALL).join(CJS_REQUIRE);
        // only the plain form: an import of createRequire used for anything else is left as it is
        if (!code.includes(CREATE_REQUIRE_IMPORT) || rest.includes("createRequire"))
          throw new Error(`${id}: expected ${CREATE_REQUIRE_IMPORT.trim()} used only as ${CREATE_REQUIRE_CALL}`);
        usesRequire.add(id);
        return rest;
      },
    },
    {
      name: "import-meta-url",
      transform(code, id) {
        if (code.includes("import.meta.url")) usesMetaUrl.add(id);
        return null;
      },
    },
    {
      name: "chunk-groups",
      buildEnd() {
        for (const [name, seeds] of Object.entries(groupSeeds)) {
          const todo = seeds.map((f) => join(dist, f));
          while (todo.length > 0) {
            const id = todo.pop();
            if (groupOf.has(id) || !id.startsWith(dist + sep) || id.endsWith(".cjs")) continue;
            const info = this.getModuleInfo(id);
            if (!info) throw new Error(`chunk groups: ${id} is not in the module graph (moved?)`);
            groupOf.set(id, name);
            todo.push(...info.importedIds);
          }
        }
        // the entry itself stays the entry chunk
        groupOf.delete(join(dist, "cli", "main.js"));
      },
    },
    {
      name: "validators-path",
      transform(code, id) {
        if (id !== validatorsJs) return null;
        if (!code.includes(groupsFrom)) throw new Error(`${id}: expected ${groupsFrom} (scripts/gen.mjs changed?)`);
        return code.replace(groupsFrom, groupsTo);
      },
    },
  ],
  onLog(level, log, handler) {
    // "x is imported dynamically here and statically there": expected (the static importers are lazy chunks).
    if (log.code === "INEFFECTIVE_DYNAMIC_IMPORT") return;
    // yargs' `extends` option reads import.meta.resolve; ckpt never passes `extends`.
    if (log.code === "EMPTY_IMPORT_META" && /[/\\]node_modules[/\\]yargs[/\\]/.test(log.id ?? "")) return;
    handler(level, log);
  },
  output: {
    dir: outDir,
    format: "cjs",
    // ASCII output (issue #41): V8 takes an ASCII file as one-byte text, but decodes UTF-8 (~800 KB of it per run,
    // ~20M instructions) when it is not. Non-ASCII characters in strings, templates and regular expressions are
    // written as \u escapes (the same values; a regular expression's `source` shows the escape); the JSDoc comments,
    // where the rest were (em dashes, arrows), are dropped: nothing reads a bundled function's text (the view's
    // client functions stay tsc's files). test/bundle.test.ts checks every emitted file is ASCII.
    charset: "ascii",
    comments: { legal: true, annotation: true, jsdoc: false },
    // import() of better-sqlite3, pg, … becomes require(): no ES module loader at run time
    dynamicImportInCjs: false,
    // `import.meta.url` in a chunk is the chunk's own file URL; `createRequire(import.meta.url)` its own require
    banner: (chunk) =>
      [
        chunk.moduleIds.some((id) => usesMetaUrl.has(id))
          ? `const ${META_URL} = require("node:url").pathToFileURL(__filename).href;`
          : "",
        chunk.moduleIds.some((id) => usesRequire.has(id)) ? `const ${CJS_REQUIRE} = require;` : "",
      ]
        .filter(Boolean)
        .join("\n"),
    codeSplitting: {
      groups: Object.keys(groupSeeds).map((name, i) => ({
        name,
        test: (id) => groupOf.get(id) === name,
        // a module both groups reach goes to core, which every run loads
        priority: Object.keys(groupSeeds).length - i,
      })),
    },
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    // a separate dist/ file is required by its path relative to dist/bundle/
    paths: (id) => (separate.includes(id) ? relative(outDir, id).split(sep).join("/") : id),
  },
});
writeFileSync(join(outDir, "package.json"), '{ "type": "commonjs" }\n');
