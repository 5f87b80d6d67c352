/**
 * PostgreSQL array literals for text[] parameters, written out once per array. node-postgres turns a JS array into
 * a literal element by element, quoting and escaping each (two regex replaces and a few string concatenations per
 * element): for the thousands of keys a batch's read-back sends that is most of the cost of the query on this side.
 * Here an element of plain characters goes as it is, others quoted (backslash and double quote escaped), null as
 * NULL; the server reads the same array.
 */

/** Characters an unquoted element may hold (no space, quote, backslash, brace or comma; never empty). */
const PLAIN = /^[\w.:~@+\-/|#=]+$/;

function element(s: string): string {
  if (PLAIN.test(s) && (s.length !== 4 || !/^null$/i.test(s))) return s;
  return '"' + (/["\\]/.test(s) ? s.replace(/["\\]/g, "\\$&") : s) + '"';
}

/** The literal of a text[] (pass it as the parameter of `$n::text[]`). */
export function textArray(values: ReadonlyArray<string | null>): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = v === null || v === undefined ? "NULL" : element(v);
  }
  return "{" + parts.join(",") + "}";
}
