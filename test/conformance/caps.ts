/**
 * What a store's engine says it can do, asked of ckpt itself (`openEngine(…).caps`, src/engines/): the conformance
 * suite skips a test only where these capabilities say it does not apply.
 */
import { openEngine } from "../../src/engines/index.js";
import type { EngineCaps } from "../../src/engines/types.js";
import { parseSaverUri } from "../../src/savers/index.js";

export type Caps = EngineCaps;
export type Cap = keyof Caps;

/** The capabilities of the store at `uri` (opened read-only), and the layout ckpt detected. */
export async function capsOf(uri: string): Promise<{ layout: string; caps: Caps }> {
  const engine = await openEngine(parseSaverUri(uri), { readOnly: true });
  try {
    return { layout: engine.layout, caps: { ...engine.caps } };
  } finally {
    await engine.close();
  }
}
