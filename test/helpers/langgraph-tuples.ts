/**
 * Test-only: every checkpoint tuple of a LangGraph SQLite file (a copy of a fixture), decoded with ckpt's serde
 * (src/formats/langgraph/serde.ts) into the tuple document of src/formats/langgraph/types.ts. Deliberately simple
 * (one query per table, all in memory): the store reader proper lives in src/savers/.
 */
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { decodeMetadata, decodeTyped, detectLibrary } from "../../src/formats/langgraph/serde.js";
import type {
  LgCheckpoint,
  LgDecodeIssue,
  LgPendingWrite,
  LgTupleDocument,
} from "../../src/formats/langgraph/types.js";

export const LG_FIXTURES = join(__dirname, "..", "..", "fixtures", "langgraph");

/** A private copy of a fixture (WAL-mode files get -shm/-wal beside them when opened). */
export function copyFixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "lg-fix-"));
  const to = join(dir, basename(name));
  copyFileSync(join(LG_FIXTURES, name), to);
  return to;
}

export function sqliteTuples(path: string): LgTupleDocument[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const cps = db.prepare("SELECT * FROM checkpoints ORDER BY thread_id, checkpoint_ns, checkpoint_id").all() as Array<
      Record<string, any>
    >;
    const ws = db
      .prepare("SELECT * FROM writes ORDER BY thread_id, checkpoint_ns, checkpoint_id, task_id, idx")
      .all() as Array<Record<string, any>>;
    const byCp = new Map<string, Array<Record<string, any>>>();
    for (const w of ws) {
      const k = `${w.thread_id}\0${w.checkpoint_ns}\0${w.checkpoint_id}`;
      (byCp.get(k) ?? byCp.set(k, []).get(k)!).push(w);
    }
    return cps.map((r) => {
      const issues: LgDecodeIssue[] = [];
      const row = {
        store: "sqlite" as const,
        table: "checkpoints",
        threadId: r.thread_id,
        namespace: r.checkpoint_ns,
        checkpointId: r.checkpoint_id,
      };
      const checkpoint = decodeTyped(r.type, r.checkpoint, { row, pointer: "/checkpoint", issues }) as LgCheckpoint;
      const metadata = decodeMetadata(r.type, r.metadata, { row, pointer: "/metadata", issues }) as Record<
        string,
        unknown
      >;
      const writes = byCp.get(`${r.thread_id}\0${r.checkpoint_ns}\0${r.checkpoint_id}`) ?? [];
      const pendingWrites: LgPendingWrite[] = writes.map((w, i) => ({
        taskId: w.task_id,
        idx: w.idx,
        channel: w.channel,
        type: w.type,
        value: decodeTyped(w.type, w.value, {
          row: { ...row, table: "writes" },
          pointer: `/pendingWrites/${i}/value`,
          issues,
        }),
        bytes: w.value ? w.value.length : 0,
      }));
      return {
        format: "langgraph",
        formatVersion: 1,
        store: `sqlite:${basename(path)}`,
        threadId: r.thread_id,
        namespace: r.checkpoint_ns,
        checkpointId: r.checkpoint_id,
        parentId: r.parent_checkpoint_id ?? null,
        checkpoint,
        metadata,
        pendingWrites,
        library: detectLibrary(checkpoint, [r.type, ...writes.map((w) => w.type)]),
        serde: { checkpoint: r.type, metadata: r.type },
        bytes: (r.checkpoint?.length ?? 0) + (r.metadata?.length ?? 0),
        row,
        ...(issues.length ? { issues } : {}),
      } as LgTupleDocument;
    });
  } finally {
    db.close();
  }
}
