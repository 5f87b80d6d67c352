/**
 * Run a precompiled schema validator on a parsed value and report clear, positioned Issues.
 */
import { quickValidators, validators } from "../generated/validators.js";
import type { CompiledValidator } from "../generated/validators.js";
import { containsBigInt, toPlainNumbers } from "../base/json.js";
import type { Issue } from "./types.js";
import { describeError, pruneErrors } from "./issues.js";
import { explainUnknownTags } from "./tags.js";

/** Where a pointer is in the source text. */
export type Locate = (pointer: string) => { line: number; column: number; file?: string } | undefined;

/** The validator for a schema name (e.g. "Checkpoint", "formats/yoagent/messages"), or undefined. */
export function getValidator(name: string): CompiledValidator | undefined {
  return (validators as Record<string, CompiledValidator>)[name];
}

/**
 * Validate `value` against schema `schemaName`. Integers beyond 2^53 (bigint) are checked as their nearest
 * double (pass `mayHoldBigInt = false` when the caller already knows there is none). Every issue is an error with rule `schema/<ajv keyword>`.
 */
export function schemaIssues(
  schemaName: string,
  value: unknown,
  file: string,
  locate?: Locate,
  mayHoldBigInt = true,
): Issue[] {
  const quick = (quickValidators as Record<string, (data: unknown) => boolean>)[schemaName];
  if (!quick) throw new Error(`no compiled validator named '${schemaName}' (run npm run gen)`);
  const plain = mayHoldBigInt && containsBigInt(value) ? toPlainNumbers(value) : value;
  // the quick validator's verdict is the full one's; the full one (loaded only then) runs for its errors
  if (quick(plain)) return [];
  const v = getValidator(schemaName)!;
  if (v(plain)) return [];
  return explainUnknownTags(schemaName, plain, pruneErrors(v.errors ?? [])).map((e) => {
    const d = describeError(e);
    const at = locate?.(d.pointer);
    const issue: Issue = {
      severity: "error",
      rule: `schema/${e.keyword}`,
      message: d.message,
      expected: d.expected,
      pointer: d.pointer,
      file: at?.file ?? file,
    };
    if (at) {
      issue.line = at.line;
      issue.column = at.column;
    }
    return issue;
  });
}
