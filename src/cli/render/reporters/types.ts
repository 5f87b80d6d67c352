/** What every reporter renders: the per-file results of one `ckpt validate` run and their summary. */
import type { ChalkInstance } from "chalk";
import type { FileResult } from "../../../core/document.js";
import type { ValidationReport } from "../../../core/validation.js";
import { plural } from "../../../base/plural.js";

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

export { plural };

/**
 * What a run validated, counted as the user named it: `3 files`, `4 threads` (a Mastra or Chat SDK store is judged
 * thread by thread), `1 store` (a LangGraph store is judged as a whole), or several kinds (`2 files, 4 threads`).
 */
export function validatedUnits(files: readonly FileResult[]): string {
  const n = { file: 0, thread: 0, store: 0 };
  for (const f of files) n[f.unit ?? "file"]++;
  const parts = (["file", "thread", "store"] as const).filter((k) => n[k]).map((k) => plural(n[k], k));
  return parts.length ? parts.join(", ") : plural(0, "file");
}
