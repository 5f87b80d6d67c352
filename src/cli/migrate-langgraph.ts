/**
 * `ckpt migrate` between LangGraph stores (sqlite:<path> ⇄ postgres://…?schema=, same kind): whole histories,
 * checkpoint by checkpoint (core/lg-migrate.ts), with the journal, --resume, --dry-run, --on-conflict,
 * --reject-file and progress of the document migration. `--to-library python|js` converts on the way.
 */
import { existsSync } from "node:fs";
import { redactUri } from "../base/redact.js";
import { parseSaverUri } from "../savers/uri.js";
import { usageError } from "../base/errors.js";
import type { Library } from "../formats/langgraph/encode.js";
import type { ConflictPolicy, Journal, MigrateSummary } from "../core/migrate.js";
import type { CliIO } from "./io.js";

/**
 * Whether the sqlite:/postgres:// store at `uri` exists and holds every one of `tables` (in the URI's schema).
 * A read-only look: a missing database or server is "no"; -wal/-shm files a look at a WAL database made are removed.
 */
export async function storeHasTables(uri: string, env: NodeJS.ProcessEnv, tables: string[]): Promise<boolean> {
  const u = parseSaverUri(uri, env);
  if (u.kind === "sqlite") {
    if (!existsSync(u.location)) return false;
    const { default: Database } = await import("better-sqlite3");
    const { openReadOnlyDb } = await import("../savers/sqlite-open.js");
    let db;
    try {
      db = openReadOnlyDb(Database, u.location);
      const q = `SELECT count(DISTINCT name) AS n FROM sqlite_master WHERE type = 'table' AND name IN (${tables.map(() => "?").join(",")})`;
      return (db.prepare(q).get(...tables) as { n: number }).n === tables.length;
    } catch {
      return false;
    } finally {
      db?.close();
    }
  }
  if (u.kind !== "postgres") return false;
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: u.location, connectionTimeoutMillis: 5000 });
  try {
    await c.connect();
    const r = await c.query(
      "SELECT count(DISTINCT table_name)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2)",
      [u.params.get("schema") ?? "public", tables],
    );
    return r.rows[0].n === tables.length;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Whether `uri` names a LangGraph store: a SQLite file with `checkpoints` + `writes`, or a PostgreSQL schema with `checkpoints` + `checkpoint_blobs`. Opens read-only. */
export async function isLangGraphStore(uri: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return storeHasTables(
    uri,
    env,
    parseSaverUri(uri, env).kind === "sqlite" ? ["checkpoints", "writes"] : ["checkpoints", "checkpoint_blobs"],
  );
}

/** The options of a LangGraph migration that come from the command line and its journal and progress hooks. */
export function lgMigrateOptions(
  args: LgMigrateArgs,
  hooks: {
    journal?: Journal;
    onProgress: (p: import("../core/migrate.js").MigrateProgress) => void;
    onReject?: (r: import("../core/migrate.js").Rejected) => void;
  },
) {
  const threads = args.thread?.length ? new Set(args.thread) : undefined;
  return {
    threads: threads ? (t: string) => threads.has(t) : undefined,
    dryRun: args.dryRun,
    onConflict: args.onConflict === "default" ? ("auto" as const) : args.onConflict,
    verify: args.verify,
    strict: args.strict,
    batchSize: args.batchSize,
    journal: hooks.journal,
    onProgress: hooks.onProgress,
    onReject: hooks.onReject,
  };
}

export interface LgMigrateArgs {
  from: string;
  to: string;
  toLibrary?: string;
  thread?: string[];
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

export function parseLibrary(v: string | undefined): Library | undefined {
  if (v === undefined) return undefined;
  if (v !== "python" && v !== "js") throw usageError(`--to-library ${v}: expected python or js`);
  return v;
}

export async function runLangGraphMigrate(
  args: LgMigrateArgs,
  io: CliIO,
  hooks: {
    journal?: Journal;
    onProgress: (p: import("../core/migrate.js").MigrateProgress) => void;
    onReject?: (r: import("../core/migrate.js").Rejected) => void;
  },
): Promise<MigrateSummary & { library: Library }> {
  const toLibrary = parseLibrary(args.toLibrary);
  const to = parseSaverUri(args.to, io.env);
  if (to.kind !== "sqlite" && to.kind !== "postgres")
    throw usageError(
      `--to ${redactUri(args.to)}: a LangGraph history goes to a LangGraph store (sqlite:<path> or postgres://…?schema=)`,
    );
  const { openLgStore } = await import("../savers/lgstore.js");
  const { migrateLangGraph } = await import("../core/lg-migrate.js");
  const source = await openLgStore(args.from, { env: io.env, readonly: true });
  let target;
  try {
    // a dry run into a SQLite file that does not exist yet plans against an empty store and creates nothing
    const planOnly = args.dryRun && to.kind === "sqlite" && !existsSync(to.location);
    target = await openLgStore(planOnly ? "sqlite::memory:" : args.to, {
      env: io.env,
      create: !args.dryRun || planOnly,
    });
  } catch (e) {
    await source.close();
    throw e;
  }
  try {
    return await migrateLangGraph(source, target, { toLibrary, ...lgMigrateOptions(args, hooks) });
  } finally {
    await source.close().catch(() => undefined);
    await target.close().catch(() => undefined);
  }
}
