#!/usr/bin/env node
// Builds bin/standalone/ckpt.cjs: the whole CLI in one CommonJS file, committed, which the GitHub Action (action.yml)
// and the pre-commit hook (.pre-commit-hooks.yaml) run from a plain checkout of ckpt: no npm install, no build
// (issue #38: both compiled ckpt first, minutes per job). The npm package keeps dist/ (scripts/bundle.mjs).
//
//   node scripts/standalone.mjs           rewrite the file from tsc's dist/ (npm run build first): `npm run standalone`
//   node scripts/standalone.mjs --check   build it into a temporary folder and compare: exit 1 when the committed file
//                                         is not what dist/ builds (test/standalone.test.ts runs it, like gen:check)
//
// Everything a command can load is inside, each lazily imported module still evaluated only when imported: the
// commands, yargs, the generated validators (src/generated/validators/*.cjs and the ajv runtime they require), the
// packages base/lazy.ts loads on first use, the view page's client functions, and the pure JavaScript database
// clients (pg, pg-copy-streams, ioredis). Left outside:
//   - better-sqlite3, a native module: required when an SQLite store is opened, from a node_modules folder above the
//     file or NODE_PATH; where it is missing, ckpt says so (exit 4) and validating files never needs it. The action
//     installs it on its own (one package, prebuilt) only when its paths name an SQLite store;
//   - pg-native (pg's optional native binding, never used by ckpt) and pg-cloudflare (Cloudflare Workers only);
//   - schemas/ (`ckpt schema`) and package.json (the version), read from the checkout: the file sits two folders
//     below the package like dist/cli/ and dist/bundle/, so `../../schemas/` from its own URL is the package's;
//   - check-worker: there is no worker file beside it, so migrate checks records on the main thread (check-pool.ts).
// The output is deterministic (no hashes, no absolute paths): the same dist/ and node_modules build the same bytes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const target = join(root, "bin", "standalone", "ckpt.cjs");
const check = process.argv.includes("--check");
const posix = (p) => p.split(sep).join("/");

if (!existsSync(join(dist, "cli", "main.js"))) {
  console.error("scripts/standalone.mjs: dist/cli/main.js is missing: npm run build first");
  process.exit(2);
}

/** CommonJS has no import.meta: modules that read import.meta.url get the file's own URL from this constant. */
const META_URL = "__ckpt_import_meta_url";
const ENTRY = "\0ckpt-standalone-entry";
const validatorsJs = join(dist, "generated", "validators.js");
const groupsFrom = "require(`./validators/${g}.cjs`)";
const lazyJs = join(dist, "base", "lazy.js");
const viewClient = ["client.cjs", "client-panels.cjs"].map((f) => join(dist, "view", f));
const lazyFrom = "requireHere(id)";

/** Every `lazyModule("<package>")` of dist/: each package becomes a static require the bundler can follow. */
function lazyPackages() {
  const ids = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== join(dist, "bundle")) walk(p);
      } else if (e.name.endsWith(".js")) {
        for (const m of readFileSync(p, "utf8").matchAll(/\blazyModule\(\s*"([^"]+)"\s*\)/g)) ids.add(m[1]);
      }
    }
  };
  walk(dist);
  return [...ids].sort();
}

/** `require` of each key, as a switch on the variable `v` (unknown: a thrown Error naming it). */
function requireSwitch(v, specifiers) {
  const cases = Object.entries(specifiers)
    .map(([k, spec]) => `case ${JSON.stringify(k)}: return require(${JSON.stringify(spec)});`)
    .join(" ");
  return `((${v}) => { switch (${v}) { ${cases} default: throw new Error("standalone ckpt: no module " + ${v}); } })(${v})`;
}

/**
 * The generated validators stay in the checkout's src/generated/validators/ (committed, 4.9 MB): bundled, they made the
 * file 8.8 MB, and every run slower by V8 reading them (~150 ms). A group is compiled from there on first use with
 * the packages it requires (the ajv runtime's helpers) handed in from the bundle, since the checkout has no
 * node_modules to resolve them from.
 */
function groupLoader() {
  const folder = join(root, "src", "generated", "validators");
  const packages = new Set();
  for (const f of readdirSync(folder).filter((f) => f.endsWith(".cjs")))
    for (const m of readFileSync(join(folder, f), "utf8").matchAll(/\brequire\("([^"./][^"]*)"\)/g)) packages.add(m[1]);
  return [
    'import { readFileSync as readGroup } from "node:fs";',
    'import { compileFunction } from "node:vm";',
    'import { dirname as groupDir } from "node:path";',
    'import { fileURLToPath as groupPath } from "node:url";',
    `const groupsFolder = new URL("../../${posix(relative(root, folder))}/", import.meta.url);`,
    `const groupRequire = (id) => ${requireSwitch("id", Object.fromEntries([...packages].sort().map((p) => [p, p])))};`,
    "function loadGroup(g) {",
    "  const file = groupPath(new URL(`${g}.cjs`, groupsFolder));",
    '  const params = ["exports", "require", "module", "__filename", "__dirname"];',
    '  const run = compileFunction(readGroup(file, "utf8"), params, { filename: file });',
    "  const module = { exports: {} };",
    "  run(module.exports, groupRequire, module, file, groupDir(file));",
    "  return module.exports;",
    "}",
  ].join("\n");
}

async function bundle(outFile) {
  const lazy = lazyPackages();
  await build({
    input: ENTRY,
    cwd: root,
    platform: "node",
    external: /^(node:|better-sqlite3$|pg-native$|pg-cloudflare$)/,
    transform: { define: { "import.meta.url": META_URL } },
    plugins: [
      {
        name: "entry",
        resolveId: (id) => (id === ENTRY ? id : null),
        load: (id) =>
          id === ENTRY
            ? `import { exitAfterRun, main } from ${JSON.stringify(posix(relative(root, join(dist, "cli", "main.js"))).replace(/^/, "./"))};\n` +
              "main(process.argv.slice(2)).then(exitAfterRun);\n"
            : null,
      },
      {
        // the packages base/lazy.ts requires, taken as an import would take them: their ES module build (the
        // CommonJS builds of jsonc-parser and lossless-json are UMD, whose inner requires a bundler cannot follow)
        name: "lazy-packages-as-modules",
        resolveId(id, _importer, extra) {
          if (!lazy.includes(id) || extra.kind !== "require-call") return null;
          const pkgDir = join(root, "node_modules", id);
          const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
          const esm = pkg.exports?.["."]?.import ?? pkg.module;
          return esm ? join(pkgDir, esm) : null;
        },
      },
      {
        // `ckpt view` copies the client functions' source text into the page, which must stay what tsc wrote (a
        // bundler reprints code): each file's text is carried as a string and evaluated when first required
        name: "view-client-as-written",
        load(id) {
          if (!viewClient.includes(id)) return null;
          const text = readFileSync(id, "utf8");
          return (
            "const m = { exports: {} };\n" +
            `new Function("exports", "module", ${JSON.stringify(text)})(m.exports, m);\n` +
            "module.exports = m.exports;\n"
          );
        },
      },
      {
        name: "static-requires",
        transform(code, id) {
          if (id === validatorsJs) {
            if (!code.includes(groupsFrom)) throw new Error(`${id}: expected ${groupsFrom} (scripts/gen.mjs changed?)`);
            // the module's own `require` (createRequire) would hide the global one the bundler follows
            const own = "const require = createRequire(import.meta.url);";
            if (!code.includes(own)) throw new Error(`${id}: expected ${own} (scripts/gen.mjs changed?)`);
            return `${groupLoader()}\n${code.replace(own, "").replace(groupsFrom, "loadGroup(g)")}`;
          }
          if (id === lazyJs) {
            if (!code.includes(lazyFrom)) throw new Error(`${id}: expected ${lazyFrom} (base/lazy.ts changed?)`);
            return code.replace(lazyFrom, requireSwitch("id", Object.fromEntries(lazy.map((p) => [p, p]))));
          }
          return null;
        },
      },
    ],
    onLog(level, log, handler) {
      // yargs' `extends` option reads import.meta.resolve; ckpt never passes `extends`.
      if (log.code === "EMPTY_IMPORT_META" && /[/\\]node_modules[/\\]yargs[/\\]/.test(log.id ?? "")) return;
      handler(level, log);
    },
    output: {
      file: outFile,
      format: "cjs",
      codeSplitting: false,
      // import() of better-sqlite3 becomes require(): no ES module loader at run time
      dynamicImportInCjs: false,
      banner: [
        "#!/usr/bin/env node",
        "// GENERATED by scripts/standalone.mjs from dist/ (npm run build && npm run standalone) — do not edit.",
        "// The whole ckpt CLI in one file, for the GitHub Action and the pre-commit hook: node bin/standalone/ckpt.cjs …",
        `if (Number(process.versions.node.split(".")[0]) < 20) { process.stderr.write("ckpt: needs Node.js 20 or later (this is " + process.version + ")\\n"); process.exit(2); }`,
        `const ${META_URL} = require("node:url").pathToFileURL(__filename).href;`,
      ].join("\n"),
    },
  });
  chmodSync(outFile, 0o755);
}

if (check) {
  const tmp = mkdtempSync(join(tmpdir(), "ckpt-standalone-"));
  try {
    const built = join(tmp, "ckpt.cjs");
    await bundle(built);
    const want = readFileSync(built, "utf8");
    const have = existsSync(target) ? readFileSync(target, "utf8") : undefined;
    if (have !== want) {
      console.error(
        `${posix(relative(root, target))} is ${have === undefined ? "missing" : "stale"}: it is not what dist/ builds.` +
          " Run `npm run build && npm run standalone` and commit it.",
      );
      process.exit(1);
    }
    console.log(`${posix(relative(root, target))} is up to date (${want.length} bytes)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  mkdirSync(dirname(target), { recursive: true });
  await bundle(target);
  console.error(`wrote ${posix(relative(root, target))} (${readFileSync(target).length} bytes)`);
}
