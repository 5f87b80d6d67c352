/**
 * The SQL text of the LangGraph savers (sqlite.ts, postgres.ts), as LangGraph's own savers keep theirs beside them:
 * the libraries' DDL and migrations, and the statements the reader, the row-level store, prune and stats run.
 * PostgreSQL statements take the schema as `S`: its quoted name and a dot (`"public".`).
 */
import type { Library } from "../../formats/langgraph/encode.js";

export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

// ------------------------------------------------------------------------------------------------ SQLite

/** The DDL both libraries run (py:sqlite:139-164, js:sqlite:114-137), after their `PRAGMA journal_mode=WAL` (set first
 * by sqlite-open.ts useWal, which waits for the write lock where the pragma alone would not). */
export const SQLITE_SETUP = `CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    type TEXT,
    checkpoint BLOB,
    metadata BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT,
    value BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);`;

export const SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'";

// JSON payloads come back as text (SQLite's CAST: no Buffer copy plus decode; invalid UTF-8 shows as U+FFFD, which
// the decoder reports); everything else as bytes. Metadata is JSON text under `json`, `msgpack` or NULL (§1.1).
const JSON_TYPE = "(type IS NULL OR type = 'json')";
const SQ_CP_COLS = `thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
  CASE WHEN ${JSON_TYPE} THEN CAST(checkpoint AS TEXT) ELSE checkpoint END AS checkpoint,
  CASE WHEN ${JSON_TYPE} OR type = 'msgpack' THEN CAST(metadata AS TEXT) ELSE metadata END AS metadata,
  length(checkpoint) + ifnull(length(metadata), 0) AS bytes`;
/** the head row is JSON SQLite can read (a malformed one goes the JS way, which reports it instead of failing the page) */
const JSON_OK = "((c.type IS NULL OR c.type = 'json') AND json_valid(CAST(c.checkpoint AS TEXT)))";
/** the head's message count: a list, or a DeltaChannel snapshot's list (other values: NULL, decided by the reader) */
const MSGS = `CASE json_type(CAST(c.checkpoint AS TEXT), '$.channel_values.messages')
  WHEN 'array' THEN json_array_length(CAST(c.checkpoint AS TEXT), '$.channel_values.messages')
  WHEN 'object' THEN json_array_length(CAST(c.checkpoint AS TEXT), '$.channel_values.messages.value') END`;
const SQ_W_COLS = `thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, CASE WHEN type = 'json' THEN CAST(value AS TEXT) ELSE value END AS value`;
const RANGE = `(thread_id, checkpoint_ns, checkpoint_id) >= (?, ?, ?) AND (thread_id, checkpoint_ns, checkpoint_id) <= (?, ?, ?)
       ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`;

/** `h(t, id)`: each thread of the JSON array `@ids` with its newest checkpoint id in namespace `@ns` (a primary-key seek each) */
const HEADS = `h AS (SELECT p.value AS t, (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = p.value AND checkpoint_ns = @ns) AS id
       FROM json_each(@ids) p)`;

/**
 * `sound`: a JSON row the reader would decode without a fatal issue (sqlite-tuples.ts may then rule it out by its
 * text alone): the checkpoint an object whose maps are objects where present (tuple.ts shapeCheckpoint), the metadata
 * JSON or NULL, no v<4 pending-sends migration to apply (no parent, or v ≥ 4), and every write JSON. SQLite parses
 * each text once.
 */
const X = "CAST(c.checkpoint AS TEXT)";
const MAP_OK = (k: string) => `ifnull(json_type(${X}, '$.${k}'), 'object') = 'object'`;
const SOUND = `(c.type IS NULL OR c.type = 'json') AND json_valid(${X}) AND json_type(${X}) = 'object'
  AND ${MAP_OK("channel_values")} AND ${MAP_OK("channel_versions")} AND ${MAP_OK("versions_seen")}
  AND (c.metadata IS NULL OR json_valid(CAST(c.metadata AS TEXT)))
  AND (c.parent_checkpoint_id IS NULL OR json_extract(${X}, '$.v') >= 4)
  AND NOT EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = h.t AND w.checkpoint_ns = @ns AND w.checkpoint_id = h.id
    AND (w.type IS NOT 'json' OR w.value IS NULL OR NOT json_valid(CAST(w.value AS TEXT))))`;

/** The reader's statements (keyset pages over the primary key everywhere). */
export const SQ_READ = {
  one: `SELECT ${SQ_CP_COLS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
  newest: `SELECT ${SQ_CP_COLS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`,
  writesOf: `SELECT ${SQ_W_COLS} FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx`,
  // the newest checkpoint of each thread named (@ids: a JSON array) in one namespace, and those checkpoints' writes
  newestOf: `WITH ${HEADS} SELECT ${SQ_CP_COLS} FROM h JOIN checkpoints ON thread_id = h.t AND checkpoint_ns = @ns AND checkpoint_id = h.id`,
  newestWritesOf: `WITH ${HEADS} SELECT ${SQ_W_COLS} FROM h JOIN writes ON thread_id = h.t AND checkpoint_ns = @ns AND checkpoint_id = h.id
       ORDER BY thread_id, task_id, idx`,
  // the newest checkpoint of each thread named whose rows are all sound (above): its id
  newestSound: `WITH ${HEADS} SELECT h.t AS thread_id, h.id AS checkpoint_id FROM h JOIN checkpoints c
       ON c.thread_id = h.t AND c.checkpoint_ns = @ns AND c.checkpoint_id = h.id WHERE ${SOUND}`,
  sendsOf: `SELECT ${SQ_W_COLS} FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = '__pregel_tasks' ORDER BY task_id, idx`,
  scanFirst: `SELECT ${SQ_CP_COLS} FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
  scanNext: `SELECT ${SQ_CP_COLS} FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
  scanThread: `SELECT ${SQ_CP_COLS} FROM checkpoints WHERE thread_id = ? AND (checkpoint_ns, checkpoint_id) > (?, ?) ORDER BY checkpoint_ns, checkpoint_id LIMIT ?`,
  writesRange: `SELECT ${SQ_W_COLS} FROM writes WHERE ${RANGE}`,
  // One statement per page of threads: counts from the primary-key index alone (no table rows; the per-namespace
  // split only for threads that have subgraph namespaces), then the newest root checkpoint's row; for JSON rows
  // its step, ts, message count and channel versions come from SQLite's JSON functions (one cached parse per row,
  // no decode in JS); other serdes are decoded in JS from `raw`.
  threadPage: `WITH g AS (SELECT thread_id, count(*) AS total, max(checkpoint_id) AS top, max(checkpoint_ns) AS hi
                  FROM checkpoints WHERE thread_id > ? GROUP BY thread_id ORDER BY thread_id LIMIT ?),
       h AS (SELECT thread_id,
               CASE WHEN hi = '' THEN total ELSE (SELECT count(*) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns = '') END AS n,
               CASE WHEN hi = '' THEN 0 ELSE (SELECT count(*) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns <> '') END AS sub,
               CASE WHEN hi = '' THEN 0 ELSE (SELECT count(DISTINCT checkpoint_ns) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns <> '') END AS ns,
               CASE WHEN hi = '' THEN top ELSE (SELECT max(checkpoint_id) FROM checkpoints x WHERE x.thread_id = g.thread_id AND x.checkpoint_ns = '') END AS newest
             FROM g)
       SELECT h.*, c.type, length(c.checkpoint) + ifnull(length(c.metadata), 0) AS bytes,
              (SELECT ifnull(sum(length(w.value)), 0) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id) AS wbytes,
              CASE WHEN ${JSON_OK} THEN ${MSGS} END AS msgs,
              CASE WHEN ${JSON_OK} THEN json_extract(CAST(c.checkpoint AS TEXT), '$.ts') END AS ts,
              CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> '$.channel_versions' END AS versions,
              CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END AS raw,
              CAST(c.metadata AS TEXT) AS metadata
       FROM h LEFT JOIN checkpoints c ON c.thread_id = h.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = h.newest ORDER BY h.thread_id`,
  ids: (before: boolean) =>
    `SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ${before ? "AND checkpoint_id < ? " : ""}ORDER BY checkpoint_id DESC LIMIT ?`,
  /** newest first, of the columns `where` names (`before`: `checkpoint_id < ?` added) */
  list: (where: string[]) =>
    `SELECT ${SQ_CP_COLS} FROM checkpoints ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY checkpoint_id DESC LIMIT ?`,
  countThreads: "SELECT count(DISTINCT thread_id) FROM checkpoints",
  namespaces: "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns",
  // a DeltaChannel's parent chain (see LgReader.deltaChain): stops after a JSON row storing the channel's value or
  // a row that is not JSON (the reader decodes it)
  chain: `WITH RECURSIVE chain(id, parent, type, raw, value, depth) AS (
         SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END,
                CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> $path END, 0
         FROM checkpoints c WHERE c.thread_id = $thread AND c.checkpoint_ns = $ns AND c.checkpoint_id = $from
         UNION ALL
         SELECT c.checkpoint_id, c.parent_checkpoint_id, c.type, CASE WHEN ${JSON_OK} THEN NULL ELSE c.checkpoint END,
                CASE WHEN ${JSON_OK} THEN CAST(c.checkpoint AS TEXT) -> $path END, chain.depth + 1
         FROM chain JOIN checkpoints c ON c.thread_id = $thread AND c.checkpoint_ns = $ns AND c.checkpoint_id = chain.parent
         WHERE chain.value IS NULL AND chain.raw IS NULL AND chain.depth + 1 < $limit)
       SELECT id, parent, chain.type, raw, chain.value, w.task_id, w.idx, w.type AS wtype,
              CASE WHEN w.type = 'json' THEN CAST(w.value AS TEXT) ELSE w.value END AS wvalue
       FROM chain LEFT JOIN writes w ON w.thread_id = $thread AND w.checkpoint_ns = $ns AND w.checkpoint_id = chain.id
            AND w.channel = $channel
       ORDER BY depth, w.task_id, w.idx`,
  orphans: `SELECT w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel FROM writes w
       LEFT JOIN checkpoints c ON c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id
       WHERE c.checkpoint_id IS NULL ORDER BY w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx`,
};

/** The row-level store's statements (bytes as stored). */
export const SQ_ROWS = {
  hasLayout: "SELECT count(*) AS n FROM sqlite_master WHERE type='table' AND name IN ('checkpoints','writes')",
  first: "SELECT * FROM checkpoints LIMIT 1",
  count: "SELECT count(*) AS n FROM checkpoints",
  scanFirst: "SELECT * FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?",
  /** the first page from a thread on (scanRows' `only`) */
  scanFrom: "SELECT * FROM checkpoints WHERE thread_id >= ? ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?",
  scanNext: `SELECT * FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?)
    ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
  /** the rest of a thread after a key: a page ends at a thread's end, read in the page's snapshot */
  threadRest: `SELECT * FROM checkpoints WHERE thread_id = ? AND (checkpoint_ns, checkpoint_id) > (?, ?)
    ORDER BY checkpoint_ns, checkpoint_id`,
  writesRange: `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes
      WHERE ${RANGE}`,
  get: "SELECT * FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  writesOf:
    "SELECT * FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx",
  insertCheckpoint: (verb: string) =>
    `${verb} INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  deleteWrites: "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  insertWrite: (verb: string) =>
    `${verb} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
};

// the planned ids of one (thread, namespace) go in as one JSON array
const PLANNED = "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN (SELECT value FROM json_each(?))";
const ORPHANS = `FROM writes WHERE thread_id = ? AND checkpoint_id < ? AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)`;

/** Planning and prune statements. */
export const SQ_PRUNE = {
  firstThreads: "SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id LIMIT ?",
  nextThreads: "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id > ? ORDER BY thread_id LIMIT ?",
  heads: `SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint) + length(metadata),
          CASE WHEN instr(CAST(metadata AS TEXT), 'counters_since_delta_snapshot') > 0 AND json_valid(CAST(metadata AS TEXT))
            THEN json_extract(CAST(metadata AS TEXT), '$.counters_since_delta_snapshot') END
        FROM checkpoints WHERE thread_id = ?`,
  writesOf: `SELECT count(*), coalesce(sum(length(value)), 0) FROM writes WHERE ${PLANNED}`,
  orphans: `SELECT count(*), coalesce(sum(length(value)), 0) ${ORPHANS}`,
  deleteWrites: `DELETE FROM writes WHERE ${PLANNED}`,
  deleteCheckpoints: `DELETE FROM checkpoints WHERE ${PLANNED}`,
  deleteOrphans: `DELETE ${ORPHANS}`,
};

/** Stats statements (`where`: the page's threads, a key range or a JSON list). */
export const SQ_STATS = {
  dbstatProbe: "SELECT 1 FROM dbstat LIMIT 1",
  // pages of the table and of its indexes (the primary-key autoindex), by the table they belong to
  dbstat:
    "SELECT m.tbl_name AS t, sum(s.pgsize) AS b FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name",
  sizes: [
    ["checkpoints", "length(CAST(checkpoint AS BLOB)) + length(CAST(metadata AS BLOB))"],
    ["writes", "length(CAST(value AS BLOB))"],
  ] as const,
  size: (table: string, cols: string) => `SELECT count(*) AS n, coalesce(sum(${cols}), 0) AS b FROM ${table}`,
  checkpoints: (where: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, length(CAST(metadata AS BLOB)) AS mb FROM checkpoints
      WHERE ${where} AND (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`,
  writes: (where: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes
      WHERE ${where} AND (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) > (?, ?, ?, ?, ?) ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx LIMIT ?`,
};

// ------------------------------------------------------------------------------------------------ PostgreSQL

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

/** The LangGraph tables' columns in a schema (and ckpt's own table's, whose name is a parameter). */
export const PG_SCHEMA_COLUMNS =
  "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[])";
export const PG_LG_TABLES = ["checkpoints", "checkpoint_writes", "checkpoint_blobs", "checkpoint_migrations"];
export const pgMaxMigration = (S: string) => `SELECT max(v) AS v FROM ${S}checkpoint_migrations`;

const VERSIONS =
  "CASE WHEN jsonb_typeof(c.checkpoint->'channel_versions') = 'object' THEN c.checkpoint->'channel_versions' ELSE '{}'::jsonb END";

/**
 * One statement per page of threads: counts per thread (primary-key index), the newest root checkpoint, its sizes
 * (row + referenced blobs + writes) and its message count. A `json` messages blob is counted by the server
 * (`inSql`: nothing but the number crosses the wire, so memory stays flat however many threads there are); other
 * serdes (msgpack) come back as bytes and are decoded in JS.
 */
export function pgThreadPageSql(S: string, paged: boolean, inSql: boolean): string {
  const count = inSql
    ? `CASE WHEN m.type = 'json' THEN (SELECT CASE WHEN json_typeof(j) = 'array' THEN json_array_length(j) END FROM (SELECT convert_from(m.blob, 'UTF8')::json AS j) x) END`
    : "NULL";
  return `WITH g AS (SELECT thread_id, count(*) FILTER (WHERE checkpoint_ns = '') AS n, count(*) FILTER (WHERE checkpoint_ns <> '') AS sub,
                        count(DISTINCT checkpoint_ns) FILTER (WHERE checkpoint_ns <> '') AS ns, max(checkpoint_id) FILTER (WHERE checkpoint_ns = '') AS newest
                 FROM ${S}checkpoints ${paged ? "WHERE thread_id > $2" : ""} GROUP BY thread_id ORDER BY thread_id LIMIT $1)
  SELECT g.thread_id, g.n, g.sub, g.ns, g.newest, c.checkpoint->>'ts' AS ts, c.metadata->'step' AS step,
         c.metadata->'counters_since_delta_snapshot' AS counters,
         pg_column_size(c.checkpoint) + pg_column_size(c.metadata) AS bytes,
         (SELECT jsonb_typeof(value) FROM jsonb_each(${VERSIONS}) LIMIT 1) AS vtype,
         (SELECT coalesce(sum(octet_length(w.blob)), 0) FROM ${S}checkpoint_writes w
            WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id) AS wbytes,
         (SELECT coalesce(sum(octet_length(b.blob)), 0) FROM jsonb_each_text(${VERSIONS}) v
            JOIN ${S}checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = '' AND b.channel = v.key AND b.version = v.value) AS bbytes,
         m.type AS mtype,
         ${count} AS mcount,
         CASE WHEN ${inSql ? "m.type = 'json'" : "false"} THEN NULL ELSE m.blob END AS mblob
  FROM g LEFT JOIN ${S}checkpoints c ON c.thread_id = g.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = g.newest
  LEFT JOIN ${S}checkpoint_blobs m ON m.thread_id = g.thread_id AND m.checkpoint_ns = '' AND m.channel = 'messages'
       AND m.version = c.checkpoint->'channel_versions'->>'messages'
  ORDER BY g.thread_id`;
}

export const PG_KEYS = "SELECT * FROM unnest($1::text[], $2::text[], $3::text[])";
export const PG_CP_COLS = `thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, pg_column_size(checkpoint) + pg_column_size(metadata) AS bytes`;
export const PG_BLOB_COLS = "thread_id, checkpoint_ns, channel, version, type, blob";
/**
 * json blobs as text: the server checks the bytes are UTF-8 (and hold no NUL) and sends them as they are, so a scan
 * reads no hex and compares a messages blob with the previous one as text; the text's UTF-8 bytes are the blob
 */
export const PG_TEXT_COLS =
  "thread_id, checkpoint_ns, channel, version, type, CASE WHEN type = 'json' THEN NULL ELSE blob END AS blob, CASE WHEN type = 'json' THEN convert_from(blob, 'UTF8') END AS text";

/** The reader's statements. */
export const PG_READ = {
  /** a DeltaChannel's parent chain ($3 on, channel $4) with the channel's writes of each checkpoint, a row per write */
  deltaChain: (S: string, taskPath: boolean) =>
    `WITH RECURSIVE chain(id, parent, btype, blob, inline, has_inline, depth) AS (
           SELECT c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), 0
           FROM ${S}checkpoints c LEFT JOIN ${S}checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           WHERE c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = $3
           UNION ALL
           SELECT c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), chain.depth + 1
           FROM chain JOIN ${S}checkpoints c ON c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = chain.parent
                LEFT JOIN ${S}checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           WHERE chain.btype IS NULL AND NOT chain.has_inline AND chain.depth + 1 < $5)
         SELECT chain.id, chain.parent, chain.btype, chain.blob, chain.inline, chain.has_inline, w.task_id, w.idx,
                w.type AS wtype, w.blob AS wvalue, ${taskPath ? "w.task_path" : "''"} AS task_path
         FROM chain LEFT JOIN ${S}checkpoint_writes w ON w.thread_id = $1 AND w.checkpoint_ns = $2
              AND w.checkpoint_id = chain.id AND w.channel = $4
         ORDER BY chain.depth, w.task_id, w.idx`,
  /** `deltaChain` of many threads: seeds ($1 thread ids, $2 start ids), namespace $3, channel $4, limit $5; unsorted
   * (the server would sort the payloads on disk: the reader orders the rows by thread, depth, task_id, idx) */
  deltaChains: (S: string, taskPath: boolean) =>
    `WITH RECURSIVE seed(thread, id) AS (SELECT * FROM unnest($1::text[], $2::text[])),
         chain(thread, id, parent, btype, blob, inline, has_inline, depth) AS (
           SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), 0
           FROM seed JOIN ${S}checkpoints c ON c.thread_id = seed.thread AND c.checkpoint_ns = $3 AND c.checkpoint_id = seed.id
                LEFT JOIN ${S}checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           UNION ALL
           SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id, b.type, b.blob, c.checkpoint -> 'channel_values' -> $4,
                  coalesce(c.checkpoint -> 'channel_values' ? $4, false), chain.depth + 1
           FROM chain JOIN ${S}checkpoints c ON c.thread_id = chain.thread AND c.checkpoint_ns = $3 AND c.checkpoint_id = chain.parent
                LEFT JOIN ${S}checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
                AND b.channel = $4 AND b.version = c.checkpoint -> 'channel_versions' ->> $4 AND b.type <> 'empty'
           WHERE chain.btype IS NULL AND NOT chain.has_inline AND chain.depth + 1 < $5)
         SELECT chain.thread, chain.depth, chain.id, chain.parent, chain.btype, chain.blob, chain.inline, chain.has_inline,
                w.task_id, w.idx, w.type AS wtype, w.blob AS wvalue, ${taskPath ? "w.task_path" : "''"} AS task_path
         FROM chain LEFT JOIN ${S}checkpoint_writes w ON w.thread_id = chain.thread AND w.checkpoint_ns = $3
              AND w.checkpoint_id = chain.id AND w.channel = $4`,
  // a page of `ls` heads' chains by key range (savers/langgraph/postgres/chains.ts): threads $1, namespace $2, channel
  // $3; each thread's rows by one index range scan (the OFFSET 0 keeps the lateral subquery a per-thread range)
  chainFacts: (S: string) =>
    `SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint -> 'channel_versions' ->> $3 AS version,
            coalesce(c.checkpoint -> 'channel_values' ? $3, false) AS has_inline
     FROM unnest($1::text[]) AS t(id) CROSS JOIN LATERAL (SELECT thread_id, checkpoint_id, parent_checkpoint_id, checkpoint
       FROM ${S}checkpoints c WHERE c.thread_id = t.id AND c.checkpoint_ns = $2 OFFSET 0) c`,
  chainBlobFacts: (S: string) =>
    `SELECT b.thread_id, b.version, b.type FROM unnest($1::text[]) AS t(id) CROSS JOIN LATERAL (SELECT thread_id, version, type
       FROM ${S}checkpoint_blobs b WHERE b.thread_id = t.id AND b.checkpoint_ns = $2 AND b.channel = $3 AND b.type <> 'empty' OFFSET 0) b`,
  chainWrites: (S: string, taskPath: boolean) =>
    `SELECT w.thread_id, w.checkpoint_id, w.task_id, w.idx, w.type, w.blob${taskPath ? ", w.task_path" : ""}
     FROM unnest($1::text[]) AS t(id) CROSS JOIN LATERAL (SELECT *
       FROM ${S}checkpoint_writes w WHERE w.thread_id = t.id AND w.checkpoint_ns = $2 AND w.channel = $3 OFFSET 0) w`,
  /** chainWrites with json payloads as text (see PG_TEXT_COLS): no hex to decode, nothing to decode as UTF-8 here */
  chainWritesText: (S: string, taskPath: boolean) =>
    `SELECT w.thread_id, w.checkpoint_id, w.task_id, w.idx, w.type,
            CASE WHEN w.type IS NULL OR w.type = 'json' THEN NULL ELSE w.blob END AS blob,
            CASE WHEN w.type IS NULL OR w.type = 'json' THEN convert_from(w.blob, 'UTF8') END AS text${taskPath ? ", w.task_path" : ""}
     FROM unnest($1::text[]) AS t(id) CROSS JOIN LATERAL (SELECT *
       FROM ${S}checkpoint_writes w WHERE w.thread_id = t.id AND w.checkpoint_ns = $2 AND w.channel = $3 OFFSET 0) w`,
  /** the blob rows the chains end at: threads $1 and versions $4, namespace $2, channel $3 */
  chainBlobs: (S: string) =>
    `SELECT b.thread_id, b.version, b.blob FROM unnest($1::text[], $4::text[]) AS k(t, v)
     JOIN ${S}checkpoint_blobs b ON b.thread_id = k.t AND b.checkpoint_ns = $2 AND b.channel = $3 AND b.version = k.v`,
  /** the inline values the chains end at: threads $1 and checkpoint ids $4, namespace $2, channel $3 */
  chainInline: (S: string) =>
    `SELECT c.thread_id, c.checkpoint_id, c.checkpoint -> 'channel_values' -> $3 AS inline FROM unnest($1::text[], $4::text[]) AS k(t, id)
     JOIN ${S}checkpoints c ON c.thread_id = k.t AND c.checkpoint_ns = $2 AND c.checkpoint_id = k.id`,
  blobs: (S: string, cols: string) =>
    `SELECT ${cols} FROM ${S}checkpoint_blobs WHERE (thread_id, checkpoint_ns, channel, version) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]))`,
  writes: (S: string, taskPath: boolean) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob AS value${taskPath ? ", task_path" : ""}
         FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${PG_KEYS}) ORDER BY task_id, idx`,
  sends: (S: string, taskPath: boolean) =>
    `SELECT task_id, idx, channel, type, blob AS value FROM ${S}checkpoint_writes
       WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3 AND channel = '__pregel_tasks' ORDER BY ${taskPath ? "task_path, " : ""}task_id, idx`,
  orphanWrites: (S: string, where: (alias: string) => string) =>
    `SELECT w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel FROM ${S}checkpoint_writes w
     WHERE ${where("w")} NOT EXISTS (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
     ORDER BY 1, 2, 3, 4, 5`,
  orphanBlobs: (S: string, where: (alias: string) => string) =>
    `SELECT b.thread_id, b.checkpoint_ns, b.channel, b.version FROM ${S}checkpoint_blobs b
     WHERE ${where("b")} NOT EXISTS (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
                       AND c.checkpoint->'channel_versions'->>b.channel = b.version)
     ORDER BY 1, 2, 3, 4`,
  /** newest first, of the conditions in `where`; the LIMIT is the last parameter `$n` */
  list: (S: string, where: string[], n: number) =>
    `SELECT ${PG_CP_COLS} FROM ${S}checkpoints ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY checkpoint_id DESC LIMIT $${n}`,
  scan: (S: string, where: string[], n: number) =>
    `SELECT ${PG_CP_COLS} FROM ${S}checkpoints ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $${n}`,
  utf8: "SELECT current_setting('server_encoding') = 'UTF8' AND current_setting('client_encoding') = 'UTF8' AS ok",
  countThreads: (S: string) => `SELECT count(DISTINCT thread_id) AS n FROM ${S}checkpoints`,
  namespaces: (S: string) =>
    `SELECT DISTINCT checkpoint_ns COLLATE "C" AS checkpoint_ns FROM ${S}checkpoints WHERE thread_id = $1 ORDER BY 1`,
  ids: (S: string, before: boolean) =>
    `SELECT checkpoint_id, parent_checkpoint_id FROM ${S}checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ${before ? "AND checkpoint_id < $4" : ""}
           ORDER BY checkpoint_id DESC LIMIT $3`,
  newest: (S: string) =>
    `SELECT ${PG_CP_COLS} FROM ${S}checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1`,
  // the newest checkpoint of each thread of $1 (a text[]) in namespace $2: a primary-key seek per thread (what
  // DISTINCT ON (thread_id) … ORDER BY thread_id, checkpoint_id DESC gives, without sorting the threads' rows)
  newestOf: (S: string) =>
    `SELECT c.* FROM unnest($1::text[]) AS t(id) CROSS JOIN LATERAL (SELECT ${PG_CP_COLS} FROM ${S}checkpoints
       WHERE thread_id = t.id AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1) c`,
  one: (S: string) =>
    `SELECT ${PG_CP_COLS} FROM ${S}checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
};

/** The row-level store's statements. */
export const PG_ROWS = {
  tables: "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
  taskPath:
    "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'checkpoint_writes' AND column_name = 'task_path'",
  columnTypes:
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2)",
  checkpoints: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint::text AS checkpoint, metadata::text AS metadata
      FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${PG_KEYS})
      ORDER BY thread_id, checkpoint_ns, checkpoint_id`,
  writes: (S: string, taskPath: boolean) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob, ${taskPath ? "task_path" : "'' AS task_path"}
      FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (${PG_KEYS})
      ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`,
  blobs: (S: string) =>
    `SELECT thread_id, checkpoint_ns, channel, version, type, blob FROM ${S}checkpoint_blobs
      WHERE (thread_id, checkpoint_ns, channel, version) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]))`,
  keysFirst: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $1`,
  keysFrom: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints WHERE thread_id >= $1 ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $2`,
  keysNext: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id FROM ${S}checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > ($1, $2, $3) ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT $4`,
  versionsOfOne: (S: string) =>
    `SELECT checkpoint->'channel_versions' AS cv FROM ${S}checkpoints WHERE checkpoint->'channel_versions' <> '{}'::jsonb LIMIT 1`,
  count: (S: string) => `SELECT count(*) AS n FROM ${S}checkpoints`,
  recordMigration: (S: string) => `INSERT INTO ${S}checkpoint_migrations (v) VALUES ($1) ON CONFLICT DO NOTHING`,
  upsertCheckpoints: (S: string, overwrite: boolean) =>
    `INSERT INTO ${S}checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) ${
       overwrite
         ? "DO UPDATE SET parent_checkpoint_id = EXCLUDED.parent_checkpoint_id, checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata"
         : "DO NOTHING"
     }`,
  upsertBlobs: (S: string, overwrite: boolean) =>
    `INSERT INTO ${S}checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[]) ON CONFLICT (thread_id, checkpoint_ns, channel, version) ${overwrite ? "DO UPDATE SET type = EXCLUDED.type, blob = EXCLUDED.blob" : "DO NOTHING"}`,
  deleteWrites: (S: string) =>
    `DELETE FROM ${S}checkpoint_writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
  insertWrites: (S: string, taskPath: boolean) =>
    `INSERT INTO ${S}checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob${taskPath ? ", task_path" : ""}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[]${taskPath ? ", $9::text[]" : ""})
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING`,
  copyCheckpoints: (S: string) =>
    `${S}checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)`,
  copyBlobs: (S: string) => `${S}checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)`,
  copyWrites: (S: string, taskPath: boolean) =>
    `${S}checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob${taskPath ? ", task_path" : ""})`,
  /**
   * Per written checkpoint, the server's md5 of its row and writes compared with ours ('c'); per blob key, the md5 of
   * its bytes and type ('b'): only the ordinals that differ come back.
   */
  verify: (S: string) =>
    `SELECT 'c' AS kind, k.n FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k(t, ns, id, h, n)
     WHERE k.h IS DISTINCT FROM (SELECT md5(json_build_array(c.parent_checkpoint_id, c.checkpoint, c.metadata,
       (SELECT json_agg(json_build_array(w.task_id, w.idx, w.channel, w.type, md5(w.blob)) ORDER BY w.task_id COLLATE "C", w.idx)
        FROM ${S}checkpoint_writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id))::text)
       FROM ${S}checkpoints c WHERE c.thread_id = k.t AND c.checkpoint_ns = k.ns AND c.checkpoint_id = k.id)
     UNION ALL
     SELECT 'b', k.n FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS k(t, ns, ch, v, h, n)
     WHERE k.h IS DISTINCT FROM (SELECT coalesce(md5(b.blob), '-') || b.type FROM ${S}checkpoint_blobs b
       WHERE b.thread_id = k.t AND b.checkpoint_ns = k.ns AND b.channel = k.ch AND b.version = k.v)`,
};

const PG_IN_KEYS = `(thread_id, checkpoint_ns, checkpoint_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`;

/** Planning and prune statements. */
export const PG_PRUNE = {
  /**
   * The next `limit` thread ids after `after`, in order: one index step per thread (a recursive skip over the thread
   * index). `SELECT DISTINCT … LIMIT` read and grouped every row after `after` for each page, so paging through a
   * store read it about pages/2 times over.
   */
  threadPage: (S: string, paged: boolean) => `WITH RECURSIVE t(id, n) AS (
       (SELECT thread_id, 1 FROM ${S}checkpoints ${paged ? "WHERE thread_id > $2" : ""} ORDER BY thread_id LIMIT 1)
       UNION ALL
       SELECT (SELECT c.thread_id FROM ${S}checkpoints c WHERE c.thread_id > t.id ORDER BY c.thread_id LIMIT 1), t.n + 1 FROM t WHERE t.id IS NOT NULL AND t.n < $1)
     SELECT id FROM t WHERE id IS NOT NULL ORDER BY n`,
  // thread lists and planned keys go as one JSON parameter each: one native stringify, not driver-built text arrays
  // each thread's rows looked up by index (the OFFSET 0 keeps the lateral subquery a per-thread lookup): tables a
  // migration just filled have no statistics, and the planner then takes a page's threads for the whole table and
  // reads all of it
  heads: (
    S: string,
  ) => `SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, pg_column_size(c.checkpoint) + pg_column_size(c.metadata),
    c.metadata->'counters_since_delta_snapshot' FROM (SELECT DISTINCT json_array_elements_text($1::json)) AS t(id)
    CROSS JOIN LATERAL (SELECT * FROM ${S}checkpoints c WHERE c.thread_id = t.id OFFSET 0) c`,
  counted: (sql: string) => `WITH d AS (${sql}) SELECT count(*)::int AS n, coalesce(sum(b), 0)::bigint AS b FROM d`,
  deleteWrites: (S: string) =>
    `DELETE FROM ${S}checkpoint_writes WHERE ${PG_IN_KEYS} RETURNING octet_length(blob) AS b`,
  deleteCheckpoints: (S: string) =>
    `DELETE FROM ${S}checkpoints WHERE ${PG_IN_KEYS} RETURNING pg_column_size(checkpoint) + pg_column_size(metadata) AS b`,
  deleteOrphanWrites: (S: string) =>
    `DELETE FROM ${S}checkpoint_writes w WHERE w.thread_id = ANY($1::text[]) AND w.checkpoint_id < $2 AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
       RETURNING octet_length(w.blob) AS b`,
  // $2: the prune's start mark (pruneStartMark: the oldest transaction running then, mod 2^32), or NULL: a blob whose
  // row was written by that transaction or a later one (xmin at or after it, compared modulo 2^32 as PostgreSQL
  // compares xids) may belong to a checkpoint not committed yet, and stays
  deleteOrphanBlobs: (S: string) =>
    `DELETE FROM ${S}checkpoint_blobs bl WHERE bl.thread_id = ANY($1::text[])
         AND ($2::bigint IS NULL OR mod(bl.xmin::text::bigint - $2::bigint + 4294967296, 4294967296) >= 2147483648)
         AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = bl.thread_id AND c.checkpoint_ns = bl.checkpoint_ns AND c.checkpoint->'channel_versions'->>bl.channel = bl.version OFFSET 0)
       RETURNING coalesce(octet_length(bl.blob), 0) AS b`,
  /** the size of each LangGraph table of schema $1 (with its indexes and TOAST), for `prune --vacuum` */
  tableSizes: `SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS size FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')
     ORDER BY c.relname`,
  vacuum: (S: string, table: string) => `VACUUM ${S}${table}`,
  /**
   * the oldest transaction still running (or the next one), as a 32-bit xid: what deleteOrphanBlobs's $2 compares;
   * `held`: some transaction was running (the prune's own statement has no xid), and who: its backend (pid, database,
   * start) or prepared transaction, read in the same statement (null when it ended in between)
   */
  pruneStartMark: `SELECT (txid_snapshot_xmin(s) % 4294967296)::text AS x, txid_snapshot_xmin(s) < txid_snapshot_xmax(s) AS held,
       h.pid, h.db, h.since, h.gid
     FROM txid_current_snapshot() AS s LEFT JOIN LATERAL (
       SELECT a.pid, a.datname::text AS db, a.xact_start AS since, NULL::text AS gid FROM pg_stat_activity a
         WHERE a.backend_xid::text = (txid_snapshot_xmin(s) % 4294967296)::text
       UNION ALL
       SELECT NULL, p.database::text, p.prepared, p.gid FROM pg_prepared_xacts p
         WHERE p.transaction::text = (txid_snapshot_xmin(s) % 4294967296)::text
       LIMIT 1) h ON true`,
  /** the orphan blobs of threads $1 deleteOrphanBlobs keeps because of the mark $2 (at or after it, modulo 2^32) */
  keptOrphanBlobs: (S: string) =>
    `SELECT bl.thread_id AS t, count(*)::int AS n FROM ${S}checkpoint_blobs bl WHERE bl.thread_id = ANY($1::text[])
         AND mod(bl.xmin::text::bigint - $2::bigint + 4294967296, 4294967296) < 2147483648
         AND NOT EXISTS
         (SELECT 1 FROM ${S}checkpoints c WHERE c.thread_id = bl.thread_id AND c.checkpoint_ns = bl.checkpoint_ns AND c.checkpoint->'channel_versions'->>bl.channel = bl.version OFFSET 0)
       GROUP BY bl.thread_id ORDER BY bl.thread_id`,
};

/** Stats statements (`$1`: the page's threads). */
export const PG_STATS = {
  exists: "SELECT to_regclass($1) AS r",
  size: (S: string, t: string) =>
    `SELECT count(*)::bigint AS n, pg_total_relation_size($1::regclass)::bigint AS b FROM ${S}${t}`,
  firstThreads: (S: string) => `SELECT DISTINCT thread_id FROM ${S}checkpoints ORDER BY thread_id LIMIT $1`,
  nextThreads: (S: string) =>
    `SELECT DISTINCT thread_id FROM ${S}checkpoints WHERE thread_id > $2 ORDER BY thread_id LIMIT $1`,
  checkpoints: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, NULL AS type, octet_length(checkpoint::text) AS cb, octet_length(metadata::text) AS mb, checkpoint->>'ts' AS ts,
      CASE WHEN jsonb_typeof(checkpoint->'channel_versions') = 'object' THEN checkpoint->'channel_versions' END AS versions,
      CASE WHEN jsonb_typeof(checkpoint->'channel_values') = 'object' THEN (checkpoint->'channel_values')::text END AS inline FROM ${S}checkpoints WHERE thread_id = ANY($1::text[])`,
  blobs: (S: string) =>
    `SELECT thread_id, checkpoint_ns, channel, version, type, blob FROM ${S}checkpoint_blobs WHERE thread_id = ANY($1::text[])`,
  writes: (S: string) =>
    `SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${S}checkpoint_writes WHERE thread_id = ANY($1::text[])`,
};
