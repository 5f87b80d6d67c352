/** Validation findings and the view of a checkpoint that the generic lints read: data, shared by every layer above. */

/** One validation finding. Pointers are RFC 6901 into the *native* document (for org files: into its parsed JSON structure). */
export interface Issue {
  severity: "error" | "warning";
  /** stable rule id, e.g. "schema/required", "lint/tool-call-without-result" */
  rule: string;
  message: string;
  /** what was expected, when it is a schema issue */
  expected?: string;
  pointer: string;
  /** file the issue is in (for folders: the member file) */
  file: string;
  line?: number;
  column?: number;
}

/** The fields of a canonical checkpoint the generic lints read (see FormatAdapter.lintView). */
export interface LintView {
  threadId: string;
  interrupt?: unknown;
  messages: readonly LintMessage[];
}

/** The fields of a canonical message the generic lints read: `content` of assistants, `usage` in canonical names. */
export interface LintMessage {
  role?: unknown;
  timestamp?: unknown;
  content?: unknown;
  toolCallId?: unknown;
  usage?: unknown;
}
