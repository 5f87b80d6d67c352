/**
 * The saver (store) interface. A store holds documents keyed by (namespace, threadId); documents are kept as
 * the JSON text of the store's own layout (FileSaver: 2-space JSON; Redis KeyValueStoreSaver: compact JSON).
 * Texts, not objects, so that nothing (key order, integers beyond 2^53) is lost in transit.
 */
import { CkptError, ExitCode } from "../base/errors.js";

export const DEFAULT_NAMESPACE = "default";

export interface ThreadInfo {
  namespace: string;
  threadId: string;
  /** size of the stored document in bytes (UTF-8) */
  bytes: number;
  /** when the store last wrote it, ISO 8601, where the store knows */
  updatedAt?: string;
}

export interface SaverRecord {
  namespace: string;
  threadId: string;
  /** the document as JSON text */
  text: string;
  /**
   * The same document as compact JSON (key order and big integers kept), when the caller already has it.
   * Savers whose layout is compact JSON (Redis) store it as is instead of re-serializing `text`.
   */
  compact?: string;
  /** the text's UTF-8 size, when the caller already has it (savers that store the size use it instead of counting again) */
  readonly bytes?: number;
  /** where the record came from, for messages (a folder store's file or amacs home) */
  source?: string;
  /**
   * the sha256 (hex) of the text's UTF-8, when the caller already has it (a migration's journal records it): savers that
   * verify by hash on the server (PostgreSQL) compare with it instead of hashing the text again
   */
  readonly hash?: string;
}

/** An entry a folder store's scan did not turn into a record: not a checkpoint (ignored), or a second file for one thread (rejected). */
export interface PassedOver {
  namespace: string;
  /** the thread the entry would have been (a rejected second file) */
  threadId?: string;
  /** the file or folder */
  path: string;
  reason: string;
}

export interface RecordKey {
  namespace: string;
  threadId: string;
}

export interface ListOptions {
  namespace?: string;
  /** return threads whose id sorts after this one (paging) */
  after?: string;
  limit?: number;
}

export interface ScanOptions {
  namespace?: string;
  /** records per yielded batch (default 200) */
  batchSize?: number;
}

export interface Saver {
  /** the URI with any password removed */
  readonly uri: string;
  /** true when the store keeps documents as compact JSON (Redis), so writers can hand it `SaverRecord.compact` */
  readonly storesCompact?: boolean;
  load(threadId: string, namespace?: string): Promise<string | undefined>;
  /** batched load (MGET / one query / one pass): texts in the order of `keys`, undefined where missing */
  loadMany(keys: RecordKey[]): Promise<Array<string | undefined>>;
  save(threadId: string, text: string, namespace?: string): Promise<void>;
  delete(threadId: string, namespace?: string): Promise<boolean>;
  exists(threadId: string, namespace?: string): Promise<boolean>;
  /** threads in ascending threadId order (UTF-16 code unit order), streamed */
  list(options?: ListOptions): AsyncIterable<ThreadInfo>;
  /**
   * Every record of a namespace with its text, in batches of about `batchSize`, in the store's own order (not
   * sorted): one pass over the store, memory bounded by the batch. What `migrate` reads; `list` + `loadMany` give the
   * same records in id order at the cost of a sort over every id and a second read.
   */
  scan(options: ScanOptions): AsyncIterable<SaverRecord[]>;
  /** how many threads a namespace holds (a cheap count or estimate, for progress; exact for every store but file, where it counts *.json files) */
  count(namespace?: string): Promise<number>;
  /** namespaces that hold at least one thread */
  namespaces(): Promise<string[]>;
  /** batched write (pipeline / transaction); all or nothing per batch where the store allows */
  saveMany(records: SaverRecord[]): Promise<void>;
  /**
   * Optional: write records the store does not hold yet, all or nothing, in one atomic step (PostgreSQL: a COPY
   * under the primary key; SQLite: plain INSERTs in one transaction; Redis: MSETNX). True when every record was
   * written; false when any of them already exists, and then nothing was written. A migration tries this first and
   * looks up what the target holds (conflicts) only when it says false: the store's own key check is the conflict
   * check, made in the same step as the write. Throws a RecordError for a record no store can hold, as saveMany does.
   * `deferFlush` (a migration's batches): the store may commit without waiting for its log to reach the disk, until
   * `durable()`; every other write of the store, and insertNew without it, is as durable as the store makes it.
   */
  insertNew?(records: SaverRecord[], opts?: { deferFlush?: boolean }): Promise<boolean>;
  /**
   * Optional: make every write so far durable. A store whose `insertNew` with deferFlush commits without waiting for
   * its log to reach the disk (PostgreSQL: synchronous_commit off for those batches' transactions, each still atomic;
   * a server crash may lose the last ones, which a resumed migration finds missing and writes again) waits for that
   * here, once; a migration calls it before it reports what it wrote.
   */
  durable?(): Promise<void>;
  /**
   * Optional: write each record the store does not hold yet and leave every one it holds as it is (PostgreSQL:
   * `ON CONFLICT DO NOTHING`; SQLite: `ON CONFLICT DO NOTHING`; Redis: `SET … NX`; folders: a file created exclusively,
   * a phi-core session checked under its lock). Per record, whether it was written. A migration writes the records its
   * lookup found missing this way, so that one another run wrote meanwhile is never overwritten (`--on-conflict skip`).
   * Throws a RecordError for a record no store can hold, as saveMany does.
   */
  addMany?(records: SaverRecord[]): Promise<boolean[]>;
  /** Optional: per key, whether the store holds it (batched, without reading the documents; else `loadMany`). */
  existsMany?(keys: RecordKey[]): Promise<boolean[]>;
  /**
   * Optional read-back check of records just written, compared where they are stored: for each record, true when the
   * store holds exactly the text it writes for it (SQLite: `doc = ?` in SQL, on the stored bytes, without copying
   * them out). False means "not known to be the same" (missing, different, or written in another form): the caller
   * reads those back with `loadMany` and compares content.
   */
  verifyMany?(records: SaverRecord[]): Promise<boolean[]>;
  /**
   * Folder stores: what the last `scan` (or `list`) of a namespace passed over — files that are not checkpoints
   * (`ignored`: a README, a lock file, an amacs home's .git) and files that are not read (`rejected`: a second file
   * for a thread id already read). A migration counts both; nothing is skipped silently.
   */
  passedOver?(namespace?: string): { ignored: PassedOver[]; rejected: PassedOver[] };
  close(): Promise<void>;
}

/** What every saver factory is given: one shape for every store. */
export interface SaverOptions {
  /** where the store is: a folder or database path, a memory store's name, or a connection URL */
  location: string;
  /** the URI for messages, credentials removed (what `Saver.uri` returns) */
  uri: string;
  /** the namespace used when a call names none (default "default") */
  namespace?: string;
  /**
   * Opened only to read: the store must exist (a missing one is an input error, exit 3, naming it) and nothing is
   * ever created or changed in it — no folder, file, table, schema or meta row.
   */
  readOnly?: boolean;
  /** the URI's query parameters (store-specific ones: `prefix`, `schema`, `table`, …) */
  params?: URLSearchParams;
}

/** Every saver module exports one of these (plus its `SAVER_NAME`). */
export type SaverFactory = (options: SaverOptions) => Promise<Saver>;

/**
 * The namespace a command reads or writes, one rule for all: the URI's `?namespace=`, else the command's
 * `--namespace`, else undefined (the command's default). Both, disagreeing, is a usage error.
 */
export function namespaceOf(u: { params: URLSearchParams }, flag: string | undefined): string | undefined {
  const inUri = u.params.get("namespace") ?? undefined;
  if (inUri !== undefined && flag !== undefined && inUri !== flag)
    throw new CkptError(
      ExitCode.USAGE,
      "namespace-twice",
      `namespace given twice: '${inUri}' in the URI and '${flag}' by --namespace; keep one`,
    );
  return inUri ?? flag;
}

/**
 * What `ckpt delete` removed (or would remove) from a foreign layout, as an erasure record: every table of the layout
 * the store holds that can name the thread, with its rows of it (0 included), and what was left and why (`notes`).
 */
export interface Erased {
  /** an erasure of one owner (`--resource`, `--user`, `--match`/`--where`): the threads (chats) it took */
  threads?: string[];
  tables: Array<{ table: string; rows: number }>;
  /** rows of the owner's threads the erasure had to leave (PostgreSQL LangGraph blobs, see `notes`), per table */
  kept?: Array<{ table: string; rows: number }>;
  notes?: string[];
}
