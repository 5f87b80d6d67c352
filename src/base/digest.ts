/**
 * Hex digests of text (UTF-8) or bytes, one call per value. Node ≥ 20.12 has the one-shot `crypto.hash`, about 3x faster than
 * `createHash(…).update(…).digest(…)` on checkpoint-sized texts (no Hash object per call); older Node 20 falls back.
 */
import * as crypto from "node:crypto";

type Algorithm = "sha1" | "sha256" | "md5";
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash;

/** The hex digest of `text` (UTF-8) or of bytes with `algorithm`. */
export const hexDigest: (algorithm: Algorithm, data: string | Uint8Array) => string = oneShot
  ? (algorithm, data) => oneShot(algorithm, data, "hex")
  : (algorithm, data) => crypto.createHash(algorithm).update(data).digest("hex");
