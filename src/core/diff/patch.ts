/**
 * RFC 6902 JSON Patch between two canonical checkpoints: applied to the first, it yields the second. Messages are
 * patched structurally (remove, add, move, then field-level edits of matched messages) so one inserted message is
 * one operation, not thousands. Pure.
 */
import type { AgentMessage } from "../../generated/types.js";
import { fieldChanges, type FieldChange } from "./fields.js";

export type PatchOp =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown }
  | { op: "move"; from: string; path: string };

/** Field changes → patch operations. */
export function fieldOps(changes: readonly FieldChange[], out: PatchOp[] = []): PatchOp[] {
  for (const c of changes) {
    if (c.before === undefined) out.push({ op: "add", path: c.pointer, value: c.after });
    else if (c.after === undefined) out.push({ op: "remove", path: c.pointer });
    else out.push({ op: "replace", path: c.pointer, value: c.after });
  }
  return out;
}

/**
 * The patch turning message list `a` into `b`, given for each b index its source index in a (−1 = new) and the
 * set of b indices whose message moved (out of order with the rest). Three passes: remove what is gone (from the
 * end), move each moved message to just after its predecessor in b (one `move` each), add the new ones in b
 * order; then field-level edits of the kept messages that changed.
 */
export function messagesPatch(a: readonly AgentMessage[], b: readonly AgentMessage[], sourceOf: Int32Array, movedB: ReadonlySet<number>): PatchOp[] {
  const ops: PatchOp[] = [];
  const kept = new Uint8Array(a.length);
  for (let j = 0; j < b.length; j++) if (sourceOf[j]! >= 0) kept[sourceOf[j]!] = 1;
  for (let i = a.length - 1; i >= 0; i--) if (!kept[i]) ops.push({ op: "remove", path: `/messages/${i}` });
  const cur: number[] = [];
  for (let i = 0; i < a.length; i++) if (kept[i]) cur.push(i);
  let pred = -1; // source index of the previous kept message in b order
  for (let j = 0; j < b.length; j++) {
    const src = sourceOf[j]!;
    if (src < 0) continue;
    if (movedB.has(j)) {
      const from = cur.indexOf(src);
      cur.splice(from, 1);
      const to = pred < 0 ? 0 : cur.indexOf(pred) + 1;
      cur.splice(to, 0, src);
      if (from !== to) ops.push({ op: "move", from: `/messages/${from}`, path: `/messages/${to}` });
    }
    pred = src;
  }
  for (let j = 0; j < b.length; j++) {
    if (sourceOf[j]! >= 0) continue;
    ops.push({ op: "add", path: j === cur.length ? "/messages/-" : `/messages/${j}`, value: b[j] });
    cur.splice(j, 0, -1);
  }
  for (let j = 0; j < b.length; j++) {
    const src = sourceOf[j]!;
    if (src >= 0 && a[src] !== b[j]) fieldOps(fieldChanges(a[src], b[j], `/messages/${j}`), ops);
  }
  return ops;
}
