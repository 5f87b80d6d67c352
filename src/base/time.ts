/** A stored time as the tables print it: ISO 8601 in UTC with milliseconds (`2026-11-23T08:43:38.110Z`). */
export function tableTime(ts: string | null | undefined): string {
  if (ts === null || ts === undefined || ts === "") return "-";
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? ts : new Date(ms).toISOString();
}
