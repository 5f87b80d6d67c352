/**
 * Prune and planning queries of the LangGraph stores (lgstore.ts `threadPage`, `heads`, `prune`). Every delete runs
 * inside the caller's bounded transaction and deletes planned checkpoints by id (never "the thread"), so a checkpoint
 * written after the prune started is never touched; orphan writes count only below the start id.
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { PruneCounts, PruneHead, ThreadPlan } from "./lgstore.js";

const counters = (v: unknown): Record<string, unknown> | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return JSON.parse(v) as Record<string, unknown>;
  return v as Record<string, unknown>;
};

// ------------------------------------------------------------------------------------------------ SQLite

export function sqliteThreadPage(db: BetterSqlite3.Database, after: string | undefined, limit: number): string[] {
  const rows = after === undefined
    ? db.prepare("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id LIMIT ?").all(limit)
    : db.prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id > ? ORDER BY thread_id LIMIT ?").all(after, limit);
  return (rows as Array<{ thread_id: string }>).map((r) => r.thread_id);
}

export function sqliteHeads(db: BetterSqlite3.Database, threads: string[]): Map<string, PruneHead[]> {
  const out = new Map<string, PruneHead[]>();
  const q = db.prepare(`SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,
      length(checkpoint) + length(metadata) AS bytes,
      CASE WHEN instr(CAST(metadata AS TEXT), 'counters_since_delta_snapshot') > 0 AND json_valid(CAST(metadata AS TEXT))
        THEN json_extract(CAST(metadata AS TEXT), '$.counters_since_delta_snapshot') END AS counters
    FROM checkpoints WHERE thread_id = ?`);
  for (const t of threads) {
    const list = (q.all(t) as Array<Record<string, never>>).map((r) => ({ ns: r.checkpoint_ns, id: r.checkpoint_id, parentId: r.parent_checkpoint_id, bytes: r.bytes ?? 0, deltaCounters: counters(r.counters) }));
    out.set(t, list);
  }
  return out;
}

export function sqlitePrune(db: BetterSqlite3.Database, plans: ThreadPlan[], o: { startId: string; dryRun: boolean }): PruneCounts {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const wSize = db.prepare("SELECT count(*) AS n, coalesce(sum(length(value)), 0) AS b FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?");
  const orphanWhere = `FROM writes WHERE thread_id = ? AND checkpoint_id < ? AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)`;
  const run = () => {
    const delCp = o.dryRun ? undefined : db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?");
    const delW = o.dryRun ? undefined : db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?");
    for (const p of plans) {
      for (const h of p.remove) {
        const w = wSize.get(p.threadId, h.ns, h.id) as { n: number; b: number };
        c.writes += w.n;
        c.bytes += w.b + h.bytes;
        c.checkpoints++;
        delW?.run(p.threadId, h.ns, h.id);
        delCp?.run(p.threadId, h.ns, h.id);
      }
      // orphan writes: after the deletes above (a dry run counts the ones already orphaned, plus those it would make)
      const o2 = db.prepare(`SELECT count(*) AS n, coalesce(sum(length(value)), 0) AS b ${orphanWhere}`).get(p.threadId, o.startId) as { n: number; b: number };
      c.orphanWrites += o2.n;
      c.bytes += o2.b;
      if (!o.dryRun && o2.n) db.prepare(`DELETE ${orphanWhere}`).run(p.threadId, o.startId);
    }
  };
  if (o.dryRun) run();
  else db.transaction(run).immediate();
  return c;
}

// ------------------------------------------------------------------------------------------------ PostgreSQL

export async function pgThreadPage(pool: pg.Pool, S: string, after: string | undefined, limit: number): Promise<string[]> {
  const r = after === undefined
    ? await pool.query(`SELECT DISTINCT thread_id FROM ${S}checkpoints ORDER BY thread_id LIMIT $1`, [limit])
    : await pool.query(`SELECT DISTINCT thread_id FROM ${S}checkpoints WHERE thread_id > $1 ORDER BY thread_id LIMIT $2`, [after, limit]);
  return r.rows.map((x) => x.thread_id as string);
}

export async function pgHeads(pool: pg.Pool, S: string, threads: string[]): Promise<Map<string, PruneHead[]>> {
  const out = new Map<string, PruneHead[]>(threads.map((t) => [t, []]));
  const r = await pool.query(
    `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, pg_column_size(checkpoint) + pg_column_size(metadata) AS bytes,
       metadata->'counters_since_delta_snapshot' AS counters FROM ${S}checkpoints WHERE thread_id = ANY($1::text[])`,
    [threads],
  );
  for (const x of r.rows) out.get(x.thread_id)!.push({ ns: x.checkpoint_ns, id: x.checkpoint_id, parentId: x.parent_checkpoint_id, bytes: x.bytes, deltaCounters: counters(x.counters) });
  return out;
}

export async function pgPrune(pool: pg.Pool, S: string, plans: ThreadPlan[], o: { startId: string; dryRun: boolean }): Promise<PruneCounts> {
  const c: PruneCounts = { checkpoints: 0, writes: 0, orphanWrites: 0, blobs: 0, bytes: 0 };
  const keys = plans.flatMap((p) => p.remove.map((h) => [p.threadId, h.ns, h.id] as const));
  const threads = plans.filter((p) => p.remove.length || p.whole).map((p) => p.threadId);
  const client = await pool.connect();
  let broken: Error | undefined;
  const counted = async (sql: string, params: unknown[]) => {
    const r = (await client.query(`WITH d AS (${sql}) SELECT count(*)::int AS n, coalesce(sum(b), 0)::bigint AS b FROM d`, params)).rows[0];
    c.bytes += Number(r.b);
    return r.n as number;
  };
  try {
    await client.query("BEGIN");
    const inKeys = `(thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`;
    const kp = [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2])];
    c.writes += await counted(`DELETE FROM ${S}checkpoint_writes WHERE ${inKeys} RETURNING octet_length(blob) AS b`, kp);
    c.checkpoints += await counted(`DELETE FROM ${S}checkpoints WHERE ${inKeys} RETURNING pg_column_size(checkpoint) + pg_column_size(metadata) AS b`, kp);
    c.orphanWrites += await counted(
      `DELETE FROM ${S}checkpoint_writes w WHERE w.thread_id = ANY($1::text[]) AND w.checkpoint_id < $2 AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
       RETURNING octet_length(w.blob) AS b`,
      [threads, o.startId],
    );
    c.blobs += await counted(
      `DELETE FROM ${S}checkpoint_blobs bl WHERE bl.thread_id = ANY($1::text[]) AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = bl.thread_id AND c.checkpoint_ns = bl.checkpoint_ns AND c.checkpoint->'channel_versions'->>bl.channel = bl.version)
       RETURNING coalesce(octet_length(bl.blob), 0) AS b`,
      [threads],
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
