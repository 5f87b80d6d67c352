/**
 * `ckpt migrate --from <ckpt saver or folder> --to <LangGraph store>`: every thread of any seed format becomes a
 * LangGraph thread (one checkpoint, LangChain messages; core/lg-convert.ts) in a LangGraph SQLite or PostgreSQL store,
 * through the LangGraph migration engine (batches, one transaction each, journal and --resume, read-back
 * verification, --dry-run, --on-conflict). The target is a LangGraph store when `?layout=langgraph` says so, when it
 * already holds LangGraph tables, or when `--to-format langgraph` names a sqlite:/postgres:// target without
 * `?layout=ckpt`. Threads that cannot be converted (unreadable, lossy without --allow-lossy, a thread id the target
 * already holds with other checkpoints) are rejected (exit 5) and listed.
 */
import { existsSync } from "node:fs";
import type { ConflictPolicy, Journal, MigrateProgress, MigrateSummary, Rejected } from "../core/migrate.js";
import type { Library } from "../formats/langgraph/encode.js";
import type { CliIO } from "./io.js";
import { namespaceFor } from "./input.js";
import { openStore } from "./stores.js";

export interface IntoLgArgs {
  from: string;
  to: string;
  toFormat?: string;
  toLibrary?: string;
  namespace?: string[];
  thread?: string[];
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

/** Whether `--to` is a LangGraph store to write seed-format threads into (see the module comment). */
export async function intoLangGraph(
  args: Pick<IntoLgArgs, "to" | "toFormat">,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const { parseSaverUri } = await import("../savers/uri.js");
  const u = parseSaverUri(args.to, env);
  if (u.kind !== "sqlite" && u.kind !== "postgres") return false;
  const layout = u.params.get("layout");
  if (layout === "langgraph") return true;
  if (layout === "ckpt") return false;
  // a database that holds ckpt's own tables keeps ckpt's layout (documents in the `langgraph` format)
  if (await holdsCkptTables(args.to, env)) return false;
  if (args.toFormat === "langgraph") return true;
  const { isLangGraphStore } = await import("./migrate-langgraph.js");
  return isLangGraphStore(args.to, env);
}

export async function runIntoLangGraph(
  args: IntoLgArgs,
  io: CliIO,
  hooks: { journal?: Journal; onProgress: (p: MigrateProgress) => void },
): Promise<MigrateSummary & { library: Library }> {
  const { parseLibrary } = await import("./migrate-langgraph.js");
  const { parseSaverUri } = await import("../savers/uri.js");
  const { openLgStore } = await import("../savers/lgstore.js");
  const { migrateLangGraph } = await import("../core/lg-migrate.js");
  const { documentsAsLgSource } = await import("../core/lg-convert.js");
  const fromNs = namespaceFor(args.from, args.namespace?.length === 1 ? args.namespace[0] : undefined);
  const saver = await openStore(args.from, { readOnly: true, env: io.env });
  const to = parseSaverUri(args.to, io.env);
  const planOnly = args.dryRun && to.kind === "sqlite" && !existsSync(to.location);
  const target = await openLgStore(planOnly ? "sqlite::memory:" : args.to, {
    env: io.env,
    create: !args.dryRun || planOnly,
  }).catch(async (e) => {
    await saver.close();
    throw e;
  });
  try {
    const namespaces =
      fromNs !== undefined ? [fromNs] : args.namespace?.length ? args.namespace : await saver.namespaces();
    const library =
      parseLibrary(args.toLibrary) ?? ((await target.hasLayout()) ? await target.library() : undefined) ?? "js";
    const rejected: Rejected[] = [];
    const source = documentsAsLgSource(
      {
        count: async () => (await Promise.all(namespaces.map((ns) => saver.count(ns)))).reduce((a, b) => a + b, 0),
        async *batches(size) {
          for (const ns of namespaces) yield* saver.scan({ namespace: ns, batchSize: size });
        },
      },
      target,
      { library, allowLossy: args.allowLossy, now: Date.now(), reject: (r) => void rejected.push(r) },
    );
    const { lgMigrateOptions } = await import("./migrate-langgraph.js");
    const s = await migrateLangGraph(source, target, lgMigrateOptions(args, hooks));
    // documents that never became checkpoints: read, and rejected
    s.read += rejected.length;
    s.rejected += rejected.length;
    s.rejectedRecords.push(...rejected);
    s.library = library;
    return s;
  } finally {
    await saver.close().catch(() => undefined);
    await target.close().catch(() => undefined);
  }
}

/** Whether the sqlite:/postgres:// store at `uri` exists and holds ckpt's own table (read-only look). */
export async function holdsCkptTables(uri: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const { parseSaverUri } = await import("../savers/uri.js");
  const { storeHasTables } = await import("./migrate-langgraph.js");
  return storeHasTables(uri, env, [parseSaverUri(uri, env).params.get("table") ?? "ckpt_checkpoints"]);
}
