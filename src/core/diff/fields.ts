/**
 * Generic structural difference between two JSON values as leaf-level field changes (objects recursed by key,
 * arrays of equal length recursed by index, anything else replaced whole). Pure.
 */
import { isObject, jsonEqual } from "./stable.js";

/** One changed value. `before` absent = added; `after` absent = removed. */
export interface FieldChange {
  /** RFC 6901 pointer into the canonical document */
  pointer: string;
  before?: unknown;
  after?: unknown;
}

/** Escape one RFC 6901 reference token. */
export function escapeToken(k: string | number): string {
  return String(k).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Append the changes turning `a` into `b` (at `pointer`) to `out`. `undefined` means "absent". */
export function fieldChanges(a: unknown, b: unknown, pointer: string, out: FieldChange[] = []): FieldChange[] {
  if (a === undefined && b === undefined) return out;
  if (a === undefined) {
    out.push({ pointer, after: b });
    return out;
  }
  if (b === undefined) {
    out.push({ pointer, before: a });
    return out;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) fieldChanges(a[k], b[k], `${pointer}/${escapeToken(k)}`, out);
    for (const k of Object.keys(b))
      if (a[k] === undefined && b[k] !== undefined) out.push({ pointer: `${pointer}/${escapeToken(k)}`, after: b[k] });
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) fieldChanges(a[i], b[i], `${pointer}/${i}`, out);
    return out;
  }
  if (!jsonEqual(a, b)) out.push({ pointer, before: a, after: b });
  return out;
}
