/**
 * The key for LangGraph's encrypted rows (`msgpack+aes`, `json+aes`, `null+aes`: Python `EncryptedSerializer`,
 * ./eax.ts). It belongs to the store it opens: given in `OpenOptions.aesKey` (the CLI's from `LANGGRAPH_AES_KEY`, its
 * UTF-8 bytes as `from_pycryptodome_aes()` reads it, or `--aes-key-file`), kept on the opened LangGraph store and
 * handed to every decode of its rows (serde.ts `DecodeSink.aesKey`). Kept apart from the decoder so naming it loads
 * nothing.
 */

/** A store's key, and where it came from (named in messages). */
export interface AesKey {
  key: Uint8Array;
  from: string;
}

/** The key as `OpenOptions.aesKey` takes it: its bytes, or its bytes with where they came from. */
export type AesKeyOption = Uint8Array | AesKey;

/** The option as an `AesKey` (bytes alone come from the "aesKey option"); undefined when none was given. */
export function aesKeyOf(o: AesKeyOption | undefined): AesKey | undefined {
  if (o === undefined) return undefined;
  return o instanceof Uint8Array ? { key: o, from: "aesKey option" } : o;
}

/** What a reader without the key is told. */
export const AES_KEY_HINT = "set LANGGRAPH_AES_KEY to the key (or pass --aes-key-file <file>)";
