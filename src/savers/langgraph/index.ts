/**
 * LangGraph stores behind ckpt's saver URIs. `sqlite:<path>` (and bare `*.sqlite` / `*.db` paths) and
 * `postgres://…?schema=` are LangGraph stores when their tables say so (SQLite: `checkpoints` + `writes` and no
 * `ckpt_checkpoints`; Postgres: `checkpoints` + `checkpoint_writes`, Python migrations 0–9 or JS 0–4);
 * `?layout=langgraph|ckpt` forces the choice. A LangGraph store opens read-only.
 *
 * As a `Saver` it holds one document per thread: the newest root-namespace checkpoint as an `LgTupleDocument`
 * (the `langgraph` format); `history` / `loadAt` reach every checkpoint. `langgraph` gives the full reader.
 */
import { existsSync, statSync } from "node:fs";
import { inputError, storeError, usageError } from "../../base/errors.js";
import {
  tupleDocument,
  type LgCheckpointTuple,
  type LgHistoryEntry,
  type LgReader,
} from "../../formats/langgraph/types.js";
import { unreadableReport } from "../../formats/langgraph/unreadable.js";
import type { SaverUri } from "../uri.js";
import { withDeltaChannels } from "../lg-delta.js";
import { DEFAULT_NAMESPACE, type Saver, type ThreadInfo } from "../types.js";

export interface LangGraphSaver extends Saver {
  readonly langgraph: LgReader;
  /** checkpoints of a thread (root namespace unless `namespace` names a checkpoint_ns), newest first */
  history(threadId: string, namespace?: string): AsyncIterable<LgHistoryEntry>;
  /** one checkpoint as a tuple document; undefined when missing */
  loadAt(threadId: string, checkpointId: string, namespace?: string): Promise<string | undefined>;
}

export function isLangGraphSaver(s: Saver): s is LangGraphSaver {
  return (s as Partial<LangGraphSaver>).langgraph !== undefined;
}

function layoutParam(u: SaverUri): "langgraph" | "ckpt" | undefined {
  const l = u.params.get("layout");
  if (l === null) return undefined;
  if (l !== "langgraph" && l !== "ckpt")
    throw usageError(`saver URI '${u.redacted}': layout=${l}: expected layout=langgraph or layout=ckpt`);
  return l;
}

async function openSqlite(
  u: SaverUri,
  forced: "langgraph" | undefined,
  opts: OpenLangGraphOptions,
): Promise<LgReader | undefined> {
  if (!existsSync(u.location)) {
    if (forced)
      throw inputError("missing-store", "no such SQLite database (reading never creates a store)", {
        file: u.redacted,
      });
    return undefined; // ckpt's own saver decides (it may create it for a write)
  }
  if (statSync(u.location).isDirectory()) return undefined;
  const m = await import("./sqlite.js");
  const db = await m.openSqliteReadOnly(u.location, { recover: opts.recover, uri: u.redacted });
  let tables: Set<string>;
  try {
    tables = m.sqliteTables(db);
  } catch (e) {
    db.close();
    throw storeError("sqlite-open", `not a readable SQLite database: ${(e as Error).message}`, { file: u.redacted });
  }
  if (!forced && (tables.has("ckpt_checkpoints") || !m.isLangGraphSqlite(tables))) {
    db.close();
    return undefined;
  }
  if (!m.isLangGraphSqlite(tables)) {
    db.close();
    throw storeError(
      "langgraph-layout",
      "layout=langgraph but the database has no LangGraph tables (checkpoints, writes)",
      { file: u.redacted },
    );
  }
  return m.createLangGraphSqliteReader(db, u.location, u.redacted);
}

async function openPostgres(u: SaverUri, forced: "langgraph" | undefined): Promise<LgReader | undefined> {
  const m = await import("./postgres.js");
  const c = await m.connectReadOnly(u.location, u.redacted);
  try {
    const schema = u.params.get("schema") ?? "public";
    const found = await m.inspectPgSchema(c, schema, u.params.get("table") ?? undefined);
    if (found.langgraph && (forced || !found.ckpt))
      return m.createLangGraphPgReader(c, found.langgraph, u.redacted, () => m.connectReadOnly(u.location, u.redacted));
    if (forced)
      throw storeError(
        "langgraph-layout",
        `${u.redacted}: layout=langgraph but schema '${schema}' has no LangGraph tables (checkpoints, checkpoint_writes)`,
      );
  } catch (e) {
    await c.end().catch(() => undefined);
    throw e;
  }
  await c.end();
  return undefined;
}

/** The LangGraph reader for a URI, or undefined when the store is not (detected or forced as) a LangGraph store. */
/** `recover`: the store is opened to be written anyway, so a writer may first settle what a crashed writer left (SQLite). */
export interface OpenLangGraphOptions {
  recover?: boolean;
}

export async function openLangGraphReader(u: SaverUri, opts: OpenLangGraphOptions = {}): Promise<LgReader | undefined> {
  const layout = layoutParam(u);
  if (layout === "ckpt") return undefined;
  const forced = layout === "langgraph" ? "langgraph" : undefined;
  const reader =
    u.kind === "sqlite"
      ? await openSqlite(u, forced, opts)
      : u.kind === "postgres"
        ? await openPostgres(u, forced)
        : undefined;
  if (reader) return withDeltaChannels(reader);
  if (u.kind === "sqlite" || u.kind === "postgres") return undefined;
  if (forced) throw usageError(`saver URI '${u.redacted}': layout=langgraph needs a sqlite: or postgres:// store`);
  return undefined;
}

const rootNs = (ns: string | undefined) => (ns === undefined || ns === DEFAULT_NAMESPACE ? "" : ns);

/** A LangGraph reader as a (read-only) Saver. */
export function langGraphSaver(reader: LgReader): LangGraphSaver {
  const readOnly = () => {
    throw storeError(
      "langgraph-read-only",
      `${reader.uri}: a LangGraph store is read-only here; write LangGraph stores with ckpt migrate`,
    );
  };
  const load = async (threadId: string, ns?: string) => docOf(await reader.getTuple(threadId, rootNs(ns)));
  // a checkpoint that did not decode whole is an input error naming its rows, never a shorter conversation
  const docOf = (t: LgCheckpointTuple | undefined) => {
    const bad = t && unreadableReport(t);
    if (bad) throw inputError("langgraph-undecodable", bad, { file: `${reader.uri}#${t.threadId}` });
    return t && JSON.stringify(tupleDocument(t, reader.uri));
  };
  return {
    uri: reader.uri,
    langgraph: reader,
    load,
    loadMany: async (keys) => Promise.all(keys.map((k) => load(k.threadId, k.namespace))),
    save: async () => readOnly(),
    saveMany: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (threadId, ns) => (await reader.getTuple(threadId, rootNs(ns))) !== undefined,
    async *list(options = {}): AsyncIterable<ThreadInfo> {
      for await (const t of reader.threads({ after: options.after, limit: options.limit })) {
        yield {
          namespace: options.namespace ?? DEFAULT_NAMESPACE,
          threadId: t.threadId,
          bytes: t.bytes,
          ...(t.updatedAt ? { updatedAt: t.updatedAt } : {}),
        };
      }
    },
    async *scan(options = {}) {
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: Array<{ namespace: string; threadId: string; text: string }> = [];
      for await (const t of reader.threads()) {
        const text = await load(t.threadId);
        if (text !== undefined)
          batch.push({ namespace: options.namespace ?? DEFAULT_NAMESPACE, threadId: t.threadId, text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    count: () => reader.countThreads(),
    namespaces: async () => [DEFAULT_NAMESPACE],
    history: (threadId, ns) => reader.history(threadId, rootNs(ns)),
    async loadAt(threadId, checkpointId, ns) {
      return docOf(await reader.getTuple(threadId, rootNs(ns), checkpointId));
    },
    close: () => reader.close(),
  };
}

/** Open the URI as a LangGraph Saver when it is one (see the module comment); undefined otherwise. */
export async function openLangGraphSaver(
  u: SaverUri,
  opts: OpenLangGraphOptions = {},
): Promise<LangGraphSaver | undefined> {
  const reader = await openLangGraphReader(u, opts);
  return reader && langGraphSaver(reader);
}
