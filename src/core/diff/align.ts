/**
 * Sequence alignment by identity, linear in the usual cases: the common prefix and suffix (equal hashes) are
 * trimmed first, the middle is matched by key with a hash map (k-th occurrence of a key in A ↔ k-th in B), and a
 * longest increasing subsequence over the matched A positions separates the messages that kept their relative
 * order from the minimal set that moved. Pure.
 */

/** How one side's item relates to the other. */
export interface Alignment {
  /** pairs [indexA, indexB] that kept their relative order (includes the trimmed prefix/suffix), ascending */
  anchors: Array<[number, number]>;
  /** pairs [indexA, indexB] matched by key but out of order (the minimal set: everything not on the LIS) */
  moved: Array<[number, number]>;
  /** indices into A with no partner */
  removed: number[];
  /** indices into B with no partner */
  inserted: number[];
}

/**
 * Align `a` and `b`. `hash` is the full identity of an item (equal hash = identical item); `key` is what makes two
 * items "the same item" even when edited (an id), defaulting to the hash.
 */
export function align(
  hashA: readonly string[],
  hashB: readonly string[],
  keyA: readonly string[] = hashA,
  keyB: readonly string[] = hashB,
): Alignment {
  const n = hashA.length;
  const m = hashB.length;
  let pre = 0;
  while (pre < n && pre < m && hashA[pre] === hashB[pre]) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && hashA[n - 1 - suf] === hashB[m - 1 - suf]) suf++;

  const anchors: Array<[number, number]> = [];
  for (let i = 0; i < pre; i++) anchors.push([i, i]);

  // middle: match by key, k-th occurrence with k-th occurrence
  const queues = new Map<string, number[]>();
  for (let i = pre; i < n - suf; i++) {
    const k = keyA[i]!;
    const q = queues.get(k);
    if (q) q.push(i);
    else queues.set(k, [i]);
  }
  const heads = new Map<string, number>();
  const pairs: Array<[number, number]> = []; // ascending in B
  const usedA = new Uint8Array(n);
  const inserted: number[] = [];
  for (let j = pre; j < m - suf; j++) {
    const k = keyB[j]!;
    const q = queues.get(k);
    const h = heads.get(k) ?? 0;
    if (q && h < q.length) {
      heads.set(k, h + 1);
      pairs.push([q[h]!, j]);
      usedA[q[h]!] = 1;
    } else inserted.push(j);
  }
  const removed: number[] = [];
  for (let i = pre; i < n - suf; i++) if (!usedA[i]) removed.push(i);

  const onLis = lis(pairs.map((p) => p[0]));
  const moved: Array<[number, number]> = [];
  for (let t = 0; t < pairs.length; t++) (onLis[t] ? anchors : moved).push(pairs[t]!);
  for (let s = suf; s > 0; s--) anchors.push([n - s, m - s]);
  return { anchors, moved, removed, inserted };
}

/** Marks the members of one longest strictly increasing subsequence of `xs` (patience sorting, O(n log n)). */
export function lis(xs: readonly number[]): Uint8Array {
  const out = new Uint8Array(xs.length);
  if (xs.length === 0) return out;
  const tailIdx: number[] = []; // index into xs of the smallest tail of an increasing run of length t+1
  const prev = new Int32Array(xs.length).fill(-1);
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
    tailIdx[lo] = i;
  }
  for (let i = tailIdx[tailIdx.length - 1]!; i >= 0; i = prev[i]!) out[i] = 1;
  return out;
}
