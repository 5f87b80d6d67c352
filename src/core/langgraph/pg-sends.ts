/**
 * v<4 checkpoints into PostgreSQL (LANGGRAPH.md §1.3, §2.2). Before checkpoint v4 (Python langgraph ≤ 0.4, 2025-05)
 * a checkpoint carried `pending_sends`: the Send packets its parent's tasks wrote, which the parent also holds as its
 * `__pregel_tasks` pending writes. Python's SqliteSaver keeps them in the checkpoint (msgpack Send objects, EXT 1);
 * Python's PostgresSaver never did: it wrote the checkpoint JSONB with `pending_sends: []` (`_dump_checkpoint`,
 * checkpoint-postgres ≤ 2.0) and reads v<4 checkpoints with the parent's `__pregel_tasks` writes as the value of the
 * `__pregel_tasks` channel (`_migrate_pending_sends`, py:pg/base.py:355-373), which Pregel uses for a v<4 checkpoint
 * with no `pending_sends` of its own (py:lg/pregel/main.py:1138-1140). JSONB cannot hold the Send objects anyway.
 *
 * A migration into PostgreSQL does what that saver does: a v<4 msgpack checkpoint whose `pending_sends` are its
 * parent's `__pregel_tasks` writes (the same packets, as stored) is written with `pending_sends: []`, the writes
 * carrying them as they do in the source. One whose sends are not its parent's writes (the parent pruned, or its
 * writes lost) is refused with that reason: the PostgreSQL layout has nowhere else to keep them. Pure.
 */
import { inputError } from "../../base/errors.js";
import { arrayItems, buildMap, decodePlain, mapEntries } from "../../formats/langgraph/msgpack.js";
import type { LgCheckpoint } from "../../formats/langgraph/rows.js";

const TASKS = "__pregel_tasks";
const EMPTY_ARRAY = Uint8Array.of(0x90);
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

/**
 * A mover for one migration: feed it every checkpoint in (thread, namespace, id) order (those a resumed run skips
 * too); it returns the checkpoint as PostgreSQL's saver would have written it, or throws why it cannot be.
 */
export function createSendsMover(): (cp: LgCheckpoint) => LgCheckpoint {
  let scope = "";
  /** checkpoint id → its `__pregel_tasks` writes (msgpack bytes, hex), of the (thread, namespace) being read */
  let tasks = new Map<string, string[]>();
  return (cp) => {
    const sc = `${cp.threadId}\u0000${cp.ns}`;
    if (sc !== scope) [scope, tasks] = [sc, new Map()];
    const sends = cp.writes.filter((w) => w.channel === TASKS);
    if (sends.length) tasks.set(cp.id, sends.map((w) => `${w.type}:${hex(w.value)}`).sort());
    if (cp.type !== "msgpack") return cp; // JSON Sends are JSONB values: written as they are
    const entries = mapEntries(cp.checkpoint);
    const raw = (k: string) => entries.find((e) => e[0] === k)?.[1];
    const v = raw("v") ? decodePlain(raw("v")!) : undefined;
    const ps = raw("pending_sends");
    const items = typeof v === "number" && v < 4 && ps ? arrayItems(ps) : undefined;
    if (!items?.length) return cp;
    const theirs = cp.parentId ? tasks.get(cp.parentId) : undefined;
    const mine = items.map((b) => `msgpack:${hex(b)}`).sort();
    if (!theirs || theirs.length !== mine.length || theirs.some((x, i) => x !== mine[i]))
      throw inputError(
        "langgraph-pending-sends",
        `its pending_sends (${items.length} Send${items.length === 1 ? "" : "s"}, checkpoint v${v}) are not the ${TASKS} writes of its parent checkpoint ${cp.parentId ?? "(none)"}${theirs ? ` (${theirs.length} there, other packets)` : " (it has none)"}: LangGraph's PostgresSaver keeps a v<4 checkpoint's sends only as those writes (its JSONB holds pending_sends: []), so PostgreSQL has nowhere to keep them`,
      );
    return { ...cp, checkpoint: buildMap(entries.map(([k, b]) => [k, k === "pending_sends" ? EMPTY_ARRAY : b])) };
  };
}
