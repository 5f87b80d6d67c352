/**
 * The `pg` package, imported once for every PostgreSQL store. At load, pg asks whether it runs in a Cloudflare Worker:
 * without `navigator.userAgent` (Node 20 has none) it tries `typeof Response === "function"`, and on Node 20 that
 * first read of the global `Response` loads Node's whole fetch implementation (undici): ~90 M instructions, ~25 ms,
 * ~15 % of a migration's start-up, for a client that never fetches. While pg loads, that global reads as undefined
 * (only when it is still Node's own lazy getter, untouched); its getter is put back as it was right after. pg then
 * takes Node's streams, as it would have anyway: Node is not a Cloudflare Worker.
 */
type Pg = typeof import("pg");

let loading: Promise<Pg["default"]> | undefined;

export function importPg(): Promise<Pg["default"]> {
  return (loading ??= load());
}

async function load(): Promise<Pg["default"]> {
  const own = Object.getOwnPropertyDescriptor(globalThis, "Response");
  const hide = own?.get !== undefined && own.configurable === true;
  if (hide) Object.defineProperty(globalThis, "Response", { value: undefined, configurable: true, writable: true });
  try {
    return (await import("pg")).default;
  } finally {
    if (hide) Object.defineProperty(globalThis, "Response", own);
  }
}
