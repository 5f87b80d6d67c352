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
 * The patch turning message list `a` (length `n`, compared forms `at(i)`) into `b` (length `m`, `bt(j)`), given for
 * each b index its source index in a (−1 = new), the set of b indices whose message moved (out of order with the
 * rest) and which b messages are identical to their source (`same`, optional: those need no field-level walk).
 * Three passes: remove what is gone (from the end), move each moved message to just after its predecessor in b
 * (one `move` each), add the new ones in b order; then field-level edits of the kept messages that changed.
 */
export function messagesPatch(
  n: number,
  m: number,
  at: (i: number) => AgentMessage,
  bt: (j: number) => AgentMessage,
  sourceOf: Int32Array,
  movedB: ReadonlySet<number>,
  same?: Uint8Array,
): PatchOp[] {
  const ops: PatchOp[] = [];
  const kept = new Uint8Array(n);
  for (let j = 0; j < m; j++) if (sourceOf[j]! >= 0) kept[sourceOf[j]!] = 1;
  for (let i = n - 1; i >= 0; i--) if (!kept[i]) ops.push({ op: "remove", path: `/messages/${i}` });
  const cur: number[] = [];
  for (let i = 0; i < n; i++) if (kept[i]) cur.push(i);
  let pred = -1; // source index of the previous kept message in b order
  for (let j = 0; j < m; j++) {
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
  for (let j = 0; j < m; j++) {
    if (sourceOf[j]! >= 0) continue;
    ops.push({ op: "add", path: j === cur.length ? "/messages/-" : `/messages/${j}`, value: bt(j) });
    cur.splice(j, 0, -1);
  }
  for (let j = 0; j < m; j++) {
    const src = sourceOf[j]!;
    if (src < 0 || same?.[j]) continue;
    const x = at(src);
    const y = bt(j);
    if (x !== y) fieldOps(fieldChanges(x, y, `/messages/${j}`), ops);
  }
  return ops;
}
