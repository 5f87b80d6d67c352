/** Comparison of checkpoint state: todos by id, files with unified diffs, scratchpad notes, contexts. Pure. */
import type { FileData, ScratchpadNote, TodoItem } from "../../generated/types.js";
import { alignBy, allAnchors } from "./align.js";
import { escapeToken, fieldChanges } from "./fields.js";
import { isObject, jsonEqual, stableJson } from "./stable.js";
import { linesPatch, textDiff } from "./text.js";
import type { Change, ContextChange, FileChange, ScratchpadChange, TodoChange } from "./types.js";

/** Todos matched by id; a status change is called out ("todo 2 pending → completed"). */
export function diffTodos(a: readonly TodoItem[], b: readonly TodoItem[]): TodoChange[] {
  const { al, ha, hb } = alignBy(a, b, stableJson, (t) => `id:${String(t.id)}`);
  const out: Array<{ pos: number; c: TodoChange }> = [];
  const pair = (i: number, j: number, moved: boolean) => {
    if (ha[i] === hb[j] && !moved) return;
    const x = a[i]!;
    const y = b[j]!;
    const { status: sx, ...rx } = x;
    const { status: sy, ...ry } = y;
    const fields = fieldChanges(rx, ry, `/state/todos/${j}`);
    const c: TodoChange = {
      kind: "todo",
      op: sx !== sy ? "status" : "edited",
      id: String(y.id),
      content: String(y.content),
    };
    if (sx !== sy) Object.assign(c, { before: sx, after: sy });
    if (fields.length) c.fields = fields;
    if (moved && ha[i] === hb[j])
      c.fields = [{ pointer: `/state/todos/${j}`, before: `position ${i + 1}`, after: `position ${j + 1}` }];
    out.push({ pos: j, c });
  };
  for (const [i, j] of allAnchors(al)) pair(i, j, false);
  for (const [i, j] of al.moved) pair(i, j, true);
  for (const i of al.removed)
    out.push({
      pos: i - 0.5,
      c: { kind: "todo", op: "removed", id: String(a[i]!.id), content: String(a[i]!.content), before: a[i]!.status },
    });
  for (const j of al.inserted)
    out.push({
      pos: j,
      c: { kind: "todo", op: "added", id: String(b[j]!.id), content: String(b[j]!.content), after: b[j]!.status },
    });
  out.sort((x, y) => x.pos - y.pos);
  return out.map((x) => x.c);
}

/** Files by path: a unified diff of the content lines and the metadata changes. */
export function diffFiles(a: Record<string, FileData>, b: Record<string, FileData>): FileChange[] {
  const out: FileChange[] = [];
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const path of paths) {
    const x = a[path];
    const y = b[path];
    const base = `/state/files/${escapeToken(path)}`;
    const lines = (f: FileData | undefined) => (f && Array.isArray(f.content) ? f.content.map(String) : []);
    if (x && y && jsonEqual(x, y)) continue;
    const p = linesPatch(path.startsWith("/") ? path : `/${path}`, lines(x), lines(y));
    const c: FileChange = { kind: "file", op: !x ? "added" : !y ? "removed" : "edited", path, ...p };
    if (x && y) {
      const { content: _a, ...rx } = x;
      const { content: _b, ...ry } = y;
      const f = fieldChanges(rx, ry, base);
      if (!Array.isArray(x.content) || !Array.isArray(y.content))
        fieldChanges(x.content, y.content, `${base}/content`, f);
      if (f.length) c.fields = f;
    }
    out.push(c);
  }
  return out;
}

/** Scratchpad notes matched by heading (and thread), in file order. */
export function diffScratchpad(a: readonly ScratchpadNote[], b: readonly ScratchpadNote[]): ScratchpadChange[] {
  const { al, ha, hb } = alignBy(a, b, stableJson, (n) => `${n.heading}\u0000${String(n.thread ?? "")}`);
  const out: Array<{ pos: number; c: ScratchpadChange }> = [];
  const pair = (i: number, j: number, moved: boolean) => {
    if (ha[i] === hb[j] && !moved) return;
    const x = a[i]!;
    const y = b[j]!;
    const c: ScratchpadChange = { kind: "scratchpad", op: moved ? "moved" : "edited", heading: y.heading, a: i, b: j };
    if (x.content !== y.content) c.text = textDiff(String(x.content), String(y.content));
    const { content: _x, ...rx } = x;
    const { content: _y, ...ry } = y;
    const f = fieldChanges(rx, ry, `/state/scratchpad/${j}`);
    if (f.length) c.fields = f;
    out.push({ pos: j, c });
  };
  for (const [i, j] of allAnchors(al)) pair(i, j, false);
  for (const [i, j] of al.moved) pair(i, j, true);
  for (const i of al.removed)
    out.push({ pos: i - 0.5, c: { kind: "scratchpad", op: "removed", heading: a[i]!.heading, a: i } });
  for (const j of al.inserted)
    out.push({ pos: j, c: { kind: "scratchpad", op: "added", heading: b[j]!.heading, b: j } });
  out.sort((x, y) => x.pos - y.pos);
  return out.map((x) => x.c);
}

/** Swarmer contexts by class name. */
export function diffContexts(a: Record<string, unknown>, b: Record<string, unknown>): ContextChange[] {
  const out: ContextChange[] = [];
  for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
    const x = a[name];
    const y = b[name];
    if (x === undefined) out.push({ kind: "context", op: "added", name });
    else if (y === undefined) out.push({ kind: "context", op: "removed", name });
    else if (!jsonEqual(x, y))
      out.push({
        kind: "context",
        op: "edited",
        name,
        fields: fieldChanges(x, y, `/state/contexts/${escapeToken(name)}`),
      });
  }
  return out;
}

/** All state changes: the four known keys get their own records; any other key is compared field by field. */
export function diffState(a: Record<string, unknown>, b: Record<string, unknown>): Change[] {
  const out: Change[] = [];
  const arr = <T>(v: unknown) => (Array.isArray(v) ? (v as T[]) : []);
  const obj = <T>(v: unknown) => (isObject(v) ? (v as Record<string, T>) : {});
  const known = (k: string, ok: (v: unknown) => boolean) =>
    (a[k] === undefined || ok(a[k])) && (b[k] === undefined || ok(b[k]));
  const handled = new Set<string>();
  if (known("todos", Array.isArray)) {
    handled.add("todos");
    out.push(...diffTodos(arr(a.todos), arr(b.todos)));
  }
  if (known("files", isObject)) {
    handled.add("files");
    out.push(...diffFiles(obj(a.files), obj(b.files)));
  }
  if (known("scratchpad", Array.isArray)) {
    handled.add("scratchpad");
    out.push(...diffScratchpad(arr(a.scratchpad), arr(b.scratchpad)));
  }
  if (known("contexts", isObject)) {
    handled.add("contexts");
    out.push(...diffContexts(obj(a.contexts), obj(b.contexts)));
  }
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
    if (handled.has(k)) {
      // present on one side only and empty there: no item changed, but the key did
      const x = a[k];
      const y = b[k];
      const empty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);
      if ((x === undefined) !== (y === undefined) && empty(x ?? y))
        out.push({ kind: "field", pointer: `/state/${k}`, ...(x === undefined ? { after: y } : { before: x }) });
      continue;
    }
    for (const f of fieldChanges(a[k], b[k], `/state/${escapeToken(k)}`)) out.push({ kind: "field", ...f });
  }
  return out;
}
