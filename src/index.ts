/**
 * ckpt as a library: the documented API (README, "Using ckpt as a library").
 *
 * Open a store, read a checkpoint, validate, diff, convert, migrate, prune and replay, with their types. Nothing
 * here comes from the CLI but `main` (run a `ckpt …` command line in-process); the CLI is built on these same
 * functions.
 */

// errors and exit codes: every expected failure is a CkptError carrying its exit code, place and cause
export { CkptError, ExitCode, type ErrorPlace, type ExitCodeValue } from "./base/errors.js";
export { parseJson, stringifyJson } from "./base/json.js";
export { redactUri } from "./base/redact.js";

// schemas: the generated types, precompiled validators and the schema index
export type * from "./generated/types.js";
export { validators } from "./generated/validators.js";
export { schemaIndex } from "./generated/schema-index.js";

// formats: detect and read any supported document into a canonical checkpoint
export {
  adapters,
  detectFormat,
  FORMAT_NAMES,
  getAdapter,
  isFormatName,
  readCheckpoint,
  type FormatAdapter,
  type FormatName,
  type SourceDoc,
} from "./formats/index.js";

// stores: open one from its URI (file:, sqlite:, redis://, postgres://, memory:; LangGraph stores detected); the
// options hold what belongs to that store (an encrypted LangGraph store's `aesKey`)
export { openSaver as openStore, parseSaverUri, type OpenOptions } from "./savers/index.js";
export type { ListOptions, Saver, SaverRecord, ThreadInfo } from "./savers/types.js";
export { isLangGraphSaver, type LangGraphSaver } from "./savers/langgraph/shared.js";
export type { LgHistoryEntry } from "./formats/langgraph/types.js";
// a store's engine: what its layout can do (`caps`) and its operations (ls rows, stats, prune, delete, copy)
export { openEngine, requireCap } from "./engines/index.js";
export type { Capability, Engine, EngineCaps, LayoutName, Listing } from "./engines/types.js";
/** `OpenOptions.aesKey`: the key of a LangGraph store's encrypted rows (`msgpack+aes`, Python EncryptedSerializer). */
export type { AesKey, AesKeyOption } from "./formats/langgraph/aes-key.js";

// validate: one document against its system's own loader rules and ckpt's lints; a run's summary and exit code
export { validateDocument, type FileResult, type ValidateOptions } from "./core/document.js";
export {
  passed,
  summarize,
  validationExitCode,
  type Summary as ValidationSummary,
  type ValidationReport,
} from "./core/validation.js";
export type { Issue } from "./schema/types.js";

// diff
export {
  diffCheckpoints,
  type DiffOptions,
  type DiffOutput,
  type DiffResult,
  type DiffSummary,
  type Change as DiffChange,
} from "./core/diff/index.js";

// convert
export { convertCheckpoint, convertDocument, type ConvertOptions, type ConvertResult } from "./core/convert.js";

// migrate: every record from one store to another, verified
export { migrate, type MigrateOptions } from "./engines/ckpt/migrate.js";
export {
  migrateExitCode,
  type ConflictPolicy,
  type Journal,
  type MigrateSummary,
} from "./core/migrate/types.js";

// export: every thread of any store, folder or file as OpenAI chat / Hugging Face / ShareGPT / ckpt / audit JSONL,
// Parquet or Markdown, one thread at a time; transforms plug in between reading and writing
export {
  containerOf,
  exportThreads,
  storeThreads,
  type Container,
  type ExportOptions,
  type ExportProgress,
  type ExportSource,
  type ExportSummary,
  type ExportTransform,
  type TextOut,
  type ThreadSelection,
} from "./engines/export/index.js";
export {
  EXPORT_FORMATS,
  exportFormats,
  ExportLoss,
  type AuditRow,
  type ExportFormat,
  type ExportFormatName,
  type ExportThread,
  type LossKind,
} from "./core/export/index.js";

// prune: a store's old checkpoints (LangGraph: per thread and namespace) or idle threads; the planning on its own
export { parseDuration, planThread, type PruneCriteria, type PruneHead, type ThreadPlan } from "./core/prune.js";
export { prune, type PruneOptions, type PrunePlanEntry, type PruneSummary } from "./core/prune-run.js";

// search and scan: grep over a canonical checkpoint; the secrets and personal data in one, and the redactor behind
// --redact (one per thread: the same value gets the same placeholder every time)
export {
  compileMatcher,
  searchCheckpoint as search,
  type SearchHit,
  type SearchQuery,
  type SearchScope,
} from "./core/search.js";
export { scanCheckpoint as scan } from "./core/scan/places.js";
export {
  FINDING_KINDS,
  parseKinds,
  Redactor,
  type Finding,
  type FindingKind,
  type RedactCounts,
} from "./core/scan/redact.js";

// replay through the headless agent loop
export {
  continueCheckpoint,
  resumeCheckpoint,
  verifyCheckpoint,
  type Divergence,
  type VerifyOptions,
  type VerifyResult,
} from "./core/replay/replay.js";
export { RecordedProvider, ScriptProvider } from "./core/replay/providers.js";
export { createAnthropicProvider } from "./providers/anthropic.js";
export { createOpenAIProvider } from "./providers/openai.js";
export type { Provider, ProviderRequest, ToolSpec } from "./providers/types.js";

// the CLI, in-process: `await main(["validate", "x.json"], io)` returns the exit code
export { main } from "./cli/main.js";
