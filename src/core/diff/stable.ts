/**
 * Stable JSON text (sorted object keys, bigints as digits) and structural equality — the identity of a value
 * for alignment and change detection. Pure.
 */

/** Canonical text of a JSON value: object keys sorted, no whitespace, bigints written as their digits. */
export function stableJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
    case "boolean":
      return JSON.stringify(v);
    case "bigint":
      return v.toString();
    case "object": {
      if (Array.isArray(v)) {
        let s = "[";
        for (let i = 0; i < v.length; i++) s += (i ? "," : "") + stableJson(v[i]);
        return s + "]";
      }
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort();
      let s = "{";
      for (let i = 0; i < keys.length; i++)
        s += (i ? "," : "") + JSON.stringify(keys[i]) + ":" + stableJson(o[keys[i]!]);
      return s + "}";
    }
    default:
      return "null";
  }
}

/** Structural equality of two JSON values (object key order ignored; a bigint equals the number with the same value). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    if (typeof a === "bigint" || typeof b === "bigint") {
      return (
        (typeof a === "bigint" || typeof a === "number") &&
        (typeof b === "bigint" || typeof b === "number") &&
        String(a) === String(b)
      );
    }
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      const w = b[i];
      if (v !== w && !jsonEqual(v, w)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // for-in walks the objects without allocating key arrays; undefined values count as absent
  let na = 0;
  for (const k in ao) {
    const v = ao[k];
    if (v === undefined) continue;
    na++;
    const w = bo[k];
    if (v !== w && !jsonEqual(v, w)) return false;
  }
  // every defined value of a is in b: equal when b has no other defined value (counting keys alone settles the
  // usual case, no undefined anywhere)
  let nb = 0;
  for (const _k in bo) nb++;
  if (nb === na) return true;
  nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** Is `v` a plain JSON object (not an array, not null)? */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
