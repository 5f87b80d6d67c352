/**
 * A LangGraph SQLite store's checkpoint rows → decoded tuples (./sqlite.ts's reader): one by one, a key-ordered page
 * with the page's writes in one range query, or the newest of each of a page of threads. The newest may be ruled out
 * by their JSON text before any decoding (`newestOf`'s `text`: search's prefilter), where that is sound.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { AesKey } from "../../formats/langgraph/aes-key.js";
import { DELTA_COUNTERS } from "../../formats/langgraph/delta.js";
import {
  applyPendingSends,
  buildTuple,
  type RawCheckpointRow,
  type RawWriteRow,
} from "../../formats/langgraph/tuple.js";
import type { LgCheckpointTuple } from "../../formats/langgraph/types.js";

export const TABLES = { checkpoints: "checkpoints", writes: "writes" };

export type Wrap = <T>(f: () => T) => T;
export type WRow = RawWriteRow & { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
const key3 = (r: { thread_id: string; checkpoint_ns: string; checkpoint_id: string }) =>
  `${r.thread_id}\u0000${r.checkpoint_ns}\u0000${r.checkpoint_id}`;

type Statements = Record<
  "sendsOf" | "writesOf" | "writesRange" | "newestOf" | "newestWritesOf" | "newestSound",
  BetterSqlite3.Statement
>;

/**
 * Whether a newest checkpoint and its writes may be ruled out by their JSON text: every one a JSON text, the
 * checkpoint not a DeltaChannel's (whose values are rebuilt from other rows: its metadata names no delta counters and
 * has no `\u` escape that could hide them), and `text` (the caller's test of a JSON text; false: nothing of it can be
 * found) false for each. Only a candidate: whether the rows decode whole is SQLite's to say (`newestSound`), as a row
 * that does not must be reported, not passed over.
 */
export function textRulesOut(
  r: RawCheckpointRow,
  writes: readonly RawWriteRow[],
  text: (s: string) => boolean,
): boolean {
  if ((r.type !== null && r.type !== "json") || typeof r.checkpoint !== "string") return false;
  const md = r.metadata;
  if (md !== null && (typeof md !== "string" || md.includes("\\u") || md.includes(DELTA_COUNTERS))) return false;
  for (const w of writes) if (w.type !== "json" || typeof w.value !== "string") return false;
  if (text(r.checkpoint)) return false;
  for (const w of writes) if (text(w.value as string)) return false;
  return true;
}

/** Checkpoint rows → tuples, one by one or (a key-ordered page) with the page's writes in one range query. */
export function tupleMaker(q: Statements, aesKey: AesKey | undefined) {
  /** JS SqliteSaver's v<4 migration (on every JSON row older than v4 with a parent; Python's SqliteSaver has none) */
  const withSends = (t: LgCheckpointTuple): LgCheckpointTuple => {
    if (
      t.parentId &&
      typeof t.checkpoint.v === "number" &&
      t.checkpoint.v < 4 &&
      (t.serde.checkpoint === "json" || t.serde.checkpoint === null)
    ) {
      applyPendingSends(t, q.sendsOf.all(t.threadId, t.namespace, t.parentId) as RawWriteRow[], TABLES.writes, aesKey);
    }
    return t;
  };
  const tuple = (r: RawCheckpointRow) =>
    withSends(
      buildTuple(
        "sqlite",
        TABLES,
        r,
        q.writesOf.all(r.thread_id, r.checkpoint_ns, r.checkpoint_id) as RawWriteRow[],
        undefined,
        { aesKey },
      ),
    );
  /** A page of checkpoint rows in key order with their writes, fetched in one range query. */
  const tuplesOf = (rows: RawCheckpointRow[]): LgCheckpointTuple[] => {
    if (rows.length === 0) return [];
    const a = rows[0]!;
    const b = rows[rows.length - 1]!;
    const ws = new Map<string, RawWriteRow[]>();
    for (const w of q.writesRange.all(
      a.thread_id,
      a.checkpoint_ns,
      a.checkpoint_id,
      b.thread_id,
      b.checkpoint_ns,
      b.checkpoint_id,
    ) as WRow[]) {
      const k = key3(w);
      const list = ws.get(k);
      if (list) list.push(w);
      else ws.set(k, [w]);
    }
    return rows.map((r) => withSends(buildTuple("sqlite", TABLES, r, ws.get(key3(r)) ?? [], undefined, { aesKey })));
  };
  /**
   * The newest checkpoint of each thread named, with its writes: two queries for the page, each row decoded when
   * asked. With `text`, a thread whose rows it rules out (textRulesOut) and that SQLite finds sound is left out of
   * the map, undecoded (a third query, for those threads only).
   */
  const newestOf = (threadIds: readonly string[], ns: string, wrap: Wrap, text?: (s: string) => boolean) => {
    const args = { ids: JSON.stringify(threadIds), ns };
    const ws = new Map<string, RawWriteRow[]>();
    for (const w of q.newestWritesOf.all(args) as WRow[]) {
      const list = ws.get(w.thread_id);
      if (list) list.push(w);
      else ws.set(w.thread_id, [w]);
    }
    const rows = q.newestOf.all(args) as RawCheckpointRow[];
    const out = new Map<string, () => Promise<LgCheckpointTuple>>();
    const skip = text ? ruledOut(rows, ws, ns, text) : undefined;
    for (const r of rows) {
      if (skip?.has(`${r.thread_id}\u0000${r.checkpoint_id}`)) continue;
      out.set(r.thread_id, async () =>
        wrap(() => withSends(buildTuple("sqlite", TABLES, r, ws.get(r.thread_id) ?? [], undefined, { aesKey }))),
      );
    }
    return out;
  };
  /** The rows text rules out that SQLite finds sound: their thread and checkpoint ids, NUL-joined. */
  const ruledOut = (
    rows: RawCheckpointRow[],
    ws: Map<string, RawWriteRow[]>,
    ns: string,
    text: (s: string) => boolean,
  ): Set<string> => {
    const candidates = rows.filter((r) => textRulesOut(r, ws.get(r.thread_id) ?? [], text)).map((r) => r.thread_id);
    const out = new Set<string>();
    if (candidates.length === 0) return out;
    // the head may have moved since (another process writes): only the very row looked at is ruled out
    for (const s of q.newestSound.all({ ids: JSON.stringify(candidates), ns }) as WRow[])
      out.add(`${s.thread_id}\u0000${s.checkpoint_id}`);
    return out;
  };
  return { tuple, tuplesOf, newestOf };
}
