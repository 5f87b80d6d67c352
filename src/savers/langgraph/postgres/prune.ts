/**
 * Prune and vacuum of a LangGraph PostgreSQL store: thread pages, the heads a plan is made from, a page's planned
 * checkpoints deleted in one transaction (with their orphan writes and blobs), and VACUUM.
 */
import type pg from "pg";
import {
  counters,
  type PlanFn,
  type PruneCounts,
  type PruneHead,
  type PruneMark,
  type VacuumReport,
} from "../shared.js";
import { PG_PRUNE } from "../sql.js";

/** `VACUUM` of the three tables (each outside a transaction, as VACUUM must run), with their sizes before and after. */
export async function pgVacuum(pool: pg.Pool, S: string, schema: string, dryRun: boolean): Promise<VacuumReport> {
  const sizes = async () =>
    new Map(
      (await pool.query(PG_PRUNE.tableSizes, [schema])).rows.map((r) => [r.name as string, Number(r.size)] as const),
    );
  const before = await sizes();
  if (!dryRun) for (const t of before.keys()) await pool.query(PG_PRUNE.vacuum(S, t));
  const after = dryRun ? before : await sizes();
  return { parts: [...before].map(([name, b]) => ({ name, before: b, after: after.get(name) ?? b })) };
}

export async function pgThreadPage(
  pool: pg.Pool,
  S: string,
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  const r = await pool.query(
    PG_PRUNE.threadPage(S, after !== undefined),
    after === undefined ? [limit] : [limit, after],
  );
  return r.rows.map((x) => x.id as string);
}

type PgHeadRow = [string, string, string, string | null, number | null, unknown];
const pgHead = (x: PgHeadRow): PruneHead => ({
  ns: x[1],
  id: x[2],
  parentId: x[3],
  bytes: x[4] ?? 0,
  deltaCounters: counters(x[5]),
});

export async function pgHeads(pool: pg.Pool, S: string, threads: string[]): Promise<Map<string, PruneHead[]>> {
  const out = new Map<string, PruneHead[]>(threads.map((t) => [t, []]));
  const r = await pool.query<PgHeadRow>({
    text: PG_PRUNE.heads(S),
    values: [JSON.stringify(threads)],
    rowMode: "array",
  });
  for (const x of r.rows) out.get(x[0])!.push(pgHead(x));
  return out;
}

/**
 * One page: the threads' checkpoints in one query (no payloads), each thread planned and let go, then the planned keys
 * deleted in one transaction, with the touched threads' orphan writes and blobs. A dry run does the same and rolls back.
 * Every delete deletes planned checkpoints by id (never "the thread"), so a checkpoint written after the prune started
 * is never touched; orphan writes count only below the start id.
 */
/** The store's start mark (PG_PRUNE.pruneStartMark) and, when another transaction set it, which one. */
export async function pgPruneStart(pool: pg.Pool): Promise<PruneMark> {
  const r = (await pool.query(PG_PRUNE.pruneStartMark)).rows[0];
  const mark: PruneMark = { mark: String(r.x) };
  if (!r.held) return mark;
  const since = r.since ? `, open since ${new Date(r.since).toISOString()}` : "";
  const db = r.db ? ` in database ${r.db}` : "";
  mark.heldBy =
    r.gid !== null && r.gid !== undefined
      ? `prepared transaction '${r.gid}'${db}${since}`
      : r.pid !== null && r.pid !== undefined
        ? `pid ${r.pid}${db}${since}`
        : "a transaction that ended right after";
  return mark;
}

export async function pgPrunePage(
  pool: pg.Pool,
  S: string,
  threads: string[],
  plan: PlanFn,
  o: { startId: string; startMark?: string; dryRun: boolean },
): Promise<PruneCounts> {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  if (o.startMark !== undefined) c.blobsKept = 0;
  const heads = await pgHeads(pool, S, threads);
  const kt: string[] = [];
  const kn: string[] = [];
  const ki: string[] = [];
  const touched: string[] = [];
  for (const t of threads) {
    const p = plan(t, heads.get(t)!);
    heads.delete(t);
    if (p.remove.length || p.whole) touched.push(t);
    for (const h of p.remove) kt.push(t), kn.push(h.ns), ki.push(h.id);
  }
  if (touched.length === 0) return c; // nothing planned: the statements below would match no row
  const client = await pool.connect();
  let broken: Error | undefined;
  const counted = async (sql: string, params: unknown[]) => {
    const r = (await client.query(PG_PRUNE.counted(sql), params)).rows[0];
    c.bytes += Number(r.b);
    return r.n as number;
  };
  try {
    await client.query("BEGIN");
    // every statement below reaches a page's rows by key or thread: without statistics (a store a migration just
    // filled) the planner reads whole tables for them instead, each page again. (OFFSET 0 keeps the blob check a lookup
    // per blob row: as an anti-join it walked the checkpoints' index from the first thread to the page's.)
    await client.query("SET LOCAL enable_seqscan = off");
    const param = [kt, kn, ki];
    c.writes += await counted(PG_PRUNE.deleteWrites(S), param);
    c.checkpoints += await counted(PG_PRUNE.deleteCheckpoints(S), param);
    c.orphanWrites += await counted(PG_PRUNE.deleteOrphanWrites(S), [touched, o.startId]);
    c.blobs += await counted(PG_PRUNE.deleteOrphanBlobs(S), [touched, o.startMark ?? null]);
    // never silently: the orphans the mark kept are counted (the summary says why and that a later prune takes them)
    if (o.startMark !== undefined) {
      const kept = (await client.query(PG_PRUNE.keptOrphanBlobs(S), [touched, o.startMark])).rows;
      for (const k of kept) c.blobsKept! += k.n as number;
      if (kept.length) c.blobsKeptThreads = kept.map((k) => k.t as string);
    }
    await client.query(o.dryRun ? "ROLLBACK" : "COMMIT");
  } catch (e) {
    broken = e as Error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    client.release(broken);
  }
  return c;
}
