/** "1 message", "2 messages", "0 fields": a count with its noun in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * "1,234": the text of `n.toLocaleString("en-US")` for safe integers, without Intl (its first call loads the
 * locale data: ~25 ms of a `ckpt migrate` run); other numbers go to Intl.
 */
export const fmtInt = (n: number): string =>
  Number.isSafeInteger(n) && !Object.is(n, -0)
    ? (n < 0 ? "-" : "") + String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",")
    : n.toLocaleString("en-US");

/** plural() with thousands separators: "20,000 messages". */
export const pluralInt = (n: number, one: string, many = `${one}s`): string => `${fmtInt(n)} ${n === 1 ? one : many}`;
