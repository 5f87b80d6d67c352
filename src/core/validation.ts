/**
 * The result of validating many documents (a `ckpt validate` run, or a library caller's loop over
 * `validateDocument`): per-document results, their summary, and the exit code the run answers with.
 */
import { ExitCode } from "../base/errors.js";
import type { FileResult } from "./document.js";

export interface Summary {
  files: number;
  valid: number;
  invalid: number;
  /** unreadable, unparseable or of unknown format */
  unreadable: number;
  errors: number;
  warnings: number;
}

export interface ValidationReport {
  files: FileResult[];
  summary: Summary;
  /** set when --max-errors stopped the run early */
  stoppedEarly?: string;
  /** treat warnings as failures (--strict) */
  strict: boolean;
}

/** Summarise per-file results. */
export function summarize(files: readonly FileResult[]): Summary {
  const s: Summary = { files: files.length, valid: 0, invalid: 0, unreadable: 0, errors: 0, warnings: 0 };
  for (const f of files) {
    if (f.fatal) s.unreadable++;
    else if (f.valid) s.valid++;
    else s.invalid++;
    for (const i of f.issues) i.severity === "error" ? s.errors++ : s.warnings++;
    if (f.fatal) s.errors++;
  }
  return s;
}

/** Did this file pass (no error; no warning either with --strict)? */
export function passed(f: FileResult, strict: boolean): boolean {
  return !f.fatal && f.valid && !(strict && f.issues.length > 0);
}

/**
 * The exit code a validation answers with: 4 when a store could not be read, 3 when a document could not be
 * read, 1 when one is invalid (or, with strict, has a warning), else 0.
 */
export function validationExitCode(report: ValidationReport): number {
  if (report.files.some((f) => f.fatal && f.fatalExit === ExitCode.STORE)) return ExitCode.STORE;
  if (report.summary.unreadable > 0) return ExitCode.INPUT;
  if (report.summary.errors > 0) return ExitCode.NEGATIVE;
  if (report.strict && report.summary.warnings > 0) return ExitCode.NEGATIVE;
  return ExitCode.OK;
}
