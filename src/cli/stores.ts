/**
 * Stores the CLI opens. Every command opens its savers here, so that every exit path — success, an error thrown
 * half-way, a usage error after opening, Ctrl-C — closes every store: `main` calls `closeStores()` when the
 * command ends, whatever happened. A process that finished its work never waits on an open connection.
 * Reading commands open with `readOnly` (the store must exist; nothing in it is created or changed).
 */
import type { Saver } from "../savers/types.js";

const open = new Set<Saver>();

export interface StoreOptions {
  /** true for every store a command only reads (ls, show, log, validate, diff, convert, replay's input, migrate --from, view) */
  readOnly: boolean;
  /** the namespace when the URI has none */
  namespace?: string;
  env?: NodeJS.ProcessEnv;
}

export async function openStore(uri: string, opts: StoreOptions): Promise<Saver> {
  const { openSaver } = await import("../savers/index.js");
  const saver = await openSaver(uri, { env: opts.env, readOnly: opts.readOnly, namespace: opts.namespace });
  const close = saver.close.bind(saver);
  let closing: Promise<void> | undefined;
  saver.close = () => {
    open.delete(saver);
    return (closing ??= close());
  };
  open.add(saver);
  return saver;
}

/** Close every store still open (errors while closing are not the command's result: they are ignored). */
export async function closeStores(): Promise<void> {
  await Promise.all([...open].map((s) => s.close().catch(() => undefined)));
}

/** How many stores are open (tests). */
export const openStoreCount = () => open.size;
