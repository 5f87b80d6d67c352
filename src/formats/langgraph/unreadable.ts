/**
 * "Never confidently wrong": a tuple whose checkpoint, channel values or pending writes did not decode must not be
 * shown as a (shorter, or empty) conversation. `unreadableReport` says which rows failed and why, in one line.
 */
import type { LgCheckpointTuple, LgDecodeIssue, LgRowRef } from "./types.js";
import { AES_KEY_HINT } from "./aes-key.js";

const rowName = (r: LgRowRef): string => {
  const parts = [r.table];
  if (r.taskId !== undefined) parts.push(`task=${r.taskId}`, `idx=${r.idx}`);
  if (r.channel !== undefined && r.taskId === undefined) parts.push(`channel=${r.channel}`);
  if (r.version !== undefined) parts.push(`version=${r.version}`);
  return parts.join(" ");
};

/** The rule of ckpt's own inability to read a part of a checkpoint (`ckpt/…`: never the store's fault). */
export const CANNOT_REBUILD = "ckpt/cannot-rebuild";

/**
 * A fatal decode issue that is ckpt's limit, not the store's damage: a DeltaChannel whose reducer ckpt does not know
 * (`delta-reducer`: the graph's own reducer is not stored), a pickle payload (ckpt does not unpickle), a serialization type ckpt does not know.
 */
export function cannotRebuild(d: Pick<LgDecodeIssue, "reason" | "fatal">): boolean {
  return d.fatal && (d.reason === "delta-reducer" || d.reason === "pickle" || d.reason === "unknown-type");
}

/**
 * The parts of a tuple that could not be read while the rest was: fatal issues of a channel value or of a pending
 * write (the checkpoint itself decoded, and nothing is encrypted without its key). Undefined when the tuple cannot be
 * shown at all (its checkpoint did not decode, or a key is missing) or when nothing is missing.
 */
export function partialIssues(t: Pick<LgCheckpointTuple, "issues">): LgDecodeIssue[] | undefined {
  const bad = t.issues.filter((i) => i.fatal);
  if (bad.length === 0) return undefined;
  const part = (i: LgDecodeIssue) =>
    i.reason !== "encrypted" && /^\/(checkpoint\/channel_values\/[^/]+|pendingWrites\/\d+\/value)$/.test(i.pointer);
  return bad.every(part) ? bad : undefined;
}

/** The fatal issues of a tuple (what it lacks), or [] when it decoded whole. */
export const fatalIssues = (t: LgCheckpointTuple): LgDecodeIssue[] => t.issues.filter((i) => i.fatal);

/** One line naming the checkpoint, the rows that did not decode and why; undefined when nothing is missing. */
export function unreadableReport(t: LgCheckpointTuple): string | undefined {
  const bad = fatalIssues(t);
  if (bad.length === 0) return undefined;
  const first = bad[0]!;
  const rows = [...new Set(bad.map((i) => rowName(i.row)))];
  const encrypted = bad.some((i) => i.reason === "encrypted" && i.message.includes(AES_KEY_HINT));
  return (
    `checkpoint ${t.checkpointId}${t.namespace ? ` (namespace ${t.namespace})` : ""} cannot be read whole: ` +
    `${rows.length} row(s) do not decode (${rows.slice(0, 4).join("; ")}${rows.length > 4 ? "; …" : ""}): ` +
    `${first.message}${encrypted ? "" : bad.length > 1 ? ` (and ${bad.length - 1} more)` : ""}`
  );
}

/**
 * A tuple whose rows are encrypted and were read without a usable key (none given, or one of a size no AES key has):
 * the one sentence every reader that stops says, naming the key option; undefined when that is not the case. Every
 * encrypted row of the store fails the same way then: one reason, not one finding per row.
 */
export function missingKeyReport(t: LgCheckpointTuple): string | undefined {
  const i = t.issues.find(
    (x) =>
      x.fatal &&
      x.reason === "encrypted" &&
      (x.message.includes(AES_KEY_HINT) || / has \d+ bytes; an AES key /.test(x.message)),
  );
  if (!i) return undefined;
  const type = /\(([^)]*\+[^)]*)\)/.exec(i.message)?.[1] ?? "+aes";
  return i.message.includes(AES_KEY_HINT)
    ? `its rows are encrypted (${type}, LangGraph's EncryptedSerializer; first: thread '${t.threadId}', checkpoint ${t.checkpointId}) and no key was given: ${AES_KEY_HINT}`
    : `its rows are encrypted (${type}; first: thread '${t.threadId}', checkpoint ${t.checkpointId}) and ${i.message.slice(i.message.indexOf("the key ("))}`;
}
