/**
 * Stores the CLI opens. Every command opens its stores here (savers/index.ts `openStore`, the one layout decision),
 * so that every exit path — success, an error thrown half-way, a usage error after opening, Ctrl-C — closes every
 * store: `main` calls `closeStores()` when the command ends, whatever happened. A process that finished its work
 * never waits on an open connection. Reading commands open with `readOnly` (the store must exist; nothing in it is
 * created or changed). Every store is opened with the run's AES key (`LANGGRAPH_AES_KEY` or `--aes-key-file`, read
 * once by `main`): it travels in the store's options, and `main` forgets it when the command ends.
 */
import type { AesKey } from "../formats/langgraph/aes-key.js";
import type { OpenedStore, OpenOptions } from "../savers/index.js";
import type { SaverUri } from "../savers/uri.js";
import type { Engine } from "../engines/types.js";

const open = new Set<{ close(): Promise<void> }>();
/** the key of LangGraph's encrypted rows this run was given */
let aesKey: AesKey | undefined;

/** The key the run's stores are opened with (main: read once at the start; undefined when the command ends). */
export function useAesKey(k: AesKey | undefined): void {
  aesKey = k;
}

export interface StoreOptions extends OpenOptions {
  /** true for every store a command only reads (ls, show, log, validate, diff, convert, replay's input, migrate --from, view) */
  readOnly: boolean;
}

/** A store a command opened: as `openStore` opened it, with its engine (what commands ask). */
export type OpenedWithEngine = OpenedStore & { engine: Engine };

/** Open a store (a URI as typed, or parsed) with its engine, and register it to be closed when the command ends. */
export async function openStore(uri: string | SaverUri, opts: StoreOptions): Promise<OpenedWithEngine> {
  const { openStore: openAt, parseSaverUri } = await import("../savers/index.js");
  const { engineOf } = await import("../engines/index.js");
  const opened = await openAt(typeof uri === "string" ? parseSaverUri(uri, opts.env) : uri, { aesKey, ...opts });
  // a LangGraph or foreign store's Saver view closes the store itself: one close, registered once
  const closable: { close(): Promise<void> } = "store" in opened ? opened.store : opened.saver;
  const close = closable.close.bind(closable);
  let closing: Promise<void> | undefined;
  closable.close = () => {
    open.delete(closable);
    closing ??= close();
    return closing;
  };
  open.add(closable);
  return Object.assign(opened, { engine: await engineOf(opened) });
}

/** Close every store still open (errors while closing are not the command's result: they are ignored). */
export async function closeStores(): Promise<void> {
  await Promise.all([...open].map((s) => s.close().catch(() => undefined)));
}

/** How many stores are open (tests). */
export const openStoreCount = () => open.size;
