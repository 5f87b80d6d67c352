/**
 * AES in EAX mode (Bellare, Rogaway, Wagner, "The EAX Mode of Operation", FSE 2004), decryption only: what LangGraph
 * Python's `EncryptedSerializer.from_pycryptodome_aes()` writes (pycryptodome `AES.MODE_EAX`, 16-byte nonce and tag).
 * Node's crypto has AES-CTR and AES-CBC but no EAX, and none of the maintained JS cipher libraries offers EAX
 * (@noble/ciphers: GCM, SIV, …; node-forge: GCM; sjcl: CCM, OCB2, GCM), so EAX is built here from node:crypto's AES:
 *   OMAC^t(M) = CMAC_K([t]₁₂₈ ‖ M);  N' = OMAC⁰(nonce);  H' = OMAC¹(header);  C' = OMAC²(ciphertext)
 *   tag = N' ⊕ H' ⊕ C' (first 16 bytes);  plaintext = AES-CTR_K(counter block N')(ciphertext)
 * Tested against the paper's published test vectors and the encrypted set C store written by pycryptodome.
 *
 * A stored `+aes` payload (langgraph-checkpoint serde/encrypted.py) is nonce (16) ‖ tag (16) ‖ ciphertext; the key is
 * `LANGGRAPH_AES_KEY`'s UTF-8 bytes (16, 24 or 32 of them: AES-128/192/256).
 */
import { createCipheriv, timingSafeEqual } from "node:crypto";

const cipherName = (key: Uint8Array, mode: "cbc" | "ctr") => {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32)
    throw new RangeError(`an AES key has 16, 24 or 32 bytes, not ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
};

/** GF(2^128) doubling of a block (CMAC subkeys). */
function dbl(b: Buffer): Buffer {
  const out = Buffer.alloc(16);
  let carry = 0;
  for (let i = 15; i >= 0; i--) {
    const v = b[i]!;
    out[i] = ((v << 1) | carry) & 0xff;
    carry = v >>> 7;
  }
  if (carry) out[15] = out[15]! ^ 0x87;
  return out;
}

const ZERO = Buffer.alloc(16);

/** AES-CBC-MAC of whole blocks (the last block of the CBC encryption with a zero IV). */
function cbcMac(key: Uint8Array, data: Buffer): Buffer {
  const c = createCipheriv(cipherName(key, "cbc"), key, ZERO).setAutoPadding(false);
  const out = Buffer.concat([c.update(data), c.final()]);
  return out.subarray(out.length - 16);
}

/** CMAC (OMAC1, NIST SP 800-38B) of a non-empty message. */
export function cmac(key: Uint8Array, msg: Uint8Array): Buffer {
  const l = cbcMac(key, ZERO);
  const k1 = dbl(l);
  const k2 = dbl(k1);
  const full = msg.length > 0 && msg.length % 16 === 0;
  const padded = Buffer.alloc(full ? msg.length : (Math.floor(msg.length / 16) + 1) * 16);
  padded.set(msg);
  if (!full) padded[msg.length] = 0x80;
  const last = padded.length - 16;
  const sub = full ? k1 : k2;
  for (let i = 0; i < 16; i++) padded[last + i] = padded[last + i]! ^ sub[i]!;
  return cbcMac(key, padded);
}

function omac(key: Uint8Array, t: number, data: Uint8Array): Buffer {
  const m = Buffer.alloc(16 + data.length);
  m[15] = t;
  m.set(data, 16);
  return cmac(key, m);
}

/** EAX decryption and tag check; undefined when the tag does not match (wrong key, or a damaged payload). */
export function eaxDecrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  ciphertext: Uint8Array,
  tag: Uint8Array,
  header: Uint8Array = new Uint8Array(0),
): Buffer | undefined {
  const n = omac(key, 0, nonce);
  const h = omac(key, 1, header);
  const c = omac(key, 2, ciphertext);
  const want = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) want[i] = n[i]! ^ h[i]! ^ c[i]!;
  if (tag.length === 0 || tag.length > 16 || !timingSafeEqual(want.subarray(0, tag.length), Buffer.from(tag)))
    return undefined;
  const ctr = createCipheriv(cipherName(key, "ctr"), key, n);
  return Buffer.concat([ctr.update(ciphertext), ctr.final()]);
}

/** EAX encryption (ciphertext ‖ tag), for tests and for writing encrypted rows. */
export function eaxEncrypt(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  header: Uint8Array = new Uint8Array(0),
): { ciphertext: Buffer; tag: Buffer } {
  const n = omac(key, 0, nonce);
  const ctr = createCipheriv(cipherName(key, "ctr"), key, n);
  const ciphertext = Buffer.concat([ctr.update(plaintext), ctr.final()]);
  const h = omac(key, 1, header);
  const c = omac(key, 2, ciphertext);
  const tag = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) tag[i] = n[i]! ^ h[i]! ^ c[i]!;
  return { ciphertext, tag };
}

/** Open a LangGraph `+aes` payload (nonce ‖ tag ‖ ciphertext); undefined when the key does not open it. */
export function openAesPayload(key: Uint8Array, payload: Uint8Array): Buffer | undefined {
  if (payload.length < 32) return undefined;
  return eaxDecrypt(key, payload.subarray(0, 16), payload.subarray(32), payload.subarray(16, 32));
}
