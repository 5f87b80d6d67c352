/**
 * Hex digests of text (UTF-8), one call per text. Node ≥ 20.12 has the one-shot `crypto.hash`, about 3x faster than
 * `createHash(…).update(…).digest(…)` on checkpoint-sized texts (no Hash object per call); older Node 20 falls back.
 */
import * as crypto from "node:crypto";

type Algorithm = "sha1" | "sha256" | "md5";
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** The hex digest of `text` with `algorithm`. */
export const hexDigest: (algorithm: Algorithm, text: string) => string = oneShot
  ? (algorithm, text) => oneShot(algorithm, text, "hex")
  : (algorithm, text) => crypto.createHash(algorithm).update(text).digest("hex");
