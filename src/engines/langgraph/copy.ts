/**
 * `ckpt copy` into a LangGraph store: a LangGraph thread's rows (all, or the fork's up to a checkpoint), renamed, with
 * pending writes and blobs, written and verified by the migrate engine (core/langgraph/copy.ts). A document of another
 * layout becomes a LangGraph thread with `ckpt migrate --to-format langgraph`, not here.
 *
 * All or nothing: the whole copy is one transaction of the target (LgStore.atomically) holding a lock on the new
 * thread id, in which the id is looked up, the thread that was there deleted (--overwrite), every row written and
 * verified. Anything short of every checkpoint written as read (a checkpoint the target cannot hold, a mismatch, a
 * lost connection, a killed process) leaves the target as it was: no history with a hole or without its newest
 * checkpoints, and a rerun finds no thread in its way. Of two copies into one new id, one writes; the other waits for
 * it and is refused (exit 2) having written nothing.
 */
import { CkptError, ExitCode, storeError, usageError } from "../../base/errors.js";
import { printable } from "../../base/printable.js";
import type { LgMigrateSummary } from "./migrate.js";
import type { LangGraphStore } from "../../savers/langgraph/shared.js";
import { threadTakenError } from "../copy.js";
import type { CopyIn, Copied, Engine } from "../types.js";
import { deleteThreadRows } from "./delete.js";

/** The checkpoints not written as read, each named by its id in the source thread (at most 5, then how many more). */
function notWritten(s: LgMigrateSummary, to: string, source: string): string {
  const all = [
    ...s.rejectedRecords.map((r) => ({ ...r, why: r.reason })),
    ...s.mismatches.map((m) => ({ ...m, why: `it read back ${m.got === null ? "missing" : "different"}` })),
    ...s.conflicts.map((c) => ({ ...c, why: c.reason })),
  ];
  // the migration labels a checkpoint `<thread>@<id>` (the new thread's id)
  const id = (label: string) => (label.startsWith(`${to}@`) ? label.slice(to.length + 1) : label);
  const named = all
    .slice(0, 5)
    .map(
      (r) =>
        `checkpoint ${printable(id(r.threadId))}${r.namespace ? ` (namespace '${printable(r.namespace)}')` : ""}: ${r.why}`,
    );
  return `${all.length} checkpoint(s) of ${source} cannot be written as read — ${named.join("; ")}${all.length > 5 ? `; and ${all.length - 5} more` : ""}`;
}

export async function copyIntoLangGraph(target: LangGraphStore, c: CopyIn): Promise<Copied> {
  const source = c.source as Engine & { store?: LangGraphStore };
  if (!source.caps.history || source.store === undefined || !("heads" in source.store))
    throw usageError(
      `${target.uri} is a LangGraph store and ${source.uri.redacted} is not: a document becomes a LangGraph thread with ckpt migrate --to-format langgraph`,
    );
  const { threadRows, forkRows, copySource } = await import("../../core/langgraph/copy.js");
  const rowsOf = c.redact
    ? (await import("../../core/langgraph/redact-rows.js")).redactingRows(
        source.store,
        c.redact.kinds,
        c.redact.counts,
        c.redact.unscanned,
      )
    : source.store;
  const all = await threadRows(rowsOf, c.threadId);
  const rows = c.upTo ? forkRows(all, c.upTo) : all;
  const out = { checkpoints: rows.length, writes: rows.reduce((n, r) => n + r.writes.length, 0) };
  const held = async (s: { hasLayout(): Promise<boolean>; heads: LangGraphStore["heads"] }) =>
    (await s.hasLayout()) && ((await s.heads([c.to])).get(c.to) ?? []).length > 0;
  if (c.dryRun) return { ...out, replaced: await held(target) };
  const from = source.store;
  const library = (await from.library()) ?? "js";
  // the tables first: PostgreSQL's setup (the library's migrations) cannot run inside the copy's transaction
  if (!(await target.hasLayout())) await target.setup(library);
  const { migrateLangGraph } = await import("./migrate.js");
  const replaced = await target.atomically(`copy:${c.to}`, async (tx) => {
    const there = await held(tx);
    if (there && !c.overwrite) throw threadTakenError(target.uri, c.to);
    if (there) await deleteThreadRows(tx, c.to, false);
    const s = await migrateLangGraph(
      copySource(rows, c.to, async () => library),
      tx,
      { verify: true },
    );
    const into = `copy into ${target.uri}#${printable(c.to)}`;
    const bad = s.mismatches.length + s.rejectedRecords.length + s.conflicts.length;
    // a checkpoint the target cannot hold as read is the source's (exit 3); anything else the store's (exit 4)
    if (bad)
      throw new CkptError(
        s.mismatches.length + s.conflicts.length ? ExitCode.STORE : ExitCode.INPUT,
        "copy-failed",
        `${into}: ${notWritten(s, c.to, `${source.uri.redacted}#${printable(c.threadId)}`)}; nothing was written`,
      );
    if (s.aborted) throw storeError("copy-failed", `${into}: ${s.aborted}; nothing was written`);
    return there;
  });
  return { ...out, replaced };
}
