/**
 * How `ckpt <command> --help` reads (issue #38): yargs lays the page out, this module mends what it lays out badly.
 *   - A command's page lists that command's options: `--version` belongs to `ckpt --version` alone, and
 *     `--aes-key-file` (LangGraph's encrypted rows) is not shown where no store is read (schema, completion).
 *   - Examples: each command on a line of its own, never cut in two (yargs' two columns wrapped a long command line
 *     onto the next line, where it read as another command), its description as a comment above it.
 *   - A `[choices: …]` list too long for the line: left-aligned under the option's description, where yargs
 *     right-aligned each of its lines; a type label that ran into the description (`a folder[string]`) is set apart.
 */
import type { Argv } from "yargs";
import type { CommandDef } from "./command.js";

/** Commands that read no store: `--aes-key-file` means nothing there. */
const NO_STORES = new Set(["schema", "completion"]);

/** Stands in the page for a command's examples until `tidyHelp` writes them out unwrapped. */
const EXAMPLES_MARK = "@@ckpt-examples@@";
const examplesOf = new Map<string, Array<[string, string]>>();

/** The command's name: the first word of its yargs command string. */
const nameOf = (def: CommandDef) => String(Array.isArray(def.command) ? def.command[0] : def.command).split(" ")[0]!;

/**
 * `def.builder` as the CLI registers it: its `.example(command, description)` calls kept for `tidyHelp` (a mark in
 * the page's epilogue instead), `--version` hidden, `--aes-key-file` too where no store is read.
 */
export function helpBuilder(def: CommandDef): (y: Argv) => Argv {
  const name = nameOf(def);
  return (y) => {
    const examples: Array<[string, string]> = [];
    const proxy: Argv = new Proxy(y, {
      get(target, prop) {
        if (prop === "example")
          return (command: string, description: string) => {
            examples.push([command, description]);
            return proxy;
          };
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          const out = (v as (...a: unknown[]) => unknown).apply(target, args);
          return out === target ? proxy : out;
        };
      },
    });
    def.builder(proxy);
    examplesOf.set(name, examples);
    y.hide("version");
    if (NO_STORES.has(name)) y.hide("aes-key-file");
    if (examples.length > 0) y.epilogue(`${EXAMPLES_MARK}${name}`);
    return y;
  };
}

/** The help page yargs wrote (at `width` columns), mended as the header says. */
export function tidyHelp(text: string, width: number): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let column = 0; // where the descriptions of the current section start
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const mark = line.indexOf(EXAMPLES_MARK);
    if (mark >= 0) {
      out.push(...examplesText(examplesOf.get(line.slice(mark + EXAMPLES_MARK.length).trim()) ?? [], width));
      continue;
    }
    const opt = /^(\s+(?:-\w, )?--?[\w-]+\s+|\s{2}\w[\w-]*\s{2,})(?=\S)/.exec(line);
    if (opt) column = opt[1]!.length;
    // a [choices: …] list yargs put on lines of its own, right-aligned: gathered and set under the description
    if (column > 0 && /^\s+\[/.test(line) && line.includes("[choices:") && !opt) {
      let block = line.trim();
      while (!balanced(block) && i + 1 < lines.length) block += ` ${lines[++i]!.trim()}`;
      out.push(...wrap(block, column, width));
      continue;
    }
    out.push(apart(line, width));
  }
  return out.join("\n");
}

/**
 * Each example as its description in `#` comment lines (wrapped to the width) and its command on a line of its own
 * (never wrapped: it is copied whole), a blank line between examples.
 */
function examplesText(examples: Array<[string, string]>, width: number): string[] {
  return examples.flatMap(([command, description], k) => [
    ...(k > 0 ? [""] : ["Examples:"]),
    ...(description ? wrap(description, 4, width).map((l) => `  # ${l.slice(4)}`) : []),
    `  ${command}`,
  ]);
}

/** Whether every `[` of `s` is closed. */
function balanced(s: string): boolean {
  let depth = 0;
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "[") depth++;
    else if (!quoted && ch === "]") depth--;
  }
  return depth <= 0;
}

/** `text` in lines of at most `width` columns, each indented by `indent`, broken at spaces. */
function wrap(text: string, indent: number, width: number): string[] {
  const room = Math.max(20, width - indent);
  const lines: string[] = [];
  let cur = "";
  // a label and its value stay together: `[default: "default"]`, `[choices: "ckpt",`
  const words = text.split(" ").reduce<string[]>((ws, w) => {
    if (ws.length > 0 && ws.at(-1)!.endsWith(":")) ws[ws.length - 1] += ` ${w}`;
    else ws.push(w);
    return ws;
  }, []);
  for (const word of words) {
    if (cur && cur.length + 1 + word.length > room) {
      lines.push(" ".repeat(indent) + cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  if (cur) lines.push(" ".repeat(indent) + cur);
  return lines;
}

/** A type label run into the text before it (`or a folder[string] [required]`): a space between, or its own line. */
function apart(line: string, width: number): string {
  const m = /(\S)(\[(?:string|number|boolean|array|count)\].*)$/.exec(line);
  if (!m || m[1] === "[") return line;
  const head = line.slice(0, m.index + 1);
  const label = m[2]!;
  if (head.length + 1 + label.length <= width) return `${head} ${label}`;
  return `${head}\n${" ".repeat(Math.max(0, width - label.length))}${label}`;
}
