// The one generator of long yoagent histories for the benches: the real yoagent 0.18 sample (user text+image,
// thinking, tool calls, tool results, extension, error and refusal turns) repeated round after round, with fresh
// tool-call ids and later timestamps each round so that no two messages are the same.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const samplePath = join(root, "fixtures/yoagent/valid/save_messages.v0.18.json");

/** The sample's messages (a yoagent save_messages() array). */
export function yoagentSample() {
  return JSON.parse(readFileSync(samplePath, "utf8"));
}

/** `n` yoagent messages: the sample repeated with per-round tool-call ids and timestamps. */
export function yoagentHistory(n, sample = yoagentSample()) {
  const out = [];
  for (let round = 0; out.length < n; round++) {
    for (const m of sample) {
      if (out.length >= n) break;
      const c = structuredClone(m);
      if (typeof c.timestamp === "number") c.timestamp += round * 100_000;
      if (c.role === "toolResult") c.toolCallId = `${c.toolCallId}-${round}`;
      if (Array.isArray(c.content)) for (const b of c.content) if (b.type === "toolCall") b.id = `${b.id}-${round}`;
      out.push(c);
    }
  }
  return out;
}
