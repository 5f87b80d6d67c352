/**
 * `ckpt validate` of a LangGraph store as a store (core/langgraph/validate.ts): all of it, one thread, or one
 * checkpoint; one FileResult, its issues naming each row, a healthy store's warnings one line per rule.
 */
import type { FileResult } from "../../core/document.js";
import { type LgIssue, validateLangGraphStore } from "../../core/langgraph/validate.js";
import type { LangGraphStore } from "../../savers/langgraph/shared.js";
import type { Issue } from "../../schema/types.js";
import type { StoreValidation } from "../types.js";

export async function validateStore(reader: LangGraphStore, o: StoreValidation): Promise<FileResult> {
  const r = await validateLangGraphStore(reader, {
    ...(o.threadId !== undefined ? { threadId: o.threadId } : {}),
    ...(o.checkpointId ? { checkpointId: o.checkpointId } : {}),
    ...(o.maxErrors !== undefined ? { maxErrors: o.maxErrors } : {}),
    ...(o.library !== undefined ? { library: o.library } : {}),
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
  });
  for (const i of r.issues) i.file = i.file.replace(reader.uri, o.uriLabel);
  if (!o.verbose) r.issues = oneLinePerRule(r.issues);
  return {
    file: o.label,
    format: "langgraph",
    formatVersion: `${reader.info.store}, ${r.checkpoints} checkpoints, ${r.writes} writes`,
    alternatives: [],
    valid: !r.issues.some((i) => i.severity === "error"),
    issues: r.issues,
  };
}

/** How many threads a collapsed finding names before "…". */
const NAMED = 3;

/**
 * A healthy store's warnings, one per rule: a rule found on many rows (the same old checkpoint version in every
 * thread) becomes one finding at its first row, counting the threads and naming the first few (`--verbose` lists
 * every row). Errors stay one per row: each names a row to repair.
 */
export function oneLinePerRule(issues: Issue[]): Issue[] {
  const byRule = new Map<string, LgIssue[]>();
  for (const i of issues)
    if (i.severity === "warning") (byRule.get(i.rule) ?? byRule.set(i.rule, []).get(i.rule)!).push(i as LgIssue);
  const out: Issue[] = [];
  for (const i of issues) {
    if (i.severity !== "warning") {
      out.push(i);
      continue;
    }
    const group = byRule.get(i.rule)!;
    if (group.length === 1) out.push(i);
    else if (group[0] === i) {
      const threads = [...new Set(group.map((g) => g.row?.threadId ?? g.file))];
      const named = threads
        .slice(0, NAMED)
        .map((t) => `'${t}'`)
        .join(", ");
      const more = threads.length > NAMED ? ", …; --verbose lists all" : "";
      const where =
        threads.length === group.length
          ? `${threads.length} threads`
          : `${group.length} findings in ${threads.length === 1 ? "1 thread" : `${threads.length} threads`}`;
      out.push({ ...i, message: `${where} (${named}${more}): ${i.message}` });
    }
  }
  return out;
}
