/**
 * The one place `ckpt migrate` turns its two opened stores into a run: the layout a new target takes, the route of
 * the target's layout (its endpoint on the one pipeline, core/migrate/pipeline.ts), and the options either end
 * cannot honour — `--jobs` among them, refused from the target engine's `parallelWriters` with one message shape.
 * No command switches on a layout: each layout's route lives in engines/<layout>/migrate.ts.
 */
import { existsSync } from "node:fs";
import { usageError } from "../base/errors.js";
import type { MigrateSummary } from "../core/migrate/types.js";
import { forcedLayout, type OpenedStore } from "../savers/index.js";
import type { SaverUri } from "../savers/uri.js";
import type { MigrationRoute, RouteArgs, RouteHooks } from "./migrate-route.js";
import type { Engine, LayoutName } from "./types.js";

export type { RouteArgs, RouteHooks } from "./migrate-route.js";

const documents = async () => (await import("./ckpt/migrate.js")).route;

/** Each layout's migration route (loaded when a run has it at one of its ends). */
const ROUTES: Record<LayoutName, () => Promise<MigrationRoute>> = {
  ckpt: documents,
  folder: documents,
  // read as documents; as a target its engine refuses writing (caps.write)
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

/**
 * The options the run's two ends cannot honour, refused (exit 2) before anything is written: `--jobs` from the
 * target's capability (`parallelWriters`: its engine's, or, before the target is opened, its layout's route's), then
 * the target's route, then the source's.
 */
export async function refuseOptions(
  args: RouteArgs & { jobs?: number },
  ends: { source: LayoutName; target: LayoutName; targetEngine?: Engine },
  to: SaverUri,
): Promise<void> {
  const target = await routeOf(ends.target);
  const parallel = ends.targetEngine ? ends.targetEngine.caps.parallelWriters : target.parallelWriters(to);
  refuseJobs(args.jobs, parallel, target, to.redacted);
  target.refuseAsTarget(args, ends.source, to.redacted);
  (await routeOf(ends.source)).refuseAsSource?.(ends.target, to.redacted);
}

/** The route of a layout: the one function that picks what a migration does with a store. */
export function routeOf(layout: LayoutName): Promise<MigrationRoute> {
  return ROUTES[layout]();
}

/** Run the migration from `source` into `target` through the target layout's endpoint. */
export async function runRoute(
  source: OpenedStore,
  target: OpenedStore,
  args: RouteArgs,
  hooks: RouteHooks,
): Promise<MigrateSummary> {
  return (await routeOf(target.layout)).run(source, target, args, hooks);
}
