/**
 * A PostgreSQL client error in words. A socket that fails under a query (the server ended the backend, a network cut)
 * surfaces as `write EPIPE` or `read ECONNRESET` when the client was sending at that moment rather than reading the
 * server's "terminating connection" — the same event, which is named as such so that it reads as a lost connection,
 * not as a failure of ckpt or of the data.
 */
const LOST = new Set(["EPIPE", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

export function pgErrorText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = String(err?.message ?? e);
  return typeof err?.code === "string" && LOST.has(err.code)
    ? `the connection to PostgreSQL was lost (${message})`
    : message;
}
