/**
 * The SQL of the Mastra stores (sqlite.ts, postgres.ts): the memory tables' DDL exactly as `@mastra/libsql` and
 * `@mastra/pg` create them (read from stores their own `init()` made: sqlite_master, pg_indexes and
 * information_schema; test/mastra-migrate.test.ts compares a target ckpt sets up with one Mastra sets up), and the
 * statements the store runs. PostgreSQL statements take the schema as `S`: its quoted name and a dot.
 */

export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

// ------------------------------------------------------------------------------------------------ SQLite (LibSQL)

/** Mastra's tables, after `PRAGMA journal_mode=WAL` (set first by sqlite-open.ts useWal: it waits for the lock). */
export const SQLITE_SETUP = `CREATE TABLE IF NOT EXISTS mastra_threads (
  "id" TEXT NOT NULL PRIMARY KEY,
  "resourceId" TEXT NOT NULL,
  "title" TEXT NOT NULL,
  "metadata" TEXT,
  "createdAt" TEXT NOT NULL,
  "updatedAt" TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS mastra_messages (
  "id" TEXT NOT NULL PRIMARY KEY,
  "thread_id" TEXT NOT NULL,
  "content" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "createdAt" TEXT NOT NULL,
  "resourceId" TEXT
);
CREATE TABLE IF NOT EXISTS mastra_resources (
  "id" TEXT NOT NULL PRIMARY KEY,
  "workingMemory" TEXT,
  "metadata" TEXT,
  "createdAt" TEXT NOT NULL,
  "updatedAt" TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_messages_thread_created_at ON mastra_messages (thread_id, "createdAt");
CREATE INDEX IF NOT EXISTS idx_messages_thread_resource_created_at ON mastra_messages (thread_id, "resourceId", "createdAt");`;

/** JSONB (LibSQL's metadata) or JSON text, as JSON text; NULL where a blob is not JSONB SQLite can read (`bad` = 1). */
const sqMeta = (c: string) =>
  `CASE WHEN typeof(${c}) = 'blob' THEN CASE WHEN json_valid(${c}, 8) THEN json(${c}) END ELSE ${c} END AS metadata,
   (typeof(${c}) = 'blob' AND NOT json_valid(${c}, 8)) AS bad, typeof(${c}) AS mtype`;

/**
 * What of Mastra's memory tables a store holds: the versions before 0.10 wrote no `mastra_resources` and no
 * `mastra_messages.resourceId`; a column a store lacks is read as NULL (as the version that lacked it meant).
 */
export interface MastraHave {
  resources: boolean;
  /** columns per table, as the store has them */
  columns: Record<string, Set<string>>;
}

/** A column, or NULL under its name when the table lacks it. */
const col = (h: MastraHave, table: string, c: string, as = c) =>
  h.columns[table]?.has(c) ? (as === c ? `"${c}"` : `"${c}" AS ${as}`) : `NULL AS "${as}"`;
const meta = (h: MastraHave, table: string) =>
  h.columns[table]?.has("metadata") ? sqMeta("metadata") : "NULL AS metadata, 0 AS bad, 'null' AS mtype";
const threadCols = (h: MastraHave) =>
  `id, resourceId, ${col(h, "mastra_threads", "title")}, ${meta(h, "mastra_threads")}, createdAt, updatedAt`;
const resourceCols = (h: MastraHave) =>
  `id, ${col(h, "mastra_resources", "workingMemory")}, ${meta(h, "mastra_resources")}, createdAt, updatedAt`;

export const SQ = {
  tables: "SELECT name FROM sqlite_master WHERE type = 'table'",
  columns: "SELECT name FROM pragma_table_info(?)",
  version: "SELECT sqlite_version() AS v",
  threadPage: (
    h: MastraHave,
  ) => `SELECT t.id, t.resourceId, ${col(h, "mastra_threads", "title").replace(/^"title"/, "t.title")}, t.createdAt, t.updatedAt,
      (SELECT count(*) FROM mastra_messages m WHERE m.thread_id = t.id) AS messages,
      (SELECT ifnull(sum(length(CAST(m.content AS BLOB))), 0) FROM mastra_messages m WHERE m.thread_id = t.id) AS bytes
    FROM mastra_threads t WHERE (@after IS NULL OR t.id > @after) ORDER BY t.id LIMIT @limit`,
  thread: (h: MastraHave) => `SELECT ${threadCols(h)} FROM mastra_threads WHERE id = ?`,
  threadRows: (h: MastraHave) => `SELECT ${threadCols(h)} FROM mastra_threads
    WHERE (@after IS NULL OR id > @after) ORDER BY id LIMIT @limit`,
  messages: (
    h: MastraHave,
  ) => `SELECT id, thread_id AS threadId, content, role, ${col(h, "mastra_messages", "type")}, createdAt,
      ${col(h, "mastra_messages", "resourceId")} FROM mastra_messages WHERE thread_id = ? ORDER BY createdAt, rowid`,
  resource: (h: MastraHave) => `SELECT ${resourceCols(h)} FROM mastra_resources WHERE id = ?`,
  resourceRows: (h: MastraHave) => `SELECT ${resourceCols(h)} FROM mastra_resources
    WHERE (@after IS NULL OR id > @after) ORDER BY id LIMIT @limit`,
  counts: (
    h: MastraHave,
  ) => `SELECT (SELECT count(*) FROM mastra_threads) AS threads, (SELECT count(*) FROM mastra_messages) AS messages,
      ${h.resources ? "(SELECT count(*) FROM mastra_resources)" : "0"} AS resources,
      (SELECT count(*) FROM mastra_messages m WHERE NOT EXISTS (SELECT 1 FROM mastra_threads t WHERE t.id = m.thread_id)) AS orphanMessages`,
  /** metadata as LibSQL writes it: JSONB */
  insertThread: (verb: string) =>
    `${verb} INTO mastra_threads (id, resourceId, title, metadata, createdAt, updatedAt)
     VALUES (@id, @resourceId, @title, jsonb(@metadata), @createdAt, @updatedAt)`,
  insertMessage: (verb: string) =>
    `${verb} INTO mastra_messages (id, thread_id, content, role, type, createdAt, resourceId)
     VALUES (@id, @threadId, @content, @role, @type, @createdAt, @resourceId)`,
  insertResource: (verb: string) =>
    `${verb} INTO mastra_resources (id, workingMemory, metadata, createdAt, updatedAt)
     VALUES (@id, @workingMemory, jsonb(@metadata), @createdAt, @updatedAt)`,
};

// ------------------------------------------------------------------------------------------------ PostgreSQL

/** The DDL `@mastra/pg` runs for the memory tables (its init; `S` = `"schema".`, `p` = the schema's index prefix). */
export const pgSetup = (schema: string) => {
  const S = `${ident(schema)}.`;
  // @mastra/pg's schemaNamePrefix: the name with anything but [A-Za-z0-9_] as "_", "_" first when it starts with a digit
  const clean = schema.replace(/[^A-Za-z0-9_]/g, "_");
  const p = schema === "public" ? "" : `${/^[0-9]/.test(clean) ? `_${clean}` : clean}_`;
  return `CREATE SCHEMA IF NOT EXISTS ${ident(schema)};
CREATE TABLE IF NOT EXISTS ${S}mastra_threads (
  "id" TEXT NOT NULL PRIMARY KEY,
  "resourceId" TEXT NOT NULL,
  "title" TEXT NOT NULL,
  "metadata" JSONB,
  "createdAt" TIMESTAMP NOT NULL,
  "updatedAt" TIMESTAMP NOT NULL,
  "createdAtZ" TIMESTAMPTZ DEFAULT NOW(),
  "updatedAtZ" TIMESTAMPTZ DEFAULT NOW()
);
CREATE TABLE IF NOT EXISTS ${S}mastra_messages (
  "id" TEXT NOT NULL PRIMARY KEY,
  "thread_id" TEXT NOT NULL,
  "content" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "createdAt" TIMESTAMP NOT NULL,
  "resourceId" TEXT,
  "createdAtZ" TIMESTAMPTZ DEFAULT NOW()
);
CREATE TABLE IF NOT EXISTS ${S}mastra_resources (
  "id" TEXT NOT NULL PRIMARY KEY,
  "workingMemory" TEXT,
  "metadata" JSONB,
  "createdAt" TIMESTAMP NOT NULL,
  "updatedAt" TIMESTAMP NOT NULL,
  "createdAtZ" TIMESTAMPTZ DEFAULT NOW(),
  "updatedAtZ" TIMESTAMPTZ DEFAULT NOW()
);
${index(`${p}mastra_threads_resourceid_createdat_idx`, `${S}mastra_threads ("resourceId", "createdAt" DESC)`)}
${index(`${p}mastra_messages_thread_id_createdat_idx`, `${S}mastra_messages (thread_id, "createdAt" DESC)`)}`;
};

/** An index as @mastra/pg makes it: none when its name is over 63 characters (Mastra's identifier check refuses it). */
const index = (name: string, on: string) =>
  name.length > 63 ? "" : `CREATE INDEX IF NOT EXISTS ${ident(name)} ON ${on};`;

/**
 * A time as Mastra reads it (`row.createdAtZ || row.createdAt`: the `timestamptz` copy, else the `timestamp` it wrote
 * in UTC), as ISO 8601 text.
 */
const iso = (c: string, t = "") =>
  `to_char(coalesce(${t}"${c}Z" AT TIME ZONE 'UTC', ${t}"${c}"), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const pgTimes = `${iso("createdAt")} AS "createdAt", ${iso("updatedAt")} AS "updatedAt"`;

export const PG = {
  tables: "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
  threadPage: (S: string) => `SELECT t.id, t."resourceId", t.title, ${iso("createdAt", "t.")} AS "createdAt",
      ${iso("updatedAt", "t.")} AS "updatedAt",
      (SELECT count(*)::int FROM ${S}mastra_messages m WHERE m.thread_id = t.id) AS messages,
      (SELECT coalesce(sum(octet_length(m.content)), 0)::bigint FROM ${S}mastra_messages m WHERE m.thread_id = t.id) AS bytes
    FROM ${S}mastra_threads t WHERE ($1::text IS NULL OR t.id > $1 COLLATE "C") ORDER BY t.id COLLATE "C" LIMIT $2`,
  thread: (S: string) => `SELECT id, "resourceId", title, metadata, ${pgTimes} FROM ${S}mastra_threads WHERE id = $1`,
  threadRows: (S: string) => `SELECT id, "resourceId", title, metadata, ${pgTimes} FROM ${S}mastra_threads
    WHERE ($1::text IS NULL OR id > $1 COLLATE "C") ORDER BY id COLLATE "C" LIMIT $2`,
  messages: (S: string) => `SELECT id, thread_id AS "threadId", content, role, type, ${iso("createdAt")} AS "createdAt",
      "resourceId" FROM ${S}mastra_messages WHERE thread_id = ANY($1::text[]) ORDER BY thread_id, "createdAt", ctid`,
  resource: (S: string) => `SELECT id, "workingMemory", metadata, ${pgTimes} FROM ${S}mastra_resources WHERE id = $1`,
  resourceRows: (S: string) => `SELECT id, "workingMemory", metadata, ${pgTimes} FROM ${S}mastra_resources
    WHERE ($1::text IS NULL OR id > $1 COLLATE "C") ORDER BY id COLLATE "C" LIMIT $2`,
  counts: (S: string) => `SELECT (SELECT count(*)::int FROM ${S}mastra_threads) AS threads,
      (SELECT count(*)::int FROM ${S}mastra_messages) AS messages,
      (SELECT count(*)::int FROM ${S}mastra_resources) AS resources,
      (SELECT count(*)::int FROM ${S}mastra_messages m WHERE NOT EXISTS (SELECT 1 FROM ${S}mastra_threads t WHERE t.id = m.thread_id)) AS "orphanMessages"`,
  existing: (S: string, table: string) => `SELECT id FROM ${S}${table} WHERE id = ANY($1::text[])`,
  /** rows as `@mastra/pg` writes them: the time in the `timestamp` column (UTC) and its `timestamptz` copy */
  insertThreads: (S: string, overwrite: boolean | "add") => `INSERT INTO ${S}mastra_threads
      (id, "resourceId", title, metadata, "createdAt", "updatedAt", "createdAtZ", "updatedAtZ")
    SELECT id, r, t, m::jsonb, c::timestamptz AT TIME ZONE 'UTC', u::timestamptz AT TIME ZONE 'UTC', c::timestamptz, u::timestamptz
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(id, r, t, m, c, u)
    ${
      overwrite === "add"
        ? "ON CONFLICT (id) DO NOTHING RETURNING id"
        : overwrite
          ? `ON CONFLICT (id) DO UPDATE SET "resourceId" = EXCLUDED."resourceId", title = EXCLUDED.title,
      metadata = EXCLUDED.metadata, "createdAt" = EXCLUDED."createdAt", "updatedAt" = EXCLUDED."updatedAt",
      "createdAtZ" = EXCLUDED."createdAtZ", "updatedAtZ" = EXCLUDED."updatedAtZ"`
          : ""
    }`,
  insertMessages: (S: string, overwrite: boolean) => `INSERT INTO ${S}mastra_messages
      (id, thread_id, content, role, type, "createdAt", "resourceId", "createdAtZ")
    SELECT id, th, co, ro, ty, c::timestamptz AT TIME ZONE 'UTC', re, c::timestamptz
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(id, th, co, ro, ty, c, re)
    ${
      overwrite
        ? `ON CONFLICT (id) DO UPDATE SET thread_id = EXCLUDED.thread_id, content = EXCLUDED.content,
      role = EXCLUDED.role, type = EXCLUDED.type, "createdAt" = EXCLUDED."createdAt", "resourceId" = EXCLUDED."resourceId",
      "createdAtZ" = EXCLUDED."createdAtZ"`
        : ""
    }`,
  insertResources: (S: string, overwrite: boolean | "add") => `INSERT INTO ${S}mastra_resources
      (id, "workingMemory", metadata, "createdAt", "updatedAt", "createdAtZ", "updatedAtZ")
    SELECT id, w, m::jsonb, c::timestamptz AT TIME ZONE 'UTC', u::timestamptz AT TIME ZONE 'UTC', c::timestamptz, u::timestamptz
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(id, w, m, c, u)
    ${
      overwrite === "add"
        ? "ON CONFLICT (id) DO NOTHING RETURNING id"
        : overwrite
          ? `ON CONFLICT (id) DO UPDATE SET "workingMemory" = EXCLUDED."workingMemory", metadata = EXCLUDED.metadata,
      "createdAt" = EXCLUDED."createdAt", "updatedAt" = EXCLUDED."updatedAt", "createdAtZ" = EXCLUDED."createdAtZ",
      "updatedAtZ" = EXCLUDED."updatedAtZ"`
          : ""
    }`,
};
