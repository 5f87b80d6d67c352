/** The stats source of a LangGraph PostgreSQL store (LgStats): table sizes and rows, in one snapshot. */
import { storeError } from "../../../base/errors.js";
import {
  type LgStats,
  type StatBatch,
  type StatRowsOptions,
  type StatTable,
  statThreadPages,
  threadsOf,
} from "../shared.js";
import { ident, PG_STATS } from "../sql.js";
import type { Client, Connections } from "./connect.js";
import { pgErrorText } from "../../pg-errors.js";

/**
 * The stats source: one snapshot for the whole report (a read-only REPEATABLE READ transaction on the read-only
 * connection, begun when first asked for), table sizes from `pg_total_relation_size` (table + indexes + TOAST).
 */
export function statsOf(conns: Connections, S: string, uri: string): LgStats & { end(): Promise<void> } {
  const wrap = async <R>(what: string, f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      throw storeError("postgres-io", `${what} (${uri}): ${pgErrorText(e)}`, {}, e);
    }
  };
  let snapshot: Promise<Client> | undefined;
  const client = () =>
    (snapshot ??= wrap("starting a read-only transaction", async () => {
      const c = await conns.ro();
      await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return c;
    }));
  return {
    storedMethod: "pg_total_relation_size",
    tables: async () => {
      const c = await client();
      return wrap("measuring the tables", () => pgTables(c, S));
    },
    async *rows(o) {
      yield* pgRows(await client(), S, o, wrap);
    },
    async end() {
      const c = await snapshot?.catch(() => undefined);
      await c?.query("COMMIT").catch(() => undefined);
    },
  };
}

async function pgTables(c: Client, S: string): Promise<StatTable[]> {
  const out: StatTable[] = [];
  for (const t of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
    const exists = (await c.query(PG_STATS.exists, [`${S}${ident(t)}`])).rows[0].r;
    if (!exists) continue;
    const r = (await c.query(PG_STATS.size(S, t), [`${S}${ident(t)}`])).rows[0];
    out.push({ table: t, rows: Number(r.n), storedBytes: Number(r.b) });
  }
  return out;
}

type StatWrap = <R>(w: string, f: () => Promise<R>) => Promise<R>;

async function* pgRows(c: Client, S: string, o: StatRowsOptions, wrap: StatWrap): AsyncIterable<StatBatch> {
  const batch = Math.max(1, o.batchSize ?? 500);
  const hasBlobs = (await c.query(PG_STATS.exists, [`${S}checkpoint_blobs`])).rows[0].r !== null;
  const next = (after: string | undefined, n: number) =>
    wrap("listing threads", async () =>
      (after === undefined
        ? await c.query(PG_STATS.firstThreads(S), [n])
        : await c.query(PG_STATS.nextThreads(S), [n, after])
      ).rows.map((r) => r.thread_id as string),
    );
  const paged = (what: string, select: string, key: string[], threads: string[]) =>
    pgPaged(c, wrap, what, select, key, threads, batch);
  for await (const page of statThreadPages(next, o)) {
    const threads = threadsOf(page);
    for await (const rows of paged(
      "reading checkpoints",
      PG_STATS.checkpoints(S),
      ["thread_id", "checkpoint_ns", "checkpoint_id"],
      threads,
    )) {
      yield {
        table: "checkpoints",
        rows: rows.map((r) => ({
          threadId: r.thread_id,
          ns: r.checkpoint_ns,
          id: r.checkpoint_id,
          type: null,
          checkpoint: null,
          checkpointBytes: Number(r.cb),
          metadataBytes: Number(r.mb),
          ts: r.ts,
          versions: r.versions,
          inline: r.inline,
        })),
      };
    }
    if (hasBlobs) {
      const key = ["thread_id", "checkpoint_ns", "channel", "version"];
      for await (const rows of paged("reading blobs", PG_STATS.blobs(S), key, threads)) {
        yield {
          table: "blobs",
          rows: rows.map((r) => ({
            threadId: r.thread_id,
            ns: r.checkpoint_ns,
            channel: r.channel,
            version: r.version,
            type: r.type,
            blob: r.blob,
          })),
        };
      }
    }
    const wKey = ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"];
    for await (const rows of paged("reading writes", PG_STATS.writes(S), wKey, threads)) {
      yield {
        table: "writes",
        rows: rows.map((r) => ({
          threadId: r.thread_id,
          ns: r.checkpoint_ns,
          checkpointId: r.checkpoint_id,
          channel: r.channel,
          type: r.type,
          value: r.blob ?? new Uint8Array(0),
        })),
      };
    }
    yield { table: "page", threads };
  }
}

/** `select` (with `$1` = the page's threads) in key order, `batch` rows at a time (keyset on `key`). */
async function* pgPaged(
  c: Client,
  wrap: StatWrap,
  what: string,
  select: string,
  key: string[],
  threads: string[],
  batch: number,
) {
  let after: unknown[] | undefined;
  const order = key.join(", ");
  for (;;) {
    const params: unknown[] = [threads, batch];
    let sql = `${select} ORDER BY ${order} LIMIT $2`;
    if (after) {
      const ph = after.map((_, i) => `$${i + 3}`).join(", ");
      sql = `${select} AND (${order}) > (${ph}) ORDER BY ${order} LIMIT $2`;
      params.push(...after);
    }
    const rows = (await wrap(what, () => c.query(sql, params))).rows;
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    const l = rows[rows.length - 1]!;
    after = key.map((k) => l[k]);
  }
}
