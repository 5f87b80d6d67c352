/**
 * Mastra's memory tables (`@mastra/libsql`, `@mastra/pg`) as one store type, whatever the backend: threads
 * (`mastra_threads`), their messages (`mastra_messages`, content as the JSON text Mastra writes: format 2) and
 * resources with their working memory (`mastra_resources`). The other 40-odd `mastra_*` tables a Mastra store holds
 * (workflows, spans, …) are not memory and are neither read nor written.
 *
 * Rows come as the store holds them, decoded only as far as SQL must: LibSQL keeps thread and resource `metadata` as
 * SQLite's binary JSONB (read with `json()`), PostgreSQL as `jsonb`; timestamps come back as ISO 8601 UTC text.
 * A value that does not decode is named on the row (`unreadable`), never dropped.
 */

export const MASTRA_TABLES = {
  threads: "mastra_threads",
  messages: "mastra_messages",
  resources: "mastra_resources",
} as const;

/** A row value that did not decode: its column and why. */
export interface Unreadable {
  column: string;
  reason: string;
}

export interface MastraThreadRow {
  id: string;
  resourceId: string;
  title: string;
  /** the decoded metadata (null when the column is NULL or does not decode: see `unreadable`) */
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  unreadable?: Unreadable[];
}

export interface MastraMessageRow {
  id: string;
  threadId: string;
  /** the stored JSON text (format 2: `{"format":2,"parts":[…],…}`), as written */
  content: string;
  role: string;
  type: string;
  createdAt: string;
  resourceId: string | null;
}

export interface MastraResourceRow {
  id: string;
  workingMemory: string | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  unreadable?: Unreadable[];
}

/** `ls` row of a thread. */
export interface MastraThreadSummary {
  threadId: string;
  resourceId: string;
  title: string;
  messages: number;
  createdAt: string;
  updatedAt: string;
  /** stored bytes of the thread's message contents */
  bytes: number;
}

/** What the memory tables hold. */
export interface MastraCounts {
  threads: number;
  messages: number;
  resources: number;
  /** messages whose thread_id names no thread (Mastra never lists them) */
  orphanMessages: number;
}

/** One page of a store for a migration: threads (by id) with every message of theirs, or resources (by id). */
export type MastraBatch =
  | { table: "threads"; threads: MastraThreadRow[]; messages: MastraMessageRow[] }
  | { table: "resources"; resources: MastraResourceRow[] };

/** A memory table's rows and stored size (the table with its indexes; null when the store cannot tell). */
export interface MastraTableSize {
  table: string;
  rows: number;
  storedBytes: number | null;
}

/** What `ckpt delete` erases: one thread, or a resource with everything of it (its threads too). */
export type MastraEraseTarget = { thread: string } | { resource: string } | { messages: string[] };

/** What an erasure removes (or would): each table's rows of it, 0 included (engines/types.ts `Erased`). */
export interface Erased {
  /** an erasure of one owner (`--resource`, `--user`, `--match`/`--where`): the threads (chats) it took */
  threads?: string[];
  tables: Array<{ table: string; rows: number }>;
  notes?: string[];
}

export interface MastraStore {
  readonly layout: "mastra";
  readonly kind: "sqlite" | "postgres";
  /** the URI with any password removed */
  readonly uri: string;
  /** whether the three memory tables exist */
  hasLayout(): Promise<boolean>;
  /** create the memory tables and their indexes as Mastra's own init does (nothing else; an existing table is kept) */
  setup(): Promise<void>;
  /** threads by id (after `after`, at most `limit`), with message counts */
  threads(o?: { after?: string; limit?: number }): AsyncIterable<MastraThreadSummary>;
  thread(id: string): Promise<MastraThreadRow | undefined>;
  /** a thread's messages in Mastra's order (`createdAt` ascending; ties in insertion order) */
  messages(threadId: string): Promise<MastraMessageRow[]>;
  resource(id: string): Promise<MastraResourceRow | undefined>;
  counts(): Promise<MastraCounts>;
  /** the whole store in batches: threads with their messages (`batchSize` threads a batch), then resources */
  scan(batchSize: number): AsyncIterable<MastraBatch>;
  /** the memory tables' rows and sizes, and how the sizes were measured */
  tables(): Promise<{ method: "dbstat" | "sum-of-lengths" | "pg_total_relation_size"; tables: MastraTableSize[] }>;
  /** ids among `ids` the store holds, per table */
  existing(table: "threads" | "messages" | "resources", ids: string[]): Promise<Set<string>>;
  /** write a batch in one transaction (`overwrite`: replace rows with the same id, else they must not exist) */
  write(batch: MastraBatch, o: { overwrite: boolean }): Promise<void>;
  /**
   * Write, in one transaction, the threads (with their messages) and resources of a batch whose id the store does not
   * hold when it gets to them — another writer's rows, committed or committing, are left as they are: the ids written.
   */
  add(batch: MastraBatch): Promise<Set<string>>;
  /**
   * `ckpt delete`: every row naming the thread (its thread, messages, the other per-thread tables of the store's
   * version, its vector rows), or the resource and its threads, counted and, unless `dryRun`, deleted in one
   * transaction; null when none names it.
   */
  erase(target: MastraEraseTarget, dryRun: boolean): Promise<Erased | null>;
  /**
   * `ckpt prune --vacuum`: SQLite VACUUM of the file (its WAL checkpointed before and after), PostgreSQL VACUUM of the
   * schema's mastra_* and vector tables; the sizes before and after (`dryRun`: measured only).
   */
  vacuum(o: { dryRun: boolean }): Promise<import("../langgraph/shared.js").VacuumReport>;
  close(): Promise<void>;
}

export const isMastraStore = (s: unknown): s is MastraStore => (s as { layout?: string } | null)?.layout === "mastra";
