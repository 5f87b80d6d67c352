/** What every reporter renders: the per-file results of one `ckpt validate` run and their summary. */
import type { ChalkInstance } from "chalk";
import type { ValidationReport } from "../../../core/validation.js";

export { passed, summarize, type Summary, type ValidationReport } from "../../../core/validation.js";

export interface RenderOptions {
  color: boolean;
  /** the chalk instance to colour with (text reporter; required for colour, loaded lazily by the caller) */
  chalk?: ChalkInstance;
  /** only errors (text reporter) */
  quiet?: boolean;
}

/** A reporter turns the report into the text of one output (stdout or a file). */
export type Reporter = (report: ValidationReport, opts: RenderOptions) => string;

export { plural } from "../../../base/plural.js";
