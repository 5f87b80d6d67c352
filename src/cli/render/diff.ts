/**
 * Renderers for `ckpt diff`: colored text (plain markers when colour is off), Markdown for pull-request comments,
 * and the JSON change-record document. Pure string builders; the command writes them.
 */
import { Chalk, type ChalkInstance } from "chalk";
import { stringifyJson } from "../../base/json.js";
import type {
  BlockChange,
  Change,
  DiffOutput,
  FieldChange,
  MessageChange,
  TextDiff,
  UsageChange,
} from "../../core/diff/index.js";
import { fmtInt, pluralInt } from "../../base/plural.js";

/** How a usage total is named in the text and markdown reports (the --json keys stay the schema's names). */
const TOKEN_LABEL: Record<keyof UsageChange["delta"], string> = {
  input: "input",
  output: "output",
  cacheRead: "cache-read",
  cacheWrite: "cache-write",
  totalTokens: "total",
  reasoning: "reasoning",
};

/** What the renderers say about each side. */
export interface SideInfo {
  name: string;
  format: string;
  threadId: string;
  messages: number;
  /** "file-name": the thread id was derived from the file name, not read from the content */
  threadIdFrom?: "file-name";
  /** parts of this side that could not be read (compared without them) */
  unreadable?: Array<{ pointer: string; part: string; message: string; cause: string }>;
}

/** A short one-line rendering of a JSON value (bigints as digits). */
export function showValue(v: unknown, max = 80): string {
  if (v === undefined) return "(absent)";
  const s = typeof v === "string" ? JSON.stringify(v) : stringifyJson(v);
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

const OP_MARK: Record<MessageChange["op"], string> = {
  appended: "+",
  inserted: "+",
  removed: "-",
  edited: "~",
  moved: "↕",
};

function where(c: MessageChange): string {
  if (c.op === "moved") return `[${c.a} → ${c.b}]`;
  if (c.op === "removed") return `[${c.a}]`;
  if (c.op === "edited" && c.a !== c.b) return `[${c.a} → ${c.b}]`;
  return `[${c.b}]`;
}

/** Colored (or plain) text: header, summary paragraph, then detail unless `stat`. */
export function renderText(d: DiffOutput, a: SideInfo, b: SideInfo, opts: { color: boolean; stat: boolean }): string {
  const k: ChalkInstance = new Chalk({ level: opts.color ? 1 : 0 });
  const out: string[] = [];
  out.push(k.bold(`--- a: ${a.name} (${a.format}, thread ${a.threadId}, ${plural(a.messages, "message")})`));
  out.push(k.bold(`+++ b: ${b.name} (${b.format}, thread ${b.threadId}, ${plural(b.messages, "message")})`));
  for (const n of d.notes) out.push(k.dim(`note: ${n}`));
  out.push("", `${d.summary.text}.`);
  if (opts.stat || d.identical) return out.join("\n") + "\n";
  const section = (title: string, lines: string[]) => {
    if (lines.length) out.push("", k.bold.underline(title), ...lines);
  };
  const by = <K extends Change["kind"]>(kind: K) =>
    d.changes.filter((c): c is Extract<Change, { kind: K }> => c.kind === kind);

  const msgColor = (op: MessageChange["op"]) =>
    op === "removed" ? k.red : op === "edited" ? k.yellow : op === "moved" ? k.cyan : k.green;
  const msgs: string[] = [];
  for (const c of by("message")) {
    msgs.push(msgColor(c.op)(`${OP_MARK[c.op]} ${where(c)} ${c.op} ${c.role}: ${c.preview}`));
    for (const bl of c.blocks ?? []) msgs.push(...blockText(bl, k));
    for (const f of c.fields ?? []) msgs.push("    " + fieldText(f, k));
  }
  section("Messages", msgs);

  const other: string[] = [];
  for (const c of by("usage")) {
    for (const key of Object.keys(c.delta) as Array<keyof typeof c.delta>) {
      if (c.delta[key] !== 0)
        other.push(
          `  ${TOKEN_LABEL[key]} tokens: ${fmtInt(c.before[key])} → ${fmtInt(c.after[key])} (${signed(c.delta[key])})`,
        );
    }
  }
  for (const c of by("model")) other.push(`  ${c.field}: ${c.before ?? "(none)"} → ${c.after ?? "(none)"}`);
  section("Usage and model", other);

  section(
    "Todos",
    by("todo").map((c) => {
      const color = c.op === "added" ? k.green : c.op === "removed" ? k.red : k.yellow;
      const tail = c.op === "status" ? `${c.before} → ${c.after}` : c.op;
      const fields = (c.fields ?? []).map((f) => "\n    " + fieldText(f, k)).join("");
      return color(`  todo ${c.id} "${c.content}": ${tail}`) + fields;
    }),
  );

  const files: string[] = [];
  for (const c of by("file")) {
    files.push(
      (c.op === "added" ? k.green : c.op === "removed" ? k.red : k.yellow)(
        `  ${c.op} ${c.path} (+${c.added} −${c.removed})`,
      ),
    );
    if (c.patch) files.push(...colorPatch(c.patch, k).map((l) => "    " + l));
    for (const f of c.fields ?? []) files.push("    " + fieldText(f, k));
  }
  section("Files", files);

  const notes: string[] = [];
  for (const c of by("scratchpad")) {
    notes.push(
      (c.op === "added" ? k.green : c.op === "removed" ? k.red : k.yellow)(
        `  ${c.op} "${c.heading}"${c.op === "moved" ? ` [${c.a} → ${c.b}]` : ""}`,
      ),
    );
    if (c.text) notes.push(...textDiffLines(c.text, k).map((l) => "    " + l));
    for (const f of c.fields ?? []) notes.push("    " + fieldText(f, k));
  }
  section("Scratchpad", notes);

  const ctx: string[] = [];
  for (const c of by("context")) {
    ctx.push((c.op === "added" ? k.green : c.op === "removed" ? k.red : k.yellow)(`  ${c.op} ${c.name}`));
    for (const f of c.fields ?? []) ctx.push("    " + fieldText(f, k));
  }
  section("Contexts", ctx);
  section(
    "Other fields",
    by("field").map((f) => "  " + fieldText(f, k)),
  );
  return out.join("\n") + "\n";
}

function blockText(bl: BlockChange, k: ChalkInstance): string[] {
  const at =
    bl.op === "removed"
      ? `block ${bl.a}`
      : bl.op === "added"
        ? `block ${bl.b}`
        : bl.a === bl.b
          ? `block ${bl.b}`
          : `block ${bl.a} → ${bl.b}`;
  const head = (bl.op === "added" ? k.green : bl.op === "removed" ? k.red : bl.op === "moved" ? k.cyan : k.yellow)(
    `    ${at} (${bl.type}) ${bl.op}`,
  );
  const lines = [head];
  if (bl.text) lines.push(...textDiffLines(bl.text, k).map((l) => "      " + l));
  for (const f of bl.fields ?? []) lines.push("      " + fieldText(f, k));
  return lines;
}

function fieldText(f: FieldChange, k: ChalkInstance): string {
  if (f.before === undefined) return `${f.pointer}: ${k.green("added " + showValue(f.after))}`;
  if (f.after === undefined) return `${f.pointer}: ${k.red("removed " + showValue(f.before))}`;
  return `${f.pointer}: ${k.red(showValue(f.before))} → ${k.green(showValue(f.after))}`;
}

/** A text diff as lines: words inline ([-old-]{+new+} without colour), or a colored unified patch. */
export function textDiffLines(t: TextDiff, k: ChalkInstance): string[] {
  if (t.mode === "lines") return colorPatch(t.patch, k);
  const plain = k.level === 0;
  const s = t.parts
    .map((p) =>
      p.added
        ? plain
          ? `{+${p.value}+}`
          : k.green.underline(p.value)
        : p.removed
          ? plain
            ? `[-${p.value}-]`
            : k.red.strikethrough(p.value)
          : p.value,
    )
    .join("");
  return s.split("\n");
}

function colorPatch(patch: string, k: ChalkInstance): string[] {
  return patch
    .replace(/\n$/, "")
    .split("\n")
    .map((l) =>
      l.startsWith("+++") || l.startsWith("---")
        ? k.bold(l)
        : l.startsWith("@@")
          ? k.cyan(l)
          : l.startsWith("+")
            ? k.green(l)
            : l.startsWith("-")
              ? k.red(l)
              : l,
    );
}

const plural = (n: number, w: string) => pluralInt(n, w);
const signed = (n: number) => (n > 0 ? `+${fmtInt(n)}` : `−${fmtInt(-n)}`);

/** Markdown for a pull-request comment: summary, a table of message changes, fenced diffs. */
export function renderMarkdown(d: DiffOutput, a: SideInfo, b: SideInfo, opts: { stat: boolean }): string {
  const out: string[] = [];
  out.push(`### ckpt diff: \`${a.name}\` → \`${b.name}\``, "");
  out.push(d.identical ? "**Identical.**" : `**Summary:** ${d.summary.text}.`, "");
  out.push(
    `a: ${a.format}, thread \`${a.threadId}\`, ${plural(a.messages, "message")} · b: ${b.format}, thread \`${b.threadId}\`, ${plural(b.messages, "message")}`,
  );
  for (const n of d.notes) out.push("", `> ${n}`);
  if (opts.stat || d.identical) return out.join("\n") + "\n";
  const msgs = d.changes.filter((c): c is MessageChange => c.kind === "message");
  if (msgs.length) {
    out.push("", "#### Messages", "", "| change | a | b | role | message |", "|---|---:|---:|---|---|");
    for (const c of msgs) out.push(`| ${c.op} | ${c.a ?? ""} | ${c.b ?? ""} | ${c.role} | ${cell(c.preview)} |`);
    const edited = msgs.filter((c) => c.blocks?.length || c.fields?.length);
    for (const c of edited) {
      const body: string[] = [];
      for (const bl of c.blocks ?? []) {
        body.push(`# block ${bl.b ?? bl.a} (${bl.type}) ${bl.op}`);
        if (bl.text) body.push(...mdText(bl.text));
        for (const f of bl.fields ?? []) body.push(...mdField(f));
      }
      for (const f of c.fields ?? []) body.push(...mdField(f));
      const fc = fence(body);
      out.push(
        "",
        `<details><summary>message ${c.b} (${c.role}) ${c.op}</summary>`,
        "",
        fc + "diff",
        ...body,
        fc,
        "",
        "</details>",
      );
    }
  }
  const rows: string[] = [];
  for (const c of d.changes) {
    if (c.kind === "usage") {
      for (const key of Object.keys(c.delta) as Array<keyof typeof c.delta>)
        if (c.delta[key] !== 0)
          rows.push(`| ${TOKEN_LABEL[key]} tokens | ${fmtInt(c.before[key])} | ${fmtInt(c.after[key])} |`);
    } else if (c.kind === "model") rows.push(`| ${c.field} | ${cell(c.before ?? "")} | ${cell(c.after ?? "")} |`);
    else if (c.kind === "todo")
      rows.push(
        `| todo ${cell(c.id)} (${cell(c.content)}) | ${c.before ?? (c.op === "added" ? "—" : "")} | ${c.after ?? (c.op === "removed" ? "—" : c.op)} |`,
      );
    else if (c.kind === "context") rows.push(`| context ${cell(c.name)} | ${c.op === "added" ? "—" : ""} | ${c.op} |`);
    else if (c.kind === "field")
      rows.push(`| \`${cell(c.pointer)}\` | ${cell(showValue(c.before))} | ${cell(showValue(c.after))} |`);
  }
  if (rows.length) out.push("", "#### State and fields", "", "| what | a | b |", "|---|---|---|", ...rows);
  for (const c of d.changes) {
    if (c.kind === "file") {
      out.push("", `#### File \`${c.path}\` ${c.op} (+${c.added} −${c.removed})`);
      if (c.patch) {
        const body = c.patch.replace(/\n$/, "").split("\n");
        const fc = fence(body);
        out.push("", fc + "diff", ...body, fc);
      }
      for (const f of c.fields ?? [])
        out.push("", `- \`${f.pointer}\`: ${showValue(f.before)} → ${showValue(f.after)}`);
    } else if (c.kind === "scratchpad") {
      out.push("", `#### Scratchpad note "${c.heading}" ${c.op}`);
      if (c.text) {
        const body = mdText(c.text);
        const fc = fence(body);
        out.push("", fc + "diff", ...body, fc);
      }
    }
  }
  return out.join("\n") + "\n";
}

function mdText(t: TextDiff): string[] {
  if (t.mode === "lines") return t.patch.replace(/\n$/, "").split("\n");
  const before = t.parts
    .filter((p) => !p.added)
    .map((p) => p.value)
    .join("");
  const after = t.parts
    .filter((p) => !p.removed)
    .map((p) => p.value)
    .join("");
  return [...before.split("\n").map((l) => "- " + l), ...after.split("\n").map((l) => "+ " + l)];
}

function mdField(f: FieldChange): string[] {
  const o: string[] = [];
  if (f.before !== undefined) o.push(`- ${f.pointer}: ${showValue(f.before, 200)}`);
  if (f.after !== undefined) o.push(`+ ${f.pointer}: ${showValue(f.after, 200)}`);
  return o;
}

/** A code fence longer than any backtick run in `lines`, so fenced text cannot close it early. */
function fence(lines: readonly string[]): string {
  let longest = 0;
  for (const l of lines) for (const m of l.match(/`+/g) ?? []) longest = Math.max(longest, m.length);
  return "`".repeat(Math.max(3, longest + 1));
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The `--json` document: sides, identical, summary, change records, notes. */
export function renderJson(d: DiffOutput, a: SideInfo, b: SideInfo, opts: { stat: boolean }): string {
  const doc = {
    a,
    b,
    identical: d.identical,
    summary: d.summary,
    notes: d.notes,
    ...(opts.stat ? {} : { changes: d.changes }),
  };
  return stringifyJson(doc, 2) + "\n";
}
