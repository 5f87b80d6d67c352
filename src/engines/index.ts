/**
 * Engines: the one place that turns an opened store into the engine of its layout (engines/<layout>/), and the one
 * place that refuses what a layout cannot do. savers/index.ts `openStore` decides the layout (from the tables, or
 * `?layout=`); `openEngine` opens the store and gives its engine.
 */
import { usageError } from "../base/errors.js";
import { type OpenedStore, type OpenOptions, openStore, parseSaverUri } from "../savers/index.js";
import type { SaverUri } from "../savers/uri.js";
import type { Capability, Engine, LayoutName, Owner, OwnerKey } from "./types.js";

export type * from "./types.js";

type Build<L extends LayoutName> = (opened: Extract<OpenedStore, { layout: L }>) => Engine;

/** Each layout's engine, built from the store `openStore` opened (loaded when a store of the layout is opened). */
const ENGINES: { [L in LayoutName]: () => Promise<Build<L>> } = {
  ckpt: async () => (await import("./ckpt/index.js")).ckptEngine,
  folder: async () => (await import("./ckpt/index.js")).ckptEngine,
  langgraph: async () => (await import("./langgraph/index.js")).langGraphEngine,
  mastra: async () => (await import("./mastra/index.js")).mastraEngine,
  "ai-chatbot": async () => (await import("./ai-chatbot/index.js")).aiChatbotEngine,
  "openai-agents-session": async () => (await import("./openai-agents/index.js")).openAISessionEngine,
};

/** The engine of a store `openStore` opened. */
export async function engineOf(opened: OpenedStore): Promise<Engine> {
  const build = (await ENGINES[opened.layout]()) as (o: OpenedStore) => Engine;
  return build(opened);
}

/** Open a store (its URI, as typed or parsed) and give its engine. */
export async function openEngine(uri: string | SaverUri, opts: OpenOptions = {}): Promise<Engine> {
  return engineOf(await openStore(typeof uri === "string" ? parseSaverUri(uri, opts.env) : uri, opts));
}

/** What each capability lets a command do, for refusals. */
const DOING: Record<Capability, string> = {
  history: "keeps one checkpoint per thread (no history)",
  namespaces: "has no namespaces",
  subgraphs: "has no checkpoint namespaces (subgraphs)",
  write: "is read here, never written",
  shared: "lives in this process only (no other process opens it)",
  parallelWriters: "takes one writer at a time (no --jobs)",
  prune: "cannot be pruned by ckpt",
  delete: "cannot have threads deleted by ckpt",
  copy: "cannot have threads copied by ckpt",
  encrypted: "holds no encrypted values",
  msgpack: "holds no msgpack values",
};

/**
 * The one refusal: an operation the store's layout cannot do is a usage error (exit 2) of one shape — the store, its
 * layout, what it cannot do, and what to use instead.
 */
export function requireCap(e: Engine, cap: Capability, what?: string): void {
  if (e.caps[cap]) return;
  const instead = e.instead[cap];
  throw usageError(
    `${e.uri.redacted} is ${e.title}: it ${DOING[cap]}${what ? ` (${what})` : ""}${instead ? `; ${instead}` : ""}`,
  );
}

/** The option each erasure criterion is given by. */
const OWNER_FLAG: Record<OwnerKey, string> = {
  resource: "--resource",
  user: "--user",
  match: "--match",
  where: "--where",
};

/**
 * The refusal of an erasure the layout cannot do (exit 2): a criterion of `o` it does not erase by, naming the ones
 * it does (or that it erases one thread at a time).
 */
export function requireErasure(e: Engine, o: Owner): void {
  const by = e.erasesBy ?? [];
  const given = (Object.keys(o) as OwnerKey[]).filter((k) => o[k] !== undefined);
  const missing = given.filter((k) => !by.includes(k));
  if (missing.length === 0 && e.eraseOwner) return;
  const can = by.length
    ? `it erases by ${by.map((k) => OWNER_FLAG[k]).join(" and ")}`
    : "delete its threads one at a time: <store>#<thread>";
  throw usageError(
    `${e.uri.redacted} is ${e.title}: ${missing.map((k) => OWNER_FLAG[k]).join(", ")} ${missing.length > 1 ? "are" : "is"} not a way it can erase (${e.holds} name no such owner); ${can}`,
  );
}
