/**
 * Every conversation of what the user named — files, folders, globs, `-`, stores and their threads — read once into
 * canonical checkpoints, streamed: what `search` and `scan` go through. A store is read through its engine's Saver
 * view (one document per thread: the newest checkpoint; a LangGraph thread's every checkpoint with
 * `allCheckpoints`), a namespace at a time (every namespace of a store that has them, unless one is named). A thread
 * or file that cannot be read is yielded as its error, and the rest is read on.
 */
import { redactUri } from "../base/redact.js";
import { CkptError, ExitCode, inputError } from "../base/errors.js";
import type { LangGraphEngine } from "../engines/langgraph/index.js";
import type { Checkpoint } from "../generated/types.js";
import type { LgCheckpointTuple } from "../formats/langgraph/types.js";
import type { Engine } from "../engines/types.js";
import type { Input } from "../savers/address.js";
import { DEFAULT_NAMESPACE, namespaceOf } from "../savers/types.js";
import { expandInputs, readSource } from "./input.js";
import type { CliIO } from "./io.js";

export interface Conversation {
  /** the store (its URI, password removed) or the file, as the user named it */
  source: string;
  threadId: string;
  /** a LangGraph checkpoint's id */
  checkpointId?: string;
  /** ckpt's namespace (stores that have them) */
  namespace?: string;
  checkpoint: Checkpoint;
  format: string;
}

export type Read = { ok: true; value: Conversation } | { ok: false; source: string; error: CkptError };

export interface ReadOptions {
  allCheckpoints?: boolean;
  namespace?: string;
  format?: string;
  /**
   * a test of a store's raw strings (`string`) or JSON text (`text`) before a checkpoint is converted: false skips it
   * (search's prefilter: sound only where it is given)
   */
  prefilter?: { string: (s: string) => boolean; text?: (s: string) => boolean };
  /**
   * only the messages will be read (search without `--in state`): a LangGraph store's checkpoint may then be its
   * messages alone (the langgraph adapter's `searchView`: no state, no ext; those the prefilter rules out empty)
   */
  messagesOnly?: boolean;
  /** a file a folder's walk found that is no conversation (not read) */
  passedOver?: (file: string) => void;
}

/** A LangGraph checkpoint's id, where the canonical checkpoint keeps it. */
function checkpointIdOf(cp: Checkpoint): string | undefined {
  const lg = (cp.ext as { langgraph?: { _layout?: { store?: { checkpointId?: unknown } } } } | undefined)?.langgraph;
  const id = lg?._layout?.store?.checkpointId;
  return typeof id === "string" ? id : undefined;
}

async function asCheckpoint(name: string, text: string, format: string | undefined) {
  const { readCheckpoint } = await import("../formats/index.js");
  return readCheckpoint({ name, text }, format);
}

const failure = (source: string, e: unknown): Read => {
  if (e instanceof CkptError && e.exitCode !== ExitCode.BUG) return { ok: false, source, error: e };
  throw e;
};

/** Every conversation of the named sources, in the order named. */
export async function* readConversations(specs: readonly string[], io: CliIO, o: ReadOptions): AsyncIterable<Read> {
  const { parseInput } = await import("../savers/address.js");
  for (const spec of specs) {
    let inputs: Input[];
    try {
      inputs = await expandInputs([parseInput(spec, { cwd: io.cwd, env: io.env, namespace: o.namespace })], io.cwd);
    } catch (e) {
      yield failure(redactUri(spec), e);
      continue;
    }
    const walked = inputs.length > 1 || (inputs.length === 1 && inputs[0]!.spec !== spec);
    // a folder's SQLite stores (LangGraph, Mastra, SQLiteSession, ckpt's own) are read as stores
    if (walked)
      inputs = [
        ...inputs,
        ...(await sqliteFilesUnder(spec, io.cwd)).map((f) =>
          parseInput(f, { cwd: io.cwd, env: io.env, namespace: o.namespace }),
        ),
      ];
    for (const input of inputs) {
      if (input.kind === "store") yield* fromStore(input, io, o);
      else
        for await (const r of fromDocument(input, io, o)) {
          // a file found in a folder that is no conversation (a README.json, a config) is passed over, as grep -r
          // passes over binary files; a file named on the command line is an error
          if (!r.ok && walked && r.error.reason === "unknown-format") o.passedOver?.(r.source);
          else yield r;
        }
    }
  }
}

const SQLITE_NAMES = /\.(db|sqlite|sqlite3)$/i;

/** The SQLite files under a folder (none when `spec` is no folder), sorted, skipping node_modules and .git. */
async function sqliteFilesUnder(spec: string, cwd: string): Promise<string[]> {
  const { promises: fsp } = await import("node:fs");
  const { join, resolve } = await import("node:path");
  const out: string[] = [];
  const visit = async (full: string, label: string) => {
    let entries;
    try {
      entries = await fsp.readdir(full, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const child = label.endsWith("/") ? label + e.name : `${label}/${e.name}`;
      if (e.isDirectory() && e.name !== "node_modules" && e.name !== ".git") await visit(join(full, e.name), child);
      else if (e.isFile() && SQLITE_NAMES.test(e.name)) out.push(child);
    }
  };
  await visit(resolve(cwd, spec), spec);
  return out;
}

/** One document, or one thread of a store (`<store>#<thread>[@<checkpoint>]`). */
async function* fromDocument(input: Input, io: CliIO, o: ReadOptions): AsyncIterable<Read> {
  const source = input.kind === "address" ? redactUri(input.spec) : input.spec;
  try {
    const doc = await readSource(input, { stdin: () => io.stdin, cwd: io.cwd, env: io.env, rowsMustRead: true });
    const { readCheckpoint } = await import("../formats/index.js");
    const { checkpoint, format } = readCheckpoint(doc, o.format);
    const checkpointId = input.kind === "address" ? checkpointIdOf(checkpoint) : undefined;
    const at = input.kind === "address" ? redactUri(input.spec).replace(/#.*$/, "") : source;
    yield {
      ok: true,
      value: {
        source: at,
        threadId: doc.threadId ?? checkpoint.threadId,
        ...(checkpointId ? { checkpointId } : {}),
        checkpoint,
        format,
      },
    };
  } catch (e) {
    yield failure(source, e);
  }
}

/** Every thread of a store: its newest checkpoint (every checkpoint of a LangGraph thread with `allCheckpoints`). */
async function* fromStore(input: Extract<Input, { kind: "store" }>, io: CliIO, o: ReadOptions): AsyncIterable<Read> {
  const { openStore } = await import("./stores.js");
  let engine: Engine;
  try {
    engine = (
      await openStore(input.store, { readOnly: true, env: io.env, namespace: input.namespace ?? DEFAULT_NAMESPACE })
    ).engine;
  } catch (e) {
    yield failure(redactUri(input.spec), e);
    return;
  }
  const source = engine.uri.redacted;
  try {
    // (the newest checkpoint of each LangGraph thread straight from its reader: one generator less for every
    // conversation to pass through)
    if (engine.caps.history && !o.allCheckpoints && "store" in engine) {
      yield* newestOfEachThread(engine as LangGraphEngine, source, o);
      return;
    }
    if (engine.caps.history) {
      yield* fromHistoryStore(engine, source, o);
      return;
    }
    const asked = namespaceOf(input.store, o.namespace);
    const spaces =
      asked !== undefined ? [asked] : engine.caps.namespaces ? await engine.saver.namespaces() : [undefined];
    for (const ns of spaces) {
      for await (const batch of engine.saver.scan({ namespace: ns, batchSize: 100 })) {
        for (const r of batch) {
          const name = `${source}#${r.threadId}`;
          if (o.prefilter?.text && !o.prefilter.text(r.text)) continue;
          try {
            const { checkpoint, format } = await asCheckpoint(r.source ?? name, r.text, o.format);
            yield {
              ok: true,
              value: {
                source,
                threadId: r.threadId,
                ...(engine.caps.namespaces ? { namespace: r.namespace } : {}),
                checkpoint,
                format,
              },
            };
          } catch (e) {
            yield failure(name, e);
          }
        }
      }
    }
  } catch (e) {
    yield failure(source, e);
  } finally {
    await engine.close();
  }
}

/** A store that keeps every checkpoint (LangGraph): thread by thread, the newest root checkpoint or every one. */
async function* fromHistoryStore(engine: Engine, source: string, o: ReadOptions): AsyncIterable<Read> {
  const saver = engine.saver as Engine["saver"] & {
    history(t: string): AsyncIterable<{ checkpointId: string }>;
    loadAt(t: string, id: string): Promise<string | undefined>;
  };
  for await (const t of saver.list()) {
    const name = `${source}#${t.threadId}`;
    try {
      if (!o.allCheckpoints) {
        const text = await saver.load(t.threadId);
        if (text === undefined) continue;
        const { checkpoint, format } = await asCheckpoint(name, text, o.format);
        const checkpointId = checkpointIdOf(checkpoint);
        yield {
          ok: true,
          value: { source, threadId: t.threadId, ...(checkpointId ? { checkpointId } : {}), checkpoint, format },
        };
        continue;
      }
      for await (const h of saver.history(t.threadId)) {
        const at = `${name}@${h.checkpointId}`;
        try {
          const text = await saver.loadAt(t.threadId, h.checkpointId);
          if (text === undefined) continue;
          const { checkpoint, format } = await asCheckpoint(at, text, o.format);
          yield { ok: true, value: { source, threadId: t.threadId, checkpointId: h.checkpointId, checkpoint, format } };
        } catch (e) {
          yield failure(at, e);
        }
      }
    } catch (e) {
      yield failure(name, e);
    }
  }
}

/** threads per page of a LangGraph store's newest checkpoints (their rows are held until the page is searched) */
const PAGE_THREADS = 100;

/**
 * The newest root checkpoint of each thread of a LangGraph store, a page of thread ids at a time: each tuple is
 * decoded once, put to the prefilter as it is, and only a tuple that passes is made a document and converted (what
 * `ckpt show <store>#<thread>` reads, the same way). The store may rule a thread out by its rows' JSON text before
 * decoding them (the prefilter's `text`); with `messagesOnly`, only the messages are converted (the adapter's
 * searchView).
 */
async function* newestOfEachThread(engine: LangGraphEngine, source: string, o: ReadOptions): AsyncIterable<Read> {
  const store = engine.store;
  const [{ unreadableReport }, { tupleDocument }] = await Promise.all([
    import("../formats/langgraph/unreadable.js"),
    import("../formats/langgraph/types.js"),
  ]);
  const { anyString } = await import("../core/search.js");
  const lg = (await import("../formats/index.js")).adapters.langgraph;
  const { searchView } = await import("../formats/langgraph/adapter.js");
  const text = o.prefilter?.text;
  for (let after: string | undefined; ; ) {
    const page = await store.threadPage(after, PAGE_THREADS);
    // the page's newest tuples in one round trip where the store can (a page that fails so is read thread by thread,
    // each thread's failure then its own)
    let heads: Map<string, () => Promise<LgCheckpointTuple>> | undefined;
    try {
      heads = await store.newestTuples?.(page, "", { text });
    } catch {
      heads = undefined;
    }
    for (const threadId of page) {
      const name = `${source}#${threadId}`;
      try {
        const head = heads?.get(threadId);
        // the row goes with its thread (the page's rows are not all held until its last thread is searched)
        heads?.delete(threadId);
        const t = heads ? await head?.() : await store.getTuple(threadId, "");
        if (!t) continue;
        const bad = unreadableReport(t);
        if (bad) throw inputError("langgraph-undecodable", bad, { file: name });
        if (o.messagesOnly && !o.format) {
          // every message converted: the lean conversion costs less than putting each message's keys and values to
          // the prefilter first (19,000 messages of the bench store: ~9–19 ms against ~25–34 ms, even where it rules
          // half of them out), and what the prefilter would rule out cannot match
          const checkpoint = searchView(t);
          yield {
            ok: true,
            value: { source, threadId, checkpointId: t.checkpointId, checkpoint, format: "langgraph" },
          };
          continue;
        }
        const doc = tupleDocument(t, store.uri);
        if (o.prefilter && !anyString(doc, o.prefilter.string)) continue;
        // the tuple as it was decoded (JSON values already): converted as the document `show` reads, without
        // writing it as text and parsing it again (test/search.test.ts checks the two give the same checkpoint)
        const checkpoint = o.format
          ? (await asCheckpoint(name, JSON.stringify(doc), o.format)).checkpoint
          : lg.toCanonical(doc, { name });
        yield { ok: true, value: { source, threadId, checkpointId: t.checkpointId, checkpoint, format: "langgraph" } };
      } catch (e) {
        yield failure(name, e);
      }
    }
    if (page.length < PAGE_THREADS) return;
    after = page[page.length - 1];
  }
}

/** How a conversation is named in output: `<store>#<thread>[@<checkpoint>]`, or the file (with its thread). */
export function conversationLabel(c: Conversation): string {
  const ns = c.namespace && c.namespace !== DEFAULT_NAMESPACE ? `?namespace=${encodeURIComponent(c.namespace)}` : "";
  return `${c.source}${ns}#${c.threadId}${c.checkpointId ? `@${c.checkpointId}` : ""}`;
}
