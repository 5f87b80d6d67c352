/**
 * Exit codes and the one error type every layer throws for expected failures.
 * Only the CLI turns these into process exit codes and messages; a non-CkptError reaching the CLI is a bug (70).
 */
export const ExitCode = {
  /** success: valid / identical / migrated and verified / replay matched */
  OK: 0,
  /** a negative answer: invalid, different, diverged, verification mismatch */
  NEGATIVE: 1,
  /** usage error (unknown flag, bad combination) */
  USAGE: 2,
  /** input error: unreadable or unparseable file, unknown format */
  INPUT: 3,
  /** store error: connection, authentication, I/O */
  STORE: 4,
  /** partial: some records rejected or skipped in a migration */
  PARTIAL: 5,
  /** internal error (a bug) */
  BUG: 70,
  /** interrupted (Ctrl-C, SIGINT): 128 + 2, what shells report */
  INTERRUPTED: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ErrorPlace {
  /** file path as the user gave it, or "<stdin>", or a saver URI with #thread */
  file?: string;
  /** RFC 6901 JSON pointer, "" for the whole document */
  pointer?: string;
  /** 1-based */
  line?: number;
  /** 1-based */
  column?: number;
}

/** An expected failure with a clear one-line message and its exit code. */
export class CkptError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly place: ErrorPlace;
  /** machine-readable reason, e.g. "json-syntax", "unknown-format", "store-connect" */
  readonly reason: string;
  constructor(
    exitCode: ExitCodeValue,
    reason: string,
    message: string,
    place: ErrorPlace = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CkptError";
    this.exitCode = exitCode;
    this.reason = reason;
    this.place = place;
  }

  /** `file:line:col: pointer: message` — the one-line form printed by the CLI. */
  format(): string {
    return formatPlace(this.place) + this.message;
  }
}

export function formatPlace(p: ErrorPlace): string {
  let s = "";
  if (p.file !== undefined) {
    s += p.file;
    if (p.line !== undefined) s += `:${p.line}` + (p.column !== undefined ? `:${p.column}` : "");
    s += ": ";
  }
  if (p.pointer !== undefined && p.pointer !== "") s += `${p.pointer}: `;
  return s;
}

export const inputError = (reason: string, message: string, place?: ErrorPlace, cause?: unknown) =>
  new CkptError(ExitCode.INPUT, reason, message, place, { cause });
export const usageError = (message: string, cause?: unknown) =>
  new CkptError(ExitCode.USAGE, "usage", message, {}, { cause });
export const storeError = (reason: string, message: string, place?: ErrorPlace, cause?: unknown) =>
  new CkptError(ExitCode.STORE, reason, message, place, { cause });

/**
 * One record a store cannot hold (two thread ids that share a file name, a thread id too long for a file name, an
 * empty thread id). A migration rejects that record with this reason and goes on with the rest; anywhere else it
 * is an ordinary CkptError.
 */
export class RecordError extends CkptError {
  constructor(
    exitCode: ExitCodeValue,
    reason: string,
    message: string,
    readonly record: { threadId: string; namespace?: string },
    place: ErrorPlace = {},
  ) {
    super(exitCode, reason, message, place);
    this.name = "RecordError";
  }
}
