/**
 * ckpt as a library: everything the CLI does is importable from here.
 */
export * from "./core/errors.js";
export * from "./core/json.js";
export type * from "./generated/types.js";
export { validators } from "./generated/validators.js";
export { schemaIndex } from "./generated/schema-index.js";
export * from "./formats/types.js";
export { main } from "./cli/main.js";
export { convertDocument, convertCheckpoint, readNative, foreignExtLoss, type ConvertOptions, type ConvertResult } from "./core/convert.js";
export { yoagentAdapter, yoagentWantsSnake } from "./formats/yoagent.js";
export { yoagentSessionAdapter, activePath as yoagentSessionActivePath } from "./formats/yoagent-session.js";
export { phiCoreAdapter } from "./formats/phi-core.js";
export { phiCoreSessionAdapter } from "./formats/phi-core-session.js";
export {
  diffCheckpoints,
  comparable as diffComparable,
  VOLATILE_GLOBS,
  type DiffOptions,
  type DiffOutput,
  type DiffResult,
  type DiffSummary,
  type Change as DiffChange,
  type MessageChange,
  type BlockChange,
  type TodoChange,
  type FileChange,
  type ScratchpadChange,
  type ContextChange,
  type UsageChange,
  type ModelChange,
  type ValueChange,
  type TextDiff,
  type PatchOp,
} from "./core/diff/index.js";
export { validateDocument, runAdapter, type FileResult, type Alternative, type ValidateOptions } from "./schema/document.js";
export { schemaIssues, getValidator } from "./schema/validate.js";
export { pruneErrors, describeError } from "./schema/issues.js";
export { canonicalLint, nativeLint, fileSaverLint, fileSaverStem } from "./core/lint.js";
export { runValidation, exitCodeOf } from "./cli/validate.js";
export { REPORTERS, summarize, type ValidationReport, type Reporter } from "./cli/reporters/index.js";
