/**
 * `--reporter json`: a stable shape, version 1:
 * `{version: 1, files: [{file, format, formatVersion, alternatives, valid, issues: [{severity, rule, message,
 * expected?, pointer, file, line?, column?}], error?}], summary: {files, valid, invalid, unreadable, errors,
 * warnings}, stoppedEarly?}`. `error` is set for inputs that could not be read/parsed/recognised.
 */
import type { Reporter } from "./types.js";

export const jsonReporter: Reporter = (report) =>
  JSON.stringify(
    {
      version: 1,
      files: report.files.map((f) => ({
        file: f.file,
        format: f.format ?? null,
        formatVersion: f.formatVersion ?? null,
        alternatives: f.alternatives,
        valid: !f.fatal && f.valid,
        issues: f.issues,
        ...(f.fatal ? { error: f.fatal } : {}),
      })),
      summary: report.summary,
      ...(report.stoppedEarly ? { stoppedEarly: report.stoppedEarly } : {}),
    },
    null,
    2,
  ) + "\n";
