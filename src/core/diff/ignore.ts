/**
 * Ignore rules: globs over canonical JSON pointers. `*` matches one pointer segment, `**` any number of segments,
 * `{a,b}` alternatives (micromatch syntax with `/` as the separator). A matching value is removed from both
 * documents before comparison, so it is neither reported nor patched. Pure.
 */
import type Micromatch from "micromatch";
import { escapeToken } from "./fields.js";
import { isObject } from "./stable.js";
import { usageError } from "../../base/errors.js";
import { lazyModule } from "../../base/lazy.js";

/** micromatch, loaded only when there are globs to compile. */
const micromatch = lazyModule<typeof Micromatch>("micromatch");

/** What `--ignore-volatile` ignores: timestamps, createdAt/updatedAt, per-message usage, file times. */
export const VOLATILE_GLOBS = [
  "/createdAt",
  "/updatedAt",
  "/messages/*/timestamp",
  "/messages/*/usage",
  "/state/files/*/created_at",
  "/state/files/*/modified_at",
] as const;

/** A compiled set of ignore globs. */
export type IgnoreMatcher = (pointer: string) => boolean;

/** Compile globs (each must start with "/", like a pointer). Throws a usage error on a malformed glob. */
export function compileIgnore(globs: readonly string[]): IgnoreMatcher | undefined {
  if (globs.length === 0) return undefined;
  for (const g of globs) {
    if (!g.startsWith("/") || (g.startsWith("/**") && g !== "/**" && !g.startsWith("/**/")))
      throw usageError(
        `--ignore '${g}': expected a pointer glob starting with '/', e.g. /messages/*/timestamp or /state/files/**`,
      );
  }
  try {
    const m = micromatch().matcher(globs.length === 1 ? globs[0]! : `{${globs.join(",")}}`, { dot: true });
    return (p) => m(p);
  } catch (e) {
    throw usageError(`--ignore: malformed glob: ${(e as Error).message}`, e);
  }
}

/**
 * A glob that is a plain pointer: no glob syntax, only letters, digits, `_`, `-` and the escapes `~0` `~1` in each
 * segment. micromatch matches such a glob against exactly that pointer and nothing else.
 */
const PLAIN_POINTER = /^(\/([A-Za-z0-9_-]|~[01])+)+$/;

/** A trie of plain pointers' (unescaped) tokens; `end` marks a pointer that ends at that node. */
export interface PointerTrie {
  end: boolean;
  next: Map<string, PointerTrie>;
}

/**
 * When every glob is a plain pointer (the usual case: `diff` always leaves out /origin/threadIdFrom), the trie of
 * them, so that `prunePointers` removes them by walking only their paths instead of matching every pointer of both
 * documents against the globs (which on two 20k-message checkpoints took longer than the whole comparison). Else
 * undefined.
 */
export function plainPointers(globs: readonly string[]): PointerTrie | undefined {
  if (globs.length === 0 || !globs.every((g) => PLAIN_POINTER.test(g))) return undefined;
  const root: PointerTrie = { end: false, next: new Map() };
  for (const g of globs) {
    let node = root;
    for (const raw of g.slice(1).split("/")) {
      const t = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      let n = node.next.get(t);
      if (!n) node.next.set(t, (n = { end: false, next: new Map() }));
      node = n;
    }
    node.end = true;
  }
  return root;
}

/**
 * What `prune(v, compileIgnore(globs))` gives for plain-pointer globs (the same values removed, array elements
 * shifting the same way), without copying what they do not touch: untouched parts are shared, not copied.
 */
export function prunePointers(v: unknown, trie: PointerTrie): unknown {
  if (trie.next.size === 0) return v;
  if (Array.isArray(v)) {
    let hit = false;
    for (const t of trie.next.keys()) if (/^(0|[1-9][0-9]*)$/.test(t) && Number(t) < v.length) hit = true;
    if (!hit) return v;
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      const n = trie.next.get(String(i));
      if (!n) out.push(v[i]);
      else if (!n.end) out.push(prunePointers(v[i], n));
    }
    return out;
  }
  if (isObject(v)) {
    let out: Record<string, unknown> | undefined;
    for (const [k, n] of trie.next) {
      if (!Object.hasOwn(v, k)) continue;
      if (n.end) delete (out ??= { ...v })[k];
      else {
        const x = prunePointers(v[k], n);
        if (x !== v[k]) (out ??= { ...v })[k] = x;
      }
    }
    return out ?? v;
  }
  return v;
}

/** A copy of `v` without the values whose pointer matches (array elements are removed, later ones shift). */
export function prune(v: unknown, match: IgnoreMatcher, pointer = ""): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      const p = `${pointer}/${i}`;
      if (!match(p)) out.push(prune(v[i], match, p));
    }
    return out;
  }
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const p = `${pointer}/${escapeToken(k)}`;
      if (!match(p)) out[k] = prune(v[k], match, p);
    }
    return out;
  }
  return v;
}

/**
 * A copy of a checkpoint without adapters' presentation records: `ext.<format>._layout` (which keys were spelled
 * snake_case, written as null, …) on the checkpoint, its messages and their content blocks. They say how a file was
 * spelled, not what it says. Emptied `ext` objects are dropped. Untouched parts are shared, not copied.
 */
export function stripLayout(cp: unknown): unknown {
  if (!isObject(cp)) return cp;
  let out = withoutLayout(cp);
  const ms = cp.messages;
  if (Array.isArray(ms)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < ms.length; i++) {
      const m = ms[i];
      const x = stripMessage(m);
      if (x !== m) (copy ??= ms.slice())[i] = x;
    }
    if (copy) out = { ...out, messages: copy };
  }
  return out;
}

/** The checkpoint-level part of `stripLayout`: its own `ext.<format>._layout` only; messages are left as they are. */
export function stripTopLayout(cp: unknown): unknown {
  return isObject(cp) ? withoutLayout(cp) : cp;
}

/** One message without presentation records (its own and its content blocks'); `m` itself when it has none. */
export function stripMessage<T>(m: T): T {
  if (!isObject(m)) return m;
  let x = withoutLayout(m);
  const content = m.content;
  if (Array.isArray(content)) {
    let cc: unknown[] | undefined;
    for (let k = 0; k < content.length; k++) {
      const b = content[k];
      const y = isObject(b) ? withoutLayout(b) : b;
      if (y !== b) (cc ??= content.slice())[k] = y;
    }
    if (cc) x = { ...x, content: cc };
  }
  return x as T;
}

/** `o` without `ext.<format>._layout` (and without `ext` when that empties it); `o` itself when there is none. */
function withoutLayout(o: Record<string, unknown>): Record<string, unknown> {
  const ext = o.ext;
  if (!isObject(ext)) return o;
  let next: Record<string, unknown> | undefined;
  for (const f in ext) {
    const e = ext[f];
    if (isObject(e) && "_layout" in e) {
      const { _layout: _l, ...rest } = e;
      next ??= { ...ext };
      if (Object.keys(rest).length) next[f] = rest;
      else delete next[f];
    }
  }
  if (!next) return o;
  const copy = { ...o };
  if (Object.keys(next).length) copy.ext = next;
  else delete copy.ext;
  return copy;
}
