/**
 * `ckpt copy` into a LangGraph store: a LangGraph thread's rows (all, or the fork's up to a checkpoint), renamed, with
 * pending writes and blobs, written and verified by the migrate engine (core/langgraph/copy.ts). A document of another
 * layout becomes a LangGraph thread with `ckpt migrate --to-format langgraph`, not here.
 */
import { storeError, usageError } from "../../base/errors.js";
import type { LangGraphStore } from "../../savers/langgraph/shared.js";
import type { CopyIn, Copied, Engine } from "../types.js";
import { deleteThreadRows } from "./delete.js";

export async function copyIntoLangGraph(target: LangGraphStore, c: CopyIn): Promise<Copied> {
  const source = c.source as Engine & { store?: LangGraphStore };
  if (!source.caps.history || source.store === undefined || !("heads" in source.store))
    throw usageError(
      `${target.uri} is a LangGraph store and ${source.uri.redacted} is not: a document becomes a LangGraph thread with ckpt migrate --to-format langgraph`,
    );
  const { threadRows, forkRows, copySource } = await import("../../core/langgraph/copy.js");
  const all = await threadRows(source.store, c.threadId);
  const rows = c.upTo ? forkRows(all, c.upTo) : all;
  const out = { checkpoints: rows.length, writes: rows.reduce((n, r) => n + r.writes.length, 0) };
  if (c.dryRun) return out;
  if (c.replace) await deleteThreadRows(target, c.to, false);
  const { migrateLangGraph } = await import("./migrate.js");
  const from = source.store;
  const s = await migrateLangGraph(
    copySource(rows, c.to, () => from.library()),
    target,
    { verify: true },
  );
  const bad = s.mismatches.length + s.rejectedRecords.length + s.conflicts.length;
  if (bad || s.aborted)
    throw storeError(
      "copy-failed",
      `copy into ${target.uri}#${c.to}: ${s.aborted ?? `${bad} checkpoint(s) not written as read (mismatch, rejected or conflict)`}`,
    );
  return out;
}
