/**
 * `ckpt search`: grep over a canonical checkpoint. A checkpoint is cut into fields — each message's text (and
 * thinking), each tool call's arguments and tool result (`tools`), each state key (`state`) — and each field is
 * matched against a literal (optionally case-insensitive) or a regular expression. A hit names the message as
 * `ckpt show` numbers it, its role, the tool, and carries a snippet around the match. Pure: no I/O.
 */
import type { AgentMessage, Checkpoint, Content } from "../generated/types.js";
import { stringifyJson } from "../base/json.js";

/** What is searched besides the messages' text: tool arguments and results (`tools`), state (`state`). */
export type SearchScope = "messages" | "tools" | "state";

export interface SearchQuery {
  pattern: string;
  /** a regular expression (JavaScript syntax) rather than a literal */
  regex?: boolean;
  /** case-insensitive */
  ignoreCase?: boolean;
  /** where to look; messages' text is always searched @default ["messages"] */
  in?: readonly SearchScope[];
  /** only messages of these roles (`user`, `assistant`, `system`, `tool`, or an extension role) */
  roles?: readonly string[];
  /** only tool calls and results of these tools (implies `tools`) */
  tools?: readonly string[];
  /** characters of context on each side of a match in the snippet @default 40 */
  context?: number;
}

/** One place of a checkpoint that matched. */
export interface SearchHit {
  /** the message's index (as `ckpt show` numbers them); absent for state */
  message?: number;
  /** `user`, `assistant`, `system`, `tool`, an extension message's role, or `state` */
  role: string;
  /** what matched: `text`, `thinking`, `toolCall`, `toolResult`, `data` (an extension message), `state` */
  field: string;
  /** the tool of a tool call or result */
  tool?: string;
  /** the state key */
  key?: string;
  /** the text around the first match of the field, on one line */
  snippet: string;
  /** where the match is in `snippet` ([start, end) offsets) */
  match: [number, number];
  /** matches in the field */
  count: number;
}

/** A compiled query: finds the first match in a string and counts them. */
export interface Matcher {
  find(s: string): { start: number; end: number; count: number } | undefined;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Compile a query's pattern (throws a SyntaxError for a bad regular expression). */
export function compileMatcher(q: Pick<SearchQuery, "pattern" | "regex" | "ignoreCase">): Matcher {
  if (!q.regex && !q.ignoreCase) {
    const p = q.pattern;
    return {
      find(s) {
        const i = s.indexOf(p);
        if (i < 0) return undefined;
        let count = 1;
        if (p.length) for (let j = s.indexOf(p, i + p.length); j >= 0; j = s.indexOf(p, j + p.length)) count++;
        return { start: i, end: i + p.length, count };
      },
    };
  }
  const re = new RegExp(q.regex ? q.pattern : escapeRegex(q.pattern), `g${q.ignoreCase ? "i" : ""}u`);
  return {
    find(s) {
      re.lastIndex = 0;
      const m = re.exec(s);
      if (!m) return undefined;
      const first = { start: m.index, end: m.index + m[0].length };
      let count = 1;
      if (m[0].length === 0) re.lastIndex++;
      while (re.exec(s)) {
        count++;
        if (re.lastIndex === 0) break;
      }
      return { ...first, count };
    },
  };
}

/**
 * A cheap test a store's raw strings can be put to before a checkpoint is converted at all: false means no field of
 * the checkpoint can match. Given only where that is sound — a literal (case-insensitive or not) without the
 * characters that could join two raw strings into one field (quotes, backslashes, JSON punctuation, line breaks):
 * every field is then a raw string or the JSON of raw strings, and a match lies inside one of them (or inside the
 * JSON of one, which `string` tests too where an escape could hold the start of a match). Not for `--in
 * state`: the canonical interrupt is JSON with keys and values of its own (`toolCallId`, `toolName`, `interrupt`,
 * `step`) that no raw string holds.
 *
 * `text`: the same test on a whole JSON text, sound where every match in a decoded string shows in the text as it is:
 * a pattern of printable ASCII without `"`, `\` and `/` (the characters a JSON writer escapes besides control
 * characters), that no number could hold (a number's text changes when it is parsed and written again: `1E2` is
 * `100`), in a text without `\u` escapes (one could hide any character, or a case-insensitive match's non-ASCII
 * counterpart: `K` matches U+212A): a text that has one passes.
 */
export function prefilterOf(
  q: Pick<SearchQuery, "pattern" | "regex" | "ignoreCase" | "in">,
): { string: (s: string) => boolean; text?: (s: string) => boolean } | undefined {
  if (
    q.regex ||
    q.pattern === "" ||
    q.in?.includes("state") ||
    /["\\:,{}[\]\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(q.pattern)
  )
    return undefined;
  const test = testerOf(q);
  const text = /^[\x20-\x7e]*$/.test(q.pattern) && !/[/]/.test(q.pattern) && !NUMBERISH.test(q.pattern);
  // a field written as JSON (tool arguments, state, an extension message's data) shows a line break, another control
  // character or a lone surrogate as an escape (`\n`, `\u0001`): a pattern that can begin inside one ("nprint" in
  // "1\nprint"; JSON.stringify writes them in lower case) is also tested on the JSON of a string that holds one
  const string = (q.ignoreCase ? new RegExp(IN_ESCAPE.source, "i") : IN_ESCAPE).test(q.pattern)
    ? (s: string) => test(s) || (JSON_ESCAPED.test(s) && test(JSON.stringify(s)))
    : test;
  return { string, ...(text ? { text: (s: string) => test(s) || s.includes("\\u") } : {}) };
}

/**
 * A pattern that can begin inside an escape JSON.stringify writes: at the letter of `\b` `\f` `\n` `\r` `\t` (anything
 * may follow it), at a hex digit of `\uXXXX` (the last digit may be followed by anything), or at its `u` — then
 * followed by four hex digits, or by fewer and nothing else ("u00", not "umbrella").
 */
const IN_ESCAPE = /^(?:[bfnrt0-9a-f]|u(?:[0-9a-f]{4}|[0-9a-f]{0,3}$))/;

/** the characters JSON.stringify writes as an escape besides `"` and `\` (which a prefiltered pattern never holds) */
const JSON_ESCAPED = /[\u0000-\u001f\ud800-\udfff]/;

/** Whether a string holds a match (what compileMatcher's `find` finds, without counting or a result object). */
function testerOf(q: Pick<SearchQuery, "pattern" | "regex" | "ignoreCase">): (s: string) => boolean {
  // a string shorter than any match is ruled out by its length (most keys and tags of a message record are), without
  // a call into the string search: a literal's match is as long as the literal; case-insensitively, each of the
  // pattern's code points matches one code point, at least one UTF-16 unit
  if (!q.regex && !q.ignoreCase) {
    const p = q.pattern;
    const min = p.length;
    return (s) => s.length >= min && s.includes(p);
  }
  const re = new RegExp(q.regex ? q.pattern : escapeRegex(q.pattern), `${q.ignoreCase ? "i" : ""}u`);
  if (q.regex) return (s) => re.test(s);
  const min = [...q.pattern].length;
  return (s) => s.length >= min && re.test(s);
}

/** a pattern that could lie in the text of a JSON number (digits, sign, point, exponent) */
const NUMBERISH = /^[-+.0-9eE]+$/;

/** Whether any string in a JSON value passes `test` (keys too: a state key is searched as part of its JSON). */
export function anyString(v: unknown, test: (s: string) => boolean): boolean {
  if (typeof v === "string") return test(v);
  // a number or boolean is searched as its JSON (tool arguments and state are)
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return test(String(v));
  if (v === null) return test("null");
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (anyString(v[i], test)) return true;
    return false;
  }
  if (typeof v === "object") {
    // own enumerable keys, as Object.entries gives them, without an array of pairs per object
    const o = v as Record<string, unknown>;
    for (const k in o) if (Object.hasOwn(o, k) && (test(k) || anyString(o[k], test))) return true;
  }
  return false;
}

/** A field of a checkpoint: one searchable text and what it belongs to. */
export interface Field {
  message?: number;
  role: string;
  field: string;
  tool?: string;
  key?: string;
  text: string;
}

const roleOf = (m: AgentMessage) => (m.role === "toolResult" ? "tool" : m.role);

function contentText(c: Content): string | undefined {
  if (c.type === "text") return c.text;
  if (c.type === "thinking") return c.thinking;
  return undefined;
}

/** The fields of a checkpoint, in order: messages (and their tool calls and results), then state keys. */
export function* fieldsOf(cp: Checkpoint, scopes: ReadonlySet<SearchScope>): Iterable<Field> {
  const tools = scopes.has("tools");
  const msgs = cp.messages;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    const role = roleOf(m);
    if (m.role === "toolResult") {
      if (!tools) continue;
      const r = m as Extract<AgentMessage, { role: "toolResult" }>;
      const text = r.content.map((c) => contentText(c) ?? "").join("\n");
      yield { message: i, role, field: "toolResult", tool: r.toolName, text };
      continue;
    }
    const content = (m as { content?: unknown }).content;
    if (!Array.isArray(content)) {
      // an extension message: its data as JSON
      yield { message: i, role, field: "data", text: stringifyJson((m as { data?: unknown }).data) ?? "null" };
      continue;
    }
    for (const c of content as Content[]) {
      const t = contentText(c);
      if (t !== undefined) yield { message: i, role, field: c.type, text: t };
      else if (c.type === "toolCall" && tools)
        yield {
          message: i,
          role,
          field: "toolCall",
          tool: c.name,
          text: typeof c.arguments === "string" ? c.arguments : (stringifyJson(c.arguments) ?? ""),
        };
    }
  }
  if (scopes.has("state")) {
    for (const [key, v] of Object.entries(cp.state ?? {}))
      yield { role: "state", field: "state", key, text: typeof v === "string" ? v : (stringifyJson(v) ?? "null") };
    if (cp.interrupt)
      yield { role: "state", field: "state", key: "interrupt", text: stringifyJson(cp.interrupt) ?? "null" };
  }
}

/** A match's surroundings on one line: `context` characters each side, newlines and tabs as spaces. */
function cut(text: string, start: number, end: number, context: number): { snippet: string; match: [number, number] } {
  const from = Math.max(0, start - context);
  const to = Math.min(text.length, end + context);
  const pre = (from > 0 ? "…" : "") + text.slice(from, start);
  const hit = text.slice(start, Math.min(end, start + 400));
  const post = text.slice(end, to) + (to < text.length ? "…" : "");
  // newlines and tabs as spaces (one test of the whole span first: most snippets have none)
  const snippet = pre + hit + post;
  return {
    snippet: HAS_BREAK.test(snippet) ? snippet.replace(BREAKS, " ") : snippet,
    match: [pre.length, pre.length + hit.length],
  };
}

const HAS_BREAK = /[\r\n\t]/;
const BREAKS = /[\r\n\t]/g;

/** Every field of a checkpoint that matches the query (the first match of each, with the count). */
export function searchCheckpoint(cp: Checkpoint, q: SearchQuery, matcher: Matcher = compileMatcher(q)): SearchHit[] {
  const scopes = new Set<SearchScope>(["messages", ...(q.in ?? []), ...(q.tools?.length ? (["tools"] as const) : [])]);
  const roles = q.roles?.length ? new Set(q.roles) : undefined;
  const tools = q.tools?.length ? new Set(q.tools) : undefined;
  const context = q.context ?? 40;
  const out: SearchHit[] = [];
  for (const f of fieldsOf(cp, scopes)) {
    if (roles && !roles.has(f.role)) continue;
    if (tools && (f.tool === undefined || !tools.has(f.tool))) continue;
    const m = matcher.find(f.text);
    if (!m) continue;
    const { snippet, match } = cut(f.text, m.start, m.end, context);
    // the keys in this order, an absent one left out (no object spread per hit)
    const hit = (f.message !== undefined ? { message: f.message, role: f.role } : { role: f.role }) as SearchHit;
    hit.field = f.field;
    if (f.tool !== undefined) hit.tool = f.tool;
    if (f.key !== undefined) hit.key = f.key;
    hit.snippet = snippet;
    hit.match = match;
    hit.count = m.count;
    out.push(hit);
  }
  return out;
}
