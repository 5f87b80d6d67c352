/**
 * Where `ckpt export` writes its rows: a JSONL file, standard output (JSONL, or Markdown), a Markdown file, or a
 * Parquet file. A file is written to a temp file beside it and renamed into place only when the whole export worked
 * (no partial output); standard output is written as the rows come.
 *
 * Parquet goes through hyparquet-writer (pure JavaScript, one dependency; it writes a row group at a time, so the
 * export holds one group of rows, not the whole store): the format's columns (its JSONL keys) become the schema, a
 * list of structs for the nested messages, strings for what varies in shape.
 */
import { type AtomicFile, openFileAtomic } from "../../base/atomic.js";
import { stringifyJson } from "../../base/json.js";
import type { ColumnType, ExportFormat } from "../../core/export/types.js";

/** Where text goes when it is not a file: standard output, or a caller's stream. */
export interface TextOut {
  write(chunk: string): unknown;
}

/** The kinds of output, from the output's name: `.jsonl`/`.ndjson`, `.parquet`, `.md`, or `-`. */
export type Container = "jsonl" | "parquet" | "markdown";

export interface RowWriter {
  /** one row of the format */
  add(row: unknown): Promise<void>;
  /** everything written: the file renamed into place */
  commit(): Promise<void>;
  /** the export failed: nothing is left at the output's path */
  abort(): Promise<void>;
  /** bytes written so far */
  readonly bytes: number;
}

/** A buffered text writer into a file (atomic) or a stream. */
function textWriter(out: AtomicFile | TextOut, encode: (row: unknown) => string): RowWriter {
  let buf = "";
  let bytes = 0;
  const file = "commit" in out ? out : undefined;
  const flush = async () => {
    if (!buf) return;
    const chunk = buf;
    buf = "";
    bytes += Buffer.byteLength(chunk);
    if (file) await file.write(chunk);
    else out.write(chunk);
  };
  return {
    get bytes() {
      return bytes + Buffer.byteLength(buf);
    },
    async add(row) {
      buf += encode(row);
      if (buf.length > 1 << 16) await flush();
    },
    async commit() {
      await flush();
      await file?.commit();
    },
    async abort() {
      buf = "";
      await file?.abort();
    },
  };
}

const jsonLine = (row: unknown) => `${stringifyJson(row)}\n`;

/** Open the writer of an export: `output` a path (by its extension), or a stream of text (JSONL or Markdown). */
export async function openWriter(
  output: string | TextOut,
  container: Container,
  format: ExportFormat,
): Promise<RowWriter> {
  const encode = container === "markdown" ? markdownEncoder() : jsonLine;
  if (typeof output !== "string") return textWriter(output, encode);
  const file = await openFileAtomic(output);
  if (container === "parquet") return parquetWriter(file, format);
  return textWriter(file, encode);
}

/** Markdown transcripts one after another, a rule between two. */
function markdownEncoder(): (row: unknown) => string {
  let first = true;
  return (row) => {
    const text = String(row);
    const out = first ? text : `\n---\n\n${text}`;
    first = false;
    return out;
  };
}

// ------------------------------------------------------------------------------------------------ Parquet

/** Rows per row group (fewer when they are large: see GROUP_BYTES). */
const GROUP_ROWS = 1000;
/** About this many bytes of rows (as JSON) make a row group: memory stays bounded with long conversations. */
const GROUP_BYTES = 32 << 20;

interface SchemaElement {
  name: string;
  type?: "BYTE_ARRAY" | "INT64" | "BOOLEAN";
  converted_type?: "UTF8" | "LIST";
  repetition_type?: "OPTIONAL" | "REPEATED" | "REQUIRED";
  num_children?: number;
}

/** A column's Parquet schema elements (depth first), a list as the standard three-level LIST. */
function elements(name: string, t: ColumnType): SchemaElement[] {
  if (t === "string") return [{ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }];
  if (t === "int") return [{ name, type: "INT64", repetition_type: "OPTIONAL" }];
  if (t === "bool") return [{ name, type: "BOOLEAN", repetition_type: "OPTIONAL" }];
  if ("list" in t)
    return [
      { name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
      { name: "list", repetition_type: "REPEATED", num_children: 1 },
      ...elements("element", t.list),
    ];
  return [
    { name, repetition_type: "OPTIONAL", num_children: t.struct.length },
    ...t.struct.flatMap(([n, c]) => elements(n, c)),
  ];
}

/** A value as its column holds it: ints as bigints (INT64), what the schema has no place for dropped. */
function columnValue(v: unknown, t: ColumnType): unknown {
  if (v === undefined || v === null) return null;
  if (t === "string") return typeof v === "string" ? v : stringifyJson(v);
  if (t === "int") return typeof v === "bigint" ? v : Number.isFinite(Number(v)) ? BigInt(Math.trunc(Number(v))) : null;
  if (t === "bool") return Boolean(v);
  if ("list" in t) return Array.isArray(v) ? v.map((x) => columnValue(x, t.list)) : null;
  if (typeof v !== "object") return null;
  const o: Record<string, unknown> = {};
  for (const [n, c] of t.struct) o[n] = columnValue((v as Record<string, unknown>)[n], c);
  return o;
}

async function parquetWriter(file: AtomicFile, format: ExportFormat): Promise<RowWriter> {
  const { ByteWriter, ParquetWriter } = await import("hyparquet-writer");
  const schema = [
    { name: "root", num_children: format.columns.length },
    ...format.columns.flatMap(([n, t]) => elements(n, t)),
  ];
  // the file writer: hyparquet-writer calls flush() after each row group (awaited before the next one) and finish()
  // at the end; what it holds is written to the temp file and the buffer reused
  const bytes = new ByteWriter();
  let pending: Promise<void> = Promise.resolve();
  const drain = () => {
    const chunk = new Uint8Array(bytes.buffer, 0, bytes.index).slice();
    bytes.index = 0;
    pending = pending.then(() => file.write(chunk));
    return pending;
  };
  Object.assign(bytes, { flush: drain, finish: drain });
  const writer = new ParquetWriter({
    writer: bytes as unknown as ConstructorParameters<typeof ParquetWriter>[0]["writer"],
    schema: schema as ConstructorParameters<typeof ParquetWriter>[0]["schema"],
    createdBy: "ckpt export",
  });
  let rows: Record<string, unknown>[] = [];
  let size = 0;
  const writeGroup = async () => {
    if (!rows.length) return;
    const columnData = format.columns.map(([n, t]) => ({ name: n, data: rows.map((r) => columnValue(r[n], t)) }));
    rows = [];
    size = 0;
    await writer.write({ columnData, rowGroupSize: Number.MAX_SAFE_INTEGER });
    await pending;
  };
  return {
    get bytes() {
      return file.bytes;
    },
    async add(row) {
      const flat = format.flatten ? format.flatten(row) : (row as Record<string, unknown>);
      rows.push(flat);
      size += (stringifyJson(flat) ?? "").length;
      if (rows.length >= GROUP_ROWS || size >= GROUP_BYTES) await writeGroup();
    },
    async commit() {
      await writeGroup();
      await writer.finish();
      await pending;
      await file.commit();
    },
    async abort() {
      await pending.catch(() => undefined);
      await file.abort();
    },
  };
}
