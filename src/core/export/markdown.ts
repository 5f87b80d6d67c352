/**
 * `ckpt export -o out.md`: a readable transcript per thread, in Markdown — a heading per thread with where it came
 * from, each message under its role, tool calls with their arguments and results as code, reasoning as a quote, the
 * todos, files and other state at the end. Texts are the messages' own Markdown; what is code (arguments, results,
 * state) is fenced with a fence longer than any backtick run inside it.
 */
import { stringifyJson } from "../../base/json.js";
import type { Content } from "../../generated/types.js";
import { threadLabel } from "./turns.js";
import type { ExportFormat, ExportLoss, ExportThread } from "./types.js";

/** A fenced code block whose fence no line of the text can close. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

const json = (v: unknown) => stringifyJson(v, 2) ?? "null";
/** A heading's text on one line, its Markdown characters escaped. */
const plain = (s: string) => s.replace(/\s+/g, " ").replace(/([\\`*_[\]<>#|])/g, "\\$1");

function block(c: Content, t: ExportThread, index: number, loss: ExportLoss): string {
  switch (c.type) {
    case "text":
      return c.text;
    case "thinking":
      return c.thinking
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n")
        .replace(/^> /, "> *reasoning:* ");
    case "toolCall":
      return `**→ ${plain(c.name)}** \`${c.id.replace(/`/g, "")}\`\n\n${fenced(json(c.arguments), "json")}`;
    case "image":
      if (c.url && !c.url.startsWith("data:")) return `![image](<${c.url}>)`;
      loss.add("image", "images held inline (shown as a placeholder)", threadLabel(t), index);
      return `*[image ${plain(c.mimeType)}${c.data ? `, ${Math.floor((c.data.length * 3) / 4)} bytes` : ""}]*`;
    case "file":
      if (c.url && !c.url.startsWith("data:")) return `[${plain(c.filename ?? "file")}](<${c.url}>)`;
      loss.add("file", "files held inline (shown as a placeholder)", threadLabel(t), index);
      return `*[file ${plain(c.filename ?? "")} ${plain(c.mimeType)}]*`;
    default:
      return "";
  }
}

function transcript(t: ExportThread, loss: ExportLoss): string {
  const cp = t.checkpoint;
  const out: string[] = [];
  out.push(`## ${plain(t.threadId)}`);
  const facts = [
    `source \`${t.source.replace(/`/g, "")}\``,
    t.namespace ? `namespace \`${t.namespace.replace(/`/g, "")}\`` : "",
    t.checkpointId ? `checkpoint \`${t.checkpointId}\`` : "",
    `${t.format}`,
    `step ${cp.step}`,
    cp.updatedAt ? `updated ${cp.updatedAt}` : "",
    `${cp.messages.length} message${cp.messages.length === 1 ? "" : "s"}`,
  ].filter(Boolean);
  out.push(`*${facts.join(" · ")}*`);
  cp.messages.forEach((m, i) => {
    const ts = (m as { timestamp?: unknown }).timestamp;
    const when = typeof ts === "number" ? ` · ${new Date(ts).toISOString()}` : "";
    if (m.role === "toolResult") {
      const r = m as { toolCallId: string; toolName: string; isError: boolean; content: Content[] };
      const body = r.content.map((c) => (c.type === "text" ? c.text : block(c, t, i, loss))).join("\n");
      out.push(
        `### ${i} · tool ${plain(r.toolName)}${r.isError ? " (error)" : ""} \`${r.toolCallId.replace(/`/g, "")}\`${when}\n\n${fenced(body)}`,
      );
    } else if (m.role === "system" || m.role === "user" || m.role === "assistant") {
      const content = (m as { content: Content[] }).content;
      const model = (m as { model?: unknown }).model;
      const by = m.role === "assistant" && typeof model === "string" && model ? ` (${plain(model)})` : "";
      const body = content
        .map((c) => block(c, t, i, loss))
        .filter(Boolean)
        .join("\n\n");
      out.push(`### ${i} · ${m.role}${by}${when}\n\n${body}`);
    } else {
      const x = m as { kind?: unknown; data?: unknown };
      out.push(`### ${i} · ${plain(m.role)} / ${plain(String(x.kind ?? ""))}\n\n${fenced(json(x.data), "json")}`);
    }
  });
  const todos = cp.state.todos ?? [];
  if (todos.length) {
    out.push("### todos");
    out.push(
      todos.map((td) => `- [${td.status === "completed" ? "x" : " "}] ${td.content} *(${td.status})*`).join("\n"),
    );
  }
  const files = Object.entries(cp.state.files ?? {});
  if (files.length) {
    out.push("### files");
    for (const [path, f] of files) out.push(`**${plain(path)}**\n\n${fenced(f.content.join("\n"))}`);
  }
  const other = Object.entries(cp.state).filter(([k]) => k !== "todos" && k !== "files");
  if (other.length) out.push(`### state\n\n${fenced(json(Object.fromEntries(other)), "json")}`);
  if (cp.interrupt) out.push(`### pending interrupt\n\n${fenced(json(cp.interrupt), "json")}`);
  return `${out.join("\n\n")}\n`;
}

export const markdown: ExportFormat = {
  name: "markdown",
  row: "transcript",
  rows: (t, loss) => [transcript(t, loss)],
  columns: [["markdown", "string"]],
  flatten: (row) => ({ markdown: row }),
};
