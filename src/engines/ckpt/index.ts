/**
 * ckpt's own layouts: its tables or keys (memory, sqlite, redis, postgres: `ckpt`) and the folders of one system's
 * files (`folder`, file:). One document per thread, in namespaces; written, pruned (whole threads), deleted and copied
 * by ckpt.
 */
import { statSync } from "node:fs";
import { CkptError, ExitCode, inputError } from "../../base/errors.js";
import { nestingBeyond, nestingReason } from "../../base/json.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import { tableTime } from "../../base/time.js";
import { readCheckpoint } from "../../formats/index.js";
import { threadTakenError } from "../copy.js";
import type { OpenedStore } from "../../savers/index.js";
import { DEFAULT_NAMESPACE, namespaceOf, type Saver, type ThreadInfo } from "../../savers/types.js";
import type { SaverUri } from "../../savers/uri.js";
import type { Engine, EngineCaps, Listing, ListingOptions } from "../types.js";

/** One thread's row of `ckpt ls`. */
export interface CkptRow {
  namespace: string;
  threadId: string;
  format: string | null;
  step: number | bigint | null;
  messages: number | null;
  bytes: number;
  updatedAt: string | null;
  error?: string;
}

/** One thread's row: its document read through the formats (a record that cannot be read is a finding in its row). */
async function rowOf(saver: Saver, ns: string, t: ThreadInfo): Promise<CkptRow> {
  let text: string | undefined;
  let unreadable: string | undefined;
  try {
    text = await saver.load(t.threadId, ns);
  } catch (e) {
    // one record ckpt cannot read is a finding in its row; the others are still listed
    if (!(e instanceof CkptError) || e.exitCode === ExitCode.BUG) throw e;
    unreadable = e.message;
  }
  const row: CkptRow = {
    namespace: ns,
    threadId: t.threadId,
    format: null,
    step: null,
    messages: null,
    bytes: t.bytes,
    updatedAt: t.updatedAt ?? null,
    ...(unreadable !== undefined ? { error: unreadable } : {}),
  };
  if (text !== undefined) {
    try {
      const { checkpoint, format } = readCheckpoint({ name: `${saver.uri}#${t.threadId}`, text });
      row.format = format;
      row.step = checkpoint.step;
      row.messages = checkpoint.messages.length;
      row.updatedAt = checkpoint.updatedAt ?? row.updatedAt;
    } catch (e) {
      // a walker that overflows the stack on nesting no checkpoint has: say so, and where
      const deep = e instanceof RangeError ? nestingBeyond(text) : undefined;
      row.error = deep !== undefined ? nestingReason(deep) : (e as Error).message;
    }
  }
  return row;
}

/** `file:<file>`: a store of one file, not a folder of threads. */
function isFile(u: SaverUri): boolean {
  if (u.kind !== "file") return false;
  try {
    return statSync(u.location).isFile();
  } catch {
    return false;
  }
}

/**
 * `ls <file>` names one file, not a folder of threads: a file that is no checkpoint (unreadable, or no format ckpt
 * knows) is an input error naming it, not a listing of one broken thread.
 */
async function* oneFile(rows: AsyncIterable<CkptRow>, file: string): AsyncIterable<CkptRow> {
  const all: CkptRow[] = [];
  for await (const r of rows) all.push(r);
  if (all.length === 1 && all[0]!.format === null)
    throw inputError("not-a-checkpoint", `not a checkpoint: ${all[0]!.error ?? "unreadable"}`, { file });
  yield* all;
}

/**
 * Every thread of the namespaces asked for (else every namespace), then a folder's files that look like checkpoints
 * but are not read (unreadable, a second file for a thread), each named in a row of its own.
 */
async function listing(saver: Saver, uri: SaverUri, o: ListingOptions): Promise<Listing<CkptRow>> {
  const asked = o.namespaces;
  let unread = 0;
  async function* rows(): AsyncIterable<CkptRow> {
    for (const ns of asked ?? (await saver.namespaces())) {
      for await (const t of saver.list({ namespace: ns, limit: o.limit })) yield await rowOf(saver, ns, t);
      for (const p of saver.passedOver?.(ns).rejected ?? []) {
        unread++;
        yield {
          namespace: ns,
          threadId: p.threadId ?? "",
          format: null,
          step: null,
          messages: null,
          bytes: 0,
          updatedAt: null,
          error: `${p.path}: ${p.reason}`,
        };
      }
    }
  }
  return {
    head: ["NAMESPACE", "THREAD", "FORMAT", "STEP", "MESSAGES", "SIZE", "UPDATED"],
    right: new Set([3, 4, 5]),
    rows: isFile(uri) ? oneFile(rows(), uri.location) : rows(),
    json: (r) => r,
    cells: (r) => [
      r.namespace,
      r.threadId,
      r.format ?? `? (${r.error ?? "unreadable"})`,
      r.step === null ? "-" : String(r.step),
      r.messages === null ? "-" : String(r.messages),
      `${r.bytes} B`,
      tableTime(r.updatedAt),
    ],
    async footer(count) {
      if (count > 0)
        return `${plural(count - unread, "thread")}${unread ? `, ${plural(unread, "file")} not read` : ""}`;
      // when the namespaces asked for hold nothing: the ones that hold threads
      const others = asked ? (await saver.namespaces()).filter((ns) => !asked.includes(ns)) : [];
      const inNs = asked ? ` in namespace ${asked.map((n) => `'${printable(n)}'`).join(", ")}` : "";
      return `${saver.uri}: no threads${inNs}${others.length ? ` (threads are in namespace ${others.map((n) => `'${printable(n)}'`).join(", ")})` : ""}`;
    },
  };
}

/** A document under its new thread id (a LangGraph tuple document and ckpt's own name it in `threadId`). */
function renamedDocument(text: string, threadId: string): string {
  const doc = JSON.parse(text) as Record<string, unknown>;
  if (typeof doc.threadId === "string") doc.threadId = threadId;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export function ckptEngine(opened: Extract<OpenedStore, { layout: "ckpt" | "folder" }>): Engine {
  const { saver, uri } = opened;
  const caps: EngineCaps = {
    history: false,
    namespaces: true,
    subgraphs: false,
    write: true,
    // more connections to one server (migrate --jobs): Redis and PostgreSQL; SQLite has one writer at a time, a folder
    // and a memory store live on this machine / in this process
    shared: uri.kind !== "memory",
    parallelWriters: uri.kind === "redis" || uri.kind === "postgres",
    prune: true,
    delete: true,
    copy: true,
    encrypted: false,
    msgpack: false,
  };
  return {
    layout: opened.layout,
    title: opened.layout === "folder" ? "a folder store" : "ckpt's own store",
    holds:
      opened.layout === "folder"
        ? "a folder of checkpoint files"
        : uri.kind === "redis"
          ? "ckpt's own keys"
          : "ckpt's own tables",
    caps,
    instead: {
      history: "ckpt's own stores keep the newest checkpoint of each thread",
      subgraphs: "a LangGraph store's threads have checkpoint namespaces",
      encrypted: "encryption applies to LangGraph stores",
      msgpack: "ckpt's own savers store no Python classes",
    },
    uri,
    saver,
    opened,
    migration: async () => (await import("./migrate.js")).route,
    close: () => saver.close(),
    // one rule for every command: the URI's ?namespace=, else the flag, else "default"
    namespaceFor: (flag) => namespaceOf(uri, flag) ?? DEFAULT_NAMESPACE,
    listing: (o) => listing(saver, uri, o),
    hasThread: async (threadId, namespace) => saver.exists(threadId, namespace),
    stats: async (o) => (await import("../saver-stats.js")).saverStats(saver, o),
    prune: async (c, o) => (await import("../../core/prune-run.js")).pruneSaver(saver, c, o),
    copiesAs: "ckpt",
    async copyIn(c) {
      const namespace = namespaceOf(uri, undefined) ?? DEFAULT_NAMESPACE;
      const copied = (replaced: boolean) => ({ checkpoints: 1, writes: 0, replaced });
      if (c.dryRun) return copied(await saver.exists(c.to, namespace));
      const text = renamedDocument(c.text, c.to);
      if (c.overwrite) {
        const was = await saver.exists(c.to, namespace);
        await saver.save(c.to, text, namespace);
        return copied(was);
      }
      // the new id taken in the step that writes (the store's key check), so that one of two copies into it wins
      const rec = { namespace, threadId: c.to, text };
      const wrote = saver.insertNew
        ? await saver.insertNew([rec])
        : saver.addMany
          ? (await saver.addMany([rec]))[0]
          : !(await saver.exists(c.to, namespace)) && (await saver.save(c.to, text, namespace), true);
      if (!wrote) throw threadTakenError(uri.redacted, c.to);
      return copied(false);
    },
    async deleteThread(threadId, dryRun) {
      const ns = namespaceOf(uri, undefined) ?? DEFAULT_NAMESPACE;
      let bytes: number | undefined;
      for await (const t of saver.list({ namespace: ns })) if (t.threadId === threadId) bytes = t.bytes;
      if (bytes === undefined || (!dryRun && !(await saver.delete(threadId, ns)))) return null;
      return { checkpoints: 1, writes: 0, blobs: 0, bytes };
    },
  };
}
