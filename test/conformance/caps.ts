/**
 * What a store's engine says it can do, asked of ckpt itself: the conformance suite skips a test only where these
 * capabilities say it does not apply.
 */
import { openStore, parseSaverUri } from "../../src/savers/index.js";

export interface Caps {
  history: boolean;
  namespaces: boolean;
  write: boolean;
  parallelWriters: boolean;
  prune: boolean;
  delete: boolean;
  copy: boolean;
  encrypted: boolean;
}
export type Cap = keyof Caps;

// TEMPORARY (#36): until `openStore(…).engine.caps` (src/engines/) is on main, the capabilities of each layout that
// openStore detects, as the engines being written declare them. Replace this table with the engine's own caps.
const TEMPORARY_CAPS: Record<string, Caps> = {
  ckpt: {
    history: false,
    namespaces: true,
    write: true,
    parallelWriters: true,
    prune: true,
    delete: true,
    copy: true,
    encrypted: false,
  },
  langgraph: {
    history: true,
    namespaces: false,
    write: true,
    parallelWriters: false,
    prune: true,
    delete: true,
    copy: true,
    encrypted: true,
  },
  mastra: {
    history: false,
    namespaces: false,
    write: true,
    parallelWriters: false,
    prune: false,
    delete: false,
    copy: false,
    encrypted: false,
  },
  "ai-chatbot": {
    history: false,
    namespaces: false,
    write: true,
    parallelWriters: false,
    prune: false,
    delete: false,
    copy: false,
    encrypted: false,
  },
  "openai-agents-session": {
    history: false,
    namespaces: false,
    write: false,
    parallelWriters: false,
    prune: false,
    delete: false,
    copy: false,
    encrypted: false,
  },
};
TEMPORARY_CAPS.folder = TEMPORARY_CAPS.ckpt!;

/** The capabilities of the store at `uri` (opened read-only), and the layout ckpt detected. */
export async function capsOf(uri: string): Promise<{ layout: string; caps: Caps }> {
  const u = parseSaverUri(uri);
  const opened = await openStore(u, { readOnly: true });
  try {
    const caps = { ...TEMPORARY_CAPS[opened.layout]! };
    // a memory store lives in one process: no other process (a worker, a second run) can open it
    if (u.kind === "memory") caps.parallelWriters = false;
    return { layout: opened.layout, caps };
  } finally {
    await ("store" in opened && opened.store ? opened.store : opened.saver).close();
  }
}
