/**
 * Sequence alignment by identity, linear in the usual cases: the common prefix and suffix (equal items) are
 * trimmed first; in the middle, keys that occur once on each side are matched with a hash map and a longest
 * increasing subsequence over their positions separates the items that kept their relative order (anchors) from
 * the minimal set that moved (as in patience diff); repeated keys are then matched inside each gap between
 * anchors (k-th occurrence with k-th occurrence, again split by an LIS). Pure.
 */

/** What makes two items "the same item": any string or number (compared as Map keys). */
export type Key = string | number;

/** How the items of two sequences relate. Everything except `pre`/`suf` concerns the middle only. */
export interface Alignment {
  /** a[0..pre) equals b[0..pre) */
  pre: number;
  /** the last `suf` items of a equal the last `suf` items of b */
  suf: number;
  n: number;
  m: number;
  /** middle pairs [indexA, indexB] matched by key that kept their relative order, ascending (may differ in content) */
  anchors: Array<[number, number]>;
  /** middle pairs matched by key but out of order (the minimal set: everything not on the LIS) */
  moved: Array<[number, number]>;
  /** indices into a with no partner */
  removed: number[];
  /** indices into b with no partner */
  inserted: number[];
}

/**
 * Align sequences of lengths `n` and `m`. `eq(i, j)` tells whether a[i] and b[j] are identical (used for the
 * prefix/suffix trim); `keyA`/`keyB` give what makes two items "the same item" even when edited (an id, or the
 * content) and are asked for only for the middle items.
 */
export function align(
  n: number,
  m: number,
  eq: (i: number, j: number) => boolean,
  keyA: (i: number) => Key,
  keyB: (j: number) => Key,
): Alignment {
  let pre = 0;
  while (pre < n && pre < m && eq(pre, pre)) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && eq(n - 1 - suf, m - 1 - suf)) suf++;

  // 1. keys that occur exactly once on each side are matched; an LIS over them gives the in-order anchors
  const keysA: Key[] = new Array(Math.max(0, n - suf - pre));
  const keysB: Key[] = new Array(Math.max(0, m - suf - pre));
  const onceA = new Map<Key, number>(); // key → its index, or −1 when repeated
  const onceB = new Map<Key, number>();
  for (let i = pre; i < n - suf; i++) {
    const k = (keysA[i - pre] = keyA(i));
    onceA.set(k, onceA.has(k) ? -1 : i);
  }
  for (let j = pre; j < m - suf; j++) {
    const k = (keysB[j - pre] = keyB(j));
    onceB.set(k, onceB.has(k) ? -1 : j);
  }
  const usedA = new Uint8Array(n);
  const usedB = new Uint8Array(m);
  const unique: Array<[number, number]> = [];
  for (let j = pre; j < m - suf; j++) {
    const k = keysB[j - pre]!;
    const i = onceA.get(k);
    if (i !== undefined && i >= 0 && onceB.get(k) === j) unique.push([i, j]);
  }
  const anchors: Array<[number, number]> = [];
  const moved: Array<[number, number]> = [];
  splitByLis(unique, anchors, moved, usedA, usedB);

  // 2. the rest (repeated keys) are matched inside each gap between anchors, k-th occurrence with k-th occurrence
  const fence = [[pre - 1, pre - 1] as [number, number], ...anchors, [n - suf, m - suf] as [number, number]];
  const gapPairs: Array<[number, number]> = [];
  for (let g = 0; g + 1 < fence.length; g++) {
    const [a0, b0] = fence[g]!;
    const [a1, b1] = fence[g + 1]!;
    if (a1 - a0 <= 1 || b1 - b0 <= 1) continue;
    const queues = new Map<Key, number[]>();
    for (let i = a0 + 1; i < a1; i++) {
      if (usedA[i]) continue;
      const k = keysA[i - pre]!;
      const q = queues.get(k);
      if (q) q.push(i);
      else queues.set(k, [i]);
    }
    if (queues.size === 0) continue;
    const pairs: Array<[number, number]> = [];
    for (let j = b0 + 1; j < b1; j++) {
      if (usedB[j]) continue;
      const q = queues.get(keysB[j - pre]!);
      if (q?.length) pairs.push([q.shift()!, j]);
    }
    splitByLis(pairs, gapPairs, moved, usedA, usedB);
  }
  if (gapPairs.length) {
    anchors.push(...gapPairs);
    anchors.sort((x, y) => x[0] - y[0]);
  }
  moved.sort((x, y) => x[1] - y[1]);
  const removed: number[] = [];
  for (let i = pre; i < n - suf; i++) if (!usedA[i]) removed.push(i);
  const inserted: number[] = [];
  for (let j = pre; j < m - suf; j++) if (!usedB[j]) inserted.push(j);
  return { pre, suf, n, m, anchors, moved, removed, inserted };
}

/** Pairs (ascending in b) on one LIS of their a indices go to `inOrder`, the others to `moved`; all are marked used. */
function splitByLis(
  pairs: Array<[number, number]>,
  inOrder: Array<[number, number]>,
  moved: Array<[number, number]>,
  usedA: Uint8Array,
  usedB: Uint8Array,
): void {
  const onLis = lis(pairs.map((p) => p[0]));
  for (let t = 0; t < pairs.length; t++) {
    const p = pairs[t]!;
    (onLis[t] ? inOrder : moved).push(p);
    usedA[p[0]] = 1;
    usedB[p[1]] = 1;
  }
}

/** Align two arrays of small items by structural text (`hash`) and a key (default: the hash). */
export function alignBy<T>(
  a: readonly T[],
  b: readonly T[],
  hash: (x: T) => string,
  key?: (x: T, h: string) => string,
): { al: Alignment; ha: string[]; hb: string[] } {
  const ha = a.map(hash);
  const hb = b.map(hash);
  const al = align(
    a.length,
    b.length,
    (i, j) => ha[i] === hb[j],
    key ? (i) => key(a[i]!, ha[i]!) : (i) => ha[i]!,
    key ? (j) => key(b[j]!, hb[j]!) : (j) => hb[j]!,
  );
  return { al, ha, hb };
}

/** All in-order pairs: the prefix, the middle anchors and the suffix, ascending. */
export function allAnchors(al: Alignment): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < al.pre; i++) out.push([i, i]);
  out.push(...al.anchors);
  for (let s = al.suf; s > 0; s--) out.push([al.n - s, al.m - s]);
  return out;
}

/** Marks the members of one longest strictly increasing subsequence of `xs` (patience sorting, O(n log n)). */
export function lis(xs: readonly number[]): Uint8Array {
  const out = new Uint8Array(xs.length);
  if (xs.length === 0) return out;
  const prev = new Int32Array(xs.length).fill(-1);
  for (let i = patience(xs, prev); i >= 0; i = prev[i]!) out[i] = 1;
  return out;
}

/**
 * The patience pass of `lis`: links each element to its predecessor on the best subsequence ending there (`prev`)
 * and returns where the longest one ends. Its own function, with nothing after the loop but the return: V8 compiles
 * a long first run's loop on the fly (OSR) and keeps that code for later calls, which then enter it too; code after
 * the loop that had not run yet when it was compiled made every later call fall back to the interpreter there (a
 * diff of two 20,000-message files did so about 300 times).
 */
function patience(xs: readonly number[], prev: Int32Array): number {
  const tailIdx: number[] = [];
  let last = -1;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    let lo = 0;
    let hi = tailIdx.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tailIdx[mid]!]! < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tailIdx[lo - 1]!;
    if (lo >= tailIdx.length - 1) last = i; // the new last tail, appended or replaced (as tailIdx[length - 1] at the end)
    tailIdx[lo] = i;
  }
  return last;
}
