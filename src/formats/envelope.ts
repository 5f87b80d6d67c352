/**
 * Checkpoint-level times for targets that require them (deep-agent's createdAt/updatedAt, a phi-core session's
 * created_at/last_active_at) when the source has none: derived from the messages' own timestamps (first and
 * last), never invented as 1970.
 */
import type { Checkpoint } from "../generated/types.js";

const isoOf = (ms: number): string | undefined => {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
};

/** createdAt / updatedAt: the checkpoint's own, else the earliest / latest message timestamp, else each other. */
export function envelopeTimes(cp: Checkpoint): { createdAt?: string; updatedAt?: string } {
  let min = Infinity;
  let max = -Infinity;
  for (const m of cp.messages) {
    const t = Number((m as { timestamp?: number | bigint }).timestamp);
    if (!Number.isFinite(t)) continue;
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const createdAt = cp.createdAt ?? (min !== Infinity ? isoOf(min) : undefined) ?? cp.updatedAt;
  const updatedAt = cp.updatedAt ?? (max !== -Infinity ? isoOf(max) : undefined) ?? createdAt;
  return { createdAt, updatedAt: updatedAt ?? createdAt };
}

/** Whether `value` is the same instant as `iso` (ISO strings of one instant can be spelled differently). */
export function sameInstant(value: unknown, iso: string | undefined): boolean {
  if (typeof value !== "string" || iso === undefined) return false;
  const t = Date.parse(value);
  return Number.isFinite(t) && t === Date.parse(iso);
}

/** A checkpoint-level time a writer derived with `envelopeTimes` (or the epoch, when nothing says when). */
export function isEnvelopeFillIn(pointer: string, value: unknown, source: Checkpoint): boolean {
  if (pointer !== "/createdAt" && pointer !== "/updatedAt") return false;
  const t = envelopeTimes(source);
  return (
    sameInstant(value, pointer === "/createdAt" ? t.createdAt : t.updatedAt) ||
    sameInstant(value, new Date(0).toISOString())
  );
}
