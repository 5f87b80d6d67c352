/** Token totals and the one-paragraph summary of a diff. Pure. */
import type { AgentMessage } from "../../generated/types.js";
import type { Change, DiffSummary, UsageTotals } from "./types.js";
import { fmtInt, pluralInt as plural } from "../../base/plural.js";

const USAGE_KEYS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "reasoning"] as const;
const USAGE_WORDS: Record<keyof UsageTotals, string> = {
  input: "input tokens",
  output: "output tokens",
  cacheRead: "cache-read tokens",
  cacheWrite: "cache-write tokens",
  totalTokens: "total tokens",
  reasoning: "reasoning tokens",
};

/** Sum of each usage field over the assistant messages. */
export function usageTotals(ms: readonly AgentMessage[]): UsageTotals {
  const t: UsageTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, reasoning: 0 };
  for (let i = 0; i < ms.length; i++) addUsage(t, ms[i]!, 1);
  return t;
}

/** Add (sign 1) or subtract (sign −1) the usage of one message (assistant messages only) to `t`. */
export function addUsage(t: UsageTotals, m: AgentMessage, sign: 1 | -1): void {
  if (m.role !== "assistant") return;
  const u = (m as { usage?: Record<string, unknown> }).usage;
  if (u === undefined || u === null || typeof u !== "object") return;
  t.input += sign * num(u.input);
  t.output += sign * num(u.output);
  t.cacheRead += sign * num(u.cacheRead);
  t.cacheWrite += sign * num(u.cacheWrite);
  t.totalTokens += sign * num(u.totalTokens);
  t.reasoning += sign * num(u.reasoning);
}

const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : 0);

const signed = (n: number) => (n > 0 ? `+${fmtInt(n)}` : `−${fmtInt(-n)}`);
const show = (v: unknown) =>
  typeof v === "string" ? v : v === undefined ? "(none)" : JSON.stringify(typeof v === "bigint" ? v.toString() : v);

/** Counts and the summary paragraph. */
export function summarize(changes: readonly Change[], na: number, nb: number): DiffSummary {
  const m = { a: na, b: nb, appended: 0, inserted: 0, removed: 0, edited: 0, moved: 0, toolResultsChanged: 0 };
  const parts: string[] = [];
  const other: string[] = [];
  let otherFields = 0;
  for (const c of changes) {
    if (c.kind === "message") {
      if (c.op === "edited" && c.role === "toolResult") m.toolResultsChanged++;
      else m[c.op]++;
    }
  }
  const msg = (n: number, verb: string) => n && parts.push(`${plural(n, "message")} ${verb}`);
  msg(m.appended, "appended");
  msg(m.inserted, "inserted");
  msg(m.removed, "removed");
  msg(m.edited, "edited");
  msg(m.moved, "moved");
  if (m.toolResultsChanged) parts.push(`${plural(m.toolResultsChanged, "tool result")} changed`);
  for (const c of changes) {
    switch (c.kind) {
      case "usage":
        for (const k of USAGE_KEYS)
          if (c.delta[k] !== 0 && (k !== "totalTokens" || (c.delta.input === 0 && c.delta.output === 0)))
            parts.push(`${signed(c.delta[k])} ${USAGE_WORDS[k]}`);
        break;
      case "model":
        parts.push(`${c.field} ${show(c.before)} → ${show(c.after)}`);
        break;
      case "todo":
        parts.push(c.op === "status" ? `todo ${c.id} ${c.before} → ${c.after}` : `todo ${c.id} ${c.op}`);
        break;
      case "file":
        parts.push(
          `file ${c.path} ${c.op}${c.op === "edited" && (c.added || c.removed) ? ` (+${c.added} −${c.removed})` : ""}`,
        );
        break;
      case "scratchpad":
        parts.push(`scratchpad note "${c.heading}" ${c.op}`);
        break;
      case "context":
        parts.push(`context ${c.name} ${c.op}`);
        break;
      case "field":
        if (c.pointer === "/step") parts.push(`step ${show(c.before)} → ${show(c.after)}`);
        else if (c.pointer === "/threadId") parts.push(`thread ${show(c.before)} → ${show(c.after)}`);
        else if (c.pointer === "/createdAt" || c.pointer === "/updatedAt") other.push(`${c.pointer.slice(1)} changed`);
        else otherFields++;
        break;
      default:
        break;
    }
  }
  parts.push(...other);
  if (otherFields) parts.push(`${plural(otherFields, "other field")} changed`);
  const text = parts.length === 0 ? "Identical" : capital(parts.join(", "));
  return { messages: m, text };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
