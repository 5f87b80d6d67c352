/**
 * Dependencies loaded on first use, synchronously, so that a command that never needs one does not pay for
 * loading it at start-up (a `ckpt diff` without --ignore never reads micromatch and its five helper packages).
 * For CommonJS packages only (what `require` can load).
 */
import { createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

/** A getter that loads the package `id` the first time it is called. */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= requireHere(id) as T);
}
