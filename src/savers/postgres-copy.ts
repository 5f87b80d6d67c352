/**
 * Bulk loads into the PostgreSQL table with `COPY … FROM STDIN` (pg-copy-streams): one stream of rows
 * instead of multi-row INSERTs — the server parses no SQL and no parameters per row. COPY cannot update, so a batch is
 * first tried as a COPY; when a row already exists (unique violation, 23505: an overwrite, or a writer that got there
 * first) nothing of the COPY is kept and the caller upserts the batch instead. A COPY is one statement, all or nothing
 * by itself: outside a transaction it needs no savepoint (one round trip instead of BEGIN, SAVEPOINT, RELEASE, COMMIT);
 * inside the caller's transaction it runs in a savepoint.
 */
import type { PoolClient } from "pg";

/** COPY's text format: backslash, newline, carriage return and tab escaped (PostgreSQL text holds no NUL). */
export const copyEscape = (s: string) =>
  /[\\\n\r\t]/.test(s)
    ? s.replace(/[\\\n\r\t]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t"))
    : s;

/** Below this many rows an INSERT is as fast and a failed COPY attempt is not worth risking. */
export const COPY_MIN_ROWS = 16;

export interface CopyRow {
  namespace: string;
  threadId: string;
  text: string;
  /** the text's UTF-8 size, when the caller has it (SaverRecord.bytes) */
  readonly bytes?: number;
}

/** ckpt's rows (namespace, thread_id, doc, bytes) as PostgreSQL's binary COPY data. */
function copyRows(rows: CopyRow[]): Buffer {
  const data = new CopyBinary();
  for (const r of rows)
    data
      .row(4)
      .text(r.namespace)
      .text(r.threadId)
      .text(r.text)
      .int4(r.bytes ?? Buffer.byteLength(r.text));
  return data.done();
}

/**
 * COPY `rows` into `table` (namespace, thread_id, doc, bytes; updated_at takes its default, now()) in COPY's binary
 * format: each text goes as its UTF-8 bytes with their length, so nothing is escaped here (a pretty-printed document's
 * every newline was) or unescaped by the server; the table's columns are ckpt's (text, text, text, integer). Inside the
 * caller's transaction (`inTransaction`, in a savepoint) or as a statement of its own (committed when it returns).
 * True when they were loaded; false when one of them already existed (nothing of the COPY is kept then). Other errors
 * are thrown.
 */
export async function copyNew(c: PoolClient, table: string, rows: CopyRow[], inTransaction = true): Promise<boolean> {
  if (inTransaction) await c.query("SAVEPOINT ckpt_copy");
  try {
    await copyBinary(c, `${table} (namespace, thread_id, doc, bytes)`, copyRows(rows));
    if (inTransaction) await c.query("RELEASE SAVEPOINT ckpt_copy");
    return true;
  } catch (e) {
    if ((e as { code?: string }).code !== "23505") throw e;
    if (inTransaction) await c.query("ROLLBACK TO SAVEPOINT ckpt_copy");
    return false;
  }
}

/** A bytea value in COPY's text format (hex input, its backslash escaped), or NULL. */
export const copyBytea = (b: Uint8Array | null): string =>
  b === null ? "\\N" : `\\\\x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex")}`;

/** A text value in COPY's text format, or NULL. */
export const copyTextValue = (s: string | null): string => (s === null ? "\\N" : copyEscape(s));

/** Stream `text` (COPY text format lines) into `COPY <target> FROM STDIN` on the caller's connection. */
export async function copyText(c: PoolClient, target: string, text: string): Promise<void> {
  const { from } = await import("pg-copy-streams");
  const stream = c.query(from(`COPY ${target} FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
  stream.end(text);
  await done;
}

/**
 * Rows in COPY's binary format (`COPY … FROM STDIN (FORMAT binary)`): each field is its length and its bytes, so
 * bytea goes as the bytes themselves (no hex text twice their size, nothing for the server to decode) and text needs no
 * escaping. The caller must know the columns' types (text, integer, bytea, jsonb: jsonb is a version byte, then text).
 */
export class CopyBinary {
  private b = Buffer.allocUnsafe(1 << 16);
  private n = 0;
  /** rows added */
  rows = 0;

  constructor() {
    this.b.write("PGCOPY\n\xff\r\n\0", 0, "latin1");
    this.b.writeInt32BE(0, 11); // flags
    this.b.writeInt32BE(0, 15); // header extension length
    this.n = 19;
  }

  private need(k: number): void {
    if (this.n + k <= this.b.length) return;
    const nb = Buffer.allocUnsafe(Math.max(this.b.length * 2, this.n + k));
    this.b.copy(nb, 0, 0, this.n);
    this.b = nb;
  }

  /** start a row of `fields` fields */
  row(fields: number): this {
    this.need(2);
    this.b.writeInt16BE(fields, this.n);
    this.n += 2;
    this.rows++;
    return this;
  }

  private head(len: number): void {
    this.b.writeInt32BE(len, this.n);
    this.n += 4;
  }

  text(s: string | null): this {
    if (s === null) return this.nul();
    this.need(4 + s.length * 3);
    const k = this.b.write(s, this.n + 4, "utf8");
    this.head(k);
    this.n += k;
    return this;
  }

  /** jsonb from its text */
  jsonb(s: string): this {
    this.need(5 + s.length * 3);
    const k = this.b.write(s, this.n + 5, "utf8");
    this.head(k + 1);
    this.b[this.n++] = 1;
    this.n += k;
    return this;
  }

  int4(v: number): this {
    this.need(8);
    this.head(4);
    this.b.writeInt32BE(v, this.n);
    this.n += 4;
    return this;
  }

  bytea(u: Uint8Array | null): this {
    if (u === null) return this.nul();
    this.need(4 + u.length);
    this.head(u.length);
    this.b.set(u, this.n);
    this.n += u.length;
    return this;
  }

  private nul(): this {
    this.need(4);
    this.head(-1);
    return this;
  }

  /** the whole COPY data, trailer included */
  done(): Buffer {
    this.need(2);
    this.b.writeInt16BE(-1, this.n);
    return this.b.subarray(0, this.n + 2);
  }
}

/** Stream binary COPY data (`CopyBinary.done()`) into `COPY <target> FROM STDIN (FORMAT binary)` on the caller's connection. */
export async function copyBinary(c: PoolClient, target: string, data: Buffer): Promise<void> {
  const { from } = await import("pg-copy-streams");
  const stream = c.query(from(`COPY ${target} FROM STDIN (FORMAT binary)`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
  stream.end(data);
  await done;
}

/**
 * `rows` COPYed as new rows in a transaction of their own, in one round trip: one simple query
 * (`BEGIN; <setup>; COPY … FROM STDIN (FORMAT binary); COMMIT`) with the COPY's data written right behind it, not after
 * the server's CopyInResponse (the protocol allows it: a server that fails the COPY before it reads the data ignores
 * the copy messages that follow). Instead of BEGIN, COPY (two round trips) and COMMIT one after another: a migration's
 * batch costs one round trip instead of four. True when they were loaded and committed; false when one of them already
 * existed (unique violation, 23505: nothing kept, the transaction is left aborted for the caller's ROLLBACK). Other
 * errors are thrown (the transaction may be open: the caller rolls back).
 */
export async function copyNewCommitted(
  c: PoolClient,
  table: string,
  rows: CopyRow[],
  setup?: string,
): Promise<boolean> {
  const q = new PipelinedCopy(
    `BEGIN; ${setup ? `${setup}; ` : ""}COPY ${table} (namespace, thread_id, doc, bytes) FROM STDIN (FORMAT binary); COMMIT`,
    copyRows(rows),
  );
  // a submittable (node-postgres queues it like a query and hands it the server's messages)
  c.query(q as unknown as string);
  const { error, tags } = await q.result;
  if (error) {
    if ((error as { code?: string }).code === "23505") return false;
    throw error;
  }
  if (tags[tags.length - 1] !== "COMMIT")
    throw new Error(`COPY batch: expected COMMIT, the server said ${tags.join(", ")}`);
  return true;
}

/** A simple query with COPY data sent behind it at once (see copyNewCommitted): the command tags, or the error. */
class PipelinedCopy {
  private settle!: (r: { error?: Error; tags: string[] }) => void;
  readonly result = new Promise<{ error?: Error; tags: string[] }>((resolve) => {
    this.settle = resolve;
  });
  private readonly tags: string[] = [];
  constructor(
    readonly text: string,
    private readonly data: Buffer,
  ) {}

  submit(connection: { query(text: string): void; stream: { write(b: Buffer): boolean } }): void {
    connection.query(this.text);
    const head = Buffer.allocUnsafe(5);
    head[0] = 0x64; // CopyData
    head.writeUInt32BE(this.data.length + 4, 1);
    connection.stream.write(head);
    connection.stream.write(this.data);
    connection.stream.write(Buffer.from([0x63, 0, 0, 0, 4])); // CopyDone
  }
  /** node-postgres replaces it with its timeout hook when query_timeout is set */
  callback(): void {}
  handleCopyInResponse(): void {}
  handleCommandComplete(msg: { text?: string }): void {
    this.tags.push(String(msg?.text ?? ""));
  }
  /** node-postgres drops the query at an error (the ReadyForQuery that follows goes to the client) */
  handleError(e: Error): void {
    this.callback();
    this.settle({ error: e, tags: this.tags });
  }
  handleReadyForQuery(): void {
    this.callback();
    this.settle({ tags: this.tags });
  }
  handleEmptyQuery(): void {}
}
