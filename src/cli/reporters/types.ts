/** What every reporter renders: the per-file results of one `ckpt validate` run and their summary. */
import type { ChalkInstance } from "chalk";
import type { FileResult } from "../../core/document.js";

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

export interface RenderOptions {
  color: boolean;
  /** the chalk instance to colour with (text reporter; required for colour, loaded lazily by the caller) */
  chalk?: ChalkInstance;
  /** only errors (text reporter) */
  quiet?: boolean;
}

/** A reporter turns the report into the text of one output (stdout or a file). */
export type Reporter = (report: ValidationReport, opts: RenderOptions) => string;

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

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
