/**
 * A LangGraph store opened the way every command opens one (savers/index.ts `openStore`, the one layout decision):
 * read-only to read it; `write` opens it to write (an empty store becomes a LangGraph one); `aesKey` opens its
 * encrypted rows. Undefined when the store holds another layout.
 */
import { openStore } from "../../src/savers/index.js";
import type { LangGraphStore } from "../../src/savers/langgraph/shared.js";
import { parseSaverUri } from "../../src/savers/uri.js";

export async function openLangGraph(
  uri: string,
  o: { write?: boolean; aesKey?: Uint8Array } = {},
): Promise<LangGraphStore | undefined> {
  const opened = await openStore(parseSaverUri(uri), { readOnly: !o.write, want: "langgraph", aesKey: o.aesKey });
  if (opened.layout === "langgraph") return opened.store;
  await opened.saver.close();
  return undefined;
}
