/**
 * Honest partial reads: a checkpoint read with parts ckpt could not rebuild (formats `unreadableParts`) is shown
 * without them, each named on stderr and in the output, never as if it were whole.
 */
import type { Checkpoint } from "../generated/types.js";
import { unreadableLine, unreadableParts, type UnreadablePart } from "../formats/index.js";
import type { CliIO } from "./io.js";

export { unreadableLine };

/** The parts of `cp` that could not be read, each said on stderr (`what`: how the command goes on without them). */
export function warnUnreadable(io: CliIO, name: string, cp: Checkpoint, what: string): UnreadablePart[] {
  const parts = unreadableParts(cp);
  for (const p of parts) io.stderr.write(`ckpt: warning: ${name}: ${unreadableLine(p)}; ${what}\n`);
  return parts;
}
