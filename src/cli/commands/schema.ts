/**
 * `ckpt schema list | show <name> | export <dir>`: ckpt's JSON Schemas (canonical model and native formats) for
 * use in other tools and CI.
 */
import { readFile, stat } from "node:fs/promises";
import { writeFilesAtomic } from "../../base/atomic.js";
import { join, resolve } from "node:path";
import { SCHEMAS_DIR } from "../paths.js";
import type { CommandDef } from "../command.js";
import { ExitCode, inputError, usageError } from "../../base/errors.js";
import { schemaIndex, type SchemaInfo } from "../../generated/schema-index.js";
import type { CliIO } from "../io.js";

/** The package's schemas/ folder (works from src/ and dist/). */
export { SCHEMAS_DIR };

/** Path of a schema inside schemas/, e.g. "formats/yoagent/messages.json". */
const relFile = (s: SchemaInfo) => s.file.replace(/^schemas\//, "");

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_x, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length]!;
}

/** Find a schema by name (case-insensitive; "formats/x/y", "x/y" or the file name also match). */
export function findSchema(name: string): SchemaInfo {
  const n = name.toLowerCase().replace(/\.json$/, "");
  const hit = schemaIndex.find((s) => {
    const sn = s.name.toLowerCase();
    return (
      sn === n ||
      sn === `formats/${n}` ||
      relFile(s)
        .toLowerCase()
        .replace(/\.json$/, "") === n
    );
  });
  if (hit) return hit;
  const close = schemaIndex
    .map((s) => ({
      s,
      d: Math.min(distance(n, s.name.toLowerCase()), s.name.toLowerCase().includes(n) ? 1 : Infinity),
    }))
    .filter((x) => x.d <= Math.max(2, Math.floor(n.length / 3)))
    .sort((a, b) => a.d - b.d)
    .map((x) => x.s.name);
  const list = close.length
    ? `did you mean ${close.slice(0, 5).join(", ")}?`
    : `known schemas: ${schemaIndex.map((s) => s.name).join(", ")}`;
  throw usageError(`unknown schema '${name}': ${list} (ckpt schema list shows them all)`);
}

async function schemaText(s: SchemaInfo): Promise<string> {
  return readFile(join(SCHEMAS_DIR, relFile(s)), "utf8");
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Write every schema (folder layout kept) plus index.json into `dir`. Files that exist with other content are
 * refused unless `force`; everything goes through the one atomic writer (temp files, then renames).
 */
export async function exportSchemas(dir: string, force: boolean): Promise<{ written: number; unchanged: number }> {
  const files = new Map<string, string>();
  for (const s of schemaIndex) files.set(relFile(s), await schemaText(s));
  files.set(
    "index.json",
    JSON.stringify(
      schemaIndex.map((s) => ({ name: s.name, id: s.id, title: s.title, file: relFile(s) })),
      null,
      2,
    ) + "\n",
  );
  const conflicts: string[] = [];
  let unchanged = 0;
  for (const [rel, text] of files) {
    const target = join(dir, rel);
    if (!(await exists(target))) continue;
    let old: string;
    try {
      old = await readFile(target, "utf8");
    } catch (e) {
      throw inputError(
        "unreadable",
        `cannot read existing file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        { file: target },
      );
    }
    if (old === text) unchanged++;
    else conflicts.push(rel);
  }
  if (conflicts.length && !force) {
    throw usageError(
      `${dir}: ${conflicts.length} existing file(s) differ (${conflicts.slice(0, 3).join(", ")}${conflicts.length > 3 ? ", …" : ""}); use --force to overwrite`,
    );
  }
  // one atomic write for the whole set: every file is written and synced before any is renamed into place
  await writeFilesAtomic([...files].map(([rel, text]) => ({ path: join(dir, rel), text })));
  return { written: files.size - unchanged, unchanged };
}

interface SchemaArgs {
  action: string;
  target?: string;
  json: boolean;
  force: boolean;
}

export const schemaCommand: CommandDef = {
  command: "schema <action> [target]",
  describe: "List, show or export ckpt's JSON Schemas (list | show <name> | export <dir>)",
  builder: (y) =>
    y
      .positional("action", { type: "string", choices: ["list", "show", "export"], describe: "list | show | export" })
      .positional("target", { type: "string", describe: "schema name (show) or directory (export)" })
      .option("json", { type: "boolean", default: false, describe: "list: machine-readable output" })
      .option("force", { type: "boolean", default: false, describe: "export: overwrite files that differ" })
      .example("ckpt schema list", "names, titles and $ids")
      .example("ckpt schema show formats/yoagent/messages", "one schema")
      .example("ckpt schema export ./ckpt-schemas", "every schema plus index.json"),
  run: async (args: SchemaArgs, io: CliIO) => {
    if (args.action === "list") {
      if (args.target !== undefined) throw usageError("schema list takes no argument");
      if (args.json) {
        io.stdout.write(
          JSON.stringify(
            schemaIndex.map((s) => ({ name: s.name, title: s.title, id: s.id, file: relFile(s) })),
            null,
            2,
          ) + "\n",
        );
      } else {
        const w = Math.max(...schemaIndex.map((s) => s.name.length));
        const tw = Math.max(...schemaIndex.map((s) => s.title.length));
        io.stdout.write(schemaIndex.map((s) => `${s.name.padEnd(w)}  ${s.title.padEnd(tw)}  ${s.id}\n`).join(""));
      }
      return ExitCode.OK;
    }
    if (args.target === undefined)
      throw usageError(
        args.action === "show"
          ? "schema show needs a schema name (ckpt schema list shows them)"
          : "schema export needs a directory",
      );
    if (args.action === "show") {
      io.stdout.write(await schemaText(findSchema(args.target)));
      return ExitCode.OK;
    }
    if (args.action !== "export") throw usageError(`unknown schema action '${args.action}': list, show or export`);
    const dir = resolve(io.cwd, args.target);
    const r = await exportSchemas(dir, args.force);
    io.stderr.write(`${args.target}: ${r.written} file(s) written, ${r.unchanged} unchanged\n`);
    return ExitCode.OK;
  },
};
