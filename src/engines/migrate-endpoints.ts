/**
 * What `ckpt migrate` asks before and around its run: the layout a new target takes, the layout a target is known to
 * have before it is opened, and the options either end cannot honour — `--jobs` among them, refused in one place
 * from the target's `parallelWriters` with one message shape. Each layout's route (engines/<layout>/migrate.ts: its
 * refusals and its endpoint on the one pipeline, core/migrate/pipeline.ts) is given by its engine (`migration()`).
 * No command switches on a layout.
 */
import { existsSync } from "node:fs";
import { usageError } from "../base/errors.js";
import type { MigrateSummary } from "../core/migrate/types.js";
import { forcedLayout } from "../savers/index.js";
import type { SaverUri } from "../savers/uri.js";
import type { MigrationRoute, RouteArgs, RouteHooks } from "./migrate-route.js";
import type { Engine, LayoutName } from "./types.js";

export type { RouteArgs, RouteHooks } from "./migrate-route.js";

const documents = async () => (await import("./ckpt/migrate.js")).route;

/**
 * The route of a layout a target is known to have before it is opened (layoutBeforeOpen), for the refusals that must
 * come before anything is created; once stores are open, their engines give their routes (`engine.migration()`).
 */
const BEFORE_OPEN: Record<LayoutName, () => Promise<MigrationRoute>> = {
  ckpt: documents,
  folder: documents,
  "openai-agents-session": documents,
  langgraph: async () => (await import("./langgraph/migrate.js")).route,
  mastra: async () => (await import("./mastra/migrate.js")).route,
  "ai-chatbot": async () => (await import("./ai-chatbot/migrate.js")).route,
};

/** The layout a store opened to write takes when empty (`openStore`'s `want`). */
export type WantedLayout = "langgraph" | "ckpt" | "mastra" | "ai-chatbot";

const isDb = (u: SaverUri) => u.kind === "sqlite" || u.kind === "postgres";

/**
 * Which layout the target is asked to take when empty: the source's own for a LangGraph history, a Mastra store's
 * memory and a Chat SDK database's chats (unless documents are asked for with --to-format); LangGraph's for
 * `--to-format langgraph` and `--to-library`; what `?layout=` forces; else ckpt's own. A LangGraph history goes to a
 * sqlite:/postgres:// store only.
 */
export function targetWant(args: RouteArgs, source: LayoutName, to: SaverUri): WantedLayout {
  const forced = isDb(to) ? forcedLayout(to) : undefined;
  if (forced === "ai-chatbot" || forced === "mastra") return forced;
  if (isDb(to) && source === "ai-chatbot" && (args.toFormat === undefined || args.toFormat === "ai-sdk"))
    return "ai-chatbot";
  if (isDb(to) && (args.toFormat === "mastra" || (source === "mastra" && args.toFormat === undefined))) return "mastra";
  if (source === "langgraph") {
    if (!isDb(to))
      throw usageError(
        `--to ${to.redacted}: a LangGraph history goes to a LangGraph store (sqlite:<path> or postgres://…?schema=)`,
      );
    return "langgraph";
  }
  return args.toFormat === "langgraph" || args.toLibrary !== undefined ? "langgraph" : "ckpt";
}

/**
 * The layout a target will have, when it is known before opening it: the only one its kind holds, what `?layout=`
 * forces, LangGraph's for a LangGraph history, the one asked for by a SQLite file that does not exist yet.
 * Else its tables tell, once it is open (opening a store that exists creates nothing).
 */
export function layoutBeforeOpen(to: SaverUri, want: WantedLayout, source: LayoutName): LayoutName | undefined {
  const forced = isDb(to) ? forcedLayout(to) : "ckpt";
  if (forced === "openai-agents-session") return undefined;
  if (forced !== undefined) return forced;
  if (source === "langgraph") return "langgraph";
  // a SQLite file that does not exist yet is created in the layout asked for
  if (to.kind === "sqlite" && to.location !== ":memory:" && !existsSync(to.location)) return want;
  return undefined;
}

/** The one refusal of `--jobs`: a target whose engine takes one writer, named with why (exit 2). */
function refuseJobs(jobs: number | undefined, parallelWriters: boolean, route: MigrationRoute, to: string): void {
  if (jobs !== undefined && jobs > 1 && !parallelWriters)
    throw usageError(`--jobs ${jobs}: ${route.oneWriter(to)} (leave --jobs out, or --jobs 1)`);
}

/** The options the run's two ends cannot honour (exit 2): `--jobs` first, then the target's route, then the source's. */
function refuse(
  args: RouteArgs & { jobs?: number },
  routes: { source: MigrationRoute; target: MigrationRoute },
  ends: { source: LayoutName; target: LayoutName; parallelWriters: boolean },
  to: SaverUri,
): void {
  refuseJobs(args.jobs, ends.parallelWriters, routes.target, to.redacted);
  routes.target.refuseAsTarget(args, ends.source, to.redacted);
  routes.source.refuseAsSource?.(ends.target, to.redacted);
}

/**
 * Before the target is opened (when its layout is known already: nothing is created yet), the options its layout's
 * route cannot honour; `--jobs` from whether a target of that layout at `to` takes parallel writers.
 */
export async function refuseBeforeOpen(
  args: RouteArgs & { jobs?: number },
  source: Engine,
  target: LayoutName,
  to: SaverUri,
): Promise<void> {
  const route = await BEFORE_OPEN[target]();
  const ends = { source: source.layout, target, parallelWriters: route.parallelWriters(to) };
  refuse(args, { source: await source.migration(), target: route }, ends, to);
}

/** Once both stores are open, the options their engines' routes cannot honour; `--jobs` from `caps.parallelWriters`. */
export async function refuseOpened(
  args: RouteArgs & { jobs?: number },
  source: Engine,
  target: Engine,
  to: SaverUri,
): Promise<void> {
  const ends = { source: source.layout, target: target.layout, parallelWriters: target.caps.parallelWriters };
  refuse(args, { source: await source.migration(), target: await target.migration() }, ends, to);
}

/** Run the migration from `source` into `target` through the target engine's route (its endpoint on the pipeline). */
export async function runRoute(
  source: Engine,
  target: Engine,
  args: RouteArgs,
  hooks: RouteHooks,
): Promise<MigrateSummary> {
  return (await target.migration()).run(source.opened, target.opened, args, hooks);
}
