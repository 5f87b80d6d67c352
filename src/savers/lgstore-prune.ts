/**
 * Prune and planning queries of the LangGraph stores (lgstore.ts `threadPage`, `heads`, `prune`). Every delete runs
 * inside the caller's bounded transaction and deletes planned checkpoints by id (never "the thread"), so a checkpoint
 * written after the prune started is never touched; orphan writes count only below the start id.
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { PlanFn, PruneCounts, PruneHead, ThreadPlan } from "./lgstore.js";

const counters = (v: unknown): Record<string, unknown> | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return JSON.parse(v) as Record<string, unknown>;
  return v as Record<string, unknown>;
};

// ------------------------------------------------------------------------------------------------ SQLite

/** The planning and prune statements of one connection, prepared once (a statement per thread or checkpoint is
 * native memory held until the garbage collector finalizes it, and compile time). Rows come back as arrays. */
interface SqliteStmts {
  firstThreads: BetterSqlite3.Statement;
  nextThreads: BetterSqlite3.Statement;
  heads: BetterSqlite3.Statement;
  writesOf: BetterSqlite3.Statement;
  orphans: BetterSqlite3.Statement;
  del?: { writes: BetterSqlite3.Statement; checkpoints: BetterSqlite3.Statement; orphans: BetterSqlite3.Statement };
}
const sqliteStmts = new WeakMap<BetterSqlite3.Database, SqliteStmts>();

// the planned ids of one (thread, namespace) go in as one JSON array
const PLANNED = "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN (SELECT value FROM json_each(?))";
const ORPHANS = `FROM writes WHERE thread_id = ? AND checkpoint_id < ? AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)`;

function stmtsOf(db: BetterSqlite3.Database, write: boolean): SqliteStmts {
  let s = sqliteStmts.get(db);
  if (!s) {
    s = {
      firstThreads: db.prepare("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id LIMIT ?").pluck(),
      nextThreads: db
        .prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id > ? ORDER BY thread_id LIMIT ?")
        .pluck(),
      heads: db
        .prepare(`SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint) + length(metadata),
          CASE WHEN instr(CAST(metadata AS TEXT), 'counters_since_delta_snapshot') > 0 AND json_valid(CAST(metadata AS TEXT))
            THEN json_extract(CAST(metadata AS TEXT), '$.counters_since_delta_snapshot') END
        FROM checkpoints WHERE thread_id = ?`)
        .raw(),
      writesOf: db.prepare(`SELECT count(*), coalesce(sum(length(value)), 0) FROM writes WHERE ${PLANNED}`).raw(),
      orphans: db.prepare(`SELECT count(*), coalesce(sum(length(value)), 0) ${ORPHANS}`).raw(),
    };
    sqliteStmts.set(db, s);
  }
  if (write)
    s.del ??= {
      writes: db.prepare(`DELETE FROM writes WHERE ${PLANNED}`),
      checkpoints: db.prepare(`DELETE FROM checkpoints WHERE ${PLANNED}`),
      orphans: db.prepare(`DELETE ${ORPHANS}`),
    };
  return s;
}

export function sqliteThreadPage(db: BetterSqlite3.Database, after: string | undefined, limit: number): string[] {
  const s = stmtsOf(db, false);
  return (after === undefined ? s.firstThreads.all(limit) : s.nextThreads.all(after, limit)) as string[];
}

type HeadRow = [string, string, string | null, number | null, string | null];
const toHead = (r: HeadRow): PruneHead => ({
  ns: r[0],
  id: r[1],
  parentId: r[2],
  bytes: r[3] ?? 0,
  deltaCounters: counters(r[4]),
});

function sqliteThreadHeads(s: SqliteStmts, threadId: string): PruneHead[] {
  const list: PruneHead[] = [];
  for (const r of s.heads.all(threadId) as HeadRow[]) list.push(toHead(r));
  return list;
}

export function sqliteHeads(db: BetterSqlite3.Database, threads: string[]): Map<string, PruneHead[]> {
  const s = stmtsOf(db, false);
  return new Map(threads.map((t) => [t, sqliteThreadHeads(s, t)]));
}

/** A plan's checkpoint ids by namespace, each list as the JSON array the statements take. */
function idsByNs(p: ThreadPlan): Map<string, string> {
  const by = new Map<string, string[]>();
  for (const h of p.remove) (by.get(h.ns) ?? by.set(h.ns, []).get(h.ns)!).push(h.id);
  return new Map([...by].map(([ns, ids]) => [ns, JSON.stringify(ids)]));
}

/**
 * One page in one transaction, a thread at a time: its checkpoints are read, planned and deleted before the next
 * thread's are read, so what is held is one thread's heads, whatever the page size.
 */
export function sqlitePrunePage(
  db: BetterSqlite3.Database,
  threads: string[],
  plan: PlanFn,
  o: { startId: string; dryRun: boolean },
): PruneCounts {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const s = stmtsOf(db, !o.dryRun);
  const run = () => {
    for (const t of threads) {
      const p = plan(t, sqliteThreadHeads(s, t));
      for (const h of p.remove) c.bytes += h.bytes;
      c.checkpoints += p.remove.length;
      for (const [ns, ids] of idsByNs(p)) {
        const [n, b] = s.writesOf.get(t, ns, ids) as [number, number];
        c.writes += n;
        c.bytes += b;
        s.del?.writes.run(t, ns, ids);
        s.del?.checkpoints.run(t, ns, ids);
      }
      // orphan writes: after the deletes above (a dry run counts the ones already orphaned, plus those it would make)
      const [n, b] = s.orphans.get(t, o.startId) as [number, number];
      c.orphanWrites += n;
      c.bytes += b;
      if (n) s.del?.orphans.run(t, o.startId);
    }
  };
  if (o.dryRun) run();
  else db.transaction(run).immediate();
  return c;
}

// ------------------------------------------------------------------------------------------------ PostgreSQL

/**
 * The next `limit` thread ids after `after`, in order: one index step per thread (a recursive skip over the thread
 * index). `SELECT DISTINCT … LIMIT` read and grouped every row after `after` for each page, so paging through a store
 * read it about pages/2 times over.
 */
export async function pgThreadPage(
  pool: pg.Pool,
  S: string,
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  const r = await pool.query(
    `WITH RECURSIVE t(id, n) AS (
       (SELECT thread_id, 1 FROM ${S}checkpoints ${after === undefined ? "" : "WHERE thread_id > $2"} ORDER BY thread_id LIMIT 1)
       UNION ALL
       SELECT (SELECT c.thread_id FROM ${S}checkpoints c WHERE c.thread_id > t.id ORDER BY c.thread_id LIMIT 1), t.n + 1 FROM t WHERE t.id IS NOT NULL AND t.n < $1)
     SELECT id FROM t WHERE id IS NOT NULL ORDER BY n`,
    after === undefined ? [limit] : [limit, after],
  );
  return r.rows.map((x) => x.id as string);
}

export async function pgHeads(pool: pg.Pool, S: string, threads: string[]): Promise<Map<string, PruneHead[]>> {
  const out = new Map<string, PruneHead[]>(threads.map((t) => [t, []]));
  const r = await pool.query<PgHeadRow>({ text: pgHeadsSql(S), values: [JSON.stringify(threads)], rowMode: "array" });
  for (const x of r.rows) out.get(x[0])!.push(pgHead(x));
  return out;
}

type PgHeadRow = [string, string, string, string | null, number | null, unknown];
const pgHead = (x: PgHeadRow): PruneHead => ({
  ns: x[1],
  id: x[2],
  parentId: x[3],
  bytes: x[4] ?? 0,
  deltaCounters: counters(x[5]),
});
// thread lists and planned keys go as one JSON parameter each: one native stringify, not driver-built text arrays
// each thread's rows looked up by index (the OFFSET 0 keeps the lateral subquery a per-thread lookup): tables a migration
// just filled have no statistics, and the planner then takes a page's threads for the whole table and reads all of it
const pgHeadsSql = (
  S: string,
) => `SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, pg_column_size(c.checkpoint) + pg_column_size(c.metadata),
    c.metadata->'counters_since_delta_snapshot' FROM (SELECT DISTINCT json_array_elements_text($1::json)) AS t(id)
    CROSS JOIN LATERAL (SELECT * FROM ${S}checkpoints c WHERE c.thread_id = t.id OFFSET 0) c`;
/**
 * One page: the threads' checkpoints in one query (no payloads), each thread planned and let go, then the planned keys
 * deleted in one transaction, with the touched threads' orphan writes and blobs. A dry run does the same and rolls back.
 */
export async function pgPrunePage(
  pool: pg.Pool,
  S: string,
  threads: string[],
  plan: PlanFn,
  o: { startId: string; dryRun: boolean },
): Promise<PruneCounts> {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const heads = await pgHeads(pool, S, threads);
  const kt: string[] = [],
    kn: string[] = [],
    ki: string[] = [],
    touched: string[] = [];
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
    const r = (
      await client.query(
        `WITH d AS (${sql}) SELECT count(*)::int AS n, coalesce(sum(b), 0)::bigint AS b FROM d`,
        params,
      )
    ).rows[0];
    c.bytes += Number(r.b);
    return r.n as number;
  };
  try {
    await client.query("BEGIN");
    // every statement below reaches a page's rows by key or thread: without statistics (a store a migration just
    // filled) the planner reads whole tables for them instead, each page again. (OFFSET 0 keeps the blob check a lookup
    // per blob row: as an anti-join it walked the checkpoints' index from the first thread to the page's.)
    await client.query("SET LOCAL enable_seqscan = off");
    const inKeys = `(thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`;
    const param = [kt, kn, ki];
    c.writes += await counted(
      `DELETE FROM ${S}checkpoint_writes WHERE ${inKeys} RETURNING octet_length(blob) AS b`,
      param,
    );
    c.checkpoints += await counted(
      `DELETE FROM ${S}checkpoints WHERE ${inKeys} RETURNING pg_column_size(checkpoint) + pg_column_size(metadata) AS b`,
      param,
    );
    c.orphanWrites += await counted(
      `DELETE FROM ${S}checkpoint_writes w WHERE w.thread_id = ANY($1::text[]) AND w.checkpoint_id < $2 AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
       RETURNING octet_length(w.blob) AS b`,
      [touched, o.startId],
    );
    c.blobs += await counted(
      `DELETE FROM ${S}checkpoint_blobs bl WHERE bl.thread_id = ANY($1::text[]) AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = bl.thread_id AND c.checkpoint_ns = bl.checkpoint_ns AND c.checkpoint->'channel_versions'->>bl.channel = bl.version OFFSET 0)
       RETURNING coalesce(octet_length(bl.blob), 0) AS b`,
      [touched],
    );
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
