import { openSaver } from "../../src/savers/index.js";
import { contentHash } from "../../src/savers/common.js";

/** Content hash of every thread in a store, keyed `namespace#threadId` (read through list + load, not scan). */
export async function storeHashes(uri: string): Promise<Map<string, string>> {
  const s = await openSaver(uri);
  const out = new Map<string, string>();
  try {
    for (const ns of await s.namespaces())
      for await (const t of s.list({ namespace: ns }))
        out.set(`${ns}#${t.threadId}`, contentHash((await s.load(t.threadId, ns))!));
  } finally {
    await s.close();
  }
  return out;
}
