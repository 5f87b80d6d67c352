/**
 * A LangGraph SQLite store (Python SqliteSaver / JS SqliteSaver, LANGGRAPH.md §1.1) at the row level. Both libraries
 * create the same two tables and set WAL; a source is opened read-only (never created, never changed).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { storeError } from "../base/errors.js";
import type { Library } from "../formats/langgraph/encode.js";
import { libraryOf, textOf, type LgCheckpoint, type LgWrite } from "../formats/langgraph/rows.js";
import { sqliteHeads, sqlitePrunePage, sqliteThreadPage } from "./lgstore-prune.js";
import { openSqliteReadOnly, sqliteOpenError } from "./sqlite-open.js";
import { keyOf, type CheckpointKey, type LgStore, type WriteOptions } from "./lgstore.js";

/** The DDL both libraries run (py:sqlite:139-164, js:sqlite:114-137). */
export const SQLITE_SETUP = `PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS checkpoints (
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

interface CpRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Buffer | string | null;
  metadata: Buffer | string | null;
}
interface WRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  channel: string;
  type: string | null;
  value: Buffer | string | null;
}

const bytes = (v: Buffer | string | null): Uint8Array =>
  v === null ? new Uint8Array(0) : typeof v === "string" ? Buffer.from(v) : v;

export function toCheckpoint(r: CpRow): LgCheckpoint {
  return {
    threadId: r.thread_id,
    ns: r.checkpoint_ns,
    id: r.checkpoint_id,
    parentId: r.parent_checkpoint_id,
    type: r.type,
    checkpoint: bytes(r.checkpoint),
    metadata: bytes(r.metadata),
    writes: [],
  };
}
const toWrite = (r: WRow): LgWrite => ({
  taskId: r.task_id,
  idx: r.idx,
  channel: r.channel,
  type: r.type,
  value: bytes(r.value),
  taskPath: "",
});

type Wrap = <R>(what: string, f: () => R) => R;

/** The writes of the checkpoints from `first` to `last` (key order), in one range query. */
function writesIn(db: BetterSqlite3.Database, first: CpRow, last: CpRow): WRow[] {
  return db
    .prepare(`SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes
      WHERE (thread_id, checkpoint_ns, checkpoint_id) >= (?, ?, ?) AND (thread_id, checkpoint_ns, checkpoint_id) <= (?, ?, ?)
      ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx`)
    .all(
      first.thread_id,
      first.checkpoint_ns,
      first.checkpoint_id,
      last.thread_id,
      last.checkpoint_ns,
      last.checkpoint_id,
    ) as WRow[];
}

/** Every checkpoint with its writes, in key order, in pages of `batchSize`, of the threads `threads` accepts. */
async function* scanSqlite(
  db: BetterSqlite3.Database,
  wrap: Wrap,
  batchSize: number,
  threads?: (id: string) => boolean,
): AsyncIterable<LgCheckpoint[]> {
  const page = db.prepare(`SELECT * FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id) > (?, ?, ?)
    ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?`);
  let after: [string, string, string] = ["", "", ""];
  let firstPage = true;
  for (;;) {
    const rows = wrap("reading checkpoints", () =>
      firstPage
        ? (db
            .prepare("SELECT * FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id LIMIT ?")
            .all(batchSize) as CpRow[])
        : (page.all(...after, batchSize) as CpRow[]),
    );
    firstPage = false;
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    after = [last.thread_id, last.checkpoint_ns, last.checkpoint_id];
    const kept = threads ? rows.filter((r) => threads(r.thread_id)) : rows;
    if (kept.length)
      yield attachWrites(
        kept.map(toCheckpoint),
        wrap("reading writes", () => writesIn(db, kept[0]!, kept[kept.length - 1]!)).map(
          (w) => [keyOf({ threadId: w.thread_id, ns: w.checkpoint_ns, id: w.checkpoint_id }), toWrite(w)] as const,
        ),
      );
    if (rows.length < batchSize) return;
  }
}

/** Write checkpoints and their writes in one transaction (existing rows replaced with `overwrite`, else kept). */
function writeSqlite(db: BetterSqlite3.Database, wrap: Wrap, cps: LgCheckpoint[], o: WriteOptions): void {
  const verb = o.overwrite ? "INSERT OR REPLACE" : "INSERT OR IGNORE";
  const insCp = db.prepare(
    `${verb} INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const delW = db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?");
  const insW = db.prepare(
    `${verb} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  wrap("writing checkpoints", () =>
    db
      .transaction(() => {
        for (const c of cps) {
          insCp.run(c.threadId, c.ns, c.id, c.parentId, c.type, Buffer.from(c.checkpoint), Buffer.from(c.metadata));
          if (o.overwrite) delW.run(c.threadId, c.ns, c.id);
          for (const w of c.writes)
            insW.run(c.threadId, c.ns, c.id, w.taskId, w.idx, w.channel, w.type, Buffer.from(w.value));
        }
      })
      .immediate(),
  );
}

export async function openSqliteLgStore(
  path: string,
  uri: string,
  opts: { readonly?: boolean; create?: boolean },
): Promise<LgStore & { db: BetterSqlite3.Database }> {
  const { default: Database } = await import("better-sqlite3");
  let db: BetterSqlite3.Database;
  try {
    if (opts.readonly || !opts.create) {
      if (!existsSync(path)) throw new Error("no such file");
      db = opts.readonly ? await openSqliteReadOnly(path) : new Database(path, { fileMustExist: true });
    } else {
      mkdirSync(dirname(path), { recursive: true });
      db = new Database(path);
    }
    db.pragma("busy_timeout = 5000");
  } catch (e) {
    throw sqliteOpenError(e, path, "cannot open the LangGraph SQLite store");
  }
  const wrap: Wrap = (what, f) => {
    try {
      return f();
    } catch (e) {
      if ((e as { exitCode?: number }).exitCode !== undefined) throw e;
      throw storeError("sqlite-io", `${what} (${uri}): ${(e as Error).message}`);
    }
  };
  const hasLayout = () =>
    (
      db
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type='table' AND name IN ('checkpoints','writes')")
        .get() as { n: number }
    ).n === 2;

  const store: LgStore & { db: BetterSqlite3.Database } = {
    kind: "sqlite",
    uri,
    db,
    hasLayout: async () => hasLayout(),
    async library() {
      if (!hasLayout()) return undefined;
      const r = db.prepare("SELECT * FROM checkpoints LIMIT 1").get() as CpRow | undefined;
      return r ? libraryOf(toCheckpoint(r), "js") : undefined;
    },
    async setup() {
      wrap("creating the LangGraph tables", () => db.exec(SQLITE_SETUP));
    },
    count: async () =>
      hasLayout() ? (db.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n : 0,
    scan: (batchSize, threads) => scanSqlite(db, wrap, batchSize, threads),
    async load(keys) {
      const out = new Map<string, LgCheckpoint>();
      if (!hasLayout()) return out;
      const get = db.prepare(
        "SELECT * FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
      );
      const ws = db.prepare(
        "SELECT * FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx",
      );
      wrap("reading checkpoints", () => {
        for (const k of keys) {
          const r = get.get(k.threadId, k.ns, k.id) as CpRow | undefined;
          if (!r) continue;
          const cp = toCheckpoint(r);
          cp.writes = (ws.all(k.threadId, k.ns, k.id) as WRow[]).map(toWrite);
          out.set(keyOf(k), cp);
        }
      });
      return out;
    },
    write: async (cps, o: WriteOptions) => writeSqlite(db, wrap, cps, o),
    async readBack(keys) {
      const got = await store.load(keys, "js");
      const out = new Map<string, string>();
      for (const [k, cp] of got) out.set(k, sqliteForm(cp));
      return out;
    },
    stage: () => undefined,
    stagedForm: (cp) => sqliteForm(cp),
    sameForm: (a, b) => a === b,
    threadPage: async (after, limit) =>
      hasLayout() ? wrap("listing threads", () => sqliteThreadPage(db, after, limit)) : [],
    heads: async (threads) => wrap("reading checkpoints", () => sqliteHeads(db, threads)),
    prunePage: async (threads, plan, o) => wrap("pruning", () => sqlitePrunePage(db, threads, plan, o)),
    close: async () => void db.close(),
  };
  return store;
}

/** A checkpoint's SQLite rows as one comparable string (bytes as hex). */
function sqliteForm(cp: LgCheckpoint): string {
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  const ws = [...cp.writes].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx));
  return JSON.stringify([
    cp.parentId,
    cp.type,
    hex(cp.checkpoint),
    textOf(cp.metadata),
    ws.map((w) => [w.taskId, w.idx, w.channel, w.type, hex(w.value)]),
  ]);
}

/** Hang each write on its checkpoint (writes of checkpoints outside the batch — orphans — are dropped). */
export function attachWrites(cps: LgCheckpoint[], writes: ReadonlyArray<readonly [string, LgWrite]>): LgCheckpoint[] {
  const by = new Map<string, LgCheckpoint>();
  for (const c of cps) by.set(keyOf(c), c);
  for (const [k, w] of writes) by.get(k)?.writes.push(w);
  return cps;
}

export type { CheckpointKey, Library };
