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
  const { pre, suf } = trim(n, m, eq);
  // the keys are numbered (equal keys, equal numbers): the matching below works on arrays of integers
  const ids = new Map<Key, number>();
  const number = (k: Key): number => {
    let id = ids.get(k);
    if (id === undefined) ids.set(k, (id = ids.size));
    return id;
  };
  const idsA = new Int32Array(Math.max(0, n - suf - pre));
  const idsB = new Int32Array(Math.max(0, m - suf - pre));
  for (let i = 0; i < idsA.length; i++) idsA[i] = number(keyA(pre + i));
  for (let j = 0; j < idsB.length; j++) idsB[j] = number(keyB(pre + j));
  return alignMiddle(pre, suf, n, m, idsA, idsB, ids.size);
}

/** The common prefix and suffix of two sequences of lengths `n` and `m` (items equal by `eq`), not overlapping. */
export function trim(n: number, m: number, eq: (i: number, j: number) => boolean): { pre: number; suf: number } {
  let pre = 0;
  while (pre < n && pre < m && eq(pre, pre)) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && eq(n - 1 - suf, m - 1 - suf)) suf++;
  return { pre, suf };
}

/**
 * `align` once the prefix and suffix are known and the middle items' keys are numbered: `idsA[k]` is the key of
 * a[pre + k] (and `idsB` likewise), each in [0, `count`); equal keys have equal numbers.
 */
export function alignMiddle(
  pre: number,
  suf: number,
  n: number,
  m: number,
  idsA: Int32Array,
  idsB: Int32Array,
  count: number,
): Alignment {
  // 1. keys that occur exactly once on each side are matched; an LIS over them gives the in-order anchors
  const onceA = onceIndex(idsA, pre, count); // key → its index, −1 when repeated, −2 when absent
  const onceB = onceIndex(idsB, pre, count);
  const usedA = new Uint8Array(n);
  const usedB = new Uint8Array(m);
  const anchors: Array<[number, number]> = [];
  const moved: Array<[number, number]> = [];
  const unique = uniquePairs(pre, idsB, onceA, onceB);
  splitColumns(unique.ia, unique.jb, anchors, moved, usedA, usedB);

  // 2. the rest (repeated keys) are matched inside each gap between anchors, k-th occurrence with k-th occurrence;
  // only a key repeated on one side and present on the other can pair anything there
  const gapPairs = sharedRepeat(onceA, onceB)
    ? matchInGaps(pre, suf, n, m, idsA, idsB, anchors, moved, usedA, usedB)
    : [];
  if (gapPairs.length) {
    anchors.push(...gapPairs);
    anchors.sort((x, y) => x[0] - y[0]);
  }
  moved.sort((x, y) => x[1] - y[1]);
  return {
    pre,
    suf,
    n,
    m,
    anchors,
    moved,
    removed: unused(usedA, pre, n - suf),
    inserted: unused(usedB, pre, m - suf),
  };
}

// The loops over every middle item are functions of their own, each with nothing after its loop: V8 compiles a
// long loop on the fly (OSR), and code after it that had not run yet when it was compiled sends the function back
// to the interpreter there (see `patience`).

/** The pairs (i, j) of items whose key occurs once on each side, ascending in j, as two columns. */
function uniquePairs(
  pre: number,
  idsB: Int32Array,
  onceA: Int32Array,
  onceB: Int32Array,
): { ia: Int32Array; jb: Int32Array } {
  const ia = new Int32Array(idsB.length);
  const jb = new Int32Array(idsB.length);
  let t = 0;
  for (let k = 0; k < idsB.length; k++) {
    const id = idsB[k]!;
    const i = onceA[id]!;
    if (i >= 0 && onceB[id] === pre + k) {
      ia[t] = i;
      jb[t++] = pre + k;
    }
  }
  return { ia: ia.subarray(0, t), jb: jb.subarray(0, t) };
}

/** `splitByLis` of pairs given as two columns. */
function splitColumns(
  ia: Int32Array,
  jb: Int32Array,
  inOrder: Array<[number, number]>,
  moved: Array<[number, number]>,
  usedA: Uint8Array,
  usedB: Uint8Array,
): void {
  const onLis = lis(ia);
  for (let t = 0; t < ia.length; t++) {
    const i = ia[t]!;
    const j = jb[t]!;
    (onLis[t] ? inOrder : moved).push([i, j]);
    usedA[i] = 1;
    usedB[j] = 1;
  }
}

/** Is some key repeated on one side and present on the other (`onceIndex` arrays)? */
function sharedRepeat(onceA: Int32Array, onceB: Int32Array): boolean {
  for (let k = 0; k < onceA.length; k++) {
    const x = onceA[k]!;
    const y = onceB[k]!;
    if ((x === -1 && y !== -2) || (y === -1 && x !== -2)) return true;
  }
  return false;
}

/** The indices in [from, to) not marked in `used`. */
function unused(used: Uint8Array, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (!used[i]) out.push(i);
  return out;
}

/** For each key number: the index (offset by `pre`) of its only occurrence in `ids`, −1 when repeated, −2 when absent. */
function onceIndex(ids: Int32Array, pre: number, count: number): Int32Array {
  const once = new Int32Array(count).fill(-2);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    once[id] = once[id] === -2 ? pre + k : -1;
  }
  return once;
}

/** Step 2 of `alignMiddle`: the unused items of each gap between anchors, matched by key (returns the in-order pairs). */
function matchInGaps(
  pre: number,
  suf: number,
  n: number,
  m: number,
  idsA: Int32Array,
  idsB: Int32Array,
  anchors: Array<[number, number]>,
  moved: Array<[number, number]>,
  usedA: Uint8Array,
  usedB: Uint8Array,
): Array<[number, number]> {
  const gapPairs: Array<[number, number]> = [];
  const fence = (g: number): readonly [number, number] =>
    g === 0 ? [pre - 1, pre - 1] : g > anchors.length ? [n - suf, m - suf] : anchors[g - 1]!;
  for (let g = 0; g <= anchors.length; g++) {
    const [a0, b0] = fence(g);
    const [a1, b1] = fence(g + 1);
    if (a1 - a0 <= 1 || b1 - b0 <= 1) continue;
    const queues = new Map<number, number[]>();
    for (let i = a0 + 1; i < a1; i++) {
      if (usedA[i]) continue;
      const k = idsA[i - pre]!;
      const q = queues.get(k);
      if (q) q.push(i);
      else queues.set(k, [i]);
    }
    if (queues.size === 0) continue;
    const pairs: Array<[number, number]> = [];
    for (let j = b0 + 1; j < b1; j++) {
      if (usedB[j]) continue;
      const q = queues.get(idsB[j - pre]!);
      if (q?.length) pairs.push([q.shift()!, j]);
    }
    splitByLis(pairs, gapPairs, moved, usedA, usedB);
  }
  return gapPairs;
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
export function lis(xs: ArrayLike<number>): Uint8Array {
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
function patience(xs: ArrayLike<number>, prev: Int32Array): number {
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
