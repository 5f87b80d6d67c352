/** `ckpt delete` of a LangGraph thread: every row of it, in the prune's page transaction with the thread planned whole. */
import { uuid6Floor } from "../../core/prune.js";
import { idGlob } from "../../base/glob.js";
import {
  blobsKeptNote,
  type LgStore,
  type PruneCounts,
  type PruneMark,
  threadList,
} from "../../savers/langgraph/shared.js";
import type { Erased, Owner } from "../types.js";

/** The whole thread planned and deleted (or counted) in one transaction (the prune's page with the thread whole). */
export async function deleteThreadRows(
  store: LgStore,
  threadId: string,
  dryRun: boolean,
): Promise<(PruneCounts & { notes?: string[] }) | null> {
  const heads = (await store.heads([threadId])).get(threadId) ?? [];
  if (heads.length === 0) return null;
  const mark = await store.pruneStart?.();
  const c = await store.prunePage([threadId], (t, hs) => ({ threadId: t, whole: true, remove: hs, keep: 0 }), {
    startId: uuid6Floor(Date.now()),
    startMark: mark?.mark,
    dryRun,
    doing: `deleting thread '${threadId}'`,
  });
  const kept = keptNote(c, mark, dryRun);
  return kept ? { ...c, notes: [kept] } : c;
}

/**
 * Orphan blobs the delete's start mark kept (they may hold the thread's data): said, with how to remove them — ckpt
 * finds threads by their checkpoints, and these threads have none left.
 */
function keptNote(c: PruneCounts, mark: PruneMark | undefined, dryRun: boolean): string | undefined {
  const ts = c.blobsKept ? threadList(c.blobsKeptThreads ?? []) : "";
  return blobsKeptNote(
    c.blobsKept,
    mark,
    dryRun,
    `they may hold the deleted threads' data, and ckpt finds a thread by its checkpoints, which are gone: once that transaction has ended, delete the rows of checkpoint_blobs whose thread_id is ${ts} and that no checkpoint names`,
  );
}

/** Whether a checkpoint's metadata (JSON text) has every `key=value` (a non-string value as its JSON text). */
function metadataHas(metadata: Uint8Array, where: NonNullable<Owner["where"]>): boolean {
  let m: unknown;
  try {
    m = JSON.parse(Buffer.from(metadata).toString("utf8"));
  } catch {
    return false;
  }
  if (!m || typeof m !== "object") return false;
  return where.every(({ key, value }) => {
    const v = (m as Record<string, unknown>)[key];
    return v === value || (v !== undefined && typeof v !== "string" && JSON.stringify(v) === value);
  });
}

/**
 * `ckpt delete --match/--where` of a LangGraph store: the threads whose id a glob matches and (with `--where`) that
 * hold a checkpoint whose metadata has every key=value, all their rows counted or deleted in one transaction (the
 * prune's page, every thread planned whole: only the checkpoints there when it read them go, so one a writer adds
 * meanwhile stays). null: no thread selected.
 */
export async function eraseThreads(store: LgStore, o: Owner, dryRun: boolean): Promise<Erased | null> {
  const globs = (o.match ?? []).map(idGlob);
  const byId = (t: string) => globs.length === 0 || globs.some((g) => g.test(t));
  let threads: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.threadPage(after, 500);
    if (page.length === 0) break;
    after = page[page.length - 1];
    threads.push(...page.filter(byId));
  }
  if (o.where && threads.length) {
    const candidates = new Set(threads);
    const hit = new Set<string>();
    for await (const batch of store.scanRows(500, (t) => candidates.has(t) && !hit.has(t)))
      for (const cp of batch) if (!hit.has(cp.threadId) && metadataHas(cp.metadata, o.where)) hit.add(cp.threadId);
    threads = threads.filter((t) => hit.has(t));
  }
  if (threads.length === 0) return null;
  const mark = await store.pruneStart?.();
  const c = await store.prunePage(threads, (t, hs) => ({ threadId: t, whole: true, remove: hs, keep: 0 }), {
    startId: uuid6Floor(Date.now()),
    startMark: mark?.mark,
    dryRun,
    doing: `erasing ${threads.length} threads`,
  });
  const tables =
    store.kind === "sqlite"
      ? [
          { table: "checkpoints", rows: c.checkpoints },
          { table: "writes", rows: c.writes + c.orphanWrites },
        ]
      : [
          { table: "checkpoints", rows: c.checkpoints },
          { table: "checkpoint_writes", rows: c.writes + c.orphanWrites },
          { table: "checkpoint_blobs", rows: c.blobs },
        ];
  // an erasure that leaves rows of the owner's threads says so in its record (they may hold the owner's data)
  const kept = keptNote(c, mark, dryRun);
  return kept
    ? { threads, tables, kept: [{ table: "checkpoint_blobs", rows: c.blobsKept! }], notes: [kept] }
    : { threads, tables };
}
