/**
 * The key for LangGraph's encrypted rows (`msgpack+aes`, `json+aes`, `null+aes`: Python `EncryptedSerializer`,
 * ./eax.ts). The CLI sets it from `LANGGRAPH_AES_KEY` (its UTF-8 bytes, as `from_pycryptodome_aes()` reads it) or
 * `--aes-key-file`; a library user calls `setLangGraphAesKey`. Kept apart from the decoder so setting it loads nothing.
 */
let key: Uint8Array | undefined;
let source = "";

/** Set (or, with undefined, clear) the key; `from` names where it came from, for messages. */
export function setLangGraphAesKey(k: Uint8Array | undefined, from = "LANGGRAPH_AES_KEY"): void {
  key = k;
  source = k ? from : "";
}

export const langGraphAesKey = (): { key: Uint8Array; from: string } | undefined =>
  key ? { key, from: source } : undefined;

/** What a reader without the key is told. */
export const AES_KEY_HINT = "set LANGGRAPH_AES_KEY to the key (or pass --aes-key-file <file>)";
