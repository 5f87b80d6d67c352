/**
 * Checkpoint addresses: `<saver-uri>#<thread>[@<checkpoint>]`, where `<checkpoint>` is a checkpoint id or a unique
 * prefix of one, `latest` (the default: the newest checkpoint of the root namespace), or `~N` (N steps back along
 * the parent chain from the newest). The thread id is percent-decoded. A thread id that itself holds an `@` followed
 * by something selector-like (`user@cafe`) still works: when the part before the `@` names no thread but the whole
 * fragment does, the whole fragment is the thread (`%40` for the `@` makes it explicit).
 *
 * Every saver has a history: a LangGraph store's is its checkpoints; ckpt's own stores keep one document per
 * thread, so their history is that one document (its id: the first 16 hex digits of its content hash).
 */
import { inputError, usageError } from "../base/errors.js";
import type { LgHistoryEntry } from "../formats/langgraph/types.js";
import { readCheckpoint } from "../formats/index.js";
import { contentHash } from "./common.js";
import { isLangGraphSaver } from "./langgraph/shared.js";
import type { Saver } from "./types.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "./types.js";
import { parseSaverUri, type SaverUri } from "./uri.js";

export type Selector = { kind: "latest" } | { kind: "back"; n: number } | { kind: "id"; prefix: string };

/**
 * A checkpoint address, parsed once where the user typed it: the store (scheme, location, options), the thread,
 * the namespace and the checkpoint. Commands pass it down; nothing below parses it again.
 */
export interface Address {
  /** the store part (before the first `#`), parsed */
  store: SaverUri;
  threadId: string;
  /** the checkpoint: the newest, N steps back, or an id (prefix) */
  selector: Selector;
  /** the URI's `?namespace=`, else the one the command was given (both, disagreeing, is a usage error) */
  namespace?: string;
  /** The whole fragment, decoded, when a selector-like suffix was split off it (it may be a thread id holding an `@`). */
  literal?: string;
}

export interface AddressOptions {
  env?: NodeJS.ProcessEnv;
  /** the command's `--namespace` */
  namespace?: string;
  /** where a bare path (no scheme) is taken from: the store part as it will be opened */
  locate?: (storePart: string) => string;
}

const SELECTOR = /^(latest|~\d+|[0-9a-fA-F][0-9a-fA-F-]*)$/;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Split `<store>#<thread>[@<checkpoint>]`. One rule, for every command: the **first** `#` ends the store (thread ids
 * may hold `#`, deep-agent's `user:42/session#1`; a store path holding `#` is named with `%23`); the last `@`
 * starts a selector when what follows is one.
 */
export function splitAddress(spec: string): { store: string; fragment?: string } {
  const hash = spec.indexOf("#");
  return hash < 0 ? { store: spec } : { store: spec.slice(0, hash), fragment: spec.slice(hash + 1) };
}

/** The thread and checkpoint of an address's fragment (what follows the first `#`). */
export function parseFragment(
  frag: string,
  spec: string,
): Pick<Address, "threadId" | "selector"> & { literal?: string } {
  const at = frag.lastIndexOf("@");
  let thread = frag;
  let selector: Selector = { kind: "latest" };
  if (at >= 0 && SELECTOR.test(frag.slice(at + 1))) {
    thread = frag.slice(0, at);
    const sel = frag.slice(at + 1);
    selector =
      sel === "latest"
        ? { kind: "latest" }
        : sel.startsWith("~")
          ? { kind: "back", n: Number(sel.slice(1)) }
          : { kind: "id", prefix: sel.toLowerCase() };
  }
  const threadId = decode(thread);
  if (!threadId) throw usageError(`'${spec}': the thread id after '#' is empty`);
  return thread === frag ? { threadId, selector } : { threadId, selector, literal: decode(frag) };
}

/** Parse `<store>#<thread>[@<checkpoint>]` into an Address (the store URI parsed here, once). */
export function parseAddress(spec: string, o: AddressOptions = {}): Address {
  const { store: part, fragment } = splitAddress(spec);
  if (fragment === undefined)
    throw usageError(`'${spec}': a checkpoint address is <store>#<thread>[@<checkpoint>|@latest|@~N]`);
  const at = parseFragment(fragment, spec);
  const store = parseSaverUri(o.locate ? o.locate(part) : part, o.env);
  const namespace = namespaceOf(store, o.namespace);
  return { store, ...at, ...(namespace !== undefined ? { namespace } : {}) };
}

export function formatSelector(s: Selector): string {
  return s.kind === "latest" ? "latest" : s.kind === "back" ? `~${s.n}` : s.prefix;
}

/** History of a thread, newest first (LangGraph: every checkpoint; ckpt's own stores: the one document). */
export async function* historyOf(saver: Saver, threadId: string, namespace?: string): AsyncIterable<LgHistoryEntry> {
  if (isLangGraphSaver(saver)) {
    yield* saver.history(threadId, namespace);
    return;
  }
  const text = await saver.load(threadId, namespace);
  if (text === undefined) return;
  // ckpt's stores keep one document per thread: its step, message count and time, as `ckpt ls` shows them (a
  // document no format reads keeps "-", as in ls)
  let step: number | null = null;
  let messages: number | null = null;
  let ts: string | null = null;
  try {
    const { checkpoint } = readCheckpoint({ name: `${saver.uri}#${threadId}`, text, threadId });
    step = typeof checkpoint.step === "number" ? checkpoint.step : Number(checkpoint.step);
    messages = checkpoint.messages.length;
    ts = checkpoint.updatedAt ?? null;
  } catch {
    // unreadable: the row still names the stored version (its content hash) and size
  }
  yield {
    threadId,
    namespace: namespace ?? "",
    checkpointId: contentHash(text).slice(0, 16),
    parentId: null,
    step,
    source: null,
    ts,
    nodes: [],
    messages,
    bytes: Buffer.byteLength(text),
    pendingWrites: 0,
    interrupted: false,
  };
}

/**
 * The checkpoint namespace a LangGraph address names: the one given (`?namespace=` or `--namespace`; `default`, ckpt's
 * name for a store's default namespace, is the root graph `""`), else undefined (the root graph, but `@<id>` is
 * looked for in every namespace).
 */
export function lgNamespace(a: Pick<Address, "namespace">): string | undefined {
  return a.namespace === DEFAULT_NAMESPACE ? "" : a.namespace;
}

/** `'' (the root graph), 'research:…'`: a thread's namespaces as an error lists them. */
function listNamespaces(spaces: string[]): string {
  const named = spaces.slice(0, 8).map((n) => (n === "" ? "'' (the root graph)" : `'${n}'`));
  return `${named.join(", ")}${spaces.length > 8 ? `, … (${spaces.length} in all)` : ""}`;
}

/** The checkpoint an address names, with its namespace (throws an input error naming the address when there is none or several). */
async function resolveId(
  saver: Saver,
  a: Address,
  where: string,
): Promise<{ checkpointId: string; namespace?: string }> {
  const lg = isLangGraphSaver(saver) ? saver.langgraph : undefined;
  const ids: Array<{ checkpointId: string; parentId: string | null }> = [];
  if (lg) {
    // one rule: a namespace given is the one read (an unknown one is an error listing the thread's); none given is
    // the root graph, except that a checkpoint id is looked for in every namespace of the thread
    const spaces = await lg.namespacesOf(a.threadId);
    if (spaces.length === 0) throw inputError("no-thread", `no checkpoint for thread '${a.threadId}'`, { file: where });
    const asked = lgNamespace(a);
    if (asked !== undefined && !spaces.includes(asked))
      throw inputError(
        "no-namespace",
        `thread '${a.threadId}' has no checkpoint namespace '${asked}'; its namespaces: ${listNamespaces(spaces)}`,
        { file: where },
      );
    if (a.selector.kind === "id") {
      const hits: Array<{ checkpointId: string; namespace: string }> = [];
      for (const ns of asked !== undefined ? [asked] : spaces)
        for await (const r of lg.checkpointIds(a.threadId, ns))
          if (r.checkpointId.toLowerCase().startsWith(a.selector.prefix))
            hits.push({ checkpointId: r.checkpointId, namespace: ns });
      if (hits.length === 1) return hits[0]!;
      if (hits.length === 0)
        throw inputError(
          "no-checkpoint",
          `thread '${a.threadId}' has no checkpoint whose id starts with '${a.selector.prefix}'${asked !== undefined ? ` in namespace '${asked}'` : ""} (ckpt log lists them)`,
          { file: where },
        );
      throw inputError(
        "ambiguous-checkpoint",
        `'${a.selector.prefix}' matches ${hits.length} checkpoints of thread '${a.threadId}' (${hits
          .slice(0, 3)
          .map((h) => h.checkpointId + (h.namespace ? ` in '${h.namespace}'` : ""))
          .join(", ")}${hits.length > 3 ? ", …" : ""}): give more of the id`,
        { file: where },
      );
    }
    const ns = asked ?? "";
    // newest, then N steps back along the parent chain (a forked thread's chain is its real history)
    const parent = new Map<string, string | null>();
    for await (const r of lg.checkpointIds(a.threadId, ns)) {
      ids.push(r);
      parent.set(r.checkpointId, r.parentId);
      if (a.selector.kind === "latest") break;
    }
    if (ids.length === 0)
      throw inputError(
        "no-checkpoint",
        `thread '${a.threadId}' has no checkpoint in the root graph; its namespaces: ${listNamespaces(spaces)}`,
        { file: where },
      );
    let id = ids[0]!.checkpointId;
    const seen = new Set([id]);
    for (let i = 0; a.selector.kind === "back" && i < a.selector.n; i++) {
      const p = parent.get(id);
      if (p && seen.has(p))
        throw inputError(
          "parent-cycle",
          `thread '${a.threadId}': the parent chain loops (checkpoint ${p} is its own ancestor), so @~${a.selector.n} has no answer (ckpt validate reports the loop)`,
          { file: where },
        );
      if (p) seen.add(p);
      if (!p)
        throw inputError(
          "no-checkpoint",
          `thread '${a.threadId}' has only ${i + 1} checkpoint(s) on its newest chain: @~${a.selector.n} is before the first`,
          { file: where },
        );
      id = p;
    }
    return { checkpointId: id, namespace: ns };
  }
  for await (const e of historyOf(saver, a.threadId)) ids.push(e);
  if (ids.length === 0) throw inputError("no-thread", `no checkpoint for thread '${a.threadId}'`, { file: where });
  const only = ids[0]!.checkpointId;
  if (a.selector.kind === "back" && a.selector.n > 0)
    throw inputError(
      "no-checkpoint",
      `thread '${a.threadId}' keeps one checkpoint (this store has no history): @~${a.selector.n} is before it`,
      { file: where },
    );
  if (a.selector.kind === "id" && !only.startsWith(a.selector.prefix))
    throw inputError(
      "no-checkpoint",
      `thread '${a.threadId}' has one checkpoint, ${only}: '${a.selector.prefix}' does not name it`,
      { file: where },
    );
  return { checkpointId: only };
}

/** Does the thread have any checkpoint? */
async function hasThread(saver: Saver, threadId: string, namespace?: string): Promise<boolean> {
  for await (const _ of historyOf(saver, threadId, namespace)) return true;
  return false;
}

/**
 * The address as meant: when the part before the last `@` names no thread but the whole fragment does (a thread id
 * such as `user@cafe`), the whole fragment is the thread, at its newest checkpoint.
 */
export async function settleAddress(saver: Saver, a: Address, namespace?: string): Promise<Address> {
  if (a.literal === undefined || (await hasThread(saver, a.threadId, namespace))) return a;
  if (!(await hasThread(saver, a.literal, namespace))) return a;
  const { literal, ...rest } = a;
  return { ...rest, threadId: literal, selector: { kind: "latest" } };
}

/**
 * The document an address names, with its resolved checkpoint id and, in a LangGraph store, its checkpoint namespace
 * (the one given, the root graph `""`, or the one where `@<id>` was found).
 */
export async function loadAddress(
  saver: Saver,
  given: Address,
  where: string,
): Promise<{ text: string; checkpointId: string; namespace?: string }> {
  const a = await settleAddress(saver, given);
  const { checkpointId, namespace } = await resolveId(saver, a, where);
  const text = isLangGraphSaver(saver)
    ? await saver.loadAt(a.threadId, checkpointId, namespace)
    : await saver.load(a.threadId);
  if (text === undefined) throw inputError("no-thread", `no checkpoint for thread '${a.threadId}'`, { file: where });
  return namespace !== undefined ? { text, checkpointId, namespace } : { text, checkpointId };
}
