/**
 * Checkpoint addresses: `<saver-uri>#<thread>[@<checkpoint>]`, where `<checkpoint>` is a checkpoint id or a unique
 * prefix of one, `latest` (the default: the newest checkpoint of the root namespace), or `~N` (N steps back along
 * the parent chain from the newest). The thread id is percent-decoded. A thread id that itself holds an `@` followed
 * by something selector-like (`user@cafe`) still works: when the part before the `@` names no thread but the whole
 * fragment does, the whole fragment is the thread (`%40` for the `@` makes it explicit).
 *
 * Every saver has a history: a LangGraph store's is its checkpoints; ckpt's own stores keep one document per
 * thread, so their history is that one document (its id: the first 16 hex digits of its content hash).
 *
 * This module is the one parser of what the user types as an input or a store (`parseInput`, `parseAddress`,
 * `parseStore`, `parseTarget`): commands parse once, where the command line is read, and pass the parsed value down.
 * Loading an address loads its checkpoint once (`loadAddress`); finding it (`settleAddress`, `locateAddress`) loads
 * none.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { inputError, usageError } from "../base/errors.js";
import { redactUri, userinfoEnd } from "../base/redact.js";
import type { LgHistoryEntry } from "../formats/langgraph/types.js";
import { readCheckpoint } from "../formats/index.js";
import { contentHash } from "./common.js";
import { isLangGraphSaver, type LangGraphSaver } from "./langgraph/shared.js";
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
  /** the command's folder: a relative local store path is taken from it */
  cwd?: string;
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
  // a '#' in a password (unencoded) is not the thread's: parseSaverUri refuses it, naming no part of the password
  const hash = spec.indexOf("#", userinfoEnd(spec) + 1);
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
  if (!threadId) throw usageError(`'${redactUri(spec)}': the thread id after '#' is empty`);
  return thread === frag ? { threadId, selector } : { threadId, selector, literal: decode(frag) };
}

/** Parse `<store>#<thread>[@<checkpoint>]` into an Address (the store URI parsed here, once). */
export function parseAddress(spec: string, o: AddressOptions = {}): Address {
  const { store: part, fragment } = splitAddress(spec);
  if (fragment === undefined) {
    parseSaverUri(atCwd(part, o.cwd), o.env); // a store URI that cannot be parsed says why first (a password to encode)
    throw usageError(`'${redactUri(spec)}': a checkpoint address is <store>#<thread>[@<checkpoint>|@latest|@~N]`);
  }
  const at = parseFragment(fragment, spec);
  const store = parseSaverUri(atCwd(part, o.cwd), o.env);
  const namespace = namespaceOf(store, o.namespace);
  return { store, ...at, ...(namespace !== undefined ? { namespace } : {}) };
}

/** The schemes of store URIs (savers/uri.ts parses them; a misspelt one is a usage error there). */
const STORE_SCHEME = /^(memory:|file:|sqlite:|rediss?:|postgres(ql)?:)/i;
/** A bare path to an SQLite database (LangGraph's checkpoints.sqlite, anything.db): an sqlite: store. */
const SQLITE_FILE = /\.(sqlite3?|db)$/i;

/**
 * A store URI or path with its relative local path (`file:`, `sqlite:`, a bare path) taken from `cwd`, the folder the
 * command runs in. Unchanged when that is the process's own folder (so every message shows the path as typed), for
 * absolute paths, remote stores, `memory:` and `sqlite::memory:`.
 */
export function atCwd(spec: string, cwd: string | undefined): string {
  if (cwd === undefined || resolve(cwd) === process.cwd()) return spec;
  const scheme = /^(file:(\/\/(?=\/))?|sqlite:(\/\/)?)/i.exec(spec)?.[0] ?? "";
  if (!scheme && /^[a-z][a-z0-9+.-]*:/i.test(spec)) return spec; // redis://, postgres://, memory:
  const rest = spec.slice(scheme.length);
  const end = rest.search(/[?#]/);
  const path = end < 0 ? rest : rest.slice(0, end);
  if (path === "" || path === ":memory:" || isAbsolute(path)) return spec;
  return scheme + resolve(cwd, path) + (end < 0 ? "" : rest.slice(end));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What the user typed where a checkpoint, a document or a store is read, classified once. */
export type Input =
  /** `-`: standard input */
  | { kind: "stdin"; spec: string }
  /** `<store>#<thread>[@<checkpoint>]`: a store URI, a bare SQLite path or a folder, with a thread */
  | { kind: "address"; spec: string; address: Address }
  /** a store without a thread: a store URI (a `file:` URI of a folder), or a bare SQLite path (`bare`) */
  | { kind: "store"; spec: string; store: SaverUri; namespace?: string; bare: boolean }
  /** a file or a folder (amacs, a folder of documents), or a glob; `path` taken from the command's folder */
  | { kind: "path"; spec: string; path: string };

export interface InputOptions {
  /** the command's folder: relative local paths are taken from it */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** the command's `--namespace` (the URI's `?namespace=` wins; both, disagreeing, is a usage error) */
  namespace?: string;
}

/**
 * The one parser of what the user typed as an input: `-`, a store URI or a bare SQLite path (with or without a
 * `#thread`), a folder with a `#thread` (a folder store), else a file or folder path. Relative local paths are taken
 * from the command's folder; the store URI is parsed here, once (a misspelt scheme is a usage error).
 */
export function parseInput(spec: string, o: InputOptions = {}): Input {
  if (spec === "-") return { kind: "stdin", spec };
  const { store: head, fragment } = splitAddress(spec);
  const scheme = STORE_SCHEME.test(head);
  if (fragment !== undefined) {
    const folder = !scheme && !SQLITE_FILE.test(head) && isDirectory(resolve(o.cwd ?? ".", head));
    if (scheme || folder || SQLITE_FILE.test(head)) {
      const at = parseFragment(fragment, spec);
      // a bare folder path is taken from the command's folder, always (the store is named by its full path)
      const store = parseSaverUri(folder ? resolve(o.cwd ?? ".", head) : atCwd(head, o.cwd), o.env);
      const namespace = namespaceOf(store, o.namespace);
      return { kind: "address", spec, address: { store, ...at, ...(namespace !== undefined ? { namespace } : {}) } };
    }
    return { kind: "path", spec, path: resolve(o.cwd ?? ".", spec) };
  }
  if (/^file:/i.test(head)) {
    // a file: URI of a folder is a folder store; of a file, that document
    const store = parseSaverUri(atCwd(spec, o.cwd), o.env);
    const path = resolve(o.cwd ?? ".", store.location);
    if (!isDirectory(path)) return { kind: "path", spec, path };
    const namespace = namespaceOf(store, o.namespace);
    return { kind: "store", spec, store, bare: false, ...(namespace !== undefined ? { namespace } : {}) };
  }
  if (scheme || SQLITE_FILE.test(head)) {
    const store = parseSaverUri(atCwd(spec, o.cwd), o.env);
    const namespace = namespaceOf(store, o.namespace);
    return { kind: "store", spec, store, bare: !scheme, ...(namespace !== undefined ? { namespace } : {}) };
  }
  return { kind: "path", spec, path: resolve(o.cwd ?? ".", spec) };
}

/** A store named where a store is expected (ls, stats, prune, log, copy, delete, migrate): parsed once, from `cwd`. */
export function parseStore(spec: string, o: Pick<InputOptions, "cwd" | "env"> = {}): SaverUri {
  return parseSaverUri(atCwd(spec, o.cwd), o.env);
}

/** What `parseTarget` gives: the store, the thread when one is named, and whether the store was named without a scheme. */
export interface Target {
  store: SaverUri;
  threadId?: string;
  /** named by a bare path (no scheme) */
  bare: boolean;
}

/**
 * A store with an optional thread (`convert -o`, `replay --save-to`, `ls <store>#<thread>`): the store part parsed
 * (relative paths from `cwd`), `#<thread>` percent-decoded.
 */
export function parseTarget(spec: string, o: Pick<InputOptions, "cwd" | "env"> = {}): Target {
  const { store: head, fragment } = splitAddress(spec);
  return {
    store: parseStore(head, o),
    bare: !STORE_SCHEME.test(head),
    ...(fragment !== undefined ? { threadId: decode(fragment) } : {}),
  };
}

/** Whether `spec` names a store (a store URI or a bare SQLite path, with or without a thread) rather than a file. */
export function namesStore(spec: string): boolean {
  const { store: head } = splitAddress(spec);
  return STORE_SCHEME.test(head) || SQLITE_FILE.test(head);
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

/**
 * The checkpoint a LangGraph address names, with its namespace, found from the store's checkpoint ids (no checkpoint
 * is loaded); throws an input error naming the address when there is none or several.
 */
async function resolveLangGraph(
  saver: LangGraphSaver,
  a: Address,
  where: string,
): Promise<{ checkpointId: string; namespace: string }> {
  const lg = saver.langgraph;
  const ids: Array<{ checkpointId: string; parentId: string | null }> = [];
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

/**
 * The one checkpoint of a thread of a store that keeps one per thread (ckpt's own stores, foreign layouts): its id is
 * the first 16 hex digits of its content hash, so the selector is checked against the text loaded (once).
 */
function checkOnly(a: Address, text: string, where: string): string {
  const only = contentHash(text).slice(0, 16);
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
  return only;
}

/** Does the thread have a checkpoint (in the namespace; a LangGraph store: in its checkpoint namespace)? Loads none. */
async function hasThread(saver: Saver, threadId: string, namespace?: string): Promise<boolean> {
  if (isLangGraphSaver(saver))
    return (await saver.langgraph.namespacesOf(threadId)).includes(lgNamespace({ namespace }) ?? "");
  return saver.exists(threadId, namespace);
}

/**
 * `#<thread>@zzzz`, where `zzzz` is no selector (so the whole fragment was taken for the thread id): when the store
 * has no thread of that name but has the thread before the last `@`, say that the thread exists and the checkpoint
 * does not, instead of "no checkpoint for thread '<thread>@zzzz'".
 */
async function refuseNoSuchCheckpoint(
  saver: Saver,
  threadId: string,
  namespace: string | undefined,
  where: string,
): Promise<void> {
  const at = threadId.lastIndexOf("@");
  if (at <= 0) return;
  const thread = threadId.slice(0, at);
  if ((await hasThread(saver, threadId, namespace)) || !(await hasThread(saver, thread, namespace))) return;
  throw inputError(
    "no-checkpoint",
    `thread '${thread}' exists, but it has no checkpoint '${threadId.slice(at + 1)}': a checkpoint is named by its id or a prefix of it (hex digits), @latest or @~N (ckpt log lists them)`,
    { file: where },
  );
}

/**
 * The address as meant: when the part before the last `@` names no thread but the whole fragment does (a thread id
 * such as `user@cafe`), the whole fragment is the thread, at its newest checkpoint. Loads nothing.
 */
export async function settleAddress(saver: Saver, a: Address, namespace?: string, where?: string): Promise<Address> {
  if (a.literal === undefined) {
    if (where !== undefined) await refuseNoSuchCheckpoint(saver, a.threadId, namespace, where);
    return a;
  }
  if (await hasThread(saver, a.threadId, namespace)) return a;
  if (!(await hasThread(saver, a.literal, namespace))) return a;
  const { literal, ...rest } = a;
  return { ...rest, threadId: literal, selector: { kind: "latest" } };
}

/** Where a LangGraph address points: the thread (settled), the checkpoint id and its namespace. Loads no checkpoint. */
export async function locateAddress(
  saver: LangGraphSaver,
  given: Address,
  where: string,
): Promise<{ threadId: string; checkpointId: string; namespace: string }> {
  const a = await settleAddress(saver, given, undefined, where);
  return { threadId: a.threadId, ...(await resolveLangGraph(saver, a, where)) };
}

export interface LoadedAddress {
  /** the thread (a thread id holding '@' settled) */
  threadId: string;
  text: string;
  checkpointId: string;
  /** a LangGraph store's checkpoint namespace (the one given, the root graph `""`, or the one where `@<id>` was found) */
  namespace?: string;
}

/**
 * The document an address names, loaded once, with its resolved checkpoint id and, in a LangGraph store, its checkpoint
 * namespace. `missing` makes the error for a thread the store does not hold (default: "no checkpoint for thread").
 */
export async function loadAddress(
  saver: Saver,
  given: Address,
  where: string,
  o: { namespace?: string; missing?: (threadId: string) => Promise<Error> } = {},
): Promise<LoadedAddress> {
  const missing =
    o.missing ??
    (async (threadId: string) => inputError("no-thread", `no checkpoint for thread '${threadId}'`, { file: where }));
  if (isLangGraphSaver(saver)) {
    const { threadId, checkpointId, namespace } = await locateAddress(saver, given, where);
    const text = await saver.loadAt(threadId, checkpointId, namespace);
    if (text === undefined) throw await missing(threadId);
    return { threadId, text, checkpointId, namespace };
  }
  const a = await settleAddress(saver, given, o.namespace, where);
  const text = await saver.load(a.threadId, o.namespace);
  if (text === undefined) throw await missing(a.threadId);
  return { threadId: a.threadId, text, checkpointId: checkOnly(a, text, where) };
}
