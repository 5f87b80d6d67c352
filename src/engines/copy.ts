/** What every layout's `copyIn` (`ckpt copy`) shares: the refusal of a new thread id that is taken. */
import { usageError } from "../base/errors.js";
import { printable } from "../base/printable.js";

/**
 * The new thread exists and `--overwrite` was not given: exit 2, nothing written. Said before anything is read when
 * the thread is there already, and again by the write itself when another run took the id meanwhile.
 */
export const threadTakenError = (uriRedacted: string, thread: string) =>
  usageError(`${uriRedacted}#${printable(thread)} exists: name another thread, or --overwrite to replace it`);
