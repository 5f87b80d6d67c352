/**
 * Where `ckpt scan` looks in a canonical checkpoint, named as a reader names it: each message's text and thinking,
 * each tool call's arguments and each tool result (their strings as they are, not as JSON: a private key keeps its
 * line breaks), extension messages' data, every state key and a pending interrupt.
 */
import type { AgentMessage, Checkpoint, Content } from "../../generated/types.js";
import { type Finding, findIn, type FindingKind, type Place, stringsOf } from "./redact.js";

const roleOf = (m: AgentMessage) => (m.role === "toolResult" ? "tool" : m.role);

/** The places of a checkpoint holding strings. */
export function placesOf(cp: Checkpoint): Place[] {
  const out: Place[] = [];
  cp.messages.forEach((m, i) => {
    const role = roleOf(m);
    const content = (m as { content?: unknown }).content;
    if (m.role === "toolResult") {
      const r = m as Extract<AgentMessage, { role: "toolResult" }>;
      out.push({ message: i, role, where: `toolResult ${r.toolName}`, strings: stringsOf(r.content) });
      return;
    }
    if (!Array.isArray(content)) {
      out.push({ message: i, role, where: "data", strings: stringsOf((m as { data?: unknown }).data) });
      return;
    }
    for (const c of content as Content[]) {
      if (c.type === "text") out.push({ message: i, role, where: "text", strings: [c.text] });
      else if (c.type === "thinking") out.push({ message: i, role, where: "thinking", strings: [c.thinking] });
      else if (c.type === "toolCall")
        out.push({ message: i, role, where: `toolCall ${c.name}`, strings: stringsOf(c.arguments) });
      else if (c.type === "image" || c.type === "file")
        out.push({
          message: i,
          role,
          where: c.type,
          strings: [c.url ?? "", (c as { filename?: string }).filename ?? ""],
        });
    }
    const err = (m as { errorMessage?: string }).errorMessage;
    if (err) out.push({ message: i, role, where: "errorMessage", strings: [err] });
  });
  for (const [key, v] of Object.entries(cp.state ?? {}))
    out.push({ role: "state", where: `state.${key}`, strings: stringsOf(v) });
  if (cp.interrupt) out.push({ role: "state", where: "interrupt", strings: stringsOf(cp.interrupt) });
  return out.filter((p) => p.strings.some((s) => s.length > 0));
}

/** Every secret and piece of personal data in a canonical checkpoint, named by message and place. */
export function scanCheckpoint(cp: Checkpoint, kinds?: ReadonlySet<FindingKind>): Promise<Finding[]> {
  return findIn(placesOf(cp), kinds);
}
