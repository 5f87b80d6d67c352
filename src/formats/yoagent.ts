/**
 * yoagent `Agent::save_messages()` history: a compact JSON array of `AgentMessage` (FORMATS.md §1.2).
 * Reads both spellings (≥ 0.13 camelCase and the < 0.13 snake_case aliases); writes ≥ 0.13 by default,
 * `version: "<0.13"` (or any version below 0.13, e.g. "0.12") writes the old snake_case spelling.
 */
import type { AgentMessage, Checkpoint } from "../generated/types.js";
import { stringifyJson } from "../base/json.js";
import { usageError } from "../base/errors.js";
import type { FormatAdapter, LossSink, SourceDoc } from "./types.js";
import {
  RUST_FILL_INS,
  YOAGENT,
  countAssistant,
  defaultTimestampOf,
  issueMaker,
  messageArrayLint,
  messageLintView,
  messageToCanonical,
  messageToNative,
  parseArrayDoc,
  reportEnvelopeLoss,
  sniffMessageArray,
  threadIdOfDoc,
  type WriteCtx,
} from "./rust-common.js";

type Native = Record<string, unknown>[];

/**
 * True when `version` asks for the < 0.13 snake_case spelling. Accepts "<0.13", ">=0.13", "0.12", "0.12.0", …
 * Throws a usage error for anything else.
 */
export function yoagentWantsSnake(version: string | undefined): boolean | undefined {
  if (version === undefined) return undefined;
  const v = version.trim();
  if (v === "<0.13" || v === "legacy") return true;
  if (v === ">=0.13" || v === "latest") return false;
  const min = yoagentRelease(version);
  if (min < 3) throw usageError(`yoagent ${version} has no save_messages (added in 0.3.0)`);
  return min < 13;
}

/** The newest yoagent release ckpt knows the format of (FORMATS.md §1.6). */
export const YOAGENT_NEWEST_MINOR = 18;

/** The minor number of a yoagent release "0.N[.P]"; a usage error for anything else or a release ckpt does not know. */
export function yoagentRelease(version: string): number {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(version.trim());
  if (!m)
    throw usageError(
      `yoagent --format-version must be "<0.13", ">=0.13" or a release like 0.12 or 0.18.0, not '${version}'`,
    );
  const [maj, min] = [Number(m[1]), Number(m[2])];
  if (maj !== 0 || min > YOAGENT_NEWEST_MINOR)
    throw usageError(
      `unknown yoagent version '${version}': ckpt knows the format of yoagent 0.3 to 0.${YOAGENT_NEWEST_MINOR} ("<0.13" and ">=0.13" name the two spellings)`,
    );
  return min;
}

/** The release asked for, when a concrete one was (not a spelling range). */
const releaseOf = (version: string | undefined): number | undefined =>
  version === undefined || !/\d+\.\d+/.test(version) || version.trim().startsWith("<") || version.trim().startsWith(">")
    ? undefined
    : yoagentRelease(version);

/**
 * What an older release asked for cannot read: 'refusal' before 0.9 (the file fails to load), provider metadata
 * before 0.8 (dropped on load). "<0.13" names every older release, so it reports what the oldest cannot read.
 */
function versionLoss(cp: Checkpoint, options: { version?: string; lossy: LossSink }): void {
  const v = options.version?.trim();
  const minor = v === "<0.13" || v === "legacy" ? 3 : releaseOf(v);
  if (minor === undefined) return;
  cp.messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    if (minor < 9 && (m as { stopReason?: string }).stopReason === "refusal") {
      options.lossy.push({
        pointer: `/messages/${i}/stopReason`,
        field: "stopReason",
        reason: `yoagent ${v} rejects stopReason 'refusal' (added in 0.9.0): it cannot load this file`,
      });
    }
    if (minor < 8) {
      (m as { content: Array<{ type: string; providerMetadata?: unknown }> }).content.forEach((c, k) => {
        if (c.type === "toolCall" && c.providerMetadata !== undefined) {
          options.lossy.push({
            pointer: `/messages/${i}/content/${k}/providerMetadata`,
            field: "providerMetadata",
            reason: `yoagent ${v} has no tool-call provider_metadata (added in 0.8.0): dropped when it loads the file`,
          });
        }
      });
    }
  });
}

/** Convert canonical messages to yoagent (shared with the session adapter). */
export function yoagentMessagesFromCanonical(
  cp: Checkpoint,
  options: { version?: string; lossy: LossSink },
): Record<string, unknown>[] {
  const asked = yoagentWantsSnake(options.version);
  const snake =
    asked ??
    ((cp.origin?.format === "yoagent" || cp.origin?.format === "yoagent-session") && cp.origin.version === "<0.13");
  const ctx: WriteCtx = {
    dialect: YOAGENT,
    snake,
    keepSpelling: asked === undefined,
    lossy: options.lossy,
    defaultTimestamp: defaultTimestampOf(cp),
  };
  const out: Record<string, unknown>[] = [];
  cp.messages.forEach((m, i) => {
    const n = messageToNative(m, i, ctx);
    if (n) out.push(n);
  });
  versionLoss(cp, options);
  return out;
}

export const yoagentAdapter: FormatAdapter<Native> = {
  name: "yoagent",
  title: "yoagent save_messages() history (JSON array; ≥ 0.13 camelCase or < 0.13 snake_case)",
  extensions: [".json"],
  lossy: [
    "state (todos, files, scratchpad, contexts)",
    "interrupt",
    "createdAt / updatedAt",
    "threadId (the file name stands for it)",
    "step (read back as the number of assistant messages)",
    "usage.reasoning",
    "file content blocks; images given by URL",
    "system messages (kept as extension messages of kind 'ckpt.system')",
    "phi-core stop reasons (maxTurns, userStop, handoff, guardRail, contextCompacted, paused)",
  ],
  schema: "formats/yoagent/messages",
  detectNeeds: { first: "[" },
  detect(doc: SourceDoc) {
    const s = sniffMessageArray(doc.text);
    return s.yoagent > 0 ? { confidence: s.yoagent, version: s.yoagentVersion } : { confidence: 0 };
  },
  parse: (doc) => parseArrayDoc(doc, "yoagent"),
  toCanonical(native: Native, doc: SourceDoc): Checkpoint {
    const messages = native.map((m) => messageToCanonical(m, YOAGENT)) as AgentMessage[];
    return {
      schemaVersion: 1,
      threadId: threadIdOfDoc(doc),
      step: countAssistant(messages),
      messages,
      state: {},
      origin: { format: "yoagent", version: sniffMessageArray(doc.text).yoagentVersion, threadIdFrom: "file-name" },
    };
  },
  fromCanonical(cp, options) {
    reportEnvelopeLoss(cp, "yoagent", options.lossy);
    return yoagentMessagesFromCanonical(cp, options);
  },
  lint: (native, doc) => messageArrayLint(native, YOAGENT, issueMaker(doc), doc.text),
  lintView: (native, doc) => ({
    threadId: threadIdOfDoc(doc),
    messages: native.map((m) => messageLintView(m, YOAGENT)),
  }),
  messagePointers: (native) => native.map((_m, i) => `/${i}`),
  /** `serde_json::to_string`: compact, no trailing newline; keys already in serde's order. */
  integers: "64-bit",
  fillIns: RUST_FILL_INS,
  serialize: (native) => ({ text: stringifyJson(native) }),
};
