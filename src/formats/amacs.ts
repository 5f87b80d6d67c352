/**
 * amacs: `agent-chat.org` (v4: `* Tick N` / `:TIMESTAMP:` drawer / `** Human` / `** Agent`; v3, read-only:
 * `:COMPLETED:` / `** Human Prompt` with a `#+begin_prompt` block / `** Agent Response` with an optional `*** Think`)
 * and `scratchpad.org` (`* heading` + `:THREAD:`/`:TICK:` drawer + content), one folder = one thread (FORMATS.md §3).
 *
 * The org files are parsed into a documented JSON structure (schemas/formats/amacs/document.json) that holds exactly
 * what amacs' own loaders return (`string-trim`med texts, ticks, thread/tick properties) plus, per exchange, the raw
 * text the loader skips (`lost`: e.g. a reply's `* Point one` line and everything after it, which ends the Tick
 * section on reload). Pointers into that structure map back to file and line through `locate`.
 *
 * Writing: a reply or prompt line that starts with `* ` or `** ` would end its section on reload; the writer prefixes
 * it with "," (org's own escape for heading-like lines) and reports each such change as a loss note.
 */
import type { AgentMessage, Checkpoint, Content, Ext, ScratchpadNote } from "../generated/types.js";
import { inputError, usageError } from "../base/errors.js";
import type { FormatAdapter, Issue, LossSink, SourceDoc } from "./types.js";
import { escapePtr } from "../base/pointer.js";

export interface AmacsExchange {
  tick: number;
  /** `:TIMESTAMP:` (v4) or `:COMPLETED:` (v3), UTC `YYYY-MM-DDTHH:MM:SSZ`; the loader does not read it */
  timestamp: string | null;
  human: string;
  agent: string;
  /** v3 only: the `*** Think` text */
  think?: string;
  /** raw text after the exchange that the loader skips (a heading inside a reply and what follows it) */
  lost?: string;
  /** 1-based line of the `* Tick` heading */
  line: number;
}
export interface AmacsNote extends ScratchpadNote {
  line: number;
}
export interface AmacsDoc {
  chat?: { version: "v4" | "v3"; title: string | null; exchanges: AmacsExchange[]; trailing?: string };
  scratchpad?: { title: string | null; notes: AmacsNote[]; finalNewline?: boolean };
}

const CHAT = "agent-chat.org";
const PAD = "scratchpad.org";

/** Emacs `string-trim`: whitespace (space, tab, CR, LF) at both ends. */
const trim = (s: string) => s.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, "");
const lineAt = (text: string, offset: number) => text.slice(0, offset).split("\n").length;

function parseChat(text: string): NonNullable<AmacsDoc["chat"]> {
  const title = /^#\+TITLE: (.*)$/m.exec(text)?.[1] ?? null;
  const v3 = /^\*\* (Human Prompt|Agent Response)$/m.test(text);
  const exchanges: AmacsExchange[] = [];
  // level-1 headings split the file into sections
  const heads = [...text.matchAll(/^\* .*$/gm)];
  for (let h = 0; h < heads.length; h++) {
    const m = /^\* Tick ([0-9]+)/.exec(heads[h]![0]);
    if (!m) continue;
    const start = heads[h]!.index!;
    const end = h + 1 < heads.length ? heads[h + 1]!.index! : text.length;
    const section = text.slice(start, end);
    const ts = (v3 ? /^:COMPLETED: (.*)$/m : /^:TIMESTAMP: (.*)$/m).exec(section)?.[1] ?? null;
    const humanHead = v3 ? /^\*\* Human Prompt\n/m : /^\*\* Human\n/m;
    const agentHead = v3 ? /^\*\* Agent Response\n/m : /^\*\* Agent\n/m;
    const sub = (re: RegExp): string | undefined => {
      const x = re.exec(section);
      if (!x) return undefined;
      const from = x.index + x[0].length;
      const next = /^\*\* /m.exec(section.slice(from));
      return section.slice(from, next ? from + next.index : section.length);
    };
    let human = sub(humanHead);
    let agent = sub(agentHead);
    if (human === undefined || agent === undefined) continue; // the loader keeps only complete exchanges
    let think: string | undefined;
    if (v3) {
      const p = /#\+begin_prompt\n([\s\S]*?)\n?#\+end_prompt/.exec(human);
      human = p ? p[1]! : human;
      const t = /^\*\*\* Think\n([\s\S]*?)(?=\n\n(?!\n)|$)/m.exec(agent);
      if (t) {
        think = trim(t[1]!);
        agent = agent.slice(0, t.index) + agent.slice(t.index + t[0].length);
      }
    }
    const ex: AmacsExchange = {
      tick: Number(m[1]),
      timestamp: ts,
      human: trim(human),
      agent: trim(agent),
      line: lineAt(text, start),
    };
    if (think !== undefined) ex.think = think;
    // non-Tick level-1 sections right after this one: text the loader skips
    let k = h + 1;
    while (k < heads.length && !/^\* Tick [0-9]+/.test(heads[k]![0])) k++;
    if (k > h + 1) {
      const lostEnd = k < heads.length ? heads[k]!.index! : text.length;
      ex.lost = text.slice(end, lostEnd);
    }
    exchanges.push(ex);
  }
  return { version: v3 ? "v3" : "v4", title, exchanges };
}

function parsePad(text: string): NonNullable<AmacsDoc["scratchpad"]> {
  const title = /^#\+TITLE: (.*)$/m.exec(text)?.[1] ?? null;
  const notes: AmacsNote[] = [];
  const heads = [...text.matchAll(/^\* (.+)\n/gm)];
  heads.forEach((h, i) => {
    const start = h.index! + h[0].length;
    const end = i + 1 < heads.length ? heads[i + 1]!.index! : text.length;
    let body = text.slice(start, end);
    let thread: string | null = null;
    let tick: number | null = null;
    const drawer = /^:PROPERTIES:\n([\s\S]*?)^:END:\n/m.exec(body);
    if (drawer && drawer.index === 0) {
      const th = /^:THREAD: (.+)$/m.exec(drawer[1]!)?.[1];
      thread = th === undefined || th === "null" ? null : th;
      const tk = /^:TICK: ([0-9]+)$/m.exec(drawer[1]!)?.[1];
      tick = tk === undefined ? null : Number(tk);
      body = body.slice(drawer[0].length);
    }
    notes.push({ heading: h[1]!, thread, tick, content: trim(body), line: lineAt(text, h.index!) });
  });
  return { title, notes, ...(text.endsWith("\n") && notes.length ? { finalNewline: true } : {}) };
}

const isLineBreak = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * Whether some line of `text` starts with `prefix` and `rest(text, end of prefix)` holds: `/^prefix…/m.test(text)`
 * without a regex attempt at every offset (detection runs on every input, most of them large JSON documents).
 */
function someLineStarts(
  text: string,
  prefix: string,
  rest: (text: string, at: number) => boolean = () => true,
): boolean {
  // V8 looks for a pattern's first character first: '#' is common in message text, so "#+TITLE: " is found
  // by its tail "+TITLE: " and the '#' checked after
  const skip = prefix.startsWith("#") ? 1 : 0;
  const tail = prefix.slice(skip);
  for (let k = text.indexOf(tail, skip); k !== -1; k = text.indexOf(tail, k + 1)) {
    const i = k - skip;
    if (skip === 1 && text.charCodeAt(i) !== prefix.charCodeAt(0)) continue;
    if ((i === 0 || isLineBreak(text.charCodeAt(i - 1))) && rest(text, i + prefix.length)) return true;
  }
  return false;
}
const digitAt = (t: string, at: number) => at < t.length && t.charCodeAt(at) >= 48 && t.charCodeAt(at) <= 57;
/** `.*Scratchpad` from `at`: "Scratchpad" later on the same line */
const scratchpadOnLine = (t: string, at: number) => {
  const k = t.indexOf("Scratchpad", at);
  if (k === -1) return false;
  for (let j = at; j < k; j++) if (isLineBreak(t.charCodeAt(j))) return false;
  return true;
};
const TITLE = "#+TITLE: ";
/** /^\* Tick [0-9]+/m */
const hasTickHeading = (t: string) => someLineStarts(t, "* Tick ", digitAt);

function filesOf(doc: SourceDoc): Record<string, string> {
  if (doc.files) return doc.files;
  if (doc.text === undefined) return {};
  const base = doc.name.slice(Math.max(doc.name.lastIndexOf("/"), doc.name.lastIndexOf("\\")) + 1); // the part after the last slash or backslash
  if (base === PAD || (someLineStarts(doc.text, TITLE, scratchpadOnLine) && !someLineStarts(doc.text, "* Tick ")))
    return { [PAD]: doc.text };
  return { [CHAT]: doc.text };
}

function threadIdOf(doc: SourceDoc): string {
  if (doc.threadId !== undefined) return doc.threadId;
  const parts = doc.name.split(/[\\/]/).filter(Boolean);
  const last = parts[parts.length - 1] ?? "amacs";
  if (doc.files || !last.endsWith(".org")) return last;
  return parts[parts.length - 2] ?? last.replace(/\.org$/, "");
}

const isoToMs = (s: string | null) => (s && !Number.isNaN(Date.parse(s)) ? Date.parse(s) : undefined);
const msToIso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function setExt(t: { ext?: Ext }, key: string, v: unknown) {
  if (v === undefined) return;
  (t.ext ??= {}).amacs ??= {} as Record<string, unknown>;
  (t.ext.amacs as Record<string, unknown>)[key] = v;
}
const extOf = (x: { ext?: Ext }) =>
  x.ext?.amacs && typeof x.ext.amacs === "object" ? (x.ext.amacs as Record<string, unknown>) : {};

/** Make text safe for the v4 reader: lines starting "* " or "** " get a "," prefix. */
function escapeOrg(text: string, pointer: string, lossy: LossSink): string {
  return text
    .split("\n")
    .map((line, i) => {
      if (/^\*{1,2} /.test(line)) {
        lossy.push({
          pointer,
          field: "text",
          reason: `line ${i + 1} starts with '${line.slice(0, line.indexOf(" ") + 1)}', which would end the section when amacs reloads the file: written as ',${line.slice(0, 20)}'`,
        });
        return "," + line;
      }
      return line;
    })
    .join("\n");
}

const textOf = (content: Content[]) =>
  content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");

export const amacsAdapter: FormatAdapter<AmacsDoc> = {
  name: "amacs",
  title: "amacs agent-chat.org (v4; v3 read-only) + scratchpad.org — a folder is one thread",
  extensions: [".org"],
  lossy: [
    "tool calls and tool results",
    "images, files, thinking blocks",
    "usage, model, provider, stop reasons",
    "system and extension messages",
    "a prompt without a reply (amacs stores completed exchanges only)",
    "todos, files and contexts",
    "message timestamps finer than a second (one timestamp per tick)",
  ],
  schema: "formats/amacs/document",
  detect(doc: SourceDoc) {
    const files = filesOf(doc);
    const chat = files[CHAT];
    const pad = files[PAD];
    if (chat !== undefined && hasTickHeading(chat))
      return { confidence: 0.95, version: /^\*\* Human Prompt$/m.test(chat) ? "v3" : "v4" };
    if (doc.files && (chat !== undefined || pad !== undefined)) return { confidence: 0.9, version: "v4" };
    if (
      pad !== undefined &&
      (someLineStarts(
        pad,
        TITLE,
        (t, at) => t.startsWith("AMACS Scratchpad", at) || t.startsWith("Agent Scratchpad", at),
      ) ||
        /(^|[\\/])scratchpad\.org$/.test(doc.name))
    )
      return { confidence: 0.9, version: "v4" };
    return { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    const files = filesOf(doc);
    if (files[CHAT] === undefined && files[PAD] === undefined)
      throw inputError("not-amacs", "expected agent-chat.org and/or scratchpad.org", { file: doc.name });
    const out: AmacsDoc = {};
    if (files[CHAT] !== undefined) out.chat = parseChat(files[CHAT]);
    if (files[PAD] !== undefined) out.scratchpad = parsePad(files[PAD]);
    return out;
  },
  toCanonical(native, doc) {
    const messages: AgentMessage[] = [];
    for (const ex of native.chat?.exchanges ?? []) {
      const ts = isoToMs(ex.timestamp);
      const user: AgentMessage = {
        role: "user",
        content: [{ type: "text", text: ex.human }],
        ...(ts !== undefined ? { timestamp: ts } : {}),
      };
      setExt(user, "tick", ex.tick);
      if (ex.timestamp !== null && ts === undefined) setExt(user, "timestamp", ex.timestamp);
      const content: Content[] = [];
      if (ex.think !== undefined) content.push({ type: "thinking", thinking: ex.think });
      content.push({ type: "text", text: ex.agent });
      const agent: AgentMessage = { role: "assistant", content, ...(ts !== undefined ? { timestamp: ts } : {}) };
      setExt(agent, "tick", ex.tick);
      if (ex.lost !== undefined) setExt(agent, "lost", ex.lost);
      messages.push(user, agent);
    }
    const cp: Checkpoint = {
      schemaVersion: 1,
      threadId: threadIdOf(doc),
      step: native.chat?.exchanges.length ?? 0,
      messages,
      state: {},
      origin: { format: "amacs", version: native.chat?.version ?? "v4", threadIdFrom: "file-name" },
    };
    if (native.scratchpad)
      cp.state.scratchpad = native.scratchpad.notes.map(({ heading, thread, tick, content }) => ({
        heading,
        thread,
        tick,
        content,
      }));
    const ext: Record<string, unknown> = {};
    if (native.chat) ext.chatTitle = native.chat.title;
    if (native.scratchpad) ext.scratchpadTitle = native.scratchpad.title;
    if (native.scratchpad?.finalNewline) ext.scratchpadFinalNewline = true;
    cp.ext = { amacs: ext };
    return cp;
  },
  fromCanonical(cp, { version, lossy }) {
    if (version === "v3")
      throw usageError("amacs v3 chat files are read-only in ckpt (amacs itself no longer writes them): write v4");
    const e = extOf(cp);
    const exchanges: AmacsExchange[] = [];
    let lastTick = 0;
    let pending: { text: string; ts?: number; tick?: number; i: number } | undefined;
    cp.messages.forEach((m, i) => {
      const ptr = `/messages/${i}`;
      if (m.role === "user") {
        if (pending)
          lossy.push({
            pointer: `/messages/${pending.i}`,
            field: "message",
            reason: "amacs stores completed exchanges only: a prompt without a reply is dropped",
          });
        const me = extOf(m as { ext?: Ext });
        (m as { content: Content[] }).content.forEach((c, k) => {
          if (c.type !== "text")
            lossy.push({
              pointer: `${ptr}/content/${k}`,
              field: c.type,
              reason: `amacs prompts are text: ${c.type} blocks are dropped`,
            });
        });
        pending = {
          text: escapeOrg(textOf((m as { content: Content[] }).content), `${ptr}/content`, lossy),
          ts: (m as { timestamp?: number }).timestamp,
          tick: typeof me.tick === "number" ? me.tick : undefined,
          i,
        };
        return;
      }
      if (m.role === "assistant" && pending) {
        const a = m as Extract<AgentMessage, { role: "assistant" }>;
        a.content.forEach((c, k) => {
          if (c.type !== "text")
            lossy.push({
              pointer: `${ptr}/content/${k}`,
              field: c.type,
              reason: `amacs replies are text: ${c.type} blocks are dropped`,
            });
        });
        const foreign = cp.origin?.format !== "amacs";
        if (foreign)
          for (const f of ["usage", "model", "provider", "stopReason", "errorMessage"] as const)
            if (a[f] !== undefined) lossy.push({ pointer: `${ptr}/${f}`, field: f, reason: `amacs stores no ${f}` });
        const ae = extOf(a);
        const tick = Math.max(pending.tick ?? lastTick + 1, lastTick + 1);
        lastTick = tick;
        const ts = pending.ts ?? a.timestamp;
        if (foreign && ts !== undefined) {
          // one time per exchange, in whole seconds: both messages are read back with it
          const kept = Math.floor(Number(ts) / 1000) * 1000;
          if (pending.ts !== undefined && Number(pending.ts) !== kept)
            lossy.push({
              pointer: `/messages/${pending.i}/timestamp`,
              field: "timestamp",
              reason: "amacs times are whole seconds",
            });
          if (a.timestamp !== undefined && Number(a.timestamp) !== kept)
            lossy.push({
              pointer: `${ptr}/timestamp`,
              field: "timestamp",
              reason: "an amacs exchange has one time (the prompt's, in whole seconds)",
            });
        }
        if (ts === undefined)
          lossy.push({ pointer: ptr, field: "timestamp", reason: "no timestamp: written as 1970-01-01T00:00:00Z" });
        const ex: AmacsExchange = {
          tick,
          timestamp: ts !== undefined ? msToIso(ts) : "1970-01-01T00:00:00Z",
          human: pending.text,
          agent: escapeOrg(textOf(a.content), `${ptr}/content`, lossy),
          line: 0,
        };
        if (typeof ae.lost === "string") ex.lost = ae.lost;
        exchanges.push(ex);
        pending = undefined;
        return;
      }
      lossy.push({
        pointer: ptr,
        field: "message",
        reason:
          m.role === "toolResult"
            ? "amacs has no tool results"
            : m.role === "assistant"
              ? "an assistant message without a prompt before it cannot be an amacs exchange"
              : `amacs has no ${m.role} messages`,
      });
    });
    if (pending)
      lossy.push({
        pointer: `/messages/${pending.i}`,
        field: "message",
        reason: "amacs stores completed exchanges only: a prompt without a reply is dropped",
      });
    const { scratchpad, ...rest } = cp.state;
    for (const k of Object.keys(rest)) {
      const v = (rest as Record<string, unknown>)[k];
      if (
        v !== undefined &&
        !(Array.isArray(v) && v.length === 0) &&
        !(v && typeof v === "object" && Object.keys(v).length === 0)
      )
        lossy.push({
          pointer: `/state/${escapePtr(k)}`,
          field: k,
          reason: "amacs keeps only chat exchanges and scratchpad notes",
        });
    }
    if (cp.interrupt)
      lossy.push({ pointer: "/interrupt", field: "interrupt", reason: "amacs has no pending-approval state" });
    if (cp.origin?.format !== "amacs") {
      for (const k of ["createdAt", "updatedAt"] as const)
        if (cp[k] !== undefined) lossy.push({ pointer: `/${k}`, field: k, reason: `amacs has no checkpoint ${k}` });
      if (cp.step !== exchanges.length)
        lossy.push({
          pointer: "/step",
          field: "step",
          reason: `amacs has no step counter (it is read back as the number of exchanges, ${exchanges.length}): step ${cp.step} is dropped`,
        });
    }
    const out: AmacsDoc = {
      chat: { version: "v4", title: typeof e.chatTitle === "string" ? e.chatTitle : "AMACS Chat History", exchanges },
    };
    const withLines = () => {
      // the line numbers this document will have once written (as parse() would report them)
      const written = amacsAdapter.serialize(out) as { files: Record<string, string> };
      const back = amacsAdapter.parse({ name: cp.threadId, files: written.files });
      back.chat?.exchanges.forEach((x, i) => exchanges[i] && (exchanges[i]!.line = x.line));
      back.scratchpad?.notes.forEach((x, i) => out.scratchpad?.notes[i] && (out.scratchpad.notes[i]!.line = x.line));
      return out;
    };
    if (scratchpad?.length) {
      out.scratchpad = {
        title: typeof e.scratchpadTitle === "string" ? e.scratchpadTitle : "AMACS Scratchpad",
        ...(cp.origin?.format === "amacs" && e.scratchpadFinalNewline === true ? { finalNewline: true } : {}),
        notes: scratchpad.map((n, i) => ({
          ...n,
          heading: n.heading.replace(/\n/g, " "),
          content: escapeOrg(n.content, `/state/scratchpad/${i}/content`, lossy),
          line: 0,
        })),
      };
    }
    return withLines();
  },
  lint(native, doc) {
    const issues: Issue[] = [];
    (native.chat?.exchanges ?? []).forEach((ex, i) => {
      if (ex.lost !== undefined) {
        const line = ex.lost.split("\n")[0] ?? "";
        issues.push({
          severity: "warning",
          rule: "lint/amacs-heading-in-reply",
          message: `the reply of Tick ${ex.tick} contains a line starting with '${line.slice(0, line.indexOf(" ") + 1)}' ("${line.slice(0, 40)}"): amacs ends the reply there on reload, so it loads as ${JSON.stringify(ex.agent.slice(0, 40))} and the rest is lost`,
          pointer: `/chat/exchanges/${i}/agent`,
          file: doc.files ? `${doc.name}/${CHAT}` : doc.name,
          line: ex.line,
          column: 1,
        });
      }
    });
    return issues;
  },
  messagePointers(native) {
    const out: string[] = [];
    (native.chat?.exchanges ?? []).forEach((_e, i) =>
      out.push(`/chat/exchanges/${i}/human`, `/chat/exchanges/${i}/agent`),
    );
    return out;
  },
  locate(native, pointer, doc) {
    const m = /^\/(chat\/exchanges|scratchpad\/notes)\/(\d+)/.exec(pointer);
    const chat = m?.[1] === "chat/exchanges";
    const item = m ? (chat ? native.chat?.exchanges[Number(m[2])] : native.scratchpad?.notes[Number(m[2])]) : undefined;
    const file = doc.files ? `${doc.name}/${chat || !m ? CHAT : PAD}` : doc.name;
    return { file, line: item?.line ?? 1, column: 1 };
  },
  /** the time of an exchange that had none (1970-01-01T00:00:00Z, the convert report says so) */
  fillIns: { message: (path, value) => path === "timestamp" && value === 0 },
  serialize(native) {
    const files: Record<string, string> = {};
    if (native.chat) {
      let s = `#+TITLE: ${native.chat.title ?? "AMACS Chat History"}\n\n`;
      for (const ex of native.chat.exchanges) {
        s += `* Tick ${ex.tick}\n:PROPERTIES:\n:TIMESTAMP: ${ex.timestamp ?? "1970-01-01T00:00:00Z"}\n:END:\n\n** Human\n${ex.human}\n\n** Agent\n`;
        // a reply the loader cut short: what it kept, then the raw rest exactly as it stood in the file
        s += ex.lost !== undefined ? (ex.agent ? ex.agent + "\n" : "") + ex.lost : `${ex.agent}\n\n`;
      }
      files[CHAT] = s;
    }
    if (native.scratchpad) {
      const notes = native.scratchpad.notes.map(
        (n) =>
          `* ${n.heading}\n:PROPERTIES:\n:THREAD: ${n.thread ?? "null"}\n:TICK: ${n.tick ?? 0}\n:END:\n\n${n.content}`,
      );
      files[PAD] =
        `#+TITLE: ${native.scratchpad.title ?? "AMACS Scratchpad"}\n\n` +
        notes.join("\n") +
        (native.scratchpad.finalNewline ? "\n" : "");
    }
    return { files };
  },
};
