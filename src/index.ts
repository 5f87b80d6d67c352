/**
 * ckpt as a library: everything the CLI does is importable from here.
 */
export * from "./base/errors.js";
export * from "./base/json.js";
export type * from "./generated/types.js";
export { validators } from "./generated/validators.js";
export { schemaIndex } from "./generated/schema-index.js";
export * from "./formats/types.js";
export { main } from "./cli/main.js";
export {
  convertDocument,
  convertCheckpoint,
  foreignExtLoss,
  integerLoss,
  type ConvertOptions,
  type ConvertResult,
} from "./core/convert.js";
export { LossLog, noteAt, messageIndexOf } from "./formats/loss.js";
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
export {
  validateDocument,
  runAdapter,
  parseDocument,
  loaderErrors,
  loadDocument,
  type ParsedDocument,
  type FileResult,
  type Alternative,
  type ValidateOptions,
} from "./core/document.js";
export { schemaIssues, getValidator } from "./schema/validate.js";
export { pruneErrors, describeError } from "./schema/issues.js";
export { canonicalLint, nativeLint, fileSaverLint, fileSaverStem } from "./schema/lint.js";
export { runValidation, exitCodeOf } from "./cli/validate.js";
export { REPORTERS, summarize, type ValidationReport, type Reporter } from "./cli/reporters/index.js";
// formats registry and the deep-agent adapter
export { adapters, getAdapter, detectAll, detectFormat, readCheckpoint, isFormatName } from "./formats/index.js";
export { deepagentAdapter, type DeepagentCheckpoint } from "./formats/deepagent.js";
// savers and migration
export { openSaver, parseSaverUri, redact, contentHash, type OpenOptions } from "./savers/index.js";
export type { Saver, SaverRecord, ThreadInfo, ListOptions } from "./savers/types.js";
export { isLangGraphSaver, type LangGraphSaver } from "./savers/langgraph/index.js";
export type { LgHistoryEntry } from "./formats/langgraph/types.js";
export { sanitizeThreadId } from "./savers/file.js";
export { openCheckPool } from "./cli/check-pool.js";
export {
  migrate,
  journalKey,
  type MigrateOptions,
  type MigrateSummary,
  type Journal,
  type ConflictPolicy,
} from "./core/migrate.js";
// replay
export { runLoop, type Limits, type ReplayEvent, type LoopResult, type ToolRegistry } from "./core/replay/loop.js";
export {
  verifyCheckpoint,
  continueCheckpoint,
  resumeCheckpoint,
  defaultStateTools,
  STATE_TOOL_FORMATS,
  type VerifyOptions,
  type VerifyResult,
  type Divergence,
} from "./core/replay/replay.js";
export { RecordedProvider, ScriptProvider, parseScript, type ScriptReply } from "./core/replay/providers.js";
export { createOpenAIProvider } from "./providers/openai.js";
export { createAnthropicProvider } from "./providers/anthropic.js";
export { createRegistry } from "./core/replay/registry.js";
export { runStateTool, STATE_TOOL_NAMES, emptyState, type ReplayState } from "./core/replay/state-tools.js";
export type { Provider, ProviderRequest, ToolSpec } from "./providers/types.js";
