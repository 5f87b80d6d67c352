/**
 * Ignore rules: globs over canonical JSON pointers. `*` matches one pointer segment, `**` any number of segments,
 * `{a,b}` alternatives (micromatch syntax with `/` as the separator). A matching value is removed from both
 * documents before comparison, so it is neither reported nor patched. Pure.
 */
import micromatch from "micromatch";
import { escapeToken } from "./fields.js";
import { isObject } from "./stable.js";
import { usageError } from "../errors.js";

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
    if (!g.startsWith("/") || g.startsWith("/**") && g !== "/**" && !g.startsWith("/**/")) throw usageError(`--ignore '${g}': expected a pointer glob starting with '/', e.g. /messages/*/timestamp or /state/files/**`);
  }
  try {
    const m = micromatch.matcher(globs.length === 1 ? globs[0]! : `{${globs.join(",")}}`, { dot: true });
    return (p) => m(p);
  } catch (e) {
    throw usageError(`--ignore: malformed glob: ${(e as Error).message}`);
  }
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
 * A copy of `v` without adapters' presentation records: `ext.<format>._layout` (which keys were spelled snake_case,
 * written as null, …). They say how a file was spelled, not what it says. Emptied `ext` objects are dropped.
 * Returns `v` itself when there is nothing to strip.
 */
export function stripLayout(v: unknown): unknown {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = stripLayout(v[i]);
      if (x !== v[i]) (out ??= v.slice())[i] = x;
    }
    return out ?? v;
  }
  if (!isObject(v)) return v;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const x = k === "ext" && isObject(v[k]) ? stripExt(v[k] as Record<string, unknown>) : stripLayout(v[k]);
    if (x !== v[k]) {
      out ??= { ...v };
      if (x === undefined) delete out[k];
      else out[k] = x;
    }
  }
  return out ?? v;
}

function stripExt(ext: Record<string, unknown>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const f of Object.keys(ext)) {
    const e = ext[f];
    if (isObject(e) && "_layout" in e) {
      const { _layout: _l, ...rest } = e;
      out ??= { ...ext };
      if (Object.keys(rest).length) out[f] = rest;
      else delete out[f];
    }
  }
  if (!out) return ext;
  return Object.keys(out).length ? out : undefined;
}
