/**
 * Hex digests of text (UTF-8) or bytes, one call per value. Node ≥ 20.12 has the one-shot `crypto.hash`, about 3x faster than
 * `createHash(…).update(…).digest(…)` on checkpoint-sized texts (no Hash object per call); older Node 20 falls back.
 * node:crypto is loaded on the first digest, not at start-up: most commands (validate, diff, convert of a file) never
 * take one, and loading it cost a `ckpt validate small.json` about 3% of a bare `node -e 0` (#41).
 */
import type * as Crypto from "node:crypto";
import { lazyModule } from "./lazy.js";

type Algorithm = "sha1" | "sha256" | "md5";
type Digest = (algorithm: Algorithm, data: string | Uint8Array) => string;
const crypto = lazyModule<typeof Crypto>("node:crypto");
let digest: Digest | undefined;

function pick(): Digest {
  const c = crypto();
  const oneShot = (c as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash;
  return oneShot
    ? (algorithm, data) => oneShot(algorithm, data, "hex")
    : (algorithm, data) => c.createHash(algorithm).update(data).digest("hex");
}

/** The hex digest of `text` (UTF-8) or of bytes with `algorithm`. */
export const hexDigest: Digest = (algorithm, data) => (digest ??= pick())(algorithm, data);
