/**
 * A LangGraph PostgreSQL store (Python / JS PostgresSaver, LANGGRAPH.md §1.2-1.3) at the row level, in the URI's
 * `?schema=` (default `public`). `setup` runs the library's own migrations (Python 0-9, JS 0-4) the way its
 * setup() does: read max(v), run each later migration, record its index. Writes split channel values into
 * `checkpoint_blobs` as the target library's put does (rows.ts); reads reassemble them.
 */
import type pg from "pg";
import { storeError } from "../base/errors.js";
import type { Library } from "../formats/langgraph/encode.js";
import { assembleFromPostgres, libraryOfVersions, splitForPostgres, type BlobValue, type LgCheckpoint, type LgWrite, type PgBlobRow, type PgCheckpointRow } from "../formats/langgraph/rows.js";
import { pgHeads, pgPrune, pgThreadPage } from "./lgstore-prune.js";
import { keyOf, type LgStore, type WriteOptions } from "./lgstore.js";
import { attachWrites } from "./lgstore-sqlite.js";

const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';

/** The migrations of the libraries, in order (py:pg/base.py:43-91; js:pg/migrations.ts:7-45); `S.` = the schema. */
export function migrations(lib: Library, S: string): string[] {
  const common = [
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_migrations (\n    v INTEGER PRIMARY KEY\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoints (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    checkpoint_id TEXT NOT NULL,\n    parent_checkpoint_id TEXT,\n    type TEXT,\n    checkpoint JSONB NOT NULL,\n    metadata JSONB NOT NULL DEFAULT '{}',\n    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_blobs (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    channel TEXT NOT NULL,\n    version TEXT NOT NULL,\n    type TEXT NOT NULL,\n    blob BYTEA,\n    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)\n);`,
    `CREATE TABLE IF NOT EXISTS ${S}checkpoint_writes (\n    thread_id TEXT NOT NULL,\n    checkpoint_ns TEXT NOT NULL DEFAULT '',\n    checkpoint_id TEXT NOT NULL,\n    task_id TEXT NOT NULL,\n    idx INTEGER NOT NULL,\n    channel TEXT NOT NULL,\n    type TEXT,\n    blob BYTEA NOT NULL,\n    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)\n);`,
    `ALTER TABLE ${S}checkpoint_blobs ALTER COLUMN blob DROP not null;`,
  ];
  if (lib === "js") return common;
  return [
    ...common,
    "SELECT 1;",
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoints_thread_id_idx ON ${S}checkpoints(thread_id);`,
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoint_blobs_thread_id_idx ON ${S}checkpoint_blobs(thread_id);`,
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS checkpoint_writes_thread_id_idx ON ${S}checkpoint_writes(thread_id);`,
    `ALTER TABLE ${S}checkpoint_writes ADD COLUMN IF NOT EXISTS task_path TEXT NOT NULL DEFAULT '';`,
  ];
}

export type PgLgStore = LgStore & { pool: pg.Pool; schema: string; S: string };

export async function openPostgresLgStore(url: string, uri: string, schema: string): Promise<PgLgStore> {
  const { default: pgm } = await import("pg");
  const pool = new pgm.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
  pool.on("error", () => undefined);
  const S = `${ident(schema)}.`;
  const wrap = async <R>(what: string, f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("postgres-io", `${what} (${uri}): ${(e as Error).message}`);
    }
  };
  try {
    await pool.query("SELECT 1");
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw storeError("postgres-connect", `cannot connect to PostgreSQL at ${uri}: ${(e as Error).message} (start it with: pg_ctlcluster <version> main start)`);
  }
  const tables = async () =>
    new Set((await pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema])).rows.map((r) => r.table_name as string));
  const hasLayout = async () => {
    const t = await tables();
    return t.has("checkpoints") && t.has("checkpoint_blobs") && t.has("checkpoint_writes");
  };
  let taskPath: boolean | undefined;
  const hasTaskPath = async () =>
    (taskPath ??= (await pool.query("SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'checkpoint_writes' AND column_name = 'task_path'", [schema])).rowCount! > 0);

  /** blob keys already inserted for the (thread, ns) being written (reset when it changes) */
  let seenFor = "";
  let seen = new Set<string>();
  const staged = new WeakMap<LgCheckpoint, { row: PgCheckpointRow; blobs: PgBlobRow[]; form: string }>();
  /** what each blob key of the (thread, ns) being staged holds, to catch two values under one key */
  let stagedFor = "";
  let stagedBlobs = new Map<string, string>();
  const stage = (cp: LgCheckpoint, lib: Library) => {
    let s = staged.get(cp);
    if (!s) {
      const { row, blobs } = splitForPostgres(cp, lib, new Set());
      const tn = `${cp.threadId}\u0000${cp.ns}`;
      if (tn !== stagedFor) [stagedFor, stagedBlobs] = [tn, new Map()];
      for (const b of blobs) {
        const k = `${b.channel}\u0000${b.version}`;
        const v = blobValueForm(b);
        const had = stagedBlobs.get(k);
        if (had !== undefined && had !== v) {
          throw storeError(
            "langgraph-blob-collision",
            `its '${b.channel}' value at version ${b.version} differs from the one another checkpoint of this thread has at the same version (a forked branch reached the same version): the PostgreSQL layout keys blobs by (thread, namespace, channel, version) and cannot hold both`,
          );
        }
        stagedBlobs.set(k, v);
      }
      s = { row, blobs, form: pgForm(row.parentId, JSON.parse(row.checkpoint), JSON.parse(row.metadata), blobs, cp.writes) };
      staged.set(cp, s);
    }
    return s;
  };

  async function readRows(keys: Array<{ threadId: string; ns: string; id: string }>, c: pg.Pool | pg.PoolClient = pool) {
    const t = keys.map((k) => k.threadId), n = keys.map((k) => k.ns), i = keys.map((k) => k.id);
    const cps = (await c.query(`SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint::text AS checkpoint, metadata::text AS metadata
      FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))
      ORDER BY thread_id, checkpoint_ns, checkpoint_id`, [t, n, i])).rows;
    const blobs = (await c.query(`SELECT DISTINCT c.thread_id, c.checkpoint_ns, bl.channel, bl.version, bl.type, bl.blob
      FROM ${S}checkpoints c JOIN LATERAL jsonb_each_text(c.checkpoint->'channel_versions') cv(channel, version) ON true
      JOIN ${S}checkpoint_blobs bl ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns AND bl.channel = cv.channel AND bl.version = cv.version
      WHERE (c.thread_id, c.checkpoint_ns, c.checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, [t, n, i])).rows;
    const tp = (await hasTaskPath()) ? "task_path" : "'' AS task_path";
    const writes = (await c.query(`SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob, ${tp}
      FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))
      ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`, [t, n, i])).rows;
    const blobMap = new Map<string, BlobValue>();
    for (const b of blobs) blobMap.set(`${b.thread_id}\u0000${b.checkpoint_ns}\u0000${b.channel}\u0000${b.version}`, { type: b.type, blob: b.blob });
    return { cps, blobMap, writes: writes.map((w) => [keyOf({ threadId: w.thread_id, ns: w.checkpoint_ns, id: w.checkpoint_id }), { taskId: w.task_id, idx: w.idx, channel: w.channel, type: w.type, value: w.blob, taskPath: w.task_path } as LgWrite] as const) };
  }
  const blobsOf = (cp: Record<string, unknown>, threadId: string, ns: string, blobMap: Map<string, BlobValue>) => {
    const out = new Map<string, BlobValue>();
    for (const [ch, v] of Object.entries((cp.channel_versions ?? {}) as Record<string, unknown>)) {
      const b = blobMap.get(`${threadId}\u0000${ns}\u0000${ch}\u0000${String(v)}`);
      if (b) out.set(ch, b);
    }
    return out;
  };
  function assemble(r: Record<string, string | null>, blobMap: Map<string, BlobValue>, fallback: Library): LgCheckpoint {
    const checkpoint = JSON.parse(r.checkpoint!) as Record<string, unknown>;
    const lib = libraryOfVersions(checkpoint) ?? fallback;
    const a = assembleFromPostgres({ checkpoint, metadata: JSON.parse(r.metadata!) }, blobsOf(checkpoint, r.thread_id!, r.checkpoint_ns!, blobMap), lib);
    return { threadId: r.thread_id!, ns: r.checkpoint_ns!, id: r.checkpoint_id!, parentId: r.parent_checkpoint_id, ...a, writes: [] };
  }

  const store: PgLgStore = {
    kind: "postgres",
    uri,
    pool,
    schema,
    S,
    hasLayout: () => wrap("reading the schema", hasLayout),
    library: () =>
      wrap("reading the schema", async () => {
        if (!(await hasLayout())) return undefined;
        const r = (await pool.query(`SELECT checkpoint->'channel_versions' AS cv FROM ${S}checkpoints WHERE checkpoint->'channel_versions' <> '{}'::jsonb LIMIT 1`)).rows[0];
        const byRow = r ? libraryOfVersions({ channel_versions: r.cv }) : undefined;
        if (byRow) return byRow;
        const v = (await pool.query(`SELECT max(v) AS v FROM ${S}checkpoint_migrations`)).rows[0]?.v;
        return v === null || v === undefined ? undefined : v >= 9 ? "python" : "js";
      }),
    setup: (lib) =>
      wrap("setting up the LangGraph tables", async () => {
        await pool.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
        const list = migrations(lib, S);
        await pool.query(list[0]!);
        const max = (await pool.query(`SELECT max(v) AS v FROM ${S}checkpoint_migrations`)).rows[0]?.v;
        for (let v = max === null || max === undefined ? 0 : max + 1; v < list.length; v++) {
          await pool.query(list[v]!);
          await pool.query(`INSERT INTO ${S}checkpoint_migrations (v) VALUES ($1) ON CONFLICT DO NOTHING`, [v]);
        }
        taskPath = undefined;
      }),
    count: () => wrap("counting checkpoints", async () => ((await hasLayout()) ? Number((await pool.query(`SELECT count(*) AS n FROM ${S}checkpoints`)).rows[0].n) : 0)),
    async *scan(batchSize, threads) {
      const fallback = (await store.library()) ?? "js";
      let after: string[] | undefined;
      for (;;) {
        const page = await wrap("reading checkpoints", async () =>
          (after
            ? await pool.query(`SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > ($1, $2, $3) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $4`, [...after, batchSize])
            : await pool.query(`SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $1`, [batchSize])
          ).rows,
        );
        if (page.length === 0) return;
        const last = page[page.length - 1]!;
        after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
        const keys = page.filter((r) => !threads || threads(r.thread_id)).map((r) => ({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id }));
        if (keys.length) {
          const { cps, blobMap, writes } = await wrap("reading checkpoints", () => readRows(keys));
          yield attachWrites(cps.map((r) => assemble(r, blobMap, fallback)), writes);
        }
        if (page.length < batchSize) return;
      }
    },
    load: (keys, lib) =>
      wrap("reading checkpoints", async () => {
        const out = new Map<string, LgCheckpoint>();
        if (!keys.length || !(await hasLayout())) return out;
        const { cps, blobMap, writes } = await readRows(keys);
        for (const cp of attachWrites(cps.map((r) => assemble(r, blobMap, lib)), writes)) out.set(keyOf(cp), cp);
        return out;
      }),
    stagedForm: (cp, lib) => stage(cp, lib).form,
    write: (cps, o: WriteOptions) =>
      wrap("writing checkpoints", async () => {
        const rows: PgCheckpointRow[] = [];
        const blobs: PgBlobRow[] = [];
        for (const cp of cps) {
          const s = stage(cp, o.library);
          rows.push(s.row);
          const tn = `${cp.threadId}\u0000${cp.ns}`;
          if (tn !== seenFor) [seenFor, seen] = [tn, new Set()];
          for (const b of s.blobs) {
            const k = `${b.channel}\u0000${b.version}`;
            if (o.overwrite || !seen.has(k)) blobs.push(b);
            seen.add(k);
          }
        }
        await insertAll(pool, S, rows, blobs, cps, o.overwrite, await hasTaskPath());
      }),
    readBack: (keys) =>
      wrap("reading checkpoints back", async () => {
        const out = new Map<string, string>();
        if (!keys.length) return out;
        const { cps, blobMap, writes } = await readRows(keys);
        const ws = new Map<string, LgWrite[]>();
        for (const [k, w] of writes) (ws.get(k) ?? ws.set(k, []).get(k)!).push(w);
        for (const r of cps) {
          const checkpoint = JSON.parse(r.checkpoint);
          const bl = [...blobsOf(checkpoint, r.thread_id, r.checkpoint_ns, blobMap)].map(([channel, b]) => ({ channel, version: String(checkpoint.channel_versions[channel]), type: b.type, blob: b.blob }));
          const k = keyOf({ threadId: r.thread_id, ns: r.checkpoint_ns, id: r.checkpoint_id });
          out.set(k, pgForm(r.parent_checkpoint_id, checkpoint, JSON.parse(r.metadata), bl, ws.get(k) ?? []));
        }
        return out;
      }),
    threadPage: (after, limit) => wrap("listing threads", async () => ((await hasLayout()) ? pgThreadPage(pool, S, after, limit) : [])),
    heads: (threads) => wrap("reading checkpoints", () => pgHeads(pool, S, threads)),
    prune: (plans, o) => wrap("pruning", () => pgPrune(pool, S, plans, o)),
    close: () => pool.end(),
  };
  return store;
}

/** Key-sorted JSON, so that JSONB's own key order does not matter. */
export function canon(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** One checkpoint's PostgreSQL rows (checkpoint, referenced blobs, writes) as one comparable string. */
/** A blob's value for comparison: JSON decoded (JS's `{lc:2,type:"undefined"}` = an absent key), other types as bytes. */
function blobValueForm(b: { type: string; blob: Uint8Array | null }): string {
  if (b.type === "json" && b.blob) return canon(dropUndefined(JSON.parse(Buffer.from(b.blob).toString("utf8"))));
  return `${b.type}:${b.blob === null ? "" : Buffer.from(b.blob).toString("hex")}`;
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x && typeof x === "object" && (x as { lc?: unknown }).lc === 2 && (x as { type?: unknown }).type === "undefined") continue;
    out[k] = dropUndefined(x);
  }
  return out;
}

function pgForm(parentId: string | null, checkpoint: unknown, metadata: unknown, blobs: Array<{ channel: string; version: string; type: string; blob: Uint8Array | null }>, writes: LgWrite[]): string {
  const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));
  const bl = blobs.map((b) => [b.channel, b.version, blobValueForm(b)]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  const ws = [...writes].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx)).map((w) => [w.taskId, w.idx, w.channel, w.type, hex(w.value)]);
  return `[${JSON.stringify(parentId)},${canon(checkpoint)},${canon(metadata)},${JSON.stringify(bl)},${JSON.stringify(ws)}]`;
}

/** Insert one batch of rows in one transaction (three multi-row inserts over unnest arrays). */
async function insertAll(pool: pg.Pool, S: string, rows: PgCheckpointRow[], blobs: PgBlobRow[], cps: LgCheckpoint[], overwrite: boolean, taskPath: boolean): Promise<void> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query("BEGIN");
    const onCp = overwrite ? "DO UPDATE SET parent_checkpoint_id = EXCLUDED.parent_checkpoint_id, checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata" : "DO NOTHING";
    await c.query(
      `INSERT INTO ${S}checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) ${onCp}`,
      [rows.map((r) => r.threadId), rows.map((r) => r.ns), rows.map((r) => r.id), rows.map((r) => r.parentId), rows.map((r) => r.checkpoint), rows.map((r) => r.metadata)],
    );
    if (blobs.length) {
      await c.query(
        `INSERT INTO ${S}checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[]) ON CONFLICT (thread_id, checkpoint_ns, channel, version) ${overwrite ? "DO UPDATE SET type = EXCLUDED.type, blob = EXCLUDED.blob" : "DO NOTHING"}`,
        [blobs.map((b) => b.threadId), blobs.map((b) => b.ns), blobs.map((b) => b.channel), blobs.map((b) => b.version), blobs.map((b) => b.type), blobs.map((b) => (b.blob ? Buffer.from(b.blob) : null))],
      );
    }
    const ws = cps.flatMap((cp) => cp.writes.map((w) => ({ cp, w })));
    if (overwrite) {
      await c.query(`DELETE FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, [cps.map((x) => x.threadId), cps.map((x) => x.ns), cps.map((x) => x.id)]);
    }
    if (ws.length) {
      const cols = `thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob${taskPath ? ", task_path" : ""}`;
      const params: unknown[] = [ws.map((x) => x.cp.threadId), ws.map((x) => x.cp.ns), ws.map((x) => x.cp.id), ws.map((x) => x.w.taskId), ws.map((x) => x.w.idx), ws.map((x) => x.w.channel), ws.map((x) => x.w.type), ws.map((x) => Buffer.from(x.w.value))];
      if (taskPath) params.push(ws.map((x) => x.w.taskPath));
      await c.query(
        `INSERT INTO ${S}checkpoint_writes (${cols}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[]${taskPath ? ", $9::text[]" : ""})
         ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING`,
        params,
      );
    }
    await c.query("COMMIT");
  } catch (e) {
    broken = e as Error;
    await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}
