/**
 * "Did you mean": candidates ordered by how close they are to what was written (edit distance, case-insensitive,
 * ties in the given order) — for unknown tags, names and flags.
 */

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_x, i) =>
    Array.from({ length: n + 1 }, (_y, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[m]![n]!;
}

/** The candidates, nearest to `value` first (stable for equal distances). */
export function nearestFirst(value: string, candidates: readonly string[]): string[] {
  const v = value.toLowerCase();
  return candidates
    .map((c, i) => ({ c, i, d: editDistance(v, c.toLowerCase()) }))
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .map((x) => x.c);
}

/** The nearest candidate when it is plausibly a typo of `value` (at most a third of its letters differ). */
export function didYouMean(value: string, candidates: readonly string[]): string | undefined {
  const best = nearestFirst(value, candidates)[0];
  if (best === undefined) return undefined;
  return editDistance(value.toLowerCase(), best.toLowerCase()) <= Math.max(1, Math.floor(best.length / 3))
    ? best
    : undefined;
}
