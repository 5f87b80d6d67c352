/**
 * phi-core `save_messages()` history: a compact JSON array of `AgentMessage` (FORMATS.md §2.1). LLM messages pass
 * through `serde_json::Value`, so their keys (and their content blocks' keys) are written in alphabetical order;
 * extension messages keep declaration order (role, kind, data).
 */
import type { AgentMessage, Checkpoint } from "../generated/types.js";
import { stringifyJson } from "../base/json.js";
import type { FormatAdapter, LossSink, SourceDoc } from "./types.js";
import {
  RUST_FILL_INS,
  PHI,
  countAssistant,
  defaultTimestampOf,
  isLlmMessage,
  issueMaker,
  messageArrayLint,
  messageLintView,
  messageToCanonical,
  messageToNative,
  parseArrayDoc,
  reportEnvelopeLoss,
  sniffMessageArray,
  sortKeysDeep,
  threadIdOfDoc,
  type WriteCtx,
} from "./rust-common.js";

type Native = Record<string, unknown>[];

/** Canonical messages → phi-core messages in phi-core's key order (shared with the session adapter). */
export function phiMessagesFromCanonical(
  cp: Checkpoint,
  lossy: LossSink,
  messages: AgentMessage[] = cp.messages,
  offset = 0,
): Record<string, unknown>[] {
  const ctx: WriteCtx = { dialect: PHI, snake: true, lossy, defaultTimestamp: defaultTimestampOf(cp) };
  const out: Record<string, unknown>[] = [];
  messages.forEach((m, i) => {
    const n = messageToNative(m, offset + i, ctx);
    if (n) out.push(isLlmMessage(n) ? (sortKeysDeep(n) as Record<string, unknown>) : n);
  });
  return out;
}

export const phiCoreAdapter: FormatAdapter<Native> = {
  name: "phi-core",
  title: "phi-core save_messages() history (JSON array, snake_case usage, turnId/nodeId/tags extras)",
  extensions: [".json"],
  lossy: [
    "state (todos, files, scratchpad, contexts)",
    "interrupt",
    "createdAt / updatedAt",
    "threadId (the file name stands for it)",
    "step (read back as the number of assistant messages)",
    "toolCall.providerMetadata",
    "stopReason 'refusal' (written as 'stop')",
    "file content blocks; images given by URL",
    "system messages (kept as extension messages of kind 'ckpt.system')",
  ],
  schema: "formats/phi-core/messages",
  detectNeeds: { first: "[" },
  detect(doc: SourceDoc) {
    const s = sniffMessageArray(doc.text);
    return s.phi > 0 ? { confidence: s.phi } : { confidence: 0 };
  },
  parse: (doc) => parseArrayDoc(doc, "phi-core"),
  toCanonical(native: Native, doc: SourceDoc): Checkpoint {
    const messages = native.map((m) => messageToCanonical(m, PHI)) as AgentMessage[];
    return {
      schemaVersion: 1,
      threadId: threadIdOfDoc(doc),
      step: countAssistant(messages),
      messages,
      state: {},
      origin: { format: "phi-core", threadIdFrom: "file-name" },
    };
  },
  fromCanonical(cp, options) {
    reportEnvelopeLoss(cp, "phi-core", options.lossy);
    return phiMessagesFromCanonical(cp, options.lossy);
  },
  lint: (native, doc) => messageArrayLint(native, PHI, issueMaker(doc), doc.text),
  lintView: (native, doc) => ({ threadId: threadIdOfDoc(doc), messages: native.map((m) => messageLintView(m, PHI)) }),
  messagePointers: (native) => native.map((_m, i) => `/${i}`),
  integers: "64-bit",
  fillIns: RUST_FILL_INS,
  serialize: (native) => ({ text: stringifyJson(native) }),
};
